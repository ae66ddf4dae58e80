"""How much the two games of a duplicate pair share: draw-pile cards and luck.

    python bench/duplicate.py [--deals N] [--seed S] [--pairs A,B ...]

For each pair of bots, plays N duplicate deals of single rounds, 5 suits
(the games ``lcnet selfplay --duplicate --rounds 1 --seed S`` plays) and
prints, one figure per line as ``name: value unit``:

- ``mirrored``: of the draw-pile cards drawn in both games of a pair, the
  share that went to the same seat in both (so to the other bot: the luck of
  the draw is shared out as in a mirror; 1 for identical games, about 0.5
  when the parity of the draws is unrelated);
- ``correlation``: the correlation of the two games' score differences (the
  first bot's score minus the second's) over the deals; clearly negative when
  the pairing cancels the luck of the deal.

Deterministic for deterministic bots. About 15 s with the defaults.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

from lcnet.bots import Bot
from lcnet.game.cards import Card
from lcnet.game.engine import Round
from lcnet.run import selfplay

DEFAULT_PAIRS = ("greedy,greedy", "greedy,cautious", "cautious,aggressive", "random,random")


def measure(specs: tuple[str, str], deals: int, seed: int) -> tuple[float, float]:
    owners: list[dict[Card, int]] = []

    def play_round(bots: Sequence[Bot], rnd: Round, max_turns: int = 1000) -> Round:
        owner: dict[Card, int] = {}
        while not rnd.is_over:
            seat = rnd.to_move
            pile = rnd.draw_pile()
            rnd.push_turn(bots[seat].choose_turn(rnd.view(seat)), seat)
            if rnd.draw_pile_size < len(pile):
                owner[pile[-1]] = seat
        owners.append(owner)
        return rnd

    real = selfplay.play_round
    selfplay.play_round = play_round  # watch the real games of play_game
    try:
        mirrored: list[float] = []
        firsts: list[float] = []
        seconds: list[float] = []
        for deal in range(deals):
            owners.clear()
            games = [
                selfplay.play_game(specs, 2 * deal + k, seed, rounds=1, duplicate=True)
                for k in (0, 1)
            ]
            a, b = owners
            common = set(a) & set(b)
            mirrored.append(sum(a[c] == b[c] for c in common) / len(common))
            labels = selfplay.bot_labels(specs)
            diffs = [g.totals[labels[0]] - g.totals[labels[1]] for g in games]
            firsts.append(diffs[0])
            seconds.append(diffs[1])
    finally:
        selfplay.play_round = real
    try:
        correlation = statistics.correlation(firsts, seconds)
    except statistics.StatisticsError:  # a constant series (identical games)
        correlation = float("nan")
    return statistics.fmean(mirrored), correlation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=100, metavar="N")
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--pairs", nargs="+", default=list(DEFAULT_PAIRS), metavar="A,B")
    args = parser.parse_args()
    for pair in args.pairs:
        a, b = pair.split(",")
        mirrored, correlation = measure((a, b), args.deals, args.seed)
        name = f"{a}_vs_{b}"
        print(f"{name}_mirrored: {mirrored:.2f} of draw-pile cards", flush=True)
        print(f"{name}_correlation: {correlation:.3f} within pairs", flush=True)


if __name__ == "__main__":
    main()
