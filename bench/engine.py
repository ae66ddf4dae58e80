"""Engine throughput: random playouts, the checked move API, and bot move times.

    python bench/engine.py [--seconds S]

Prints one figure per line as ``name: value unit``. Each figure runs for
about S seconds (default 3) on one core; the mcts figures take 3 S (at most
5 s for the default budget, which spends about 0.9 s a move). About 50 s in all.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from lcnet.bots import make_bot
from lcnet.game.engine import Round


def measure(seconds: float, step: Callable[[], int]) -> tuple[float, int]:
    """Call ``step`` (returning work units) until ``seconds`` pass; return (elapsed, units)."""
    units = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        units += step()
        now = time.perf_counter()
        if now >= deadline:
            return now - start, units


def playout_rates(suits: int, seconds: float) -> None:
    rng = random.Random(1)
    bases = [Round.new(rng, suits=suits) for _ in range(64)]
    rounds = 0

    def one() -> int:
        nonlocal rounds
        rounds += 1
        return bases[rounds % len(bases)].copy().playout(rng)

    elapsed, turns = measure(seconds, one)
    print(f"playout_turns_per_s_{suits}suits: {turns / elapsed:.0f} turns/s")
    print(f"playout_rounds_per_s_{suits}suits: {rounds / elapsed:.0f} rounds/s")


def checked_api_rate(seconds: float) -> None:
    """Random turns through legal_moves() and the checked push(): the API path."""
    rng = random.Random(2)

    def one() -> int:
        r = Round.new(rng)
        while not r.is_over:
            r.push(rng.choice(r.legal_moves()))
        return r.turns_played

    elapsed, turns = measure(seconds, one)
    print(f"checked_push_turns_per_s: {turns / elapsed:.0f} turns/s")


def undo_and_copy_rates(seconds: float) -> None:
    """The cost of the two ways to explore: push+pop a move, or copy a round."""
    rng = random.Random(4)
    r = Round.new(rng)
    for _ in range(20):  # a mid-round position
        r.push(rng.choice(r.legal_moves()))
    moves = r.legal_moves()

    def push_pop() -> int:
        for m in moves:
            r.push(m)
            r.pop()
        return len(moves)

    elapsed, n = measure(seconds / 2, push_pop)
    print(f"push_pop_per_s: {n / elapsed:.0f} moves/s")

    def copies() -> int:
        for _ in range(100):
            r.copy()
        return 100

    elapsed, n = measure(seconds / 2, copies)
    print(f"copy_per_s: {n / elapsed:.0f} copies/s")


def bot_move_time(spec: str, seconds: float) -> None:
    rng = random.Random(3)
    bot = make_bot(spec, 3)
    moves = 0
    spent = 0.0

    def one() -> int:
        nonlocal moves, spent
        r = Round.new(rng)
        while not r.is_over:
            view = r.view(r.to_move)
            t0 = time.perf_counter()
            turn = bot.choose_turn(view)
            spent += time.perf_counter() - t0
            moves += 1
            r.push_turn(turn)
        return 1

    measure(seconds, one)
    name = spec.split(":")[0]
    print(f"{name}_move_time: {spent / moves * 1000:.3f} ms/move")


def mcts_rates(seconds: float) -> None:
    """MCTS simulations per second and time per move (against greedy), at 0.1 s a
    move and at the default budget a player meets."""
    from lcnet.bots.mcts import MctsBot

    rng = random.Random(5)
    for spec, label, budget in (
        ("mcts:time=0.1", "mcts_0.1s", seconds),
        ("mcts", "mcts_default", min(seconds, 5.0)),
    ):
        bot = make_bot(spec, 5)
        assert isinstance(bot, MctsBot)
        opponent = make_bot("greedy", 6)
        moves = simulations = 0
        spent = 0.0
        deadline = time.perf_counter() + budget
        while time.perf_counter() < deadline:
            r = Round.new(rng)
            while not r.is_over and time.perf_counter() < deadline:
                view = r.view(r.to_move)
                if r.to_move == 0:
                    t0 = time.perf_counter()
                    turn = bot.choose_turn(view)
                    spent += time.perf_counter() - t0
                    moves += 1
                    simulations += bot.last_simulations
                else:
                    turn = opponent.choose_turn(view)
                r.push_turn(turn)
        print(f"{label}_move_time: {spent / moves * 1000:.0f} ms/move")
        print(f"{label}_simulations_per_move: {simulations / moves:.0f} simulations")
        print(f"{label}_simulations_per_s: {simulations / spent:.0f} simulations/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    for suits in (5, 6):
        playout_rates(suits, args.seconds)
    checked_api_rate(args.seconds)
    undo_and_copy_rates(args.seconds)
    bot_move_time("random", args.seconds)
    bot_move_time("greedy", args.seconds)
    mcts_rates(args.seconds * 3)


if __name__ == "__main__":
    main()
