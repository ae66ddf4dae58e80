"""The shared board: what it shows, that it fits 80 columns, and the no-colour mode."""

from __future__ import annotations

from lcnet.game.cards import Card, Suit, parse_cards
from lcnet.game.engine import Round, Turn
from lcnet.ui.board import (
    SCREEN_WIDTH,
    Board,
    DrawChoices,
    Hand,
    Side,
    Where,
    board_from_table,
    board_lines,
    interactive_hand_lines,
    make_style,
    no_color,
    plain,
    scoring_lines,
    scoring_text,
    width_of,
)
from tests.helpers import deal

LONG_NAME = "W" * 32  # the longest display name an identity may have


def full_suit(suit: Suit) -> tuple[Card, ...]:
    return tuple(c for c in parse_cards(" ".join(f"{suit.letter}{r}" for r in RANKS)))


RANKS = ("H1", "H2", "H3", "2", "3", "4", "5", "6", "7", "8", "9", "10")


def crowded_board() -> Board:
    """The widest board there can be: 6 suits, every expedition 12 cards long."""
    suits = tuple(Suit)
    exps = tuple(full_suit(s) for s in suits)
    hand = tuple(parse_cards("yH1 y10 bH2 b10 wH3 w10 g10 r10"))
    return Board(
        suits=suits,
        top=Side(LONG_NAME, exps, Hand(8, None, hand[:6]), -9999),
        bottom=Side(LONG_NAME, exps, Hand(8, hand), 9999),
        discard_piles=tuple((c,) for c in parse_cards("y10 b10 w10 g10 r10 p10")),
        draw_pile_size=56,
        round=10,
        rounds=10,
        turn=999,
        to_move=Where.TOP,
    )


def test_the_widest_board_fits_80_columns() -> None:
    board = crowded_board()
    draw = DrawChoices(deck=True, piles=frozenset(Suit), blocked=None)
    for lines in (board_lines(board), board_lines(board, draw=draw)):
        assert max(width_of(line) for line in lines) <= SCREEN_WIDTH


def test_the_board_of_six_suits_leaves_room_on_a_24_row_screen() -> None:
    # The game adds a title, two hand rows, two last moves and four bars.
    assert len(board_lines(crowded_board(), bottom_hand=False)) <= 24 - 9


def test_each_suit_row_names_its_suit_and_shows_values_and_pile_top() -> None:
    table = deal("r4 r6 r8 b2 b3 y5 y6 g2", "w2 w3 w4 w5 w6 w7 w8 w9")
    table.push_turn(Turn.parse("+r4 deck"), 0)
    table.push_turn(Turn.parse("-w2 deck"), 1)
    board = board_from_table(
        table,
        top=1,
        names=("Bob", "Ada"),
        totals=(0, 0),
        show_hands=[0],
        round_number=1,
        rounds=3,
        turn=2,
    )
    text = plain(board_lines(board))
    red = next(line for line in text if " red " in line)
    assert red.rstrip().endswith("-16")  # 4 - 20
    assert red.split("red")[1].split()[:2] == ["-", "4"]  # empty red pile, then Ada's r4
    white = next(line for line in text if "white" in line)
    assert "w2" in white  # the white pile's top card, suit letter included
    assert any("Ada" in line and "< to move" in line for line in text)


def test_a_hidden_hand_shows_its_size_and_the_cards_known_in_it() -> None:
    board = crowded_board()
    text = plain(board_lines(board))
    assert "  hand: 8 cards, hidden; known: yH1 y10 bH2 b10 wH3 w10" in text


def test_draw_choices_bracket_the_legal_piles_and_mark_the_blocked_one() -> None:
    table = deal("r4 r6 r8 b2 b3 y5 y6 g2", "w2 w3 w4 w5 w6 w7 w8 w9")
    table.push_turn(Turn.parse("-y5 deck"), 0)
    table.push_turn(Turn.parse("-w2 deck"), 1)
    board = board_from_table(
        table,
        top=1,
        names=("Bob", "Ada"),
        totals=(0, 0),
        show_hands=[0],
        round_number=1,
        rounds=3,
        turn=2,
    )
    draw = DrawChoices(deck=True, piles=frozenset({Suit.YELLOW}), blocked=Suit.WHITE)
    text = "\n".join(plain(board_lines(board, draw=draw)))
    assert "[y5]" in text
    assert "xw2" in text
    assert "[draw pile 42]" in text


def test_the_interactive_hand_brackets_the_choice_and_marks_what_fits() -> None:
    hand = parse_cards("yH1 y4 b4")
    cards_row, keys_row = plain(
        interactive_hand_lines(hand, selected=1, playable=frozenset(hand[:2]), active=True)
    )
    assert "[y4]" in cards_row and " yH1 " in cards_row
    assert keys_row.split() == ["1+", "2+", "3"]


def test_scoring_is_spelled_out_like_the_rules_examples() -> None:
    assert scoring_text(parse_cards("y2 y3 y7 y8 y10")) == "(30 - 20) × 1 = +10"
    assert scoring_text(parse_cards("rH1 rH2 r4 r5 r6 r7 r8 r10")) == "(40 - 20) × 3 + 20 = +80"
    assert scoring_text(parse_cards("gH1 g4 g6 g7")) == "(17 - 20) × 2 = -6"
    assert scoring_text(()) == "not started: 0"


def test_a_round_summary_of_full_expeditions_fits_80_columns() -> None:
    exps = tuple(full_suit(s) for s in Suit)
    lines = scoring_lines(LONG_NAME, tuple(Suit), exps)
    assert max(width_of(line) for line in lines) <= SCREEN_WIDTH
    assert len(lines) == 1 + len(Suit)


def test_no_color_is_any_non_empty_value() -> None:
    assert no_color({"NO_COLOR": "1"})
    assert no_color({"NO_COLOR": "yes please"})
    assert not no_color({"NO_COLOR": ""})
    assert not no_color({})


def test_the_no_color_style_has_no_colours_but_keeps_the_selection_visible() -> None:
    mono = make_style(monochrome=True)
    colour = make_style(monochrome=False)
    attrs = mono.get_attrs_for_style_str("class:suit.red class:selected")
    assert attrs.color in ("", None) and attrs.bgcolor in ("", None)
    assert attrs.reverse
    assert colour.get_attrs_for_style_str("class:suit.red").color == "ansired"


def test_suits_are_readable_without_colour() -> None:
    # Every suit row carries the suit's name and the pile's top card its
    # letter, so the plain text alone tells the suits apart.
    text = plain(board_lines(crowded_board()))
    for suit in Suit:
        assert any(suit.name.lower() in line for line in text)


def test_a_board_from_a_fresh_round_shows_no_values() -> None:
    table = Round.new(1)
    board = board_from_table(
        table,
        top=1,
        names=("a", "b"),
        totals=(0, 0),
        show_hands=[],
        round_number=1,
        rounds=3,
        turn=0,
    )
    rows = plain(board_lines(board))[3:8]
    assert all(not any(ch.isdigit() for ch in row.replace("draw pile 44", "")) for row in rows)
