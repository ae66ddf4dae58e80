"""What would knowing the opponent's hand be worth to the hard search?

    python bench/oracle.py [--deals N] [--seed S] [--jobs J] [--bot SPEC] [--opponent SPEC]

Plays the same duplicate deals as ``bench/duel.py`` twice: once with the
search as it is (``--bot``, default ``hard``) against ``--opponent``
(default ``greedy``), once with the same search told the opponent's real
hand, every card of it (the order of the draw pile stays unknown and is
still sampled). Nothing else changes: the same candidates, budget and
random numbers. The difference between the two is the most that reading the
opponent's hand from its play (which cards it took, kept, skipped or threw
away) could give this search; the second figure is a ceiling, not a bot.

Prints, for each, the round win rate with its 95% interval and the margin a
round with its 95% interval (from the per-deal pairs), then the paired
difference in margin on the same deals. The default (2 deals) is a quick
check that finishes in well under a minute with ``--jobs 2``; the figures in
docs/experiments/2026-12-01-the-opponents-hand.md were taken with
``--deals 100 --jobs 2``.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's bench package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.duel import play_deal
from lcnet.run.stats import mean_half, wilson_interval


def summary(name: str, results: list[tuple[int, int, float, int]]) -> list[float]:
    """Print one line set for ``name``; return the per-deal mean margins."""
    margins = [m for pair in results for m in pair[:2]]
    wins = sum(m > 0 for m in margins)
    draws = sum(m == 0 for m in margins)
    low, high = wilson_interval(wins, len(margins))
    pairs = [(x + y) / 2 for x, y, *_ in results]
    mean, half = mean_half(pairs)
    moves = sum(r[3] for r in results)
    print(
        f"{name}_win_rate: {(wins + draws / 2) / len(margins):.1%}  "
        f"(ci95 {low:.1%}-{high:.1%}, {wins} of {len(margins)} rounds, {draws} drawn)"
    )
    low, high = mean - half, mean + half
    print(f"{name}_margin: {mean:+.1f} points/round  (ci95 {low:+.1f} to {high:+.1f})")
    print(f"{name}_move_time: {sum(r[2] for r in results) / max(1, moves) * 1000:.0f} ms")
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=2, help="deals, each played twice")
    parser.add_argument("--seed", type=int, default=1, help="which deals (as bench/duel.py)")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--suits", type=int, default=5)
    parser.add_argument("--bot", default="hard", help="the search (an mcts spec)")
    parser.add_argument("--opponent", default="greedy")
    args = parser.parse_args()
    started = time.perf_counter()
    jobs = [
        (args.bot, args.opponent, args.seed, i, args.suits, told)
        for told in (False, True)
        for i in range(args.deals)
    ]
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
        results = list(pool.map(play_deal, *zip(*jobs, strict=True)))
    plain, told = results[: args.deals], results[args.deals :]
    print(f"oracle: {args.bot} vs {args.opponent}, {args.deals} deals x 2 seats, seed {args.seed}")
    plain_pairs = summary("search", plain)
    told_pairs = summary("told_hand", told)
    gain, half = mean_half([t - p for p, t in zip(plain_pairs, told_pairs, strict=True)])
    print(f"hand_worth: {gain:+.1f} points/round  (ci95 {gain - half:+.1f} to {gain + half:+.1f})")
    print(f"wall: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
