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
*before* the frame is sent (:mod:`lcnet.store.writer`): the file is the
source of truth. A crash can only tear the last record; the reader keeps the
valid prefix and says where it stopped.

A bad record followed by records shown to be this file's is not a torn tail
but *damage* (a flipped bit on a disk, a bad copy): the reader finds the
resynchronisation point (where intact records run to the end of the file and
their frames chain), keeps what follows (``damage``: one span, however many
bad places it covers), and the writer's ``reopen`` refuses such a file rather than
truncate those records. Bytes a player chose (a seed, an unknown field of a
newer minor version) sit inside frames, so the scan must not take a record
hidden there for one of the file's: see :func:`parse_replay`. A record whose
checksum holds but whose kind this reader does not know is skipped and
listed in ``unknown`` (a later minor version may add kinds).

"""

from __future__ import annotations

import array
import enum
import os
import re
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgpack

from lcnet.errors import ExitCode, UserError
from lcnet.invocation import command
from lcnet.textsafe import shown

MAGIC: Final = b"\x89LCNET\r\n"
"""8 bytes; the high byte and CR-LF catch files mangled by text-mode transfers."""

FORMAT_NAME: Final = "lcnet-replay"
FORMAT_VERSION: Final = (1, 0)
"""(major, minor): readers reject another major; a minor only adds optional fields."""

MAX_RECORD_BYTES: Final = 1 << 16
"""A frame is at most 4 KiB (see wire.MAX_FRAME_BYTES) and a note far less;
64 KiB bounds what a reader allocates for one record of a damaged file."""

MAX_FILE_BYTES: Final = 32 << 20
"""The largest file a reader reads (32 MiB). A 20-round match with 6 suits
is far below 2 MiB (a 3-round match is about 100 KiB); the bound keeps what
a reader holds in memory, and the work of the damage scan, small on a file
someone else made."""

RECORD_OVERHEAD: Final = 9
"""Length (4) + kind (1) + CRC (4) bytes around each payload."""


class RecordKind(enum.IntEnum):
    HEADER = 0
    FRAME = 1
    NOTE = 2
    EVIDENCE = 3


_KIND_VALUES: Final = frozenset(int(k) for k in RecordKind)


UNKNOWN_SEAT: Final = "unknown"
"""The seat of a file whose header record is damaged."""


class ReplayFileError(UserError):
    """A file that is not a readable lcnet replay file (``lcnet audit``: like DAMAGED)."""

    exit_code = ExitCode.USAGE


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
    """Where reading stopped early, and why: a record cut off by the end of
    the file (what a crash while writing leaves), or a bad record after which
    nothing is shown to be records of this file; after a damage, the cut-off
    last record of the records read after it."""

    offset: int
    """Where the torn bytes start (the file is whole up to here)."""
    reason: str
    trailing: int = 0
    """How many bytes follow ``offset`` (the torn bytes)."""


@dataclass
class Damage:
    """The damaged span of a file: records shown to be the file's follow it.

    A crash cannot leave this (it only tears the last record): a byte was
    changed on disk or in a copy. What follows the damage is kept. A file has
    at most one damaged span: several bad places make one span from the
    first bad record to the resynchronisation point (PROTOCOL §7.2).
    """

    offset: int
    """Where the first bad record starts."""
    resumes_at: int
    """The resynchronisation point (the bad bytes are ``offset`` … ``resumes_at - 1``);
    the end of the file when the scan's budget ran out before one was shown."""
    reason: str
    records_after: int = 0
    """Intact records from ``resumes_at`` to the end (a torn tail is in ``torn``)."""
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
    before the damage (or the torn tail). What follows the damage is in that
    :class:`Damage` (``damage`` holds at most one).
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
        """One line: where the damaged span is and how much intact data follows it."""
        (span,) = self.damage
        return (
            f"damaged at bytes {span.offset}-{span.resumes_at - 1} ({span.reason}), "
            f"with {span.records_after} intact records after the damage "
            f"({len(span.frames_after)} frames): not a torn tail, which a crash leaves only "
            "at the end"
        )


def encode_record(kind: RecordKind, payload: bytes) -> bytes:
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


def _cut_off(data: bytes, offset: int) -> str | None:
    """Why the bytes from ``offset`` on are a record cut off by the end of the
    file (fewer than 4 bytes, or a possible length running past the end), if
    they are: such bytes may all be that record's own payload."""
    if len(data) - offset < 4:
        return "a record length is cut off"
    length = int.from_bytes(data[offset : offset + 4], "big")
    if 1 <= length <= MAX_RECORD_BYTES and offset + length + RECORD_OVERHEAD - 1 > len(data):
        return "the last record is cut off"
    return None


def _is_start(data: bytes, offset: int) -> bool:
    """Whether a record with a possible length, that fits in the file and is no
    HEADER record, starts at ``offset``."""
    length = int.from_bytes(data[offset : offset + 4], "big")
    return (
        len(data) - offset >= 4
        and 0 < length <= MAX_RECORD_BYTES
        and offset + length + RECORD_OVERHEAD - 1 <= len(data)
        and data[offset + 4] != RecordKind.HEADER
    )


def scan_budget(size: int) -> int:
    """Checksum bytes the damage scan of a ``size``-byte file may charge (PROTOCOL §7.2).

    The records after a damage are checked once (at most ``size`` bytes); the
    rest is room for look-alike records, which cost their length each (a
    4 KiB frame field full of planted lengths pointing at the end of its own
    record costs at most about 3.3 MiB). zlib checksums about 4 GB/s here:
    the whole budget of a 32 MiB file is about 0.13 s of it.
    """
    return 16 * size + (16 << 20)


_CANDIDATE: Final = re.compile(rb"\x00(?=\x00(?!\x00\x00)..[^\x00]|\x01\x00\x00[^\x00])", re.DOTALL)
"""Where a record can start that is no HEADER: a length of 1 … 65536 (00 00 xx xx,
not 00 00 00 00, or 00 01 00 00) and a kind byte other than 0. Consuming the
first zero byte lets the regex engine search for it at C speed; the next
search starts one byte on, so overlapping candidates are all found."""

_ZERO_RUN: Final = bytes(64)
_ZERO_CHUNK: Final = bytes(1 << 16)


def _nonzero_from(data: bytes, pos: int) -> int | None:
    """Where the first non-zero byte at ``pos`` or later is: whole chunks of
    zeros are compared (memcmp speed), the first other one is searched."""
    size = len(_ZERO_CHUNK)
    while data.startswith(_ZERO_CHUNK, pos):
        pos += size
    chunk = data[pos : pos + size]
    rest = chunk.lstrip(b"\x00")
    return pos + len(chunk) - len(rest) if rest else None


def _candidates(data: bytes, pos: int) -> Iterator[int]:
    """The starts of :data:`_CANDIDATE` at ``pos`` or later, in order.

    Every candidate has a non-zero kind byte four bytes on, so none starts
    inside a run of zero bytes until four bytes before its end: runs of 64
    or more are stepped over at C speed. (The regular expression alone tries
    each byte of such a run, and a file of zeros is a cheap thing to plant:
    two seconds for 32 MiB here.) The starts found are the same.
    """
    while True:
        run = data.find(_ZERO_RUN, pos)
        if run < 0:
            yield from (match.start() for match in _CANDIDATE.finditer(data, pos))
            return
        # Before the run: its zero bytes would be the kind of any start within
        # four bytes of it, so a search that ends at the run misses none.
        yield from (match.start() for match in _CANDIDATE.finditer(data, pos, run))
        after = _nonzero_from(data, run)
        if after is None:
            return
        pos = max(run, after - 4)


_WHOLE: Final = 1
"""A good start whose run reaches the end of the file exactly."""
_TORN: Final = 2
"""A good start whose run ends in a record cut off by the end of the file."""
_BAD: Final = 3
"""No good start (its structure fails, a record is not intact, frames do not chain)."""
_ENDS_CUT_OFF: Final = 4
"""Its structure leads to a cut-off record; not checked further yet."""


class _OverBudget(Exception):
    pass


_FirstFrame = tuple[int, bytes | None] | None
"""(seq, prev) of the first FRAME record of a run, None if it has none."""


class _Scan:
    """The resynchronisation search after a bad record (PROTOCOL §7.2).

    A *start* is an offset where a record with a possible length, that fits
    in the file and is no HEADER record begins; from it, the lengths lead from
    record to record (its *structure*) until the end of the file exactly, a
    record cut off by the end of the file, or an offset where no record can
    start. A start is *good* when its structure ends at the end of the file or
    in a cut-off record, every record of it is intact, and its FRAME records
    decode and chain. Structure is decided before any checksum; a run is
    checked from its last record backwards, so a record's checksum is
    computed only when everything after it is good; every offset is judged
    once (memoised in ``state``). Checksums are charged against
    :func:`scan_budget`.
    """

    def __init__(self, data: bytes) -> None:
        from lcnet.protocol import wire  # only a damaged file needs the frame decoder

        self._decode = wire.decode_frame
        self._malformed = wire.MalformedFrame
        self.data = data
        self.view = memoryview(data)
        self.size = len(data)
        self.state = bytearray(len(data) + 1)
        self.state[len(data)] = _WHOLE
        self.first_frame: dict[int, _FirstFrame] = {len(data): None}
        """For each good start, (seq, prev) of the first FRAME record of its run."""
        self.budget = scan_budget(len(data))
        self.spent = 0

    def judge(self, start: int, *, cut_off_too: bool) -> int:
        """_WHOLE, _TORN, _BAD or (unless ``cut_off_too``) _ENDS_CUT_OFF for ``start``.

        Without ``cut_off_too`` a structure that ends in a cut-off record is
        only marked as such, and nothing of it is checked. (The search's first
        pass walks structures inline, the same way, for speed.)
        """
        data, size, state = self.data, self.size, self.state
        path: list[int] = []
        offset = start
        while True:
            known = state[offset]
            if known and (known != _ENDS_CUT_OFF or not cut_off_too):
                break
            if size - offset < 4:
                known = _ENDS_CUT_OFF
                break
            length = int.from_bytes(data[offset : offset + 4], "big")
            if 0 < length <= MAX_RECORD_BYTES:
                end = offset + length + RECORD_OVERHEAD - 1
                if end > size:
                    known = _ENDS_CUT_OFF  # the end of a run, no start
                    break
                if data[offset + 4] != RecordKind.HEADER:
                    path.append(offset)
                    offset = end
                    continue
            state[offset] = known = _BAD
            break
        if known == _BAD or (known == _ENDS_CUT_OFF and not cut_off_too):
            for p in path:
                state[p] = known
            return known
        return self.check(path, offset, known)

    def check(self, path: list[int], offset: int, known: int) -> int:
        """Check the records of ``path`` (a structure leading to ``offset``,
        which is good or the end of the file (``known``: _WHOLE or _TORN), or
        a cut-off record (_ENDS_CUT_OFF)), last first; mark and return what
        ``path[0]`` is."""
        state = self.state
        if known == _ENDS_CUT_OFF:
            known, following = _TORN, None
        else:
            following = self.first_frame[offset]
        for index in range(len(path) - 1, -1, -1):
            p = path[index]
            intact, following = self._record(p, following)
            if not intact:
                for q in path[: index + 1]:
                    state[q] = _BAD
                return _BAD
            state[p] = known
            self.first_frame[p] = following
        return known

    def _record(self, offset: int, following: _FirstFrame) -> tuple[bool, _FirstFrame]:
        """Whether the record at ``offset`` is intact and its frame (if it is a
        FRAME record) chains on to ``following``, the (seq, prev) of the first
        frame of the rest of the run; and the run's first frame from here."""
        data = self.data
        length = int.from_bytes(data[offset : offset + 4], "big")
        self.spent += length
        if self.spent > self.budget:
            raise _OverBudget
        end = offset + 4 + length
        if zlib.crc32(self.view[offset + 4 : end]) != int.from_bytes(data[end : end + 4], "big"):
            return False, None
        if data[offset + 4] != RecordKind.FRAME:
            return True, following
        raw = data[offset + 5 : end]
        try:
            frame = self._decode(raw, allow_unknown_fields=True)
        except self._malformed:
            return False, None
        if frame.seq is None:
            return False, None  # a control frame is never recorded
        if following is not None and (following[0] != frame.seq + 1 or following[1] != frame.hash):
            return False, None
        return True, (frame.seq, frame.prev)


_OVER_BUDGET: Final = -1


def _resynchronise(
    data: bytes, bad: int, own_end: int | None, *, whole_only: bool = False
) -> int | None:
    """The resynchronisation point after the bad record at ``bad``, None if there
    is none (a torn tail), or _OVER_BUDGET (PROTOCOL §7.2).

    First choice: a good start whose run reaches the end of the file exactly
    (the bad record's own end if it is one, else the earliest). Only if there
    is none: a good start whose run ends in a cut-off record (again the own
    end first, else the earliest). A length planted by a player can make a
    run "end cut off" anywhere within 64 KiB of the end of the file; a run
    that reaches the end exactly has to run through the genuine records.
    """
    scan = _Scan(data)
    state, size = scan.state, len(data)
    from_bytes = int.from_bytes
    own = own_end is not None and _is_start(data, own_end)
    cut_off = array.array("q")  # the starts whose structure ends cut off, in order
    try:
        if own:
            assert own_end is not None
            known = scan.judge(own_end, cut_off_too=False)
            if known == _WHOLE:
                return own_end
            own = known == _ENDS_CUT_OFF
        for start in _candidates(data, bad + 1):
            known = state[start]
            if not known:
                # judge(start, cut_off_too=False), inline: most candidates are look-alikes.
                offset = start + from_bytes(data[start : start + 4], "big") + RECORD_OVERHEAD - 1
                if offset > size:
                    continue  # cut off: no start
                path = [start]
                while True:
                    known = state[offset]
                    if known:
                        break
                    if size - offset < 4:
                        known = _ENDS_CUT_OFF
                        break
                    length = from_bytes(data[offset : offset + 4], "big")
                    if 0 < length <= MAX_RECORD_BYTES:
                        end = offset + length + RECORD_OVERHEAD - 1
                        if end > size:
                            known = _ENDS_CUT_OFF
                            break
                        if data[offset + 4]:  # no HEADER
                            path.append(offset)
                            offset = end
                            continue
                    state[offset] = known = _BAD
                    break
                if known in (_BAD, _ENDS_CUT_OFF):
                    for p in path:
                        state[p] = known
                else:
                    known = scan.check(path, offset, known)
            if known == _WHOLE:
                return start
            if known == _ENDS_CUT_OFF:
                cut_off.append(start)
        # No run reaches the end of the file exactly: the runs that end cut off.
        if whole_only:
            return None
        if own:
            assert own_end is not None
            if scan.judge(own_end, cut_off_too=True) == _TORN:
                return own_end
        for start in cut_off:
            known = state[start]
            if known == _ENDS_CUT_OFF:
                known = scan.judge(start, cut_off_too=True)
            if known == _TORN:
                return start
    except _OverBudget:
        return _OVER_BUDGET
    return None


def parse_replay(data: bytes) -> ReplayContents:
    """Parse replay-file bytes (PROTOCOL §7.2).

    The intact prefix goes in ``frames``/``notes``/``evidence``. At the first
    record that is not intact, at offset ``bad``:

    * a record cut off by the end of the file (fewer than 4 bytes left, or a
      possible length running past the end) is a torn tail, with no scan:
      every byte after ``bad`` may be that record's own payload, which a
      player may have chosen, so no record found in it can prove damage;
    * otherwise (an impossible length, a checksum that fails, a second
      HEADER record) the reader looks for a resynchronisation point ``c``:
      a start from which the records are intact all the way to the end of
      the file (the last may be cut off), none is a HEADER record, and
      their FRAME records decode and chain (each one's ``seq`` is one more
      than, and its ``prev`` the chain hash of, the FRAME before it in the
      run). The bad record's own end is tried first when it fits. If there
      is one, the file has ONE damaged span, ``bad`` … ``c - 1``, and
      reading goes on from ``c``; if there is none, it is a torn tail at
      ``bad``. A run that reaches the end of the file exactly is preferred
      to one that ends cut off. If the search exceeds its checksum budget
      (:func:`scan_budget`), the file is damaged from ``bad`` to its end.

    Why a record a player planted inside a frame field (a seed, an unknown
    field) does not steer this: it ends inside the record that holds it. For
    its run to reach the end of the file, the planted bytes would also have
    to end exactly where the holder ends, reproducing the holder's checksum
    over bytes that include its signature, and any frames in the run must
    chain onto the genuine frames after it, which quote the chain hash of
    the holder's frame, never of a part of it. A holder that is not itself
    bad is either read after the damage (the genuine start of its run comes
    first) or lies before a later bad place (a run from inside it would have
    to cover the damaged bytes); when the bad record fits, its own end is
    tried first. A planted length that runs past the end of the file can
    make a run "end cut off" anywhere in its last 64 KiB, so a run that
    reaches the end of the file exactly is preferred to any run that ends
    cut off. (CRC-32 is no MAC: a player who signs the holder could make a
    planted record reuse the holder's checksum. That matters only when the
    holder is itself bad and its own end is not tried first, and can only
    add NOTE, EVIDENCE or unknown records, or frames where no genuine frame
    follows them: docs/PROTOCOL.md §7.2.)

    Intact records of an unknown kind are skipped (``unknown``).
    """
    if len(data) > MAX_FILE_BYTES:
        raise ReplayFileError(_too_large(len(data)))
    if not data.startswith(MAGIC):
        if MAGIC.startswith(data):
            raise ReplayFileError("the replay file is empty or cut off before its header")
        raise ReplayFileError("not an lcnet replay file (bad magic bytes)")
    size = len(data)
    offset = len(MAGIC)
    damage: list[Damage] = []
    unknown: list[UnknownRecord] = []
    torn: TornTail | None = None
    records: list[tuple[int, bytes]] = []  # (kind, payload) of the intact prefix
    bad: int | None = None
    last = offset  # where the last record accepted starts
    while offset < size:
        found = _intact_at(data, offset)
        if not isinstance(found, str) and (found[1][0] != RecordKind.HEADER or not records):
            last = offset
            end, body = found
            if body[0] in _KIND_VALUES:
                records.append((body[0], body[1:]))
            else:
                unknown.append(UnknownRecord(offset, body[0], len(body)))
            offset = end
            continue
        bad = offset
        break
    if bad is not None:
        reason = "a second header record" if not isinstance(found, str) else found
        cut = _cut_off(data, bad)
        own_end: int | None = None
        if cut is None:
            length = int.from_bytes(data[bad : bad + 4], "big")
            if 1 <= length <= MAX_RECORD_BYTES:
                own_end = bad + length + RECORD_OVERHEAD - 1
        crashed = True  # whether a crash can have left what follows ``bad``
        if cut is not None:
            # What a crash leaves, unless a frame the file's owner signed for a
            # later position follows: a player's planted bytes cannot hold that.
            # Then the records after it are kept: from a run to the end of the
            # file that holds such a frame, or else damaged to the end.
            owner = _owner(records)
            resume = (
                _resynchronise(data, bad, None, whole_only=True) if _has_owner(records) else None
            )
            # Before the owner's key is known (no frame yet, or a host's file
            # with only the hello), the record at ``bad`` is one the owner wrote
            # of its own (its hello, or its note or welcome after the hello):
            # it holds no bytes the opponent chose, so a whole run after it can
            # only be this file's records. (A host's file cut in the hello
            # itself holds no match to resume.)
            if (
                resume is not None
                and owner is not None
                and owner[0] is not None
                and not _owner_went_on(data, resume, owner)
            ):
                resume = None
            if resume is None:
                # The owner's frame may start inside the record accepted last:
                # a byte deleted from the end of its checksum can leave one
                # that still matches (1 in 256), and the next record then
                # starts a byte before ``bad``. Only the owner signs such a
                # frame, so looking there proves nothing false; before its key
                # is known, only after ``bad``.
                known = owner is not None and owner[0] is not None
                crashed = not _has_owner(records) or not _owner_frame_anywhere(
                    data, last if known else bad, owner
                )
        else:
            resume = _resynchronise(data, bad, own_end)
            crashed = own_end == size or _nonzero_from(data, bad) is None
        if resume is None and crashed:
            # Nothing after it is shown to be records of this file, and what
            # is lost is at most the bad record (or zeros a file system left).
            torn = TornTail(bad, cut or reason, size - bad)
        elif resume is None:
            # Bytes follow that may be records, but none is shown to be: keep
            # them (damaged to the end), never truncate them as a torn tail.
            damage.append(
                Damage(
                    bad,
                    size,
                    f"{cut or reason}"
                    + (
                        ", yet a frame this file's owner signed later follows it (no crash "
                        "leaves that)"
                        if cut
                        else ""
                    )
                    + "; no run of records after it is shown to be this file's (none runs "
                    "intact to the end with its frames chaining)",
                )
            )
        elif resume == _OVER_BUDGET:
            damage.append(
                Damage(
                    bad,
                    size,
                    f"{reason}; no intact records could be shown to follow within the scan's "
                    f"budget ({scan_budget(size)} checksum bytes)",
                )
            )
        else:
            span = Damage(bad, resume, reason)
            damage.append(span)
            torn = _read_run(data, resume, span, unknown)
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
    contents.valid_bytes = size if bad is None else bad
    return contents


def _read_run(
    data: bytes, offset: int, damage: Damage, unknown: list[UnknownRecord]
) -> TornTail | None:
    """Keep the records of the run from ``offset`` (the scan showed it good)."""
    size = len(data)
    while size - offset >= 4:
        length = int.from_bytes(data[offset : offset + 4], "big")
        end = offset + length + RECORD_OVERHEAD - 1
        if end > size:
            break
        kind = data[offset + 4]
        if kind not in _KIND_VALUES:
            unknown.append(UnknownRecord(offset, kind, length))
        _keep_after(damage, kind, data[offset + 5 : end - 4])
        offset = end
    cut = _cut_off(data, offset) if offset < size else None
    return None if cut is None else TornTail(offset, cut, size - offset)


def _has_owner(records: Sequence[tuple[int, bytes]]) -> bool:
    """Whether the file has an owner for a cut-off record (PROTOCOL §7.2 step 1):
    a player's file does; a spectator's, or any other seat's, does not (every
    record of it may hold bytes a player chose, and its owner signs no frame)."""
    if not records or records[0][0] != RecordKind.HEADER:
        return True  # no header read: judged as before the owner's key is known
    try:
        return ReplayHeader.from_payload(records[0][1]).seat in ("host", "joiner")
    except ReplayFileError:
        return True


_Owner = tuple[bytes | None, bytes, int, bytes]
"""The file owner's key (None: a host file whose welcome is not read yet),
the game id, the number of frames read, and the chain hash of frame 0."""


def _owner(records: Sequence[tuple[int, bytes]]) -> _Owner | None:
    """Who owns the file, from the header's seat and the frames read (None if
    that is not known: no seat, or not even the hello)."""
    from lcnet.deck import hashing
    from lcnet.protocol import wire

    frames = [payload for kind, payload in records if kind == RecordKind.FRAME]
    if not records or records[0][0] != RecordKind.HEADER or not frames:
        return None
    try:
        seat = ReplayHeader.from_payload(records[0][1]).seat
        hello = wire.decode_frame(frames[0], allow_unknown_fields=True).message
        welcome = (
            wire.decode_frame(frames[1], allow_unknown_fields=True).message
            if len(frames) > 1
            else None
        )
    except (ReplayFileError, wire.MalformedFrame):
        return None
    if not isinstance(hello, wire.Hello):
        return None
    game, first = hashing.game_id(frames[0]), hashing.chain_hash(frames[0])
    if seat == "joiner":
        return hello.key, game, len(frames), first
    if seat != "host":
        return None
    if welcome is None:
        return None, game, len(frames), first
    return (welcome.key, game, len(frames), first) if isinstance(welcome, wire.Welcome) else None


def _owners_later_frame(raw: bytes, owner: _Owner) -> bool:
    """Whether ``raw`` is a frame of this game that the owner signed for a
    position after the frames read before the bad record.

    A host file cut before its welcome: the welcome itself, naming frame 0
    as its ``prev`` and verified by the key it introduces. No bytes a player
    chose can be it: the only such bytes before it are the joiner's hello,
    whose chain hash that welcome quotes."""
    from lcnet.protocol import wire

    key, game, count, first = owner
    try:
        frame = wire.decode_frame(raw, allow_unknown_fields=True)
    except wire.MalformedFrame:
        return False
    if frame.seq is None or frame.seq < count or frame.game != game:
        return False
    if key is None:
        message = frame.message
        return (
            isinstance(message, wire.Welcome)
            and frame.seq == 1
            and frame.prev == first
            and frame.signed_by(message.key)
        )
    return frame.signed_by(key)


def _owner_went_on(data: bytes, start: int, owner: _Owner) -> bool:
    """Whether the run from ``start`` holds a frame the owner signed later.

    A record cut off by the end of the file may hold a player's planted
    records, even a whole chained run of frames; but the owner signs a frame
    for a later position only after it wrote that record, so no bytes inside
    it can be such a frame (PROTOCOL §7.2)."""
    run = Damage(start, start, "")
    _read_run(data, start, run, [])
    return any(_owners_later_frame(raw, owner) for raw in run.frames_after)


def _owner_frame_anywhere(data: bytes, after: int, owner: _Owner | None) -> bool:
    """Whether an intact FRAME record starting after ``after`` holds a frame
    the owner signed later (within the scan's checksum budget). Before the
    owner's key is known, the record at ``bad`` is the owner's own (see
    parse_replay), so any intact record holding a transcript frame after it
    shows no crash."""
    budget = scan_budget(len(data))
    for start in _candidates(data, after + 1):
        if data[start + 4] != RecordKind.FRAME:
            continue
        found = _intact_at(data, start)
        if isinstance(found, str):
            continue
        budget -= found[0] - start
        if budget < 0:
            return False
        if owner is None or owner[0] is None:
            if _is_transcript_frame(found[1][1:]):
                return True
        elif _owners_later_frame(found[1][1:], owner):
            return True
    return False


def _is_transcript_frame(raw: bytes) -> bool:
    from lcnet.protocol import wire

    try:
        return wire.decode_frame(raw, allow_unknown_fields=True).seq is not None
    except wire.MalformedFrame:
        return False


def _too_large(size: int) -> str:
    return (
        f"the file is {size} bytes, more than the {MAX_FILE_BYTES} bytes "
        f"({MAX_FILE_BYTES >> 20} MiB) a replay file may have; it is not read"
    )


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
    """Read a replay file (a torn tail is reported in ``torn``, not raised).

    Only a regular file is read, never by a call that can block, and a file
    larger than :data:`MAX_FILE_BYTES` is refused before it is read
    (:mod:`lcnet.store.safeopen`); every error names the file escaped.
    """
    from lcnet.store.safeopen import FileRefused, read_regular

    try:
        data = read_regular(path, limit=MAX_FILE_BYTES, what="replay file")
    except FileRefused as exc:
        raise ReplayFileError(str(exc)) from None
    return parse_replay(data)


def refuse_damaged(path: str | os.PathLike[str], contents: ReplayContents) -> None:
    """Raise if ``contents`` is damaged (not merely torn): it must not be continued."""
    if not contents.damage:
        return
    name = shown(os.fsdecode(path))
    raise ReplayFileError(
        f"{name} is {contents.describe_damage()}. Resuming would cut the file at byte "
        f"{contents.damage[0].offset} and lose them, so it is left untouched. The other "
        f"player's file of this match can repair it: {command()} audit {name} OTHER-FILE"
    )
