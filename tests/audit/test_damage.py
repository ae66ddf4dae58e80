"""Damaged files, torn tails after the end, unknown records: ``lcnet audit``,
``lcnet replay`` and ``lcnet resume`` on real replay files (docs/PROTOCOL.md §7.2)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from lcnet.audit import repair
from lcnet.audit import verdict as audit
from lcnet.cli import main
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.store import replayfile
from lcnet.store.replayfile import MAGIC, ReplayFileError, ReplayHeader, parse_replay, read_replay
from lcnet.store.writer import ReplayWriter, write_replay
from tests.cheaters import Cheater, Table

SAMPLES = Path(__file__).resolve().parents[2] / "replays"
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_repair_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "host.lcnet"
    damaged_copy(HOST, path, 5, 6, 7, 300)
    assert main(["audit", str(path), str(JOINER), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = out["files"][0]
    assert first["verdict"] == "valid" and first["frames"] == 363
    # Several damaged places are one span (PROTOCOL §7.2): the frames between
    # them are not shown genuine, so they are taken from the other file too.
    assert first["repaired"] == {
        "from": str(JOINER),
        "positions": list(range(5, 301)),
        "unvouched": [],
    }
    assert [d["first_position_after"] for d in first["damage"]] == [301]
    assert any("position(s) 5-300" in note for note in first["notes"])
    assert out["comparison"]["common_frames"] == 363


@pytest.mark.slow
def test_both_files_damaged_at_different_places_repair_each_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host, joiner = tmp_path / "host.lcnet", tmp_path / "joiner.lcnet"
    damaged_copy(HOST, host, 40)
    damaged_copy(JOINER, joiner, 41)
    assert main(["audit", str(host), str(joiner), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f["repaired"]["positions"] for f in out["files"]] == [[40], [41]]


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_proof_of_a_fault_beats_a_damaged_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.lcnet"
    damaged_copy(HOST, path, 162)
    assert main(["audit", str(CHEATED), str(path)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "DAMAGED" in out and "not of the same match" in out


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_torn_tail_before_the_end_is_still_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "joiner.lcnet"
    path.write_bytes(INCOMPLETE.read_bytes()[:-5])
    assert main(["audit", str(path)]) == 3
    out = capsys.readouterr().out
    assert "INCOMPLETE: the file is torn after frame 169" in out and "owes" in out


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# ------------------------------------- bytes a player chose, inside frames
#
# A player chooses bytes that the honest player's file then stores inside
# its FRAME records: a peer that announces minor version 1 may put unknown
# fields of any bytes in its frames (PROTOCOL §5.5). Records hidden there
# must never be taken for records of the file (PROTOCOL §7.2).

Plant = Callable[["_Planter", wire.Frame], bytes | None]


class _Planter(Cheater):
    """A joiner that announces protocol 1.2 and hides bytes of its choosing in
    an unknown field ``zz`` of each of its moves."""

    plant: Plant | None = None

    def sign(self, message: wire.Message, header: Any = None) -> wire.Frame:
        if isinstance(message, wire.Hello):
            message = wire.Hello(v=[1, 2], name=message.name, key=message.key, coin=message.coin)
        frame = super().sign(message, header)
        blob = self.plant(self, frame) if self.plant and isinstance(message, wire.MoveMsg) else None
        if blob is None:
            return frame
        body = msgpack.unpackb(frame.body, raw=False)
        body["zz"] = blob
        packed = msgpack.packb(dict(sorted(body.items())), use_bin_type=True)
        assert self.signing_key is not None
        return wire.decode_frame(
            wire.sign_frame(packed, self.signing_key), allow_unknown_fields=True
        )


def planted_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plant: Plant) -> Table:
    """A whole match whose joiner hides ``plant``'s bytes in each of its moves."""
    monkeypatch.setattr("tests.cheaters.Cheater", _Planter)
    table = Table(tmp_path, seed=5, cheater=Seat.JOINER)
    joiner = table.joiner
    assert isinstance(joiner, _Planter)
    joiner.plant = plant
    table.run()
    table.close()
    assert table.host.phase.name == "OVER"
    return table


def holders(data: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, frame) of each FRAME record whose frame has the planted field."""
    out = []
    for start, kind in records(data):
        end = start + 8 + int.from_bytes(data[start : start + 4], "big")
        raw = data[start + 5 : end - 4]
        if kind == 1 and "zz" in msgpack.unpackb(
            wire.decode_frame(raw, allow_unknown_fields=True).body, raw=False
        ):
            out.append((start, end, raw))
    return out


def a_frame_record_of_the_previous_frame(planter: _Planter, frame: wire.Frame) -> bytes:
    """A whole FRAME record of a genuine frame (the one before), as a record in the file."""
    return record(1, planter.chain[-1].raw)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["checksum", "length"])
def test_a_frame_record_hidden_in_a_field_is_not_spliced_in_after_damage_to_its_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    table = planted_match(tmp_path, monkeypatch, a_frame_record_of_the_previous_frame)
    clean = table.paths[Seat.HOST].read_bytes()
    frames = read_replay(table.paths[Seat.HOST]).frames
    start, end, raw = holders(clean)[len(holders(clean)) // 2]
    g = frames.index(raw)
    planted = record(1, frames[g - 1])
    assert clean.find(planted, start) > start  # the hidden record is intact in the file
    data = bytearray(clean)
    if where == "checksum":
        data[end - 20] ^= 0x01  # in the holder's signature, after the hidden record
    else:
        data[start] = 0x80  # the holder's length becomes impossible
    path = tmp_path / "damaged.lcnet"
    path.write_bytes(bytes(data))
    contents = read_replay(path)
    assert contents.frames == frames[:g] and contents.torn is None
    [damage] = contents.damage
    assert (damage.offset, damage.resumes_at) == (start, end)
    assert damage.frames_after == frames[g + 1 :]  # exactly the genuine ones
    verdicts, _ = repair.audit_pair(contents, read_replay(table.paths[Seat.JOINER]), ("a", "b"))
    assert verdicts[0].kind is audit.VerdictKind.VALID, verdicts[0].summary
    assert verdicts[0].repaired is not None and verdicts[0].repaired.filled == [g]


def a_nine_byte_record(planter: _Planter, frame: wire.Frame) -> bytes:
    return b"seed" + record(5, b"") + b"seed"


@pytest.mark.slow
def test_a_torn_last_record_holding_a_planted_record_is_a_torn_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash while writing a frame that holds a record-looking 9-byte sequence."""
    table = planted_match(tmp_path, monkeypatch, a_nine_byte_record)
    clean = table.paths[Seat.HOST].read_bytes()
    frames = read_replay(table.paths[Seat.HOST]).frames
    start, end, raw = holders(clean)[-1]
    planted = clean.find(record(5, b""), start)
    assert start < planted < planted + 9 < end - 30
    path = tmp_path / "torn.lcnet"
    path.write_bytes(clean[: end - 30])  # the crash: the holder's last 30 bytes never written
    contents = read_replay(path)
    assert contents.damage == [] and contents.unknown == []
    assert contents.torn is not None and contents.torn.offset == start
    assert contents.frames == frames[: frames.index(raw)]
    writer, reopened = ReplayWriter.reopen(path)  # resuming truncates it
    writer.close()
    assert reopened.frames == contents.frames and path.read_bytes() == clean[:start]


def garbage(planter: _Planter, frame: wire.Frame) -> bytes:
    """A signed frame claiming a far position, as a whole FRAME record, then
    record-looking lengths and a nine-byte record, all followed by a length
    that claims a record running past the end of the file."""
    assert planter.signing_key is not None and planter.game_id is not None
    far = wire.make_frame(
        wire.Resign(), planter.signing_key, seq=10**6, prev=bytes(32), game=planter.game_id
    )
    return (
        record(1, far.raw)
        + b"\x00\x00\xff\xf0\x05" * 8
        + b"\x00\x01\x00\x00\x02" * 4
        + record(2, b"")
        + b"\x00\x00\xff\xf0\x01"
    )


@pytest.mark.slow
@pytest.mark.parametrize("where", ["checksum", "length"])
def test_planted_garbage_does_not_cost_a_damaged_file_its_resynchronisation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    table = planted_match(tmp_path, monkeypatch, garbage)
    clean = table.paths[Seat.HOST].read_bytes()
    frames = read_replay(table.paths[Seat.HOST]).frames
    near_the_end = [h for h in holders(clean) if len(clean) - h[0] < 65520]
    assert len(near_the_end) > 3  # where the garbage's planted lengths run past the end
    for start, end, raw in near_the_end[:: len(near_the_end) // 3]:
        g = frames.index(raw)
        data = bytearray(clean)
        if where == "checksum":
            data[end - 20] ^= 0x01
        else:
            data[start] = 0x80
        contents = parse_replay(bytes(data))
        [damage] = contents.damage
        assert (damage.offset, damage.resumes_at) == (start, end), g
        assert damage.frames_after == frames[g + 1 :] and contents.torn is None
        path = tmp_path / f"damaged-{g}.lcnet"
        path.write_bytes(bytes(data))
        verdicts, _ = repair.audit_pair(
            read_replay(path), read_replay(table.paths[Seat.JOINER]), ("a", "b")
        )
        assert verdicts[0].kind is audit.VerdictKind.VALID, verdicts[0].summary


# ------------------------------------- second headers, spans, chains, bounds


def test_a_second_header_record_is_a_torn_tail_at_the_end_and_damage_in_the_middle(
    tmp_path: Path,
) -> None:
    data = HOST.read_bytes()
    header = data[len(MAGIC) : records(data)[1][0]]
    frames = read_replay(HOST).frames
    path = tmp_path / "end.lcnet"
    path.write_bytes(data + header)  # as the last record: what a crash may have cut short
    contents = read_replay(path)
    assert contents.damage == [] and contents.frames == frames
    assert contents.torn is not None and contents.torn.offset == len(data)
    assert "second header" in contents.torn.reason
    writer, _ = ReplayWriter.reopen(path)
    writer.close()
    assert path.read_bytes() == data
    at = frame_record(data, 100)
    path.write_bytes(data[:at] + header + data[at:])  # followed by intact records: damage
    contents = read_replay(path)
    assert contents.torn is None and contents.frames == frames[:100]
    [damage] = contents.damage
    assert (damage.offset, damage.resumes_at) == (at, at + len(header))
    assert damage.reason == "a second header record" and damage.frames_after == frames[100:]


@pytest.mark.slow
def test_two_damaged_places_are_one_span(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.lcnet"
    first, _ = damaged_copy(HOST, path, 40, 100)
    frames = read_replay(HOST).frames
    contents = read_replay(path)
    [damage] = contents.damage
    assert damage.offset == first and damage.resumes_at == frame_record(HOST.read_bytes(), 101)
    assert damage.frames_after == frames[101:] and contents.frames == frames[:40]
    assert main(["audit", str(path), str(JOINER), "--json"]) == 0
    repaired = json.loads(capsys.readouterr().out)["files"][0]["repaired"]
    assert repaired["positions"] == list(range(40, 101))


def test_frames_after_a_damage_that_do_not_chain_are_no_resynchronisation_point(
    tmp_path: Path,
) -> None:
    data = HOST.read_bytes()
    frames = read_replay(HOST).frames
    # Frame 200's record is gone: from 101 on the records are intact, but
    # frame 201 does not chain on frame 199.
    cut = data[: frame_record(data, 200)] + data[frame_record(data, 201) :]
    path = tmp_path / "host.lcnet"
    path.write_bytes(cut)
    [offset] = damaged_copy(path, path, 100)
    contents = read_replay(path)
    [damage] = contents.damage
    assert damage.offset == offset and damage.resumes_at == frame_record(cut, 200)  # frame 201
    assert damage.frames_after == frames[201:] and contents.torn is None


def test_a_file_over_the_size_bound_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = replayfile.MAX_FILE_BYTES
    assert limit == 32 << 20
    path = tmp_path / "huge.lcnet"
    with path.open("wb") as out:
        out.write(HOST.read_bytes())
        out.truncate(limit + 1)  # sparse: nothing to read
    with pytest.raises(ReplayFileError, match=f"{limit + 1} bytes.* {limit} bytes") as info:
        read_replay(path)
    assert info.value.exit_code == 2  # its size and the limit are said (above), in bytes
    with pytest.raises(ReplayFileError, match=f"{limit + 1} bytes"):
        parse_replay(HOST.read_bytes().ljust(limit + 1, b"\x00"))
    # Exactly at the bound a file is read.
    data = HOST.read_bytes()
    monkeypatch.setattr(replayfile, "MAX_FILE_BYTES", len(data))
    assert read_replay(HOST).frames == parse_replay(data).frames
    with pytest.raises(ReplayFileError, match=f"{len(data) + 1} bytes"):
        parse_replay(data + b"\x00")


class _CountingZlib:
    """Stands in for the reader's zlib, counting the bytes it checksums."""

    def __init__(self) -> None:
        self.crc_bytes = 0

    def crc32(self, data: bytes | memoryview, value: int = 0) -> int:
        self.crc_bytes += len(data)
        return zlib.crc32(data, value)


CRAFTED_HEAD = MAGIC + record(0, ReplayHeader("host", "x", "x").to_payload())
"""Where the crafted files' bad record starts; it is 49 bytes long."""


def crafted(pattern: bytes, size: int) -> bytes:
    """A header, one record that fails its checksum, then ``pattern`` to ``size`` bytes."""
    bad = bytearray(record(1, b"x" * 40))
    bad[-1] ^= 1
    body = pattern * ((size - len(CRAFTED_HEAD) - len(bad)) // len(pattern) + 1)
    return (CRAFTED_HEAD + bytes(bad) + body)[:size]


CRAFTED = {
    # name: (pattern, MiB, what the file reads as after the bad record)
    "zero_lengths": (b"\x00\x00\xff\xf0", 4, "kept"),
    "zero_lengths_with_a_kind": (b"\x00\x00\xff\xf0\x05", 1, "kept"),
    "aligned_chains": (b"\x00\x00\xff\xf8\x05\x05\x05\x05", 4, "over budget"),
    "dense_short": (b"\x00\x00\x00\x01\x01\x01", 1, "kept"),
    "largest_length": (b"\x00\x01\x00\x00\x05", 1, "kept"),
    "frame_kind_records": (record(1, b"\x92\xc4\x00\xc4\x00"), 1, "kept"),
}
"""Worst cases for the damage scan: look-alike lengths at every 4th byte (with a
HEADER kind, which is no start); with another kind; chains of look-alikes 64 KiB
apart that lead to a cut-off record (each costs a 64 KiB checksum, until the
budget runs out); a candidate at every third byte; the largest length; intact
FRAME records that do not decode."""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_input_costs_a_bounded_number_of_checksum_bytes(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    pattern, mib, outcome = CRAFTED[name]
    data = crafted(pattern, mib << 20)
    counter = _CountingZlib()
    monkeypatch.setattr(replayfile, "zlib", counter)
    contents = parse_replay(data)
    # The intact prefix once, then at most the scan's budget: linear in the size.
    assert counter.crc_bytes <= len(data) + replayfile.scan_budget(len(data)), counter.crc_bytes
    bad = len(CRAFTED_HEAD)
    assert contents.valid_bytes == bad
    if outcome == "kept":
        # The bad record is no crash's (it fits and fails its checksum) and bytes
        # follow it: they are kept as damaged to the end, never truncated.
        [damage] = contents.damage
        assert (damage.offset, damage.resumes_at, damage.records_after) == (bad, len(data), 0)
        assert "no run of records after it is shown" in damage.reason and contents.torn is None
    else:  # damaged to the end: a writer refuses to cut it, an audit says DAMAGED
        [damage] = contents.damage
        assert (damage.offset, damage.resumes_at, damage.records_after) == (bad, len(data), 0)
        assert "within the scan's budget" in damage.reason and contents.torn is None
        assert counter.crc_bytes > replayfile.scan_budget(len(data)) - (1 << 16)


def test_a_length_run_past_the_end_with_the_owner_s_later_frames_after_it_is_damage(
    tmp_path: Path,
) -> None:
    # A flipped length makes a record near the end run past the end of the
    # file: a crash could leave that, but not the host's own later frames
    # after it, which no bytes inside the record can be (§7.2).
    clean = HOST.read_bytes()
    at, after = frame_record(clean, 355), frame_record(clean, 356)
    data = bytearray(clean)
    data[at : at + 4] = (1 << 16).to_bytes(4, "big")
    assert at + (1 << 16) + 8 > len(data)
    contents = parse_replay(bytes(data))
    [damage] = contents.damage
    assert damage.offset == at and damage.resumes_at == after
    assert contents.torn is None and len(damage.frames_after) == 7
    path = tmp_path / "host.lcnet"
    path.write_bytes(bytes(data))
    with pytest.raises(ReplayFileError, match="left untouched"):
        ReplayWriter.reopen(path)


def test_a_second_damage_near_the_end_keeps_everything_and_accuses_no_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two flipped bytes, the second in the last frame: no run reaches the end
    # of the file, yet the first bad record is no crash's. The file is damaged
    # to its end (kept, never truncated), not torn with the owner owing a frame.
    data = bytearray(HOST.read_bytes())
    data[frame_record(bytes(data), 100) + 40] ^= 0x20
    data[frame_record(bytes(data), 362) + 40] ^= 0x20
    path = tmp_path / "host.lcnet"
    path.write_bytes(bytes(data))
    contents = read_replay(path)
    [damage] = contents.damage
    assert damage.resumes_at == len(data) and contents.torn is None
    assert main(["audit", str(path)]) == 2
    assert "DAMAGED" in capsys.readouterr().out
    with pytest.raises(ReplayFileError, match="left untouched"):
        ReplayWriter.reopen(path)
    assert path.read_bytes() == bytes(data)


def test_a_length_run_past_the_end_and_a_second_damage_keep_the_owner_s_frames(
    tmp_path: Path,
) -> None:
    # As above, with the last frame damaged too: no run reaches the end of the
    # file, but the host's later frames after the cut-off record show that no
    # crash left it. Damaged to the end, kept; never a torn tail.
    clean = HOST.read_bytes()
    at = frame_record(clean, 355)
    data = bytearray(clean)
    data[at : at + 4] = (1 << 16).to_bytes(4, "big")
    data[frame_record(clean, 362) + 40] ^= 0x20
    contents = parse_replay(bytes(data))
    [damage] = contents.damage
    assert (damage.offset, damage.resumes_at, contents.torn) == (at, len(data), None)
    assert "owner signed later follows it" in damage.reason
