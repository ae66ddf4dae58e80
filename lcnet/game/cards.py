"""Cards, suits and decks of Lost Cities, and their text notation.

Notation (case-insensitive when parsed, printed as shown):

* a card is a suit letter followed by a rank: ``y`` yellow, ``b`` blue,
  ``w`` white, ``g`` green, ``r`` red, ``p`` purple; ranks ``2``..``10``,
  so ``r7``, ``w10``, ``b2``;
* a wager ("handshake", HS) is ``H`` followed by its copy number 1, 2 or 3:
  ``gH1``, ``gH2``, ``gH3``. The three wagers of a suit are interchangeable
  for the rules but are distinct physical cards (the masked deck and the
  logs must tell them apart). ``gH`` alone parses as ``gH1``.

Every card has a stable integer ``id`` (``suit * 12 + slot``; slots 0-2 are
the wagers, 3-11 the ranks 2..10). Ids order cards by suit, then wagers, then
rank, which is also the order a hand is shown in. The id is what the
protocol and the replay files use.
"""

from __future__ import annotations

import enum
import random as _random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from lcnet.errors import InvalidCardError

WAGER: Final = 0
"""The rank of a wager card (it counts as lower than 2)."""

NUMBER_RANKS: Final = tuple(range(2, 11))
WAGER_COPIES: Final = 3
CARDS_PER_SUIT: Final = WAGER_COPIES + len(NUMBER_RANKS)  # 12
DEFAULT_SUITS: Final = 5
ALLOWED_SUIT_COUNTS: Final = (5, 6)
HAND_SIZE: Final = 8
"""Cards dealt to each player, with 5 or 6 suits alike (RULES.md)."""


class Suit(enum.IntEnum):
    """An expedition colour. Purple is the optional sixth suit."""

    YELLOW = 0
    BLUE = 1
    WHITE = 2
    GREEN = 3
    RED = 4
    PURPLE = 5

    @property
    def letter(self) -> str:
        return _SUIT_LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse a suit from its letter (``r``) or its name (``red``)."""
        key = text.strip().lower()
        for suit in cls:
            if key in (suit.letter, suit.name.lower()):
                return suit
        raise InvalidCardError(f"unknown suit {text!r}: use one of y b w g r p")

    def __str__(self) -> str:
        return self.name.lower()


_SUIT_LETTERS: Final = "ybwgrp"


def suits_for(count: int) -> tuple[Suit, ...]:
    """The suits of a game with ``count`` suits (5, or 6 with purple)."""
    if count not in ALLOWED_SUIT_COUNTS:
        raise ValueError(f"a game has 5 or 6 suits, not {count}")
    return tuple(Suit)[:count]


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One physical card: its suit, rank (``WAGER`` or 2..10) and copy.

    Number cards are unique in their suit and have copy 1; wagers have
    copies 1, 2 and 3. Cards compare and sort by suit, then rank, then copy.
    """

    suit: Suit
    rank: int
    copy: int = 1
    id: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.suit, Suit):
            raise InvalidCardError(f"not a suit: {self.suit!r}")
        if self.rank == WAGER:
            if not 1 <= self.copy <= WAGER_COPIES:
                raise InvalidCardError(f"a wager copy is 1, 2 or 3, not {self.copy}")
            slot = self.copy - 1
        elif self.rank in NUMBER_RANKS:
            if self.copy != 1:
                raise InvalidCardError(f"number cards have a single copy, not {self.copy}")
            slot = WAGER_COPIES + self.rank - 2
        else:
            raise InvalidCardError(f"a rank is a wager or 2..10, not {self.rank!r}")
        object.__setattr__(self, "id", int(self.suit) * CARDS_PER_SUIT + slot)

    @property
    def is_wager(self) -> bool:
        return self.rank == WAGER

    @property
    def points(self) -> int:
        """What the card adds to an expedition's sum (0 for a wager)."""
        return self.rank

    @classmethod
    def from_id(cls, card_id: int) -> Card:
        """The card with the given stable id."""
        try:
            if card_id < 0:
                raise IndexError
            return ALL_CARDS[card_id]
        except (IndexError, TypeError):
            raise InvalidCardError(f"no card has id {card_id!r}") from None

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``r7``, ``w10``, ``gH2`` (``gH`` means ``gH1``)."""
        token = text.strip().lower()
        if len(token) < 2:
            raise InvalidCardError(f"not a card: {text!r} (write e.g. r7, w10, gH2)")
        try:
            suit = Suit.parse(token[0])
        except InvalidCardError:
            raise InvalidCardError(
                f"not a card: {text!r}: {token[0]!r} is not a suit letter (y b w g r p)"
            ) from None
        rest = token[1:]
        if rest.startswith("h"):
            copy_text = rest[1:] or "1"
            if copy_text not in ("1", "2", "3"):
                raise InvalidCardError(f"not a card: {text!r}: a wager is written H1, H2 or H3")
            return _BY_KEY[(suit, WAGER, int(copy_text))]
        if rest.isdigit() and int(rest) in NUMBER_RANKS and rest == str(int(rest)):
            return _BY_KEY[(suit, int(rest), 1)]
        raise InvalidCardError(f"not a card: {text!r}: the rank is H (wager) or 2..10")

    def __str__(self) -> str:
        if self.rank == WAGER:
            return f"{self.suit.letter}H{self.copy}"
        return f"{self.suit.letter}{self.rank}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_id, (self.id,))


def _build_all_cards() -> tuple[Card, ...]:
    cards: list[Card] = []
    for suit in Suit:
        cards.extend(Card(suit, WAGER, copy) for copy in range(1, WAGER_COPIES + 1))
        cards.extend(Card(suit, rank) for rank in NUMBER_RANKS)
    assert [c.id for c in cards] == list(range(len(cards)))
    return tuple(cards)


ALL_CARDS: Final = _build_all_cards()
"""Every card of the 6-suit game, indexed by id (the 5-suit game is the first 60)."""

_BY_KEY: Final = {(c.suit, c.rank, c.copy): c for c in ALL_CARDS}

# Per-card tables indexed by card id, for the hot paths of the engine and the
# bots' simulator (which never build Card objects there).
SUIT_OF: Final = tuple(c.id // CARDS_PER_SUIT for c in ALL_CARDS)
RANK_OF: Final = tuple(c.rank for c in ALL_CARDS)
"""A card's rank; 0 for a wager (which also adds 0 to an expedition's sum)."""
# An expedition's "level" is 0 when empty, 1 after wagers only, else its
# highest number. A card may be played iff level < threshold(card): a wager
# needs level <= 1 (no number yet), a number n needs level < n.
LEVEL_AFTER: Final = tuple(1 if c.is_wager else c.rank for c in ALL_CARDS)
"""An expedition's level after this card: 1 after wagers only, else the number."""
THRESHOLD: Final = tuple(2 if c.is_wager else c.rank for c in ALL_CARDS)
"""A card fits on an expedition iff the expedition's level is below this."""


def parse_cards(text: str) -> list[Card]:
    """Parse a whitespace- or comma-separated list of cards."""
    return [Card.parse(tok) for tok in text.replace(",", " ").split()]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def deck_size(suit_count: int) -> int:
    if suit_count not in ALLOWED_SUIT_COUNTS:
        raise ValueError(f"a game has 5 or 6 suits, not {suit_count}")
    return suit_count * CARDS_PER_SUIT


def new_deck(suit_count: int = DEFAULT_SUITS) -> list[Card]:
    """All cards of a game with ``suit_count`` suits, in id order."""
    return list(ALL_CARDS[: deck_size(suit_count)])


def shuffled_deck(
    suit_count: int = DEFAULT_SUITS, rng: _random.Random | int | None = None
) -> list[Card]:
    """A deck shuffled by a caller-supplied source of randomness.

    ``rng`` is a :class:`random.Random` or a seed for one; the same seed
    always gives the same order. ``None`` seeds from the operating system.
    """
    source = rng if isinstance(rng, _random.Random) else _random.Random(rng)
    deck = new_deck(suit_count)
    source.shuffle(deck)
    return deck


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Cards in display order: by suit, then wagers, then rank (their id order)."""
    return sorted(cards, key=lambda c: c.id)
