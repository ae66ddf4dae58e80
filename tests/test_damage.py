"""Damaged files, torn tails after the end, unknown records: ``lcnet audit``,
``lcnet replay`` and ``lcnet resume`` on real replay files (docs/PROTOCOL.md §7.2)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from lcnet import audit, wire
from lcnet.cli import main
from lcnet.replaylog import MAGIC, ReplayHeader, read_replay, write_replay
from lcnet.seat import Seat
from tests.cheaters import Table

SAMPLES = Path(__file__).resolve().parent.parent / "replays"
HOST = SAMPLES / "sample-complete-host.lcnet"
JOINER = SAMPLES / "sample-complete-joiner.lcnet"
INCOMPLETE = SAMPLES / "sample-incomplete-joiner.lcnet"  # the same match, 171 frames
CHEATED = SAMPLES / "sample-cheated-host.lcnet"


def records(data: bytes) -> list[tuple[int, int]]:
    """(offset, kind) of each record of an intact file."""
    out, offset = [], len(MAGIC)
    while offset < len(data):
        out.append((offset, data[offset + 4]))
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big") + 4
    return out


def frame_record(data: bytes, position: int) -> int:
    """Where the FRAME record of ``position`` starts (the file has no other kinds)."""
    return records(data)[1 + position][0]


def damaged_copy(source: Path, target: Path, *positions: int) -> list[int]:
    """``source`` with one byte flipped inside the frame record of each position."""
    data = bytearray(source.read_bytes())
    offsets = [frame_record(bytes(data), p) for p in positions]
    for offset in offsets:
        data[offset + 40] ^= 0x20
    target.write_bytes(bytes(data))
    return offsets


def record(kind: int, payload: bytes) -> bytes:
    body = bytes([kind]) + payload
    return len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")


# ------------------------------------------------------------- one file


def test_a_flipped_byte_in_the_middle_is_damaged_not_torn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.lcnet"
    [offset] = damaged_copy(HOST, path, 162)
    assert main(["audit", str(path)]) == 2
    out = capsys.readouterr().out
    assert "DAMAGED" in out and "torn after" not in out
    assert f"damaged at bytes {offset}-" in out
    assert "200 intact records after the damage" in out
    assert "positions 163-362" in out
    # The intact prefix's own verdict, for information only.
    assert "INCOMPLETE: valid so far (162 frames)" in out
    assert f"lcnet audit {path} OTHER-FILE" in out


def test_a_damaged_file_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "host.lcnet"
    [offset] = damaged_copy(HOST, path, 162)
    assert main(["audit", str(path), "--json"]) == 2
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "damaged" and verdict["frames"] == 162
    assert "torn" not in verdict
    [damage] = verdict["damage"]
    assert damage["offset"] == offset and damage["resumes_at"] == frame_record(
        HOST.read_bytes(), 163
    )
    assert damage["records_after"] == 200 and damage["frames_after"] == 200
    assert damage["first_position_after"] == 163
    assert verdict["intact_prefix"]["verdict"] == "incomplete"
    assert verdict["intact_prefix"]["frames"] == 162


def test_a_damaged_length_field_is_found_by_scanning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(HOST.read_bytes())
    offset = frame_record(bytes(data), 100)
    data[offset : offset + 4] = (0x00FF0000).to_bytes(4, "big")
    path = tmp_path / "host.lcnet"
    path.write_bytes(bytes(data))
    assert main(["audit", str(path), "--json"]) == 2
    verdict = json.loads(capsys.readouterr().out)
    [damage] = verdict["damage"]
    assert damage["offset"] == offset and damage["first_position_after"] == 101
    assert damage["records_after"] == 262


def test_a_proof_of_a_fault_before_the_damage_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Precedence: what the intact prefix proves (exit 1) beats the damage (exit 2)."""
    data = CHEATED.read_bytes()
    frames = read_replay(CHEATED).frames
    bad = audit.audit_file(CHEATED).bad
    assert bad is not None and bad.seq == len(frames) - 2
    path = tmp_path / "cheated.lcnet"
    path.write_bytes(data + record(2, b"\x80"))  # a note after the last frame
    damaged_copy(path, path, len(frames) - 1)  # the frame after the bad one
    assert main(["audit", str(path), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "invalid" and verdict["bad_frame"]["seq"] == len(frames) - 2
    assert verdict["damage"][0]["records_after"] == 1
    assert any("also damaged at bytes" in note for note in verdict["notes"])


# ------------------------------------------------------------- two files


@pytest.mark.parametrize("damaged_first", [True, False])
def test_the_other_file_repairs_the_damage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damaged_first: bool
) -> None:
    path = tmp_path / "host.lcnet"
    damaged_copy(HOST, path, 162)
    pair = [str(path), str(JOINER)] if damaged_first else [str(JOINER), str(path)]
    assert main(["audit", *pair]) == 0
    out = capsys.readouterr().out
    assert "VALID: 363 frames, sealed by both players; totals 201:117, Ada wins " in out
    assert f"[repaired from {JOINER}]" in out
    assert f"repaired from {JOINER}, which gave the frame(s) at position(s) 162" in out
    assert "both files: the files hold the same 363 frames" in out


def test_a_repair_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "host.lcnet"
    damaged_copy(HOST, path, 5, 6, 7, 300)
    assert main(["audit", str(path), str(JOINER), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = out["files"][0]
    assert first["verdict"] == "valid" and first["frames"] == 363
    assert first["repaired"] == {
        "from": str(JOINER),
        "positions": [5, 6, 7, 300],
        "unvouched": [],
    }
    assert [d["first_position_after"] for d in first["damage"]] == [8, 301]
    assert any("position(s) 5-7, 300" in note for note in first["notes"])
    assert out["comparison"]["common_frames"] == 363


def test_both_files_damaged_at_different_places_repair_each_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host, joiner = tmp_path / "host.lcnet", tmp_path / "joiner.lcnet"
    damaged_copy(HOST, host, 40)
    damaged_copy(JOINER, joiner, 41)
    assert main(["audit", str(host), str(joiner), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f["repaired"]["positions"] for f in out["files"]] == [[40], [41]]


def test_damaged_at_the_same_place_in_both_stays_damaged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host, joiner = tmp_path / "host.lcnet", tmp_path / "joiner.lcnet"
    damaged_copy(HOST, host, 162)
    damaged_copy(JOINER, joiner, 162)
    assert main(["audit", str(host), str(joiner), "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert [f["verdict"] for f in out["files"]] == ["damaged", "damaged"]
    assert "holds no frame at position 162" in out["files"][0]["notes"][-1]


def test_an_other_file_too_short_cannot_repair_and_damaged_beats_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Precedence: a damaged file (2) outranks an incomplete one (3)."""
    path = tmp_path / "host.lcnet"
    damaged_copy(HOST, path, 250)  # the incomplete joiner's file stops at 170
    assert main(["audit", str(path), str(INCOMPLETE)]) == 2
    out = capsys.readouterr().out
    assert f"{path}: DAMAGED" in out
    assert f"cannot be repaired from {INCOMPLETE}" in out
    assert f"{INCOMPLETE}: INCOMPLETE" in out


def test_a_proof_of_a_fault_beats_a_damaged_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.lcnet"
    damaged_copy(HOST, path, 162)
    assert main(["audit", str(CHEATED), str(path)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "DAMAGED" in out and "not of the same match" in out


def test_damage_followed_only_by_notes_takes_the_rest_from_the_other_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No frame after the damage: how many it hid is unknown; the other file says."""
    data = HOST.read_bytes()
    cut = frame_record(data, 200)
    broken = bytearray(data[: frame_record(data, 201)])
    broken[cut + 40] ^= 0x20
    path = tmp_path / "host.lcnet"
    path.write_bytes(bytes(broken) + record(2, b"\x80"))  # an intact (empty) note after it
    assert main(["audit", str(path), "--json"]) == 2
    capsys.readouterr()
    # Every frame taken follows the file's last own frame: only the other file
    # vouches for them, so the verdict stays DAMAGED and says what they show.
    assert main(["audit", str(path), str(JOINER), "--json"]) == 2
    first = json.loads(capsys.readouterr().out)["files"][0]
    assert first["verdict"] == "damaged"
    assert first["repaired"]["positions"] == list(range(200, 363))
    assert first["repaired"]["unvouched"] == list(range(200, 363))
    assert first["repaired"]["shows"]["verdict"] == "valid"
    assert "for information only" in first["summary"]
    assert main(["audit", str(path), str(INCOMPLETE)]) == 2
    assert "how many frames it hid is unknown" in capsys.readouterr().out


# --------------------------------------- after the end, and unknown kinds


def test_a_torn_tail_after_a_sealed_match_is_valid_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.lcnet"
    path.write_bytes(HOST.read_bytes() + record(2, b"\x81\xa1a\x01")[:7])
    assert main(["audit", str(path), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "valid" and "owed" not in verdict
    assert verdict["notes"] == [
        "the file has 7 trailing bytes after the sealed match (the last record is cut off); "
        "they are ignored"
    ]
    assert verdict["torn"]["trailing_bytes"] == 7


def test_a_torn_tail_before_the_end_is_still_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "joiner.lcnet"
    path.write_bytes(INCOMPLETE.read_bytes()[:-5])
    assert main(["audit", str(path)]) == 3
    out = capsys.readouterr().out
    assert "INCOMPLETE: the file is torn after frame 169" in out and "owes" in out


@pytest.mark.parametrize("where", ["after the sealed match", "between two frames"])
def test_a_record_of_an_unknown_kind_is_skipped_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    data = HOST.read_bytes()
    unknown = record(77, b"a kind from a later minor version")
    if where == "between two frames":
        at = frame_record(data, 100)
        data = data[:at] + unknown + data[at:]
    else:
        at = len(data)
        data += unknown
    path = tmp_path / "host.lcnet"
    path.write_bytes(data)
    assert main(["audit", str(path), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "valid" and verdict["frames"] == 363
    [note] = verdict["notes"]
    assert "kind 77" in note and f"byte {at}" in note and "skipped" in note


# ------------------------------------------------------- replay and resume


def test_replay_says_a_damaged_file_is_damaged_and_shows_the_intact_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.lcnet"
    [offset] = damaged_copy(HOST, path, 162)
    assert main(["replay", str(path), "--text"]) == 0
    captured = capsys.readouterr()
    assert f"is damaged at bytes {offset}-" in captured.err
    assert "200 intact records after the damage" in captured.err
    assert "intact part before the damage is shown (162 frames)" in captured.err
    last = captured.out.splitlines()[-1]
    assert last.startswith("audit: DAMAGED") and "torn after" not in captured.out
    assert "round 2/3" in captured.out and "round 3/3" not in captured.out


def test_resume_refuses_a_damaged_file_and_leaves_it_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "joiner.lcnet"
    damaged_copy(INCOMPLETE, path, 100)
    before = path.read_bytes()
    assert main(["resume", str(path)]) == 2
    err = capsys.readouterr().err
    assert "damaged at bytes" in err and "left untouched" in err
    assert f"lcnet audit {path} OTHER-FILE" in err
    assert path.read_bytes() == before


def test_a_twin_that_diverges_at_the_damage_cannot_repair_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The host signed a resignation at position g in its own file, while the
    # joiner's file holds the host's move there; the joiner's record of g is
    # damaged. Taking g from the host's file would not chain with the joiner's
    # g + 1: the verdict stays damaged (not a merged transcript that breaks).
    table = Table(tmp_path, seed=5)
    table.run()
    table.close()
    frames = read_replay(table.paths[Seat.JOINER]).frames
    host_key = table.host.keys[Seat.HOST]
    g = next(
        i
        for i, raw in enumerate(frames)
        if i > 20
        and isinstance(wire.decode_frame(raw).message, wire.MoveMsg)
        and wire.decode_frame(raw).signed_by(host_key)
    )
    prev = wire.decode_frame(frames[g - 1]).hash
    resign = wire.make_frame(
        wire.Resign(), table.keys[Seat.HOST], seq=g, prev=prev, game=table.host.game_id
    )
    header = ReplayHeader(seat="host", created="x", software="x")
    host_file = write_replay(tmp_path / "host2.lcnet", header, [*frames[:g], resign.raw])
    clean = write_replay(
        tmp_path / "joiner-clean.lcnet",
        ReplayHeader(seat="joiner", created="x", software="x"),
        frames,
    )
    damaged = tmp_path / "joiner-damaged.lcnet"
    damaged_copy(clean, damaged, g)
    assert main(["audit", str(damaged), str(host_file), "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["files"][0]["verdict"] == "damaged"
    assert f"do not form one chain at position {g + 1}" in json.dumps(out)


def test_a_damaged_header_is_damage_that_the_twin_repairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(HOST.read_bytes())
    data[len(MAGIC) + 14] ^= 0x20  # inside the header record
    path = tmp_path / "header-damaged.lcnet"
    path.write_bytes(bytes(data))
    assert main(["audit", str(path)]) == 2
    assert "DAMAGED: the file is damaged at bytes 8-" in capsys.readouterr().out
    assert main(["audit", str(path), str(JOINER)]) == 0
    assert f"[repaired from {JOINER}]" in capsys.readouterr().out


def test_one_unreadable_file_of_two_does_not_hide_the_other_s_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.lcnet"
    junk.write_bytes(b"junk")
    cheated = str(SAMPLES / "sample-cheated-host.lcnet")
    assert main(["audit", str(junk), cheated]) == 1
    captured = capsys.readouterr()
    assert "INVALID at frame 111" in captured.out and str(junk) in captured.err
    assert main(["audit", str(HOST), str(junk)]) == 2
    capsys.readouterr()
