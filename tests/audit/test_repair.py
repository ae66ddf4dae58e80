"""Repairing a damaged file from the other player's file, when that file may
be the opponent's forgery (issue 43, fault 4; docs/PROTOCOL.md §7.2)."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from lcnet.audit import repair
from lcnet.audit import verdict as audit
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.store.replayfile import MAGIC, ReplayHeader, read_replay
from lcnet.store.writer import write_replay

SAMPLES = Path(__file__).resolve().parents[2] / "replays"
HOST = SAMPLES / "sample-complete-host.lcnet"  # sealed, 363 frames, the host's file
JOINER = SAMPLES / "sample-complete-joiner.lcnet"


def _record(kind: int, payload: bytes) -> bytes:
    body = bytes([kind]) + payload
    return len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")


def _frame_records(data: bytes) -> list[int]:
    offsets, offset = [], len(MAGIC)
    while offset < len(data):
        if data[offset + 4] == 1:
            offsets.append(offset)
        offset += 8 + int.from_bytes(data[offset : offset + 4], "big")
    return offsets


def _tail_hidden(target: Path, position: int) -> Path:
    """The host's sealed file with frame ``position`` damaged and every later
    frame lost: an intact note follows the damage, so it is not a torn tail."""
    data = HOST.read_bytes()
    starts = _frame_records(data)
    broken = bytearray(data[: starts[position + 1]])
    broken[starts[position] + 40] ^= 0x20
    target.write_bytes(bytes(broken) + _record(2, b"\x80"))
    return target


def _gap_at(target: Path, position: int) -> Path:
    """The host's sealed file with one byte of frame ``position`` flipped."""
    data = bytearray(HOST.read_bytes())
    data[_frame_records(bytes(data))[position] + 40] ^= 0x20
    target.write_bytes(bytes(data))
    return target


def _twin(target: Path, frames: list[bytes]) -> Path:
    return write_replay(target, ReplayHeader(seat="joiner", created="x", software="x"), frames)


def _accuses(verdict: audit.Verdict, seat: Seat) -> bool:
    bad = verdict.bad
    named = bad is not None and bad.signer is not None and bad.signer.seat is seat
    owes = verdict.kind is audit.VerdictKind.INCOMPLETE
    return (verdict.kind is audit.VerdictKind.INVALID and named) or owes


@pytest.mark.slow
def test_a_twin_that_stops_early_cannot_make_the_damaged_file_owe(tmp_path: Path) -> None:
    damaged = read_replay(_tail_hidden(tmp_path / "host.lcnet", 200))
    frames = read_replay(JOINER).frames
    joiner_key = wire.decode_frame(frames[0]).message.key  # type: ignore[attr-defined]
    last_joiner = max(
        i for i in range(201, 300) if wire.decode_frame(frames[i]).signed_by(joiner_key)
    )
    twin = read_replay(_twin(tmp_path / "twin.lcnet", frames[: last_joiner + 1]))
    verdicts, comparison = repair.audit_pair(damaged, twin, ("host", "twin"))
    verdict = verdicts[0]
    assert verdict.kind is audit.VerdictKind.DAMAGED, verdict.summary
    assert not _accuses(verdict, Seat.HOST)
    assert verdict.repaired is not None
    assert verdict.repaired.unvouched == list(range(200, last_joiner + 1))
    assert verdict.shows is not None and verdict.shows.kind is audit.VerdictKind.INCOMPLETE
    assert "only twin vouches for them" in verdict.summary
    assert "not a claim against this file's owner" in verdict.summary
    assert "the first file's position(s) 200-" in comparison.summary


@pytest.mark.slow
def test_a_twin_with_the_whole_match_still_leaves_a_hidden_tail_damaged(tmp_path: Path) -> None:
    # Even the honest twin cannot vouch for what the damaged file held after
    # its last own frame: the verdict says DAMAGED, and what the repair shows.
    damaged = read_replay(_tail_hidden(tmp_path / "host.lcnet", 200))
    twin = read_replay(JOINER)
    verdict = repair.audit_pair(damaged, twin, ("host", "twin"))[0][0]
    assert verdict.kind is audit.VerdictKind.DAMAGED, verdict.summary
    assert verdict.shows is not None and verdict.shows.kind is audit.VerdictKind.VALID


@pytest.mark.slow
def test_a_gap_between_own_frames_is_pinned_by_the_chain_and_repaired(tmp_path: Path) -> None:
    path = _gap_at(tmp_path / "host.lcnet", 200)
    verdict = repair.audit_pair(read_replay(path), read_replay(JOINER), ("host", "twin"))[0][0]
    assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
    assert verdict.repaired is not None and verdict.repaired.filled == [200]
    assert verdict.repaired.unvouched == []


@pytest.mark.slow
def test_a_forged_frame_in_the_gap_does_not_chain_and_is_not_spliced(tmp_path: Path) -> None:
    # The twin puts another frame at the damaged position: the host's own next
    # frame does not name it, so the repair fails and the file stays DAMAGED.
    path = _gap_at(tmp_path / "host.lcnet", 200)
    frames = read_replay(JOINER).frames
    forged = list(frames)
    forged[200] = frames[150]
    twin = read_replay(_twin(tmp_path / "twin.lcnet", forged))
    verdict = repair.audit_pair(read_replay(path), twin, ("host", "twin"))[0][0]
    assert verdict.kind is audit.VerdictKind.DAMAGED, verdict.summary
    assert "do not form one chain at position 200" in " ".join(verdict.notes)


@pytest.mark.slow
def test_damage_and_a_torn_end_are_not_repaired_even_by_a_perfect_twin(tmp_path: Path) -> None:
    """PROTOCOL.md §7.2, *Damage and a torn end*: after damage, a record cut
    off by the end of the file is not shown to be what a crash left (a run a
    player planted inside its own frame may be read there, ending in a length
    that swallows the owner's records), and no other file can vouch for what
    the damaged file held at its end. The twin fills the gap, the merged
    transcript is shown for information, and the verdict stays DAMAGED."""
    data = bytearray(HOST.read_bytes())
    starts = _frame_records(bytes(data))
    data[starts[200] + 40] ^= 0x20
    path = tmp_path / "host.lcnet"
    path.write_bytes(bytes(data[: starts[300] + 30]))  # cut inside frame 300's record
    damaged = read_replay(path)
    assert damaged.damage and damaged.torn is not None
    verdict = repair.audit_pair(damaged, read_replay(JOINER), ("host", "twin"))[0][0]
    assert verdict.kind is audit.VerdictKind.DAMAGED, verdict.summary
    assert verdict.repaired is not None and verdict.repaired.filled == [200]
    assert verdict.repaired.unvouched == []
    assert verdict.shows is not None and verdict.shows.kind is audit.VerdictKind.INCOMPLETE
    assert "ends in a record cut off" in verdict.summary
    assert not _accuses(verdict, Seat.HOST)
