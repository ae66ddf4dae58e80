"""What every panel member shares: reading a view, the rule that ends its
matches, and the shape of a turn (:class:`Member`).

The readings are plain facts a person at the table sees (which cards of a
suit still fit, how many turns are left, whether the opponent can use a
card); each member judges them its own way.

**The rule that ends every match.** The rules allow two players to pass
cards through the discard piles forever. A panel member never does: a card
it takes from a discard pile is *committed*. It takes only a card that fits
its own expedition, never discards a committed card, and never plays a card
above a committed card of the same suit (which would leave the committed
card unplayable). So every committed card stays playable, some turn always
keeps the rule (play the lowest committed card of a suit), a card it took
never returns to a pile, and all its other turns draw from the draw pile:
the round ends whoever the opponent is. (The built-in bots keep the same
rule, written independently in ``lcnet/bots/commitment.py``; the panel
shares no code with them.)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from lcnet.errors import UserError
from lcnet.game.cards import LEVEL_AFTER, THRESHOLD, Card, Suit
from lcnet.game.engine import PutDown, Turn, View

# ------------------------------------------------------------------ the table


def fitting(view: View, suit: Suit) -> list[Card]:
    """This seat's cards of ``suit`` that still fit its expedition: wagers
    first, then numbers low to high (the order they can be played in)."""
    return sorted(
        (c for c in view.hand if c.suit == suit and view.can_play(c)), key=lambda c: c.rank
    )


def numbers(view: View, suit: Suit) -> list[Card]:
    """This seat's number cards of ``suit`` that still fit its expedition, low to high."""
    return [c for c in fitting(view, suit) if not c.is_wager]


def points_held(view: View, suit: Suit) -> int:
    """The points of the number cards in hand that still fit ``suit``'s expedition."""
    return sum(c.rank for c in numbers(view, suit))


def started(view: View, suit: Suit, player: int | None = None) -> bool:
    """Whether ``player`` (default: this seat) has put a card on ``suit``'s expedition."""
    return bool(view.expeditions[view.seat if player is None else player][suit])


def has_numbers(view: View, suit: Suit) -> bool:
    """Whether this seat's expedition of ``suit`` has a number card (no more wagers)."""
    return view.level(view.seat, suit) > 1


def turns_left(view: View) -> int:
    """This seat's turns left, this one included, if everyone draws from the draw pile."""
    return (view.draw_pile_size + 1) // 2


def skipped(view: View, card: Card) -> int:
    """The ranks a play of ``card`` jumps over (0 for a wager or the next rank)."""
    if card.is_wager:
        return 0
    return max(0, card.rank - max(1, view.level(view.seat, card.suit)) - 1)


def dead(view: View, card: Card) -> bool:
    """Whether ``card`` can never go on this seat's expedition any more."""
    return not view.can_play(card)


def worth_to_opponent(view: View, card: Card) -> float:
    """Roughly what the opponent gains if ``card`` reaches it: nothing if it
    no longer fits its expedition, the card's points (a wager: the points it
    would multiply, guessed) on an expedition it has started, a third of that
    on one it has not (it may never open it)."""
    other = view.opponent
    if not view.can_play(card, other):
        return 0.0
    value = 6.0 if card.is_wager else float(card.rank)
    return value if started(view, card.suit, other) else value / 3


# ------------------------------------------------------------- the commitment


def committed(view: View) -> list[Card]:
    """The cards in hand this seat took from a discard pile (it must play them)."""
    return sorted(view.hand_public, key=lambda c: c.id)


def keeps_commitments(view: View, put_down: PutDown) -> bool:
    """Whether ``put_down`` neither discards a committed card nor buries one
    (plays a higher card of its suit while it still fits)."""
    card = put_down.card
    if put_down.discard:
        return card not in view.hand_public
    return all(
        c.suit != card.suit or c.rank >= card.rank or not view.can_play(c) for c in view.hand_public
    )


def allowed_put_downs(view: View) -> list[PutDown]:
    """The legal put-downs that keep the commitments (all legal ones in the
    impossible case that none does, so a member always has a move)."""
    legal = view.legal_put_downs()
    return [pd for pd in legal if keeps_commitments(view, pd)] or legal


def plays(allowed: Sequence[PutDown]) -> list[PutDown]:
    return [pd for pd in allowed if not pd.discard]


def discards(allowed: Sequence[PutDown]) -> list[PutDown]:
    return [pd for pd in allowed if pd.discard]


def fits_after(view: View, put_down: PutDown, card: Card) -> bool:
    """Whether ``card`` fits this seat's expedition once ``put_down`` is made."""
    level = view.level(view.seat, card.suit)
    if not put_down.discard and put_down.card.suit == card.suit:
        level = LEVEL_AFTER[put_down.card.id]
    return level < THRESHOLD[card.id]


def takeable(view: View, put_down: PutDown) -> list[Card]:
    """The discard-pile tops this seat may take after ``put_down``: legal
    draws of cards that will fit its expedition (so it can commit to them)."""
    cards = []
    for draw in view.legal_draws(put_down):
        if draw.suit is None:
            continue
        pile = view.discard_piles[draw.suit]
        # After discarding onto this pile the top would be the card just
        # discarded, but that pile is then not a legal draw.
        if pile and fits_after(view, put_down, pile[-1]):
            cards.append(pile[-1])
    return cards


def finish(view: View, put_down: PutDown, take: Callable[[Card], float] | None = None) -> Turn:
    """The whole turn for ``put_down``: the pile card ``take`` values most
    (only cards it values above 0, and only cards the seat can commit to),
    else the draw pile."""
    draws = view.legal_draws(put_down)
    if take is not None:
        wanted = [(take(c), -c.id, c) for c in takeable(view, put_down)]
        wanted = [w for w in wanted if w[0] > 0]
        if wanted:
            card = max(wanted)[2]
            return Turn(put_down, next(d for d in draws if d.suit == card.suit))
    deck = [d for d in draws if d.suit is None]
    return Turn(put_down, deck[0] if deck else draws[0])


# ------------------------------------------------------------------ a member


class Member:
    """A panel member: it puts down what :meth:`put_down` picks among the
    put-downs that keep its commitments, then takes the pile card
    :meth:`take` values most (if any), else draws from the draw pile.

    Members are deterministic: they keep the random source they are given
    but draw nothing from it, so a match depends only on its deal.
    """

    name = "member"
    quick = True

    def __init__(self, rng: random.Random, **options: str) -> None:
        if options:
            raise UserError(f"the {self.name} bot takes no options (got {', '.join(options)})")
        self.rng = rng

    def choose_turn(self, view: View) -> Turn:
        allowed = allowed_put_downs(view)
        put_down = self.put_down(view, allowed)
        if put_down not in allowed:  # a member's own slip must not cost the match
            put_down = allowed[0]
        return finish(view, put_down, lambda card: self.take(view, put_down, card))

    def put_down(self, view: View, allowed: list[PutDown]) -> PutDown:
        """The card to put down, one of ``allowed``."""
        raise NotImplementedError

    def take(self, view: View, put_down: PutDown, card: Card) -> float:
        """How much this member wants pile card ``card`` after ``put_down``
        (it fits; 0 or less: leave it). By default it never takes one."""
        return 0.0
