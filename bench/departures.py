"""Where the hard search earns its points against greedy: its departures from greedy's turn.

    python bench/departures.py [SPEC] [--deals D] [--seed S] [--reference N] [--jobs J]

Plays SPEC (default ``mcts:iterations=250``, the hard search without the
time cap) against greedy on bench/duel.py's deals (both seats). At each of
its turns where greedy, given the same view, would have made another turn,
both turns are valued on N common sampled deals (200 by default) with the
opponent's real hand (only the draw pile's order sampled) and the
opponent played by the heuristic, i.e. by greedy itself: what leaving
greedy's turn there was worth against this opponent (the bot's own later
turns in those valuations are still the heuristic's). Prints the
bot's turns and departures a round and the departures' worth a round, in
all and by how many cards were left in the draw pile (worth with a 95%
interval over rounds). The default (4 deals) takes about two minutes
with ``--jobs 2``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import NamedTuple

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's bench package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.duel import seat, tell_hand
from lcnet.bots import make_bot
from lcnet.bots.mcts import MctsBot
from lcnet.run.stats import mean_half

PHASES = ((40, 99), (32, 39), (24, 31), (16, 23), (9, 15), (0, 8))
"""Draw pile sizes, early to late (the last is the endgame, 8 cards or fewer)."""


class Phases(NamedTuple):
    """One round's figures, each a list by phase."""

    turns: list[float]
    worth: list[float]
    departures: list[float]


def phase_of(pile: int) -> int:
    return next(i for i, (low, high) in enumerate(PHASES) if low <= pile <= high)


def play_deal(spec: str, seed: int, index: int, reference: int) -> list[Phases]:
    """For both seats of deal ``index``, per phase: SPEC's turns, the summed
    worth of its departures from greedy's turn, and their number."""
    rounds = []
    for a_seat in (0, 1):
        rnd, bots, _ = seat(spec, "greedy", seed, index, 5, a_seat)
        greedy = make_bot("greedy", 0)
        turns, worth, departures = ([0.0] * len(PHASES) for _ in range(3))
        while not rnd.is_over:
            p = rnd.to_move
            view = rnd.view(p)
            turn = bots[p].choose_turn(view)
            if p == a_seat:
                phase = phase_of(view.draw_pile_size)
                turns[phase] += 1
                if (usual := greedy.choose_turn(view)) != turn:
                    judge = MctsBot(
                        random.Random(f"departures:{seed}:{index}:{a_seat}:{sum(departures)}"),
                        iterations=str(2 * reference),
                        tempo="0",
                        spread="0",
                    )
                    tell_hand(judge, rnd)
                    before, after = judge.evaluate_turns(view, [usual, turn])
                    worth[phase] += after - before
                    departures[phase] += 1
            rnd.push_turn(turn, p)
        rounds.append(Phases(turns, worth, departures))
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("spec", nargs="?", default="mcts:iterations=250")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--reference", type=int, default=200, help="deals valuing each departure")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    started = time.perf_counter()
    n = args.deals
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
        results = pool.map(
            play_deal, [args.spec] * n, [args.seed] * n, range(n), [args.reference] * n
        )
        rounds = [worth for pair in results for worth in pair]
    print(f"departures: {args.spec} vs greedy, {n} deals x 2 seats, seed {args.seed}")

    def line(name: str, values: list[float], unit: str, sign: str = "") -> None:
        mean, half = mean_half(values)
        low, high = mean - half, mean + half
        print(f"{name}: {mean:{sign}.1f} {unit}  (ci95 {low:{sign}.1f} to {high:{sign}.1f})")

    line("turns", [sum(r.turns) for r in rounds], "a round")
    line("departures", [sum(r.departures) for r in rounds], "a round")
    line("worth", [sum(r.worth) for r in rounds], "points/round", "+")
    for i, (low, high) in enumerate(PHASES):
        name = f"{low}+" if high == 99 else f"{low}-{high}"
        turns = sum(r.turns[i] for r in rounds) / len(rounds)
        gone = sum(r.departures[i] for r in rounds) / len(rounds)
        print(f"turns_pile_{name}: {turns:.1f} a round, departures {gone:.1f}")
        line(f"worth_pile_{name}", [r.worth[i] for r in rounds], "points/round", "+")
    print(f"wall: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
