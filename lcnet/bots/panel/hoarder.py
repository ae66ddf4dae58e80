"""``hoarder``: takes from the discard piles whenever it can use the card.

How people describe the collector: every card the opponent throws away
that fits one of your expeditions, or one you mean to open, is a card you
did not have to wait for, so take it. Otherwise it plays like a plain
sensible player: it opens a suit once it holds most of the 20 points it
costs, plays on without skipping much, bets early on a good suit, and
discards what helps the opponent least.
"""

from __future__ import annotations

from typing import Final

from lcnet.bots.panel.basics import (
    Member,
    dead,
    discards,
    fitting,
    has_numbers,
    numbers,
    plays,
    points_held,
    skipped,
    started,
    turns_left,
    worth_to_opponent,
)
from lcnet.game.cards import Card, Suit
from lcnet.game.engine import PutDown, View

OPEN_POINTS: Final = 18
"""Points of a suit in hand (taken pile cards included) before it opens the suit."""
WAGER_POINTS: Final = 24
"""Points of the suit in hand before it bets on it."""
WAGER_PILE: Final = 24
"""It bets only while the draw pile holds at least this many cards."""
MAX_SKIP: Final = 2
"""Ranks it jumps over at most when it plays on, unless the round is running out."""


class Hoarder(Member):
    """Takes every discard it can use; otherwise a plain sensible player."""

    name = "hoarder"

    def put_down(self, view: View, allowed: list[PutDown]) -> PutDown:
        candidates = plays(allowed)
        # A wager it took it plays at once; otherwise it bets only early.
        bets = [
            pd
            for pd in candidates
            if pd.card.is_wager
            and (pd.card in view.hand_public or self._bets_on(view, pd.card.suit))
        ]
        if bets:
            return bets[0]
        going = sorted(
            (pd for pd in candidates if not pd.card.is_wager and started(view, pd.card.suit)),
            key=lambda pd: (skipped(view, pd.card), pd.card.rank),
        )
        pending = sum(len(numbers(view, s)) for s in view.suits if started(view, s))
        if going and (skipped(view, going[0].card) <= MAX_SKIP or pending >= turns_left(view)):
            return going[0]
        openings = [
            pd
            for pd in candidates
            if not pd.card.is_wager
            and not started(view, pd.card.suit)
            and self._opens(view, pd.card.suit)
            and pd.card == numbers(view, pd.card.suit)[0]
        ]
        if openings:
            return max(openings, key=lambda pd: points_held(view, pd.card.suit))
        throw = discards(allowed)
        if throw:
            cheapest = min(throw, key=lambda pd: (self._cost(view, pd.card), pd.card.rank))
            if not going or self._cost(view, cheapest.card) < 8:
                return cheapest
        return going[0] if going else allowed[0]

    def take(self, view: View, put_down: PutDown, card: Card) -> float:
        """Any card that fits an expedition it has, opens now, or will open
        with this card (wagers only while it would still bet on them)."""
        suit = card.suit
        mine = started(view, suit) or (not put_down.discard and put_down.card.suit == suit)
        if card.is_wager:
            return 1.0 if self._bets_on(view, suit) else 0.0
        if mine:
            return float(card.rank)
        held = [c for c in numbers(view, suit) if c != put_down.card]
        enough = sum(c.rank for c in held) + card.rank >= OPEN_POINTS
        in_time = len(held) + 1 <= turns_left(view) - 1
        return float(card.rank) if enough and in_time else 0.0

    def _opens(self, view: View, suit: Suit) -> bool:
        """Whether it opens ``suit`` now: it holds the points (or took a card
        of it to open it) and has the turns to play what it holds."""
        took = any(c.suit == suit for c in view.hand_public)
        return (took or points_held(view, suit) >= OPEN_POINTS) and len(
            fitting(view, suit)
        ) <= turns_left(view)

    def _bets_on(self, view: View, suit: Suit) -> bool:
        return (
            not has_numbers(view, suit)
            and view.draw_pile_size >= WAGER_PILE
            and points_held(view, suit) >= WAGER_POINTS
        )

    def _cost(self, view: View, card: Card) -> float:
        """What discarding ``card`` gives up: its use to the opponent and to itself."""
        if dead(view, card):
            own = 0.0
        elif started(view, card.suit):
            own = 10.0 if not card.is_wager else 0.0
        else:
            own = points_held(view, card.suit) / 3
        return worth_to_opponent(view, card) + own
