"""The full-screen terminal game: one player's side of a match, in prompt_toolkit.

:func:`run_tui` shows the board (:mod:`lcnet.ui.board`) of a match behind a
:class:`~lcnet.protocol.client.MatchClient` and takes the player's moves by keys or
typed in the card notation. Network updates arrive in a background task
(``client.next_update()``), go through a :class:`~lcnet.ui.tracker.MatchTracker`
and redraw the screen; moves go out with ``client.play()``. Nothing here
knows about sockets.

The keys are one table, :data:`~lcnet.ui.gamekeys.KEYS`: which keys, when
they apply, what they do and the handler; the bindings, the help screen
(``?``) and the list in README.md are all made from it. The text of the
full-screen pages (the wait, who plays whom, a summary, the result, a
dispute, the moves) comes from :mod:`lcnet.ui.pages`. What a turn has
chosen so far lives in a :class:`~lcnet.ui.turn.TurnInput`, which decides
what each choice does.

Below 80x24 the board cannot fit: a screen says the size to make the
terminal, and the board comes back on resize. Wider terminals give the
status bar and the messages their whole width (a long message wraps).

An illegal choice is never ignored: the message line says which rule
forbids it (the engine's :class:`~lcnet.errors.IllegalMoveError` reason).
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Awaitable, Callable
from typing import Final

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output

import lcnet.ui.pages as pages
from lcnet.errors import IllegalMoveError, LcnetError
from lcnet.game.cards import Card
from lcnet.game.engine import PutDown, Turn, View
from lcnet.protocol.client import MatchClient
from lcnet.protocol.events import DisputeRaised, MatchEnded, RoundVerified
from lcnet.protocol.status import Status
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
    spread,
    suit_class,
)
from lcnet.ui.fullscreen import Redrawn
from lcnet.ui.gamekeys import HELP_END, HELP_TEXT, KEYS, When, filters
from lcnet.ui.keys import ESC_WAIT, key_bindings
from lcnet.ui.pages import TEXT_WIDTH, Screen
from lcnet.ui.tracker import MatchTracker, explain
from lcnet.ui.turn import Confirm, Do, Effect, Say, Send, Stage, Talk, TurnInput

MIN_COLUMNS: Final = SCREEN_WIDTH
MIN_ROWS: Final = SCREEN_HEIGHT
"""The smallest terminal the board fits (6 suits, a banner, every line): below
it a screen asks for a larger one, and the board comes back on resize."""
MESSAGE_ROWS: Final = 3
"""A long message wraps onto at most this many rows."""


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
        self.turn: TurnInput = TurnInput(self.tracker, self.view)
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
            offer = self.tracker.state.rematch
            if offer is not None and offer.agreed:
                self._exit()  # the next match starts (a new screen)
                return
            if lines:
                # A result or a dispute leads with what matters most.
                ending = isinstance(event, MatchEnded | DisputeRaised)
                self._say(lines[0] if ending else lines[-1])
            else:
                self._changed()

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message, self.message_is_error = text, error
        self._changed()

    def ask_rematch(self) -> None:
        """Say yes to another match: it starts (:meth:`_pump`) once both said yes."""
        self.app.create_background_task(self._rematch())

    async def _rematch(self) -> None:
        await self.client.rematch(True, wait=0)  # the answer comes as an update

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
                resigning = self.client.resign()
                self.app.create_background_task(
                    _attempt(resigning, "the resignation was not sent", self._say)
                )
            elif effect is Do.HELP:
                self.help_open = True
            elif effect is Do.HINT:
                self.ask_hint()
            elif isinstance(effect, Talk):
                self.app.create_background_task(
                    _attempt(self.client.say(effect.text), "not sent", self._say)
                )
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

    def start_command(self, text: str) -> None:
        """Move to the command line, the command begun with ``text``."""
        self.app.layout.focus(self.command)
        self.command.insert_text(text)
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
        question = _plain(self._action()) if self.turn.confirm is not None else None
        return join_lines(pages.too_small_lines(columns, rows, (MIN_COLUMNS, MIN_ROWS), question))

    def _title(self) -> StyleAndTextTuples:
        state = self.tracker.state
        left = "lcnet"
        if state.round_number:
            left += f"  round {state.round_number} of {self.tracker.rounds}"
            left += f"  turn {len(self.tracker.turns) + 1}"
        if state.watchers:
            left += f"  {len(state.watchers) + state.unlisted_watchers} watching"
        right = f"you ({self.client.seat}) vs {clip(self.tracker.opponent, 24)} "
        return spread([("", f" {left}")], [("", right)], self.width())

    def _body(self) -> StyleAndTextTuples:
        if self.help_open:
            ids = [f"  {line}" for line in self.tracker.identity_lines()]
            return [("", "\n".join([HELP_TEXT, *ids, HELP_END]))]
        if self.ids_open:
            return join_lines(pages.identity_screen(self.tracker))
        failure = self.tracker.failure
        if failure is not None and pages.key_check(failure) is not None:
            return join_lines(
                pages.key_warning(self.tracker, self.client.seat, failure, stopped=True)
            )
        if self.alerts:
            return join_lines(
                pages.key_warning(self.tracker, self.client.seat, self.alerts[0], stopped=False)
            )
        if failure is not None and not self.tracker.match_started:
            return join_lines(pages.refusal_screen(self.tracker, failure))
        if self.history_open:
            return join_lines(self._history_lines())
        if self.screens:
            return join_lines(pages.screen_lines(self.tracker, self.client.seat, self.screens[0]))
        lines = pages.banner(self.tracker)
        board = self.tracker.board()
        if board is None:
            lines.append([("", "")])
            lines.append([("class:notice", f"  {pages.waiting_text(self.tracker)}")])
            lines.append([("", "")])
            lines.extend([("", f"  {line}")] for line in pages.join_commands(self.tracker))
            lines.extend([("", f"  {line}")] for line in pages.identities(self.tracker))
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
        lines, self.history_scroll = pages.history_page(
            self.tracker, self.history_scroll, self._body_rows()
        )
        return lines

    def _body_rows(self) -> int:
        """Rows between the title and the lines below the board."""
        return self.size()[1] - 5 - (self._message_rows() - 1)

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
            view = self.view()
            assert view is not None
            return draw_action(view, self.turn.put_down)
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
            again = self.tracker.rematch_question() is not None
            choices = ["a another match  q quit " if again else "q quit "]
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
            return "no match: " + pages.failure_title(tracker.failure).lower()
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
        """When each row of :data:`~lcnet.ui.gamekeys.KEYS` applies, as a prompt_toolkit filter."""
        return filters(self)


def _plain(fragments: StyleAndTextTuples) -> str:
    return "".join(fragment[1] for fragment in fragments)


def draw_action(view: View, put_down: PutDown) -> StyleAndTextTuples:
    """The action line once ``put_down`` is chosen: the draws the rules allow, by key."""
    out: StyleAndTextTuples = [("class:label", f"{put_down}, then draw: ")]
    legal = view.legal_draws(put_down)
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


def status_line(state: str, keys: list[str], width: int) -> StyleAndTextTuples:
    """The status bar: ``state`` on the left, whole, and the first of ``keys``
    (the longest first) that fits beside it on the right."""
    left = f" {state}"
    fitting = next((k for k in keys if len(left) + 1 + len(k) <= width), keys[-1])
    return spread([("class:status.turn", left)], [("", fitting)], width)


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


async def _attempt(action: Awaitable[None], failed: str, say: Callable[..., None]) -> None:
    """Resign, or say a line to the opponent (it shows once it has gone, a
    ``Said`` update); if it cannot be done, say why on the message line."""
    try:
        await action
    except (ValueError, LcnetError) as exc:
        say(f"{failed}: {exc}", error=True)
