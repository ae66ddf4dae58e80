"""``lcnet selfplay``: built-in bots play each other, and the tally is printed."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from lcnet.bots import BOTS
from lcnet.engine import DEFAULT_ROUNDS
from lcnet.errors import UsageError
from lcnet.selfplay import GameResult, Tally, bot_labels, run, split_bot_specs
from lcnet.wire import MAX_ROUNDS

DEFAULT_GAMES = 10
DEFAULT_BOTS = "greedy,random"


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet selfplay`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = (
        "Play N matches between two built-in bots in this process, alternating "
        "seats, and print wins, draws and mean match scores per bot. The same "
        "--seed gives the same games (for mcts, give it an iteration budget, "
        "e.g. mcts:iterations=500, since a time budget depends on the machine)."
    )
    parser.epilog = (
        f"bots: {', '.join(BOTS)}. A bot takes options as name:key=value,...; "
        "e.g. --bots 'mcts:time=0.1,greedy' pits mcts limited to 0.1 s per move "
        "against greedy. Example: lcnet selfplay --games 200 --bots greedy,random --seed 1"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        metavar="N",
        help=f"matches to play (default {DEFAULT_GAMES})",
    )
    parser.add_argument(
        "--bots", default=DEFAULT_BOTS, metavar="A,B", help=f"the two bots (default {DEFAULT_BOTS})"
    )
    parser.add_argument(
        "--suits", type=int, choices=(5, 6), default=5, help="5 suits, or 6 with purple (default 5)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=DEFAULT_ROUNDS,
        metavar="R",
        help=f"rounds per match (default {DEFAULT_ROUNDS})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="seed for reproducible games (default: a random seed, printed)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="play games in J processes (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument(
        "--replays",
        metavar="DIR",
        type=Path,
        default=None,
        help="play every match through the real signed protocol (two sessions in this "
        "process) and save both players' replay files in DIR",
    )
    parser.add_argument(
        "--progress", action="store_true", help="print a line per finished game to standard error"
    )
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    specs = split_bot_specs(args.bots)
    labels = bot_labels(specs)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if not 1 <= args.rounds <= MAX_ROUNDS:
        raise UsageError(f"--rounds must be 1 to {MAX_ROUNDS}")
    if args.replays is not None:
        from lcnet.netplay import check_replays_dir  # (netplay brings zmq: only here)

        check_replays_dir(args.replays)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)

    def progress(result: GameResult) -> None:
        if args.progress:
            winner = result.winner or ("defect" if result.defect else "draw")
            print(
                f"game {result.index + 1}/{args.games}: {result.totals} -> {winner}",
                file=sys.stderr,
                flush=True,
            )

    tally = run(
        (specs[0], specs[1]),
        args.games,
        seed,
        rounds=args.rounds,
        suits=args.suits,
        jobs=args.jobs,
        on_result=progress,
        replay_dir=args.replays,
    )
    if args.json:
        print(json.dumps(_as_json(tally, args, seed), indent=2))
    else:
        _print_text(tally, args, seed, labels)
    return 1 if tally.defects else 0


def _as_json(tally: Tally, args: argparse.Namespace, seed: int) -> dict[str, object]:
    return {
        "games": tally.games,
        "wins": tally.wins,
        "draws": tally.draws,
        "mean_score": {k: round(v, 3) for k, v in tally.mean_score.items()},
        "win_rate_ci95": {
            k: [round(lo, 4), round(hi, 4)] for k, (lo, hi) in tally.win_rate_ci95().items()
        },
        "rounds": args.rounds,
        "suits": args.suits,
        "seed": seed,
        "defects": tally.defects,
    }


def _print_text(tally: Tally, args: argparse.Namespace, seed: int, labels: tuple[str, str]) -> None:
    print(f"{tally.games} matches of {args.rounds} round(s), {args.suits} suits, seed {seed}")
    width = max(len(label) for label in labels)
    cis = tally.win_rate_ci95()
    for label in labels:
        wins = tally.wins[label]
        rate = wins / tally.games if tally.games else 0.0
        lo, hi = cis[label]
        print(
            f"  {label:<{width}}  {wins:>5} wins  {rate:6.1%} (95% CI {lo:.1%}-{hi:.1%})"
            f"  mean score {tally.mean_score[label]:8.2f}"
        )
    print(f"  {'draws':<{width}}  {tally.draws:>5}")
    for defect in tally.defects:
        print(f"  BOT DEFECT: {defect}")
