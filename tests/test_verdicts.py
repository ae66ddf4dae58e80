"""Verdicts that settle a dispute (issue 10): the session and the audit agree.

Each test here once failed: a public fault the audit missed, a resignation
accepted out of turn, a bug of this program blamed on the peer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lcnet import audit, wire
from lcnet.group import GROUP_ORDER
from lcnet.replaylog import read_replay
from lcnet.seat import Seat
from tests.cheaters import Cheater, Table, Tamper

HOST, JOINER = Seat.HOST, Seat.JOINER

OUT_OF_RANGE = {
    "zero": bytes(32),
    "the group order": GROUP_ORDER.to_bytes(32, "little"),
    "all ones": b"\xff" * 32,
}


def _once(rewrite: Tamper) -> Tamper:
    done: list[bool] = []

    def tamper(cheater: Cheater, message: wire.Message) -> wire.Message | None:
        if done:
            return None
        changed = rewrite(cheater, message)
        if changed is not None:
            done.append(True)
        return changed

    return tamper


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
    table = Table(tmp_path, seed=31, cheater=JOINER, tamper=_once(carrier(value)))
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
