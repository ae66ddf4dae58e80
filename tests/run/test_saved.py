"""``lcnet resume`` without a file: every unfinished match of the folder, with
the command that resumes it here (issue 57, point 4).

The files are real: a match played by two real sessions, stopped mid-round,
written as its players' files with their side files, with the header a
bot-run side writes (``lcnet host --bot``, ``lcnet join --bot``, ``lcnet
play``); the command the listing prints is then run as printed.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shlex
import socket
from pathlib import Path

import pytest

from lcnet.bots.uniform import RandomBot
from lcnet.cli import main
from lcnet.game.seat import Seat
from lcnet.protocol.events import MatchOptions
from lcnet.run import localmatch
from lcnet.run.saved import saved_matches
from lcnet.store import identity
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import write_replay, write_secret
from tests.net.test_first_contact import assert_valid_pair, write_identity
from tests.netutil import LOOPBACK, finish, lcnet_env, spawn, stop, wait_line


def stopped_match(
    replays: Path,
    homes: Path,
    extras: dict[Seat, dict[str, object]],
    *,
    seed: int = 12,
    seats: dict[Seat, str] | None = None,
    names: dict[Seat, str] | None = None,
) -> dict[Seat, Path]:
    """Both players' files of a one-round match stopped mid-round, with their
    side files, ``GAME-SEAT.lcnet`` as lcnet names them; each player's identity
    in ``homes/SEAT`` (or ``homes/NAME`` for ``seats[seat] = NAME``)."""
    rng = random.Random(seed)
    peers = localmatch.new_peers(
        {s: RandomBot(random.Random(int(s))).choose_turn for s in Seat},
        options=MatchOptions(rounds=1),
        rng=rng,
        names=names or {Seat.HOST: "random bot", Seat.JOINER: "Joe"},
    )
    localmatch.run(peers)
    paths = {}
    for seat in Seat:
        session = peers[seat].session
        assert session.game_id is not None
        path = replays / f"{session.game_id.hex()[:8]}-{seat}.lcnet"
        header = ReplayHeader(str(seat), "2026-12-07T20:00:00Z", "test", extra=extras[seat])
        write_replay(path, header, [f.raw for f in session.chain][:60])
        write_secret(path, {"master": peers[seat].master, "seat": str(seat)})
        paths[seat] = path
        key = session._signing_key
        assert key is not None
        write_identity(homes / (seats or {}).get(seat, str(seat)), key, session.names[seat])
    return paths


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


def listed(replays: Path, home: Path, cwd: Path) -> str:
    """What ``lcnet resume`` (no file) prints, run as a user runs it."""

    async def run() -> tuple[int, str, str]:
        return await finish(await spawn(["resume", "--replays", str(replays)], home, cwd))

    code, out, err = asyncio.run(run())
    assert code == 0, err
    return out


def command_for(out: str, path: Path) -> list[str]:
    """The command the listing prints under ``path``."""
    block = out.split(str(path), 1)[1]
    found = re.search(r"^\s+resume: (.+)$", block, re.MULTILINE)
    assert found is not None, out
    return shlex.split(found.group(1))


@pytest.mark.net
def test_a_match_bots_played_is_listed_with_its_bot_and_resumes_as_it_says(
    tmp_path: Path,
) -> None:
    # `lcnet host --bot random` against `lcnet join ADDRESS --bot random`,
    # stopped mid-round (each file says "bot" in its header, as they write it).
    port = free_port()
    replays = tmp_path / "replays"
    files = stopped_match(
        replays,
        tmp_path,
        {
            Seat.HOST: {"role": "host", "bind": LOOPBACK, "port": port, "bot": "random"},
            Seat.JOINER: {"role": "joiner", "host": LOOPBACK, "port": port, "bot": "random"},
        },
    )
    host_home, joiner_home = tmp_path / "host", tmp_path / "joiner"
    # Both played under `--name`: their identities' own names are not the match's,
    # and a resume must rebuild the frames as they were sent (it failed, exit 1).
    for home in (host_home, joiner_home):
        (home / identity.PROFILE_FILE).write_text(json.dumps({"version": 1, "name": "Zed"}))

    mine = listed(replays, host_home, tmp_path)
    assert out_count(mine, ".lcnet") == 2, mine  # both unfinished matches are listed
    assert "against Joe (your random bot hosts); 5 suits, 1 round;" in mine
    host_command = command_for(mine, files[Seat.HOST])
    assert host_command[-4:] == ["resume", str(files[Seat.HOST]), "--bot", "random"]
    # The other side was played with another key: no command, but why.
    assert "not resumable here: played with the key" in mine
    assert mine.count("resume: ") == 1

    theirs = listed(replays, joiner_home, tmp_path)
    joiner_command = command_for(theirs, files[Seat.JOINER])
    assert joiner_command[-4:] == ["resume", str(files[Seat.JOINER]), "--bot", "random"]

    async def both() -> None:
        # Each command exactly as printed, each under its own lcnet home.
        host = await asyncio.create_subprocess_exec(
            *host_command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=lcnet_env(host_home),
            cwd=tmp_path,
        )
        try:
            # It listens on the match's port again.
            await wait_line(host, f"listening on {LOOPBACK}:{port}", [])
            joiner = await asyncio.create_subprocess_exec(
                *joiner_command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=lcnet_env(joiner_home),
                cwd=tmp_path,
            )
            code, _, err = await finish(joiner)
            assert code == 0, err
            code, _, err = await finish(host)
            assert code == 0, err
        finally:
            await stop(host)

    asyncio.run(both())
    assert_valid_pair(files[Seat.HOST], files[Seat.JOINER])
    assert "No unfinished match" in listed(replays, host_home, tmp_path)


def out_count(text: str, needle: str) -> int:
    return sum(1 for line in text.splitlines() if line.rstrip().endswith(needle))


@pytest.mark.slow
def test_an_lcnet_play_match_is_listed_once_by_its_person_s_file_naming_the_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `lcnet play`: the bot hosts with its own identity (LCNET_HOME/bots/random),
    # the person joins; resuming the person's file brings the bot back.
    home = tmp_path / "home"
    replays = tmp_path / "replays"
    files = stopped_match(
        replays,
        tmp_path,
        {
            Seat.HOST: {"role": "host", "bind": LOOPBACK, "port": 1, "bot": "random"},
            Seat.JOINER: {"role": "joiner", "host": LOOPBACK, "port": 1, "opponent_bot": "random"},
        },
        seats={Seat.HOST: "home/bots/random", Seat.JOINER: "home"},
    )
    monkeypatch.setenv("LCNET_HOME", str(home))
    (match,) = saved_matches(replays).unfinished
    assert match.path == files[Seat.JOINER] and match.opponent_bot == "random"
    assert match.command is not None and match.command.endswith(f"resume {files[Seat.JOINER]}")
    assert "the built-in random bot (lcnet play)" in match.describe()[1]

    # Without the person's file, the bot's own side says why it is not resumed alone.
    files[Seat.JOINER].unlink()
    (alone,) = saved_matches(replays).unfinished
    assert alone.command is None and alone.why_not is not None
    assert "lcnet play" in alone.why_not

    # Without the bot's file, the person's file says what is missing.
    files[Seat.JOINER] = stopped_match(
        tmp_path / "elsewhere",
        tmp_path,
        {
            Seat.HOST: {"bot": "random"},
            Seat.JOINER: {"role": "joiner", "host": LOOPBACK, "port": 1, "opponent_bot": "random"},
        },
        seats={Seat.HOST: "home/bots/random", Seat.JOINER: "home"},
    )[Seat.JOINER]
    only = replays / "only"
    only.mkdir()
    files[Seat.JOINER].rename(only / files[Seat.JOINER].name)
    Path(f"{files[Seat.JOINER]}.secret").rename(only / f"{files[Seat.JOINER].name}.secret")
    (person,) = saved_matches(only).unfinished
    assert person.command is None and person.why_not is not None
    assert "the bot's replay file" in person.why_not


@pytest.mark.slow
def test_a_rematch_against_the_bot_is_listed_and_resumed_by_the_command_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rematch of an `lcnet play` match swaps the seats: the person hosts
    # the match (its file's seat), the bot joins it, on the bot's connection.
    # `lcnet resume` used to look for the bot as the host (its own file) and
    # the listing said it could not be resumed.
    home = tmp_path / "home"
    replays = tmp_path / "replays"
    files = stopped_match(
        replays,
        tmp_path,
        {
            Seat.HOST: {"role": "joiner", "host": LOOPBACK, "port": 1, "opponent_bot": "random"},
            Seat.JOINER: {"role": "host", "bind": LOOPBACK, "port": 1, "bot": "random"},
        },
        seats={Seat.HOST: "home", Seat.JOINER: "home/bots/random"},
        names={Seat.HOST: "Joe", Seat.JOINER: "random bot"},  # the bot joins the rematch
    )
    monkeypatch.setenv("LCNET_HOME", str(home))
    (match,) = saved_matches(replays).unfinished
    assert match.role == "host" and match.why_not is None and match.command is not None
    words = shlex.split(match.command)
    words = words[words.index("resume") :]  # after the program, however it was started
    assert words == ["resume", str(files[Seat.HOST])]

    async def resume() -> tuple[int, str, str]:
        # The person resigns at its first move (line mode): the match ends, sealed.
        proc = await spawn(words, home, tmp_path, typed=True)
        return await finish(proc, b"resign\n")

    code, out, err = asyncio.run(resume())
    assert code == 0, out + err
    assert_valid_pair(files[Seat.HOST], files[Seat.JOINER])


@pytest.mark.slow
def test_a_bot_named_in_a_hostile_header_reaches_the_terminal_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    replays = tmp_path / "replays"
    spec = "random:x=\x1b[2J\x07"
    stopped_match(
        replays,
        tmp_path,
        {
            Seat.HOST: {"role": "host", "bind": LOOPBACK, "port": 1, "bot": spec},
            Seat.JOINER: {"role": "joiner", "host": LOOPBACK, "port": 1, "bot": "\x1b]0;x\x07"},
        },
        seats={Seat.HOST: "home", Seat.JOINER: "other"},
    )
    monkeypatch.setenv("LCNET_HOME", str(home))
    assert main(["resume", "--replays", str(replays)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2J\\x07" in out  # in the bot's name, and quoted in its command
    assert "--bot 'random:x=\\x1b[2J\\x07'" in out
