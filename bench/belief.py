"""How much of the opponent's hidden hand the hard bot's guesses hold.

    python bench/belief.py [OPPONENT] [--rounds R] [--particles N] [--miss M]

Plays R rounds (20 by default) of greedy (seat 0) against OPPONENT (greedy
by default) while a :class:`~lcnet.bots.belief.HandBelief` watches seat 0's
views, as the hard bot's does. At each view it compares the guesses with the
opponent's real hidden cards: the share of them a guess holds, weighed as
the search draws guesses, against the share a uniform guess holds (hidden
cards over unseen cards). Prints both and their ratio for each stretch of
eight cards in the draw pile, and the time a view costs. About 15 s.
"""

from __future__ import annotations

import argparse
import random
import time

from lcnet.bots import make_bot
from lcnet.bots.belief import MISS, PARTICLES, HandBelief
from lcnet.game.engine import Round


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("opponent", nargs="?", default="greedy", help="bot spec of the opponent")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--particles", type=int, default=PARTICLES)
    parser.add_argument("--miss", type=float, default=MISS)
    args = parser.parse_args()
    stretches: dict[int, list[float]] = {}  # views, guessed share, uniform share
    started = time.perf_counter()
    views = 0
    for seed in range(args.rounds):
        r = Round.new(random.Random(5000 + seed), starter=seed % 2)
        bots = [make_bot("greedy", 0), make_bot(args.opponent, seed)]
        belief = HandBelief(random.Random(seed), args.particles, args.miss)
        while not r.is_over:
            p = r.to_move
            view = r.view(p)
            if p == 0:
                belief.observe(view)
                views += 1
                known = {c.id for c in view.opponent_known}
                real = {c.id for c in r.hand(1)} - known
                if real:
                    held = sum(
                        w * len(real & set(h))
                        for w, h in zip(belief.odds, belief.hands, strict=True)
                    )
                    stretch = stretches.setdefault(min(4, view.draw_pile_size // 8), [0, 0, 0])
                    stretch[0] += 1
                    stretch[1] += held / len(real)
                    stretch[2] += len(real) / len(view.unseen_cards())
            r.push_turn(bots[p].choose_turn(view), p)
    elapsed = time.perf_counter() - started
    for key in sorted(stretches):
        count, guessed, uniform = stretches[key]
        name = f"pile_{8 * key}_{8 * key + 7}" if key < 4 else f"pile_{8 * key}_up"
        print(f"{name}_guessed: {guessed / count:.3f} share")
        print(f"{name}_uniform: {uniform / count:.3f} share")
        print(f"{name}_ratio: {guessed / uniform:.2f} times")
    print(f"time_per_view: {elapsed / views * 1000:.1f} ms  (with both bots' turns)")


if __name__ == "__main__":
    main()
