"""``lcnet selfplay``: built-in bots play each other, and the tally is printed."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from lcnet.bots import BOTS, make_bot
from lcnet.cli import _checks as checks
from lcnet.errors import UsageError, UserError
from lcnet.game.engine import DEFAULT_ROUNDS
from lcnet.protocol.wire import MAX_ROUNDS
from lcnet.run.selfplay import GameResult, Tally, bot_labels, run, split_bot_specs
from lcnet.textsafe import shown

DEFAULT_GAMES = 10
MAX_GAMES = 1_000_000
"""More matches than a run of days: a larger --games is a typo."""
MAX_JOBS = 256
"""More processes than any machine this runs on has cores for."""
DEFAULT_BOTS = "greedy,random"


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet selfplay`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = (
        "Play N matches between two built-in bots in this process, alternating "
        "seats, and print per bot its wins with a 95% Wilson interval for the win "
        "rate (draws count as not won) and its mean match score, then the first "
        "bot's mean score difference per round (its score minus the second "
        "bot's, averaged over rounds) with a 95% Student t interval over the "
        "games, or with --duplicate over the deals. The same --seed gives the same "
        "games (for mcts, give it an iteration budget, e.g. mcts:iterations=500, "
        "since a time budget depends on the machine)."
    )
    parser.epilog = (
        f"bots: {', '.join(BOTS)}. A bot takes options as name:key=value,...; "
        "e.g. --bots 'mcts:time=0.1,greedy' pits mcts limited to 0.1 s per move "
        "against greedy. Example: lcnet selfplay --games 200 --bots greedy,random --seed 1. "
        "Duplicate: lcnet selfplay --duplicate --games 400 --rounds 1 --bots greedy,random "
        "plays 200 deals twice each."
    )
    parser.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        metavar="N",
        help=f"matches to play (default {DEFAULT_GAMES}); with --duplicate an even "
        "number, N/2 deals played twice each",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal twice with the seats swapped: the same deck order, hands "
        "and first starter seat in both games of a pair, only the bots change seats "
        "(each bot's own random source still differs per game; later rounds' starters "
        "follow the scores). Games 1 and 2 are deal 1, 3 and 4 deal 2, and so on; the "
        "first bot sits in seat 0 in the first game of each. The score-difference "
        "interval then treats each deal (the mean of its two games) as one observation. "
        "With --replays, the players of both games are named host and joiner (the "
        "joiner's name is part of the match id, which seeds the deal)",
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
        help=f"rounds per match, 1 to {MAX_ROUNDS} (default {DEFAULT_ROUNDS})",
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
    try:
        labels = bot_labels(specs)
    except UserError as exc:
        raise UsageError(f"--bots {shown(args.bots)}: {exc}") from None
    for spec in specs:  # each bot made once: a bad option is a usage error now
        try:
            make_bot(spec)
        except UserError as exc:
            raise UsageError(f"--bots {shown(spec)}: {exc}") from None
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    checks.whole("--games", args.games, 1, MAX_GAMES)
    if args.duplicate and args.games % 2:
        raise UsageError(
            f"--games must be even with --duplicate (each deal is played twice), not {args.games}"
        )
    if not 1 <= args.rounds <= MAX_ROUNDS:
        raise UsageError(f"--rounds must be 1 to {MAX_ROUNDS}")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    checks.whole("--jobs", args.jobs, 1, MAX_JOBS)
    if args.replays is not None:
        checks.replays(args.replays)
        from lcnet.run.netmatch import check_replays_dir  # (netmatch brings zmq: only here)

        check_replays_dir(args.replays)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)

    def progress(result: GameResult) -> None:
        if args.progress:
            winner = result.winner or ("defect" if result.defect else "draw")
            deal = f" (deal {result.index // 2 + 1})" if args.duplicate else ""
            print(
                f"game {result.index + 1}/{args.games}{deal}: {result.totals} -> {winner}",
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
        duplicate=args.duplicate,
    )
    if args.json:
        print(json.dumps(_as_json(tally, args, seed), indent=2))
    else:
        _print_text(tally, args, seed, labels)
    return 1 if tally.defects else 0


def _as_json(tally: Tally, args: argparse.Namespace, seed: int) -> dict[str, object]:
    diff = tally.score_diff_ci95()
    first, second = tally.labels
    return {
        "games": tally.games,
        "duplicate": args.duplicate,
        "deals": args.games // 2 if args.duplicate else None,
        "wins": tally.wins,
        "draws": tally.draws,
        "mean_score": {k: round(v, 3) for k, v in tally.mean_score.items()},
        "win_rate_ci95": {
            k: [round(lo, 4), round(hi, 4)] for k, (lo, hi) in tally.win_rate_ci95().items()
        },
        "score_diff_per_round": {
            "first": first,
            "second": second,
            "mean": round(diff.mean, 3),
            "ci95": None
            if diff.low is None or diff.high is None
            else [
                round(diff.low, 3),
                round(diff.high, 3),
            ],
            "interval": "student-t",
            "unit": "deal" if args.duplicate else "game",
            "units": diff.units,
        },
        "rounds": args.rounds,
        "suits": args.suits,
        "seed": seed,
        "defects": tally.defects,
    }


def _print_text(tally: Tally, args: argparse.Namespace, seed: int, labels: tuple[str, str]) -> None:
    pairs = args.games // 2
    deals = f" on {pairs} duplicate deal{'s' if pairs != 1 else ''}" if args.duplicate else ""
    print(
        f"{tally.games} matches of {args.rounds} round(s){deals}, {args.suits} suits, seed {seed}"
    )
    width = max(len(label) for label in labels)
    cis = tally.win_rate_ci95()
    for label in labels:
        wins = tally.wins[label]
        rate = wins / tally.games if tally.games else 0.0
        lo, hi = cis[label]
        print(
            f"  {label:<{width}}  {wins:>5} wins  {rate:6.1%} (95% Wilson CI {lo:.1%}-{hi:.1%})"
            f"  mean score {tally.mean_score[label]:8.2f}"
        )
    print(f"  {'draws':<{width}}  {tally.draws:>5}  (count as not won)")
    diff = tally.score_diff_ci95()
    unit = "deal" if args.duplicate else "game"
    units = f"{diff.units} {unit}{'s' if diff.units != 1 else ''}"
    interval = (
        f"95% CI {diff.low:+.2f} to {diff.high:+.2f}, Student t over {units}"
        if diff.low is not None and diff.high is not None
        else f"no interval from {units}"
    )
    who = f"{labels[0]} minus {labels[1]}"
    print(f"  score difference per round, {who}: {diff.mean:+.2f} ({interval})")
    for defect in tally.defects:
        print(f"  BOT DEFECT: {defect}")
