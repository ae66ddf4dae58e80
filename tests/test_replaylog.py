"""The replay file: records, torn tails, reopening, the private side file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lcnet.replaylog import (
    MAGIC,
    ReplayFileError,
    ReplayHeader,
    ReplayWriter,
    delete_secret,
    read_replay,
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


def test_a_flipped_byte_stops_reading_at_that_record(tmp_path: Path) -> None:
    path = tmp_path / "m.lcnet"
    make(path, [b"one", b"two", b"three"])
    data = bytearray(path.read_bytes())
    data[data.index(b"two")] ^= 0xFF
    path.write_bytes(bytes(data))
    contents = read_replay(path)
    assert contents.frames == [b"one"]
    assert contents.torn is not None and "checksum" in contents.torn.reason


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
