"""How often each bot takes a card from a discard pile, and how long rounds last.

    python bench/tempo.py [A] [--deals D] [--seed S]

A (by default greedy) plays bench/duel.py's deals, both seats, against
greedy, cautious and aggressive. For each pairing it prints the share of
each side's turns (``a_``: A's, ``b_``: the opponent's) that drew from a
discard pile, before and from 16 cards left in the draw pile, and how many
turns a round lasted from the first turn with at most 10 cards left. A
pile draw leaves the draw pile as it is, so the more a pair takes from the
piles, the longer its rounds last: what the hard bot's tempo model
(lcnet/bots/mcts.py, ``TempoMemory``) is about. With greedy as A, a few
seconds a pairing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's bench package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.duel import seat

LATE = 16
"""From this many cards in the draw pile a turn counts as late."""
LAST = 10
"""Rounds are timed from the first turn with at most this many cards left."""


def pairing(a: str, b: str, deals: int, seed: int) -> None:
    draws: dict[tuple[str, str], list[int]] = {}  # (side, phase) -> [pile draws, turns]
    lasted = []
    for index in range(deals):
        for a_seat in (0, 1):
            rnd, bots, _ = seat(a, b, seed, index, 5, a_seat)
            start = None
            while not rnd.is_over:
                p = rnd.to_move
                view = rnd.view(p)
                turn = bots[p].choose_turn(view)
                phase = "late" if view.draw_pile_size <= LATE else "early"
                counts = draws.setdefault(("a" if p == a_seat else "b", phase), [0, 0])
                counts[0] += turn.draw.suit is not None
                counts[1] += 1
                if start is None and view.draw_pile_size <= LAST:
                    start = rnd.turns_played
                rnd.push_turn(turn, p)
            assert start is not None
            lasted.append(rnd.turns_played - start)
    for side in ("a", "b"):
        for phase in ("early", "late"):
            pile, turns = draws[(side, phase)]
            print(f"{a}_vs_{b} {side}_pile_draws_{phase}: {100 * pile / turns:.1f} %")
    print(f"{a}_vs_{b} turns_from_{LAST}_left: {sum(lasted) / len(lasted):.1f} turns")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", nargs="?", default="greedy", help="the bot measured (a bot spec)")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=61)
    args = parser.parse_args()
    for b in ("greedy", "cautious", "aggressive"):
        pairing(args.a, b, args.deals, args.seed)


if __name__ == "__main__":
    main()
