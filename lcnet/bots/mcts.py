"""The mcts bot (the ``hard`` level): a Monte Carlo search over determinizations of its view.

What the bot does not know (the opponent's hidden cards and the order of the
draw pile) it samples: a *determinization* is a full round consistent with
its view (:class:`~lcnet.bots.sim.Determinizer`), so the search reads no
hidden information. Cards the opponent took from a discard pile and has not
played are public (``View.opponent_known``) and are always in its sampled
hand. The search is an information-set search at the root:

* **Candidates.** The root's actions are whole turns (put-down and draw).
  The greedy heuristic (:func:`~lcnet.bots.policy.rank_turns`) ranks every
  turn the commitment rule allows; the search keeps its best ``candidates``
  (the heuristic's own choice always among them) as priors: four, ten
  once the draw pile is down to ``late`` cards, and every allowed turn (at
  most :data:`ENDGAME_CANDIDATES`) from ``endgame`` cards.
* **The hidden hand.** From ``belief`` cards left in the draw pile, the
  opponent's hidden cards in the determinizations come from a
  :class:`~lcnet.bots.belief.HandBelief`: guesses of them weighed, turn by
  turn, by whether the heuristic holding them would have played as the
  opponent did. Before that, and with ``belief=0``, they are uniform.
* **Simulations.** A simulation makes one candidate turn in one
  determinization and lets the heuristic play both sides to the end of the
  round (``depth`` turns at most, by default all of them), then scores the
  bot's final score minus the opponent's: exact, so the evaluation of
  unfinished expeditions and the tempo of the last turns (who draws the
  last card, who is left holding cards) come from the game itself rather
  than from the heuristic's estimate (:func:`~lcnet.bots.policy.evaluate`
  is used only when ``depth`` cuts a simulation short). Random playouts are
  weak in Lost Cities; the heuristic is the model of both players (with
  ``spread``, by default from ``late`` cards left, the opponent's numbers
  are scaled at random afresh for each deal: a player of an unknown style
  rather than a copy of the bot). The heuristic takes cards from the
  discard piles far more often than other players, which makes rounds
  last longer; for each deal the simulated opponent either takes pile
  cards as the heuristic does or never, with the chance that the real one
  so far is the first kind or the second (:class:`TempoMemory`).
* **Allocation.** Sequential Halving: the budget is split into rounds; in
  each, every surviving candidate is simulated on the *same* fresh
  determinizations (common random numbers: the comparison between two turns
  is not drowned by the luck of the deal), then the worse half is dropped.
* **The heuristic's turn stands unless beaten clearly.** The heuristic's
  own turn is simulated on every deal, dropped or not, and the survivor is
  played only if it beats it by ``margin`` points on average over the same
  deals; otherwise the heuristic's turn is. The playouts model both
  players as the heuristic, so a small edge in them is as likely to come
  from that model as from the turn; against players unlike the heuristic,
  trusting every edge cost more than it gained
  (docs/experiments/2026-12-07-search-margin.md).

The tree is one level deep: the root's information set and its candidate
turns. docs/BOTS.md explains the choices and the measurements behind them.

Budget: ``iterations=N`` (simulations per move, :data:`LATE_FACTOR` times as
many late in the round, where playouts are short; with a seeded random source
the bot is then fully deterministic, given the same sequence of views) and/or
``time=SECONDS`` (wall clock, read from the injectable ``clock``); the first
one reached stops the search. Without either, the default is
:data:`DEFAULT_ITERATIONS` simulations capped at :data:`DEFAULT_TIME`
seconds: reproducible play on an ordinary machine, and never more than about
a second on a slow or busy one.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import time as _time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lcnet.bots.belief import MISS, PARTICLES, HandBelief
from lcnet.bots.commitment import committed_turns, is_stall
from lcnet.bots.policy import DEFAULT_WEIGHTS, Weights, deal_values, policy_turn, rank_turns
from lcnet.bots.sim import Determinizer, Sim, SimTurn, from_turn, to_turn
from lcnet.errors import UserError
from lcnet.game.engine import Turn, View

DEFAULT_ITERATIONS: Final = 250
"""Simulations per move when no budget is given (:data:`LATE_FACTOR` times as
many late in the round): about 0.4–0.5 s a move on one quiet core of the
development machine (bench/README.md)."""
DEFAULT_TIME: Final = 0.9
"""The time cap when no budget is given: the "at most 1 s" a human player
meets, less a margin for the set-up and the last batch of simulations."""
DEFAULT_CANDIDATES: Final = 4
"""Root candidates: the heuristic's best turns. Its choice is usually among
its top few, and every extra candidate thins the simulations of the others."""
DEFAULT_DEPTH: Final = 1000
"""Turns the heuristic plays after the candidate before the evaluation: by
default more than any round has, i.e. to the end of the round: full
playouts beat two-turn playouts with a heuristic evaluation on the same
deals, at twice the cost per simulation
(docs/experiments/2026-12-01-levels-and-full-playouts.md)."""
ENDGAME_DRAW_PILE: Final = 8
"""From this many cards in the draw pile, simulations play to the end of the
round whatever ``depth`` says: few turns are left, so it is cheap, and the
exact score replaces the evaluation where timing matters most. From here
the search also compares every turn the commitment rule allows (at most
:data:`ENDGAME_CANDIDATES`), with the late search's simulations
(docs/experiments/2026-12-02-wide-endgame.md)."""
BELIEF_DRAW_PILE: Final = 1000
"""From this many cards in the draw pile, the opponent's hidden hand in the
search's sampled deals comes from its :class:`~lcnet.bots.belief.HandBelief`
(before, uniformly). By default more than any draw pile has, i.e. from the
first turn: docs/experiments/2026-12-02-belief.md and
2026-12-03-belief-from-the-first-turn.md."""
STALL_DRAW_PILE: Final = 8
"""From this many cards in the draw pile, the search also compares stalls:
turns that take a pile card the bot cannot play, for one more turn of
both players before the round ends (``stall``; 0: never). From 8 cards
left they gained +4.8% of win rate against greedy and cost nothing against
the styles; from 16 they cost (docs/experiments/2026-12-05-stalls.md)."""
STALL_PUT_DOWNS: Final = 3
"""The heuristic's best put-downs the search pairs with every stall."""
ENDGAME_CANDIDATES: Final = 40
"""Root candidates in the endgame, when ``candidates`` is not given: in
practice every turn the commitment rule allows."""
SEARCH_WEIGHTS: Final[Weights] = DEFAULT_WEIGHTS
"""The heuristic's numbers in the search: its candidates, both players in
its simulations, and the evaluation at their end."""
DEFAULT_SPREAD: Final = 0.0
"""How far the opponent's numbers in the simulations stray from the
heuristic's (``spread``): with ``spread=S``, each is scaled, afresh for every
sampled deal, by a log-normal factor whose logarithm has standard deviation
S (0.5: mostly between 0.37 and 2.7 times), so the opponent is a sensible
player of an unknown style rather than a copy of the heuristic. 0 (the
default before :data:`LATE_DRAW_PILE`) plays it with the heuristic's
numbers (but for how it draws, with ``tempo``): 0.5 over
the whole round was measured to trade strength against greedy and
aggressive for strength against cautious, no net gain; late in the round it
is a gain (:data:`LATE_SPREAD`; docs/experiments/2026-12-01-late-search.md)."""
MAX_SPREAD: Final = 3.0
"""The largest spread accepted (factors beyond e^±6 are not a style)."""
LATE_DRAW_PILE: Final = 16
"""From this many cards in the draw pile, the search is wider and longer
(:data:`LATE_CANDIDATES`, :data:`LATE_FACTOR`) and doubts its model of the
opponent (:data:`LATE_SPREAD`): playouts are short there, so a move costs
about what an early one does, and the right turn (tempo, the last plays) is
more often outside the heuristic's best four
(docs/experiments/2026-12-01-late-search.md)."""
LATE_CANDIDATES: Final = 10
"""Root candidates in a late position, when ``candidates`` is not given."""
DEFAULT_MARGIN: Final = 3.0
"""Points a round (on average over the same sampled deals) by which the
search's best turn must beat the heuristic's own turn to be played instead
(``margin``; 0: the search's best always): against players unlike the
heuristic, the search's small edges were its model's, not the game's
(docs/experiments/2026-12-07-search-margin.md)."""
MAX_MARGIN: Final = 100.0
"""The largest margin accepted (more than any round's score difference is
worth: the heuristic's turn always)."""
LATE_FACTOR: Final = 3
"""A late position gets this many times the simulations of an early one
(the time cap, if any, is the same)."""
LATE_SPREAD: Final = 0.5
"""The simulated opponent's spread in a late position, when ``spread`` is
not given: with ten candidates the search would otherwise pick turns whose
worth rests on the opponent playing exactly as the heuristic."""
PILE_DRAWER_RATE: Final = 0.15
"""How often, a turn, an opponent that takes cards from the discard piles
does so (greedy: 5-19% of its turns early in the round, 4-28% late,
depending on what its opponent discards; bench/tempo.py)."""
DECK_DRAWER_RATE: Final = 0.02
"""How often, a turn, an opponent that keeps to the draw pile takes a pile
card (cautious: under 1%, aggressive: 2-4%)."""
DECK_ONLY_MARGIN: Final = 1e9
"""``pile_draw_margin`` of a simulated opponent that keeps to the draw pile:
no pile draw beats the deck by that much."""
MAX_TIME: Final = 600.0
"""The longest time budget accepted (seconds): more is surely a typo."""
MAX_ITERATIONS: Final = 10_000_000
"""The largest iteration budget accepted (a move would take hours)."""


def candidate_turns(
    view: View,
    canonical: Sim,
    limit: int,
    weights: Weights = DEFAULT_WEIGHTS,
    stalls: int = 0,
) -> list[SimTurn]:
    """The heuristic's own turn in ``view`` first (``canonical`` is its
    determinization without guesses), then its next best ones, at most
    ``limit``, all keeping the commitment rule; then, with ``stalls``, the
    best ``stalls`` put-downs among them each with every stall (a pile
    card the bot cannot play, :func:`~lcnet.bots.commitment.is_stall`)."""
    allowed = {from_turn(t) for t in committed_turns(view)}
    chosen: list[SimTurn] = []
    own = policy_turn(canonical, weights)
    if own in allowed:
        chosen.append(own)
    ranked = sorted(rank_turns(canonical, weights), key=lambda scored: -scored[0])
    for _, cid, discard, draw in ranked:
        if len(chosen) >= limit:
            break
        turn = (cid, discard, draw)
        if turn in allowed and turn not in chosen:
            chosen.append(turn)
    if not chosen:
        # The view breaks the commitment rule (a hand taken over from
        # elsewhere): any turn committed_turns allows will do.
        chosen.append(from_turn(committed_turns(view)[0]))
    if stalls:
        put_downs: list[tuple[int, bool]] = []
        for cid, discard, _ in chosen:
            if (cid, discard) not in put_downs:
                put_downs.append((cid, discard))
        best = put_downs[:stalls]
        for legal in committed_turns(view, stalls=True):
            if is_stall(view, legal):
                stall = from_turn(legal)
                if (stall[0], stall[1]) in best and stall not in chosen:
                    chosen.append(stall)
    return chosen


def _parse_int(name: str, text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise UserError(f"mcts option {name}={text!r}: not a whole number") from None
    if not low <= value <= high:
        raise UserError(f"mcts option {name}={value}: must be between {low} and {high}")
    return value


def _parse_float(name: str, text: str, high: float, *, zero: bool, noun: str = "number") -> float:
    """An option's number, at most ``high`` and above 0 (or from 0 if ``zero``)."""
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"mcts option {name}={text!r}: not a {noun}") from None
    if not ((value >= 0.0 if zero else value > 0.0) and value <= high):  # also rejects nan
        bounds = "between 0 and" if zero else "more than 0 and at most"
        raise UserError(f"mcts option {name}={text}: must be {bounds} {high:g}")
    return value


@dataclass(frozen=True)
class SearchConfig:
    """What an ``mcts:`` spec sets (``mcts:iterations=400,time=0.1``), parsed
    once by :meth:`parse`: the search's budget and shape. Every option is
    one that a measurement supports (docs/BOTS.md, docs/experiments/)."""

    iterations: int | None = DEFAULT_ITERATIONS
    """Simulations a move (:data:`LATE_FACTOR` times late); ``None``: no cap.
    With a ``margin``, the heuristic's turn simulated after it was dropped
    comes on top (up to half as many again)."""
    time: float | None = DEFAULT_TIME
    """Seconds a move; ``None``: no cap. Given alone, either is the only budget."""
    candidates: int = DEFAULT_CANDIDATES
    late_candidates: int = LATE_CANDIDATES
    endgame_candidates: int = ENDGAME_CANDIDATES
    """The width early, late and in the endgame (``candidates`` sets all three)."""
    late: int = LATE_DRAW_PILE
    """From this many cards in the draw pile, the late search (0: never)."""
    depth: int = DEFAULT_DEPTH
    """Turns a playout plays after the candidate (the endgame's: to the end)."""
    endgame: int = ENDGAME_DRAW_PILE
    """From this many cards in the draw pile, the endgame search (0: never)."""
    stall: int = STALL_DRAW_PILE
    """From this many cards in the draw pile, stalls are compared (0: never)."""
    tempo: bool = True
    """Whether the simulated opponent's pile draws follow the real one's (:class:`TempoMemory`)."""
    belief: int = BELIEF_DRAW_PILE
    """From this many cards in the draw pile, the opponent's hand is sampled
    from a :class:`~lcnet.bots.belief.HandBelief` (0: never)."""
    particles: int = PARTICLES
    miss: float = MISS
    """The belief's guesses and the weight a guess keeps when it misses a turn."""
    spread: float = DEFAULT_SPREAD
    late_spread: float = LATE_SPREAD
    """How far the simulated opponent's style strays, early and late
    (``spread`` sets both; 0 keeps the heuristic's numbers)."""
    margin: float = DEFAULT_MARGIN
    """Points by which a turn must beat the heuristic's own to be played instead."""

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SearchConfig:
        """The config an spec's options give; :class:`UserError` for an unknown
        option or a value out of its range (every value is checked)."""
        unknown = set(options) - set(_OPTION_PARSERS)
        if unknown:
            raise UserError(
                f"unknown mcts option(s) {', '.join(sorted(unknown))}: "
                f"use {', '.join(_OPTION_PARSERS)}"
            )
        given = {name: _OPTION_PARSERS[name](name, text) for name, text in options.items()}
        fields: dict[str, Any] = {
            name: value for name, value in given.items() if name not in ("candidates", "spread")
        }
        if "candidates" in given:
            width = given["candidates"]
            fields.update(candidates=width, late_candidates=width, endgame_candidates=width)
        if "spread" in given:
            fields.update(spread=given["spread"], late_spread=given["spread"])
        if ("iterations" in given) != ("time" in given):
            fields.setdefault("iterations", None)  # one budget given: it is the only one
            fields.setdefault("time", None)
        return cls(**fields)


def _int_option(low: int, high: int) -> Callable[[str, str], int]:
    return lambda name, text: _parse_int(name, text, low, high)


def _float_option(high: float, *, zero: bool, noun: str = "number") -> Callable[[str, str], float]:
    return lambda name, text: _parse_float(name, text, high, zero=zero, noun=noun)


_OPTION_PARSERS: Final[Mapping[str, Callable[[str, str], Any]]] = {
    "iterations": _int_option(1, MAX_ITERATIONS),
    "time": _float_option(MAX_TIME, zero=False, noun="number of seconds"),
    "candidates": _int_option(1, 100),
    "depth": _int_option(0, 1000),
    "endgame": _int_option(0, 1000),
    "spread": _float_option(MAX_SPREAD, zero=True),
    "late": _int_option(0, 1000),
    "tempo": lambda name, text: bool(_parse_int(name, text, 0, 1)),
    "belief": _int_option(0, 1000),
    "miss": _float_option(1.0, zero=True),
    "particles": _int_option(1, 100_000),
    "stall": _int_option(0, 1000),
    "margin": _float_option(MAX_MARGIN, zero=True),
}
"""Each option's parser: its name and text to its value, or :class:`UserError`."""

OPTIONS: Final = tuple(_OPTION_PARSERS)
"""The options an ``mcts:`` spec may give."""


class BeliefDeterminizer(Determinizer):
    """Samples the opponent's hidden hand from a :class:`HandBelief`."""

    def __init__(self, view: View, belief: HandBelief) -> None:
        super().__init__(view)
        self.belief = belief
        unseen = set(self.unseen)
        self.usable = bool(belief.hands) and all(
            len(h) == self.hidden and set(h) <= unseen for h in belief.hands
        )

    def sample(self, rng: random.Random) -> Sim:
        if not self.usable:
            return super().sample(rng)
        hidden = self.belief.guess(rng)
        rng.shuffle(hidden)
        return self.with_hidden(hidden, rng)


class TempoMemory:
    """What the bot has seen of its opponent's draws in the match so far: how
    many turns it made and how many cards it took from the discard piles.

    The heuristic takes pile cards often (in greedy against greedy, 28% of
    the turns of the last 16 cards, and a round from 10 cards left lasts
    15 turns instead of 10), other players rarely; a search that simulates
    every opponent as the heuristic expects longer rounds than it gets, and
    starts expeditions it has no time to finish. Each card the opponent
    takes shows in ``View.opponent_known`` until it is played or discarded,
    and between two of the bot's moves the opponent makes one turn, so the
    counts are exact from the first view of a round the bot observes (a
    card taken, discarded and taken again counts twice). They add up over
    the rounds of a match (the opponent is the same player).
    """

    def __init__(self) -> None:
        self.turns = 0
        """The opponent's turns seen (between two observed views of a round)."""
        self.draws = 0
        """The cards it took from the discard piles in them."""
        self._known: set[int] = set()  # the pile cards it held at the last view
        self._pile: int | None = None
        self._table = 0
        self._last: View | None = None

    def observe(self, view: View) -> None:
        """Count the opponent's turn and pile draw since the last view."""
        if view == self._last:
            return  # the same position again: no turn in between
        self._last = view
        table = sum(len(e) for side in view.expeditions for e in side)
        table += sum(len(pile) for pile in view.discard_piles)
        known = {c.id for c in view.opponent_known}
        # Within a round the draw pile never grows and the table never
        # shrinks (every turn puts a card down, and takes at most one back).
        if self._pile is not None and view.draw_pile_size <= self._pile and table >= self._table:
            self.turns += 1
            # It cannot take back a card it discarded in the same turn, so a
            # card held now and not at the last view was taken in this turn.
            self.draws += len(known - self._known)
        # Else the first view of a round: in its first turn the opponent
        # can take no pile card (only its own discard lies there), so cards
        # it holds now were taken in turns the bot did not see (it was made
        # in the middle of the round): not counted.
        self._known = known
        self._pile = view.draw_pile_size
        self._table = table

    def pile_drawer(self) -> float:
        """The chance that the opponent takes pile cards the way the heuristic
        does (:data:`PILE_DRAWER_RATE`) rather than keeping to the draw pile
        (:data:`DECK_DRAWER_RATE`), from even odds before it has moved."""
        return _pile_drawer(self.draws, self.turns)


@functools.lru_cache(maxsize=256)
def _pile_drawer(draws: int, turns: int) -> float:
    # Asked once per sampled deal with the same counts: computed once.
    drawer = draws * math.log(PILE_DRAWER_RATE) + (turns - draws) * math.log1p(-PILE_DRAWER_RATE)
    deck = draws * math.log(DECK_DRAWER_RATE) + (turns - draws) * math.log1p(-DECK_DRAWER_RATE)
    return 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, deck - drawer))))


class MctsBot:
    """Searches the heuristic's best turns over sampled determinizations.

    Its options are strings, as in ``mcts:iterations=400,time=0.1``, parsed
    into a :class:`SearchConfig` (:attr:`config`; each field says what its
    option does). ``clock`` (positional) is what the time budget is measured
    with, ``weights`` (positional, for experiments) the heuristic's numbers.
    After each move :attr:`last_candidates` says how many turns it compared
    and :attr:`last_simulations` how many simulations it ran.
    """

    name = "mcts"
    quick = False

    def __init__(
        self,
        rng: random.Random,
        clock: Callable[[], float] = _time.perf_counter,
        weights: Weights = SEARCH_WEIGHTS,
        /,
        **options: str,
    ) -> None:
        self._rng = rng
        self._clock = clock
        self.weights = weights
        self.deals: Callable[[View], Determinizer] | None = None
        """The seam for measurements: the deals the search samples instead of
        those consistent with the view (bench/oracle.py gives it the deals in
        which the opponent holds its real hand: what knowing it is worth)."""
        self.config = SearchConfig.parse(options)
        self.memory = TempoMemory()
        config = self.config
        self.belief: HandBelief | None = None
        """What the opponent's turns say about its hidden hand (None with
        ``belief=0``: the search samples it uniformly)."""
        if config.belief:
            self.belief = HandBelief(
                random.Random(rng.getrandbits(64)), config.particles, config.miss, weights
            )
        self._deck_only = dataclasses.replace(weights, pile_draw_margin=DECK_ONLY_MARGIN)
        self.last_simulations = 0
        self.last_candidates = 0

    def observe(self, view: View) -> None:
        """Remember what ``view`` shows of the opponent's draws. Called with
        every view the bot moves in; a caller that makes the bot in the
        middle of a match may show it the views its seat had before."""
        self.memory.observe(view)
        if self.belief is not None:
            self.belief.observe(view)

    def choose_turn(self, view: View) -> Turn:
        start = self._clock()
        self.observe(view)
        config = self.config
        deadline = None if config.time is None else start + config.time
        determinizer = self.determinizer(view)
        iterations = config.iterations
        if iterations is not None and (self._late(view) or self._endgame(view)):
            iterations *= LATE_FACTOR
        spread = self._spread(view)
        stalls = STALL_PUT_DOWNS if view.draw_pile_size <= config.stall else 0
        candidates = candidate_turns(
            view, determinizer.canonical(), self.width(view), self.weights, stalls
        )
        self.last_candidates = len(candidates)
        self.last_simulations = 0
        if len(candidates) == 1:
            return to_turn(candidates[0])
        depth = self._depth(view)
        me = view.seat
        alive = list(range(len(candidates)))
        totals = [0.0] * len(candidates)
        # The heuristic's best turn that keeps the commitment rule, which
        # candidate_turns puts first: the turn medium plays, unless the
        # rule forbids medium's.
        own = 0
        deals_seen = 0
        spent = 0  # the survivors' simulations: what the budget counts
        while len(alive) > 1:
            # Each phase halves the survivors (rounding down), so this many
            # phases are left, and each gets an equal share of the budget.
            phases = len(alive).bit_length() - 1
            deals = None
            if iterations is not None:
                left = iterations - spent
                deals = max(1, left // (phases * len(alive)))
            stop = None
            if deadline is not None:
                now = self._clock()
                stop = now + max(0.0, deadline - now) / phases
            dealt = 0
            # With a margin the heuristic's turn stays in every deal, dropped
            # or not: the survivor is measured against it on the same deals.
            # Its simulations after it was dropped come on top of the budget.
            simulated = alive if own in alive or not config.margin else [*alive, own]
            while True:
                sim = determinizer.sample(self._rng)
                values = deal_values(
                    sim,
                    [candidates[i] for i in simulated],
                    me,
                    depth,
                    self.weights,
                    self.opponent(spread),
                )
                for i, value in zip(simulated, values, strict=True):
                    totals[i] += value
                self.last_simulations += len(simulated)
                spent += len(alive)
                dealt += 1
                if deals is not None and dealt >= deals:
                    break
                if stop is not None and self._clock() >= stop:
                    break
            # Every survivor saw the same deals this phase and all earlier
            # ones, so totals compare like with like. Ties keep the prior order.
            alive.sort(key=lambda i: -totals[i])
            alive = alive[: max(1, len(alive) // 2)]
            deals_seen += dealt
        best = alive[0]
        if config.margin and (totals[best] - totals[own]) / deals_seen < config.margin:
            best = own
        return to_turn(candidates[best])

    def determinizer(self, view: View) -> Determinizer:
        """Where the search's sampled deals come from: the deals consistent
        with ``view`` (or :attr:`deals`'s, when given)."""
        if self.deals is not None:
            return self.deals(view)
        if self.belief is None or view.draw_pile_size > self.config.belief:
            return Determinizer(view)
        return BeliefDeterminizer(view, self.belief)

    def opponent(self, spread: float) -> Weights | None:
        """The opponent's numbers for one sampled deal: the heuristic's, each
        scaled by a log-normal factor of ``spread`` (a sensible player of an
        unknown style). With ``tempo``, the opponent keeps to the draw pile
        (takes no pile card) with the chance that the opponent met so far is
        one that does (:class:`TempoMemory`). ``None`` (the heuristic's own)
        when neither changes them."""
        base = self.weights
        if self.config.tempo and self._rng.random() >= self.memory.pile_drawer():
            base = self._deck_only
        if not spread:
            return None if base is self.weights else base
        scaled = Weights(
            *(value * math.exp(self._rng.gauss(0.0, spread)) for value in dataclasses.astuple(base))
        )
        # A share above 1 would expect more cards than there are.
        return dataclasses.replace(scaled, arrival_share=min(1.0, scaled.arrival_share))

    def width(self, view: View) -> int:
        """How many of the heuristic's best turns the search compares in ``view``."""
        if self._endgame(view):
            return self.config.endgame_candidates
        return self.config.late_candidates if self._late(view) else self.config.candidates

    def _late(self, view: View) -> bool:
        return view.draw_pile_size <= self.config.late

    def _endgame(self, view: View) -> bool:
        return view.draw_pile_size <= self.config.endgame

    def _spread(self, view: View) -> float:
        return self.config.late_spread if self._late(view) else self.config.spread

    def _depth(self, view: View) -> int:
        return 10_000 if self._endgame(view) else self.config.depth

    def evaluate_turns(self, view: View, turns: Sequence[Turn]) -> list[float]:
        """The expected final score difference (this seat's minus the
        opponent's) after each of ``turns`` (legal turns in ``view``), all
        estimated on the same sampled deals, the way the search compares
        its candidates. The bot's budget is spread over the turns: with
        ``iterations=N``, N simulations in all (at least one deal); with a
        time budget, deals until it is spent (at least one)."""
        if not turns:
            return []
        start = self._clock()
        determinizer = self.determinizer(view)
        moves = [from_turn(t) for t in turns]
        depth = self._depth(view)
        spread = self._spread(view)
        me = view.seat
        totals = [0.0] * len(moves)
        deals = 0
        while True:
            sim = determinizer.sample(self._rng)
            values = deal_values(sim, moves, me, depth, self.weights, self.opponent(spread))
            for i, value in enumerate(values):
                totals[i] += value
            deals += 1
            if self.config.iterations is not None and deals * len(moves) >= self.config.iterations:
                break
            if self.config.time is not None and self._clock() - start >= self.config.time:
                break
        return [total / deals for total in totals]
