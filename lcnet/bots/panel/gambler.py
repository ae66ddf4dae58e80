"""``gambler``: bets readily, opens many expeditions early, plays fast.

How people describe the player who swings for big scores: put a wager down
as soon as you hold a card or two of its suit, start an expedition on a
couple of cards while the draw pile is long and trust the rest to come, and
get cards onto the table rather than sit on them; discard only when there
is nothing to play, and then what the opponent cannot use.
"""

from __future__ import annotations

from typing import Final

from lcnet.bots.panel.basics import (
    Member,
    dead,
    discards,
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

OPEN_POINTS: Final = 10
"""Points of a suit in hand enough to open it early."""
LATE_OPEN_POINTS: Final = 20
"""Points needed to open a suit once the draw pile is short."""
EARLY_PILE: Final = 16
"""Draw-pile size down to which it opens suits and bets on little."""
WAGER_NUMBERS: Final = 1
"""Number cards of the suit in hand enough to bet on it."""
MAX_SKIP: Final = 4
"""Ranks it jumps over at most to play on (it plays fast, not blindly)."""


class Gambler(Member):
    """Wagers on any follow-up, opens suits on little, plays rather than waits."""

    name = "gambler"

    def put_down(self, view: View, allowed: list[PutDown]) -> PutDown:
        candidates = plays(allowed)
        for pd in candidates:
            if pd.card.is_wager and self._bets_on(view, pd.card.suit):
                return pd
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
            return min(throw, key=lambda pd: (self._cost(view, pd.card), pd.card.rank))
        return going[0] if going else allowed[0]

    def take(self, view: View, put_down: PutDown, card: Card) -> float:
        """A number for an expedition it has, if it would play it soon."""
        if card.is_wager or not started(view, card.suit):
            return 0.0
        top = view.level(view.seat, card.suit)
        if not put_down.discard and put_down.card.suit == card.suit:
            top = put_down.card.rank
        return float(card.rank) if card.rank - max(1, top) - 1 <= MAX_SKIP else 0.0

    def _opens(self, view: View, suit: Suit) -> bool:
        need = OPEN_POINTS if view.draw_pile_size >= EARLY_PILE else LATE_OPEN_POINTS
        return points_held(view, suit) >= need and len(numbers(view, suit)) <= turns_left(view)

    def _bets_on(self, view: View, suit: Suit) -> bool:
        if has_numbers(view, suit) or view.draw_pile_size < EARLY_PILE:
            return False
        return len(numbers(view, suit)) >= WAGER_NUMBERS and (
            started(view, suit) or self._opens(view, suit)
        )

    def _cost(self, view: View, card: Card) -> float:
        own = 0.0 if dead(view, card) else 3.0 if started(view, card.suit) else 1.0
        return worth_to_opponent(view, card) + own
