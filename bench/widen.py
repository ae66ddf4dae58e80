"""How often the late search plays a turn the heuristic does not rank in its best four.

    python bench/widen.py [--rounds R]

Takes every third position with at most ``LATE_DRAW_PILE`` cards left in the
draw pile from R greedy-against-greedy rounds (12 by default, under a
minute), lets the hard bot's late search choose (ten candidates, 750
simulations, spread 0.5; no time cap, so the result does not depend on the
machine) and counts the positions where its turn is not among the
heuristic's first four (the early search's candidates). Prints the
positions that have more than four candidates and how many of them it
played outside the four.
"""

from __future__ import annotations

import argparse
import random

from lcnet.bots import make_bot
from lcnet.bots.mcts import (
    DEFAULT_CANDIDATES,
    DEFAULT_ITERATIONS,
    LATE_CANDIDATES,
    LATE_DRAW_PILE,
    MctsBot,
    candidate_turns,
)
from lcnet.bots.sim import Determinizer, from_turn
from lcnet.game.engine import Round, View


def late_positions(rounds: int) -> list[View]:
    views: list[View] = []
    for seed in range(rounds):
        r = Round.new(random.Random(seed))
        greedy = make_bot("greedy", 0)
        while not r.is_over:
            p = r.to_move
            view = r.view(p)
            if view.draw_pile_size <= LATE_DRAW_PILE and r.turns_played % 3 == 0:
                views.append(view)
            r.push_turn(greedy.choose_turn(view), p)
    return views


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    wide = outside = 0
    for view in late_positions(args.rounds):
        bot = MctsBot(random.Random(1), iterations=str(DEFAULT_ITERATIONS))
        chosen = from_turn(bot.choose_turn(view))
        ranked = candidate_turns(view, Determinizer(view).canonical(), LATE_CANDIDATES)
        if len(ranked) > DEFAULT_CANDIDATES:
            wide += 1
            outside += ranked.index(chosen) >= DEFAULT_CANDIDATES
    print(f"late_positions: {wide} positions")
    print(f"played_outside_best_{DEFAULT_CANDIDATES}: {outside} positions")
    print(f"share_outside: {outside / max(1, wide):.1%}")


if __name__ == "__main__":
    main()
