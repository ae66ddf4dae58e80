"""Duplicate single rounds between two bots: each deal is played twice, seats swapped.

    python bench/duel.py A B [--deals N] [--seed S] [--jobs J] [--suits 5]

Deal ``i`` is the round ``Round.new(Random(f"duel:{seed}:{i}"), starter=i % 2)``;
it is played once with A in seat 0 and once with A in seat 1, so both bots
meet the same cards in the same seats and the luck of the deal mostly cancels
(``lcnet selfplay --duplicate`` pairs the games of whole matches the same
way; this script, written for exploring, adds A's time per move). Prints A's round win rate
with its 95% Wilson interval (draws count half in the rate shown and as not
won in the interval), the mean score margin A - B per round with its 95%
interval (from the per-deal pairs), and A's mean time per move.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from lcnet.bots import Bot, make_bot
from lcnet.bots.mcts import MctsBot
from lcnet.bots.sim import Determinizer
from lcnet.game.engine import Round, View
from lcnet.run.selfplay import MAX_TURNS_PER_ROUND
from lcnet.run.stats import mean_half, wilson_interval


class HandDeterminizer(Determinizer):
    """Deals consistent with the view in which the opponent holds ``hand``
    (its real cards): only the draw pile's order is sampled."""

    def __init__(self, view: View, hand: list[int]) -> None:
        super().__init__(view)
        extra = [cid for cid in hand if cid not in self.known]
        self.known = self.known + extra
        self.hidden = 0
        placed = set(extra)
        self.unseen = [cid for cid in self.unseen if cid not in placed]


def told_deals(rnd: Round, view: View) -> Determinizer:
    """The deals of ``view`` in which the opponent holds its real hand in ``rnd``."""
    return HandDeterminizer(view, [c.id for c in rnd.hand(view.opponent)])


def tell_hand(search: MctsBot, rnd: Round) -> MctsBot:
    """Let ``search`` sample only the deals in which the opponent holds its
    real hand in ``rnd`` (a ceiling, not a bot: bench/oracle.py); returns it."""
    search.deals = functools.partial(told_deals, rnd)
    return search


def tell_bot(bot: Bot, spec: str, rnd: Round) -> None:
    """:func:`tell_hand` for a bot made from ``spec``; exits with a message
    if it is not the search (there is nothing to tell another bot)."""
    if not isinstance(bot, MctsBot):
        raise SystemExit(f"{spec} is not the search: nothing to tell it")
    tell_hand(bot, rnd)


def seat(
    a: str, b: str, seed: int, index: int, suits: int, a_seat: int
) -> tuple[Round, list[Bot], random.Random]:
    """Deal ``index`` with A in ``a_seat``: the round, the bots in seat order,
    and the random source their seeds came from (for any later bot)."""
    rnd = Round.new(random.Random(f"duel:{seed}:{index}"), suits=suits, starter=index % 2)
    bot_rng = random.Random(f"duel-bots:{seed}:{index}:{a_seat}")
    bots = [make_bot(a, bot_rng.getrandbits(64)), make_bot(b, bot_rng.getrandbits(64))]
    if a_seat == 1:
        bots.reverse()
    return rnd, bots, bot_rng


def play_deal(
    a: str, b: str, seed: int, index: int, suits: int, told_hand: bool = False
) -> tuple[int, int, float, int]:
    """Deal ``index`` played twice; returns (margin with A in seat 0, margin
    with A in seat 1, A's thinking time, A's moves). With ``told_hand`` A,
    the search, samples its deals with B's real hand (bench/oracle.py)."""
    margins = []
    spent = 0.0
    moves = 0
    for a_seat in (0, 1):
        rnd, bots, _ = seat(a, b, seed, index, suits, a_seat)
        if told_hand:
            tell_bot(bots[a_seat], a, rnd)
        while not rnd.is_over:
            if rnd.turns_played >= MAX_TURNS_PER_ROUND:
                raise RuntimeError(f"deal {index}: the round stalled ({a} vs {b})")
            p = rnd.to_move
            view = rnd.view(p)
            start = time.perf_counter()
            turn = bots[p].choose_turn(view)
            if p == a_seat:
                spent += time.perf_counter() - start
                moves += 1
            rnd.push_turn(turn, p)
        scores = rnd.scores()
        margins.append(scores[a_seat] - scores[1 - a_seat])
    return margins[0], margins[1], spent, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--suits", type=int, default=5)
    args = parser.parse_args()
    started = time.perf_counter()
    jobs = [(args.a, args.b, args.seed, i, args.suits) for i in range(args.deals)]
    results: list[tuple[int, int, float, int]] = []

    def progress(result: tuple[int, int, float, int]) -> None:
        results.append(result)
        if len(results) % 10 == 0:
            done = [m for pair in results for m in pair[:2]]
            print(
                f"  {len(results)} deals: wins {sum(m > 0 for m in done)}/{len(done)}, "
                f"margin {sum(done) / len(done):+.1f}",
                file=sys.stderr,
                flush=True,
            )

    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
            for result in pool.map(play_deal, *zip(*jobs, strict=True)):
                progress(result)
    else:
        for job in jobs:
            progress(play_deal(*job))
    margins = [m for pair in results for m in pair[:2]]
    rounds = len(margins)
    wins = sum(m > 0 for m in margins)
    draws = sum(m == 0 for m in margins)
    low, high = wilson_interval(wins, rounds)
    mean, half = mean_half([(x + y) / 2 for x, y, *_ in results])
    moves = sum(r[3] for r in results)
    spent = sum(r[2] for r in results)
    print(f"duel: {args.a} vs {args.b}, {args.deals} deals x 2 seats, seed {args.seed}")
    print(
        f"rounds: {rounds}  wins: {wins}  draws: {draws}  "
        f"win_rate: {(wins + draws / 2) / rounds:.1%}  ci95: {low:.1%}-{high:.1%}"
    )
    print(f"margin_per_round: {mean:+.1f}  ci95: {mean - half:+.1f} to {mean + half:+.1f}")
    print(f"a_move_time: {spent / max(1, moves) * 1000:.1f} ms/move")
    print(f"wall: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
