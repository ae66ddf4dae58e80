"""Verdicts that settle a dispute (issue 10): the session and the audit agree.

Each test here once failed: a public fault the audit missed, a resignation
accepted out of turn, a bug of this program blamed on the peer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from pathlib import Path
from typing import Any

import msgpack
import nacl.signing
import pytest
import zmq.asyncio

from lcnet.audit import repair
from lcnet.audit import verdict as audit
from lcnet.deck import rounddeal
from lcnet.deck.group import GROUP_ORDER, GroupError
from lcnet.errors import LocalFailure, SessionFailed
from lcnet.game.seat import Seat
from lcnet.net.peer import NetPeer
from lcnet.protocol import transitions, wire
from lcnet.protocol.events import FrameDropped, MatchOptions
from lcnet.protocol.phases import Phase
from lcnet.protocol.session import Session
from lcnet.store.replayfile import ReplayHeader, read_replay
from lcnet.store.writer import write_replay
from replays.make_samples import NewerJoiner
from tests.cheaters import Cheater, Table, Tamper, once

HOST, JOINER = Seat.HOST, Seat.JOINER

OUT_OF_RANGE = {
    "zero": bytes(32),
    "the group order": GROUP_ORDER.to_bytes(32, "little"),
    "all ones": b"\xff" * 32,
}


def _bad_dealing_key(bad: bytes) -> Tamper:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.DealKeys):
            return None
        keys = m.key_list()
        keys[3] = bad
        return wire.DealKeys(round=m.round, keys=b"".join(keys))

    return rewrite


def _bad_draw_key(bad: bytes) -> Tamper:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        return wire.Ack(key=bad) if isinstance(m, wire.Ack) and m.key is not None else None

    return rewrite


def _bad_play_key(bad: bytes) -> Tamper:
    def rewrite(c: Cheater, m: wire.Message) -> wire.Message | None:
        if not isinstance(m, wire.MoveMsg) or m.key is None:
            return None
        return wire.MoveMsg(card=m.card, discard=m.discard, draw=m.draw, pos=m.pos, key=bad)

    return rewrite


@pytest.mark.slow
@pytest.mark.parametrize("value", OUT_OF_RANGE.values(), ids=OUT_OF_RANGE.keys())
@pytest.mark.parametrize(
    ("carrier", "message_type"),
    [(_bad_dealing_key, wire.DealKeys), (_bad_draw_key, wire.Ack), (_bad_play_key, wire.MoveMsg)],
    ids=["keys", "ack", "move"],
)
def test_an_out_of_range_key_is_a_violation_at_its_own_frame(
    tmp_path: Path, carrier: object, message_type: type[wire.Message], value: bytes
) -> None:
    assert callable(carrier)
    table = Table(tmp_path, seed=31, cheater=JOINER, tamper=once(carrier(value)))
    table.run()
    dispute = table.host.dispute
    assert dispute is not None and dispute.offender is JOINER
    assert "not 32 bytes encoding a scalar in 1 .. L-1" in dispute.reason
    bad_frame = table.host.chain[dispute.seq]
    assert isinstance(bad_frame.message, message_type)
    assert bad_frame.signed_by(table.host.keys[JOINER])
    table.close()
    frames = read_replay(table.paths[HOST]).frames
    # Anyone can check a key's range: the audit proves it at that frame even
    # from a file that ends right there (no dispute, no seed, no reveal).
    for transcript in (frames, frames[: dispute.seq + 1]):
        verdict = audit.audit_frames(transcript)
        assert verdict.kind is audit.VerdictKind.INVALID, verdict.summary
        assert verdict.bad is not None and verdict.bad.seq == dispute.seq
        assert verdict.bad.signer is not None and verdict.bad.signer.seat is JOINER
        assert "scalar in 1 .. L-1" in verdict.bad.reason


def _held_table(tmp_path: Path, seat: Seat, seed: int = 32) -> Table:
    """A match run until ``seat`` must choose a move (its moves are played by hand)."""
    table = Table(tmp_path, seed=seed, hold=frozenset({seat}))
    table.run()
    assert table.sessions[seat].awaiting_decision
    return table


def _sign(table: Table, seat: Seat, message: wire.Message, seq: int) -> wire.Frame:
    session = table.sessions[seat]
    prev = session.chain[seq - 1].hash
    return wire.make_frame(message, table.keys[seat], seq=seq, prev=prev, game=session.game_id)


@pytest.mark.slow
def test_a_resignation_for_the_other_players_slot_is_proof_not_a_win(tmp_path: Path) -> None:
    # Right after its own move, the host signs a resignation for the position
    # of the joiner's acknowledgement. A resignation comes from the player
    # entitled to speak, so it can never cross a frame in flight: it is a
    # frame for a position that was not the host's.
    table = _held_table(tmp_path, HOST)
    joiner = table.joiner
    table.play(HOST)
    table.deliver()  # the joiner takes the move, acknowledges it (and plays its own)
    ack = joiner.chain[table.host.next_seq]
    assert isinstance(ack.message, wire.Ack) and ack.seq is not None
    resign = _sign(table, HOST, wire.Resign(), ack.seq)
    step = table.inject(JOINER, resign.raw)
    assert joiner.resigned is None
    assert joiner.dispute is not None
    assert joiner.dispute.offender is HOST and joiner.dispute.seq == ack.seq
    assert step.evidence is not None and step.evidence.raw == resign.raw
    assert step.outgoing and isinstance(step.outgoing[0].message, wire.Dispute)
    verdict = table.audit(JOINER)
    assert verdict.kind is audit.VerdictKind.INVALID, verdict.summary
    assert verdict.bad is not None and verdict.bad.seq == ack.seq
    assert verdict.bad.signer is not None and verdict.bad.signer.seat is HOST
    assert "other player's to send" in verdict.bad.reason


def _host_dispute_of_the_joiner(
    table: Table, reason: str, seed: bytes | None = None
) -> tuple[wire.Frame, int]:
    """A dispute the host signs, about the joiner's last frame, for the next position."""
    host = table.host
    position = host.next_seq
    accused = next(f for f in reversed(host.chain) if f.signed_by(host.keys[JOINER]))
    assert accused.seq is not None
    message = wire.Dispute(about=accused.seq, frame=accused.hash, reason=reason, seed=seed)
    return _sign(table, HOST, message, position), position


@pytest.mark.slow
def test_a_dispute_that_crossed_a_move_in_flight_is_judged_by_the_audit(tmp_path: Path) -> None:
    # The host disputes while the joiner's move is on its way: both frames
    # claim the same position. The joiner takes the dispute as the host's
    # last word and keeps it as evidence; the audit of the joiner's file
    # then judges that dispute (here: nothing proves it).
    table = _held_table(tmp_path, JOINER)
    dispute, position = _host_dispute_of_the_joiner(table, "I do not believe it")
    table.play(JOINER)  # the joiner's move takes the same position
    step = table.inject(JOINER, dispute.raw)
    joiner = table.joiner
    assert step.evidence is not None and step.evidence.raw == dispute.raw
    assert joiner.dispute is not None
    assert joiner.dispute.offender is JOINER and joiner.dispute.detected_by is HOST
    verdict = table.audit(JOINER)
    assert verdict.kind is audit.VerdictKind.INCOMPLETE, verdict.summary
    assert verdict.dispute is not None
    assert "I do not believe it" in verdict.dispute
    assert f"crossed frame {position} in flight" in verdict.dispute


@pytest.mark.slow
def test_a_dispute_for_a_position_the_peer_already_signed_is_equivocation(
    tmp_path: Path,
) -> None:
    # The joiner moved at this position; a dispute it signs for the same
    # position cannot have crossed anything (it had already seen its own move).
    table = _held_table(tmp_path, JOINER)
    host = table.host
    position = host.next_seq
    table.play(JOINER)
    table.deliver()  # the host takes the move and acknowledges it
    move = host.chain[position]
    assert isinstance(move.message, wire.MoveMsg) and move.seq is not None
    dispute = _sign(
        table,
        JOINER,
        wire.Dispute(about=move.seq - 1, frame=host.chain[move.seq - 1].hash, reason="no"),
        move.seq,
    )
    table.inject(HOST, dispute.raw)
    assert host.dispute is not None
    assert host.dispute.offender is JOINER and host.dispute.detected_by is HOST
    assert "equivocation" in host.dispute.reason
    verdict = table.audit(HOST)
    assert verdict.kind is audit.VerdictKind.INVALID, verdict.summary
    assert verdict.bad is not None and verdict.bad.signer is not None
    assert verdict.bad.signer.seat is JOINER and verdict.bad.seq == move.seq


def _next_is_a_draw_key(table: Table) -> bool:
    frame = wire.decode_frame(table.queue[0][1])
    return isinstance(frame.message, wire.Ack) and frame.message.key is not None


def test_a_fault_of_this_program_is_never_blamed_on_the_peer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, seed=33)
    table.run(until=_next_is_a_draw_key)
    to, raw = table.queue.popleft()
    drawer = table.sessions[to]
    frames_before, phase_before = drawer.next_seq, drawer.phase

    def broken(*args: object) -> None:
        raise GroupError("injected: a group operation failed")

    monkeypatch.setattr(rounddeal.RoundDeal, "open_draw", broken)
    with pytest.raises(SessionFailed, match="not of the opponent"):
        drawer.receive(raw)
    # Nothing signed, nobody accused, the transcript as it was: fail closed.
    assert drawer.dispute is None
    assert drawer.next_seq == frames_before and drawer.phase is phase_before
    assert not drawer.is_over and drawer.failure is not None
    monkeypatch.undo()
    with pytest.raises(SessionFailed):  # and it stays stopped
        drawer.receive(raw)
    table.close()
    verdict = audit.audit_file(table.paths[to])
    assert verdict.kind is audit.VerdictKind.INCOMPLETE, verdict.summary
    assert verdict.frames == frames_before


def handle_moves_with(monkeypatch: pytest.MonkeyPatch, handler: Any) -> None:
    """Make the state table apply every move with ``handler`` (a fault injected
    into this program), for the rest of the test."""
    from types import MappingProxyType

    from lcnet.protocol import transcript

    table = dict(transcript.TABLE)
    table[Phase.MOVE] = dataclasses.replace(table[Phase.MOVE], handler=handler)
    monkeypatch.setattr(transcript, "TABLE", MappingProxyType(table))


@pytest.mark.net
def test_a_networked_peer_stops_on_its_own_fault_and_keeps_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.netutil import DEADLINE, local_host, local_joiner

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        host, port = local_host(tmp_path / "h", ctx, options=MatchOptions(rounds=1), seed=41)
        joiner = local_joiner(tmp_path / "j", ctx, port, seed=42)

        def faulty(t: Any, *args: Any) -> Any:
            mine = t is host.session
            if mine and args[1] is not t.seat and t.round and len(t.round.turns) >= 4:
                raise GroupError("injected: a group operation failed")
            return transitions.on_move(t, *args)

        handle_moves_with(monkeypatch, faulty)
        host.peer.start()
        joiner.peer.start()
        joiner_task = asyncio.ensure_future(joiner.play())
        try:
            async with asyncio.timeout(DEADLINE):
                await host.play()
        finally:
            joiner_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await joiner_task
            await host.peer.aclose()
            await joiner.peer.aclose()
            ctx.term()
        failure = host.peer.failure
        assert isinstance(failure, LocalFailure) and failure.exit_code != 0
        assert "fault of its own, not the opponent's" in str(failure)
        assert host.session.dispute is None and not host.session.is_over
        assert joiner.session.dispute is None
        on_disk = read_replay(host.path).frames
        assert on_disk == [f.raw for f in host.session.chain]
        verdict = audit.audit_file(host.path)
        assert verdict.kind is audit.VerdictKind.INCOMPLETE, verdict.summary

    asyncio.run(main())


def test_a_hello_with_the_host_s_own_key_is_refused_as_the_joiner_s_fault() -> None:
    key = nacl.signing.SigningKey(b"\x01" * 32)
    host = Session.host(key, b"\x02" * 32, name="Hana")
    hello = wire.make_frame(
        wire.Hello(v=[1, 0], name="Joe", key=bytes(key.verify_key), coin=bytes(32)), key, seq=0
    )
    step = host.receive(hello.raw)
    assert host.failure is None and not step.outgoing
    assert host.dispute is not None and host.dispute.offender is JOINER
    assert "the host's own key" in host.dispute.reason


# ----------------------------------------- what an independent review found


def test_after_a_fault_of_its_own_a_session_signs_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _held_table(tmp_path, JOINER)
    joiner = table.joiner
    calls: list[int] = []

    def faulty(t: Any, frame: wire.Frame, author: Seat, step: Any) -> Any:
        if t is joiner and author is JOINER and not calls:
            calls.append(1)
            raise RuntimeError("injected")
        return transitions.on_move(t, frame, author, step)

    handle_moves_with(monkeypatch, faulty)
    view = joiner.view()
    assert view is not None
    with pytest.raises(SessionFailed):
        joiner.play(table.bots[JOINER].choose_turn(view))
    assert not joiner.awaiting_decision
    with pytest.raises(SessionFailed):
        joiner.play(table.bots[JOINER].choose_turn(view))
    with pytest.raises(SessionFailed):
        joiner.control(wire.Ping(n=1))


class _Socket:
    """Stands in for the ZeroMQ socket: keeps what would have been sent."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send_multipart(self, parts: list[bytes], flags: int = 0) -> None:
        self.sent.append(parts[-1])


def test_a_move_that_could_not_be_written_is_never_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _held_table(tmp_path, JOINER)
    joiner = table.joiner
    writer = table.writers[JOINER]
    sock = _Socket()
    peer = NetPeer(joiner, sock, writer=writer)  # type: ignore[arg-type]
    frames_before = joiner.next_seq

    def full_disk(**parts: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer, "append_step", full_disk)
    view = joiner.view()
    assert view is not None

    async def play() -> None:
        with pytest.raises(LocalFailure, match="No space left"):
            await peer.play(table.bots[JOINER].choose_turn(view))

    shown = peer.state  # what the screen shows before the move
    asyncio.run(play())
    assert not sock.sent and joiner.next_seq == frames_before
    assert isinstance(peer.failure, LocalFailure)
    # The screen shows the match as the file holds it: the move was not made.
    assert peer.state.view == shown.view and peer.state.frames == frames_before
    assert peer.state.failure is peer.failure
    # The waiting host asks for what it misses: nothing unrecorded goes out.
    host = table.host
    peer._handle(b"", host.control(wire.Sync(have=host.next_seq, head=host.head)).raw)
    assert not [raw for raw in sock.sent if not wire.decode_frame(raw).message.CONTROL]
    monkeypatch.undo()
    table.close()
    assert read_replay(table.paths[JOINER]).frames == [f.raw for f in joiner.chain]


def test_an_earlier_postponed_fault_is_reported_before_a_later_one(tmp_path: Path) -> None:
    # The joiner plays a hidden card with a key in range that opens no card
    # (an observer postpones that opening); the next frame has a key out of
    # range (found at once). The first bad frame is the joiner's move.
    table = Table(
        tmp_path,
        seed=31,
        cheater=JOINER,
        tamper=once(_bad_play_key((GROUP_ORDER - 1).to_bytes(32, "little"))),
    )
    table.run()
    dispute = table.host.dispute
    assert dispute is not None and dispute.offender is JOINER
    move = table.host.chain[dispute.seq]
    later = wire.make_frame(
        wire.Ack(key=bytes(32)),
        table.keys[HOST],
        seq=dispute.seq + 1,
        prev=move.hash,
        game=table.host.game_id,
    )
    frames = [f.raw for f in table.host.chain[: dispute.seq + 1]] + [later.raw]
    verdict = audit.audit_frames(frames)
    assert verdict.kind is audit.VerdictKind.INVALID, verdict.summary
    assert verdict.bad is not None and verdict.bad.seq == dispute.seq
    assert verdict.bad.signer is not None and verdict.bad.signer.seat is JOINER


def test_another_first_frame_is_another_game_and_proves_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=3)
    table.run(until=lambda t: t.joiner.next_seq > 5)
    key = table.keys[HOST]
    other_hello = wire.make_frame(
        wire.Hello(v=[1, 0], name="x", key=bytes(key.verify_key), coin=bytes(32)), key, seq=0
    )
    step = table.inject(JOINER, other_hello.raw)
    assert table.joiner.dispute is None and step.evidence is None
    assert any(isinstance(e, FrameDropped) for e in step.events)


@pytest.mark.slow
def test_a_crossed_dispute_that_exposes_its_accuser_shows_the_dispute_as_evidence(
    tmp_path: Path,
) -> None:
    table = _held_table(tmp_path, JOINER)
    dispute, position = _host_dispute_of_the_joiner(table, "lie", seed=b"\x07" * 32)
    table.play(JOINER)
    table.inject(JOINER, dispute.raw)
    verdict = table.audit(JOINER)
    assert verdict.kind is audit.VerdictKind.INVALID, verdict.summary
    assert verdict.bad is not None and verdict.bad.seq == position
    assert verdict.bad.signer is not None and verdict.bad.signer.seat is HOST
    assert bytes.fromhex(verdict.bad.evidence) == dispute.raw


# ---------------------------------------- issue 43: the powers a cheater really has


def _raws(session: Session) -> list[bytes]:
    return [frame.raw for frame in session.chain]


@pytest.mark.slow
@pytest.mark.parametrize("host_frame", ["move", "resign"])
def test_planted_evidence_never_convicts_the_honest_player(tmp_path: Path, host_frame: str) -> None:
    # The joiner receives the host's frame for position q, then signs a
    # dispute for position q itself and keeps the host's real frame as an
    # EVIDENCE record of its own file. Position q was the host's by the phase:
    # the host's frame there proves nothing against it, alone or in a pair.
    table = _held_table(tmp_path, HOST)
    host, joiner = table.host, table.joiner
    q = host.next_seq
    if host_frame == "move":
        table.play(HOST)
    else:
        table._record(HOST, host.resign())
    real = table.next_from(HOST)  # what the joiner received (and keeps)
    dispute = _sign(
        table,
        JOINER,
        wire.Dispute(about=q - 1, frame=joiner.chain[q - 1].hash, reason="planted"),
        q,
    )
    table.inject(HOST, dispute.raw)  # it reaches the host after its own frame
    table.close()
    planted = tmp_path / "planted.lcnet"
    write_replay(
        planted,
        ReplayHeader(seat="joiner", created="test", software="test"),
        [*_raws(joiner)[:q], dispute.raw],
        [real],
    )
    honest = read_replay(table.paths[HOST])
    cheat = read_replay(planted)
    alone = audit.audit_contents(cheat)
    assert not _names(alone, HOST), alone.summary
    assert alone.kind is audit.VerdictKind.INCOMPLETE, alone.summary
    own = audit.audit_contents(honest)
    if host_frame == "resign":
        assert own.kind is audit.VerdictKind.VALID and own.resigned == "Hana", own.summary
    else:
        assert own.kind is audit.VerdictKind.INCOMPLETE, own.summary
        assert own.dispute is not None and f"crossed frame {q} in flight" in own.dispute
    for pair in ((honest, cheat), (cheat, honest)):
        verdicts, comparison = repair.audit_pair(*pair, ("a", "b"))
        assert not any(_names(v, HOST) for v in verdicts), [v.summary for v in verdicts]
        assert comparison.equivocation is None, comparison.summary


def _names(verdict: audit.Verdict, seat: Seat) -> bool:
    bad = verdict.bad
    return (
        verdict.kind is audit.VerdictKind.INVALID
        and bad is not None
        and bad.signer is not None
        and bad.signer.seat is seat
    )


class _NewerJoiner(NewerJoiner, Cheater):
    """The samples' 1.2 joiner (a field 1.0 does not know in its coin frame, as
    §5.5 lets it), relayed by the test table."""


def _newer_table(tmp_path: Path, tamper: Tamper | None = None) -> Table:
    table = Table(tmp_path, seed=5, cheater=JOINER, tamper=tamper)
    return table


@pytest.mark.slow
@pytest.mark.parametrize("lies", [False, True], ids=["honest", "lying result"])
def test_each_signer_s_announced_version_governs_its_own_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lies: bool
) -> None:
    # The host (1.0) plays on with a 1.2 joiner whose coin frame carries an
    # unknown field; the audit must read that frame by the joiner's version,
    # not the host's (which it read last, in the welcome).
    monkeypatch.setattr("tests.cheaters.Cheater", _NewerJoiner)

    def lie(c: Cheater, m: wire.Message) -> wire.Message | None:
        if isinstance(m, wire.Result) and c.phase.name == "RESULT_JOINER":
            return wire.Result(scores=m.scores, totals=[m.totals[0], m.totals[1] + 1])
        return None

    table = _newer_table(tmp_path, once(lie) if lies else None)
    assert isinstance(table.joiner, _NewerJoiner)
    table.run()
    verdict = table.audit(HOST)
    if lies:
        assert _names(verdict, JOINER), verdict.summary
        assert verdict.bad is not None and verdict.bad.seq == len(table.host.chain) - 2
    else:
        assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
    hello = wire.decode_frame(table.host.chain[0].raw)
    assert hello.message.v == [1, 2]  # type: ignore[attr-defined]
    assert table.host.chain[2].unknown == frozenset({"note"})


@pytest.mark.slow
def test_a_field_from_a_signer_that_announced_1_0_proves_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path, seed=5)
    table.run()
    frames = _raws(table.host)
    body = msgpack.unpackb(wire.decode_frame(frames[2]).body, raw=False)
    body["zz"] = b"x"
    packed = msgpack.packb(dict(sorted(body.items())), use_bin_type=True)
    forged = wire.sign_frame(packed, table.keys[JOINER])
    verdict = audit.audit_frames([*frames[:2], forged])
    assert verdict.kind is audit.VerdictKind.INVALID and verdict.bad is not None
    assert verdict.bad.signer is None and verdict.bad.seq == 2
    assert "zz" in verdict.summary and "protocol 1.0" in verdict.summary
    assert "signed by the joiner's key" in verdict.summary
