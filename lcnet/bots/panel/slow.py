"""``slow``: waits for a long run before it opens, then rushes at the end.

How people describe the patient player: do not start an expedition until
you hold a long run of it (four cards or more), so it is sure to pay; until
then discard freely, keeping only the suits you are building; play on an
open expedition only with the next card or so; and when the draw pile runs
short, rush out everything in your hand that can still score.
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

RUN: Final = 4
"""Number cards of a suit in hand before it opens the suit."""
RUN_POINTS: Final = 20
"""...and the points they must add up to (what an expedition costs)."""
RUSH_PILE: Final = 12
"""From this many cards left in the draw pile it plays out what it holds."""
WAGER_RUN: Final = 5
"""Number cards of a suit in hand before it bets on the suit."""
WAGER_POINTS: Final = 30
"""...the points they must add up to,"""
WAGER_PILE: Final = 20
"""...and the draw-pile size it must still have."""
MAX_SKIP: Final = 1
"""Ranks it jumps over at most when it plays on before the rush."""


class Slow(Member):
    """Opens only with a run of four, discards freely meanwhile, rushes at the end."""

    name = "slow"

    def put_down(self, view: View, allowed: list[PutDown]) -> PutDown:
        rushing = self._rushing(view)
        ready = {s for s in view.suits if self._ready(view, s, rushing)}
        candidates = [pd for pd in plays(allowed) if pd.card.suit in ready]
        for pd in candidates:
            if pd.card.is_wager and self._bets_on(view, pd.card.suit):
                return pd
        lowest = [
            pd
            for pd in candidates
            if not pd.card.is_wager and pd.card == numbers(view, pd.card.suit)[0]
        ]
        going = sorted(
            (pd for pd in lowest if started(view, pd.card.suit)),
            key=lambda pd: (skipped(view, pd.card), pd.card.rank),
        )
        if going and (rushing or skipped(view, going[0].card) <= MAX_SKIP):
            return going[0]
        openings = [pd for pd in lowest if not started(view, pd.card.suit)]
        if openings:
            return max(openings, key=lambda pd: points_held(view, pd.card.suit))
        throw = discards(allowed)
        if throw:
            return min(throw, key=lambda pd: (self._cost(view, pd.card, ready), pd.card.rank))
        return going[0] if going else allowed[0]

    def take(self, view: View, put_down: PutDown, card: Card) -> float:
        """A number that is next in line on an expedition it has, or that
        completes a run it will open."""
        if card.is_wager:
            return 0.0
        suit = card.suit
        held = [c.rank for c in numbers(view, suit) if c != put_down.card]
        if started(view, suit) or (not put_down.discard and put_down.card.suit == suit):
            top = view.level(view.seat, suit)
            if not put_down.discard and put_down.card.suit == suit:
                top = put_down.card.rank
            next_up = card.rank - max(1, top) - 1 <= MAX_SKIP or (held and card.rank < min(held))
            return float(card.rank) if next_up else 0.0
        run = len(held) + 1 >= RUN and sum(held) + card.rank >= RUN_POINTS
        return float(card.rank) if run and len(held) + 1 < turns_left(view) else 0.0

    def _rushing(self, view: View) -> bool:
        pending = sum(len(numbers(view, s)) for s in view.suits if started(view, s))
        return view.draw_pile_size <= RUSH_PILE or pending >= turns_left(view) - 1

    def _ready(self, view: View, suit: Suit, rushing: bool) -> bool:
        """Whether it plays ``suit``: an expedition it has, a run it holds,
        or (rushing) a suit whose cards in hand still pay for it in time."""
        if started(view, suit):
            return True
        held = numbers(view, suit)
        if len(held) > turns_left(view):
            return False
        if rushing:
            return sum(c.rank for c in held) >= RUN_POINTS
        return len(held) >= RUN and sum(c.rank for c in held) >= RUN_POINTS

    def _bets_on(self, view: View, suit: Suit) -> bool:
        held = numbers(view, suit)
        return (
            not has_numbers(view, suit)
            and view.draw_pile_size >= WAGER_PILE
            and len(held) >= WAGER_RUN
            and sum(c.rank for c in held) >= WAGER_POINTS
        )

    def _cost(self, view: View, card: Card, ready: set[Suit]) -> float:
        """What discarding ``card`` gives up; it keeps the runs it is building."""
        if dead(view, card):
            own = 0.0
        elif card.suit in ready:
            own = 12.0
        else:
            own = 2.0 * len(numbers(view, card.suit))
        return worth_to_opponent(view, card) + own
