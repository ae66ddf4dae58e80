"""Mean time per move of bots on the same positions.

    python bench/movetime.py SPEC [SPEC ...]

The positions are every third turn of three greedy-against-greedy rounds
(56 positions); each bot chooses a turn in each. Prints, for each bot, its
mean time a move, the mean over the late positions (where the hard bot
searches wider) and the slowest move.
"""

from __future__ import annotations

import random
import sys
import time

from lcnet.bots import make_bot
from lcnet.bots.mcts import LATE_DRAW_PILE as LATE
from lcnet.engine import Round, View


def positions() -> list[View]:
    views: list[View] = []
    for seed in range(3):
        r = Round.new(random.Random(seed))
        bot = make_bot("greedy", 0)
        while not r.is_over:
            p = r.to_move
            view = r.view(p)
            views.append(view)
            r.push_turn(bot.choose_turn(view), p)
    return views[::3]


def main() -> None:
    views = positions()
    for spec in sys.argv[1:]:
        bot = make_bot(spec, 1)
        times = []
        for view in views:
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
