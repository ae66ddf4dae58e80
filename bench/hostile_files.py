"""Hostile files against every reader of the replays folder: the long run.

    python bench/hostile_files.py [--folders N] [--entries E] [--per-file K]
                                  [--jobs J] [--seed S] [--churn SECONDS]

Makes N folders (folder i from seed S + i) of E hostile entries each, of
kinds drawn at random from tests/store/test_hostile_files.py's generator (FIFOs,
sockets, directories, links to /dev/zero, /dev/null, nothing, themselves,
sparse 4 GiB files, real replays cut, torn and bit-flipped, well-framed files
with control characters in every unsigned header field and in notes, file
names with ESC, BEL, CR, newline and bytes that are not UTF-8) beside honest
files, and runs on each, as child processes under a 512 MiB RLIMIT_AS and a
wall-clock timeout: ``lcnet history`` (twice: the second from the cache),
``history --json``, ``resume``'s listing, and K of the commands that name
each entry (``audit FILE``, ``audit FILE HONEST``, ``audit HONEST FILE``,
``replay --text FILE``, ``replay --analyze FILE``, and ``resume FILE`` for
one that must be refused). Then, for ``--churn`` seconds, a folder whose
entries change under the readers: a file that grows (and is cut back) while
it is read, and a name that is a file, a FIFO, a link to /dev/zero, a
directory and nothing in turn, as fast as a thread can swap them.

Prints one figure per line as ``name: value unit``: the files made, the
commands run, and what the property forbids: hangs, tracebacks (or deaths
by a signal), outputs with a raw control character, explicit files not
refused with exit status 2, honest files listed otherwise than alone; the
largest resident memory of any command, and the time. Each failure is
described on stderr. The defaults take about 30 s on two cores (a run of
lcnet is about 0.8 s of CPU); ``--folders 12 --entries 16 --per-file 0
--churn 60`` is a ten-minute run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

try:
    from tests.store import test_hostile_files as hostile
except ImportError:  # run as a script from anywhere: the checkout's tests package
    sys.path.append(str(Path(__file__).resolve().parent.parent))
    from tests.store import test_hostile_files as hostile

GROWTH_CAP = 48 << 20
"""The growing file is cut back to its start when it passes this (it lives in
memory on a tmpfs): it crosses MAX_FILE_BYTES (32 MiB) on every cycle."""


def _grow(path: Path, stop: threading.Event) -> None:
    """Append to ``path`` as fast as one thread can, cutting it back past the cap."""
    start = (hostile.SAMPLES / hostile.HONEST[0]).read_bytes()
    path.write_bytes(start)
    chunk = os.urandom(1 << 20)
    with open(path, "ab") as stream:
        while not stop.is_set():
            stream.write(chunk)
            stream.flush()
            time.sleep(0.005)  # about 200 MiB/s: past the limit several times a second
            if stream.tell() > GROWTH_CAP:
                stream.truncate(len(start))
                stream.seek(len(start))


def _swap(path: Path, stop: threading.Event) -> None:
    """Make ``path`` a file, a FIFO, a link to /dev/zero, a directory and nothing, in turn."""
    data = (hostile.SAMPLES / hostile.HONEST[1]).read_bytes()
    makers: list[Callable[[], None]] = [
        lambda: path.write_bytes(data),
        lambda: os.mkfifo(path),
        lambda: os.symlink("/dev/zero", path),
        lambda: path.mkdir(),
    ]
    while not stop.is_set():
        for make in makers:
            with contextlib.suppress(OSError):
                make()
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    path.rmdir()
                else:
                    path.unlink()
            time.sleep(0.0005)


def churn(workdir: Path, seconds: float, tally: hostile.Tally) -> None:
    """Readers against a folder whose entries change while they read it."""
    folder = workdir / "replays"
    folder.mkdir(parents=True)
    for name in hostile.HONEST:
        shutil.copy(hostile.SAMPLES / name, folder / name)
    stop = threading.Event()
    writers = [
        threading.Thread(target=_grow, args=(folder / "growing.lcnet", stop), daemon=True),
        threading.Thread(target=_swap, args=(folder / "swapped\x1b[2J.lcnet", stop), daemon=True),
    ]
    for writer in writers:
        writer.start()
    tally.files += len(hostile.HONEST) + 2
    commands: list[list[str | bytes]] = [
        ["history"],
        ["resume"],
        ["audit", "replays/growing.lcnet"],
        ["replay", "--text", "replays/growing.lcnet"],
        ["audit", "replays/swapped\x1b[2J.lcnet"],
    ]
    ends = time.monotonic() + seconds
    try:
        while time.monotonic() < ends:
            for args in commands:
                tally.judge(hostile.run_lcnet(args, workdir))
    finally:
        stop.set()
        for writer in writers:
            writer.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folders", type=int, default=2, help="hostile folders (default 2)")
    parser.add_argument("--entries", type=int, default=10, help="entries a folder (default 10)")
    parser.add_argument(
        "--per-file",
        type=int,
        default=1,
        help="commands naming each entry (default 1; 0: all of them)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="commands at a time (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="folder i is made from seed+i")
    parser.add_argument(
        "--churn", type=float, default=4.0, help="seconds of the changing folder (default 4)"
    )
    args = parser.parse_args()

    tally = hostile.Tally()
    started = time.monotonic()
    memory = "/dev/shm" if os.path.isdir("/dev/shm") else None  # sparse files cost nothing
    with tempfile.TemporaryDirectory(prefix="lcnet-hostile-", dir=memory) as tmp:
        root = Path(tmp)
        expected = hostile.honest_listing(root)
        for index in range(args.folders):
            hostile.attack(
                root / f"folder-{index}",
                random.Random(args.seed + index),
                tally,
                count=args.entries,
                per_file=args.per_file or None,
                expected=expected,
                jobs=args.jobs,
            )
        if args.churn > 0:
            churn(root / "churn", args.churn, tally)
    elapsed = time.monotonic() - started

    for failure in tally.failures:
        print(failure, file=sys.stderr)
    print(f"files: {tally.files} entries")
    print(f"commands: {tally.commands} runs")
    print(f"hangs: {len(tally.hangs)} runs")
    print(f"tracebacks: {len(tally.tracebacks)} runs")
    print(f"unescaped outputs: {len(tally.unescaped)} runs")
    print(f"not refused with status 2: {len(tally.wrong_status)} runs")
    print(f"honest files listed otherwise: {len(tally.honest_changed)} runs")
    print(f"max RSS: {tally.max_rss / (1 << 20):.1f} MiB")
    print(f"memory limit: {hostile.MEMORY_LIMIT >> 20} MiB")
    print(f"time: {elapsed:.1f} s")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
