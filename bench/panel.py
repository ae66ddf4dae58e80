"""One bot against the whole panel (issue 47): duplicate single rounds, one table.

    python bench/panel.py [--bot medium] [--rounds 40] [--seed 1] [--suits 5]
                          [--members committer,hoarder,...] [--jobs 1]
                          [--baseline medium]

The bot (any spec ``lcnet selfplay`` takes: ``easy``, ``medium``, ``hard``,
``hard:iterations=250``, ...) plays ``--rounds`` single rounds against each
member of the panel (lcnet/bots/panel/, docs/BOTS.md "The panel"): each
deal twice, seats swapped, exactly the games of ``lcnet selfplay --duplicate
--games N --rounds 1 --bots BOT,MEMBER --seed S`` (the same deals and the
same bots' random sources, through :mod:`lcnet.run.selfplay`), with the bot's
thinking time measured. Prints one table: per member the rounds, the bot's
win rate with its 95% Wilson interval (draws count as not won), its mean
margin a round with a 95% t interval over the deals, and its mean time a
move; then one line per member, ``BOT_vs_MEMBER_win: 61.5 %``. With ``--baseline SPEC`` (e.g.
``medium``) that bot plays the same games too, and the table adds its win
rate, its margin, and the difference of the two margins a round, paired
deal by deal, with its 95% t interval (issue 47's "at least 5 points more
than medium on the same deals"), and one more line per member,
``BOT_minus_SPEC_vs_MEMBER: +4.0 points``. The defaults
(medium, 40 rounds) take a few seconds. Hard plays about 22 moves a round
at 0.4 s each on a quiet machine: ``--bot hard --rounds 40`` is some 30
minutes of CPU (it took 35 minutes with ``--jobs 2`` on a busy machine),
400 rounds about ten times that. The 0.9 s cap makes hard's play depend on
the machine's load; ``hard:iterations=250`` does not.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

from lcnet.bots import Bot, make_bot, parse_bot_spec
from lcnet.bots.panel import PANEL
from lcnet.game.engine import Match, Round, Turn, View
from lcnet.run.selfplay import (
    BotDefect,
    GameResult,
    Tally,
    bot_labels,
    deal_rng,
    game_rng,
    play_round,
)
from lcnet.run.stats import MeanInterval, mean_interval, wilson_interval


class TimedBot:
    """A bot whose thinking time is added up, move by move."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.quick = bot.quick
        self.seconds = 0.0
        self.moves = 0

    def choose_turn(self, view: View) -> Turn:
        start = time.perf_counter()
        turn = self.bot.choose_turn(view)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return turn


@dataclass(frozen=True)
class Game:
    """One game of the run, and the measured bot's time in it."""

    result: GameResult
    seconds: float
    moves: int


def play(bot: str, member: str, index: int, seed: int, suits: int) -> Game:
    """Game ``index`` of ``lcnet selfplay --duplicate --rounds 1 --bots BOT,MEMBER``:
    the seating, the bots' random sources and the deal of
    :func:`lcnet.run.selfplay.play_game`, with ``bot``'s moves timed."""
    specs = (bot, member)
    labels = bot_labels(specs)
    rng = game_rng(seed, index)
    first = index % 2  # the bot sits in seat 0 in even games, seat 1 in odd ones
    seat_specs = (specs[first], specs[1 - first])
    seats = (labels[first], labels[1 - first])
    bots: list[Bot] = [make_bot(seat_specs[p], random.Random(rng.getrandbits(64))) for p in (0, 1)]
    timed = TimedBot(bots[first])
    bots[first] = timed
    dealer = deal_rng(seed, index // 2)
    match = Match(rounds=1, suit_count=suits, first_starter=dealer.randrange(2))
    starter = match.start_round()
    rnd = Round.new(random.Random(dealer.getrandbits(64)), suits=suits, starter=starter)
    try:
        play_round(bots, rnd)
    except BotDefect as exc:
        return Game(GameResult(index, seats, (), defect=str(exc)), timed.seconds, timed.moves)
    match.record_round(rnd.scores())
    return Game(GameResult(index, seats, tuple(match.round_scores)), timed.seconds, timed.moves)


@dataclass(frozen=True)
class Row:
    member: str
    tally: Tally
    seconds: float
    moves: int

    @property
    def wins(self) -> int:
        """Rounds the measured bot (the tally's first label) won."""
        return self.tally.wins[self.tally.labels[0]]

    @property
    def win_rate(self) -> float:
        return self.wins / self.tally.games if self.tally.games else 0.0


def measure(bot: str, member: str, rounds: int, seed: int, suits: int, jobs: int) -> Row:
    tally = Tally(bot_labels((bot, member)), duplicate=True)
    args = [(bot, member, i, seed, suits) for i in range(rounds)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
            games = list(pool.map(play, *zip(*args, strict=True)))
    else:
        games = [play(*a) for a in args]
    for game in games:
        tally.add(game.result)
    return Row(member, tally, sum(g.seconds for g in games), sum(g.moves for g in games))


def paired_gain(row: Row, base: Row) -> MeanInterval:
    """The bot's margin a round minus the baseline's, deal by deal (a deal
    counts when both played its two games without a defect)."""
    ours, theirs = row.tally.deal_diffs(), base.tally.deal_diffs()
    return mean_interval([ours[k] - theirs[k] for k in sorted(ours.keys() & theirs.keys())])


def interval_text(value: MeanInterval) -> str:
    """``+4.0 (+1.2 to +6.8)``, or the mean alone when there is no interval."""
    if value.low is None or value.high is None:
        return f"{value.mean:+.1f}"
    return f"{value.mean:+.1f} ({value.low:+.1f} to {value.high:+.1f})"


def figure_name(spec: str) -> str:
    """``hard:iterations=250`` as a figure's name: ``hard_iterations_250``."""
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="medium", metavar="SPEC", help="the bot measured")
    parser.add_argument(
        "--rounds", type=int, default=40, metavar="N", help="rounds per member (even)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--suits", type=int, choices=(5, 6), default=5)
    parser.add_argument("--members", default=",".join(PANEL), metavar="A,B,...")
    parser.add_argument("--jobs", type=int, default=1, metavar="J")
    parser.add_argument(
        "--baseline",
        metavar="SPEC",
        help="another bot to play the same games (e.g. medium): its figures and the paired gain",
    )
    args = parser.parse_args()
    members = [m.strip() for m in args.members.split(",") if m.strip()]
    unknown = [m for m in members if m not in PANEL]
    if unknown or not members:
        parser.error(f"unknown panel members {unknown}: choose from {', '.join(PANEL)}")
    if args.rounds < 2 or args.rounds % 2:
        parser.error("--rounds must be even (each deal is played twice) and at least 2")
    parse_bot_spec(args.bot)
    if args.baseline:
        parse_bot_spec(args.baseline)
    started = time.perf_counter()
    rows = []
    bases: dict[str, Row] = {}
    for member in members:
        row = measure(args.bot, member, args.rounds, args.seed, args.suits, args.jobs)
        rows.append(row)
        if args.baseline:
            bases[member] = measure(
                args.baseline, member, args.rounds, args.seed, args.suits, args.jobs
            )
        print(f"  {member}: done at {time.perf_counter() - started:.0f} s", file=sys.stderr)
    gains = {row.member: paired_gain(row, bases[row.member]) for row in rows if row.member in bases}
    print(
        f"{args.bot} against the panel: {args.rounds} rounds a member "
        f"({args.rounds // 2} duplicate deals), {args.suits} suits, seed {args.seed}"
    )
    extra_head = extra_rule = ""
    if args.baseline:
        extra_head = f" {args.baseline} wins | {args.baseline} margin | gain a round (95% CI) |"
        extra_rule = " --- | --- | --- |"
    print(
        f"| member | rounds | {args.bot} wins (95% CI) | margin a round (95% CI) "
        f"| {args.bot} ms/move |{extra_head}"
    )
    print(f"| --- | ---: | --- | --- | ---: |{extra_rule}")
    defects: list[str] = []
    for row in rows:
        games = row.tally.games
        low, high = wilson_interval(row.wins, games)
        margin = interval_text(row.tally.score_diff_ci95())
        ms = row.seconds / max(1, row.moves) * 1000
        extra = ""
        if args.baseline:
            base = bases[row.member]
            base_margin = base.tally.score_diff_ci95().mean
            gain_text = interval_text(gains[row.member])
            extra = f" {base.win_rate:.1%} | {base_margin:+.1f} | {gain_text} |"
        print(
            f"| {row.member} | {games} | {row.win_rate:.1%} ({low:.1%}–{high:.1%}) | {margin} "
            f"| {ms:.2f} |{extra}"
        )
        defects.extend(f"{row.member}: {d}" for d in row.tally.defects)
    name = figure_name(args.bot)
    for row in rows:
        print(f"{name}_vs_{row.member}_win: {row.win_rate * 100:.1f} %")
    for member, gain in gains.items():
        base_name = figure_name(args.baseline)
        print(f"{name}_minus_{base_name}_vs_{member}: {gain.mean:+.1f} points")
    print(f"wall: {time.perf_counter() - started:.0f} s")
    for defect in defects:
        print(f"BOT DEFECT: {defect}")
    if defects:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
