"""Two duplicate selfplay runs on the same deals, paired deal by deal.

    python bench/pairlogs.py LOG_A LOG_B [--bot NAME]

Each LOG is what ``lcnet selfplay --duplicate --progress`` wrote to standard
error (one line per game, with its deal); both runs must have used the same
``--seed``, ``--suits`` and ``--rounds`` and differ in the first bot only
(e.g. ``--bots hard,greedy`` and ``--bots mcts:time=0.9,greedy``), so that
deal N holds the same cards in both. The bot compared is, in each log, the
one that is not ``--bot`` (default greedy, the common opponent).

Two separate runs of 400 rounds differ by several points of win rate from
noise alone; paired by deal, the luck of the cards cancels out, and what is
left is the noise of the turns the two versions play differently. Prints,
over the deals both runs finished: each version's mean margin a round, their
difference with a 95% interval over deals, the same for the win rate (a draw
counts as not won), and how many deals were played with the same scores.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys

from lcnet.run.stats import mean_half

LINE = re.compile(r"game \d+/\d+ \(deal (\d+)\): (\{.*\}) -> \S+$")


def read_log(path: str, opponent: str) -> tuple[str, dict[int, list[tuple[int, int]]]]:
    """The compared bot's label and, per deal, the (bot, opponent) score of each game."""
    deals: dict[int, list[tuple[int, int]]] = {}
    label = ""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.exit(f"pairlogs: cannot read {path}: {e.strerror}")
    for number, line in enumerate(lines, 1):
        match = LINE.match(line.strip())
        if not match:
            continue
        try:
            totals = ast.literal_eval(match.group(2))
        except (ValueError, SyntaxError):
            sys.exit(f"pairlogs: {path}:{number}: cannot read the scores: {match.group(2)}")
        others = [name for name in totals if name != opponent]
        if opponent not in totals or len(others) != 1:
            sys.exit(
                f"pairlogs: {path}:{number}: expected {opponent!r} and one other bot,"
                f" found {sorted(totals)} (give the common opponent with --bot)"
            )
        if label and others[0] != label:
            sys.exit(f"pairlogs: {path}:{number}: a second bot {others[0]!r} after {label!r}")
        label = others[0]
        deals.setdefault(int(match.group(1)), []).append((totals[label], totals[opponent]))
    if not deals:
        sys.exit(f"pairlogs: {path}: no game lines of `lcnet selfplay --duplicate --progress`")
    return label, {deal: games for deal, games in deals.items() if len(games) == 2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log_a", metavar="LOG_A", help="the first run's --progress output")
    parser.add_argument("log_b", metavar="LOG_B", help="the second run's, same --seed")
    parser.add_argument(
        "--bot", default="greedy", help="the opponent both runs share (default greedy)"
    )
    args = parser.parse_args()
    label_a, a = read_log(args.log_a, args.bot)
    label_b, b = read_log(args.log_b, args.bot)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        sys.exit(f"pairlogs: the logs share {len(common)} finished deals; at least 2 are needed")

    def margin(games: list[tuple[int, int]]) -> float:
        return sum(mine - theirs for mine, theirs in games) / len(games)

    def won(games: list[tuple[int, int]]) -> float:
        return sum(mine > theirs for mine, theirs in games) / len(games)

    margin_a, _ = mean_half([margin(a[d]) for d in common])
    margin_b, _ = mean_half([margin(b[d]) for d in common])
    diff, half = mean_half([margin(b[d]) - margin(a[d]) for d in common])
    win_a, _ = mean_half([won(a[d]) for d in common])
    win_b, _ = mean_half([won(b[d]) for d in common])
    win_diff, win_half = mean_half([won(b[d]) - won(a[d]) for d in common])
    same = sum(sorted(a[d]) == sorted(b[d]) for d in common)
    print(f"A: {label_a} ({args.log_a})")
    print(f"B: {label_b} ({args.log_b})")
    print(f"deals: {len(common)} deals")
    print(f"margin_a: {margin_a:+.1f} points/round")
    print(f"margin_b: {margin_b:+.1f} points/round")
    print(
        f"margin_diff: {diff:+.1f} points/round (95% CI {diff - half:+.1f} to {diff + half:+.1f})"
    )
    print(f"win_rate_a: {100 * win_a:.1f} %")
    print(f"win_rate_b: {100 * win_b:.1f} %")
    print(
        f"win_rate_diff: {100 * win_diff:+.1f} % (95% CI {100 * (win_diff - win_half):+.1f}"
        f" to {100 * (win_diff + win_half):+.1f})"
    )
    print(f"same_scores: {same} deals")


if __name__ == "__main__":
    main()
