"""The full-screen replay viewer behind ``lcnet replay FILE``.

It steps through a :class:`~lcnet.review.positions.MatchRecord` (the positions a saved
transcript passes through, checked as ``lcnet audit`` checks them): the
board after each step, the move that led there, round and scores, and the
audit's verdict in the status bar. The point of view is one seat (that
player's hand; the other's hidden, as the player saw it) or both hands
open; hands are only ever shown for rounds whose seeds were revealed
(:attr:`~lcnet.review.positions.Position.hands_known`), since before that nobody but
their holders knew them.

Keys: Right/Space/n next step, Left/b previous, Home/g first, End/G last,
PageDown/] next round, PageUp/[ previous round, v switch view
(host, joiner, both), a analyze, w next of the worst turns, ? help, q quit.

The analysis (``a``, :mod:`lcnet.review.analysis`) values each turn of the file's
owner from what that player knew then, against the bot's choice; it runs in
a background thread with its progress in the body, and then each of the
owner's steps shows its verdict under the board.
"""

from __future__ import annotations

import asyncio
import enum
import textwrap
import threading
from typing import TYPE_CHECKING, Final

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output

from lcnet.game.seat import Seat
from lcnet.review import positions
from lcnet.review.positions import MatchRecord, Position
from lcnet.textsafe import shown
from lcnet.ui.board import (
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    Line,
    board_from_table,
    board_lines,
    clip,
    join_lines,
    make_style,
    no_color,
    signed,
    spread,
)
from lcnet.ui.fullscreen import Redrawn
from lcnet.ui.keys import ESC_WAIT
from lcnet.ui.tracker import describe_turn

if TYPE_CHECKING:
    from lcnet.review.analysis import MatchAnalysis

STATUS_LINES: Final = 2
"""The audit verdict and the key reminder."""
BODY_ROWS: Final = 24 - 1 - STATUS_LINES
"""The body's rows on an 80x24 terminal (below the title, above the status)."""
HELP_TEXT: Final = """\
Replay: step through a saved match, checked as lcnet audit checks it.

  Right, Space, n     next step (one turn)
  Left, b             previous step
  Home, g             first step          End, G      last step
  PageDown, ]         next round          PageUp, [   start of this round,
                                                      then the one before
  v                   switch the view: the host's hand, the joiner's hand,
                      or both hands open
  a                   analyze the file owner's turns against the bot's
                      choices (in the background): verdicts under the board
  w                   the next of the turns that lost the most
  ?                   this help           q, Esc      quit

A player's hand is shown only for rounds whose seeds were revealed (at the
end of each round); an unfinished round stays hidden, as it was at the
table. The status bar gives the audit's verdict on the whole file.

Press Esc, Enter or ? to go back."""


class Perspective(enum.Enum):
    """Whose hand the viewer shows."""

    HOST = "host"
    JOINER = "joiner"
    BOTH = "both"

    @property
    def seat(self) -> Seat | None:
        """The seat whose hand is shown, or ``None`` for both."""
        return {Perspective.HOST: Seat.HOST, Perspective.JOINER: Seat.JOINER}.get(self)

    @classmethod
    def of(cls, seat: Seat | None) -> Perspective:
        return cls.BOTH if seat is None else cls(str(seat))

    def next(self) -> Perspective:
        members = list(Perspective)
        return members[(members.index(self) + 1) % len(members)]


def seat_label(record: MatchRecord, seat: Seat) -> str:
    """A player's name with their seat, e.g. ``Ada (host)`` (the name escaped)."""
    name = record.name(seat)
    return name if name == str(seat) else f"{clip(shown(name), 20)} ({seat})"


def move_text(record: MatchRecord, position: Position, perspective: Perspective) -> str:
    """The step that led to ``position``, as the chosen seat may know it."""
    if position.last is None:
        starter = Seat(position.table.to_move)
        return f"round {position.round} begins; {seat_label(record, starter)} starts"
    seat, turn = position.last
    drawn = position.drawn
    known = position.hands_known and perspective.seat in (None, seat)
    if turn.draw.suit is None and not known:
        drawn = None  # a card drawn from the deck is secret to everyone but its holder
    return describe_turn(seat_label(record, seat), turn, drawn)


def position_lines(record: MatchRecord, position: Position, perspective: Perspective) -> list[Line]:
    """The board at ``position`` with the move that led there (all within 80 columns)."""
    bottom = perspective.seat or Seat.HOST
    top = bottom.other
    open_hands: list[int] = []
    if position.hands_known:
        open_hands = [int(s) for s in Seat] if perspective.seat is None else [int(bottom)]
    board = board_from_table(
        position.table,
        top=int(top),
        names=(seat_label(record, top), seat_label(record, bottom)),
        totals=(position.totals_before[top], position.totals_before[bottom]),
        show_hands=open_hands,
        round_number=position.round,
        rounds=record.rounds,
        turn=position.turn,
    )
    hands = "hands: " + (
        ("both open" if perspective.seat is None else f"{perspective.value}'s")
        if position.hands_known
        else "hidden (this round's seeds were not revealed)"
    )
    lines: list[Line] = [
        spread(
            [("class:label", f" round {position.round} of {record.rounds}, turn {position.turn}")],
            [("class:dim", hands)],
        ),
        [
            ("", " "),
            ("class:header", "move: "),
            ("", clip(move_text(record, position, perspective), 73)),
        ],
        [],
        *board_lines(board),
    ]
    if position.table.is_over:
        a, b = position.scores
        lines.append([])
        lines.append(
            [
                ("class:banner", f" round {position.round} over: "),
                ("class:banner", f"{shown(record.name(Seat.HOST))} {signed(a)}, "),
                ("class:banner", f"{shown(record.name(Seat.JOINER))} {signed(b)} "),
            ]
        )
    return lines


def too_small(size: Size) -> bool:
    """Whether a terminal of ``size`` cannot fit the board (80x24 at least)."""
    return size.columns < SCREEN_WIDTH or size.rows < SCREEN_HEIGHT


def too_small_text(size: Size, what: str) -> StyleAndTextTuples:
    """What a screen shows instead of ``what`` on a terminal too small for it."""
    paragraphs = [
        ("class:banner.warning", f"The terminal is too small for {what}."),
        (
            "",
            f"It is {size.columns}×{size.rows}: make the terminal at least "
            f"{SCREEN_WIDTH}×{SCREEN_HEIGHT} (a larger window or a smaller font). "
            f"{what[0].upper()}{what[1:]} comes back as soon as it fits.",
        ),
        ("class:dim", "q quits."),
    ]
    lines: list[Line] = [
        [(style, line)]
        for style, text in paragraphs
        for line in textwrap.wrap(text, max(size.columns, 10))
    ]
    return join_lines(lines)


def text_lines(record: MatchRecord, perspective: Perspective) -> list[str]:
    """The whole match as plain text, step by step, for ``lcnet replay --text``.

    The blocks are :func:`lcnet.review.positions.render_text`'s; the move line says
    only what the chosen seat could know (a card someone else drew from the
    deck stays secret in a one-seat view).
    """
    rounds = f"{record.rounds} round{'s' if record.rounds != 1 else ''}"
    out = [
        f"{seat_label(record, Seat.HOST)}, key {record.fingerprints.get(Seat.HOST, '?')} vs "
        f"{seat_label(record, Seat.JOINER)}, key {record.fingerprints.get(Seat.JOINER, '?')}; "
        f"{record.suits} suits, {rounds}; view: {perspective.value}"
    ]
    if not record.positions:
        out.append("no round was dealt in this file")
    for position in record.positions:
        block = positions.render_text(record, position, perspective.seat)
        block[0] = (
            f"round {position.round}/{record.rounds}, turn {position.turn}: "
            f"{move_text(record, position, perspective)}"
        )
        out.extend(block)
        if position.table.is_over:
            a, b = position.scores
            out.append(
                f"round {position.round} over: {shown(record.name(Seat.HOST))} {signed(a)}, "
                f"{shown(record.name(Seat.JOINER))} {signed(b)}"
            )
    out.append(shown(f"audit: {record.verdict.summary}"))
    return out


class ReplayViewer(Redrawn):
    """A full-screen viewer over one match record (tests drive it through ``app``)."""

    def __init__(
        self,
        record: MatchRecord,
        *,
        perspective: Perspective = Perspective.BOTH,
        owner: Seat | None = None,
        deals: int | None = None,
        input: Input | None = None,
        output: Output | None = None,
        monochrome: bool | None = None,
    ) -> None:
        super().__init__()
        self.record = record
        self.perspective = perspective
        self.owner = owner
        """The seat whose file this is: the one the analysis looks at."""
        self.index = 0
        self.help_open = False
        self.analysis: MatchAnalysis | None = None
        self.analysis_note = ""
        """What the analysis says while it runs, or why it could not."""
        self.analyzing = False
        self.deals = deals
        """Deals per turn of the analysis (``None``: the analysis's default)."""
        self._stop_analysis = threading.Event()
        self.monochrome = no_color() if monochrome is None else monochrome
        self.app: Application[int] = Application(
            layout=Layout(
                HSplit(
                    [
                        Window(FormattedTextControl(self._title), height=1, style="class:title"),
                        Window(FormattedTextControl(self._body), wrap_lines=False),
                        Window(
                            FormattedTextControl(self._status),
                            height=STATUS_LINES,
                            style="class:status",
                        ),
                    ]
                )
            ),
            key_bindings=self._bindings(),
            style=make_style(self.monochrome),
            full_screen=True,
            input=input,
            output=output,
            color_depth=ColorDepth.DEPTH_1_BIT if self.monochrome else None,
        )
        self.app.ttimeoutlen = ESC_WAIT

    @property
    def position(self) -> Position | None:
        steps = self.record.positions
        return steps[self.index] if steps else None

    # -- moving

    def go(self, index: int) -> None:
        last = len(self.record.positions) - 1
        self.index = max(0, min(index, last))
        self._changed()

    def next_round(self) -> None:
        later = [start for start in self.record.round_starts if start > self.index]
        self.go(later[0] if later else len(self.record.positions) - 1)

    def previous_round(self) -> None:
        earlier = [start for start in self.record.round_starts if start < self.index]
        self.go(earlier[-1] if earlier else 0)

    def switch_view(self) -> None:
        self.perspective = self.perspective.next()
        self._changed()

    # -- the analysis

    def start_analysis(self) -> None:
        """Analyse the owner's turns (in a worker thread), unless it is done or running."""
        if self.analyzing or self.analysis is not None:
            return
        seat = self.owner or self.perspective.seat
        if seat is None:
            self.analysis_note = "analysis: choose one player's view with v first"
            self._changed()
            return
        self.analyzing = True
        self.analysis_note = f"analysis: {seat_label(self.record, seat)}'s turns..."
        self._changed()
        loop = asyncio.get_running_loop()
        threading.Thread(
            target=self._analyze, args=(seat, loop), name="lcnet-analysis", daemon=True
        ).start()

    def stop_analysis(self) -> None:
        self._stop_analysis.set()

    def _analyze(self, seat: Seat, loop: asyncio.AbstractEventLoop) -> None:
        """The worker thread: the analysis, reported to the screen through ``loop``."""
        from lcnet.errors import UserError
        from lcnet.review import analysis

        label = seat_label(self.record, seat)

        def progress(done: int, total: int) -> None:
            if self._stop_analysis.is_set():
                raise _Stopped
            note = f"analysis: {label}'s turns, {done} of {total} done..."
            loop.call_soon_threadsafe(self._analysis_update, None, note)

        try:
            options = {} if self.deals is None else {"deals": self.deals}
            result = analysis.analyze_record(self.record, seat, on_progress=progress, **options)
        except _Stopped:
            return
        except UserError as exc:
            loop.call_soon_threadsafe(self._analysis_update, None, f"analysis: {exc}")
        else:
            loop.call_soon_threadsafe(self._analysis_update, result, "")

    def _analysis_update(self, result: MatchAnalysis | None, note: str) -> None:
        if result is not None or not note.endswith("..."):
            self.analyzing = False
        self.analysis = result or self.analysis
        self.analysis_note = note
        self._changed()

    def next_worst(self) -> None:
        """Go to the next of the turns the analysis marked (from the first after the last)."""
        if self.analysis is None:
            return
        marked = sorted(t.decision.index for t in self.analysis.worst())
        later = [i for i in marked if i > self.index]
        if later or marked:
            self.go((later or marked)[0])

    def _analysis_lines(self) -> list[str]:
        if self.analysis is None:
            return [self.analysis_note] if self.analysis_note else []
        from lcnet.review.analysis import verdict_line

        result = self.analysis
        turn = result.at(self.index)
        if turn is not None:
            mark = " (one of the worst)" if turn.worst else ""
            return [f"bot{mark}: {verdict_line(turn)}"]
        worst = ", ".join(
            f"round {t.decision.round} turn {t.decision.turn}" for t in result.worst()
        )
        return [
            f"analysis of {result.player}: {result.agreed} of {len(result.turns)} turns as "
            f"the bot would; about {result.total_loss:.1f} points lost in all. "
            + (f"Worst (w goes there): {worst}." if worst else "No turn lost much.")
        ]

    # -- drawing

    def too_small(self) -> bool:
        """Whether the screen cannot fit: then a screen asks for a larger terminal."""
        return too_small(self.app.output.get_size())

    def _too_small_text(self) -> StyleAndTextTuples:
        return too_small_text(self.app.output.get_size(), "the replay")

    def _title(self) -> StyleAndTextTuples:
        if self.too_small():
            return []
        record = self.record
        left = f" replay: {seat_label(record, Seat.HOST)} vs {seat_label(record, Seat.JOINER)}"
        steps = len(record.positions)
        right = f"step {self.index + 1} of {steps} " if steps else "no steps "
        return spread([("", clip(left, 56))], [("", right)])

    def _body(self) -> StyleAndTextTuples:
        if self.too_small():
            return self._too_small_text()
        if self.help_open:
            return [("", HELP_TEXT)]
        position = self.position
        if position is None:
            return join_lines(
                [
                    [],
                    [("", " This file holds no dealt round: the match stopped before the deal.")],
                    [("", " The status bar below gives the audit's verdict.")],
                ]
            )
        lines = position_lines(self.record, position, self.perspective)
        notes = [
            row
            for text in self._analysis_lines()
            for row in textwrap.wrap(text, SCREEN_WIDTH - 2, break_on_hyphens=False)
        ]
        room = BODY_ROWS - len(lines) - 1
        if notes and room > 0:
            lines.append([])
            lines.extend([("class:notice", f" {row}")] for row in notes[:room])
        return join_lines(lines)

    def _status(self) -> StyleAndTextTuples:
        if self.too_small():
            return []
        verdict = textwrap.shorten(shown(f"audit: {self.record.verdict.summary}"), SCREEN_WIDTH - 2)
        keys = "arrows step  PgUp/PgDn round  v view  a analyze  ? help  q quit "
        return [
            ("class:status.turn", f" {verdict:<{SCREEN_WIDTH - 1}}"),
            ("", "\n"),
            *spread([("", f" view: {self.perspective.value}")], [("", keys)]),
        ]

    # -- keys

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("right")
        @kb.add("space")
        @kb.add("n")
        def _next(event: KeyPressEvent) -> None:
            """Next step."""
            self.go(self.index + 1)

        @kb.add("left")
        @kb.add("b")
        def _previous(event: KeyPressEvent) -> None:
            """Previous step."""
            self.go(self.index - 1)

        @kb.add("home")
        @kb.add("g")
        def _first(event: KeyPressEvent) -> None:
            """First step."""
            self.go(0)

        @kb.add("end")
        @kb.add("G")
        def _last(event: KeyPressEvent) -> None:
            """Last step."""
            self.go(len(self.record.positions) - 1)

        @kb.add("pagedown")
        @kb.add("]")
        def _next_round(event: KeyPressEvent) -> None:
            """Start of the next round (or the last step)."""
            self.next_round()

        @kb.add("pageup")
        @kb.add("[")
        def _previous_round(event: KeyPressEvent) -> None:
            """Start of this round, or of the one before."""
            self.previous_round()

        @kb.add("v")
        def _view(event: KeyPressEvent) -> None:
            """Switch between the host's view, the joiner's view and both hands open."""
            self.switch_view()

        @kb.add("a")
        def _analyze(event: KeyPressEvent) -> None:
            """Analyse the owner's turns against the bot's choices (in the background)."""
            self.start_analysis()

        @kb.add("w")
        def _worst(event: KeyPressEvent) -> None:
            """Go to the next of the turns that lost the most."""
            self.next_worst()

        @kb.add("?")
        @kb.add("f1")
        def _help(event: KeyPressEvent) -> None:
            """Show or hide the help screen."""
            self.help_open = not self.help_open
            self._changed()

        @kb.add("enter", filter=Condition(lambda: self.help_open))
        def _close_help(event: KeyPressEvent) -> None:
            """Close the help screen."""
            self.help_open = False
            self._changed()

        @kb.add("escape")
        def _escape(event: KeyPressEvent) -> None:
            """Close the help screen, or quit."""
            if self.help_open:
                self.help_open = False
                self._changed()
            else:
                event.app.exit(result=0)

        @kb.add("q")
        @kb.add("c-c")
        @kb.add(Keys.SIGINT)
        def _quit(event: KeyPressEvent) -> None:
            """Quit the viewer."""
            event.app.exit(result=0)

        return kb


class _Stopped(Exception):
    """The viewer closed while its analysis ran: the worker thread ends early."""


def view_replay(
    record: MatchRecord,
    *,
    perspective: Perspective = Perspective.BOTH,
    owner: Seat | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """Show ``record`` full screen until the user quits (exit code 0).

    ``owner`` is the seat whose file it is (the one the ``a`` analysis looks at).
    """
    viewer = ReplayViewer(record, perspective=perspective, owner=owner, input=input, output=output)
    try:
        return viewer.app.run()
    finally:
        viewer.stop_analysis()
