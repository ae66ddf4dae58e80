"""The full-screen terminal game: one player's side of a match, in prompt_toolkit.

:func:`run_tui` shows the board (:mod:`lcnet.ui.board`) of a match behind a
:class:`~lcnet.frontend.MatchClient` and takes the player's moves by keys or
typed in the card notation. Network updates arrive in a background task
(``client.next_update()``), go through a :class:`~lcnet.ui.tracker.MatchTracker`
and redraw the screen; moves go out with ``client.play()``. Nothing here
knows about sockets.

The keys are one table, :data:`KEYS`: which keys, when they apply, what
they do and the handler; the bindings, the help screen (``?``) and the list
in README.md are all made from it. What a turn has chosen so far lives in a
:class:`~lcnet.ui.turn.TurnInput`, which decides what each choice does.

Below 80x24 the board cannot fit: a screen says the size to make the
terminal, and the board comes back on resize. Wider terminals give the
status bar and the messages their whole width (a long message wraps).

An illegal choice is never ignored: the message line says which rule
forbids it (the engine's :class:`~lcnet.errors.IllegalMoveError` reason).
"""

from __future__ import annotations

import asyncio
import enum
import textwrap
from dataclasses import dataclass
from typing import Final

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Always, Condition, Filter, has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output

from lcnet import identity
from lcnet.cards import HAND_SIZE, Card, Suit
from lcnet.engine import Draw, Turn, View
from lcnet.errors import IllegalMoveError, LcnetError
from lcnet.events import DisputeRaised, MatchEnded, RoundVerified
from lcnet.frontend import MatchClient, Status
from lcnet.ui.board import (
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    SUIT_NAMES,
    DrawChoices,
    Line,
    board_lines,
    clip,
    interactive_hand_lines,
    join_lines,
    make_style,
    no_color,
    scoring_lines,
    spread,
    suit_class,
)
from lcnet.ui.fullscreen import Redrawn
from lcnet.ui.keys import ESC_WAIT, KeyRow, help_rows, key_bindings
from lcnet.ui.tracker import YOU, MatchTracker, RoundSummary, explain
from lcnet.ui.turn import Confirm, Do, Effect, Say, Send, Stage, TurnInput

TEXT_WIDTH: Final = SCREEN_WIDTH - 2
"""Wrapped messages leave a margin of one column on each side."""
MAX_ADDRESSES: Final = 8
"""At most this many of a waiting host's addresses on its screen (it fits 80x24)."""
BANNER_LINES: Final = 2
"""Room for the disconnected or dispute banner above the board."""
MIN_COLUMNS: Final = SCREEN_WIDTH
MIN_ROWS: Final = SCREEN_HEIGHT
"""The smallest terminal the board fits (6 suits, a banner, every line): below
it a screen asks for a larger one, and the board comes back on resize."""
MESSAGE_ROWS: Final = 3
"""A long message wraps onto at most this many rows."""
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
    """When a key of the game applies (each is a filter in :meth:`GameUI.filters`)."""

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


@dataclass(frozen=True)
class Screen:
    """A full screen shown over the board until the player moves on."""

    kind: type[object]
    """The event that opened it: RoundVerified, MatchEnded or DisputeRaised."""
    summary: RoundSummary | None = None


class GameUI(Redrawn):
    """The full-screen game for one player (tests drive it through its ``app``)."""

    def __init__(
        self,
        client: MatchClient,
        *,
        input: Input | None = None,
        output: Output | None = None,
        monochrome: bool | None = None,
    ) -> None:
        super().__init__()
        self.client = client
        self.tracker = MatchTracker(client)
        self.monochrome = no_color() if monochrome is None else monochrome
        self.turn = TurnInput(self.tracker, self.view)
        """What the player's turn has chosen so far, and the question waiting, if any."""
        self.help_open = False
        self.history_open = False
        self.history_scroll = 0
        """Rows of the move history hidden below the screen (0: the latest move shows)."""
        self.ids_open = False
        """The players' key fingerprints are shown (the ``i`` key)."""
        self.alerts: list[LcnetError] = []
        """Known names with new keys this host turned away, to show until dismissed."""
        self.screens: list[Screen] = []
        self.message = ""
        self.message_is_error = False
        self.hinting = False
        """The bot is searching for a hint (in a worker thread)."""
        self.command = Buffer(multiline=False, accept_handler=self._accept_command)
        self.app: Application[int] = self._build_app(input, output)
        self.app.ttimeoutlen = ESC_WAIT

    # -- running

    async def run(self) -> int:
        """Run until the player quits; the exit code says how the match stands."""
        result = await self.app.run_async(pre_run=self._start)
        return result

    def _start(self) -> None:
        self.app.create_background_task(self._pump())

    async def _pump(self) -> None:
        """Take the client's updates as they come and redraw."""
        while True:
            try:
                update = await self.client.next_update()
            except LcnetError as exc:
                self.tracker.error = str(exc)
                self._say(f"connection failed: {exc}", error=True)
                return
            except Exception as exc:  # a bug: leave the screen and show the traceback
                self.app.exit(exception=exc)
                return
            lines = self.tracker.apply(update)
            if update.warning is not None:
                self.alerts.append(update.warning)
            event = update.event
            if isinstance(event, RoundVerified) and self.tracker.summaries:
                self.screens.append(Screen(RoundVerified, self.tracker.summaries[-1]))
            elif isinstance(event, MatchEnded | DisputeRaised):
                self.screens.append(Screen(type(event)))
                self.turn.stop()
            if lines:
                # A result or a dispute leads with what matters most.
                ending = isinstance(event, MatchEnded | DisputeRaised)
                self._say(lines[0] if ending else lines[-1])
            else:
                self._changed()

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message, self.message_is_error = text, error
        self._changed()

    def _exit(self) -> None:
        self.app.exit(result=self.tracker.exit_code())

    # -- state

    def view(self) -> View | None:
        return self.tracker.state.view

    def my_move(self) -> bool:
        return self.turn.my_move()

    def hand(self) -> tuple[Card, ...]:
        return self.turn.hand()

    def act(self, effects: list[Effect]) -> None:
        """Carry out what the turn input decided, then redraw."""
        for effect in effects:
            if isinstance(effect, Say):
                self.message, self.message_is_error = effect.text, effect.error
            elif isinstance(effect, Send):
                self.tracker.note_sent()
                self.app.create_background_task(self._send(effect.turn))
            elif effect is Do.EXIT:
                self._exit()
            elif effect is Do.RESIGN:
                self.app.create_background_task(self._resign())
            elif effect is Do.HELP:
                self.help_open = True
            elif effect is Do.HINT:
                self.ask_hint()
        self._changed()

    async def _send(self, turn: Turn) -> None:
        try:
            await self.client.play(turn)
        except IllegalMoveError as exc:
            self._restore_turn()
            self._say(explain(exc), error=True)
        except LcnetError as exc:
            self._restore_turn()
            self._say(f"the move was not sent: {exc}", error=True)
        else:
            self.turn.sent()
            self._changed()

    def ask_hint(self) -> None:
        """Ask the bot for its turn in the player's view; it answers on the message line."""
        view = self.view()
        if view is None or not self.my_move():
            self.act(self.turn.not_your_move())
            return
        if not self.hinting:
            self.hinting = True
            self.app.create_background_task(self._hint(view))
        self._say("the bot is thinking about your move...")

    async def _hint(self, view: View) -> None:
        from lcnet.bots import advice  # the bots load only when a hint is asked for

        try:
            # A search of a fraction of a second: in a worker thread, so that the
            # screen and the connection stay responsive meanwhile.
            hint = await asyncio.to_thread(advice.suggest, view)
        finally:
            self.hinting = False
        if self.view() != view or not self.my_move():
            self._changed()  # the position moved on: the hint is for a turn gone by
            return
        hand = self.hand()
        card = hint.turn.put_down.card
        if self.turn.stage is Stage.CARD and card in hand:
            self.turn.selected = hand.index(card)  # the suggested card comes chosen
        self._say(advice.hint_text(hint))

    def _restore_turn(self) -> None:
        self.turn.not_sent()
        self.tracker.note_not_sent()

    async def _resign(self) -> None:
        try:
            await self.client.resign()
        except LcnetError as exc:
            self._say(f"the resignation was not sent: {exc}", error=True)

    def _accept_command(self, buffer: Buffer) -> bool:
        text = buffer.text
        self.app.layout.focus(self.body_window)
        self.act(self.turn.run_command(text))
        return False  # clear the line

    # -- what the keys open and close (the turn's own keys go to ``turn``)

    def show_help(self, shown: bool = True) -> None:
        self.help_open = shown
        self._changed()

    def toggle_ids(self) -> None:
        self.ids_open = not self.ids_open
        self._changed()

    def close_ids(self) -> None:
        self.ids_open = False
        self._changed()

    def dismiss_alert(self) -> None:
        self.alerts.pop(0)
        self._changed()

    def next_screen(self) -> None:
        """Leave a round summary (a result or a dispute stays until q)."""
        if self.screens[0].kind is RoundVerified:
            self.screens.pop(0)
            self._changed()

    def show_history(self, shown: bool = True) -> None:
        self.history_open = shown
        if shown:
            self.history_scroll = 0  # the latest move shows first
        self._changed()

    def scroll_history(self, key: str) -> None:
        """Up and PageUp go back in time, Down and PageDown forward."""
        step = 1 if key in ("up", "down") else max(self._body_rows() - 3, 1)
        back = key in ("up", "pageup")
        self.history_scroll = max(0, self.history_scroll + (step if back else -step))
        self._changed()

    def start_command(self, key: str) -> None:
        """Move to the command line; ``+`` or ``-`` starts the command with itself."""
        self.app.layout.focus(self.command)
        if key in ("+", "-"):
            self.command.insert_text(key)
        self._changed()

    def leave_command(self) -> None:
        self.command.reset()
        self.app.layout.focus(self.body_window)
        self._changed()

    # -- layout

    def _build_app(self, input: Input | None, output: Output | None) -> Application[int]:
        self.body_window = Window(
            FormattedTextControl(self._body, focusable=True, show_cursor=False),
            wrap_lines=True,  # only a path longer than the screen ever needs it
        )
        command_line = VSplit(
            [
                Window(
                    FormattedTextControl(self._command_prompt),
                    width=lambda: len(self._command_prompt_text()),
                    dont_extend_width=True,
                ),
                Window(BufferControl(self.command), height=1),
            ],
            height=1,
        )
        game = HSplit(
            [
                Window(FormattedTextControl(self._title), height=1, style="class:title"),
                self.body_window,
                Window(FormattedTextControl(self._action), height=1),
                Window(
                    FormattedTextControl(self._message),
                    height=lambda: self._message_rows(),
                    wrap_lines=True,
                ),
                command_line,
                Window(FormattedTextControl(self._status), height=1, style="class:status"),
            ]
        )
        too_small = Condition(self.too_small)
        root = HSplit(
            [
                ConditionalContainer(game, filter=~too_small),
                ConditionalContainer(
                    Window(FormattedTextControl(self._too_small_text), wrap_lines=True),
                    filter=too_small,
                ),
            ]
        )
        return Application(
            layout=Layout(root, focused_element=self.body_window),
            key_bindings=key_bindings(self, KEYS, self.filters()),
            style=make_style(self.monochrome),
            full_screen=True,
            input=input,
            output=output,
            color_depth=ColorDepth.DEPTH_1_BIT if self.monochrome else None,
            mouse_support=False,
        )

    def size(self) -> tuple[int, int]:
        """The terminal's columns and rows, as the output reports them now."""
        size = self.app.output.get_size()
        return size.columns, size.rows

    def width(self) -> int:
        """Columns for the full-width lines (the terminal's, never below the board's)."""
        return max(self.size()[0], SCREEN_WIDTH)

    def too_small(self) -> bool:
        """Whether the board cannot fit: then a screen asks for a larger terminal."""
        columns, rows = self.size()
        return columns < MIN_COLUMNS or rows < MIN_ROWS

    def _too_small_text(self) -> StyleAndTextTuples:
        columns, rows = self.size()
        paragraphs = [
            ("class:banner.warning", "The terminal is too small for the board."),
            (
                "",
                f"It is {columns}×{rows}: make the terminal at least {MIN_COLUMNS}×{MIN_ROWS} "
                "(a larger window or a smaller font). The board comes back as soon as it fits.",
            ),
            (
                ("class:banner.warning", _plain(self._action()))
                if self.turn.confirm is not None
                else ("class:dim", "q quits.")
            ),
        ]
        lines: list[Line] = [
            [(style, line)]
            for style, text in paragraphs
            for line in textwrap.wrap(text, max(columns, 10))
        ]
        return join_lines(lines)

    def _title(self) -> StyleAndTextTuples:
        state = self.tracker.state
        left = "lcnet"
        if state.round_number:
            left += f"  round {state.round_number} of {self.tracker.rounds}"
            left += f"  turn {len(self.tracker.turns) + 1}"
        right = f"you ({self.client.seat}) vs {clip(self.tracker.opponent, 24)} "
        return spread([("", f" {left}")], [("", right)], self.width())

    def _body(self) -> StyleAndTextTuples:
        if self.help_open:
            ids = [f"  {line}" for line in self.tracker.identity_lines()]
            return [("", "\n".join([HELP_TEXT, *ids, HELP_END]))]
        if self.ids_open:
            return join_lines(self._identity_screen())
        failure = self.tracker.failure
        if failure is not None and _key_check(failure) is not None:
            return join_lines(self._key_warning(failure, stopped=True))
        if self.alerts:
            return join_lines(self._key_warning(self.alerts[0], stopped=False))
        if failure is not None and not self.tracker.match_started:
            return join_lines(self._refusal_screen(failure))
        if self.history_open:
            return join_lines(self._history_lines())
        if self.screens:
            return join_lines(self._screen_lines(self.screens[0]))
        lines = self._banner()
        board = self.tracker.board()
        if board is None:
            lines.append([("", "")])
            lines.append([("class:notice", f"  {self._waiting_text()}")])
            lines.append([("", "")])
            lines.extend([("", f"  {line}")] for line in self._join_lines())
            lines.extend([("", f"  {line}")] for line in self._identities())
            return join_lines(lines)
        draw = self._draw_choices()
        lines.extend(board_lines(board, draw=draw, bottom_hand=False))
        view = self.view()
        playable = frozenset(c for c in board.bottom.hand.cards or () if view and view.can_play(c))
        mine = self.my_move()
        lines.extend(
            interactive_hand_lines(
                board.bottom.hand.cards or (),
                selected=self.turn.selected if mine else None,
                playable=playable,
                active=mine and self.turn.stage is Stage.CARD,
            )
        )
        for seat in (self.client.seat.other, self.client.seat):
            move = self.tracker.last_moves.get(seat)
            if move:
                lines.append([("class:dim", "  last: "), ("", clip(move, TEXT_WIDTH - 8))])
        return join_lines(lines)

    def _history_lines(self) -> list[Line]:
        """Every turn of this round, both players, in order (the latest at the bottom)."""
        tracker = self.tracker
        round_number = self.tracker.state.round_number
        head: list[Line] = [
            [("class:banner", f" {f'Round {round_number}: every move, in order':<{TEXT_WIDTH}} ")]
        ]
        moves = tracker.history()
        rows: list[Line] = [
            [("class:dim", f"{number:>4}  "), ("", text)]
            for number, text in enumerate(moves, start=1)
        ]
        if not rows:
            rows = [[("class:dim", "  no move yet in this round")]]
        foot: list[Line] = [
            [("class:dim", "  Up/Down, PageUp/PageDown: scroll   m, Esc or Enter: back")]
        ]
        room = max(self._body_rows() - len(head) - len(foot), 1)
        self.history_scroll = max(0, min(self.history_scroll, len(rows) - room))
        end = len(rows) - self.history_scroll
        shown = rows[max(0, end - room) : end]
        return [*head, *shown, *foot]

    def _body_rows(self) -> int:
        """Rows between the title and the lines below the board."""
        return self.size()[1] - 5 - (self._message_rows() - 1)

    def _banner(self) -> list[Line]:
        tracker = self.tracker
        text = ""
        style = "class:banner.warning"
        if tracker.error is not None:
            text = f"The connection failed: {tracker.error}. Press q to leave."
        elif tracker.stopped_early:
            first = str(tracker.failure) if tracker.failure is not None else tracker.last_notice
            parts = [first, tracker.stopped_text(), "press q to leave"]
            text = ". ".join(sentence(part) for part in parts if part) + "."
        elif tracker.status is Status.DISCONNECTED:
            text = tracker.disconnected_text(self._listening())
        elif tracker.status in (Status.CONNECTING, Status.WAITING_FOR_PEER):
            text = tracker.status.value
            listening = self._listening()
            if listening is not None and tracker.board() is not None:
                text += f"; listening on {listening}"  # a resumed host, on its board
        if not text:
            return []
        # Paths and commands stay whole, wherever the program was installed.
        wrapped = textwrap.wrap(text, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False)
        return [[(style, f" {line:<{TEXT_WIDTH}} ")] for line in wrapped[:BANNER_LINES]]

    def _identities(self) -> list[str]:
        """Both players' key fingerprints, to read aloud to each other before playing."""
        lines = []
        for line in self.tracker.identity_lines():
            if line.startswith("  ! "):  # a caution about the opponent's name: all of it
                lines.extend(textwrap.wrap(line, TEXT_WIDTH - 2, subsequent_indent="    "))
            else:
                lines.append(clip(line, TEXT_WIDTH - 2))
        if self.tracker.opponent_known:
            lines.append("Read the fingerprints to each other: they must match what you see.")
        lines.append("(i shows them again at any time)")
        return lines

    def _listening(self) -> str | None:
        """Where a host listens (a resumed one too), for its banner; None for a joiner."""
        addresses = self.tracker.state.addresses
        if not addresses:
            return None
        more = f" (and {len(addresses) - 1} more)" if len(addresses) > 1 else ""
        return f"{addresses[0]}{more}"

    def _join_lines(self) -> list[str]:
        """While a host waits: where the opponent can join it (the network peer says)."""
        addresses = self.tracker.state.addresses
        if self.tracker.status is not Status.WAITING_FOR_PEER or not addresses:
            return []
        shown = addresses[:MAX_ADDRESSES]
        lines = [
            "The opponent joins with one of:" if len(shown) > 1 else "The opponent joins with:"
        ]
        lines.extend(f"  lcnet join {address}" for address in shown)
        if len(addresses) > len(shown):
            lines.append(f"  (and {len(addresses) - len(shown)} more addresses)")
        lines.append("")
        return lines

    def _identity_screen(self) -> list[Line]:
        """The ``i`` screen: who plays whom, with both key fingerprints."""
        out: list[Line] = [[("class:banner", f" {'Who you play':<{TEXT_WIDTH}} ")], [("", "")]]
        out.extend([("", f" {line}")] for line in self._identities()[:-1])
        out.append([("", "")])
        for text in (
            "lcnet remembers each opponent's key, and refuses a known name that comes "
            "back with another key. Compare the fingerprints with your opponent (in "
            "person, or by phone) the first time you play.",
        ):
            out.extend([("", f" {line}")] for line in textwrap.wrap(text, TEXT_WIDTH))
        out.append([("", "")])
        out.append([("class:dim", " Press Esc, Enter or i to go back.")])
        return out

    def _key_warning(self, warning: LcnetError, *, stopped: bool) -> list[Line]:
        """A known name with a new key: both fingerprints, and what to do."""
        check = _key_check(warning)
        assert check is not None
        name = clip(check.name, 24)
        title = f"WARNING: this may not be {name}"
        out: list[Line] = [
            [("class:banner.dispute", f" {title:<{TEXT_WIDTH}} ")],
            [("", "")],
            [
                ("", f" You know {name} with the key   "),
                ("class:label", f"{check.previous_fingerprint}"),
            ],
            [
                ("", f" but this {'opponent' if stopped else 'peer'} presents   "),
                ("class:error", f"{check.fingerprint}"),
            ],
            [("", "")],
        ]
        texts = [
            identity.same_name_causes(name)
            + " "
            + (
                "Nothing was played, and no file was kept."
                if stopped
                else "This host turned them away and still waits for its opponent."
            ),
            f"What to do: check the new fingerprint with {name} in person. If they "
            f"really have a new key, "
            + (
                f"play again with --accept-new-key {check.fingerprint}, or forget the old "
                f"key with: lcnet id --forget {check.name!r}"
                if stopped
                else f"accept it with: lcnet id --forget {check.name!r} (they then join again)"
            )
            + ". If it is someone else, one of you can take another name: lcnet id --name NAME",
        ]
        for text in texts:
            out.extend(
                [("", f" {line}")]
                for line in textwrap.wrap(
                    text, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False
                )
            )
        out.append([("", "")])
        me = self.tracker.state.fingerprints.get(self.client.seat)
        if me is not None:
            out.append([("class:dim", f" Your own key: {me}")])
        leave = "Press q to leave." if stopped else "Press Enter to go on waiting, q to leave."
        out.append([("class:dim", f" {leave}")])
        return out

    def _refusal_screen(self, failure: LcnetError) -> list[Line]:
        """No match: the one reason (refused, busy, version, unreachable), full width."""
        out: list[Line] = [
            [("class:banner.warning", f" {_failure_title(failure):<{TEXT_WIDTH}} ")],
            [("", "")],
        ]
        text = f"{sentence(str(failure))}. {sentence(self.tracker.stopped_text())}."
        out.extend(
            [("", f" {line}")]
            for line in textwrap.wrap(
                text, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False
            )
        )
        out.append([("", "")])
        out.extend([("", f" {line}")] for line in self._identities()[:-1])
        out.append([("", "")])
        out.append([("class:dim", " Press q to leave.")])
        return out

    def _waiting_text(self) -> str:
        status = self.tracker.status
        if status is Status.WAITING_FOR_PEER:
            return "Waiting for the opponent to connect..."
        if status is Status.CONNECTING:
            return "Connecting..."
        if self.tracker.over:
            return "The match is over."
        return "Shuffling and dealing (both players take part in the masked deal)..."

    def _draw_choices(self) -> DrawChoices | None:
        view, put_down = self.view(), self.turn.put_down
        if self.turn.stage is not Stage.DRAW or put_down is None or view is None:
            return None
        legal = view.legal_draws(put_down)
        blocked = put_down.card.suit if put_down.discard else None
        return DrawChoices(
            deck=any(d.from_deck for d in legal),
            piles=frozenset(d.suit for d in legal if d.suit is not None),
            blocked=blocked,
        )

    def _screen_lines(self, screen: Screen) -> list[Line]:
        tracker = self.tracker
        out: list[Line] = []
        if screen.kind is RoundVerified and screen.summary is not None:
            out.extend(self._summary_lines(screen.summary))
            more = "go on to the next round"
            if tracker.ended is not None or len(tracker.summaries) >= tracker.rounds:
                more = "see the result"
            out.append([("class:dim", f"Press Enter to {more}.")])
            return out
        if screen.kind is MatchEnded:
            out.append([("class:banner", f" {'The match is over':<{TEXT_WIDTH}} ")])
            out.append([("", "")])
        else:
            out.append(
                [("class:banner.dispute", f" {'Dispute: the match stopped':<{TEXT_WIDTH}} ")]
            )
            out.append([("", "")])
        texts = tracker.result_lines() if screen.kind is MatchEnded else tracker.dispute_lines()
        for text in texts:
            # Paths stay whole (the window wraps a path longer than a line).
            wrapped = textwrap.wrap(
                text, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False
            )
            out.extend([("", f" {line}")] for line in wrapped)
        out.append([("", "")])
        out.append([("class:dim", " Press q to leave.")])
        return out

    def _summary_lines(self, summary: RoundSummary) -> list[Line]:
        me, other = self.client.seat, self.client.seat.other
        opponent = self.tracker.opponent
        out: list[Line] = [
            [("class:banner", f" {f'Round {summary.round} is over':<{TEXT_WIDTH}} ")],
        ]
        if summary.expeditions is not None:
            for seat, name in ((me, YOU), (other, opponent)):
                out.extend(scoring_lines(name, summary.suits, summary.expeditions[seat]))
        else:
            out.append(
                [("", f" you {summary.scores[me]:+d}, {opponent} {summary.scores[other]:+d}")]
            )
        out.append(
            [
                ("class:label", " match: "),
                (
                    "",
                    f"you {summary.totals[me]:+d}, {clip(opponent, 24)} {summary.totals[other]:+d}",
                ),
            ]
        )
        return out

    def _action(self) -> StyleAndTextTuples:
        if self.turn.confirm is Confirm.QUIT:
            later = (
                "it is saved: lcnet resume continues it"
                if self.client.replay_path is not None
                else "it is not saved and cannot be continued"
            )
            return [("class:banner.warning", f"Quit the unfinished match ({later})? y/n")]
        if self.turn.confirm is Confirm.RESIGN:
            return [("class:banner.warning", f"Resign? {self.tracker.opponent} wins. y/n")]
        if self.help_open or self.history_open or self.screens:
            return []
        if self.app.layout.has_focus(self.command):
            return [
                (
                    "class:dim",
                    "type a turn (+r7 deck, -b3 g), help, hint, resign or quit; Esc: back",
                )
            ]
        if not self.my_move():
            return []
        if self.turn.stage is Stage.DRAW and self.turn.put_down is not None:
            return self._draw_action()
        card = self.turn.selected_card()
        if card is None:
            return []
        view = self.view()
        fits = view is not None and view.can_play(card)
        suit = SUIT_NAMES[card.suit]
        started = view is not None and bool(view.expeditions[view.seat][card.suit])
        if not fits:
            play = f"(too low for your {suit} expedition)"
        elif started:
            play = f"p: play on your {suit} expedition"
        else:
            play = f"p: start a {suit} expedition"  # there is none to play on yet
        return [
            (suit_class(card.suit), f"{card}"),
            (
                "",
                clip(
                    f"  {play}  d: discard  arrows, 1-{len(self.hand())}: choose",
                    self.width() - len(str(card)),
                ),
            ),
        ]

    def _draw_action(self) -> StyleAndTextTuples:
        view = self.view()
        assert self.turn.put_down is not None and view is not None
        out: StyleAndTextTuples = [("class:label", f"{self.turn.put_down}, then draw: ")]
        legal = view.legal_draws(self.turn.put_down)
        if any(d.from_deck for d in legal):
            out.append(("class:legal", "d"))
            out.append(("", " deck  "))
        for draw in legal:
            if draw.suit is None:
                continue
            top = view.top(draw.suit)
            out.append(("class:legal", draw.suit.letter))
            out.append(("", " "))
            if top is not None:
                out.append((suit_class(draw.suit), str(top)))
            out.append(("", "  "))
        out.append(("class:dim", "Esc: back"))
        return out

    def _message(self) -> StyleAndTextTuples:
        style = "class:error" if self.message_is_error else "class:notice"
        return [(style, "\n".join(self._message_lines()))]

    def _message_lines(self) -> list[str]:
        """The message wrapped between words at the terminal's width, on at
        most MESSAGE_ROWS rows (the last one cut, marked with ~, if need be)."""
        columns = max(self.size()[0], 10)
        # Never at a hyphen: a path or a command in the message stays whole.
        lines = textwrap.wrap(self.message, columns, break_on_hyphens=False) or [""]
        if len(lines) > MESSAGE_ROWS:
            rest = " ".join(lines[MESSAGE_ROWS - 1 :])
            lines = [*lines[: MESSAGE_ROWS - 1], clip(rest, columns)]
        return lines

    def _message_rows(self) -> int:
        return len(self._message_lines())

    def _command_prompt_text(self) -> str:
        return "> " if self.app.layout.has_focus(self.command) else ":  "

    def _command_prompt(self) -> StyleAndTextTuples:
        return [("class:label", self._command_prompt_text())]

    def _status(self) -> StyleAndTextTuples:
        if self.tracker.over:
            choices = ["q quit "]
        elif not self.tracker.match_started:
            choices = ["? help  q quit "]  # no moves to list, nothing to type or resign yet
        else:
            # The state is never cut: the keys give way first (? lists them all).
            choices = [
                "? help  m moves  : type  R resign  q quit ",
                "? help  m moves  R resign  q quit ",
                "? help  q quit ",
            ]
        return status_line(self._state_text(), choices, self.width())

    def _state_text(self) -> str:
        tracker = self.tracker
        if tracker.dispute is not None:
            return "DISPUTE: the match stopped"
        if tracker.failure is not None and not tracker.match_started:
            return "no match: " + _failure_title(tracker.failure).lower()
        if tracker.stopped_early:
            return "the match stopped"
        if tracker.over:
            return "the match is over"
        if tracker.error is not None:
            return "connection failed"
        if tracker.status is Status.DISCONNECTED:
            return f"{clip(tracker.opponent, 20)} is disconnected"
        if tracker.status in (Status.CONNECTING, Status.WAITING_FOR_PEER):
            return "waiting for the opponent"
        if self.screens and self.screens[0].summary is not None:
            return f"round {self.screens[0].summary.round} is over: Enter goes on"
        if self.turn.sending:
            return "sending your move..."
        if self.my_move():
            return "YOUR MOVE: " + self.turn.stage.value
        if self.view() is None:
            return "dealing..."
        return f"waiting for {clip(tracker.opponent, 20)} to move..."

    # -- keys

    def filters(self) -> dict[When, Filter]:
        """When each row of :data:`KEYS` applies, as a prompt_toolkit filter."""
        typing = has_focus(self.command)
        confirming = Condition(lambda: self.turn.confirm is not None)
        helping = Condition(lambda: self.help_open)
        on_screen = Condition(lambda: bool(self.screens))
        history = Condition(lambda: self.history_open) & ~helping & ~confirming
        small = Condition(self.too_small)
        showing_ids = Condition(lambda: self.ids_open)
        alerting = Condition(lambda: bool(self.alerts) and not self.ids_open)
        board = (
            ~typing
            & ~confirming
            & ~helping
            & ~on_screen
            & ~history
            & ~small
            & ~showing_ids
            & ~alerting
        )
        return {
            When.CARD: board & Condition(lambda: self.turn.stage is Stage.CARD),
            When.DRAW: board & Condition(lambda: self.turn.stage is Stage.DRAW),
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
        }


Row = KeyRow["GameUI", When]

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
        (":", "tab", "+", "-"),
        When.BOARD,
        "type a turn (+r7 deck, -b3 g), help, resign, quit",
        lambda ui, key: ui.start_command(key),
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


def _plain(fragments: StyleAndTextTuples) -> str:
    return "".join(fragment[1] for fragment in fragments)


def status_line(state: str, keys: list[str], width: int) -> StyleAndTextTuples:
    """The status bar: ``state`` on the left, whole, and the first of ``keys``
    (the longest first) that fits beside it on the right."""
    left = f" {state}"
    fitting = next((k for k in keys if len(left) + 1 + len(k) <= width), keys[-1])
    return spread([("class:status.turn", left)], [("", fitting)], width)


def _key_check(error: LcnetError) -> identity.PeerCheck | None:
    """The known and the new key, if ``error`` refused a known name with a new key."""
    check = getattr(error, "check", None)
    return check if isinstance(check, identity.PeerCheck) else None


def _failure_title(failure: LcnetError) -> str:
    """A heading for why no match was played (the network errors name their kind)."""
    return failure.title


def sentence(text: str) -> str:
    """``text`` with a capital first letter (the rest, paths included, unchanged)."""
    return text[:1].upper() + text[1:]


async def run_tui(
    client: MatchClient, *, input: Input | None = None, output: Output | None = None
) -> int:
    """Play a match full screen; returns 0 finished, 1 dispute, 3 quit unfinished.

    The caller owns the client (connects it before, closes it after).
    """
    ui = GameUI(client, input=input, output=output)
    try:
        return await ui.run()
    except (EOFError, KeyboardInterrupt):
        return ui.tracker.exit_code()
