"""The game's keys, written once: the table, when each row applies, and the help.

:data:`KEYS` says which keys the full-screen game (:class:`~lcnet.ui.game.GameUI`)
binds, when they apply (:class:`When`, each a prompt_toolkit filter made by
:func:`filters` from the game's state), what they do and the handler; the
bindings, the help screen (:data:`HELP_TEXT`) and the list in README.md are all
made from it (:mod:`lcnet.ui.keys`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Final, Protocol

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Always, Condition, Filter, has_focus
from prompt_toolkit.keys import Keys

from lcnet.game.cards import HAND_SIZE, Suit
from lcnet.game.engine import Draw
from lcnet.ui.keys import KeyRow, help_rows
from lcnet.ui.tracker import MatchTracker
from lcnet.ui.turn import Confirm, Effect, Stage, TurnInput


class KeyedGame(Protocol):
    """What the keys see of the full-screen game (:class:`lcnet.ui.game.GameUI`):
    the state :func:`filters` reads, and the methods the rows' handlers call.
    The game imports this table; the table never imports the game."""

    @property
    def command(self) -> Buffer: ...
    @property
    def turn(self) -> TurnInput: ...
    @property
    def tracker(self) -> MatchTracker: ...
    @property
    def help_open(self) -> bool: ...
    @property
    def history_open(self) -> bool: ...
    @property
    def ids_open(self) -> bool: ...
    @property
    def alerts(self) -> Sequence[object]: ...
    @property
    def screens(self) -> Sequence[object]: ...
    def too_small(self) -> bool: ...
    def act(self, effects: list[Effect]) -> None: ...
    def ask_rematch(self) -> None: ...
    def ask_hint(self) -> None: ...
    def show_help(self, shown: bool = True) -> None: ...
    def toggle_ids(self) -> None: ...
    def close_ids(self) -> None: ...
    def dismiss_alert(self) -> None: ...
    def next_screen(self) -> None: ...
    def show_history(self, shown: bool = True) -> None: ...
    def scroll_history(self, key: str) -> None: ...
    def start_command(self, text: str) -> None: ...
    def leave_command(self) -> None: ...


HELP_INTRO: Final = """\
Put down one card (on your expedition or its pile), then draw one. Expeditions
rise, wagers (H) first; each scores (sum - 20) x (1 + wagers), +20 at 8+ cards."""
HELP_END: Final = "Bot levels: easy (beginner), medium (greedy), hard (search). Esc, Enter, ?: back"
"""The help's last line: what each level of the bot is (lcnet.bots.LEVELS says it
at length, for --help), and how to leave the help."""
WHEN_WIDTH: Final = 12
KEYS_WIDTH: Final = 17
"""The help's columns: when, keys, then what they do (in 80 columns)."""


class When(enum.Enum):
    """When a key of the game applies (each is a filter made by :func:`filters`)."""

    CARD = "your card"
    """The board, the player's move: choosing the card to put down."""
    DRAW = "the draw"
    """The board, the put-down chosen: choosing where to draw from."""
    BOARD = "the board"
    """The board alone: no screen, question, command or size warning over it."""
    TYPING = "typing"
    """The command line has the keys."""
    NOT_TYPING = "not typing"
    """Anything but the command line, a question or the help."""
    NOT_ASKING = "no question"
    """Anything but a question waiting on the action line."""
    ALWAYS = "always"
    CONFIRMING = "a question"
    """A yes-or-no question waits on the action line."""
    HELP = "the help"
    IDS = "the fingerprints"
    ALERT = "a key warning"
    """A known name came back with a new key (a host goes on waiting after it)."""
    SCREEN = "a summary"
    """A round summary, the result or a dispute over the board."""
    HISTORY = "the moves"
    REMATCH = "the end"
    """The match is over, and another may follow: the player has not said yet."""


def filters(ui: KeyedGame) -> dict[When, Filter]:
    """When each row of :data:`KEYS` applies in ``ui``, as a prompt_toolkit filter."""
    typing = has_focus(ui.command)
    confirming = Condition(lambda: ui.turn.confirm is not None)
    helping = Condition(lambda: ui.help_open)
    on_screen = Condition(lambda: bool(ui.screens))
    history = Condition(lambda: ui.history_open) & ~helping & ~confirming
    small = Condition(ui.too_small)
    showing_ids = Condition(lambda: ui.ids_open)
    alerting = Condition(lambda: bool(ui.alerts) and not ui.ids_open)
    board = (
        ~typing & ~confirming & ~helping & ~on_screen & ~history & ~small & ~showing_ids & ~alerting
    )
    return {
        When.CARD: board & Condition(lambda: ui.turn.stage is Stage.CARD),
        When.DRAW: board & Condition(lambda: ui.turn.stage is Stage.DRAW),
        When.BOARD: board,
        When.TYPING: typing,
        When.NOT_TYPING: ~typing & ~confirming & ~helping,
        When.NOT_ASKING: ~confirming,
        When.ALWAYS: Always(),
        When.CONFIRMING: confirming,
        When.HELP: helping & ~confirming,
        When.IDS: showing_ids & ~helping & ~confirming,
        When.ALERT: alerting & ~helping & ~confirming,
        When.SCREEN: on_screen & ~helping & ~confirming & ~showing_ids & ~alerting,
        When.HISTORY: history,
        When.REMATCH: Condition(lambda: ui.tracker.rematch_question() is not None)
        & ~typing
        & ~confirming
        & ~helping,
    }


Row = KeyRow[KeyedGame, When]

COMMAND_STARTS: Final = {"+": "+", "-": "-", "t": "say "}
"""What the command line begins with, by the key that opened it (``t``: a line to the opponent)."""

KEYS: Final[tuple[Row, ...]] = (
    # The bindings' order: when two rows match a key, the later one wins.
    Row(
        ("c-c", Keys.SIGINT.value),
        When.ALWAYS,
        "quit (asks first; a second one confirms)",
        lambda ui, key: ui.act(ui.turn.interrupt()),
    ),
    Row(("y",), When.CONFIRMING, "yes", lambda ui, key: ui.act(ui.turn.confirmed()), listed=False),
    Row(
        ("<any>",), When.CONFIRMING, "no", lambda ui, key: ui.act(ui.turn.cancelled()), listed=False
    ),
    Row(
        ("escape", "enter", "?", "q"),
        When.HELP,
        "close the help",
        lambda ui, key: ui.show_help(False),
        listed=False,
    ),
    Row(
        ("i",),
        When.NOT_TYPING,
        "who you play: both players' key fingerprints",
        lambda ui, key: ui.toggle_ids(),
    ),
    Row(("escape", "enter"), When.IDS, "close them", lambda ui, key: ui.close_ids(), listed=False),
    Row(
        ("escape", "enter"),
        When.ALERT,
        "go on waiting",
        lambda ui, key: ui.dismiss_alert(),
        listed=False,
    ),
    Row(
        ("enter", "space", "escape"),
        When.SCREEN,
        "leave a round summary",
        lambda ui, key: ui.next_screen(),
        listed=False,
    ),
    Row(
        ("q",),
        When.NOT_TYPING,
        "quit (asks first while the match runs)",
        lambda ui, key: ui.act(ui.turn.ask(Confirm.QUIT)),
    ),
    Row(
        ("a",),
        When.REMATCH,
        "another match, the seats swapped (the result screen offers it)",
        lambda ui, key: ui.ask_rematch(),
        listed=False,
    ),
    Row(
        ("f1",),
        When.NOT_ASKING,
        "the help screen (these keys)",
        lambda ui, key: ui.show_help(),
        listed=False,
    ),
    Row(
        ("m", "escape", "enter"),
        When.HISTORY,
        "close the moves",
        lambda ui, key: ui.show_history(False),
        listed=False,
    ),
    Row(
        ("up", "down", "pageup", "pagedown"),
        When.HISTORY,
        "scroll (Up and PageUp go back in time)",
        lambda ui, key: ui.scroll_history(key),
        listed=False,
    ),
    Row(
        ("enter",),
        When.CARD,
        "say that p or d chooses the put-down",
        lambda ui, key: ui.act(ui.turn.hint()),
        listed=False,
    ),
    Row(
        (":", "tab", "+", "-", "t"),
        When.BOARD,
        "type +r7 deck, say LINE (t), help, resign, quit",
        lambda ui, key: ui.start_command(COMMAND_STARTS.get(key, "")),
    ),
    Row(
        ("m",),
        When.BOARD,
        "every move of this round, both players",
        lambda ui, key: ui.show_history(),
    ),
    Row(
        ("R",),
        When.BOARD,
        "resign (asks first)",
        lambda ui, key: ui.act(ui.turn.ask(Confirm.RESIGN)),
    ),
    Row(
        ("h",),
        When.BOARD,
        "hint: the bot's suggestion, from your view only",
        lambda ui, key: ui.ask_hint(),
    ),
    Row(("?",), When.BOARD, "the help screen (these keys)", lambda ui, key: ui.show_help()),
    Row(
        ("escape",),
        When.TYPING,
        "leave the command line",
        lambda ui, key: ui.leave_command(),
        listed=False,
    ),
    Row(
        ("left", "right", *"123456789"),
        When.CARD,
        "choose one (a + under it: it fits your expedition)",
        lambda ui, key: ui.act(_choose_card(ui.turn, key)),
        label=f"Left/Right, 1-{HAND_SIZE}",
    ),
    Row(
        ("p",),
        When.CARD,
        "play it on its expedition",
        lambda ui, key: ui.act(ui.turn.put_selected(discard=False)),
    ),
    Row(
        ("d", "x"),
        When.CARD,
        "discard it onto its suit's pile",
        lambda ui, key: ui.act(ui.turn.put_selected(discard=True)),
    ),
    Row(
        ("d", "enter"),
        When.DRAW,
        "draw from the draw pile",
        lambda ui, key: ui.act(ui.turn.choose_draw(Draw(None))),
    ),
    Row(
        tuple(suit.letter for suit in Suit),
        When.DRAW,
        "take the top card of that suit's pile",
        lambda ui, key: ui.act(ui.turn.choose_draw(Draw(Suit.parse(key)))),
        label=" ".join(suit.letter for suit in Suit),
    ),
    Row(
        ("escape", "backspace"),
        When.DRAW,
        "take the card back",
        lambda ui, key: ui.act(ui.turn.take_back()),
    ),
)
"""The game's keys: the bindings, the help screen and README.md's list come from here."""
LISTED_ORDER: Final = (When.CARD, When.DRAW, When.BOARD, When.NOT_TYPING, When.ALWAYS)
"""The groups of keys the help and README list, in order (the others are said where they apply)."""
HELP_TEXT: Final = "\n".join(
    [HELP_INTRO, *help_rows(KEYS, LISTED_ORDER, when_width=WHEN_WIDTH, keys_width=KEYS_WIDTH)]
)


def _choose_card(turn: TurnInput, key: str) -> list[Effect]:
    if key in ("left", "right"):
        return turn.move_selection(-1 if key == "left" else +1)
    return turn.pick(int(key))
