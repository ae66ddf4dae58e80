"""Adversarial matches: how many per second, and which invariants they break.

    python bench/adversary.py [--matches N] [--jobs J] [--seed S] [--failures FILE]

Plays N short matches (tests/adversary.py) between an honest lcnet session
and a cheater that signs what it likes, replays, reorders and drops frames,
plants replay records in its own fields, damages the honest player's file
and hands over a forged file of its own; then audits the honest file alone
and with the cheater's file, in both orders, and checks the invariants
(tests/adversary.py, KINDS). Match i is generated from seed S + i, so any
one is reproduced with ``--matches 1 --seed S+i``.

Prints one figure per line as ``name: value unit``: the matches played, how
many broke an invariant, one line per kind of violation (and of doubtful
finding, which is recorded but not asserted), the speed. For each kind
found, the smallest match that shows it is described on stderr (its seed,
what the cheater did, the violation); ``--failures FILE`` writes every
failing seed there, one JSON object a line. The defaults take about 20 s on
two cores.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

try:
    from tests import adversary
except ImportError:  # run as a script from anywhere: the checkout's tests package
    sys.path.append(str(Path(__file__).resolve().parent.parent))
    from tests import adversary


def _pin(counter: Any) -> None:
    """Give each worker one CPU of its own: lcnet.deck.group then multiplies in the
    worker's own thread instead of handing batches to helper threads that
    would only compete with the other workers."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    os.sched_setaffinity(0, {cpus[index % len(cpus)]})


def one(seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    case, violations, doubts = adversary.run(seed)
    return {
        "seed": seed,
        "violations": violations,
        "doubts": doubts,
        "frames": case.frames,
        "size": len(case.log),
        "described": case.describe(),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=700, help="matches to play")
    parser.add_argument(
        "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the first match")
    parser.add_argument("--failures", type=Path, help="write every failing seed here (JSON lines)")
    args = parser.parse_args()
    seeds = range(args.seed, args.seed + args.matches)
    start = time.perf_counter()
    counter = multiprocessing.Value("i", 0)
    if args.jobs > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(args.jobs, initializer=_pin, initargs=(counter,)) as pool:
            results = list(pool.imap_unordered(one, seeds, chunksize=4))
    else:
        _pin(counter)
        results = [one(seed) for seed in seeds]
    elapsed = time.perf_counter() - start
    results.sort(key=lambda r: r["seed"])
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        for line in r["violations"] + r["doubts"]:
            kinds = by_kind.setdefault(adversary.kind_of(line), [])
            if not kinds or kinds[-1] is not r:
                kinds.append(r)
    failing = [r for r in results if r["violations"]]
    print(f"matches: {len(results)} matches")
    print(f"violations: {len(failing)} matches")
    for kind in [*adversary.KINDS, *adversary.DOUBTFUL]:
        prefix = "doubtful" if kind in adversary.DOUBTFUL else "violations"
        print(f"{prefix}_{kind.rstrip('?')}: {len(by_kind.get(kind, []))} matches")
    print(f"matches_per_s: {len(results) / elapsed:.1f} matches/s")
    print(f"matches_per_min: {60 * len(results) / elapsed:.0f} matches/min")
    print(f"frames_per_match: {statistics.mean(r['frames'] for r in results):.0f} frames")
    print(f"match_time: {1000 * statistics.median(r['seconds'] for r in results):.0f} ms (median)")
    for kind, found in by_kind.items():
        smallest = min(found, key=lambda r: (r["size"], r["frames"]))
        lines = [v for v in smallest["violations"] + smallest["doubts"] if v.startswith(kind + ":")]
        print(
            f"\n{kind}: {len(found)} matches, e.g. seeds {[r['seed'] for r in found[:8]]}; "
            f"smallest: --matches 1 --seed {smallest['seed']}\n{smallest['described']}\n"
            f"  => {lines[0]}",
            file=sys.stderr,
        )
    if args.failures is not None:
        with args.failures.open("w") as out:
            for r in failing:
                out.write(
                    json.dumps({k: r[k] for k in ("seed", "violations", "doubts", "described")})
                    + "\n"
                )


if __name__ == "__main__":
    main()
