"""What the command line says around a match: file names, audit errors, missing packages."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from lcnet.cli import COMMANDS, main
from lcnet.game.seat import Seat
from lcnet.run import netmatch
from tests.uisupport import bot_match

ROOT = Path(__file__).resolve().parents[2]
REAL_NAME = re.compile(r"replays/[0-9a-f]{8}-(host|joiner)\.lcnet")


def help_text(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


def test_the_file_names_in_the_help_texts_are_real_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = []
    for command in COMMANDS:
        for name in re.findall(r"replays/\S+\.lcnet", help_text(command, capsys)):
            shown.append(name)
            assert REAL_NAME.fullmatch(name), f"lcnet {command} --help shows {name}"
    assert len(shown) >= 4  # audit, replay and resume give examples


@pytest.mark.slow
def test_both_files_of_a_match_have_the_same_name_but_the_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Even when the two programs name their files seconds apart (a joiner
    that waited for its host, two machines' clocks)."""
    peers = bot_match(rounds=1, suits=5, seed=4)
    from lcnet.run import localmatch

    localmatch.run(peers)
    seconds = count()

    class Clock:
        @staticmethod
        def now(tz: Any = None) -> Any:
            import datetime as real

            return real.datetime(2026, 11, 29, 12, 0, next(seconds) % 60, tzinfo=tz)

    monkeypatch.setattr(netmatch, "datetime", Clock)
    host = netmatch.replay_name(peers[Seat.HOST].session)
    joiner = netmatch.replay_name(peers[Seat.JOINER].session)
    assert host.endswith("-host.lcnet") and joiner.endswith("-joiner.lcnet")
    assert host.removesuffix("host.lcnet") == joiner.removesuffix("joiner.lcnet")
    assert REAL_NAME.fullmatch(f"replays/{host}")


def test_an_unreadable_file_is_named_in_the_audit_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.lcnet"
    junk.write_bytes(b"hello")
    assert main(["audit", str(junk)]) == 2
    err = capsys.readouterr().err
    assert f"{junk}: not an lcnet replay file" in err


@pytest.mark.slow
def test_audit_errors_are_json_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.lcnet"
    junk.write_bytes(b"hello")
    missing = tmp_path / "missing.lcnet"
    for args, bad in (
        ([str(junk)], junk),
        ([str(missing)], missing),
        ([str(ROOT / "replays" / "sample-complete-host.lcnet"), str(junk)], junk),
    ):
        assert main(["audit", *args, "--json"]) == 2
        captured = capsys.readouterr()
        answer = json.loads(captured.out)
        if len(args) == 2:  # the readable one is still judged, beside the error
            assert answer["files"][0]["verdict"] == "valid"
            answer = answer["files"][1]
        assert answer["file"] == str(bad)
        assert answer["verdict"] == "unreadable" and answer["exit_code"] == 2
        assert str(bad) in answer["error"]
        assert captured.err == ""


@pytest.mark.slow
def test_python_m_lcnet_without_its_packages_says_how_to_install(tmp_path: Path) -> None:
    # -S: no site-packages, as with a system python3 where lcnet's packages are missing.
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-S", "-m", "lcnet", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "is not installed, and lcnet needs it" in done.stderr
    assert "pip install -e ." in done.stderr


@pytest.mark.parametrize(
    ("spec", "reason"),
    [("hard:foo=1", "unknown mcts option(s) foo"), ("hard:time=abc", "not a number of seconds")],
)
def test_play_refuses_a_bad_bot_option_at_once(
    capsys: pytest.CaptureFixture[str], spec: str, reason: str
) -> None:
    # It used to start the bot's process, which failed, and then wait 30 s for
    # a host that could not be reached (issue 44, point 7).
    assert main(["play", "--bot", spec]) == 2  # a usage error, as for every command
    err = capsys.readouterr().err
    assert reason in err and "--bot" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["host", "--port", "0", "--bind", "127.0.0.1", "--bot", "hard:foo=1"],
        ["join", "127.0.0.1:9", "--bot", "hard:foo=1"],
        ["selfplay", "--bots", "hard:foo=1,medium", "--games", "2"],
    ],
    ids=["host", "join", "selfplay"],
)
@pytest.mark.slow
def test_a_bad_bot_option_is_a_usage_error_before_any_socket_or_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
) -> None:
    # join used to connect, leave a one-frame replay file and its .secret,
    # and hold the host for 20 s; host printed "listening" first; both
    # exited 1 where --rounds 0 exits 2 (issue 57, point 3).
    monkeypatch.setenv("LCNET_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert "unknown mcts option(s) foo" in err and "--bot" in err
    assert "listening" not in out
    assert not (tmp_path / "replays").exists() or not any((tmp_path / "replays").iterdir())


def test_the_replays_readme_names_files_as_lcnet_does() -> None:
    # It said DATE-TIME-GAMEID-SEAT.lcnet; the files are GAMEID-SEAT.lcnet
    # (issue 44, point 15).
    text = (Path(__file__).resolve().parents[2] / "replays" / "README.md").read_text()
    patterns = re.findall(r"`([A-Z][A-Z-]*\.lcnet)`", text)
    assert patterns == ["GAMEID-SEAT.lcnet"], patterns
    examples = re.findall(r"`([0-9a-f]+-(?:host|joiner)\.lcnet)`", text)
    assert examples and all(REAL_NAME.fullmatch(f"replays/{name}") for name in examples)


@pytest.mark.slow
def test_the_hints_print_a_command_that_runs_here(tmp_path: Path) -> None:
    # After the README's set-up, lcnet lives in .venv/bin and is not on the
    # PATH, so a hint saying "lcnet audit FILE OTHER-FILE" did not run as
    # printed (issue 44, point 13). It now names the program as started.
    script = Path(sys.executable).parent / "lcnet"
    assert script.exists(), "the suite runs in an environment where lcnet is installed"
    damaged = ROOT / "replays" / "sample-damaged-host.lcnet"
    bare = {**os.environ, "PATH": "/usr/bin:/bin"}
    started = os.path.relpath(script, ROOT)  # as the README's commands start it
    for path, env, expected in (
        (str(script), bare, f": {started} audit {damaged} OTHER-FILE"),
        ("lcnet", {**bare, "PATH": f"{script.parent}:/usr/bin:/bin"}, f": lcnet audit {damaged}"),
    ):
        done = subprocess.run(
            [path, "audit", str(damaged)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert expected in done.stdout, done.stdout


def test_an_error_that_quotes_a_path_reaches_the_terminal_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder name is text from outside: its ESC must not clear the screen.
    monkeypatch.setenv("LCNET_HOME", str(tmp_path / "home"))
    blocker = tmp_path / "f\x1b[2J\x07"
    blocker.write_bytes(b"")
    code = main(["host", "--replays", str(blocker / "sub"), "--bot", "easy"])
    err = capsys.readouterr().err
    assert code != 0
    assert "f\\x1b[2J\\x07" in err
    assert "\x1b" not in err and "\x07" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["history"],
        ["history", "--json"],
        ["resume"],
        ["selfplay", "--games", "2", "--bots", "random,random"],
    ],
    ids=["history", "history-json", "resume", "selfplay"],
)
@pytest.mark.slow
def test_a_listing_whose_reader_has_gone_exits_cleanly(tmp_path: Path, argv: list[str]) -> None:
    # `lcnet history | head -1` exited 1 when the pipe filled before head
    # closed it, 0 otherwise (issue 57, point 6). A reader that has gone
    # before the first write is the same case, every time.
    shutil.copy(ROOT / "replays" / "sample-complete-host.lcnet", tmp_path / "a.lcnet")
    env = dict(os.environ, LCNET_HOME=str(tmp_path / "home"))
    read, write = os.pipe()
    os.close(read)  # the reader is gone: every write to the pipe fails
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lcnet", *argv, "--replays", str(tmp_path)]
            if argv[0] in ("history", "resume")
            else [sys.executable, "-m", "lcnet", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
