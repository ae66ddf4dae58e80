"""How many points a move the hard search loses to its sampling noise and its width.

    python bench/regret.py [SPEC ...] [--rounds R] [--reference D] [--width W] [--seeds K]

Takes every fourth position of the first seat in R greedy-against-greedy
rounds (2 by default), values the heuristic's best W turns there (by
default as many as the search compares: 4, or 10 late in the round) on D
common sampled deals (300 by default: the reference, more than a move's
budget), then lets each search SPEC (mcts options, e.g. ``iterations=250``
or ``iterations=250,candidates=6``; by default 125, 250 and 500
simulations) choose from K random seeds (1 by default). Every search runs
without a time cap and with the tempo model off, so that each choice sees
the model the reference sees. A choice's regret is how far its reference
value is below the best turn's. Prints, per search, the mean regret a move
with a 95% interval over positions and how often it chose the reference's
best turn; ``heuristic`` is the heuristic's own turn (the search's first
candidate), ``best_of_search_width`` the reference's best among the turns
the default search compares (below the best only with a wider
``--width``).

The reference is itself an estimate: the best of several noisy values is
biased upwards, so every regret here is a little too high, by the same
amount for every search (``best_of_search_width`` less so: the best of
fewer values is biased less). Differences between searches are what it
measures. The default takes about a minute on one core.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from duel import mean_ci  # bench/duel.py, beside this script

from lcnet.bots import make_bot, parse_bot_spec
from lcnet.bots.mcts import (
    DEFAULT_CANDIDATES,
    LATE_CANDIDATES,
    LATE_DRAW_PILE,
    MctsBot,
    candidate_turns,
)
from lcnet.bots.sim import Determinizer, from_turn, to_turn
from lcnet.engine import Round, View


def positions(rounds: int) -> list[View]:
    """Every fourth view of seat 0 in ``rounds`` greedy-against-greedy rounds."""
    views: list[View] = []
    for seed in range(rounds):
        r = Round.new(random.Random(1000 + seed))
        greedy = make_bot("greedy", 0)
        mine = 0
        while not r.is_over:
            p = r.to_move
            view = r.view(p)
            if p == 0:
                if mine % 4 == 0:
                    views.append(view)
                mine += 1
            r.push_turn(greedy.choose_turn(view), p)
    return views


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--reference", type=int, default=300, help="deals for the reference")
    parser.add_argument("specs", nargs="*", metavar="SPEC", help="mcts options of a search")
    parser.add_argument("--width", type=int, help="turns in the reference (default: the search's)")
    parser.add_argument("--seeds", type=int, default=1, help="choices per position and search")
    args = parser.parse_args()
    specs = args.specs or ["iterations=125", "iterations=250", "iterations=500"]
    started = time.perf_counter()
    regrets: dict[str, list[float]] = {
        "heuristic": [],
        "best_of_search_width": [],
        **{spec: [] for spec in specs},
    }
    best_chosen: dict[str, int] = dict.fromkeys(regrets, 0)
    counted = 0
    for index, view in enumerate(positions(args.rounds)):
        late = view.draw_pile_size <= LATE_DRAW_PILE
        search_width = LATE_CANDIDATES if late else DEFAULT_CANDIDATES
        width = args.width or search_width
        cands = candidate_turns(view, Determinizer(view).canonical(), width)
        if len(cands) < 2:
            continue
        counted += 1
        reference = MctsBot(
            random.Random(10_000 + index),
            iterations=str(args.reference * len(cands)),
            tempo="0",
        )
        values = reference.evaluate_turns(view, [to_turn(c) for c in cands])
        top = max(values)
        regrets["heuristic"] += [top - values[0]] * args.seeds
        best_chosen["heuristic"] += args.seeds * (values[0] == top)
        # The best the search's own width could do (only if the reference is wider).
        narrow = max(values[:search_width])
        regrets["best_of_search_width"] += [top - narrow] * args.seeds
        best_chosen["best_of_search_width"] += args.seeds * (narrow == top)
        for spec in specs:
            for seed in range(args.seeds):
                _, options = parse_bot_spec(f"mcts:{spec}")
                bot = MctsBot(random.Random(seed), **{"tempo": "0", **options})
                chosen = from_turn(bot.choose_turn(view))
                if chosen not in cands:
                    sys.exit(f"{spec} chose a turn outside the reference's: give a larger --width")
                value = values[cands.index(chosen)]
                regrets[spec].append(top - value)
                best_chosen[spec] += value == top
    print(f"positions: {counted}  (with 2 or more candidates)")
    for name, values in regrets.items():
        mean, half = mean_ci(values)
        low, high = mean - half, mean + half
        print(f"regret_{name}: {mean:.2f} points/move  (ci95 {low:.2f} to {high:.2f})")
        print(f"best_{name}: {best_chosen[name] / len(values):.1%}")
    print(f"wall: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
