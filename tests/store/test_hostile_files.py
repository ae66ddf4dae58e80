"""Hostile files in the replays folder, against every reader of it.

A stranger who can write to a replay folder (a shared directory, an unpacked
archive, a copied USB stick) has these powers: FIFOs, sockets and
directories named ``*.lcnet``; links to /dev/zero, /dev/null, to nothing, to
themselves; sparse files of any size (they cost no disk); real replays cut,
torn, bit-flipped; well-framed records whose unsigned header fields and
notes are full of control characters; and file names with ESC, BEL, CR,
newline and bytes that are not UTF-8. The generator here makes such a folder
from a seed, beside honest files, and runs every reader on it as a child
process (``python -m lcnet``, the folder as ``replays/`` of its working
directory, its own LCNET_HOME) under a memory limit (RLIMIT_AS) and a
wall-clock timeout.

The property, for every command and every file: it ends within the timeout,
without a traceback or a signal, inside the memory limit; nothing it prints
holds a raw control character (the output is a pipe and NO_COLOR is set, so
lcnet emits no styling of its own: every line must be printable); a file
that is not a regular file, or is too large, is a clear error with exit
status 2 (``ExitCode.USAGE``) for a command that names it; and the honest
files are listed exactly as they are in a folder of their own.

A small seeded run is here; ``python bench/hostile_files.py`` is the long run.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgpack
import pytest

from lcnet.errors import ExitCode
from lcnet.store.replayfile import (
    MAGIC,
    MAX_FILE_BYTES,
    RecordKind,
    ReplayHeader,
    encode_record,
    read_replay,
)
from lcnet.store.writer import write_secret

ROOT: Final = Path(__file__).resolve().parents[2]
SAMPLES: Final = ROOT / "replays"
HONEST: Final = ("sample-complete-host.lcnet", "sample-incomplete-joiner.lcnet")
"""Honest files put beside the hostile ones: they must be listed as before."""
DONORS: Final = (
    "sample-complete-host.lcnet",
    "sample-complete-joiner.lcnet",
    "sample-cheated-host.lcnet",
    "sample-damaged-host.lcnet",
    "sample-incomplete-joiner.lcnet",
    "sample-planted-evidence-host.lcnet",
)
"""Real files the generator cuts, tears and flips bits in."""

MEMORY_LIMIT: Final = 512 << 20
"""RLIMIT_AS of each child: lcnet needs about 40 MiB resident, and a file at
MAX_FILE_BYTES (32 MiB) is read once and scanned with one byte of state a byte."""
TIMEOUT: Final = 60.0
"""Seconds a command may take before it counts as a hang (it takes about one)."""
HUGE: Final = 4 << 30
"""A sparse file of 4 GiB: no disk, but read whole it is a MemoryError."""

CONTROL_TEXTS: Final = (
    "\x1b[2J\x1b[H",  # clear the screen
    "\x1b]0;owned\x07",  # set the terminal's title
    "\x07",  # bell
    "\r",  # back to the start of the line: overwrite what was shown
    "\x08\x08\x08",  # backspaces
    "\x1b[31mred",  # colour
    "\u202eevil",  # right-to-left override
    "\x9b2J",  # the 8-bit CSI
    "\x00",
    "\x7f",
    "\n",
)
"""Texts a stranger puts where lcnet shows text: each must come out escaped."""

NAME_PARTS: Final = (
    b"\x1b[2J",
    b"\x07",
    b"\r",
    b"\n",
    b"\xff\xfe",  # not UTF-8
    b"\x9b",  # the 8-bit CSI, and not UTF-8
    "\u202e".encode(),
    "\x9b".encode(),  # the 8-bit CSI as valid UTF-8
    b"\x1b]0;owned\x07",
    b"ok",
)
"""Pieces of hostile file names (never a slash or a NUL: a name cannot hold them)."""


# ------------------------------------------------------------------ the generator


@dataclass(frozen=True)
class Entry:
    """One entry made in the folder."""

    name: bytes
    kind: str
    regular: bool
    """Whether it is a regular file of at most MAX_FILE_BYTES (a reader may read it)."""


def _sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def _header(rng: random.Random) -> ReplayHeader:
    """A header whose every unsigned field carries control characters."""

    def text(prefix: str = "") -> str:
        return prefix + "".join(rng.choice(CONTROL_TEXTS) for _ in range(rng.randint(1, 4)))

    created = rng.choice(
        [text(), "2026-12-01T" + text(), text("2026-12-01T20:00") + "Z", "x" * 5000 + text()]
    )
    seat = rng.choice(["host", "joiner", text(), text("host")])
    extra: dict[str, Any] = {text(): text() for _ in range(rng.randint(0, 3))}
    if rng.random() < 0.5:
        extra["bot"] = text()
    if rng.random() < 0.5:
        extra["opponent_bot"] = text()
    return ReplayHeader(seat=seat, created=created, software=text("lcnet "), extra=extra)


def _framed(rng: random.Random, *, frames: bool, notes: bool) -> bytes:
    """A well-framed file: a hostile header, maybe a real match's frames, maybe
    notes and records of an unknown kind full of control characters."""
    data = MAGIC + encode_record(RecordKind.HEADER, _header(rng).to_payload())
    if frames:
        donor = read_replay(SAMPLES / rng.choice(HONEST))
        data += b"".join(encode_record(RecordKind.FRAME, raw) for raw in donor.frames)
    if notes:
        for _ in range(rng.randint(1, 5)):
            note = {rng.choice(CONTROL_TEXTS): rng.choice(CONTROL_TEXTS) for _ in range(3)}
            data += encode_record(RecordKind.NOTE, msgpack.packb(note, use_bin_type=True))
        body = bytes([0x7A]) + rng.choice(CONTROL_TEXTS).encode()  # a kind no reader knows
        data += len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
    return data


def _flipped(rng: random.Random) -> bytes:
    data = bytearray(_sample(rng.choice(DONORS)))
    for _ in range(rng.choice([1, 2, 8, 64])):
        bit = rng.randrange(len(data) * 8)
        data[bit // 8] ^= 1 << (bit % 8)
    return bytes(data)


def _cut(rng: random.Random) -> bytes:
    data = _sample(rng.choice(DONORS))
    return data[: rng.randrange(len(data))]


def _torn(rng: random.Random) -> bytes:
    data = _sample(rng.choice(DONORS))
    cut = rng.randrange(len(MAGIC), len(data))
    return data[:cut] + rng.randbytes(rng.randint(1, 200)) + data[cut + rng.randint(0, 300) :]


def _write(path: bytes, data: bytes) -> None:
    with open(path, "wb") as stream:
        stream.write(data)


def _sparse(path: bytes, size: int, head: bytes = b"") -> None:
    with open(path, "wb") as stream:
        stream.write(head)
        stream.truncate(size)


def _unix_socket(path: bytes) -> None:
    # An AF_UNIX path holds at most 107 bytes: bind through the folder's descriptor.
    folder = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.bind(b"/proc/self/fd/%d/%s" % (folder, os.path.basename(path)))
    finally:
        os.close(folder)  # the socket file stays


def _link_to_fifo(path: bytes) -> None:
    os.mkfifo(path + b".target")
    os.symlink(os.path.basename(path) + b".target", path)


def _magic_then_zeros(path: bytes, rng: random.Random) -> None:
    head = MAGIC + encode_record(RecordKind.HEADER, _header(rng).to_payload())
    _sparse(path, MAX_FILE_BYTES, head)


Maker = Callable[[bytes, bytes, random.Random], None]
"""Makes the entry at a path (bytes), given the folder (bytes) and the generator."""

KINDS: Final[dict[str, tuple[bool, Maker]]] = {
    # kind: (a regular file a reader may read, how to make it)
    "fifo": (False, lambda p, d, r: os.mkfifo(p)),
    "socket": (False, lambda p, d, r: _unix_socket(p)),
    "directory": (False, lambda p, d, r: os.mkdir(p)),
    "link to /dev/zero": (False, lambda p, d, r: os.symlink(b"/dev/zero", p)),
    "link to /dev/null": (False, lambda p, d, r: os.symlink(b"/dev/null", p)),
    "link to nothing": (False, lambda p, d, r: os.symlink(b"no-such-target", p)),
    "link to itself": (False, lambda p, d, r: os.symlink(os.path.basename(p), p)),
    "link to the folder": (False, lambda p, d, r: os.symlink(b".", p)),
    "link to a fifo": (False, lambda p, d, r: _link_to_fifo(p)),
    "sparse 4 GiB": (False, lambda p, d, r: _sparse(p, HUGE)),
    "sparse one byte over the limit": (False, lambda p, d, r: _sparse(p, MAX_FILE_BYTES + 1)),
    "sparse at the limit": (True, lambda p, d, r: _sparse(p, MAX_FILE_BYTES)),
    "header then zeros to the limit": (True, lambda p, d, r: _magic_then_zeros(p, r)),
    "empty": (True, lambda p, d, r: _write(p, b"")),
    "random bytes": (True, lambda p, d, r: _write(p, r.randbytes(r.randint(1, 4096)))),
    "cut replay": (True, lambda p, d, r: _write(p, _cut(r))),
    "torn replay": (True, lambda p, d, r: _write(p, _torn(r))),
    "bit-flipped replay": (True, lambda p, d, r: _write(p, _flipped(r))),
    "control characters in the header": (
        True,
        lambda p, d, r: _write(p, _framed(r, frames=False, notes=False)),
    ),
    "control characters in the header of a real match": (
        True,
        lambda p, d, r: _write(p, _framed(r, frames=True, notes=r.random() < 0.5)),
    ),
    "control characters in notes": (
        True,
        lambda p, d, r: _write(p, _framed(r, frames=r.random() < 0.5, notes=True)),
    ),
    "link to an honest file": (True, lambda p, d, r: os.symlink(HONEST[0].encode(), p)),
}


def hostile_name(rng: random.Random, index: int) -> bytes:
    """A file name ending in ``.lcnet`` with control characters and bytes that are not UTF-8."""
    parts = b"".join(rng.choice(NAME_PARTS) for _ in range(rng.randint(0, 3)))
    name = b"h%03d-" % index + parts + b".lcnet"
    if rng.random() < 0.15:  # as long as a name may be: NAME.secret is then too long
        name = name[:-6] + b"x" * (255 - len(name)) + b".lcnet"
    return name


def make_folder(folder: Path, rng: random.Random, count: int | None = None) -> list[Entry]:
    """The honest files, and hostile entries: every kind once (``count`` None),
    or ``count`` entries of kinds drawn at random."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in HONEST:
        shutil.copy(SAMPLES / name, folder / name)
    kinds = list(KINDS) if count is None else [rng.choice(list(KINDS)) for _ in range(count)]
    entries = []
    where = os.fsencode(folder)
    for index, kind in enumerate(kinds):
        name = hostile_name(rng, index)
        regular, make = KINDS[kind]
        make(os.path.join(where, name), where, rng)
        entries.append(Entry(name, kind, regular))
    return entries


# ------------------------------------------------------------------ the runner


@dataclass
class Outcome:
    """One command's run."""

    args: list[str]
    code: int | None
    """The exit status; None if it was killed at the timeout; negative: a signal."""
    out: bytes
    err: bytes
    max_rss: int
    """Its peak resident memory, in bytes."""

    @property
    def hung(self) -> bool:
        return self.code is None

    @property
    def traceback(self) -> bool:
        return b"Traceback (most recent call last)" in self.err or (
            self.code is not None and self.code < 0
        )

    @property
    def unescaped(self) -> list[str]:
        """Lines of its output (stdout and stderr) that hold a raw control character."""
        return [
            repr(line)
            for stream in (self.out, self.err)
            for line in stream.decode("utf-8", errors="replace").split("\n")
            if not line.isprintable() or "\ufffd" in line
        ]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_lcnet(args: Sequence[str | bytes], workdir: Path, timeout: float = TIMEOUT) -> Outcome:
    """``python -m lcnet ARGS`` in ``workdir`` (its ``replays/`` is the folder,
    ``home/`` its LCNET_HOME), output to a pipe, under the memory limit; killed
    (its whole process group, by its id) after ``timeout`` seconds."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key in ("PATH", "LANG", "LC_ALL", "PYTHONPYCACHEPREFIX", "TMPDIR")
    }
    env.update(
        LCNET_HOME=str(workdir / "home"),
        NO_COLOR="1",
        PYTHONPATH=str(ROOT),
        TERM="dumb",
    )
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "lcnet", *args],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            preexec_fn=_limit_memory,
            start_new_session=True,
        )
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        shown_args = [os.fsdecode(a) for a in args]
        code = None if killed.is_set() else proc.returncode
        return Outcome(shown_args, code, out.read(), err.read(), usage.ru_maxrss * 1024)


@dataclass
class Tally:
    """What a run of the generator found."""

    files: int = 0
    commands: int = 0
    hangs: list[Outcome] = field(default_factory=list)
    tracebacks: list[Outcome] = field(default_factory=list)
    unescaped: list[Outcome] = field(default_factory=list)
    wrong_status: list[Outcome] = field(default_factory=list)
    honest_changed: list[str] = field(default_factory=list)
    max_rss: int = 0

    def judge(self, outcome: Outcome, *, refused: bool = False) -> None:
        """Count ``outcome``; ``refused``: the command names a file that must be
        refused with ExitCode.USAGE (not a regular file, or too large)."""
        self.commands += 1
        self.max_rss = max(self.max_rss, outcome.max_rss)
        if outcome.hung:
            self.hangs.append(outcome)
        elif outcome.traceback:
            self.tracebacks.append(outcome)
        if outcome.unescaped:
            self.unescaped.append(outcome)
        if refused and not outcome.hung and outcome.code != ExitCode.USAGE:
            self.wrong_status.append(outcome)

    @property
    def failures(self) -> list[str]:
        def say(what: str, outcome: Outcome) -> str:
            return (
                f"{what}: lcnet {outcome.args!r} (exit {outcome.code}) "
                f"{outcome.err[-400:]!r} {outcome.unescaped[:2]}"
            )

        return [
            *(say("hang", o) for o in self.hangs),
            *(say("traceback", o) for o in self.tracebacks),
            *(say("unescaped output", o) for o in self.unescaped),
            *(say("not refused with status 2", o) for o in self.wrong_status),
            *self.honest_changed,
        ]


def honest_listing(workdir: Path) -> dict[str, Any]:
    """How ``lcnet history --json`` lists the honest files alone (in a folder of their own)."""
    alone = workdir / "honest-alone"
    (alone / "replays").mkdir(parents=True)
    for name in HONEST:
        shutil.copy(SAMPLES / name, alone / "replays" / name)
    outcome = run_lcnet(["history", "--json"], alone)
    assert outcome.code == 0, outcome.err
    return _by_name(outcome.out)


def _by_name(out: bytes) -> dict[str, Any]:
    listed = json.loads(out)["matches"]
    # Not whether it counts: of two files of the same match and seat (a hostile
    # copy of an honest file), the one whose unsigned header says it is older
    # counts, and the other is listed as its copy; the match counts once.
    keep = ("verdict", "summary", "result", "score", "seat", "opponent", "created")
    return {
        Path(m["path"]).name: {k: m[k] for k in keep}
        for m in listed
        if Path(m["path"]).name in HONEST
    }


def commands_for(entry: Entry) -> list[tuple[list[str | bytes], bool]]:
    """Every command that names the entry, and whether it must be refused."""
    path = b"replays/" + entry.name
    other = f"replays/{HONEST[0]}"
    refused = not entry.regular
    out: list[tuple[list[str | bytes], bool]] = [
        (["audit", path], refused),
        (["audit", "--json", path], refused),
        (["audit", path, other], refused),
        (["audit", other, path], refused),
        (["replay", "--text", path], refused),
        (["replay", "--analyze", "--deals", "1", path], refused),
    ]
    if refused:
        out.append((["resume", path], True))  # refused before anything else is read
    return out


FOLDER_COMMANDS: Final[tuple[tuple[str, ...], ...]] = (
    ("history",),
    ("history", "--json"),
    ("resume",),
    ("history",),  # again: the verdicts now come from the cache
)


def attack(
    workdir: Path,
    rng: random.Random,
    tally: Tally,
    *,
    count: int | None = None,
    per_file: int | None = None,
    expected: dict[str, Any] | None = None,
    jobs: int = 1,
) -> None:
    """Make a hostile folder in ``workdir/replays`` and run every reader on it.

    ``per_file``: how many of each entry's commands to run (drawn at random;
    None: all of them). ``expected``: the honest files' listing alone.
    ``jobs``: commands that name one file run that many at a time (the folder's
    commands one after the other, as they share LCNET_HOME's cache).
    """
    entries = make_folder(workdir / "replays", rng, count)
    tally.files += len(entries) + len(HONEST)
    for args in FOLDER_COMMANDS:
        outcome = run_lcnet(list(args), workdir)
        tally.judge(outcome)
        if args == ("history", "--json") and expected is not None and outcome.code == 0:
            seen = _by_name(outcome.out)
            if seen != expected:
                tally.honest_changed.append(f"honest files listed as {seen}, not {expected}")
    planned = []
    for entry in entries:
        commands = commands_for(entry)
        if per_file is not None:
            commands = rng.sample(commands, min(per_file, len(commands)))
        planned.extend(commands)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = pool.map(lambda command: run_lcnet(command[0], workdir), planned)
        for (_, refused), outcome in zip(planned, outcomes, strict=True):
            tally.judge(outcome, refused=refused)


# ------------------------------------------------------------------ tests


@pytest.mark.net
def test_a_seeded_hostile_folder_neither_hangs_nor_crashes_nor_fools_any_reader(
    tmp_path: Path,
) -> None:
    tally = Tally()
    expected = honest_listing(tmp_path)
    attack(tmp_path / "run", random.Random(56), tally, per_file=1, expected=expected)
    assert tally.commands >= len(KINDS) + len(FOLDER_COMMANDS)
    assert tally.failures == []


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "replays").mkdir()
    yield tmp_path


@pytest.mark.slow
def test_a_fifo_in_the_folder_is_listed_as_such_and_history_goes_on(folder: Path) -> None:
    os.mkfifo(folder / "replays" / "x.lcnet")
    shutil.copy(SAMPLES / HONEST[0], folder / "replays" / HONEST[0])
    outcome = run_lcnet(["history"], folder, timeout=30)
    assert outcome.code == 0, outcome.err
    assert b"x.lcnet: a FIFO (named pipe), not a regular file: not read" in outcome.out
    assert HONEST[0].encode() in outcome.out and b"valid" in outcome.out


@pytest.mark.slow
def test_a_sparse_huge_file_is_refused_before_it_is_read(folder: Path) -> None:
    _sparse(os.fsencode(folder / "replays" / "big.lcnet"), HUGE)
    listing = run_lcnet(["history"], folder)
    assert listing.code == 0 and not listing.traceback, listing.err
    assert b"big.lcnet: 4294967296 bytes, more than the" in listing.out
    audit = run_lcnet(["audit", "replays/big.lcnet"], folder)
    assert audit.code == ExitCode.USAGE and not audit.traceback
    assert b"4294967296 bytes, more than the 33554432 bytes a replay file may have" in audit.err


@pytest.mark.slow
def test_a_link_to_dev_zero_is_refused_by_every_command_that_names_it(folder: Path) -> None:
    os.symlink("/dev/zero", folder / "replays" / "z.lcnet")
    for args in (["audit", "replays/z.lcnet"], ["replay", "--text", "replays/z.lcnet"]):
        outcome = run_lcnet(args, folder)
        assert outcome.code == ExitCode.USAGE and not outcome.traceback, outcome.err
        assert b"z.lcnet is a character device, not a regular file: not read" in outcome.err


@pytest.mark.slow
def test_a_file_name_and_a_header_reach_the_terminal_escaped(folder: Path) -> None:
    header = ReplayHeader(
        seat="host", created="2026-12-01T\x1b[2J\x07\rZ", software="\x1b]0;owned\x07"
    )
    donor = read_replay(SAMPLES / HONEST[0])
    data = MAGIC + encode_record(RecordKind.HEADER, header.to_payload())
    data += b"".join(encode_record(RecordKind.FRAME, raw) for raw in donor.frames)
    name = b"evil\x1b[31m\x07\r\n\xff.lcnet"
    _write(os.path.join(os.fsencode(folder / "replays"), name), data)
    os.mkfifo(os.path.join(os.fsencode(folder / "replays"), b"fifo\x1b[2J.lcnet"))
    for args in (["history"], ["history", "--json"], ["resume"], ["audit", b"replays/" + name]):
        outcome = run_lcnet(args, folder)
        assert outcome.code in (0, 2) and not outcome.traceback, outcome.err
        assert outcome.unescaped == [], (args, outcome.unescaped)
    listing = run_lcnet(["history"], folder)
    assert b"evil\\x1b[31m\\x07\\x0d\\x0a\\xff.lcnet" in listing.out
    assert b"2026-12-01 \\x1b[2J\\x07" in listing.out
    assert b"fifo\\x1b[2J.lcnet: a FIFO" in listing.out


@pytest.mark.slow
def test_a_directory_a_dangling_link_and_a_link_loop_each_get_a_line(folder: Path) -> None:
    replays = folder / "replays"
    (replays / "d.lcnet").mkdir()
    os.symlink("nowhere", replays / "dangling.lcnet")
    os.symlink("loop.lcnet", replays / "loop.lcnet")
    shutil.copy(SAMPLES / HONEST[0], replays / HONEST[0])
    outcome = run_lcnet(["history"], folder)
    assert outcome.code == 0 and not outcome.traceback, outcome.err
    assert b"d.lcnet: a directory, not a regular file: not read" in outcome.out
    assert b"dangling.lcnet: a symbolic link to nothing" in outcome.out
    assert b"loop.lcnet: a symbolic link that leads back to itself (a loop)" in outcome.out
    assert b"Record of Ada" in outcome.out or b"Your record" in outcome.out


@pytest.mark.slow
def test_resume_lists_what_it_could_not_read_and_goes_on(folder: Path) -> None:
    replays = folder / "replays"
    os.mkfifo(replays / "x.lcnet")
    os.symlink("/dev/zero", replays / "z.lcnet")
    outcome = run_lcnet(["resume"], folder)
    assert outcome.code == 0 and not outcome.traceback, outcome.err
    assert b"No unfinished match in replays/" in outcome.out
    assert b"x.lcnet: a FIFO (named pipe), not a regular file: not read" in outcome.out
    assert b"z.lcnet: a character device, not a regular file: not read" in outcome.out


@pytest.mark.slow
def test_a_name_too_long_for_its_side_file_hides_no_unfinished_match(folder: Path) -> None:
    # A 255-byte name made NAME.secret too long for the system: `lcnet
    # resume` died with "OSError: [Errno 36] File name too long" and listed
    # nothing (found from outside).
    replays = folder / "replays"
    incomplete = (ROOT / "replays" / "sample-incomplete-joiner.lcnet").read_bytes()
    (replays / ("a" * 249 + ".lcnet")).write_bytes(incomplete)
    (replays / "b.lcnet").write_bytes(incomplete)
    write_secret(replays / "b.lcnet", {"master": b"s" * 32, "seat": "joiner"})
    outcome = run_lcnet(["resume"], folder)
    assert outcome.code == 0 and not outcome.traceback, outcome.err
    assert b"b.lcnet" in outcome.out, outcome.out


def test_a_file_that_grows_while_it_is_read_is_read_as_it_was_when_opened(
    tmp_path: Path,
) -> None:
    from lcnet.store.safeopen import open_regular

    path = tmp_path / "growing.lcnet"
    path.write_bytes(b"a" * 1000)
    with open_regular(path, limit=4096) as file:
        with open(path, "ab") as writer:
            writer.write(b"b" * 10_000)  # past the limit, after the open
        assert file.read() == b"a" * 1000


def test_a_file_that_vanishes_between_listing_and_opening_gets_a_note(tmp_path: Path) -> None:
    from lcnet.run.history import read_match, replay_files

    shutil.copy(SAMPLES / HONEST[0], tmp_path / "gone.lcnet")
    (listed,) = replay_files([tmp_path])
    listed.unlink()
    match = read_match(listed)
    assert match is not None and match.verdict == "unreadable"
    assert match.summary == "gone (removed after it was listed)"


def test_an_open_never_blocks_on_a_fifo_swapped_in_after_its_stat(tmp_path: Path) -> None:
    """The fstat of the opened descriptor decides, not the stat before it: a
    FIFO put in the place of a regular file meanwhile is opened without
    waiting for a writer (O_NONBLOCK), and refused."""
    from lcnet.store.safeopen import OPEN_FLAGS, FileRefused, open_regular

    path = tmp_path / "swap.lcnet"
    os.mkfifo(path)
    opened = threading.Event()

    def open_as_open_regular_does() -> None:
        os.close(os.open(path, OPEN_FLAGS))
        opened.set()

    threading.Thread(target=open_as_open_regular_does, daemon=True).start()
    assert opened.wait(TIMEOUT), "the open waited for a writer"
    with pytest.raises(FileRefused, match="a FIFO"):
        open_regular(path, limit=MAX_FILE_BYTES)
