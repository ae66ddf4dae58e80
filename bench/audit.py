"""Audit speed and replay-file size for whole 3-round matches.

    python bench/audit.py [--matches N] [--bots A,B]

Plays N matches per deck size (5 and 6 suits) between two bots through two
real protocol sessions in memory, writes the host's replay file, then times
``audit_file`` on it (reading, every signature, the chain, every move,
commitments, passes, keys, reveals and scores). Prints one figure per line
as ``name: value unit``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from lcnet.audit import verdict as audit
from lcnet.bots import make_bot
from lcnet.game.seat import Seat
from lcnet.protocol.events import MatchOptions
from lcnet.run import localmatch
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import write_replay


def one_file(directory: Path, suits: int, seed: int, bots: tuple[str, str]) -> tuple[Path, int]:
    rng = random.Random(seed)
    players = {seat: make_bot(bots[int(seat)], rng.getrandbits(32)) for seat in Seat}
    peers = localmatch.new_peers(
        {seat: players[seat].choose_turn for seat in Seat},
        options=MatchOptions(suits=suits, rounds=3),
        rng=rng,
    )
    localmatch.run(peers)
    session = peers[Seat.HOST].session
    assert session.sealed, "the benchmark match must end sealed"
    path = directory / f"match-{suits}-{seed}.lcnet"
    header = ReplayHeader(seat="host", created="bench", software="bench")
    write_replay(path, header, [frame.raw for frame in session.chain])
    return path, len(session.chain)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=5, help="matches per deck size")
    parser.add_argument("--bots", default="greedy,greedy")
    args = parser.parse_args()
    first, second = args.bots.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        for suits in (5, 6):
            times, sizes, frames = [], [], []
            for seed in range(args.matches):
                path, count = one_file(Path(tmp), suits, seed, (first, second))
                start = time.perf_counter()
                verdict = audit.audit_file(path)
                times.append(time.perf_counter() - start)
                assert verdict.kind is audit.VerdictKind.VALID, verdict.summary
                sizes.append(path.stat().st_size)
                frames.append(count)
            print(
                f"audit_3rounds_{suits}suits: {statistics.median(times) * 1000:.0f} ms "
                f"(fastest {min(times) * 1000:.0f} ms)"
            )
            print(
                f"replay_file_3rounds_{suits}suits: {statistics.median(sizes) / 1024:.1f} KB "
                f"(largest {max(sizes) / 1024:.1f} KB)"
            )
            print(f"frames_3rounds_{suits}suits: {statistics.median(frames):.0f} frames")


if __name__ == "__main__":
    main()
