"""Mean time per move of bots on the same positions.

    python bench/movetime.py [SPEC ...]   (default: hard)

The positions are every third turn of three greedy-against-greedy rounds
(56 positions); each bot chooses a turn in each. One bot a seat and round
sees every view of its seat in order (the others only to remember them, as
in play), so a move's time includes what the bot does with what it saw
since its last move (the hard bot's belief about the opponent's hand).
Prints, for each bot, its mean time a move, the mean over the late positions
(where the hard bot searches wider) and the slowest move.
"""

from __future__ import annotations

import argparse
import random
import time

from lcnet.bots import Bot, make_bot
from lcnet.bots.mcts import LATE_DRAW_PILE as LATE
from lcnet.errors import UserError
from lcnet.game.engine import Round, View


def positions() -> list[tuple[int, View, bool]]:
    """Every view of the three rounds in order, with its round and whether
    it is a position to time."""
    views: list[tuple[int, View, bool]] = []
    for seed in range(3):
        r = Round.new(random.Random(seed))
        bot = make_bot("greedy", 0)
        while not r.is_over:
            p = r.to_move
            view = r.view(p)
            views.append((seed, view, len(views) % 3 == 0))
            r.push_turn(bot.choose_turn(view), p)
    return views


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "specs",
        nargs="*",
        default=["hard"],
        metavar="SPEC",
        help="bot specs to time, e.g. hard or mcts:belief=0 (default: hard)",
    )
    args = parser.parse_args()
    for spec in args.specs:
        try:
            make_bot(spec, 0)
        except UserError as e:
            parser.error(str(e))
    every = positions()
    views = [view for _, view, timed in every if timed]
    for spec in args.specs:
        bots: dict[tuple[int, int], Bot] = {}
        times = []
        for seed, view, timed in every:
            if (seed, view.seat) not in bots:
                bots[seed, view.seat] = make_bot(spec, 1)
            bot = bots[seed, view.seat]
            if not timed:
                observe = getattr(bot, "observe", None)
                if observe is not None:
                    observe(view)
                continue
            start = time.perf_counter()
            bot.choose_turn(view)
            times.append(time.perf_counter() - start)
        late = [t for t, v in zip(times, views, strict=True) if v.draw_pile_size <= LATE]
        print(f"{spec}: {sum(times) / len(times) * 1000:.0f} ms/move over {len(times)} positions")
        print(
            f"{spec} late: {sum(late) / len(late) * 1000:.0f} ms/move over {len(late)} positions"
            f" with at most {LATE} cards in the draw pile"
        )
        print(f"{spec} slowest: {max(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
