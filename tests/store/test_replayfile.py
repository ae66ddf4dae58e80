"""The replay file: records, torn tails, reopening, the private side file."""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lcnet.store import replayfile
from lcnet.store.replayfile import (
    MAGIC,
    RecordKind,
    ReplayFileError,
    ReplayHeader,
    UnknownRecord,
    encode_record,
    parse_replay,
    read_replay,
)
from lcnet.store.safeopen import open_regular
from lcnet.store.writer import (
    ReplayWriter,
    delete_secret,
    read_secret,
    secret_path,
    write_secret,
)

HEADER = ReplayHeader(seat="host", created="2026-11-29T12:00:00Z", software="lcnet test")


def make(path: Path, frames: list[bytes]) -> None:
    with ReplayWriter.create(path, HEADER) as writer:
        for frame in frames:
            writer.append_frame(frame)
            writer.append_note({"received": 1.5})


def test_frames_and_notes_read_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    make(path, [b"one", b"two", b"three"])
    contents = read_replay(path)
    assert contents.frames == [b"one", b"two", b"three"]
    assert contents.notes == [
        (1, {"received": 1.5}),
        (2, {"received": 1.5}),
        (3, {"received": 1.5}),
    ]
    assert contents.header == HEADER and contents.torn is None


def test_create_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    make(path, [b"x"])
    with pytest.raises(ReplayFileError, match="already exists"):
        ReplayWriter.create(path, HEADER)
    assert read_replay(path).frames == [b"x"]


@pytest.mark.parametrize("cut", [1, 4, 5, 9, 12])
def test_a_torn_tail_keeps_the_valid_prefix(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "m.lcnet"
    make(path, [b"one", b"two", b"three"])
    data = path.read_bytes()
    path.write_bytes(data[:-cut])
    contents = read_replay(path)
    assert contents.frames[:2] == [b"one", b"two"]
    assert contents.torn is not None
    assert contents.valid_bytes == contents.torn.offset < len(data) - cut + 1


def test_reopening_truncates_the_torn_bytes_and_appends_after_them(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    with ReplayWriter.create(path, HEADER) as writer:
        writer.append_frame(b"one")
        writer.append_frame(b"two")
    path.write_bytes(path.read_bytes()[:-3])  # a crash in the middle of writing "two"
    writer, contents = ReplayWriter.reopen(path)
    assert contents.frames == [b"one"] and writer.frames_written == 1
    writer.append_frame(b"again")
    writer.close()
    again = read_replay(path)
    assert again.frames == [b"one", b"again"] and again.torn is None


def record_starts(data: bytes) -> list[int]:
    """Where each record of an intact file starts."""
    starts, offset = [], len(MAGIC)
    while offset < len(data):
        starts.append(offset)
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big") + 4
    return starts


# After a damage the reader resynchronises only on records that run to the
# end of the file and whose frames chain (PROTOCOL §7.2): these tests use a
# real match's frames, which chain, where the ones above use stand-ins.
SAMPLE = Path(__file__).resolve().parents[2] / "replays" / "sample-complete-host.lcnet"
F = read_replay(SAMPLE).frames[:6]


def test_a_flipped_byte_with_intact_records_after_it_is_damage_not_a_torn_tail(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.lcnet"
    make(path, F[:3])
    data = bytearray(path.read_bytes())
    starts = record_starts(bytes(data))
    data[starts[3] + 20] ^= 0xFF  # inside frame 1's record
    path.write_bytes(bytes(data))
    contents = read_replay(path)
    assert contents.torn is None
    assert contents.frames == F[:1] and contents.valid_bytes == starts[3]
    [damage] = contents.damage
    assert damage.offset == starts[3] and damage.resumes_at == starts[4]
    assert "checksum" in damage.reason
    assert damage.records_after == 3  # frame 1's note, frame 2, its note
    assert damage.frames_after == F[2:3] and damage.notes_after == [{"received": 1.5}] * 2
    assert "damaged at bytes" in contents.describe_damage()


def test_every_single_byte_damage_in_a_middle_record_is_found_and_skipped(
    tmp_path: Path,
) -> None:
    """Length field, kind, payload or checksum: the reader finds the next
    record. Even a damaged length that makes the record run past the end of
    the file: before the owner's key is known (a host's file with only the
    hello), the record at the damage is the owner's own, with no byte the
    opponent chose, so the whole run after it shows no crash left it (§7.2)."""
    path = tmp_path / "m.lcnet"
    with ReplayWriter.create(path, HEADER) as writer:
        for frame in F[:3]:
            writer.append_frame(frame)
    clean = path.read_bytes()
    starts = record_starts(clean)
    for at in range(starts[2], starts[3]):
        for mask in (0x01, 0x80, 0xFF):
            data = bytearray(clean)
            data[at] ^= mask
            contents = parse_replay(bytes(data))
            assert contents.frames == F[:1], (at, mask)
            assert contents.torn is None, (at, mask)
            assert [(d.offset, d.resumes_at) for d in contents.damage] == [(starts[2], starts[3])]
            assert contents.damage[0].frames_after == F[2:3]


def test_a_damaged_length_field_is_resynchronised_by_scanning(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    make(path, F[:3])
    data = bytearray(path.read_bytes())
    starts = record_starts(bytes(data))
    for length in (0xFFFFFFFF, 0, 7, 60):  # impossible, or possible but wrong
        data[starts[3] : starts[3] + 4] = length.to_bytes(4, "big")
        contents = parse_replay(bytes(data))
        assert contents.torn is None and contents.frames == F[:1]
        assert [(d.offset, d.resumes_at) for d in contents.damage] == [(starts[3], starts[4])]
        assert contents.damage[0].frames_after == F[2:3]


def test_a_bad_last_record_is_still_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    make(path, [b"one", b"two"])
    data = bytearray(path.read_bytes())
    data[-6] ^= 0xFF  # inside the last note's payload: nothing intact after it
    path.write_bytes(bytes(data))
    contents = read_replay(path)
    assert contents.damage == [] and contents.torn is not None
    assert contents.frames == [b"one", b"two"]
    assert contents.torn.trailing == len(data) - contents.torn.offset


def test_two_damaged_places_are_one_span(tmp_path: Path) -> None:
    # The records between two damaged places are not shown to be genuine
    # (only a run to the end of the file is), so they are one damaged span.
    path = tmp_path / "m.lcnet"
    with ReplayWriter.create(path, HEADER) as writer:
        for frame in F[:5]:
            writer.append_frame(frame)
    data = bytearray(path.read_bytes())
    starts = record_starts(bytes(data))
    data[starts[2] + 20] ^= 1
    data[starts[4] + 20] ^= 1
    contents = parse_replay(bytes(data))
    assert contents.frames == F[:1] and contents.torn is None
    assert [(d.offset, d.resumes_at) for d in contents.damage] == [(starts[2], starts[5])]
    assert [d.frames_after for d in contents.damage] == [F[4:5]]


def test_a_record_of_an_unknown_kind_is_skipped_and_listed(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    make(path, [b"one"])
    body = bytes([42]) + b"from a later minor version"
    unknown = len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
    at = len(path.read_bytes())
    with path.open("ab") as out:
        out.write(unknown)
    with ReplayWriter.reopen(path)[0] as writer:
        writer.append_frame(b"two")
    contents = read_replay(path)
    assert contents.frames == [b"one", b"two"]
    assert contents.torn is None and contents.damage == []
    assert contents.unknown == [UnknownRecord(at, 42, len(body))]


def test_reopening_a_damaged_file_is_refused_and_leaves_it_untouched(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    make(path, [b"one", b"two", b"three"])
    data = bytearray(path.read_bytes())
    data[data.index(b"two")] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ReplayFileError, match="damaged at bytes") as info:
        ReplayWriter.reopen(path)
    assert "lcnet audit" in str(info.value) and "untouched" in str(info.value)
    assert info.value.exit_code == 2
    assert path.read_bytes() == bytes(data)
    with open_regular(path, limit=1 << 20) as file:
        assert not file.locked()  # the lock was released


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty or cut off"),
        (MAGIC[:4], "empty or cut off"),
        (b"GIF89a.........", "bad magic"),
        (MAGIC, "no header"),
    ],
)
def test_files_that_are_not_replays_are_refused(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "bad.lcnet"
    path.write_bytes(data)
    with pytest.raises(ReplayFileError, match=message) as info:
        read_replay(path)
    assert info.value.exit_code == 2


def test_an_unknown_major_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.lcnet"
    with ReplayWriter.create(path, ReplayHeader("host", "now", "x", version=(2, 0))):
        pass
    with pytest.raises(ReplayFileError, match=r"version 2\.0 is not supported"):
        read_replay(path)


def test_a_newer_minor_version_is_read(tmp_path: Path) -> None:
    path = tmp_path / "newer.lcnet"
    header = ReplayHeader("host", "now", "x", version=(1, 7), extra={"later": True})
    with ReplayWriter.create(path, header) as writer:
        writer.append_frame(b"f")
    contents = read_replay(path)
    assert contents.header.version == (1, 7) and contents.frames == [b"f"]


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReplayFileError, match="no such replay file"):
        read_replay(tmp_path / "nope.lcnet")


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "is a FIFO (named pipe), not a regular file: not read"


def _zero(path: Path) -> str:
    path.symlink_to("/dev/zero")
    return "is a character device, not a regular file: not read"


def _directory(path: Path) -> str:
    path.mkdir()
    return "is a directory, not a regular file: not read"


def _sparse(path: Path) -> str:
    with open(path, "wb") as stream:
        stream.truncate(4 << 30)  # 4 GiB, sparse: no disk
    return "is 4294967296 bytes, more than the 33554432 bytes a replay file may have"


def _loop(path: Path) -> str:
    path.symlink_to(path.name)
    return "is a symbolic link that leads back to itself"


@pytest.mark.parametrize("make_it", [_fifo, _zero, _directory, _sparse, _loop])
def test_what_is_not_a_regular_replay_file_is_refused_before_it_is_read(
    tmp_path: Path, make_it: Callable[[Path], str]
) -> None:
    """Never a blocking open, never a read past the size limit (lcnet.store.safeopen):
    a FIFO would wait for a writer, /dev/zero and a sparse file read whole are
    a MemoryError."""
    path = tmp_path / "x\x1b[2J.lcnet"
    reason = make_it(path)
    with pytest.raises(ReplayFileError) as refused:
        read_replay(path)
    assert str(refused.value).startswith(f"{tmp_path}/x\\x1b[2J.lcnet {reason}")


def test_the_side_file_is_private_and_deleted_at_the_end(tmp_path: Path) -> None:
    replay = tmp_path / "m.lcnet"
    path = write_secret(replay, {"master": b"s" * 32, "seat": "host"})
    assert path == secret_path(replay)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert read_secret(replay) == {"master": b"s" * 32, "seat": "host"}
    delete_secret(replay)
    assert not path.exists()
    with pytest.raises(ReplayFileError, match="missing"):
        read_secret(replay)


def test_a_side_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    replay = tmp_path / "m.lcnet"
    path = write_secret(replay, {"master": b"s" * 32})
    path.chmod(0o644)
    with pytest.raises(ReplayFileError, match="readable by others"):
        read_secret(replay)


def test_one_replay_file_has_one_writer(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    with ReplayWriter.create(path, HEADER) as writer:
        writer.append_frame(b"one")
        with pytest.raises(ReplayFileError, match="in use by another lcnet program"):
            ReplayWriter.reopen(path)
    again, contents = ReplayWriter.reopen(path)  # free again once closed
    again.close()
    assert contents.frames == [b"one"]


def test_a_side_file_that_is_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    replay = tmp_path / "m.lcnet"
    secret_path(replay).mkdir()
    with pytest.raises(ReplayFileError, match="cannot read the side file"):
        read_secret(replay)


def _ends_within(call: Callable[[], object], fifo: Path, seconds: float = 30.0) -> object:
    """``call()``'s result or exception, failing (not hanging) if it blocks on ``fifo``."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():  # release it before failing: open the other end
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
        pytest.fail(f"blocked on the FIFO {fifo}")
    return outcome[0]


def test_a_side_file_that_is_a_fifo_or_a_device_is_refused_without_blocking(
    tmp_path: Path,
) -> None:
    replay = tmp_path / "m.lcnet"
    os.mkfifo(secret_path(replay), 0o600)
    refused = _ends_within(lambda: read_secret(replay), secret_path(replay))
    assert isinstance(refused, ReplayFileError)
    assert "FIFO" in str(refused)
    secret_path(replay).unlink()
    secret_path(replay).symlink_to("/dev/zero")
    with pytest.raises(ReplayFileError, match="character device"):
        read_secret(replay)


def test_a_replay_file_swapped_for_a_fifo_is_not_reopened(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    os.mkfifo(path, 0o600)
    refused = _ends_within(lambda: ReplayWriter.reopen(path), path)
    assert isinstance(refused, ReplayFileError)


def test_a_failed_write_is_cut_off_and_the_writer_writes_no_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.lcnet"
    writer = ReplayWriter.create(path, ReplayHeader(seat="host", created="x", software="x"))
    writer.append_frame(b"A" * 100)
    good = path.read_bytes()
    real_write = os.write

    def half(fd: int, data: bytes) -> int:  # what a full disk does
        return real_write(fd, data[: len(data) // 2])

    monkeypatch.setattr(replayfile.os, "write", half)
    with pytest.raises(OSError, match="short write"):
        writer.append_frame(b"B" * 100)
    monkeypatch.undo()
    assert path.read_bytes() == good  # the half record is gone again
    with pytest.raises(OSError, match="an earlier write failed"):
        writer.append_note({"x": 1})
    writer.close()
    contents = read_replay(path)
    assert contents.frames == [b"A" * 100] and not contents.damage and contents.torn is None


_PIECES = st.one_of(
    st.integers(0, 200).map(bytes),  # a run of zeros, shorter and longer than 64
    st.binary(min_size=1, max_size=40),
    st.sampled_from([b"\x00\x00\x01\x00\x05", b"\x00\x01\x00\x00\x03", b"\x00\x00\x00\x00\x05"]),
)


@given(st.lists(_PIECES, max_size=30), st.integers(0, 300), st.sampled_from([1, 5, 64]))
def test_stepping_over_zero_runs_finds_the_same_record_starts(
    pieces: list[bytes], pos: int, scale: int
) -> None:
    """A resynchronisation steps over runs of zeros (a file of zeros costs no
    more than its reading); the starts it looks at are exactly those the
    pattern alone finds, in order, and so is where the zeros end."""
    data = b"".join(piece * (scale if not piece.strip(b"\0") else 1) for piece in pieces)
    pos = min(pos, len(data))
    expected = [m.start() for m in replayfile._CANDIDATE.finditer(data, pos)]
    assert list(replayfile._candidates(data, pos)) == expected
    nonzero = next((i for i in range(pos, len(data)) if data[i]), None)
    assert replayfile._nonzero_from(data, pos) == nonzero


def test_a_file_of_zeros_after_its_header_is_read_as_a_torn_tail() -> None:
    """32 MiB of zeros after a header (cheap to plant) is a torn tail, as a
    file system leaves one, read without trying each byte as a record."""
    header = ReplayHeader(seat="host", created="2026-12-08T00:00:00Z", software="t")
    data = MAGIC + encode_record(RecordKind.HEADER, header.to_payload())
    contents = parse_replay(data + bytes(replayfile.MAX_FILE_BYTES - len(data)))
    assert contents.frames == [] and contents.damage == []
    assert contents.torn is not None and contents.torn.offset == len(data)
