"""The table of a Lost Cities round as styled text lines, shared by the game and the replay viewer.

A :class:`Board` is a neutral picture of one moment of a round: two sides
(the top one is the opponent, or the joiner in a replay; the bottom one is
"you", or the host), each with its expeditions, its hand as far as it may be
shown, and its scores; the discard piles; the draw pile. It is built from a
seat's :class:`~lcnet.game.engine.View` (the game) or from a full
:class:`~lcnet.game.engine.Round` (the replay viewer) and rendered into lines of
prompt_toolkit ``(style, text)`` fragments that always fit
:data:`SCREEN_WIDTH` columns. :func:`plain` turns the same lines into text
for the line mode and for tests.

Each suit has its own row: the top side's expedition right-aligned toward
the middle, the suit's name and its discard pile's top card in the middle,
the bottom side's expedition to the right; each expedition's current value
at the outer ends. Inside a row only ranks are shown (``H`` is a wager); the
row is labelled with the suit's name, so colour never carries information
alone, which is what makes the ``NO_COLOR`` mode readable.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from lcnet.game.cards import Card, Suit, format_cards
from lcnet.game.engine import BONUS, BONUS_LENGTH, EXPEDITION_COST, Round, View, expedition_value
from lcnet.textsafe import shown

SCREEN_WIDTH: Final = 80
"""The narrowest terminal lcnet supports (the classic 80x24)."""
SCREEN_HEIGHT: Final = 24

NAME_WIDTH: Final = 24
"""Longest player name shown on the board; longer names are cut (identity names may be 32)."""

VALUE_WIDTH: Final = 4
"""An expedition's value: -80 (three wagers alone) to +156 (a full expedition)."""
CARDS_WIDTH: Final = 25
"""Ranks of a whole expedition, ``H H H 2 3 4 5 6 7 8 9 10``: 24 characters, plus a margin."""
MIDDLE_WIDTH: Final = 18
"""Between the two expeditions: the suit's name (at most 6 letters) and its
discard pile's top card (``[y10]`` when it may be drawn), with spacing."""
HAND_SLOT_WIDTH: Final = 6
"""One card of the interactive hand: ``[yH1]`` plus a space."""
HAND_LABEL_WIDTH: Final = 12

NO_COLOR_ENV: Final = "NO_COLOR"
"""https://no-color.org: any non-empty value turns colours off."""

SUIT_NAMES: Final = {suit: suit.name.lower() for suit in Suit}

SUIT_COLOURS: Final = {
    Suit.YELLOW: "ansiyellow",
    Suit.BLUE: "ansibrightblue",
    Suit.WHITE: "ansiwhite bold",
    Suit.GREEN: "ansigreen",
    Suit.RED: "ansired",
    Suit.PURPLE: "ansimagenta",
}

# Style classes. The colour style gives them colours; the NO_COLOR style
# gives the ones that carry meaning an attribute (reverse, bold, underline)
# so that nothing relies on colour.
COLOUR_STYLE: Final = {
    **{f"suit.{SUIT_NAMES[s]}": colour for s, colour in SUIT_COLOURS.items()},
    "title": "reverse bold",
    "status": "reverse",
    "status.turn": "reverse bold",
    "header": "bold",
    "dim": "ansibrightblack",
    "label": "bold",
    "tomove": "bold ansibrightcyan",
    "selected": "reverse bold",
    "legal": "underline bold",
    "blocked": "ansibrightblack",
    "error": "ansired bold",
    "notice": "ansicyan",
    "banner": "reverse bold",
    "banner.dispute": "bg:ansired ansiwhite bold",
    "banner.warning": "bg:ansiyellow ansiblack bold",
    "command": "",
    "positive": "ansigreen",
    "negative": "ansired",
}
MONO_STYLE: Final = {
    "title": "reverse bold",
    "status": "reverse",
    "status.turn": "reverse bold",
    "header": "bold",
    "label": "bold",
    "tomove": "bold",
    "selected": "reverse bold",
    "legal": "underline",
    "error": "bold",
    "banner": "reverse bold",
    "banner.dispute": "reverse bold",
    "banner.warning": "reverse bold",
}


def no_color(environ: Mapping[str, str] | None = None) -> bool:
    """Whether colours are off: ``NO_COLOR`` is set to a non-empty value."""
    env = os.environ if environ is None else environ
    return bool(env.get(NO_COLOR_ENV))


def make_style(monochrome: bool) -> Style:
    """The style for the board's classes, with or without colours."""
    from prompt_toolkit.styles import Style

    return Style.from_dict(dict(MONO_STYLE if monochrome else COLOUR_STYLE))


def suit_class(suit: Suit) -> str:
    return f"class:suit.{SUIT_NAMES[suit]}"


def rank_text(card: Card) -> str:
    """A card inside its suit's row: ``H`` for a wager, else its rank."""
    return "H" if card.is_wager else str(card.rank)


# ------------------------------------------------------------------ model


class Where(enum.Enum):
    """One of the two sides of the board."""

    TOP = "top"
    BOTTOM = "bottom"


@dataclass(frozen=True)
class Hand:
    """A hand as the board may show it."""

    size: int
    cards: tuple[Card, ...] | None
    """The cards in display order, or ``None`` when the hand is hidden."""
    known: tuple[Card, ...] = ()
    """Cards of a hidden hand known to be there (taken from a discard pile)."""


@dataclass(frozen=True)
class Side:
    """One player's side of the table."""

    name: str
    expeditions: tuple[tuple[Card, ...], ...]
    hand: Hand
    total_before: int
    """Match total before this round."""

    @property
    def round_score(self) -> int:
        return sum(expedition_value(e) for e in self.expeditions)

    @property
    def match_total(self) -> int:
        """The running match total, this round's score so far included."""
        return self.total_before + self.round_score


@dataclass(frozen=True)
class Board:
    """The table at one moment, from one point of view."""

    suits: tuple[Suit, ...]
    top: Side
    bottom: Side
    discard_piles: tuple[tuple[Card, ...], ...]
    draw_pile_size: int
    round: int
    rounds: int
    turn: int
    """Turns played in this round so far."""
    to_move: Where | None
    """Whose turn it is (``None`` once the round is over)."""

    def side(self, where: Where) -> Side:
        return self.top if where is Where.TOP else self.bottom

    def top_card(self, suit: Suit) -> Card | None:
        pile = self.discard_piles[suit]
        return pile[-1] if pile else None


def board_from_view(
    view: View,
    *,
    names: tuple[str, str],
    totals: tuple[int, int],
    round_number: int,
    rounds: int,
    turn: int,
) -> Board:
    """The board a player sees: the opponent on top, the player at the bottom.

    ``names`` and ``totals`` are (opponent, player); totals are before this round.
    """
    me, other = view.seat, view.opponent
    to_move = None if view.is_over else (Where.BOTTOM if view.to_move == me else Where.TOP)
    return Board(
        suits=view.suits,
        top=Side(
            names[0],
            view.expeditions[other],
            Hand(view.opponent_hand_size, None, tuple(sorted(view.opponent_known))),
            totals[0],
        ),
        bottom=Side(names[1], view.expeditions[me], Hand(len(view.hand), view.hand), totals[1]),
        discard_piles=view.discard_piles,
        draw_pile_size=view.draw_pile_size,
        round=round_number,
        rounds=rounds,
        turn=turn,
        to_move=to_move,
    )


def board_from_table(
    table: Round,
    *,
    top: int,
    names: tuple[str, str],
    totals: tuple[int, int],
    show_hands: Iterable[int],
    round_number: int,
    rounds: int,
    turn: int,
) -> Board:
    """A board from a full round: player ``top`` on top, the other at the bottom.

    ``names`` and ``totals`` are (top, bottom); only the players in
    ``show_hands`` have their hands shown, the others' are hidden (their
    cards taken from discard piles are still shown as known).
    """
    open_hands = set(show_hands)
    bottom = 1 - top

    def side(player: int, name: str, total: int) -> Side:
        cards = sorted(table.hand(player), key=lambda c: c.id)
        hand = (
            Hand(len(cards), tuple(cards))
            if player in open_hands
            else Hand(len(cards), None, tuple(table.public_hand_cards(player)))
        )
        exps = tuple(tuple(table.expedition(player, s)) for s in table.suits)
        return Side(name, exps, hand, total)

    to_move = None
    if not table.is_over:
        to_move = Where.TOP if table.to_move == top else Where.BOTTOM
    return Board(
        suits=table.suits,
        top=side(top, names[0], totals[0]),
        bottom=side(bottom, names[1], totals[1]),
        discard_piles=tuple(tuple(table.discard_pile(s)) for s in table.suits),
        draw_pile_size=table.draw_pile_size,
        round=round_number,
        rounds=rounds,
        turn=turn,
        to_move=to_move,
    )


# ------------------------------------------------------------ rendering

# Only a type here: the line mode uses these lines as plain text (plain()),
# and importing prompt_toolkit costs each such process about 0.1 s.
if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.styles import Style

    Line = StyleAndTextTuples
else:
    Line = list
"""One screen line as prompt_toolkit fragments (never wider than the screen)."""


@dataclass(frozen=True)
class DrawChoices:
    """What the board highlights while a player chooses where to draw from."""

    deck: bool
    piles: frozenset[Suit]
    blocked: Suit | None = None
    """The pile just discarded onto, which cannot be drawn from this turn."""


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters (with ``~`` marking the cut)."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "~"


def width_of(line: Line) -> int:
    return sum(len(fragment[1]) for fragment in line)


def plain(lines: Iterable[Line]) -> list[str]:
    """The lines as text, trailing spaces removed."""
    return ["".join(fragment[1] for fragment in line).rstrip() for line in lines]


def join_lines(lines: Sequence[Line]) -> StyleAndTextTuples:
    """The lines as one formatted text for a prompt_toolkit control."""
    out: StyleAndTextTuples = []
    for index, line in enumerate(lines):
        if index:
            out.append(("", "\n"))
        out.extend(line)
    return out


def spread(left: Line, right: Line, width: int = SCREEN_WIDTH) -> Line:
    """``left`` and ``right`` on one line of ``width`` columns (``right`` flush right)."""
    gap = width - width_of(left) - width_of(right)
    if gap < 1:
        room = max(width - width_of(right) - 1, 0)
        left = _clip_line(left, room)
        gap = width - width_of(left) - width_of(right)
    return [*left, ("", " " * max(gap, 1)), *right] if right else left


def _clip_line(line: Line, width: int) -> Line:
    out: Line = []
    used = 0
    for fragment in line:
        style, text = fragment[0], fragment[1]
        if used + len(text) > width:
            out.append((style, clip(text, width - used)))
            break
        out.append((style, text))
        used += len(text)
    return out


def signed(value: int) -> str:
    return f"{value:+d}"


def value_style(value: int) -> str:
    return "class:positive" if value > 0 else "class:negative" if value < 0 else ""


def card_fragment(card: Card, *, extra: str = "", text: str | None = None) -> tuple[str, str]:
    """One card in its suit's style (``text`` overrides the notation shown)."""
    style = suit_class(card.suit) + (f" {extra}" if extra else "")
    return (style, str(card) if text is None else text)


def cards_line(cards: Iterable[Card]) -> Line:
    """Cards in notation, each in its suit's style, separated by spaces."""
    out: Line = []
    for index, card in enumerate(cards):
        if index:
            out.append(("", " "))
        out.append(card_fragment(card))
    return out


def side_line(board: Board, where: Where) -> Line:
    """A side's name, whose turn, and its round and match scores."""
    side = board.side(where)
    left: Line = [("class:label", clip(shown(side.name), NAME_WIDTH))]
    if board.to_move is where:
        left.append(("class:tomove", "  < to move"))
    right: Line = [
        ("", "round "),
        (value_style(side.round_score), signed(side.round_score)),
        ("", "   match "),
        (value_style(side.match_total), signed(side.match_total)),
    ]
    return spread(left, right)


def hand_line(side: Side, label: str = "hand") -> Line:
    """A non-interactive hand: its cards, or its size and the cards known in it."""
    head: Line = [("", f"  {label}: ")]
    hand = side.hand
    if hand.cards is not None:
        return [*head, *cards_line(hand.cards)] if hand.cards else [*head, ("class:dim", "empty")]
    out: Line = [*head, ("class:dim", f"{hand.size} cards, hidden")]
    if hand.known:
        out.append(("", "; known: "))
        out.extend(cards_line(hand.known))
    return _clip_line(out, SCREEN_WIDTH)


def column_header(board: Board) -> Line:
    top = clip(shown(board.top.name), CARDS_WIDTH - 1)
    bottom = clip(shown(board.bottom.name), CARDS_WIDTH - 1)
    return [
        ("class:header", " " * (VALUE_WIDTH + 1) + f"{top:>{CARDS_WIDTH}}"),
        ("class:header", f"{'discards':^{MIDDLE_WIDTH}}"),
        ("class:header", f"{bottom:<{CARDS_WIDTH}}"),
    ]


def _ranks(cards: Sequence[Card]) -> str:
    return " ".join(rank_text(c) for c in cards)


def _value_cell(cards: Sequence[Card]) -> tuple[str, str]:
    if not cards:
        return ("", " " * VALUE_WIDTH)
    value = expedition_value(cards)
    return (value_style(value), f"{signed(value):>{VALUE_WIDTH}}")


def suit_row(board: Board, suit: Suit, draw: DrawChoices | None = None) -> Line:
    """One suit: both expeditions, their values, the suit and its pile's top card."""
    style = suit_class(suit)
    mine = board.bottom.expeditions[suit]
    theirs = board.top.expeditions[suit]
    top = board.top_card(suit)
    pile_text = str(top) if top is not None else "-"
    pile_style = style
    if draw is not None:
        if suit in draw.piles:
            pile_text, pile_style = f"[{pile_text}]", f"{style} class:legal"
        elif draw.blocked is suit:
            pile_text, pile_style = f"x{pile_text}", "class:blocked"
    name = SUIT_NAMES[suit]
    return [
        _value_cell(theirs),
        ("", " "),
        (style, f"{_ranks(theirs):>{CARDS_WIDTH}}"),
        ("", "  "),
        (style, f"{name:>6}"),
        ("", " "),
        (pile_style, f"{pile_text:<5}"),
        ("", " " * (MIDDLE_WIDTH - 14)),
        (style, f"{_ranks(mine):<{CARDS_WIDTH}}"),
        ("", " "),
        _value_cell(mine),
    ]


def draw_pile_row(board: Board, draw: DrawChoices | None = None) -> Line:
    text = f"draw pile {board.draw_pile_size}"
    indent = VALUE_WIDTH + 1 + CARDS_WIDTH + 2
    style = ""
    if draw is not None and draw.deck:
        text, style = f"[{text}]", "class:legal"
    return [("", " " * indent), (style, text)]


def table_lines(board: Board, draw: DrawChoices | None = None) -> list[Line]:
    """The column header, one row per suit, and the draw pile."""
    return [
        column_header(board),
        *(suit_row(board, suit, draw) for suit in board.suits),
        draw_pile_row(board, draw),
    ]


def board_lines(
    board: Board, *, draw: DrawChoices | None = None, bottom_hand: bool = True
) -> list[Line]:
    """The whole board; without ``bottom_hand`` the caller draws that hand itself."""
    lines = [
        side_line(board, Where.TOP),
        hand_line(board.top),
        *table_lines(board, draw),
        side_line(board, Where.BOTTOM),
    ]
    if bottom_hand:
        lines.append(hand_line(board.bottom))
    return lines


def interactive_hand_lines(
    cards: Sequence[Card],
    *,
    selected: int | None,
    playable: frozenset[Card],
    active: bool,
    label: str = "your hand",
) -> list[Line]:
    """The player's hand as two rows: the cards, then each card's key and a ``+``
    when it fits on the player's expedition. The ``selected`` card is bracketed
    and reversed; while ``active`` (a card is being chosen), the playable cards
    are underlined."""
    cards_row: Line = [("class:label", f"{label:<{HAND_LABEL_WIDTH}}")]
    keys_row: Line = [("", " " * HAND_LABEL_WIDTH)]
    for index, card in enumerate(cards):
        chosen = index == selected
        extra = ""
        if chosen:
            extra = "class:selected"
        elif active and card in playable:
            extra = "class:legal"
        text = f"[{card}]" if chosen else f" {card} "
        cards_row.append(card_fragment(card, extra=extra, text=text))
        cards_row.append(("", " " * (HAND_SLOT_WIDTH - len(text))))
        mark = f" {index + 1}{'+' if card in playable else ' '}"
        keys_row.append(("" if active else "class:dim", f"{mark:<{HAND_SLOT_WIDTH}}"))
    return [cards_row, keys_row]


# ------------------------------------------------------------- scoring


def scoring_text(cards: Sequence[Card]) -> str:
    """How an expedition scores, e.g. ``(40 - 20) × 3 + 20 = +80``."""
    if not cards:
        return "not started: 0"
    numbers = sum(c.points for c in cards)
    wagers = sum(1 for c in cards if c.is_wager)
    text = f"({numbers} - {EXPEDITION_COST}) × {1 + wagers}"
    if len(cards) >= BONUS_LENGTH:
        text += f" + {BONUS}"
    return f"{text} = {signed(expedition_value(cards))}"


def scoring_lines(
    name: str, suits: Sequence[Suit], expeditions: Sequence[Sequence[Card]]
) -> list[Line]:
    """One player's round, expedition by expedition, with the computation."""
    total = sum(expedition_value(e) for e in expeditions)
    lines: list[Line] = [
        spread(
            [("class:label", clip(shown(name), NAME_WIDTH))],
            [("", "round "), (value_style(total), signed(total))],
        )
    ]
    for suit in suits:
        cards = expeditions[suit]
        lines.append(
            [
                ("", "  "),
                (suit_class(suit), f"{SUIT_NAMES[suit]:<7}"),
                (suit_class(suit), f"{format_cards(cards) if cards else '-':<40}"),
                ("", " "),
                ("", scoring_text(cards)),
            ]
        )
    return lines
