"""Two opponents with a recognisable style: ``cautious`` and ``aggressive``.

They exist to measure a search bot against more than one way of playing, so
they share nothing with :mod:`lcnet.bots.policy` (the heuristic that
``greedy`` plays and that ``mcts`` searches with): a few plain rules each,
with their own numbers, reading only the bot's :class:`~lcnet.game.engine.View`.

``cautious``
    Opens an expedition only with :data:`CAUTIOUS_OPEN_CARDS` playable
    number cards of the suit in hand that, with half of what it may still
    draw counted in (:data:`CAUTIOUS_TRUST`), promise :data:`CAUTIOUS_OPEN`
    points, which in practice is later than ``greedy``; plays a wager only
    with at least :data:`CAUTIOUS_WAGER` playable number cards of the suit in
    hand; plays on its expeditions without skipping more than
    :data:`CAUTIOUS_GAP` ranks unless the round is running out; discards
    first what the opponent cannot use; takes from a discard pile only a
    number card for an expedition it has, skipping at most one rank more.

``aggressive``
    Plays a wager whenever it holds a number card of the suit to follow it;
    opens an expedition on little (:data:`AGGRESSIVE_OPEN` points) while the
    draw pile is long; always plays the lowest card it can on a started
    expedition, whatever it skips; takes from a discard pile any number card it
    can play on a started expedition.

Both keep the commitment rule (:mod:`lcnet.bots.commitment`): every turn
they make is one of :func:`~lcnet.bots.commitment.committed_turns`, so a
card they take from a discard pile is one they can play, stays playable and
is never discarded again, and matches between built-in bots end.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from lcnet.bots.commitment import committed_turns
from lcnet.errors import UserError
from lcnet.game.cards import Card, Suit
from lcnet.game.engine import PutDown, Turn, View

CAUTIOUS_OPEN: Final = 25
"""Points (held numbers plus expected arrivals) before ``cautious`` opens a suit."""
CAUTIOUS_TRUST: Final = 0.5
"""How much of the cards it may still draw ``cautious`` counts on (1: their expectation)."""
CAUTIOUS_OPEN_CARDS: Final = 3
"""Playable number cards of a suit ``cautious`` must hold to open it."""
CAUTIOUS_WAGER: Final = 3
"""Playable number cards of the suit ``cautious`` must hold to play a wager."""
CAUTIOUS_WAGER_OPEN: Final = 30
"""Points a suit must promise before ``cautious`` puts a wager on it."""
CAUTIOUS_GAP: Final = 2
"""Ranks ``cautious`` skips at most when it plays on an expedition (before the end)."""
AGGRESSIVE_OPEN: Final = 12
"""Points (held numbers plus expected arrivals) enough for ``aggressive`` to open a suit."""
AGGRESSIVE_OPEN_UNTIL: Final = 10
"""Draw-pile size below which ``aggressive`` opens a suit only on a strong hand."""


# ------------------------------------------------------------------ reading a view


def _numbers(view: View, suit: Suit) -> list[Card]:
    """This seat's number cards of ``suit`` that still fit its expedition, lowest first."""
    return sorted(
        (c for c in view.hand if c.suit == suit and not c.is_wager and view.can_play(c)),
        key=lambda c: c.rank,
    )


def _started(view: View, suit: Suit, player: int | None = None) -> bool:
    who = view.seat if player is None else player
    return bool(view.expeditions[who][suit])


def _my_turns_left(view: View) -> int:
    """About how many more turns this seat gets (the seats draw alternately)."""
    return (view.draw_pile_size + 1) // 2


def _promise(view: View, suit: Suit, trust: float = 1.0) -> float:
    """What an expedition of ``suit`` may add up to: the number cards in hand
    that fit it, plus the unseen ones above the lowest of those, each weighted
    by the chance that this seat draws it (half the draw pile is drawn by
    each seat, and an unseen card is in the draw pile in proportion) and by
    ``trust``."""
    held = _numbers(view, suit)
    floor = held[0].rank if held else view.level(view.seat, suit)
    unseen = view.unseen_cards()
    if not unseen:
        return float(sum(c.rank for c in held))
    chance = trust * 0.5 * view.draw_pile_size / len(unseen)
    arriving = sum(c.rank for c in unseen if c.suit == suit and not c.is_wager and c.rank > floor)
    return sum(c.rank for c in held) + chance * arriving


def _gap(view: View, card: Card) -> int:
    """Ranks skipped by playing ``card`` (wagers and a first number count from 1)."""
    return 0 if card.is_wager else card.rank - max(1, view.level(view.seat, card.suit)) - 1


def _discard_cost(view: View, card: Card, keep_started: float) -> float:
    """What discarding ``card`` costs: what it is worth to this seat plus what
    it hands the opponent."""
    mine = 0.0
    if view.can_play(card):
        if _started(view, card.suit):
            mine = keep_started
        else:
            mine = min(1.0, _promise(view, card.suit) / CAUTIOUS_OPEN) * 6
    theirs = 0.0
    opponent = view.opponent
    if view.can_play(card, opponent):
        if _started(view, card.suit, opponent):
            theirs = 8.0 if card.is_wager else 10.0 + card.rank
        else:
            theirs = 2.0 if card.is_wager else card.rank / 2
    return mine + theirs


def _by_put_down(turns: Sequence[Turn]) -> dict[PutDown, list[Turn]]:
    allowed: dict[PutDown, list[Turn]] = {}
    for turn in turns:
        allowed.setdefault(turn.put_down, []).append(turn)
    return allowed


def _lowest_plays(
    view: View, allowed: dict[PutDown, list[Turn]], wager_ok: Callable[[Suit], bool]
) -> list[PutDown]:
    """Per suit, the allowed play of the lowest card (a wager if ``wager_ok``
    says so for its suit, else the lowest number), smallest gap first."""
    best: dict[Suit, PutDown] = {}
    for pd in allowed:
        if pd.discard or (pd.card.is_wager and not wager_ok(pd.card.suit)):
            continue
        held = best.get(pd.card.suit)
        if held is None or pd.card.rank < held.card.rank:
            best[pd.card.suit] = pd
    return sorted(best.values(), key=lambda pd: (_gap(view, pd.card), -pd.card.rank))


def _cheapest_discard(
    view: View, allowed: dict[PutDown, list[Turn]], keep_started: float
) -> tuple[PutDown, float] | None:
    costs = [
        (_discard_cost(view, pd.card, keep_started), pd.card.rank, pd)
        for pd in allowed
        if pd.discard
    ]
    if not costs:
        return None
    cost, _, pd = min(costs, key=lambda x: (x[0], x[1]))
    return pd, cost


def _level_after(view: View, put_down: PutDown, suit: Suit) -> int:
    if not put_down.discard and put_down.card.suit == suit:
        return 1 if put_down.card.is_wager else put_down.card.rank
    return view.level(view.seat, suit)


def _pile_draw(
    view: View, put_down: PutDown, turns: Sequence[Turn], max_gap: int | None
) -> Turn | None:
    """The allowed turn that takes a number card this seat will play on an
    expedition it has (or opens with ``put_down``), skipping at most
    ``max_gap`` ranks; ``None`` if there is none."""
    options = []
    for turn in turns:
        suit = turn.draw.suit
        if suit is None:
            continue
        # (A card discarded in this turn is not drawable: the turns exclude its pile.)
        top = view.top(suit)
        if top is None or top.is_wager:
            continue
        level = _level_after(view, put_down, suit)
        opened = _started(view, suit) or (not put_down.discard and put_down.card.suit == suit)
        if not opened or top.rank <= level:
            continue
        gap = top.rank - max(1, level) - 1
        if max_gap is None or gap <= max_gap:
            options.append((gap, -top.rank, turn))
    return min(options, key=lambda x: (x[0], x[1]))[2] if options else None


def _finish(view: View, put_down: PutDown, turns: Sequence[Turn], max_gap: int | None) -> Turn:
    """The turn for ``put_down``: a useful pile card, else the draw pile."""
    taken = _pile_draw(view, put_down, turns, max_gap)
    if taken is not None:
        return taken
    for turn in turns:
        if turn.draw.suit is None:
            return turn
    return turns[0]


# ------------------------------------------------------------------ the bots


class CautiousBot:
    """Waits for strong suits, wagers only on three follow-ups, gives nothing away.

    Deterministic: it needs no randomness.
    """

    name = "cautious"
    quick = True

    def __init__(self, rng: random.Random, **options: str) -> None:
        if options:
            raise UserError(f"the cautious bot takes no options (got {', '.join(options)})")

    def choose_turn(self, view: View) -> Turn:
        allowed = _by_put_down(committed_turns(view))
        put_down = self._put_down(view, allowed)
        return _finish(view, put_down, allowed[put_down], CAUTIOUS_GAP + 1)

    def _put_down(self, view: View, allowed: dict[PutDown, list[Turn]]) -> PutDown:
        turns_left = _my_turns_left(view)
        plays = _lowest_plays(view, allowed, lambda s: self._may_wager(view, s, turns_left))
        ongoing = [pd for pd in plays if _started(view, pd.card.suit)]
        # Cards still to play on open expeditions: when they fill the turns
        # left, play them whatever they skip.
        pending = sum(len(_numbers(view, s)) for s in view.suits if _started(view, s))
        if ongoing and (_gap(view, ongoing[0].card) <= CAUTIOUS_GAP or pending >= turns_left):
            return ongoing[0]
        openings = [
            (_promise(view, pd.card.suit, CAUTIOUS_TRUST), pd)
            for pd in plays
            if not _started(view, pd.card.suit)
            and _promise(view, pd.card.suit, CAUTIOUS_TRUST) >= CAUTIOUS_OPEN
            and CAUTIOUS_OPEN_CARDS <= len(_numbers(view, pd.card.suit)) <= turns_left
        ]
        if openings:
            return max(openings, key=lambda x: (x[0], x[1].card.is_wager))[1]
        discard = _cheapest_discard(view, allowed, keep_started=15.0)
        if discard is not None and (discard[1] < 15.0 or not ongoing):
            return discard[0]
        if ongoing:
            return ongoing[0]
        return discard[0] if discard is not None else next(iter(allowed))

    @staticmethod
    def _may_wager(view: View, suit: Suit, turns_left: int) -> bool:
        if view.level(view.seat, suit) > 1:
            return False
        follow = len(_numbers(view, suit))
        return (
            follow >= CAUTIOUS_WAGER
            and follow < turns_left
            and _promise(view, suit, CAUTIOUS_TRUST) >= CAUTIOUS_WAGER_OPEN
        )


class AggressiveBot:
    """Wagers on any follow-up, opens suits early, plays its lowest cards at once.

    Deterministic: it needs no randomness.
    """

    name = "aggressive"
    quick = True

    def __init__(self, rng: random.Random, **options: str) -> None:
        if options:
            raise UserError(f"the aggressive bot takes no options (got {', '.join(options)})")

    def choose_turn(self, view: View) -> Turn:
        allowed = _by_put_down(committed_turns(view))
        put_down = self._put_down(view, allowed)
        return _finish(view, put_down, allowed[put_down], None)

    def _put_down(self, view: View, allowed: dict[PutDown, list[Turn]]) -> PutDown:
        turns_left = _my_turns_left(view)
        plays = _lowest_plays(view, allowed, lambda s: turns_left >= 2 and bool(_numbers(view, s)))
        for pd in plays:
            if pd.card.is_wager:
                return pd
        for pd in plays:
            if not pd.card.is_wager and _started(view, pd.card.suit):
                return pd
        openings = []
        for pd in plays:
            if pd.card.is_wager:
                continue
            promise = _promise(view, pd.card.suit)
            early = view.draw_pile_size >= AGGRESSIVE_OPEN_UNTIL
            if promise >= (AGGRESSIVE_OPEN if early else CAUTIOUS_OPEN - 5):
                openings.append((promise, pd))
        if openings:
            return max(openings, key=lambda x: x[0])[1]
        discard = _cheapest_discard(view, allowed, keep_started=15.0)
        if discard is not None:
            return discard[0]
        return plays[0] if plays else next(iter(allowed))
