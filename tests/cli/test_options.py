"""Every option of every command is checked before any socket, file or
announcement (issue 57, point 3): a bad value is a usage error (exit 2)
naming the option, whichever the command, and leaves nothing behind.

The cases are generated from a table of bad values per option; a second
test reads every command's parser, so that an option added later without
bad values here fails. The commands run in this process with
``asyncio.run`` (every socket, search and match of lcnet runs in it) and
``selfplay``'s games replaced by a tripwire: a value that got past the
checks fails the test instead of opening anything.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lcnet.cli import COMMANDS, main
from lcnet.link.rematch import MAX_REMATCHES
from lcnet.net.addresses import interface_addresses
from lcnet.protocol.wire import MAX_ROUNDS

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "replays" / "sample-complete-host.lcnet"
UNFINISHED = ROOT / "replays" / "sample-incomplete-joiner.lcnet"

# Placeholders, made in a folder of their own for each case.
A_FILE = "{file}"
UNDER_A_FILE = "{file}/sub"
MISSING = "{missing}"
THE_SAMPLE = "{sample}"
UNFINISHED_SAMPLE = "{unfinished}"

SECONDS = ["0", "-1", "nan", "inf", "1e9", "soon"]
NAMES = ["", "   ", "a\x1bb", "x" * 33, "\U0001f600" * 20, "tab\there"]
NOT_HERE = "203.0.113.77"  # TEST-NET-3: no machine's own address
PLAYER = {
    "--bot": ["chess", "hard:foo=1", "hard:time=abc"],
    "--replays": [A_FILE, UNDER_A_FILE],
    "--name": NAMES,
    "--accept-new-key": ["xyz", "1234"],
    "--ready-fd": ["-1", "987654", "x"],
    "--ping-interval": SECONDS,
    "--peer-timeout": SECONDS,
}
ROUNDS = ["0", "-1", "21", "x"]
SUITS = ["4", "7", "x"]
PORTS = ["-1", "65536", "999999", "x"]
SPECTATORS = ["-1", "100000", "x"]
REMATCH = ["-1", "101", "100000", "x"]
PICKS = ["0", "", "\x1b[2J"]

BAD: dict[str, dict[str, list[str]]] = {
    "host": {
        **PLAYER,
        "--port": PORTS,
        "--bind": ["nosuch0", NOT_HERE, "999.1.1.1", "[::1]"],
        "--suits": SUITS,
        "--rounds": ROUNDS,
        "--spectators": SPECTATORS,
        "--rematch": REMATCH,
        "--opening-timeout": SECONDS,
    },
    "join": {
        **PLAYER,
        "--pick": PICKS,
        "--rematch": REMATCH,
        "--connect-timeout": SECONDS,
    },
    "play": {
        **PLAYER,
        "--suits": SUITS,
        "--rounds": ROUNDS,
        "--connect-timeout": SECONDS,
    },
    "resume": {
        **PLAYER,
        "--port": PORTS,
        "--connect": ["http://x", "host:0", "a b"],
        "--spectators": SPECTATORS,
        "--rematch": REMATCH,
        "--connect-timeout": SECONDS,
    },
    "selfplay": {
        "--games": ["0", "-2", "10000000", "x"],
        "--bots": ["chess,random", "random", "random:depth=3,random"],
        "--suits": SUITS,
        "--rounds": ROUNDS,
        "--seed": ["x"],
        "--jobs": ["0", "100000", "x"],
        "--replays": [A_FILE, UNDER_A_FILE],
    },
    "games": {"--timeout": ["0", "-1", "nan", "inf", "601", "x"]},
    "watch": {
        "--pick": PICKS,
        "--look": ["0", "-1", "nan", "601", "x"],
        "--replays": [A_FILE, UNDER_A_FILE],
        "--timeout": ["0", "nan", "3601", "x"],
    },
    "replay": {"--seat": ["x"], "--deals": ["0", "100001", "x"], "--seed": ["x"]},
    "audit": {},
    "history": {"--replays": [A_FILE, MISSING]},
    "id": {"--name": NAMES, "--forget": ["nobody", ""]},
}
"""The bad values of each option of each command (flags take none)."""

BASE: dict[str, list[str]] = {
    "host": ["host", "--no-announce", "--bind", "127.0.0.1", "--port", "0", "--bot", "random"],
    "join": ["join", "127.0.0.1:9", "--bot", "random"],
    "play": ["play", "--bot", "random"],
    "resume": ["resume", UNFINISHED_SAMPLE],
    "selfplay": ["selfplay", "--games", "2", "--bots", "random,random"],
    "games": ["games"],
    "watch": ["watch", "127.0.0.1:9"],
    "replay": ["replay", THE_SAMPLE, "--text"],
    "audit": ["audit", THE_SAMPLE],
    "history": ["history"],
    "id": ["id"],
}
"""A good command line of each command, which the option under test is added to."""

ALONE: dict[tuple[str, str], list[str]] = {
    ("join", "--pick"): ["join", "--bot", "random"],
    ("watch", "--pick"): ["watch"],
    ("watch", "--look"): ["watch"],
    ("replay", "--deals"): ["replay", THE_SAMPLE, "--analyze"],
    ("resume", "--replays"): ["resume"],
}
"""Where an option only counts with another line than the command's good one."""

POSITIONAL: list[tuple[str, list[str], str]] = [
    ("join", ["join", "http://x", "--bot", "random"], "is a URL"),
    ("join", ["join", "999.1.1.1", "--bot", "random"], "is not an IPv4 address"),
    ("join", ["join", "host:0", "--bot", "random"], "is not a number from 1 to 65535"),
    ("watch", ["watch", "http://x"], "is a URL"),
    ("watch", ["watch", "host:70000"], "is not a number from 1 to 65535"),
]
"""Bad addresses, named by what is wrong with them (a positional has no option name)."""


def cases() -> Iterator[object]:
    for command, options in BAD.items():
        for option, values in options.items():
            for value in values:
                argv = [*ALONE.get((command, option), BASE[command]), option, value]
                yield pytest.param(argv, option, id=f"{command} {option} {value!r}")
    for command, argv, words in POSITIONAL:
        yield pytest.param(argv, words, id=f"{command} {argv[1]!r}")


class Reached(Exception):
    """A bad value got past the checks to where the command opens things."""


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """An empty working folder and LCNET_HOME, the placeholders' files, and the tripwires."""
    work, home, fixtures = tmp_path / "work", tmp_path / "home", tmp_path / "fixtures"
    work.mkdir()
    fixtures.mkdir()
    (fixtures / "a-file").write_text("not a folder")
    shutil.copy(SAMPLE, fixtures / SAMPLE.name)
    shutil.copy(UNFINISHED, fixtures / UNFINISHED.name)
    monkeypatch.chdir(work)
    monkeypatch.setenv("LCNET_HOME", str(home))

    def tripwire(*args: object, **kwargs: object) -> None:
        for arg in args:
            if asyncio.iscoroutine(arg):
                arg.close()  # never run: nothing is opened
        raise Reached("a bad option reached the command's work")

    monkeypatch.setattr(asyncio, "run", tripwire)
    monkeypatch.setattr("lcnet.cli.selfplay.run", tripwire)
    return {"work": work, "home": home, "fixtures": fixtures}


def filled(argv: list[str], fixtures: Path) -> list[str]:
    places = {
        A_FILE: str(fixtures / "a-file"),
        UNDER_A_FILE: str(fixtures / "a-file" / "sub"),
        MISSING: str(fixtures / "missing"),
        THE_SAMPLE: str(fixtures / SAMPLE.name),
        UNFINISHED_SAMPLE: str(fixtures / UNFINISHED.name),
    }
    return [places.get(arg, arg) for arg in argv]


def status_of(argv: list[str]) -> int | str | None:
    """The exit status ``lcnet ARGV`` ends with (argparse's own errors exit 2)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.slow
@pytest.mark.parametrize(("argv", "named"), list(cases()))
def test_a_bad_option_is_a_usage_error_before_anything_opens(
    argv: list[str],
    named: str,
    fresh: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    if NOT_HERE in argv:
        assert all(str(a) != NOT_HERE for a in interface_addresses()), "a test address is ours"
    code = status_of(filled(argv, fresh["fixtures"]))
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert named in err, err
    assert "Traceback" not in err and "listening" not in out + err
    assert not fresh["home"].exists(), "LCNET_HOME was made"
    assert not any(fresh["work"].iterdir()), "a file or folder was made"
    assert sorted(p.name for p in fresh["fixtures"].iterdir()) == sorted(
        ["a-file", SAMPLE.name, UNFINISHED.name]
    )


def options_of(command: str) -> list[str]:
    """The options of ``command`` that take a value, as its parser has them."""
    parser = argparse.ArgumentParser()
    importlib.import_module(f"lcnet.cli.{command}").configure(parser)
    return [
        action.option_strings[-1]
        for action in parser._actions
        if action.option_strings and action.nargs != 0 and action.dest != "help"
    ]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_option_has_bad_values_above(command: str) -> None:
    assert sorted(BAD[command]) == sorted(options_of(command))


def help_of(command: str, option: str) -> str | None:
    """The --help text of ``option`` of ``command`` (``None``: it has no such option)."""
    parser = argparse.ArgumentParser()
    importlib.import_module(f"lcnet.cli.{command}").configure(parser)
    for action in parser._actions:
        if option in action.option_strings:
            return action.help
    return None


@pytest.mark.parametrize("command", [c for c in COMMANDS if help_of(c, "--rounds") is not None])
def test_the_help_of_rounds_says_how_many_are_allowed(command: str) -> None:
    assert f"1 to {MAX_ROUNDS}" in str(help_of(command, "--rounds"))


@pytest.mark.parametrize("command", [c for c in COMMANDS if help_of(c, "--rematch") is not None])
def test_the_help_of_rematch_says_how_many_are_allowed(command: str) -> None:
    assert f"0 to {MAX_REMATCHES}" in str(help_of(command, "--rematch"))


@pytest.mark.slow
def test_a_bad_option_of_a_real_host_binds_nothing(tmp_path: Path) -> None:
    """As a process, as people run it: exit 2 before any listening line, no file."""
    env = {**os.environ, "LCNET_HOME": str(tmp_path / "home")}
    argv = ["host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random", "--name", "x" * 40]
    done = subprocess.run(
        [sys.executable, "-m", "lcnet", *argv, "--replays", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "--name" in done.stderr and "listening" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_folder_only_read_may_be_missing(
    fresh: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """resume's listing only reads --replays: a missing folder lists nothing,
    and is not made."""
    missing = fresh["fixtures"] / "missing"
    assert main(["resume", "--replays", str(missing)]) == 0
    assert "No unfinished match" in capsys.readouterr().out
    assert not missing.exists()
