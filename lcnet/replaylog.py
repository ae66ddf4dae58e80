"""The replay file: an append-only, crash-safe record of one match.

Layout (docs/PROTOCOL.md §7 is normative)::

    file   = MAGIC, record(HEADER), record*
    record = length (4 bytes, big-endian; counts kind and payload)
             kind   (1 byte)
             payload
             crc32  (4 bytes, big-endian; CRC-32 of kind and payload)

Kinds: ``HEADER`` (msgpack map: format, version, created, seat, software),
``FRAME`` (one transcript frame, its exact signed bytes, in chain order),
``NOTE`` (a msgpack map of local annotations outside the chain: receive
times, dropped frames, disputes) and ``EVIDENCE`` (a frame signed by the
peer that was not accepted into the chain, kept as proof, e.g. the second
of two frames it signed for the same position).

Every record is written with one ``write``, then flushed and fsynced,
*before* the frame is sent: the file is the source of truth. A crash can
only tear the last record; the reader keeps the valid prefix and says where
it stopped, and :meth:`ReplayWriter.reopen` truncates the torn bytes.

A bad record with an intact record somewhere after it is not a torn tail but
*damage* (a flipped bit on a disk, a bad copy): the reader finds the next
intact record by scanning forward, keeps what follows (``damage``), and
``reopen`` refuses such a file rather than truncate the intact records.
A record whose checksum holds but whose kind this reader does not know is
skipped and listed in ``unknown`` (a later minor version may add kinds).

The master secret a peer needs to resume lives in a private side file
(``<replay>.secret``, mode 0600), never in the replay file; it is deleted
once the match is over.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import os
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgpack

from lcnet.errors import UserError

MAGIC: Final = b"\x89LCNET\r\n"
"""8 bytes; the high byte and CR-LF catch files mangled by text-mode transfers."""

FORMAT_NAME: Final = "lcnet-replay"
FORMAT_VERSION: Final = (1, 0)
"""(major, minor): readers reject another major; a minor only adds optional fields."""

MAX_RECORD_BYTES: Final = 1 << 16
"""A frame is at most 4 KiB (see wire.MAX_FRAME_BYTES) and a note far less;
64 KiB bounds what a reader allocates for one record of a damaged file."""

RECORD_OVERHEAD: Final = 9
"""Length (4) + kind (1) + CRC (4) bytes around each payload."""

SECRET_SUFFIX: Final = ".secret"
SECRET_MODE: Final = 0o600


class RecordKind(enum.IntEnum):
    HEADER = 0
    FRAME = 1
    NOTE = 2
    EVIDENCE = 3


_KIND_VALUES: Final = frozenset(int(k) for k in RecordKind)


UNKNOWN_SEAT: Final = "unknown"
"""The seat of a file whose header record is damaged."""


class ReplayFileError(UserError):
    """A file that is not a readable lcnet replay file."""

    exit_code = 2


@dataclass(frozen=True)
class ReplayHeader:
    """What the file says about itself (local facts, outside the signed chain)."""

    seat: str
    """``host``, ``joiner`` or ``observer``: whose file this is."""
    created: str
    """When the file was created, ISO 8601 UTC."""
    software: str
    version: tuple[int, int] = FORMAT_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_payload(self) -> bytes:
        body: dict[str, Any] = dict(self.extra)
        body.update(
            format=FORMAT_NAME,
            version=list(self.version),
            created=self.created,
            seat=self.seat,
            software=self.software,
        )
        data: bytes = msgpack.packb(body, use_bin_type=True)
        return data

    @classmethod
    def from_payload(cls, payload: bytes) -> ReplayHeader:
        try:
            body = msgpack.unpackb(payload, raw=False, strict_map_key=True)
        except Exception as exc:
            raise ReplayFileError(f"the replay header is unreadable ({exc})") from None
        if not isinstance(body, dict) or body.get("format") != FORMAT_NAME:
            raise ReplayFileError("not an lcnet replay file (wrong format name)")
        version = body.get("version")
        if (
            not isinstance(version, list)
            or len(version) != 2
            or not all(isinstance(v, int) for v in version)
        ):
            raise ReplayFileError("the replay header has no valid version")
        if version[0] != FORMAT_VERSION[0]:
            raise ReplayFileError(
                f"replay format version {version[0]}.{version[1]} is not supported "
                f"(this lcnet reads {FORMAT_VERSION[0]}.x)"
            )
        for key in ("created", "seat", "software"):
            if not isinstance(body.get(key), str):
                raise ReplayFileError(f"the replay header has no valid {key!r}")
        extra = {
            k: v
            for k, v in body.items()
            if k not in ("format", "version", "created", "seat", "software")
        }
        return cls(
            seat=body["seat"],
            created=body["created"],
            software=body["software"],
            version=(version[0], version[1]),
            extra=extra,
        )


@dataclass(frozen=True)
class TornTail:
    """Where reading stopped early, and why: a bad or incomplete record with
    no intact record after it (what a crash while writing leaves)."""

    offset: int
    """Where the torn bytes start (the file is whole up to here)."""
    reason: str
    trailing: int = 0
    """How many bytes follow ``offset`` (the torn bytes)."""


@dataclass
class Damage:
    """Bad bytes in the middle of a file: at least one intact record follows them.

    A crash cannot leave this (it only tears the last record): a byte was
    changed on disk or in a copy. What follows the damage is kept.
    """

    offset: int
    """Where the bad record starts."""
    resumes_at: int
    """Where the next intact record starts (the bad bytes are ``offset`` … ``resumes_at - 1``)."""
    reason: str
    records_after: int = 0
    """Intact records from ``resumes_at`` up to the next damage (or the end)."""
    frames_after: list[bytes] = field(default_factory=list)
    """The FRAME records among them, in file order."""
    evidence_after: list[bytes] = field(default_factory=list)
    notes_after: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class UnknownRecord:
    """An intact record of a kind this reader does not know (skipped)."""

    offset: int
    kind: int
    size: int
    """Bytes of kind and payload."""


@dataclass
class ReplayContents:
    """Everything a replay file holds, in order.

    ``frames``, ``notes`` and ``evidence`` are the *intact prefix*: what comes
    before the first damage (or the torn tail). What follows a damage is in
    that :class:`Damage`.
    """

    header: ReplayHeader
    frames: list[bytes] = field(default_factory=list)
    notes: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """Each note with the number of frames recorded before it."""
    evidence: list[bytes] = field(default_factory=list)
    torn: TornTail | None = None
    valid_bytes: int = 0
    """Where the intact prefix ends (where the first damage or the torn tail starts)."""
    damage: list[Damage] = field(default_factory=list)
    unknown: list[UnknownRecord] = field(default_factory=list)

    @property
    def damaged(self) -> bool:
        return bool(self.damage)

    def describe_damage(self) -> str:
        """One line: where the damage is and how much intact data follows it."""
        first = self.damage[0]
        after = sum(d.records_after for d in self.damage)
        frames = sum(len(d.frames_after) for d in self.damage)
        more = f" (and {len(self.damage) - 1} more damaged places)" if len(self.damage) > 1 else ""
        return (
            f"damaged at bytes {first.offset}-{first.resumes_at - 1} ({first.reason}){more}, "
            f"with {after} intact records after the damage ({frames} frames): not a torn "
            "tail, which a crash leaves only at the end"
        )


def _record(kind: RecordKind, payload: bytes) -> bytes:
    if len(payload) + 1 > MAX_RECORD_BYTES:
        raise ValueError(f"a replay record holds at most {MAX_RECORD_BYTES - 1} bytes")
    body = bytes([kind]) + payload
    return len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")


def _intact_at(data: bytes, offset: int) -> tuple[int, bytes] | str:
    """The record at ``offset`` as (end, kind and payload), or why it is not intact."""
    if len(data) - offset < 4:
        return "a record length is cut off"
    length = int.from_bytes(data[offset : offset + 4], "big")
    end = offset + 4 + length + 4
    if length < 1 or length > MAX_RECORD_BYTES:
        return f"a record claims an impossible length ({length} bytes)"
    if end > len(data):
        return "the last record is cut off"
    body = data[offset + 4 : offset + 4 + length]
    if zlib.crc32(body) != int.from_bytes(data[end - 4 : end], "big"):
        return "a record fails its checksum"
    return end, body


def _next_intact(data: bytes, bad: int) -> int | None:
    """Where the first intact record after the bad record at ``bad`` starts.

    Every later offset is tried, since the bad record's own length field may
    be what is damaged: a candidate needs a possible length that fits in the
    file and a CRC-32 that holds over its kind and payload. Bytes that are
    not a record pass that test by chance with a probability of about 2**-32
    per candidate, which is negligible.
    """
    for candidate in range(bad + 1, len(data) - RECORD_OVERHEAD + 1):
        length = int.from_bytes(data[candidate : candidate + 4], "big")
        fits = 1 <= length <= MAX_RECORD_BYTES and candidate + length + 8 <= len(data)
        if fits and not isinstance(_intact_at(data, candidate), str):
            return candidate
    return None


def parse_replay(data: bytes) -> ReplayContents:
    """Parse replay-file bytes.

    The intact prefix goes in ``frames``/``notes``/``evidence``. A bad record
    with no intact record after it is a torn tail (``torn``); one with an
    intact record after it is damage (``damage``), and reading goes on from
    that intact record. Intact records of an unknown kind are skipped
    (``unknown``).
    """
    if not data.startswith(MAGIC):
        if MAGIC.startswith(data):
            raise ReplayFileError("the replay file is empty or cut off before its header")
        raise ReplayFileError("not an lcnet replay file (bad magic bytes)")
    offset = len(MAGIC)
    prefix_end: int | None = None
    damage: list[Damage] = []
    unknown: list[UnknownRecord] = []
    torn: TornTail | None = None
    records: list[tuple[int, bytes]] = []  # (kind, payload) of the intact prefix
    while offset < len(data):
        found = _intact_at(data, offset)
        if isinstance(found, str):
            reason, resume = found, _next_intact(data, offset)
        else:
            end, body = found
            if body[0] == RecordKind.HEADER and (records or damage):
                reason, resume = "a second header record", end
            else:
                if body[0] not in _KIND_VALUES:
                    unknown.append(UnknownRecord(offset, body[0], len(body)))
                if damage:
                    _keep_after(damage[-1], body[0], body[1:])
                elif body[0] in _KIND_VALUES:
                    records.append((body[0], body[1:]))
                offset = end
                continue
        if prefix_end is None:
            prefix_end = offset
        if resume is None:  # nothing intact after it: what a crash leaves
            torn = TornTail(offset, reason, len(data) - offset)
            break
        damage.append(Damage(offset, resume, reason))
        offset = resume
    if not records and damage and damage[0].offset == len(MAGIC):
        # The header is lost but intact records follow: damage like any other
        # (the frames need no header; the other player's file can repair them).
        header = ReplayHeader(seat=UNKNOWN_SEAT, created="", software="")
        records.append((RecordKind.HEADER, b""))
    elif not records or records[0][0] != RecordKind.HEADER:
        raise ReplayFileError("the replay file has no header record")
    else:
        header = ReplayHeader.from_payload(records[0][1])
    contents = ReplayContents(header=header, torn=torn, damage=damage, unknown=unknown)
    for kind, payload in records[1:]:
        if kind == RecordKind.FRAME:
            contents.frames.append(payload)
        elif kind == RecordKind.EVIDENCE:
            contents.evidence.append(payload)
        elif kind == RecordKind.NOTE:
            note = _decode_note(payload)
            if note is not None:
                contents.notes.append((len(contents.frames), note))
    contents.valid_bytes = offset if prefix_end is None else prefix_end
    return contents


def _keep_after(damage: Damage, kind: int, payload: bytes) -> None:
    damage.records_after += 1
    if kind == RecordKind.FRAME:
        damage.frames_after.append(payload)
    elif kind == RecordKind.EVIDENCE:
        damage.evidence_after.append(payload)
    elif kind == RecordKind.NOTE:
        note = _decode_note(payload)
        if note is not None:
            damage.notes_after.append(note)


def _decode_note(payload: bytes) -> dict[str, Any] | None:
    try:
        note = msgpack.unpackb(payload, raw=False, strict_map_key=True)
    except Exception:
        return None  # a note is local, unsigned decoration: an unreadable one is skipped
    return note if isinstance(note, dict) else None


def read_replay(path: str | os.PathLike[str]) -> ReplayContents:
    """Read a replay file (a torn tail is reported in ``torn``, not raised)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ReplayFileError(f"no such replay file: {path}") from None
    except IsADirectoryError:
        raise ReplayFileError(f"{path} is a directory, not a replay file") from None
    except PermissionError:
        raise ReplayFileError(f"no permission to read {path}") from None
    return parse_replay(data)


def refuse_damaged(path: str | os.PathLike[str], contents: ReplayContents) -> None:
    """Raise if ``contents`` is damaged (not merely torn): it must not be continued."""
    if not contents.damage:
        return
    raise ReplayFileError(
        f"{path} is {contents.describe_damage()}. Resuming would cut the file at byte "
        f"{contents.damage[0].offset} and lose them, so it is left untouched. The other "
        f"player's file of this match can repair it: lcnet audit {path} OTHER-FILE"
    )


def _fsync_dir(path: Path) -> None:
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
        writer._write(MAGIC + _record(RecordKind.HEADER, header.to_payload()))
        _fsync_dir(p.parent)
        return writer

    @classmethod
    def reopen(cls, path: str | os.PathLike[str]) -> tuple[ReplayWriter, ReplayContents]:
        """Open an existing file to continue it, truncating a torn tail first.

        A damaged file (bad bytes with intact records after them) is refused
        and left untouched: truncating it would destroy those records.
        """
        p = Path(path)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_APPEND)
        except FileNotFoundError:
            raise ReplayFileError(f"no such replay file: {p}") from None
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
            data += _record(RecordKind.EVIDENCE, evidence)
        if received is not None:
            data += _record(RecordKind.FRAME, received)
            if note is not None:
                data += _record(RecordKind.NOTE, msgpack.packb(dict(note), use_bin_type=True))
        for frame in sent:
            data += _record(RecordKind.FRAME, frame)
        if data:
            self._write(data, sync=bool(sent))
            self.frames_written += (received is not None) + len(sent)

    def append_frame(self, frame: bytes, note: Mapping[str, Any] | None = None) -> None:
        """Append a transcript frame durably (call before sending it).

        A ``note`` (local annotations such as the receive time) goes in the
        same write, right after the frame.
        """
        data = _record(RecordKind.FRAME, frame)
        if note is not None:
            data += _record(RecordKind.NOTE, msgpack.packb(dict(note), use_bin_type=True))
        self._write(data)
        self.frames_written += 1

    def append_evidence(self, frame: bytes) -> None:
        self._write(_record(RecordKind.EVIDENCE, frame))

    def append_note(self, note: Mapping[str, Any]) -> None:
        self._write(_record(RecordKind.NOTE, msgpack.packb(dict(note), use_bin_type=True)))

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
        data = b"".join(_record(RecordKind.EVIDENCE, e) for e in evidence)
        data += b"".join(_record(RecordKind.FRAME, f) for f in frames)
        writer._write(data)
        writer.frames_written = len(frames)
    finally:
        writer.close()
    return writer.path


def in_use(path: str | os.PathLike[str]) -> bool:
    """Whether an lcnet program is writing this replay file right now."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


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
    _fsync_dir(path.parent)
    return path


def read_secret(replay_path: str | os.PathLike[str]) -> dict[str, Any]:
    path = secret_path(replay_path)
    try:
        mode = path.stat().st_mode & 0o777
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReplayFileError(
            f"the private side file {path} is missing: this match cannot be resumed "
            "from here (it was started elsewhere, or it is already over)"
        ) from None
    except OSError as exc:
        raise ReplayFileError(f"cannot read the side file {path}: {exc.strerror}") from None
    if mode & 0o077:
        raise ReplayFileError(
            f"{path} is readable by others (mode {mode:o}); run: chmod 600 {path}"
        )
    try:
        secrets = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception:
        secrets = None
    if not isinstance(secrets, dict):
        raise ReplayFileError(f"the private side file {path} is damaged")
    return secrets


def delete_secret(replay_path: str | os.PathLike[str]) -> None:
    """Remove the side file once the match is over (its secrets are then public)."""
    secret_path(replay_path).unlink(missing_ok=True)
