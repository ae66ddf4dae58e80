"""Mean time per move of bots on the same positions.

    python bench/movetime.py SPEC [SPEC ...]

The positions are every third turn of three greedy-against-greedy rounds
(56 positions); each bot chooses a turn in each. Prints ``SPEC: N ms/move``.
"""

from __future__ import annotations

import random
import sys
import time

from lcnet.bots import make_bot
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
        start = time.perf_counter()
        for view in views:
            bot.choose_turn(view)
        elapsed = time.perf_counter() - start
        print(f"{spec}: {elapsed / len(views) * 1000:.0f} ms/move over {len(views)} positions")


if __name__ == "__main__":
    main()
