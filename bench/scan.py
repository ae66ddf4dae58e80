"""Speed of the replay reader's damage scan, on genuine damaged files and on crafted input.

    python bench/scan.py [--mib N] [--repeat R]

Times ``parse_replay`` (lcnet/store/replayfile.py, PROTOCOL §7.2) on bytes in memory:
the 3-round sample match with one byte flipped (checksum), with a damaged
length, with two damaged places, and damaged with a torn end (no run reaches
the end of the file exactly: every look-alike is examined); then files of N
MiB (4 by default) made of a header, one record that fails its checksum and a
crafted pattern repeated: the worst cases for the scan. Best of R runs each.
Prints one figure per line as ``name: value unit``; about 30 s by default.
"""

from __future__ import annotations

import argparse
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from lcnet.store.replayfile import MAGIC, ReplayContents, ReplayHeader, parse_replay

SAMPLE = Path(__file__).resolve().parent.parent / "replays" / "sample-complete-host.lcnet"


def record(kind: int, payload: bytes) -> bytes:
    body = bytes([kind]) + payload
    return len(body).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")


def starts(data: bytes) -> list[int]:
    """Where each record of an intact file starts (the header's first)."""
    out, offset = [], len(MAGIC)
    while offset < len(data):
        out.append(offset)
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big") + 4
    return out


def genuine() -> dict[str, bytes]:
    data = SAMPLE.read_bytes()
    at = starts(data)
    flipped = bytearray(data)
    flipped[at[163] + 40] ^= 0x20  # frame 162
    length = bytearray(data)
    length[at[101]] = 0x80  # frame 100's length becomes impossible
    two = bytearray(flipped)
    two[at[301] + 40] ^= 0x20  # and frame 300
    torn = bytes(flipped[:-30])  # damaged, and the last record cut off
    return {
        "checksum": bytes(flipped),
        "length": bytes(length),
        "two_places": bytes(two),
        "and_torn": torn,
    }


def converging(size: int) -> bytes:
    """Look-alike records in the 64 KiB before a valid run of records, each
    one's length pointing exactly at that run: each costs its length in
    checksum bytes (until the budget runs out)."""
    run = record(5, b"") * ((size // 2) // 9)
    lead = bytearray(size - len(run))
    target = len(lead)
    for c in range(max(0, target - 65536), target - 13, 5):
        lead[c : c + 5] = (target - c - 8).to_bytes(4, "big") + b"\x05"
    return bytes(lead) + run


PATTERNS: dict[str, bytes | Callable[[int], bytes]] = {
    "zero_lengths": b"\x00\x00\xff\xf0",
    "zero_lengths_with_a_kind": b"\x00\x00\xff\xf0\x05",
    "aligned_chains": b"\x00\x00\xff\xf8\x05\x05\x05\x05",
    "dense_short": b"\x00\x00\x00\x01\x01\x01",
    "largest_length": b"\x00\x01\x00\x00\x05",
    "nine_byte_records": record(5, b""),
    "frame_kind_records": record(1, b"\x92\xc4\x00\xc4\x00"),
    "converging": converging,
}
"""Each: the pattern repeated, or a function making the bytes after the bad record."""


def crafted(pattern: bytes | Callable[[int], bytes], size: int) -> bytes:
    head = MAGIC + record(0, ReplayHeader("host", "bench", "bench").to_payload())
    bad = bytearray(record(1, b"x" * 40))
    bad[-1] ^= 1
    room = size - len(head) - len(bad)
    body = pattern(room) if callable(pattern) else pattern * (room // len(pattern) + 1)
    return (head + bytes(bad) + body)[:size]


def best(data: bytes, repeat: int) -> tuple[float, ReplayContents]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        contents = parse_replay(data)
        times.append(time.perf_counter() - start)
    return min(times), contents


def outcome(contents: ReplayContents) -> str:
    if contents.damage:
        d = contents.damage[0]
        if "budget" in d.reason:
            return "damaged to the end (budget)"
        return f"damaged {d.offset}-{d.resumes_at - 1}, {d.records_after} records after"
    return f"torn at {contents.torn.offset}" if contents.torn else "intact"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=4, help="size of the crafted files")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (the best is shown)")
    parser.add_argument("--verbose", action="store_true", help="also say what each file reads as")
    args = parser.parse_args()
    for name, data in genuine().items():
        seconds, contents = best(data, args.repeat)
        extra = f"  ({outcome(contents)})" if args.verbose else ""
        print(f"scan_genuine_damaged_{name}: {seconds * 1000:.1f} ms{extra}", flush=True)
    worst = 0.0
    for name, pattern in PATTERNS.items():
        data = crafted(pattern, args.mib << 20)
        seconds, contents = best(data, args.repeat)
        worst = max(worst, seconds / args.mib)
        extra = f"  ({outcome(contents)})" if args.verbose else ""
        print(f"scan_crafted_{name}_{args.mib}mib: {seconds:.2f} s{extra}", flush=True)
    print(f"s_per_mib_worst: {worst:.2f} s/MiB")


if __name__ == "__main__":
    main()
