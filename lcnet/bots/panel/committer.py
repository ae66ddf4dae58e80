"""``committer``: opens only a suit it already holds the points for.

How people describe the careful way to play: an expedition costs 20 points,
so open one only when the cards in your hand already pay for it; then play
it low to high; throw away what you will never use (cards below your
expedition's top, suits you will never open), giving the opponent as little
as you can; bet (play a wager) only early and only on a strong suit.
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

COMMIT_POINTS: Final = 20
"""Points of a suit in hand before it opens the suit: what an expedition costs."""
HOPELESS_POINTS: Final = 10
"""An unopened suit with fewer points in hand is one it will never open."""
HOPE_PILE: Final = 20
"""Below this many cards in the draw pile, every suit short of COMMIT_POINTS is hopeless."""
WAGER_POINTS: Final = 25
"""Points of the suit in hand before it bets on it."""
WAGER_PILE: Final = 30
"""It bets only while the draw pile holds at least this many cards (early)."""
MAX_SKIP: Final = 2
"""Ranks it jumps over at most when it plays on, unless the round is running out."""


class Committer(Member):
    """Opens a suit only with 20 points of it in hand, plays low to high,
    discards what it will never use, bets only early on a strong suit."""

    name = "committer"

    def put_down(self, view: View, allowed: list[PutDown]) -> PutDown:
        in_play = self._suits_in_play(view)
        options = [pd for pd in plays(allowed) if pd.card.suit in in_play]
        bets = [pd for pd in options if pd.card.is_wager and self._bets_on(view, pd.card.suit)]
        if bets:
            return bets[0]
        # Low to high: in each suit only its lowest number is a candidate.
        lowest = [pd for pd in options if not pd.card.is_wager and _is_lowest(view, pd.card)]
        going = sorted(
            (pd for pd in lowest if started(view, pd.card.suit)),
            key=lambda pd: (skipped(view, pd.card), pd.card.rank),
        )
        pending = sum(len(numbers(view, s)) for s in in_play if started(view, s))
        if going and (skipped(view, going[0].card) <= MAX_SKIP or pending >= turns_left(view)):
            return going[0]
        openings = [pd for pd in lowest if not started(view, pd.card.suit)]
        if openings:
            return max(openings, key=lambda pd: points_held(view, pd.card.suit))
        useless = [pd for pd in discards(allowed) if self._useless(view, pd.card, in_play)]
        if useless:
            return min(useless, key=lambda pd: (worth_to_opponent(view, pd.card), pd.card.rank))
        if going:
            return going[0]
        throw = discards(allowed)
        if throw:
            return min(throw, key=lambda pd: self._keep(view, pd.card, in_play))
        return allowed[0]

    def take(self, view: View, put_down: PutDown, card: Card) -> float:
        """A number for an expedition it has (or opens now) that it will play
        next or soon: at most MAX_SKIP ranks above its top, or below every
        card of the suit it holds."""
        opening = not put_down.discard and put_down.card.suit == card.suit
        if card.is_wager or not (started(view, card.suit) or opening):
            return 0.0
        top = put_down.card.rank if opening else view.level(view.seat, card.suit)
        held = [c.rank for c in numbers(view, card.suit) if c != put_down.card]
        soon = card.rank - max(1, top) - 1 <= MAX_SKIP or (bool(held) and card.rank < min(held))
        return float(card.rank) if soon else 0.0

    def _suits_in_play(self, view: View) -> set[Suit]:
        """Its expeditions, and the suits it holds enough points to open in time."""
        return {
            s
            for s in view.suits
            if started(view, s)
            or (points_held(view, s) >= COMMIT_POINTS and len(fitting(view, s)) <= turns_left(view))
        }

    def _bets_on(self, view: View, suit: Suit) -> bool:
        return (
            not has_numbers(view, suit)
            and view.draw_pile_size >= WAGER_PILE
            and points_held(view, suit) >= WAGER_POINTS
        )

    def _useless(self, view: View, card: Card, in_play: set[Suit]) -> bool:
        """A card it will never play: dead, a wager it will not bet, or of a
        suit it will never open."""
        if dead(view, card):
            return True
        if card.is_wager and not self._bets_on(view, card.suit):
            return card.suit not in in_play or view.draw_pile_size < WAGER_PILE
        if card.suit in in_play:
            return False
        held = points_held(view, card.suit)
        return held < HOPELESS_POINTS or view.draw_pile_size < HOPE_PILE

    def _keep(self, view: View, card: Card, in_play: set[Suit]) -> tuple[float, int]:
        """What discarding ``card`` gives away: to the opponent, and of its own hopes."""
        own = 10.0 if card.suit in in_play else points_held(view, card.suit) / 2
        return worth_to_opponent(view, card) + own, card.rank


def _is_lowest(view: View, card: Card) -> bool:
    held = numbers(view, card.suit)
    return bool(held) and held[0] == card
