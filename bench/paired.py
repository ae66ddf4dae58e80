"""Two versions of a bot on the same deals, paired: what a change is worth.

    python bench/paired.py [A A2 B] [--from N] [--prefix P] [--told]
                           [--deals D] [--seed S] [--jobs J]

(by default medium, easy and cautious: what easy's blind spots cost, in
seconds; a search takes about half a minute a deal)

Each deal (bench/duel.py's deals, both seats) is played by A against B until
the draw pile holds N cards (by default from the first turn); from there it
is played out twice, once by A and once by A2, with the same seeds, against
the same B. Where the two versions choose alike the games stay identical,
so the paired difference of A2's and A's margins carries only the noise of
the turns they choose differently: far less than two separate duels (and
``--from`` a small N compares two endgames alone). With ``--prefix P``, bot
P plays A's seat before the branch instead of A: a quick bot (``greedy``)
makes a comparison of two endgames cheap, from positions P reached rather
than A. A bot that remembers
what it saw (the hard bot's ``observe``) is shown the views its seat had
before N, as if it had played them. Prints A's and A2's mean
margin a round and their paired difference, with 95% intervals over the
deals, both win rates and their paired difference (also with an interval),
and the rounds the change played differently; every ten deals it prints
the same figures so far to standard error, so a run stopped early keeps
its intervals. With ``--told``, A2 (a
search) is told the opponent's real hand from the branch on, as
bench/oracle.py tells it for the whole round: what knowing the hand is
worth from N cards left.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's bench package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.duel import seat, tell_bot
from lcnet.bots import make_bot
from lcnet.run.selfplay import play_round
from lcnet.run.stats import mean_half


def over_deals(values: list[float]) -> tuple[float, float]:
    """Mean and 95% half-width of per-round ``values`` listed deal by deal
    (both seats of a deal in turn): a deal's two rounds share their cards,
    so the interval is over deals."""
    return mean_half([(x + y) / 2 for x, y in zip(values[::2], values[1::2], strict=True)])


def won(margin: float) -> float:
    """A round's win: 1, or 0.5 for a draw."""
    return (margin > 0) + (margin == 0) / 2


def play_deal(
    a: str,
    a2: str,
    b: str,
    start: int,
    seed: int,
    index: int,
    prefix: str | None = None,
    told: bool = False,
) -> list[tuple[int, int]]:
    """Deal ``index`` in both seats: (A's margin, A2's margin) for each; A's
    seat is played by ``prefix`` (default A) until the branch. With
    ``told``, A2 samples its deals with the opponent's real hand."""
    pairs = []
    for a_seat in (0, 1):
        rnd, bots, rng = seat(prefix or a, b, seed, index, 5, a_seat)
        seen = []  # A's views before the branch, for a bot that remembers them
        while not rnd.is_over and rnd.draw_pile_size > start:
            p = rnd.to_move
            view = rnd.view(p)
            if p == a_seat:
                seen.append(view)
            rnd.push_turn(bots[p].choose_turn(view), p)
        rest = rng.getrandbits(64)
        margins = []
        for changed, spec in enumerate((a, a2)):
            these = copy.deepcopy(bots)
            these[a_seat] = make_bot(spec, rest)
            observe = getattr(these[a_seat], "observe", None)
            for view in seen if observe else ():
                observe(view)
            played = copy.deepcopy(rnd)
            if told and changed:
                tell_bot(these[a_seat], a2, played)
            scores = play_round(these, played).scores()
            margins.append(scores[a_seat] - scores[1 - a_seat])
        pairs.append((margins[0], margins[1]))
    return pairs


def summary(pairs: list[tuple[int, int]]) -> list[str]:
    """The figures of ``pairs`` (A's and A2's margins, round by round, deal
    by deal), one per line as ``name: value``."""
    lines = []
    for name, values in (
        ("a_margin", [x for x, _ in pairs]),
        ("a2_margin", [y for _, y in pairs]),
        ("difference", [y - x for x, y in pairs]),
    ):
        mean, half = over_deals(values)
        lines.append(
            f"{name}: {mean:+.2f} points/round  ci95: {mean - half:+.2f} to {mean + half:+.2f}"
        )
    for name, index in (("a_win_rate", 0), ("a2_win_rate", 1)):
        lines.append(f"{name}: {sum(won(p[index]) for p in pairs) / len(pairs):.1%}")
    # The change in win rate, paired like the margins.
    mean, half = over_deals([won(y) - won(x) for x, y in pairs])
    lines.append(
        f"win_rate_difference: {mean:+.1%}  ci95: {mean - half:+.1%} to {mean + half:+.1%}"
    )
    lines.append(f"rounds_changed: {sum(x != y for x, y in pairs)} of {len(pairs)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", nargs="?", default="medium", help="the bot as it is (a bot spec)")
    parser.add_argument("a2", nargs="?", default="easy", help="the changed bot")
    parser.add_argument("b", nargs="?", default="cautious", help="the opponent of both")
    parser.add_argument(
        "--from", dest="start", type=int, default=1000, help="branch at this draw pile size"
    )
    parser.add_argument(
        "--prefix", help="the bot that plays A's seat before the branch (default: A)"
    )
    parser.add_argument(
        "--told", action="store_true", help="tell A2 the opponent's real hand from the branch on"
    )
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    jobs = [
        (args.a, args.a2, args.b, args.start, args.seed, i, args.prefix, args.told)
        for i in range(args.deals)
    ]
    pairs: list[tuple[int, int]] = []
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
        for result in pool.map(play_deal, *zip(*jobs, strict=True)):
            pairs.extend(result)
            if len(pairs) % 20 == 0 and len(pairs) < 2 * args.deals:
                # A run stopped early keeps its intervals so far.
                print(f"after {len(pairs) // 2} deals:", file=sys.stderr)
                for line in summary(pairs):
                    print(f"  {line}", file=sys.stderr, flush=True)
    before = f", {args.prefix} before the branch" if args.prefix else ""
    told = " (told the hand)" if args.told else ""
    print(
        f"paired: {args.a} then {args.a2}{told} vs {args.b}{before}, {args.deals} deals x 2 seats"
    )
    for line in summary(pairs):
        print(line)
    print(f"wall: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
