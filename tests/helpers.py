"""Small builders shared by the engine tests."""

from __future__ import annotations

from lcnet.game.cards import ALL_CARDS, Card, Suit, deck_size, new_deck, parse_cards
from lcnet.game.engine import Phase, Round, View


def deal(hand0: str, hand1: str, *, suits: int = 5, starter: int = 0, pile: str = "") -> Round:
    """A round where player 0 holds ``hand0`` and player 1 holds ``hand1``
    (8 cards each, card notation), and the draw pile starts with ``pile``;
    the other cards follow in id order."""
    h0, h1, top = parse_cards(hand0), parse_cards(hand1), parse_cards(pile)
    assert len(h0) == 8 and len(h1) == 8
    used = {c.id for c in h0 + h1 + top}
    assert len(used) == 16 + len(top), "a card is listed twice"
    rest = [c for c in new_deck(suits) if c.id not in used]
    return Round.deal([*h0, *h1, *top, *rest], starter)


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def table_view(
    hand: str,
    *,
    mine: str = "",
    theirs: str = "",
    piles: str = "",
    draw_pile: int = 20,
    suits: int = 5,
) -> View:
    """A view for seat 0, to put down. ``mine``/``theirs`` are the expeditions
    (cards in the order played), ``piles`` the discard piles (bottom first).
    Unnamed cards fill the bottoms of the discard piles until the draw pile
    and the opponent's 8 hidden cards are exactly the unseen ones."""
    named = [parse_cards(text) for text in (hand, mine, theirs, piles)]
    used = {c.id for group in named for c in group}
    assert sum(len(g) for g in named) == len(used), "a card is named twice"
    free = [c for c in ALL_CARDS[: deck_size(suits)] if c.id not in used]
    fillers = free[: len(free) - draw_pile - 8]
    assert len(fillers) >= 0 and len(free) - len(fillers) == draw_pile + 8

    def by_suit(cards: list[Card]) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(c for c in cards if c.suit == s) for s in Suit if s < suits)

    return View(
        seat=0,
        suit_count=suits,
        hand=tuple(sorted(named[0], key=lambda c: c.id)),
        expeditions=(by_suit(named[1]), by_suit(named[2])),
        discard_piles=by_suit(fillers + named[3]),
        draw_pile_size=draw_pile,
        opponent_hand_size=8,
        opponent_known=frozenset(),
        hand_public=frozenset(),
        to_move=0,
        phase=Phase.PUT_DOWN,
        discarded_this_turn=None,
    )
