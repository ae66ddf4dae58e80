"""Spectators (``lcnet watch``, docs/PROTOCOL.md §6.6), over real sockets.

A spectator is sent the signed transcript by the host and checks all of it
as the audit does; its own file must audit as the players' files do and
hold the same frames. The match never waits for a spectator: one that
stops reading is dropped, and it can change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
from pathlib import Path

import nacl.signing
import pytest
import zmq
import zmq.asyncio

from lcnet.audit import verdict as audit
from lcnet.deck import hashing
from lcnet.game.seat import Seat
from lcnet.link.audience import (
    BAD_WATCH_SIGNATURE_REASON,
    NO_GAME,
    NO_SPECTATORS_REASON,
    Audience,
    full_reason,
)
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.session import Session
from lcnet.review import positions
from lcnet.store import identity
from lcnet.store.replayfile import read_replay
from lcnet.watch.peer import Watching, watch
from lcnet.watch.spectator import Spectator
from tests.cheaters import Cheater, once
from tests.netutil import (
    DEADLINE,
    LOOPBACK,
    TIMING_ARGS,
    finish,
    local_host,
    local_joiner,
    replay_file,
    spawn,
    spawn_host,
    spawn_listening,
    stop,
)


def _identity(n: int, name: str) -> identity.Identity:
    return identity.Identity(name, nacl.signing.SigningKey(bytes([n]) * 32))


def _watching(tmp_path: Path, n: int, name: str, lines: list[str]) -> Watching:
    # These in-process players never answer about another match: nothing to follow.
    return Watching(
        identity=_identity(n, name),
        replays=tmp_path / name,
        timeout=30.0,
        show=lines.append,
        follow=False,
    )


async def _stalled_spectator(ctx: zmq.asyncio.Context, port: int) -> zmq.asyncio.Socket:
    """A spectator that asks once and then never reads again."""
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVHWM, 1)  # it reads nothing: let the host's queue fill
    sock.connect(f"tcp://{LOOPBACK}:{port}")
    me = _identity(9, "Stuck")
    message = wire.Watch(v=[1, 0], name=me.name, key=me.public_key, have=0)
    await sock.send(wire.make_frame(message, me.signing_key, game=NO_GAME).raw)
    return sock


@pytest.mark.net
def test_spectators_from_the_start_and_mid_round_hold_the_players_frames(
    tmp_path: Path,
) -> None:
    early_lines: list[str] = []
    late_lines: list[str] = []

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=3), seed=61)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=62)
        host.peer.start()
        early = asyncio.ensure_future(
            watch(LOOPBACK, port, _watching(tmp_path, 7, "Early", early_lines))
        )
        stalled = await _stalled_spectator(ctx, port)
        # The first spectator is in before the match starts.
        async with asyncio.timeout(DEADLINE):
            while len(host.peer.state.watchers) < 2:
                await host.peer.next_update()
        late: list[asyncio.Future[object]] = []
        seen_watchers: set[str] = set()
        told_joiner: set[str] = set()

        def hook(peer: object) -> None:
            seen_watchers.update(name for name, _ in host.peer.state.watchers)
            told_joiner.update(name for name, _ in joiner.peer.state.watchers)
            if not late and len(host.session.chain) >= 60:  # mid-round 1
                late.append(
                    asyncio.ensure_future(
                        watch(LOOPBACK, port, _watching(tmp_path, 8, "Late", late_lines))
                    )
                )

        joiner.peer.start()
        joiner_task = asyncio.ensure_future(joiner.play())
        try:
            await host.play(hook=hook)
            await joiner_task
            async with asyncio.timeout(DEADLINE):
                early_result = await early
                late_result = await late[0]
        finally:
            stalled.close()
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert host.session.is_over and host.session.sealed
        players = read_replay(host.path).frames
        assert players == read_replay(joiner.path).frames
        for result in (early_result, late_result):
            assert isinstance(result.verdict, audit.Verdict)
            assert result.verdict.kind is audit.VerdictKind.VALID, result.verdict.summary
            assert result.path is not None
            assert read_replay(result.path).frames == players
            assert audit.audit_file(result.path).summary == audit.audit_file(host.path).summary
        # The one that stopped reading was dropped; the match did not wait for it.
        assert host.peer._audience.dropped >= 1
        assert "Stuck" not in {name for name, _ in host.peer.state.watchers}
        assert {"Early", "Late", "Stuck"} <= seen_watchers
        # The host told its opponent who watches: the joiner's screen shows them too.
        assert {"Early", "Late"} <= told_joiner

    asyncio.run(main())
    # The one in before the match was told the host answers, the one mid-round not.
    waiting = "the host answers: its match has not begun (it waits for its opponent)"
    assert waiting in early_lines and waiting not in late_lines
    # One line per turn, the round scores and the result, for each spectator.
    turns = [line for line in early_lines if ": " in line and line.startswith("local ")]
    assert len(turns) >= 3 * 40
    assert sum(line.startswith("round ") and "over" in line for line in early_lines) == 3
    assert early_lines[-1].startswith("the match is over")
    assert late_lines[-1] == early_lines[-1]


@pytest.mark.net
def test_a_cheat_is_shown_to_the_spectator_with_the_audit_s_verdict(tmp_path: Path) -> None:
    def illegal(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.MoveMsg):
            return None
        view = c.view()
        assert view is not None
        hidden = c.hidden_positions()
        card = next((k for k in view.hand if k in hidden and not view.can_play(k)), None)
        if card is None:
            return None
        pos = hidden[card]
        return wire.MoveMsg(card=card.id, discard=False, draw=m.draw, pos=pos, key=c.own_key(pos))

    lines: list[str] = []

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=71)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=72, session_class=Cheater)
        cheater = joiner.session
        assert isinstance(cheater, Cheater)
        cheater.tamper = once(illegal)
        host.peer.start()
        watching = asyncio.ensure_future(
            watch(LOOPBACK, port, _watching(tmp_path, 7, "Eve", lines))
        )
        async with asyncio.timeout(DEADLINE):
            while not host.peer.state.watchers:
                await host.peer.next_update()
        joiner.peer.start()
        joiner_task = asyncio.ensure_future(joiner.play())
        try:
            await host.play()
            async with asyncio.timeout(DEADLINE):
                result = await watching
        finally:
            joiner_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await joiner_task
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        assert host.session.dispute is not None and host.session.dispute.offender is Seat.JOINER
        players = audit.audit_file(host.path)
        assert players.kind is audit.VerdictKind.INVALID and players.bad is not None
        assert result.verdict.kind is audit.VerdictKind.INVALID
        assert result.verdict.bad is not None
        assert result.verdict.bad.seq == players.bad.seq
        assert result.verdict.summary == players.summary
        assert result.path is not None
        assert audit.audit_file(result.path).summary == players.summary

    asyncio.run(main())
    assert any(line.startswith("DISPUTE") and "joiner" in line for line in lines), lines


@pytest.mark.slow
def test_the_spectator_s_board_never_shows_more_than_the_replay_of_the_same_frames(
    tmp_path: Path,
) -> None:
    from tests.run.test_history import ADA, BEN, play_match

    paths = play_match(
        tmp_path, "m", host=ADA, joiner=BEN, resigns=None, seed=11, created="2026-12-06T00:00:00Z"
    )
    frames = read_replay(paths[Seat.HOST]).frames
    spectator = Spectator()
    checked = 0
    for index, raw in enumerate(frames, start=1):
        spectator.receive([raw])
        assert spectator.have == index
        if index % 25 and index != len(frames):
            continue
        record = positions.load(frames[:index])
        expected = (
            positions.render_text(record, record.positions[-1], None) if record.positions else []
        )
        assert spectator.board() == expected
        checked += 1
    assert checked >= 5
    assert spectator.verdict().summary == audit.audit_file(paths[Seat.HOST]).summary


def test_the_host_s_answers_to_a_watch(tmp_path: Path) -> None:
    """Who may watch: the host's limit, a signature that verifies, the right match."""
    rng = random.Random(3)
    session = Session.host(nacl.signing.SigningKey(rng.randbytes(32)), rng.randbytes(32), name="H")
    sent: list[tuple[bytes, list[bytes]]] = []

    def send(ident: bytes, parts: list[bytes]) -> bool:
        sent.append((ident, parts))
        return True

    key = nacl.signing.SigningKey(rng.randbytes(32))
    other = nacl.signing.SigningKey(rng.randbytes(32))

    def watch_frame(signer: nacl.signing.SigningKey, game: bytes = NO_GAME) -> wire.Frame:
        message = wire.Watch(v=[1, 0], name="S", key=bytes(key.verify_key), have=0)
        return wire.make_frame(message, signer, game=game)

    closed = Audience(0, send, lambda: None, session.signing_key)
    assert closed.request(b"a", watch_frame(key), session, 0.0) == NO_SPECTATORS_REASON
    audience = Audience(1, send, lambda: None, session.signing_key)
    assert audience.request(b"a", watch_frame(other), session, 0.0) == BAD_WATCH_SIGNATURE_REASON
    assert audience.request(b"a", watch_frame(key, game=b"\x01" * 32), session, 0.0) is not None
    assert not sent and not audience.watchers
    assert audience.request(b"a", watch_frame(key), session, 0.0) is None
    assert audience.watchers == (("S", hashing.fingerprint(bytes(key.verify_key))),)
    # Before the match, the answer is the host's sync: 0 frames.
    ((ident, parts),) = sent
    answer = wire.decode_frame(parts[0])
    assert ident == b"a" and isinstance(answer.message, wire.Sync) and answer.message.have == 0
    assert answer.signed_by(bytes(session.signing_key.verify_key))
    # A flood of watch frames is answered at most once per interval (and the
    # second watch gives "a" its place: a first one only puts it on trial).
    for _ in range(50):
        audience.request(b"a", watch_frame(key), session, 0.01)
    assert len(sent) == 1
    assert audience.placed == 1
    assert audience.request(b"b", watch_frame(key), session, 1.0) == full_reason(1)


@pytest.mark.net
def test_watching_an_address_where_nothing_listens_says_so_at_once(
    refused_port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lcnet.cli import main
    from lcnet.errors import ExitCode

    code = main(["watch", f"127.0.0.1:{refused_port}", "--replays", str(tmp_path / "r")])
    assert code == ExitCode.UNREACHABLE
    assert "nothing is listening at" in capsys.readouterr().err


def test_a_resignation_is_told_to_the_spectator(tmp_path: Path) -> None:
    from tests.run.test_history import ADA, BEN, play_match

    paths = play_match(tmp_path, "r", host=ADA, joiner=BEN, resigns=Seat.HOST, seed=5, created="x")
    spectator = Spectator()
    lines = [
        line
        for raw in read_replay(paths[Seat.HOST]).frames
        for line in spectator.receive([raw]).lines
    ]
    assert lines[-1] == "the match is over: Ada 0, Ben 0: Ben wins, Ada resigned"


@pytest.mark.slow
def test_with_the_board_each_move_is_told_once(tmp_path: Path) -> None:
    from tests.run.test_history import ADA, BEN, play_match

    paths = play_match(tmp_path, "b", host=ADA, joiner=BEN, resigns=None, seed=9, created="x")
    spectator = Spectator()
    shown: list[str] = []
    for raw in read_replay(paths[Seat.HOST]).frames:
        received = spectator.receive([raw])
        assert len(received.is_move) == len(received.lines)
        for line, is_move in zip(received.lines, received.is_move, strict=True):
            if not is_move:
                shown.append(line)
        if any(received.is_move):
            board = spectator.board()
            assert board[0].endswith(received.lines[received.is_move.index(True)])
            shown.extend(board)
    moves = [line for line in shown if ", turn " in line and line.startswith("round 1/")]
    assert len(moves) == len(set(moves)) >= 40  # one board a move, each move once


@pytest.mark.net
def test_a_spectator_catches_up_across_a_host_restart_and_another_joins_after_it(
    tmp_path: Path,
) -> None:
    """The host is killed mid-round and resumed with ``lcnet resume``: the
    spectator that watched from the start goes on from what it holds, one that
    comes to the resumed match catches up from frame 0, and both hold the
    players' frames and audit valid."""
    before: list[str] = []
    after: list[str] = []

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host_dir = tmp_path / "host"
        proc, port = await spawn_host(host_dir, rounds=2)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=71)
        early = asyncio.ensure_future(
            watch(LOOPBACK, port, _watching(tmp_path, 11, "Before", before))
        )
        killed: list[bool] = []

        def kill_mid_round(local: object) -> None:
            track = joiner.session.round
            if not killed and track is not None and len(track.turns) >= 10:
                killed.append(True)
                os.kill(proc.pid, signal.SIGKILL)

        joiner.peer.start()
        playing = asyncio.ensure_future(joiner.play(hook=kill_mid_round))
        try:
            assert await asyncio.wait_for(proc.wait(), DEADLINE) == -signal.SIGKILL
            async with asyncio.timeout(DEADLINE):  # the spectator says the host is gone
                while not any(line.startswith("no answer from the host") for line in before):
                    await asyncio.sleep(0.05)
            resumed, again = await spawn_listening(
                ["resume", str(replay_file(host_dir)), "--bot", "random", *TIMING_ARGS],
                host_dir / "home",
                tmp_path,
            )
            assert again == port  # a resumed host listens where it did
            late = asyncio.ensure_future(
                watch(LOOPBACK, port, _watching(tmp_path, 12, "After", after))
            )
            code, _, err = await finish(resumed)
            assert code == 0, err
            async with asyncio.timeout(DEADLINE):
                await playing
                results = [await early, await late]
        finally:
            await joiner.peer.aclose()
            ctx.term()
        players = read_replay(joiner.path).frames
        assert players == read_replay(replay_file(host_dir)).frames
        for result in results:
            assert result.verdict is not None
            assert result.verdict.kind is audit.VerdictKind.VALID, result.verdict.summary
            assert result.path is not None and read_replay(result.path).frames == players

    asyncio.run(main())
    # The spectator that watched throughout was told the host went, and came back.
    silent = [i for i, line in enumerate(before) if line.startswith("no answer from the host")]
    again = [i for i, line in enumerate(before) if line == "the host answers again"]
    assert silent and again and silent[0] < again[0], before


@pytest.mark.net
def test_a_spectator_that_comes_with_the_joiner_sees_a_fast_match_to_its_end(
    tmp_path: Path,
) -> None:
    # A first watch is on trial until its second, about a second after the
    # answer; a bot match can end before it. The host then closed at once
    # (only spectators with a place held its end), and the spectator sat on
    # its first window until its timeout: exit 3, INCOMPLETE (seen in the LAN
    # test and in 3 of 5 loopback runs).
    async def main() -> tuple[int, str, str]:
        host, port = await spawn_host(tmp_path / "h")
        try:
            where = f"{LOOPBACK}:{port}"
            to_watch = ["watch", where, "--timeout", "60"]
            to_watch += ["--replays", str(tmp_path / "s" / "replays")]
            watcher = await spawn(to_watch, tmp_path / "s" / "home", tmp_path / "s")
            to_join = ["join", where, "--bot", "random", *TIMING_ARGS]
            to_join += ["--replays", str(tmp_path / "j" / "replays")]
            joiner = await spawn(to_join, tmp_path / "j" / "home", tmp_path / "j")
            code, _, err = await finish(joiner)
            assert code == 0, err
            return await finish(watcher)
        finally:
            await stop(host)

    code, out, err = asyncio.run(main())
    assert code == 0, out + err
    verdict = audit.audit_file(replay_file(tmp_path / "s"))
    assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
    assert (
        read_replay(replay_file(tmp_path / "s")).frames
        == read_replay(replay_file(tmp_path / "h")).frames
    )
