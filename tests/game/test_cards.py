"""Cards, suits, notation and decks."""

from __future__ import annotations

import pickle
import random

import pytest

from lcnet.errors import InvalidCardError, LcnetError
from lcnet.game.cards import (
    ALL_CARDS,
    WAGER,
    Card,
    Suit,
    new_deck,
    parse_cards,
    shuffled_deck,
    suits_for,
)


@pytest.mark.parametrize(
    ("text", "suit", "rank", "copy"),
    [
        ("r7", Suit.RED, 7, 1),
        ("w10", Suit.WHITE, 10, 1),
        ("gH", Suit.GREEN, WAGER, 1),
        ("gH3", Suit.GREEN, WAGER, 3),
        ("Y2", Suit.YELLOW, 2, 1),
        (" b9 ", Suit.BLUE, 9, 1),
        ("ph2", Suit.PURPLE, WAGER, 2),
    ],
)
def test_parse_reads_the_notation(text: str, suit: Suit, rank: int, copy: int) -> None:
    assert Card.parse(text) == Card(suit, rank, copy)


@pytest.mark.parametrize("card", ALL_CARDS)
def test_str_and_repr_round_trip_for_every_card(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert eval(repr(card), {"Card": Card}) == card


@pytest.mark.parametrize(
    "text", ["", "r", "r1", "r11", "x7", "rH4", "rH0", "r07", "r 7", "7r", "rHH"]
)
def test_bad_text_is_an_invalid_card_error(text: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        Card.parse(text)
    assert isinstance(info.value, LcnetError)
    assert repr(text) in str(info.value)


def test_impossible_cards_cannot_be_built() -> None:
    with pytest.raises(InvalidCardError):
        Card(Suit.RED, 11)
    with pytest.raises(InvalidCardError):
        Card(Suit.RED, 5, 2)
    with pytest.raises(InvalidCardError):
        Card(Suit.RED, WAGER, 4)


def test_cards_are_frozen_and_pickle_to_themselves() -> None:
    card = Card.parse("b5")
    with pytest.raises(AttributeError):
        card.rank = 6  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(card)) == card


def test_ids_are_stable_and_order_by_suit_wager_rank() -> None:
    assert [c.id for c in ALL_CARDS] == list(range(72))
    assert Card.parse("yH1").id == 0
    assert Card.parse("y2").id == 3
    assert Card.parse("b10").id == 23
    assert Card.from_id(Card.parse("pH3").id) == Card.parse("pH3")
    with pytest.raises(InvalidCardError):
        Card.from_id(72)
    with pytest.raises(InvalidCardError):
        Card.from_id(-1)


def test_three_wagers_of_a_suit_are_distinct_cards() -> None:
    wagers = parse_cards("rH1 rH2 rH3")
    assert len(set(wagers)) == 3
    assert all(w.is_wager and w.points == 0 for w in wagers)


@pytest.mark.parametrize(("suits", "size"), [(5, 60), (6, 72)])
def test_a_deck_has_twelve_cards_per_suit(suits: int, size: int) -> None:
    deck = new_deck(suits)
    assert len(deck) == len(set(deck)) == size
    for suit in suits_for(suits):
        in_suit = [c for c in deck if c.suit == suit]
        assert sorted(c.rank for c in in_suit) == [0, 0, 0, *range(2, 11)]


def test_six_suits_add_purple_only() -> None:
    assert suits_for(5) == (Suit.YELLOW, Suit.BLUE, Suit.WHITE, Suit.GREEN, Suit.RED)
    assert suits_for(6)[-1] is Suit.PURPLE
    with pytest.raises(ValueError):
        suits_for(4)


def test_shuffling_is_deterministic_for_a_seed_and_source() -> None:
    assert shuffled_deck(5, 42) == shuffled_deck(5, 42)
    assert shuffled_deck(5, random.Random(42)) == shuffled_deck(5, 42)
    assert shuffled_deck(5, 42) != shuffled_deck(5, 43)
    assert sorted(shuffled_deck(6, 1)) == sorted(new_deck(6))


def test_suit_parses_letters_and_names() -> None:
    assert Suit.parse("g") is Suit.GREEN
    assert Suit.parse("Purple") is Suit.PURPLE
    with pytest.raises(InvalidCardError):
        Suit.parse("orange")
