"""How many points a move the hard search loses to its sampling noise and its width.

    python bench/regret.py [SPEC ...] [--rounds R] [--reference D] [--width W] [--seeds K]
                           [--every K] [--piles LOW-HIGH] [--oracle]

Takes every fourth position of the first seat in R greedy-against-greedy
rounds (2 by default), values the heuristic's best W turns there (by
default as many as the search compares: 4, 10 late in the round, 40 in the
endgame) on D common sampled deals (300 by default: the reference, more
than a move's budget), then lets each search SPEC (mcts options, e.g. ``iterations=250``
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

``--piles LOW-HIGH`` keeps only the positions whose draw pile holds LOW to
HIGH cards, and ``--every K`` takes every K-th position (4 by default).
``--oracle`` values the turns instead with the opponent's real hand (only
the draw pile's order sampled) and the heuristic's own numbers for it: the
worth of each turn against greedy itself (the bot's own later turns are
still the heuristic's), not in the search's model. A SPEC that starts with
``told,`` (``told,iterations=250``) is the search told the opponent's hand
too: what is left of its regret is its width and its budget. Each search
is first shown seat 0's earlier views of the round, as if it had played
them, so that what it remembers (the tempo model, the belief about the
opponent's hand: ``belief=1000`` uses it at every position) is what it
would be in play.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's bench package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.duel import tell_hand
from lcnet.bots import make_bot, parse_bot_spec
from lcnet.bots.mcts import MctsBot, candidate_turns
from lcnet.bots.sim import Determinizer, from_turn, to_turn
from lcnet.game.engine import Round, View
from lcnet.run.stats import mean_half


def greedy_round(seed: int) -> Iterator[tuple[Round, View]]:
    """Seat 0's views, in order, in the greedy-against-greedy round of
    ``seed``, each with the round as it stands (the live round: copy it to
    keep it)."""
    r = Round.new(random.Random(1000 + seed))
    greedy = make_bot("greedy", 0)
    while not r.is_over:
        p = r.to_move
        view = r.view(p)
        if p == 0:
            yield r, view
        r.push_turn(greedy.choose_turn(view), p)


def positions(rounds: int, every: int, low: int, high: int) -> list[tuple[Round, View, list[View]]]:
    """Every ``every``-th view of seat 0 whose draw pile holds ``low`` to
    ``high`` cards in ``rounds`` greedy-against-greedy rounds, with the
    round it was seen in and seat 0's earlier views of the round."""
    found: list[tuple[Round, View, list[View]]] = []
    for seed in range(rounds):
        mine = 0
        seen: list[View] = []
        for r, view in greedy_round(seed):
            if low <= view.draw_pile_size <= high:
                if mine % every == 0:
                    found.append((r.copy(), view, seen[:]))
                mine += 1
            seen.append(view)
    return found


def pile_range(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give LOW-HIGH, e.g. 0-8") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--reference", type=int, default=300, help="deals for the reference")
    parser.add_argument("specs", nargs="*", metavar="SPEC", help="mcts options of a search")
    parser.add_argument("--width", type=int, help="turns in the reference (default: the search's)")
    parser.add_argument("--seeds", type=int, default=1, help="choices per position and search")
    parser.add_argument("--every", type=int, default=4, help="take every K-th position")
    parser.add_argument(
        "--piles", type=pile_range, default=(0, 1000), help="draw pile sizes LOW-HIGH only"
    )
    parser.add_argument(
        "--oracle", action="store_true", help="value turns with the opponent's real hand"
    )
    args = parser.parse_args()
    specs = args.specs or ["iterations=125", "iterations=250", "iterations=500"]
    started = time.perf_counter()
    regrets: dict[str, list[float]] = {
        "heuristic": [],
        "best_of_search_width": [],
        **{spec: [] for spec in specs},
    }
    best_chosen: dict[str, int] = dict.fromkeys(regrets, 0)
    default_search = MctsBot(random.Random(0))  # only asked for its width
    counted = 0
    for index, (rnd, view, seen) in enumerate(positions(args.rounds, args.every, *args.piles)):
        narrow_width = default_search.width(view)
        width = args.width or narrow_width
        cands = candidate_turns(view, Determinizer(view).canonical(), width)
        if len(cands) < 2:
            continue
        counted += 1
        reference = MctsBot(
            random.Random(10_000 + index),
            iterations=str(args.reference * len(cands)),
            tempo="0",
            **({"spread": "0"} if args.oracle else {}),
        )
        if args.oracle:
            tell_hand(reference, rnd)
        values = reference.evaluate_turns(view, [to_turn(c) for c in cands])
        top = max(values)
        regrets["heuristic"] += [top - values[0]] * args.seeds
        best_chosen["heuristic"] += args.seeds * (values[0] == top)
        # The best the search's own width could do (only if the reference is wider).
        narrow = max(values[:narrow_width])
        regrets["best_of_search_width"] += [top - narrow] * args.seeds
        best_chosen["best_of_search_width"] += args.seeds * (narrow == top)
        for spec in specs:
            for seed in range(args.seeds):
                _, options = parse_bot_spec("mcts:" + spec.removeprefix("told,"))
                bot = MctsBot(random.Random(seed), **{"tempo": "0", **options})
                if spec.startswith("told,"):
                    tell_hand(bot, rnd)
                for earlier in seen:  # what a bot that remembers would have seen
                    bot.observe(earlier)
                chosen = from_turn(bot.choose_turn(view))
                if chosen not in cands:
                    sys.exit(f"{spec} chose a turn outside the reference's: give a larger --width")
                value = values[cands.index(chosen)]
                regrets[spec].append(top - value)
                best_chosen[spec] += value == top
    print(f"positions: {counted}  (with 2 or more candidates)")
    for name, values in regrets.items():
        mean, half = mean_half(values)
        low, high = mean - half, mean + half
        print(f"regret_{name}: {mean:.2f} points/move  (ci95 {low:.2f} to {high:.2f})")
        print(f"best_{name}: {best_chosen[name] / len(values):.1%}")
    print(f"wall: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
