"""Who am I playing: fingerprints on every screen, impostors and refusals (issue 11).

The network tests use real ZeroMQ sockets on 127.0.0.1 with ports the
operating system picks, several identities in separate LCNET_HOME
directories, and the full-screen UI driven by keys through prompt_toolkit
(as tests/ui/test_ui_game.py does). Every wait is for an event.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import nacl.signing
import pytest
import zmq.asyncio
from prompt_toolkit.input import PipeInput, create_pipe_input

from lcnet.cli._netargs import StandardStreams
from lcnet.errors import ExitCode, Refused
from lcnet.game.seat import Seat
from lcnet.link.admission import BUSY_REASON
from lcnet.protocol.client import MatchClient
from lcnet.protocol.status import Status
from lcnet.run.netmatch import Player, host_match, join_match
from lcnet.store import identity
from lcnet.store.identity import KeyChanged
from lcnet.ui.game import GameUI
from lcnet.ui.lines import run_lines
from tests.netutil import (
    FAST,
    LOOPBACK,
    TIMING_ARGS,
    LocalPeer,
    finish,
    local_host,
    local_joiner,
    spawn,
    spawn_host,
    stop,
)
from tests.uisupport import TIMEOUT, SmallOutput, local_client, render, wait_until

Scenario = Callable[[GameUI, PipeInput], Awaitable[None]]


def files(directory: Path) -> list[str]:
    """Every file a match left in ``directory`` (replay and side files)."""
    return sorted(p.name for p in directory.glob("*")) if directory.is_dir() else []


def flat(rows: list[str]) -> str:
    return " ".join(row.strip() for row in rows)


def full_screen(monkeypatch: pytest.MonkeyPatch, scenario: Scenario) -> None:
    """Make netmatch's player a terminal whose full-screen game runs ``scenario``."""
    import lcnet.ui.game

    async def tui(client: MatchClient, **_: Any) -> int:
        with create_pipe_input() as keys:
            ui = GameUI(client, input=keys, output=SmallOutput())
            task = asyncio.ensure_future(ui.run())
            try:
                await scenario(ui, keys)
                return await asyncio.wait_for(asyncio.shield(task), TIMEOUT)
            finally:
                if not task.done():
                    ui.app.exit(result=-1)
                    await asyncio.wait_for(task, TIMEOUT)

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(lcnet.ui.game, "run_tui", tui)


def player(home: Path, replays: Path, **kw: Any) -> Player:
    """A person at the standard streams, as the command line makes it."""
    return Player(
        replays=replays,
        timing=FAST,
        home=home,
        say=lambda _: None,
        front_end=StandardStreams(),
        **kw,
    )


def remember(home: Path, name: str, key: bytes) -> None:
    """``home``'s user has met ``name`` before, with ``key``."""
    assert identity.check_peer(name, key, home).status is identity.PeerStatus.NEW


OLD_BOB = bytes(nacl.signing.SigningKey(b"\x21" * 32).verify_key)


async def join_typed(directory: Path, port: int) -> asyncio.subprocess.Process:
    """``lcnet join`` in line mode (a person typing), as the user of ``directory``."""
    args = ["join", f"{LOOPBACK}:{port}", "--replays", str(directory / "r"), *TIMING_ARGS]
    return await spawn(args, directory / "home", directory, typed=True)


# ------------------------------------------------------------ fingerprints


@pytest.mark.slow
def test_the_waiting_screen_shows_both_players_and_i_shows_the_fingerprints() -> None:
    client = local_client()
    seen: dict[str, list[str]] = {}

    async def main() -> None:
        with create_pipe_input() as keys:
            ui = GameUI(client, input=keys, output=SmallOutput())
            seen["before"] = render(ui.app)
            task = asyncio.ensure_future(ui.run())
            await wait_until(ui, ui.my_move, "the player's move")
            keys.send_text("i")
            await wait_until(ui, lambda: ui.ids_open, "the fingerprints screen")
            seen["ids"] = render(ui.app)
            keys.send_text("\r")
            await wait_until(ui, lambda: not ui.ids_open, "the board again")
            keys.send_text("?")
            await wait_until(ui, lambda: ui.help_open, "the help screen")
            seen["help"] = render(ui.app)
            keys.send_text("\r")
            await wait_until(ui, lambda: not ui.help_open, "the board again")
            keys.send_text("q")
            await wait_until(ui, lambda: ui.turn.confirm is not None, "the quit question")
            keys.send_text("y")
            assert await asyncio.wait_for(task, TIMEOUT) == ExitCode.UNFINISHED

    asyncio.run(main())
    session = client.session
    mine = identity.fingerprint(session.keys[Seat.HOST])
    theirs = identity.fingerprint(session.keys[Seat.JOINER])
    before = flat(seen["before"])
    assert f"you: you (host), key {mine}" in before
    assert "opponent: the opponent (joiner), not connected yet" in before
    for screen in ("ids", "help"):
        text = flat(seen[screen])
        assert mine in text and theirs in text, screen
        assert "random bot (joiner)" in text, screen
    assert "who you play: both players' key fingerprints" in flat(seen["help"])


def test_line_mode_prints_both_fingerprints_when_the_match_starts() -> None:
    client = local_client()
    out = io.StringIO()

    class Quit(io.StringIO):
        def isatty(self) -> bool:
            return False

    code = asyncio.run(asyncio.wait_for(run_lines(client, Quit("quit\n"), out), TIMEOUT))
    assert code == ExitCode.UNFINISHED
    session = client.session
    text = out.getvalue()
    assert f"you: you (host), key {identity.fingerprint(session.keys[Seat.HOST])}" in text
    assert (
        f"opponent: random bot (joiner), key {identity.fingerprint(session.keys[Seat.JOINER])}"
        in text
    )
    assert text.index("opponent: random bot") < text.index("your move:")


# ------------------------------------------------------------ impostors


async def impostor_host(tmp_path: Path) -> tuple[asyncio.subprocess.Process, int, str]:
    """A stranger hosts under the name Bob; returns it, its port and its fingerprint."""
    proc, port = await spawn_host(tmp_path / "impostor", extra=["--name", "Bob"])
    fake = identity.load_identity(tmp_path / "impostor" / "home")
    return proc, port, fake.fingerprint


@pytest.mark.net
def test_an_impostor_host_stops_the_full_screen_on_a_warning_and_nothing_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = tmp_path / "alice"
    remember(alice, "Bob", OLD_BOB)
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await wait_until(ui, lambda: ui.tracker.failure is not None, "the refusal")
        seen["screen"] = render(ui.app)
        keys.send_text("q")

    full_screen(monkeypatch, scenario)

    async def main() -> tuple[BaseException, int]:
        proc, port, fake = await impostor_host(tmp_path)
        seen["fake"] = [fake]
        try:
            with pytest.raises(KeyChanged) as caught:
                await join_match(host=LOOPBACK, port=port, player=player(alice, alice / "r"))
            host_code, _, host_err = await finish(proc)
        finally:
            await stop(proc)
        assert "refused" in host_err, host_err
        return caught.value, host_code

    error, host_code = asyncio.run(main())
    screen = flat(seen["screen"])
    assert "WARNING" in screen
    assert identity.fingerprint(OLD_BOB) in screen and seen["fake"][0] in screen
    assert f"--accept-new-key {seen['fake'][0]}" in screen
    assert "never answered" not in screen
    assert error.exit_code == ExitCode.KEY_CHANGED == 5
    assert host_code == ExitCode.REFUSED == 4, "the impostor hears the refusal and stops"
    assert files(alice / "r") == []
    assert files(tmp_path / "impostor" / "replays") == [], "no file for a match never started"


@pytest.mark.slow
def test_an_impostor_host_in_line_mode_gets_the_same_one_reason(tmp_path: Path) -> None:
    alice = tmp_path / "alice"
    remember(alice / "home", "Bob", OLD_BOB)

    async def main() -> tuple[int, str, str, str, int]:
        proc, port, fake = await impostor_host(tmp_path)
        try:
            joiner = await join_typed(alice, port)
            code, out, err = await finish(joiner, b"board\n")
            host_code, _, _ = await finish(proc)
        finally:
            await stop(proc)
        return code, out, err, fake, host_code

    code, out, err, fake, host_code = asyncio.run(main())
    assert code == ExitCode.KEY_CHANGED, err
    # Said once, in the line mode's stream (the command does not repeat it).
    assert identity.fingerprint(OLD_BOB) in out and fake in out
    # The harmless causes are said beside the dangerous one (issue 44, point 6).
    assert "Bob has a new key (another machine" in out
    assert "by chance (two people who chose the same name) or to pass as Bob" in out
    assert "one of you can take another name (lcnet id --name NAME)" in out
    assert fake not in err
    assert "never answered" not in out
    assert host_code == ExitCode.REFUSED
    assert files(alice / "r") == [] and files(tmp_path / "impostor" / "replays") == []


@pytest.mark.slow
def test_a_look_alike_of_a_known_name_is_played_with_a_caution_beside_its_name(
    tmp_path: Path,
) -> None:
    """Issue 44, point 2: "Bоb" (a Cyrillic о) is not Bob, whom the joiner
    knows; it is a new name, so it plays, but the caution stands beside it."""
    alice = tmp_path / "alice"
    remember(alice / "home", "Bob", OLD_BOB)

    async def main() -> tuple[int, str, str]:
        proc, port = await spawn_host(tmp_path / "copycat", extra=["--name", "Bоb"])
        try:
            joiner = await join_typed(alice, port)
            code, out, err = await finish(joiner, b"board\nquit\n")
        finally:
            await stop(proc)
        return code, out, err

    code, out, err = asyncio.run(main())
    assert code == ExitCode.UNFINISHED, err
    caution = "the name 'Bоb' may not be who it says: it looks like 'Bob', known here"
    assert f"CAUTION: {caution}" in out
    assert f"  ! {caution}; it mixes scripts (CYRILLIC, LATIN)" in out  # with its fingerprint
    assert out.index("opponent: Bоb") < out.index(f"  ! {caution}")


def test_a_new_name_like_no_known_one_gets_no_caution(tmp_path: Path) -> None:
    home = tmp_path / "home"
    remember(home, "Bob", OLD_BOB)
    check = identity.tofu_check(home)
    other = bytes(nacl.signing.SigningKey(b"\x22" * 32).verify_key)
    assert check(Seat.HOST, "Carol", other) is None
    assert check(Seat.HOST, "Bob", OLD_BOB) is None  # known, with its key
    assert "looks like 'Bob'" in (check(Seat.HOST, "Bоb", other) or "")


@pytest.mark.slow
def test_accepting_the_new_key_explicitly_plays_and_remembers_it(tmp_path: Path) -> None:
    alice = tmp_path / "alice"
    remember(alice / "home", "Bob", OLD_BOB)

    async def main() -> tuple[int, str, str]:
        proc, port, fake = await impostor_host(tmp_path)
        try:
            joiner = await spawn(
                [
                    "join",
                    f"{LOOPBACK}:{port}",
                    "--bot",
                    "random",
                    "--accept-new-key",
                    fake.lower().replace("-", ""),
                    "--replays",
                    str(alice / "r"),
                    *TIMING_ARGS,
                ],
                alice / "home",
                alice,
            )
            code, _, err = await finish(joiner)
            assert (await finish(proc))[0] == 0
        finally:
            await stop(proc)
        return code, err, fake

    code, err, fake = asyncio.run(main())
    assert code == 0, err
    assert identity.fingerprint(identity.known_peers(alice / "home")["Bob"]) == fake


@pytest.mark.net
def test_a_host_shows_a_turned_away_impostor_and_goes_on_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hana = tmp_path / "hana"
    remember(hana, "local joiner", OLD_BOB)  # LocalPeer's name, with another key
    seen: dict[str, Any] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await wait_until(ui, lambda: bool(ui.alerts), "the warning")
        seen["warning"] = render(ui.app)
        seen["refused"] = await asyncio.wait_for(seen["refused_task"], TIMEOUT)
        keys.send_text("\r")
        await wait_until(ui, lambda: not ui.alerts, "the waiting screen again")
        seen["after"] = render(ui.app)
        keys.send_text("q")  # nobody joined: it quits at once, nothing to lose

    full_screen(monkeypatch, scenario)
    ports: list[int] = []

    def listening(port: int, _: object) -> None:
        ports.append(port)

    async def main() -> int:
        ctx = zmq.asyncio.Context()

        async def impostor() -> BaseException | None:
            while not ports:
                await asyncio.sleep(0)  # host_match binds before its UI starts
            joiner = local_joiner(tmp_path / "j", ctx, ports[0], seed=31)
            joiner.peer.start()
            try:
                while joiner.peer.failure is None:
                    await joiner.peer.next_update()
            finally:
                await joiner.peer.aclose()
            return joiner.peer.failure

        seen["refused_task"] = asyncio.ensure_future(impostor())
        try:
            return await host_match(
                bind=LOOPBACK,
                port=0,
                options=net_options(),
                player=player(hana, hana / "r"),
                on_listening=listening,
            )
        finally:
            ctx.term()

    code = asyncio.run(main())
    assert code == ExitCode.NOT_STARTED  # no match started, no file: nothing to continue
    warning = flat(seen["warning"])
    assert identity.fingerprint(OLD_BOB) in warning
    assert identity.fingerprint(bytes(LocalPeer_key(31).verify_key)) in warning
    assert "Waiting for the opponent" in flat(seen["after"])
    # Before a match exists the footer offers no moves, typing or resigning
    # (issue 44, point 15).
    assert "R resign" not in flat(seen["after"]) and "q quit" in flat(seen["after"])
    refused = seen["refused"]
    assert isinstance(refused, Refused) and refused.exit_code == ExitCode.REFUSED
    assert "not the one known here" in str(refused)
    assert files(hana / "r") == []


def net_options() -> Any:
    from lcnet.protocol.events import MatchOptions

    return MatchOptions(rounds=1)


def LocalPeer_key(seed: int) -> nacl.signing.SigningKey:
    import random

    return nacl.signing.SigningKey(random.Random(seed).randbytes(32))


# ------------------------------------------------------------ refusals


async def busy_host(tmp_path: Path, ctx: zmq.asyncio.Context) -> tuple[LocalPeer, LocalPeer, int]:
    """A host in a match with someone else (both idle at the first move)."""
    host, port = local_host(tmp_path / "h", ctx, options=net_options(), seed=41)
    joiner = local_joiner(tmp_path / "j", ctx, port, seed=42)
    host.peer.start()
    joiner.peer.start()
    async with asyncio.timeout(TIMEOUT):
        while host.peer.status is not Status.PLAYING:
            await host.peer.next_update()
    return host, joiner, port


@pytest.mark.net
def test_a_busy_host_is_shown_in_the_full_screen_and_exits_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await wait_until(ui, lambda: ui.tracker.failure is not None, "the refusal")
        seen["screen"] = render(ui.app)
        keys.send_text("q")

    full_screen(monkeypatch, scenario)
    me = tmp_path / "me"

    async def main() -> BaseException:
        ctx = zmq.asyncio.Context()
        host, joiner, port = await busy_host(tmp_path, ctx)
        try:
            with pytest.raises(Refused) as caught:
                await join_match(host=LOOPBACK, port=port, player=player(me, me / "r"))
        finally:
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        return caught.value

    error = asyncio.run(main())
    screen = flat(seen["screen"])
    assert BUSY_REASON in screen
    assert "never answered" not in screen
    assert error.exit_code == ExitCode.REFUSED  # type: ignore[attr-defined]
    assert files(me / "r") == []


@pytest.mark.net
def test_a_refusal_in_line_mode_has_one_reason_and_its_exit_code(tmp_path: Path) -> None:
    me = tmp_path / "me"

    async def main() -> tuple[int, str, str]:
        ctx = zmq.asyncio.Context()
        host, joiner, port = await busy_host(tmp_path, ctx)
        try:
            proc = await spawn(
                ["join", f"{LOOPBACK}:{port}", "--replays", str(me / "r"), *TIMING_ARGS],
                me / "home",
                me,
                typed=True,
            )
            return await finish(proc, b"board\n")
        finally:
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()

    code, out, err = asyncio.run(main())
    assert code == ExitCode.REFUSED, err
    assert BUSY_REASON in out and BUSY_REASON not in err  # said once
    assert "never answered" not in out
    assert files(me / "r") == []


def help_of(command: str) -> str:
    from lcnet.cli import build_parser

    parser = build_parser()
    text: str = parser._subparsers._group_actions[0].choices[command].format_help()  # type: ignore[union-attr]
    return text


def listed(code: ExitCode, text: str) -> bool:
    return f"\n  {code:d}  " in text


def test_join_s_help_lists_the_joiner_s_own_exit_statuses() -> None:
    text = help_of("join")
    for code in (
        ExitCode.REFUSED,
        ExitCode.KEY_CHANGED,
        ExitCode.VERSION,
        ExitCode.UNREACHABLE,
        ExitCode.NO_GAMES,
    ):
        assert listed(code, text), code
    assert "the host would not play" in text and "--accept-new-key" in text
    # Not the host's: a joiner waits for no one, and has no welcome to refuse.
    assert "no one joined" not in text and "refused your welcome" not in text


def test_host_s_help_lists_only_the_statuses_a_host_ends_with() -> None:
    text = help_of("host")
    assert listed(ExitCode.REFUSED, text) and "refused your welcome" in text
    # A host only listens: it is never unreachable, never refuses a host's
    # key or version (it turns such a joiner away and waits on), never searches.
    for code in (ExitCode.KEY_CHANGED, ExitCode.VERSION, ExitCode.UNREACHABLE, ExitCode.NO_GAMES):
        assert not listed(code, text), code


# ------------------------------------------------------------ resume errors


@pytest.mark.slow
def test_resume_errors_speak_plainly_and_never_name_the_bots_key_yours(tmp_path: Path) -> None:
    async def run(args: list[str], home: Path, typed: bytes = b"quit\n") -> tuple[int, str, str]:
        proc = await spawn([*args, *TIMING_ARGS], home, tmp_path, typed=True)
        return await finish(proc, typed)

    async def main() -> None:
        home = tmp_path / "home"
        code, _, _ = await run(["play", "--bot", "random", "--rounds", "1"], home)
        assert code == 3
        replays = tmp_path / "replays"
        joiner_file = next(replays.glob("*-joiner.lcnet"))
        bot_file = next(replays.glob("*-host.lcnet"))
        me = identity.load_identity(home)

        # Another identity (another LCNET_HOME): neither the player's key nor the bot's fits.
        code, _, err = await run(["resume", str(joiner_file)], tmp_path / "other")
        assert code == 1
        assert "FrameDropped" not in err and "your identity" not in err
        assert me.fingerprint in err  # the key the file was played with

        # The bot's side file is gone.
        secret = Path(f"{bot_file}.secret")
        kept = secret.read_bytes()
        secret.unlink()
        code, _, err = await run(["resume", str(joiner_file)], home)
        assert code == 1
        assert "did not start listening" not in err and "lcnet resume: the" not in err[14:]
        assert "side file" in err and "missing" in err
        secret.write_bytes(kept)
        secret.chmod(0o600)

    asyncio.run(main())


@pytest.mark.slow
def test_resume_with_another_identity_names_both_keys(tmp_path: Path) -> None:
    async def main() -> None:
        home = tmp_path / "home"
        proc = await spawn(
            ["play", "--bot", "random", "--rounds", "1", *TIMING_ARGS], home, tmp_path, typed=True
        )
        assert (await finish(proc, b"quit\n"))[0] == 3
        joiner_file = next((tmp_path / "replays").glob("*-joiner.lcnet"))
        other = tmp_path / "other"
        proc = await spawn(
            ["resume", str(joiner_file), "--bot", "random", "--connect", f"{LOOPBACK}:1"],
            other,
            tmp_path,
        )
        code, _, err = await finish(proc)
        assert code == 1
        assert identity.load_identity(home).fingerprint in err
        assert identity.load_identity(other).fingerprint in err
        assert "FrameDropped" not in err and "Traceback" not in err

    asyncio.run(main())
