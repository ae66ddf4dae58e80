"""How the quick bots play: wagers, expeditions opened, how early, discards, pile draws.

    python bench/styles.py [--rounds N] [--opponent SPEC]

Each quick bot plays N single rounds (default 200) against the opponent
(default ``random``), alternating seats, on fixed seeds; the figures count
only that bot's own turns. Prints one figure per line as ``name: value unit``.
Deterministic: the same figures on every machine. About 10 s with the defaults.
"""

from __future__ import annotations

import argparse
import random

from lcnet.bots import Bot, make_bot
from lcnet.game.engine import Round

BOTS = ("greedy", "cautious", "aggressive")


def profile(spec: str, opponent: str, rounds: int) -> dict[str, float]:
    wagers = opened = discards = pile_draws = turns = first_total = 0
    for seed in range(rounds):
        seat = seed % 2
        bots: list[Bot] = [make_bot(opponent, seed + 1000), make_bot(opponent, seed + 1000)]
        bots[seat] = make_bot(spec, seed)
        r = Round.new(random.Random(seed), starter=seed % 4 // 2)
        own = 0
        first: int | None = None
        while not r.is_over:
            p = r.to_move
            view = r.view(p)
            turn = bots[p].choose_turn(view)
            if p == seat:
                own += 1
                put_down = turn.put_down
                if put_down.discard:
                    discards += 1
                else:
                    wagers += put_down.card.is_wager
                    if not view.expeditions[seat][put_down.card.suit]:
                        opened += 1
                        first = own if first is None else first
                pile_draws += turn.draw.suit is not None
            r.push_turn(turn, p)
        turns += own
        first_total += own if first is None else first
    return {
        "wagers_per_round": wagers / rounds,
        "expeditions_per_round": opened / rounds,
        "first_opening_turn": first_total / rounds,
        "discard_share": discards / turns,
        "pile_draws_per_round": pile_draws / rounds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200, metavar="N")
    parser.add_argument("--opponent", default="random", metavar="SPEC")
    args = parser.parse_args()
    units = {
        "wagers_per_round": "wagers",
        "expeditions_per_round": "expeditions",
        "first_opening_turn": "own turns",
        "discard_share": "of put-downs",
        "pile_draws_per_round": "draws",
    }
    for spec in BOTS:
        for name, value in profile(spec, args.opponent, args.rounds).items():
            print(f"{spec}_{name}: {value:.2f} {units[name]}", flush=True)


if __name__ == "__main__":
    main()
