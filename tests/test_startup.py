"""What the command line imports to start: only the command that runs, and what it uses.

``lcnet --help`` and ``--version`` are built from :data:`lcnet.cli.COMMANDS`
alone; a command's module, and the heavy packages it needs, are imported
when it runs. These tests look at the modules a fresh process has imported;
how long that takes is ``bench/startup.py``'s business, never a test's.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lcnet.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "replays" / "sample-complete-host.lcnet"

HEAVY = frozenset({"zmq", "prompt_toolkit", "zeroconf", "nacl"})
"""The dependencies that cost a start-up most (sockets, the terminal, mDNS, libsodium)."""

SCRIPT = """\
import contextlib, io, json, sys
from lcnet.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def imported_by(tmp_path: Path, *argv: str) -> set[str]:
    """The modules a fresh ``lcnet ARGV`` has imported by the time it returns."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), LCNET_HOME=str(tmp_path / "home"))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=True,
    )
    return set(json.loads(done.stdout))


def heavy(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules} & HEAVY


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_import_no_command_and_no_dependency(
    tmp_path: Path, argv: list[str]
) -> None:
    modules = imported_by(tmp_path, *argv)
    assert heavy(modules) == set()
    assert not any(name.startswith("lcnet.cli.") for name in modules)


@pytest.mark.slow
def test_audit_imports_neither_the_network_nor_the_terminal(tmp_path: Path) -> None:
    modules = imported_by(tmp_path, "audit", str(SAMPLE))
    assert "lcnet.audit.verdict" in modules  # it did run
    assert heavy(modules) <= {"nacl"}  # the signatures need libsodium, nothing else does


@pytest.mark.slow
def test_a_commands_help_imports_that_command_alone(tmp_path: Path) -> None:
    modules = imported_by(tmp_path, "audit", "--help")
    commands = {name for name in modules if name.startswith("lcnet.cli.")}
    assert commands == {"lcnet.cli.audit"}


@pytest.mark.slow
def test_selfplay_without_replay_files_imports_no_network(tmp_path: Path) -> None:
    modules = imported_by(tmp_path, "selfplay", "--games", "1", "--rounds", "1", "--seed", "1")
    assert "lcnet.run.selfplay" in modules
    assert heavy(modules) <= {"nacl"}


def test_every_command_module_is_listed_and_configures_its_parser() -> None:
    modules = {
        path.stem for path in (ROOT / "lcnet" / "cli").glob("*.py") if not path.stem.startswith("_")
    }
    assert modules == set(COMMANDS)
    for name in COMMANDS:
        assert callable(importlib.import_module(f"lcnet.cli.{name}").configure), name


@pytest.mark.slow
def test_the_analysis_of_a_replay_imports_neither_the_network_nor_the_terminal(
    tmp_path: Path,
) -> None:
    modules = imported_by(tmp_path, "replay", str(SAMPLE), "--analyze", "--json", "--deals", "1")
    assert "lcnet.bots.advice" in modules  # it did run
    assert heavy(modules) <= {"nacl"}
