"""Writing a match's files: the replay file, durably, and its private side file.

:class:`ReplayWriter` appends records to a replay file (the format is in
:mod:`lcnet.store.replayfile`), each with one ``write``, then flushed and fsynced,
*before* the frame is sent: the file is the source of truth. A crash can only
tear the last record, and :meth:`ReplayWriter.reopen` truncates the torn bytes
(and refuses a damaged file rather than cut records that follow the damage).

The master secret a peer needs to resume lives in a private side file
(``<replay>.secret``, mode 0600), never in the replay file; it is deleted
once the match is over.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgpack

from lcnet.store.replayfile import (
    MAGIC,
    RecordKind,
    ReplayContents,
    ReplayFileError,
    ReplayHeader,
    encode_record,
    read_replay,
    refuse_damaged,
)
from lcnet.store.safeopen import FileRefused, open_regular
from lcnet.textsafe import shown

if TYPE_CHECKING:
    from lcnet.protocol.events import Step
    from lcnet.protocol.session import Session

SECRET_SUFFIX: Final = ".secret"

MAX_SECRET_BYTES: Final = 64 * 1024
"""A side file holds a few secrets (well under 1 KiB): anything larger is not read."""
SECRET_MODE: Final = 0o600


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # not every platform can open a directory; the data itself is synced
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ReplayWriter:
    """Appends records to a replay file, each durably (write, flush, fsync).

    A writer holds an exclusive lock on its file: two programs writing one
    match would interleave their records and, worse, each sign frames for the
    same positions, which reads as equivocation.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd
        self.frames_written = 0
        self._broken: str | None = None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            self._fd = -1
            raise ReplayFileError(
                f"{path} is in use by another lcnet program (the match is being played "
                "there); stop that one first"
            ) from None

    @classmethod
    def create(cls, path: str | os.PathLike[str], header: ReplayHeader) -> ReplayWriter:
        """Create a new replay file (never overwrites an existing one)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except FileExistsError:
            raise ReplayFileError(f"{p} already exists; not overwriting it") from None
        writer = cls(p, fd)
        writer._write(MAGIC + encode_record(RecordKind.HEADER, header.to_payload()))
        fsync_dir(p.parent)
        return writer

    @classmethod
    def reopen(cls, path: str | os.PathLike[str]) -> tuple[ReplayWriter, ReplayContents]:
        """Open an existing file to continue it, truncating a torn tail first.

        A damaged file (bad bytes with intact records after them) is refused
        and left untouched: truncating it would destroy those records.
        """
        p = Path(path)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOCTTY)
        except FileNotFoundError:
            raise ReplayFileError(f"no such replay file: {shown(str(p))}") from None
        except OSError as exc:
            raise ReplayFileError(f"cannot open {shown(str(p))}: {exc.strerror}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device swapped in
            os.close(fd)
            raise ReplayFileError(f"{shown(str(p))} is not a regular file: not written")
        writer = cls(p, fd)  # locked from here on: nobody else appends meanwhile
        try:
            contents = read_replay(p)
            refuse_damaged(p, contents)
        except ReplayFileError:
            writer.close()
            raise
        if contents.torn is not None:
            os.ftruncate(fd, contents.valid_bytes)
            os.fsync(fd)
        writer.frames_written = len(contents.frames)
        return writer, contents

    def _write(self, data: bytes, *, sync: bool = True) -> None:
        """Append ``data`` whole, or not at all.

        A write that fails (a full disk) or comes up short is cut off again,
        so the file stays the last good state and is never damaged in its
        middle by the next record; the writer then refuses to write more.
        """
        if self._broken is not None:
            raise OSError(f"{self.path}: not written, an earlier write failed ({self._broken})")
        size = os.fstat(self._fd).st_size
        try:
            written = os.write(self._fd, data)
            if written != len(data):  # a regular file takes a whole write or fails
                raise OSError(f"short write to {self.path}: {written} of {len(data)} bytes")
            if sync:
                os.fsync(self._fd)
        except OSError as exc:
            self._broken = str(exc)
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, size)
                os.fsync(self._fd)
            raise

    def append_step(
        self,
        *,
        received: bytes | None = None,
        note: Mapping[str, Any] | None = None,
        evidence: bytes | None = None,
        sent: Sequence[bytes] = (),
    ) -> None:
        """Record what one protocol step produced, in order, with one write.

        The file is synced to disk only when the step has frames to send:
        they must be durable before they leave. A received frame alone is
        not synced at once; it is synced with the next frame this peer sends,
        and if a crash loses it first, the peer that sent it sends it again
        when the two reconnect.
        """
        data = b""
        if evidence is not None:
            data += encode_record(RecordKind.EVIDENCE, evidence)
        if received is not None:
            data += encode_record(RecordKind.FRAME, received)
            if note is not None:
                data += encode_record(RecordKind.NOTE, msgpack.packb(dict(note), use_bin_type=True))
        for frame in sent:
            data += encode_record(RecordKind.FRAME, frame)
        if data:
            self._write(data, sync=bool(sent))
            self.frames_written += (received is not None) + len(sent)

    def append_frame(self, frame: bytes, note: Mapping[str, Any] | None = None) -> None:
        """Append a transcript frame durably (call before sending it).

        A ``note`` (local annotations such as the receive time) goes in the
        same write, right after the frame.
        """
        data = encode_record(RecordKind.FRAME, frame)
        if note is not None:
            data += encode_record(RecordKind.NOTE, msgpack.packb(dict(note), use_bin_type=True))
        self._write(data)
        self.frames_written += 1

    def append_evidence(self, frame: bytes) -> None:
        self._write(encode_record(RecordKind.EVIDENCE, frame))

    def append_note(self, note: Mapping[str, Any]) -> None:
        self._write(encode_record(RecordKind.NOTE, msgpack.packb(dict(note), use_bin_type=True)))

    def close(self) -> None:
        """Sync and close (received frames not yet synced become durable here)."""
        if self._fd >= 0:
            try:
                os.fsync(self._fd)
            finally:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_replay(
    path: str | os.PathLike[str],
    header: ReplayHeader,
    frames: Sequence[bytes],
    evidence: Sequence[bytes] = (),
) -> Path:
    """Write a whole replay file at once (one write, one fsync): for exporting a
    transcript that is already complete, such as the sample files."""
    writer = ReplayWriter.create(path, header)
    try:
        data = b"".join(encode_record(RecordKind.EVIDENCE, e) for e in evidence)
        data += b"".join(encode_record(RecordKind.FRAME, f) for f in frames)
        writer._write(data)
        writer.frames_written = len(frames)
    finally:
        writer.close()
    return writer.path


# ------------------------------------------------------------- side file


def secret_path(replay_path: str | os.PathLike[str]) -> Path:
    return Path(str(replay_path) + SECRET_SUFFIX)


def write_secret(replay_path: str | os.PathLike[str], secrets: Mapping[str, Any]) -> Path:
    """Store a peer's secrets next to its replay file, private (0600), atomically."""
    path = secret_path(replay_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, SECRET_MODE)
    try:
        os.fchmod(fd, SECRET_MODE)
        data = msgpack.packb(dict(secrets), use_bin_type=True)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)
    return path


def read_secret(replay_path: str | os.PathLike[str]) -> dict[str, Any]:
    path = secret_path(replay_path)
    try:
        with open_regular(path, limit=MAX_SECRET_BYTES, what="side file") as file:
            mode = os.fstat(file.fd).st_mode & 0o777
            data = file.read()
    except FileRefused as exc:
        if exc.missing:
            raise ReplayFileError(
                f"the private side file {shown(str(path))} is missing: this match cannot be "
                "resumed from here (it was started elsewhere, or it is already over)"
            ) from None
        raise ReplayFileError(f"cannot read the side file: {exc}") from None
    if mode & 0o077:
        raise ReplayFileError(
            f"{shown(str(path))} is readable by others (mode {mode:o}); "
            f"run: chmod 600 {shown(str(path))}"
        )
    try:
        secrets = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception:
        secrets = None
    if not isinstance(secrets, dict):
        raise ReplayFileError(f"the private side file {shown(str(path))} is damaged")
    return secrets


def delete_secret(replay_path: str | os.PathLike[str]) -> None:
    """Remove the side file once the match is over (its secrets are then public)."""
    secret_path(replay_path).unlink(missing_ok=True)


class MatchFile:
    """A player's replay file of a match in progress (:mod:`lcnet.net.peer` writes each
    step here before it sends anything): opened with the first frame (it is
    named after the game) unless given open."""

    def __init__(
        self,
        writer: ReplayWriter | Callable[[Session], ReplayWriter] | None,
        wall: Callable[[], float],
    ) -> None:
        self._writer = writer if isinstance(writer, ReplayWriter) else None
        self._open = None if isinstance(writer, ReplayWriter) else writer
        self.wall = wall

    @property
    def path(self) -> Path | None:
        return self._writer.path if self._writer is not None else None

    def record(self, session: Session, step: Step) -> None:
        starts = step.accepted is not None or step.outgoing  # the game is known from then on
        if self._writer is None and self._open is not None and starts:
            self._writer = self._open(session)
        if self._writer is not None:
            self._writer.append_step(
                received=step.accepted.raw if step.accepted is not None else None,
                note={"received": round(self.wall(), 3)} if step.accepted is not None else None,
                evidence=step.evidence.raw if step.evidence is not None else None,
                sent=[frame.raw for frame in step.outgoing],
            )

    def discard(self) -> None:
        """Close and delete the file (a match that never started), and its side file."""
        path = self.path
        self.close()
        if path is not None:
            path.unlink(missing_ok=True)
            delete_secret(path)
        self._writer = None

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
