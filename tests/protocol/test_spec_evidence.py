"""docs/PROTOCOL.md §6.4 as a second implementation has to read it: what an
EVIDENCE record proves, in which order, and which disputes prove nothing.

Each test builds the records by hand from a real match, signed with the
players' real keys, and audits them (issue 43's spec questions).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lcnet.audit import verdict as audit
from lcnet.deck import hashing
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.store.replayfile import MAGIC, ReplayFileError, parse_replay
from tests.cheaters import Table

HOST, JOINER = Seat.HOST, Seat.JOINER
INVALID, INCOMPLETE = audit.VerdictKind.INVALID, audit.VerdictKind.INCOMPLETE


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Table:
    table = Table(tmp_path_factory.mktemp("match"), seed=11)
    table.run()
    table.close()
    return table


def _frames(table: Table) -> list[wire.Frame]:
    return list(table.host.chain)


def _signed_by(frame: wire.Frame, table: Table, seat: Seat) -> bool:
    return frame.signed_by(bytes(table.keys[seat].verify_key))


def _sign(
    table: Table, seat: Seat, message: wire.Message, frames: list[wire.Frame], seq: int
) -> bytes:
    return wire.make_frame(
        message, table.keys[seat], seq=seq, prev=frames[seq - 1].hash, game=frames[1].game
    ).raw


def _host_position(table: Table, frames: list[wire.Frame], after: int = 20) -> int:
    """A position after ``after`` whose frame is a move the host signed."""
    return next(
        f.seq
        for f in frames[after:]
        if isinstance(f.message, wire.MoveMsg) and _signed_by(f, table, HOST) and f.seq
    )


def _named(verdict: audit.Verdict) -> Seat | None:
    if verdict.bad is None or verdict.bad.signer is None:
        return None
    return verdict.bad.signer.seat


@pytest.mark.slow
def test_two_disputes_of_one_player_for_one_position_are_equivocation(match: Table) -> None:
    frames = _frames(match)
    k = _host_position(match, frames) + 1  # the transcript ends with the host's move
    cut = [f.raw for f in frames[:k]]
    one, two = (
        _sign(
            match,
            JOINER,
            wire.Dispute(about=k - 2, frame=frames[k - 2].hash, reason=r),
            frames,
            k - 1,
        )
        for r in ("one", "two")
    )
    # Alone, each crossed the host's move in flight and proves nothing.
    alone = audit.audit_frames(cut, [one])
    assert alone.kind is INCOMPLETE and alone.dispute is not None, alone.summary
    both = audit.audit_frames(cut, [one, two])
    assert both.kind is INVALID and _named(both) is JOINER, both.summary
    assert "equivocation" in both.summary


def test_a_proof_decides_before_a_crossed_dispute_listed_first(match: Table) -> None:
    frames = _frames(match)
    k = _host_position(match, frames) + 1
    cut = [f.raw for f in frames[:k]]
    crossed = _sign(
        match,
        JOINER,
        wire.Dispute(about=k - 2, frame=frames[k - 2].hash, reason="x"),
        frames,
        k - 1,
    )
    q = next(f.seq for f in frames[12:k] if _signed_by(f, match, JOINER) and f.seq)
    out_of_turn = _sign(match, HOST, wire.Resign(), frames, q)
    verdict = audit.audit_frames(cut, [crossed, out_of_turn])
    assert verdict.kind is INVALID and _named(verdict) is HOST, verdict.summary
    assert f"position {q}, which was the other player's to send" in verdict.summary


def test_a_speaker_s_frame_that_crossed_the_other_s_dispute_proves_nothing(match: Table) -> None:
    # The transcript holds the joiner's dispute at the host's position; the
    # host's frame for it is evidence of nothing (issue 43, fault 1).
    frames = _frames(match)
    p = _host_position(match, frames)
    dispute = _sign(
        match, JOINER, wire.Dispute(about=p - 1, frame=frames[p - 1].hash, reason="x"), frames, p
    )
    verdict = audit.audit_frames([*[f.raw for f in frames[:p]], dispute], [frames[p].raw])
    assert verdict.kind is INCOMPLETE and _named(verdict) is None, verdict.summary


def test_a_dispute_for_a_position_its_signer_went_on_past_is_a_fork(match: Table) -> None:
    frames = _frames(match)
    p = _host_position(match, frames)
    dispute = _sign(
        match, JOINER, wire.Dispute(about=p - 1, frame=frames[p - 1].hash, reason="x"), frames, p
    )
    # The transcript goes on with the joiner's acknowledgement at p + 1.
    assert _signed_by(frames[p + 1], match, JOINER)
    verdict = audit.audit_frames([f.raw for f in frames[: p + 2]], [dispute])
    assert verdict.kind is INVALID and _named(verdict) is JOINER, verdict.summary
    assert "two histories signed by one player" in verdict.summary


@pytest.mark.slow
@pytest.mark.parametrize("about", ["own position", "earlier frame without keys"])
def test_a_dispute_about_a_frame_that_carries_no_key_proves_nothing(
    match: Table, about: str
) -> None:
    frames = _frames(match)
    p = _host_position(match, frames)
    game = frames[1].game
    assert game is not None
    seed = hashing.round_seed(match.joiner._own.master_secret, game, 1)  # type: ignore[arg-type]
    target = p if about == "own position" else 2  # the coin frame carries no key
    dispute = _sign(
        match,
        JOINER,
        wire.Dispute(about=target, frame=frames[target].hash, reason="x", seed=seed),
        frames,
        p,
    )
    verdict = audit.audit_frames([*[f.raw for f in frames[:p]], dispute])
    assert verdict.kind is INCOMPLETE and _named(verdict) is None, verdict.summary


def test_a_wrong_seed_in_a_dispute_about_nothing_still_exposes_the_accuser(match: Table) -> None:
    frames = _frames(match)
    p = _host_position(match, frames)
    dispute = _sign(
        match,
        JOINER,
        wire.Dispute(about=p, frame=frames[p - 1].hash, reason="x", seed=b"\x01" * 32),
        frames,
        p,
    )
    verdict = audit.audit_frames([*[f.raw for f in frames[:p]], dispute])
    assert verdict.kind is INVALID and _named(verdict) is JOINER, verdict.summary


def test_a_file_without_a_header_is_no_replay_file(match: Table) -> None:
    import zlib

    body = b"\x01" + match.host.chain[0].raw
    record = len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
    with pytest.raises(ReplayFileError, match="no header record"):
        parse_replay(MAGIC + record)


@pytest.mark.slow
def test_the_current_round_between_rounds_is_the_next_one(tmp_path: Path) -> None:
    # After round 1's reveals the current round is round 2: a dispute sent
    # before round 2's commitments has its seed ignored, even a wrong one.
    table = Table(tmp_path, seed=11, rounds=2)
    table.run()
    table.close()
    frames = list(table.host.chain)
    reveal = next(
        f.seq
        for f in frames
        if isinstance(f.message, wire.Reveal) and _signed_by(f, table, JOINER) and f.seq
    )
    p = reveal + 1  # COMMIT_HOST of round 2: the host's to send
    dispute = _sign(
        table,
        JOINER,
        wire.Dispute(
            about=reveal - 1, frame=frames[reveal - 1].hash, reason="x", seed=b"\x01" * 32
        ),
        frames,
        p,
    )
    verdict = audit.audit_frames([*[f.raw for f in frames[:p]], dispute])
    assert verdict.kind is INCOMPLETE and _named(verdict) is None, verdict.summary


def test_a_welcome_with_the_joiner_s_key_is_the_joiner_s_frame(match: Table) -> None:
    # A welcome is verified by the key it carries: carrying the joiner's key,
    # only the joiner can have signed it. The audit names the joiner, never
    # the host (a cheating joiner's own file could hold such a frame).
    frames = _frames(match)
    hello = frames[0].message
    assert isinstance(hello, wire.Hello)
    welcome = frames[1].message
    assert isinstance(welcome, wire.Welcome)
    forged = wire.make_frame(
        wire.Welcome(
            v=welcome.v,
            name="Hana",
            key=hello.key,
            suits=welcome.suits,
            rounds=welcome.rounds,
            coin=welcome.coin,
        ),
        match.keys[JOINER],
        seq=1,
        prev=frames[0].hash,
        game=frames[1].game,
    )
    verdict = audit.audit_frames([frames[0].raw, forged.raw])
    assert verdict.kind is INVALID and _named(verdict) is JOINER, verdict.summary
    # A live joiner drops it: it is signed with its own key.
    table = Table(Path(match.paths[HOST]).parent / "live", seed=11)
    joiner = table.joiner
    step = joiner.receive(
        wire.make_frame(
            wire.Welcome(
                v=welcome.v,
                name="Hana",
                key=joiner.keys[JOINER],
                suits=5,
                rounds=1,
                coin=welcome.coin,
            ),
            table.keys[JOINER],
            seq=1,
            prev=joiner.chain[0].hash,
            game=joiner.game_id,
        ).raw
    )
    assert step.accepted is None and joiner.dispute is None and joiner.next_seq == 1
