"""Bot against bot, in process: matches, tallies, and confidence intervals.

Used by ``lcnet selfplay``, the strength benchmarks and the tests. Each game
gets its own random source derived from the run's seed and the game's index,
so a run is reproducible game by game (and the same whether the games run
in one process or several). Seats alternate: the first bot sits in seat 0
in even-numbered games and in seat 1 in odd-numbered ones.

With ``duplicate``, games ``2k`` and ``2k+1`` form a pair played on the same
deal: the same first starter (by seat) and, round by round, the same deck
order, hence the same hands in the same seats; only the bots swap seats.
The deal comes from the run's seed and the pair's number (:func:`deal_rng`),
each bot's own random source from the seed and the game's number
(:func:`game_rng`), so the two games of a pair differ only by the seating
and by the bots' own randomness. Pairs are the independent units of the
score-difference interval (:meth:`Tally.score_diff_ci95`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from lcnet.bots import Bot, make_bot, parse_bot_spec
from lcnet.errors import IllegalMoveError, LcnetError, UsageError
from lcnet.game.engine import DEFAULT_ROUNDS, Match, Round, Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol.events import MatchOptions
from lcnet.run import localmatch
from lcnet.run.stats import MeanInterval, mean_interval, wilson_interval

MAX_TURNS_PER_ROUND: Final = 1000
"""Safety cap on turns per round in bot-vs-bot play.

Sensible bots finish a round in 25-60 turns and uniformly random ones in
about 143 (the longest of 20,000 random rounds took 241), so a round that
reaches 1000 turns means a bot keeps passing cards through the discard
piles: a bot defect, reported, never scored as a normal result.
"""


class BotDefect(LcnetError):
    """A built-in bot broke the rules or stalled a round."""


@dataclass(frozen=True)
class GameResult:
    """One match: which label sat where, the round scores, and the outcome."""

    index: int
    seats: tuple[str, str]
    """Label of the bot in seat 0 and in seat 1."""
    round_scores: tuple[tuple[int, int], ...]
    defect: str | None = None

    @property
    def totals(self) -> dict[str, int]:
        a = sum(s[0] for s in self.round_scores)
        b = sum(s[1] for s in self.round_scores)
        return {self.seats[0]: a, self.seats[1]: b}

    @property
    def winner(self) -> str | None:
        """The winning label, ``None`` on a draw (or a defect)."""
        if self.defect is not None:
            return None
        t = self.totals
        a, b = t[self.seats[0]], t[self.seats[1]]
        return None if a == b else self.seats[0] if a > b else self.seats[1]


def split_bot_specs(text: str) -> list[str]:
    """Split ``"mcts:time=0.1,iterations=50,greedy"`` into bot specs.

    Commas separate bots and also a bot's options; a piece that contains
    ``=`` but no ``:`` continues the previous bot's options.
    """
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def bot_labels(specs: Sequence[str]) -> tuple[str, str]:
    """Labels for the two bots: their specs, told apart if they are equal."""
    if len(specs) != 2:
        raise UsageError(f"selfplay needs exactly two bots, got {len(specs)}: {', '.join(specs)}")
    for spec in specs:
        parse_bot_spec(spec)  # fail early with a clear message
    a, b = specs
    return (f"{a}#1", f"{b}#2") if a == b else (a, b)


def game_rng(seed: int, index: int) -> random.Random:
    """The random source of game ``index`` of a run seeded with ``seed``."""
    return random.Random(f"lcnet-selfplay:{seed}:{index}")


def deal_rng(seed: int, deal: int) -> random.Random:
    """The random source of the deals of pair ``deal`` in a duplicate run:
    it draws only the first starter and the decks, never for a bot, so both
    games of the pair consume it identically."""
    return random.Random(f"lcnet-selfplay:{seed}:deal:{deal}")


def play_round(bots: Sequence[Bot], rnd: Round, max_turns: int = MAX_TURNS_PER_ROUND) -> Round:
    """Play ``rnd`` to its end with ``bots[p]`` in seat ``p``."""
    while not rnd.is_over:
        if rnd.turns_played >= max_turns:
            raise BotDefect(f"the round reached {max_turns} turns without ending")
        seat = rnd.to_move
        bot = bots[seat]
        turn = bot.choose_turn(rnd.view(seat))
        try:
            rnd.push_turn(turn, seat)
        except IllegalMoveError as exc:
            raise BotDefect(f"bot {bot.name!r} chose an illegal turn: {exc}") from exc
    return rnd


def _seating(
    specs: tuple[str, str], index: int, seed: int
) -> tuple[random.Random, tuple[str, str], list[Bot]]:
    """Game ``index``'s random source, the labels in seats 0 and 1, and their bots.

    ``specs[0]`` sits in seat 0 in even-numbered games and in seat 1 in odd ones.
    """
    labels = bot_labels(specs)
    rng = game_rng(seed, index)
    first = index % 2
    seat_specs = (specs[first], specs[1 - first])
    seats = (labels[first], labels[1 - first])
    bots = [make_bot(seat_specs[p], random.Random(rng.getrandbits(64))) for p in (0, 1)]
    return rng, seats, bots


def play_game(
    specs: tuple[str, str],
    index: int,
    seed: int,
    *,
    rounds: int = DEFAULT_ROUNDS,
    suits: int = 5,
    max_turns: int = MAX_TURNS_PER_ROUND,
    duplicate: bool = False,
) -> GameResult:
    """Play match ``index`` of a run; ``specs[0]`` sits in seat ``index % 2``.

    With ``duplicate``, the deals come from :func:`deal_rng` of pair
    ``index // 2``, so games ``2k`` and ``2k+1`` are dealt alike.
    """
    rng, seats, bots = _seating(specs, index, seed)
    dealer = deal_rng(seed, index // 2) if duplicate else rng
    match = Match(rounds=rounds, suit_count=suits, first_starter=dealer.randrange(2))
    try:
        while not match.is_over:
            starter = match.start_round()
            rnd = Round.new(random.Random(dealer.getrandbits(64)), suits=suits, starter=starter)
            play_round(bots, rnd, max_turns)
            match.record_round(rnd.scores())
    except BotDefect as exc:
        return GameResult(index, seats, tuple(match.round_scores), defect=str(exc))
    return GameResult(index, seats, tuple(match.round_scores))


def play_game_signed(
    specs: tuple[str, str],
    index: int,
    seed: int,
    *,
    rounds: int = DEFAULT_ROUNDS,
    suits: int = 5,
    max_turns: int = MAX_TURNS_PER_ROUND,
    replay_dir: Path | None = None,
    duplicate: bool = False,
) -> GameResult:
    """Like :func:`play_game`, but through two real protocol sessions (signed
    frames, masked deck, coin for the first starter), writing both peers'
    replay files into ``replay_dir`` when given.

    The deal follows from the peers' keys and master secrets and from the
    joiner's first frame (its name is part of the match id). With
    ``duplicate``, both games of a pair take those from :func:`deal_rng` and
    the players are named ``host`` and ``joiner`` in both, so the coin and
    every deck come out the same.
    """
    rng, seats, bots = _seating(specs, index, seed)
    dealer = deal_rng(seed, index // 2) if duplicate else rng
    names = (
        {Seat.HOST: "host", Seat.JOINER: "joiner"}
        if duplicate
        else {Seat.HOST: seats[0], Seat.JOINER: seats[1]}
    )
    peers: dict[Seat, localmatch.Peer] = {}

    def decider(seat: Seat) -> localmatch.Decide:
        def decide(view: View) -> Turn:
            track = peers[seat].session.round
            if track is not None and len(track.turns) >= max_turns:
                raise BotDefect(f"the round reached {max_turns} turns without ending")
            return bots[seat].choose_turn(view)

        return decide

    peers.update(
        localmatch.new_peers(
            {seat: decider(seat) for seat in Seat},
            options=MatchOptions(suits=suits, rounds=rounds),
            rng=random.Random(dealer.getrandbits(64)),
            names=names,
        )
    )
    if replay_dir is not None:
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        localmatch.open_replays(peers, replay_dir, f"selfplay-{seed}-{index:04d}", created)
    try:
        localmatch.run(peers)
    except BotDefect as exc:
        return GameResult(index, seats, _scores_of(peers), defect=str(exc))
    finally:
        localmatch.close_replays(peers)
    session = peers[Seat.HOST].session
    if session.dispute is not None or not session.sealed:
        reason = session.dispute.reason if session.dispute else "the match did not end"
        return GameResult(index, seats, _scores_of(peers), defect=f"protocol: {reason}")
    return GameResult(index, seats, _scores_of(peers))


def _scores_of(peers: dict[Seat, localmatch.Peer]) -> tuple[tuple[int, int], ...]:
    match = peers[Seat.HOST].session.match
    return tuple(match.round_scores) if match is not None else ()


@dataclass
class Tally:
    """Wins, draws, mean scores and score differences over a run, per bot label.

    ``diffs`` holds, per game index, the first bot's score minus the second's
    divided by the rounds played: the mean score difference per round.
    """

    labels: tuple[str, str]
    games: int = 0
    draws: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    score_sums: dict[str, int] = field(default_factory=dict)
    defects: list[str] = field(default_factory=list)
    duplicate: bool = False
    diffs: dict[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for label in self.labels:
            self.wins.setdefault(label, 0)
            self.score_sums.setdefault(label, 0)

    def add(self, result: GameResult) -> None:
        if result.defect is not None:
            self.defects.append(f"game {result.index}: {result.defect}")
            return
        self.games += 1
        winner = result.winner
        if winner is None:
            self.draws += 1
        else:
            self.wins[winner] += 1
        totals = result.totals
        for label, total in totals.items():
            self.score_sums[label] += total
        if result.round_scores:
            first, second = self.labels
            self.diffs[result.index] = (totals[first] - totals[second]) / len(result.round_scores)

    @property
    def mean_score(self) -> dict[str, float]:
        return {k: (v / self.games if self.games else 0.0) for k, v in self.score_sums.items()}

    def win_rate_ci95(self) -> dict[str, tuple[float, float]]:
        return {k: wilson_interval(v, self.games) for k, v in self.wins.items()}

    def diff_units(self) -> list[float]:
        """The independent observations of the score difference per round:
        one per game, or with ``duplicate`` one per deal (the mean of its two
        games; a deal with a defective game is left out)."""
        if not self.duplicate:
            return [self.diffs[i] for i in sorted(self.diffs)]
        deals = self.deal_diffs()
        return [deals[d] for d in sorted(deals)]

    def deal_diffs(self) -> dict[int, float]:
        """With ``duplicate``: per deal number, the mean score difference per
        round of its two games (a deal with a defective game is left out)."""
        d = self.diffs
        return {
            k: (d[2 * k] + d[2 * k + 1]) / 2
            for k in {i // 2 for i in d}
            if 2 * k + 1 in d and 2 * k in d
        }

    def score_diff_ci95(self) -> MeanInterval:
        """The first bot's mean score difference per round, with a 95% t interval
        over :meth:`diff_units`."""
        return mean_interval(self.diff_units())


def run(
    specs: tuple[str, str],
    games: int,
    seed: int,
    *,
    rounds: int = DEFAULT_ROUNDS,
    suits: int = 5,
    jobs: int = 1,
    max_turns: int = MAX_TURNS_PER_ROUND,
    on_result: Callable[[GameResult], None] | None = None,
    signed: bool = False,
    replay_dir: Path | None = None,
    duplicate: bool = False,
) -> Tally:
    """Play ``games`` matches and tally them (in ``jobs`` processes).

    With ``signed`` (implied by ``replay_dir``) every match runs through two
    real protocol sessions and, with ``replay_dir``, both replay files are kept.
    With ``duplicate`` (``games`` must be even), games ``2k`` and ``2k+1`` are
    played on the same deal with the bots' seats swapped.
    """
    if games < 0:
        raise UsageError("the number of games cannot be negative")
    if duplicate and games % 2:
        raise UsageError(f"duplicate deals need an even number of games, not {games}")
    tally = Tally(bot_labels(specs), duplicate=duplicate)
    play: Callable[..., GameResult] = play_game
    extra: dict[str, object] = {"duplicate": duplicate}
    if signed or replay_dir is not None:
        play = play_game_signed
        extra["replay_dir"] = replay_dir
    results: Iterable[GameResult]
    if jobs <= 1 or games <= 1:
        results = (
            play(specs, i, seed, rounds=rounds, suits=suits, max_turns=max_turns, **extra)
            for i in range(games)
        )
        for result in results:
            tally.add(result)
            if on_result:
                on_result(result)
        return tally
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Fresh interpreters, not forks: this process may already run helper
    # threads (lcnet.deck.group), and forking a threaded process is unsafe.
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=spawn) as pool:
        futures = [
            pool.submit(
                play, specs, i, seed, rounds=rounds, suits=suits, max_turns=max_turns, **extra
            )
            for i in range(games)
        ]
        for future in futures:
            result = future.result()
            tally.add(result)
            if on_result:
                on_result(result)
    return tally
