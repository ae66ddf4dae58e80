"""Small builders shared by the engine tests."""

from __future__ import annotations

from lcnet.cards import Card, new_deck, parse_cards
from lcnet.engine import Round


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
