"""The full-screen board of ``lcnet watch``: the screen on the wall at a LAN party.

A :class:`WatchScreen` holds the transcript a spectator has kept so far (it
is told the frames after each message, :attr:`lcnet.watch.peer.Watching.on_frames`)
and shows its last position exactly as the replay viewer shows that step of
the same frames from no seat (:data:`PUBLIC`): both expeditions, the discard
piles, the draw pile, the totals, whose move and the move that led there
(:func:`lcnet.ui.replay_view.position_lines`). A hand is shown only once its
round's seeds are revealed, as the transcript proves it; never a hidden card.
Under the board, the spectator's latest lines (news, notes, the verdict).

Keys (:data:`KEYS`): ``i`` who plays, with the key fingerprints; ``m`` the
moves so far; ``l`` all the spectator's lines; ``?`` help; ``q`` leaves
(the watch stops there, its file kept). :meth:`WatchScreen.run_beside` runs
the screen and the watch in one event loop.
"""

from __future__ import annotations

import asyncio
import enum
import textwrap
from collections import deque
from collections.abc import Awaitable, Mapping, Sequence
from typing import Final, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Always, Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output

from lcnet.game.seat import Seat
from lcnet.review.positions import Follower, MatchRecord, Position
from lcnet.textsafe import shown
from lcnet.ui.board import (
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    Line,
    clip,
    join_lines,
    make_style,
    no_color,
    spread,
)
from lcnet.ui.fullscreen import Redrawn
from lcnet.ui.keys import ESC_WAIT, KeyRow, help_rows, key_bindings
from lcnet.ui.replay_view import (
    Perspective,
    move_text,
    position_lines,
    seat_label,
    too_small,
    too_small_text,
)
from lcnet.watch.spectator import Player, players_of, who_plays

T = TypeVar("T")

PUBLIC: Final = Perspective.BOTH
"""The replay viewer's view from no seat: a hand is shown only once its
round's seeds are revealed (then both), as anyone holding the transcript sees it."""
PANE_ROWS: Final = 3
"""The spectator's latest lines, under the board."""
BODY_ROWS: Final = SCREEN_HEIGHT - 1 - PANE_ROWS - 1
"""The body's rows on an 80x24 terminal (below the title, above the pane and the status)."""
MAX_LINES: Final = 1000
"""The spectator's lines kept for ``l`` (the oldest go first)."""
WHEN_WIDTH: Final = 12
KEYS_WIDTH: Final = 14
"""The help's columns: when, keys, then what they do (in 80 columns)."""


class Page(enum.Enum):
    """What the body shows."""

    BOARD = "the board"
    PLAYERS = "who plays"
    MOVES = "the moves"
    LOG = "the spectator's lines"
    HELP = "the help"


class When(enum.Enum):
    """When a key of the watch screen applies."""

    ALWAYS = "always"
    PAGE = "on a page"
    """A page over the board (who plays, the moves, the lines, the help)."""


def _quit(ui: WatchScreen, key: str) -> None:
    ui.quit()


KEYS: Final[tuple[KeyRow[WatchScreen, When], ...]] = (
    KeyRow(
        ("i",),
        When.ALWAYS,
        "who plays: names, key fingerprints, known here or not",
        lambda ui, key: ui.toggle(Page.PLAYERS),
    ),
    KeyRow(("m",), When.ALWAYS, "the moves so far", lambda ui, key: ui.toggle(Page.MOVES)),
    KeyRow(
        ("l",),
        When.ALWAYS,
        "all the spectator's lines: news, notes, the verdict",
        lambda ui, key: ui.toggle(Page.LOG),
    ),
    KeyRow(("?", "f1"), When.ALWAYS, "this help", lambda ui, key: ui.toggle(Page.HELP)),
    KeyRow(
        ("escape", "enter"),
        When.PAGE,
        "back to the board",
        lambda ui, key: ui.open(Page.BOARD),
    ),
    KeyRow(
        ("q", "c-c", Keys.SIGINT.value),
        When.ALWAYS,
        "leave: the watch stops, your file keeps what came",
        _quit,
    ),
)
"""The watch screen's keys: the bindings, the help and README's list are made from it."""
LISTED_ORDER: Final = (When.ALWAYS, When.PAGE)

HELP_TEXT: Final = "\n".join(
    [
        "Watching: the live board, checked frame by frame as lcnet audit checks it.",
        "",
        *help_rows(KEYS, LISTED_ORDER, when_width=WHEN_WIDTH, keys_width=KEYS_WIDTH),
        "",
        "The board is what the transcript proves, as lcnet replay shows the same",
        "step: the hands stay hidden until their round's seeds are revealed (at its",
        "end). The lines under the board are the spectator's: each move, the round",
        "scores, a dispute, a note about what the host sent, and the verdict.",
        "",
        "Press Esc, Enter or ? to go back.",
    ]
)


class WatchScreen(Redrawn):
    """The live board of a watched match (tests drive it through ``app``)."""

    def __init__(
        self,
        *,
        title: str = "watching",
        known_peers: Mapping[str, bytes] | None = None,
        input: Input | None = None,
        output: Output | None = None,
        monochrome: bool | None = None,
    ) -> None:
        super().__init__()
        self.title = title
        """What the title says before the players are known (e.g. the host's address)."""
        self.known_peers = dict(known_peers or {})
        """This machine's known peers (name → key), to say whether it knows each player."""
        self.follower = Follower()
        self._first: bytes | None = None
        """The first frame of the match taken (a rematch's differs)."""
        self.record: MatchRecord = self.follower.record()
        self.lines: deque[str] = deque(maxlen=MAX_LINES)
        self.page = Page.BOARD
        self.over = False
        """The watch has ended (the verdict is among the lines): ``q`` leaves."""
        self.monochrome = no_color() if monochrome is None else monochrome
        self.app: Application[int] = Application(
            layout=Layout(
                HSplit(
                    [
                        Window(FormattedTextControl(self._title), height=1, style="class:title"),
                        Window(FormattedTextControl(self._body), wrap_lines=False),
                        Window(FormattedTextControl(self._pane), height=PANE_ROWS),
                        Window(FormattedTextControl(self._status), height=1, style="class:status"),
                    ]
                )
            ),
            key_bindings=key_bindings(self, KEYS, self.filters()),
            style=make_style(self.monochrome),
            full_screen=True,
            input=input,
            output=output,
            color_depth=ColorDepth.DEPTH_1_BIT if self.monochrome else None,
        )
        self.app.ttimeoutlen = ESC_WAIT

    # -- what the spectator tells it

    def take_frames(self, frames: Sequence[bytes]) -> None:
        """The transcript kept so far (:attr:`lcnet.watch.peer.Watching.on_frames`).

        A transcript that does not go on from the one taken is another match
        (the players agreed on a rematch): its board starts afresh.
        """
        if not frames:
            return
        if len(frames) < self.follower.taken or frames[0] != self._first:
            self.follower = Follower()
            self._first = frames[0]
        if len(frames) == self.follower.taken:
            return
        self.follower.extend(frames)
        self.record = self.follower.record()
        self._changed()

    def show(self, line: str) -> None:
        """One of the spectator's lines (:attr:`lcnet.watch.peer.Watching.show`)."""
        self.lines.append(shown(line))
        self._changed()

    def finish(self) -> None:
        """The watch has ended: the board stays until the viewer leaves."""
        self.over = True
        self._changed()

    @property
    def position(self) -> Position | None:
        """The last position the transcript reached (``None`` before the first deal)."""
        positions = self.record.positions
        return positions[-1] if positions else None

    def players(self) -> list[Player]:
        """The players known so far (as :meth:`lcnet.watch.spectator.Spectator.players`)."""
        return players_of(self.follower.observer)

    # -- keys

    def open(self, page: Page) -> None:
        self.page = page
        self._changed()

    def toggle(self, page: Page) -> None:
        """Open ``page``, or go back to the board if it is open."""
        self.open(Page.BOARD if self.page is page else page)

    def quit(self) -> None:
        if self.app.is_running and not self.app.future.done():  # type: ignore[union-attr]
            self.app.exit(result=0)

    def filters(self) -> dict[When, Filter]:
        return {
            When.ALWAYS: Always(),
            When.PAGE: Condition(lambda: self.page is not Page.BOARD),
        }

    # -- running

    async def run_beside(self, work: Awaitable[T]) -> T | None:
        """Show the screen while ``work`` (the watch) runs in this event loop.

        When ``work`` ends, the screen says so and stays until the viewer
        leaves; then its result is returned. If the viewer leaves first,
        ``work`` is cancelled (its own cleanup closes its file) and ``None``
        is returned. An error of ``work`` closes the screen and is raised.
        """
        task = asyncio.ensure_future(work)
        screen = asyncio.ensure_future(self.app.run_async())
        try:
            await asyncio.wait({task, screen}, return_when=asyncio.FIRST_COMPLETED)
            if task.done() and not task.cancelled() and task.exception() is None:
                self.finish()
                await screen
                return task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
            if not screen.done():
                self.quit()
                if not self.app.is_running:
                    screen.cancel()
                await asyncio.wait({screen})
        if task.cancelled():
            return None
        task.result()  # raises the watch's error, the screen closed
        return None  # pragma: no cover (a task that ended well returned above)

    # -- drawing

    def _title(self) -> StyleAndTextTuples:
        if too_small(self.app.output.get_size()):
            return []
        record = self.record
        if record.names:
            host, joiner = seat_label(record, Seat.HOST), seat_label(record, Seat.JOINER)
            left = f" watching: {host} vs {joiner}"
        else:
            left = f" {shown(self.title)}"
        taken = self.follower.taken
        right = f"{taken} frame{'s' if taken != 1 else ''} checked "
        return spread([("", clip(left, 56))], [("", right)])

    def _body(self) -> StyleAndTextTuples:
        if too_small(self.app.output.get_size()):
            return too_small_text(self.app.output.get_size(), "the board")
        if self.page is Page.HELP:
            return [("", HELP_TEXT)]
        if self.page is Page.PLAYERS:
            return join_lines(self._players_lines())
        if self.page is Page.MOVES:
            return join_lines(self._moves_lines())
        if self.page is Page.LOG:
            return join_lines(self._log_lines())
        position = self.position
        if position is None:
            return join_lines(
                [
                    [],
                    [("", " No round is dealt yet: the board shows once the cards are dealt.")],
                    [("class:dim", " i shows who plays, ? the keys.")],
                ]
            )
        return join_lines(position_lines(self.record, position, PUBLIC))

    def _players_lines(self) -> list[Line]:
        players = self.players()
        if not players:
            text = ["Who plays is not known yet: the match has not begun."]
        else:
            text = ["Who plays (compare the key fingerprints with the players):"]
            text.extend(f"  {line}" for line in who_plays(players, self.known_peers))
        rows = [
            row
            for line in text
            for row in textwrap.wrap(
                shown(line), SCREEN_WIDTH - 2, subsequent_indent="    ", break_on_hyphens=False
            )
        ]
        lines: list[Line] = [[]]
        lines.extend([("", f" {row}")] for row in rows[: BODY_ROWS - 3])
        lines.extend([[], [("class:dim", " i, Esc or Enter: back to the board")]])
        return lines

    def _moves_lines(self) -> list[Line]:
        record = self.record
        moves = [
            f"round {p.round}, turn {p.turn}: {move_text(record, p, PUBLIC)}"
            for p in record.positions
        ]
        room = BODY_ROWS - 2
        shown_moves = moves[-room:]
        head = (
            f" the moves, the latest at the bottom ({len(shown_moves)} of {len(moves)}); "
            "m, Esc or Enter: back"
            if moves
            else " no move yet; m, Esc or Enter: back"
        )
        lines: list[Line] = [[("class:header", clip(head, SCREEN_WIDTH))], []]
        lines.extend([("", f" {clip(move, SCREEN_WIDTH - 2)}")] for move in shown_moves)
        return lines

    def _log_lines(self) -> list[Line]:
        rows = [
            row
            for line in self.lines
            for row in textwrap.wrap(
                line, SCREEN_WIDTH - 2, subsequent_indent="  ", break_on_hyphens=False
            )
        ]
        room = BODY_ROWS - 2
        head = " what the spectator said, the latest at the bottom; l, Esc or Enter: back"
        lines: list[Line] = [[("class:header", clip(head, SCREEN_WIDTH))], []]
        lines.extend([("", f" {row}")] for row in rows[-room:])
        return lines

    def _pane(self) -> StyleAndTextTuples:
        if too_small(self.app.output.get_size()):
            return []
        width = SCREEN_WIDTH - 2
        rows: list[Line] = [
            [("class:notice", f" {clip(line, width)}")] for line in list(self.lines)[-PANE_ROWS:]
        ]
        return join_lines(rows)

    def _status(self) -> StyleAndTextTuples:
        if too_small(self.app.output.get_size()):
            return []
        keys = "i players  m moves  l lines  ? help  q quit "
        return spread([("class:status.turn", f" {self._state()}")], [("", keys)])

    def _state(self) -> str:
        if self.over:
            return "the watch is over: q leaves"
        position = self.position
        if position is None:
            return "waiting for the deal" if self.follower.taken else "connecting..."
        if position.table.is_over:
            return f"round {position.round} is over"
        mover = Seat(position.table.to_move)
        return f"{clip(shown(self.record.name(mover)), 16)} to move"
