"""The plain line mode: a match played one typed line at a time, for pipes and scripts.

Used when stdin is not a terminal. When it is the player's move, the board is
printed as text, then one line is read: a turn in the card notation
(``+r7 deck``, ``-b3 g``, ``play r7, draw deck``) or ``help``, ``board``,
``hint`` (the bot's suggestion from this player's view), ``resign``,
``quit``. Bad or illegal input gets a one-line explanation and the question
again. Everything else that happens (the opponent's moves, round
results, the final result, a dispute, a lost connection) is printed as it
comes. End of input quits cleanly, leaving an unfinished match resumable.

So ``printf '+r7 deck\\n-b3 g\\n' | lcnet play`` plays two turns (if they are
legal when their turn comes). Lines are only read when a move is due, so a
script's lines map to its moves. A put-down alone (``+r7``) waits for its
draw on the next line. An empty input (``< /dev/null``) starts no match
(:func:`input_is_empty`, checked before anything starts).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import stat
import threading
from typing import Any, Final, TextIO

from lcnet.errors import ExitCode, IllegalMoveError, InvalidMoveError, LcnetError, UserError
from lcnet.game.engine import Draw, PutDown, Turn, View
from lcnet.invocation import command
from lcnet.protocol.client import MatchClient, Update
from lcnet.protocol.events import RoundVerified, Said
from lcnet.ui.board import board_lines, plain, scoring_lines
from lcnet.ui.tracker import YOU, MatchTracker, check_choice, explain
from lcnet.ui.turn import said

PROMPT: Final = "your move:"
HELP_LINES: Final = (
    "type one turn per line: put down a card, then draw",
    "  +r7 deck           play r7 on your red expedition, draw from the draw pile",
    "  -b3 g              discard b3, take the top card of the green pile",
    "  play gH2, draw r   the long form (a wager is H1, H2 or H3)",
    "  +r7                put r7 down alone; the next line is the draw (deck, or a suit letter)",
    "other commands: hint (the bot's suggestion, from your cards and the table only),",
    "  board (show the table again), say LINE (to the opponent, and its spectators),",
    "  resign, quit (or end of input)",
)
QUIT_WORDS: Final = ("quit", "exit", "q")
AGAIN_WORDS: Final = ("again", "yes", "y")
NO_WORDS: Final = ("no", "n")
REMATCH_PROMPT: Final = "Type 'again' for it, or 'quit' to leave."
HELP_WORDS: Final = ("help", "?", "h")
BOARD_WORDS: Final = ("board", "show", "b")
HINT_WORDS: Final = ("hint",)


def input_is_empty(stream: TextIO) -> bool:
    """Whether ``stream`` is known, without reading it, to hold no line at all.

    True for ``< /dev/null``, an empty file, and a pipe whose writer closed it
    without writing; False when there is input, and when it cannot be known
    yet (a pipe still open, whose writer may wait for the board before it
    writes a move). Nothing is consumed.
    """
    try:
        fd = stream.fileno()
        info = os.fstat(fd)
    except (AttributeError, OSError, ValueError):
        return False
    if stat.S_ISREG(info.st_mode):
        return info.st_size <= os.lseek(fd, 0, os.SEEK_CUR)
    if stat.S_ISCHR(info.st_mode):
        with contextlib.suppress(OSError):
            return info.st_rdev == os.stat(os.devnull).st_rdev
        return False
    if not stat.S_ISFIFO(info.st_mode) or not hasattr(select, "poll"):
        return False
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    if not poller.poll(0):
        return False  # nothing yet, and the writer is still there
    try:
        import fcntl
        import struct
        import termios

        pending = fcntl.ioctl(fd, termios.FIONREAD, struct.pack("i", 0))
    except (ImportError, OSError):
        return False
    # Ready with no byte to read: the writer closed the pipe, and that is all.
    count: int = struct.unpack("i", pending)[0]
    return count == 0


class LineReader:
    """Lines of a blocking text stream, each read on demand in a daemon thread.

    The event loop must keep running while the player thinks (the network
    layer's heartbeats live in it), so the blocking ``readline`` happens in a
    thread; a daemon one, so that a read still waiting when the match ends
    never keeps the program alive. A line is read only when asked for, so a
    script's lines are consumed one per move, never ahead of time.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending: asyncio.Future[str | None] | None = None

    async def readline(self) -> str | None:
        """The next line without its line ending, or ``None`` at the end of input."""
        if self._pending is None:
            loop = asyncio.get_running_loop()
            future: asyncio.Future[str | None] = loop.create_future()
            self._pending = future
            threading.Thread(
                target=self._read, args=(loop, future), name="lcnet-stdin", daemon=True
            ).start()
        try:
            return await asyncio.shield(self._pending)
        finally:
            if self._pending.done():
                self._pending = None

    def _read(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[str | None]) -> None:
        line: str | None
        try:
            text = self._stream.readline()
            line = text.rstrip("\r\n") if text else None
        except (OSError, ValueError):
            line = None  # a closed stream ends the input like EOF does
        with contextlib.suppress(RuntimeError):  # the loop has already closed
            loop.call_soon_threadsafe(_settle, future, line)


def _settle(future: asyncio.Future[str | None], line: str | None) -> None:
    if not future.done():
        future.set_result(line)


class LineGame:
    """One player's match in line mode."""

    def __init__(self, client: MatchClient, stdin: TextIO, stdout: TextIO) -> None:
        self.client = client
        self.tracker = MatchTracker(client)
        self.reader = LineReader(stdin)
        self.stdout = stdout
        self._shown_at: tuple[int, int] | None = None
        self.put_down: PutDown | None = None
        """A put-down typed alone, waiting for its draw on the next line."""
        self._asked_again = False
        self._echoes_due = 0
        """Lines this player said whose echo (their ``Said`` update, queued as
        they go) is not printed yet: the next question waits for it, so that
        "you say: ..." comes before it, not after."""

    def say(self, *lines: str) -> None:
        for line in lines:
            self.stdout.write(line + "\n")
        self.stdout.flush()

    async def run(self) -> int:
        self.say("lcnet line mode: one command per line; 'help' lists them")
        updates: asyncio.Task[Update] = asyncio.ensure_future(self.client.next_update())
        line: asyncio.Task[str | None] | None = None
        try:
            while True:
                if line is not None or self._echoes_due:
                    pass  # a line is being read, or an echo is to come first
                elif self.tracker.may_move():
                    self.prompt()
                    line = asyncio.ensure_future(self.reader.readline())
                elif self._may_ask_again():
                    self.say(f"{self.tracker.rematch_question()} {REMATCH_PROMPT}")
                    line = asyncio.ensure_future(self.reader.readline())
                waiting: set[asyncio.Task[Any]] = {updates}
                if line is not None:
                    waiting.add(line)
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if updates in done:
                    try:
                        update = updates.result()
                    except LcnetError as exc:
                        self.say(f"the connection failed: {exc}")
                        return self._leave()
                    self.say(*self.tracker.apply(update))
                    if isinstance(update.event, Said) and update.event.seat is self.tracker.me:
                        self._echoes_due = max(0, self._echoes_due - 1)
                    if isinstance(update.failure, UserError):
                        update.failure.shown = True  # said once, here
                    if isinstance(update.event, RoundVerified):
                        self.say(*self._scoring())
                    if self.tracker.over and self._done_with_match():
                        return self.tracker.exit_code()
                    updates = asyncio.ensure_future(self.client.next_update())
                if line is not None and line in done:
                    text, line = line.result(), None
                    code = await self.command(text)
                    if code is not None:
                        return code
        finally:
            for task in (updates, line):
                if task is not None:
                    task.cancel()

    def prompt(self) -> None:
        """The table (once per position) and the question."""
        here = (self.tracker.state.round_number, len(self.tracker.turns))
        if self._shown_at != here:
            self._shown_at = here
            self.show_board()
        self.say(PROMPT)

    def show_board(self) -> None:
        board = self.tracker.board()
        view = self.tracker.state.view
        if board is None or view is None:
            self.say("the cards are not dealt yet")
            return
        self.say("", *plain(board_lines(board)), *self._choices(view), "")

    def _scoring(self) -> list[str]:
        """The finished round, expedition by expedition, for both players."""
        summary = self.tracker.summaries[-1] if self.tracker.summaries else None
        if summary is None or summary.expeditions is None:
            return []
        me, other = self.client.seat, self.client.seat.other
        lines = [
            *scoring_lines(YOU, summary.suits, summary.expeditions[me]),
            *scoring_lines(self.tracker.opponent, summary.suits, summary.expeditions[other]),
        ]
        return plain(lines)

    @staticmethod
    def _choices(view: View) -> list[str]:
        """What the player may do now, in two short lines."""
        if not view.my_turn:
            return []
        fits = " ".join(str(c) for c in view.hand if view.can_play(c))
        piles = "".join(
            f", {s.letter} ({top})" for s in view.suits if (top := view.top(s)) is not None
        )
        return [
            f"  play: {fits or 'no card fits an expedition'}; or discard any card",
            f"  then draw from: deck{piles}",
        ]

    async def command(self, text: str | None) -> int | None:
        """Act on one input line; an exit code ends the game."""
        if text is None:
            self.say("end of input")
            return self._leave()
        self.say(f"> {text}")
        words = text.strip()
        key = words.lower()
        if not words:
            return None
        if self._may_ask_again():  # the match is over: the one question left
            return await self._answer_rematch(key)
        if key in HELP_WORDS:
            self.say(*HELP_LINES)
            return None
        if key in BOARD_WORDS:
            self.show_board()
            return None
        if key in HINT_WORDS:
            await self._hint()
            return None
        if key in QUIT_WORDS:
            return self._leave()
        if key == "resign":
            await self._resign()
            return None
        if (line := said(words)) is not None:
            await self._talk(line)
            return None
        await self._play(words)
        return None

    async def _play(self, words: str) -> None:
        turn: Turn | None
        try:
            turn = Turn.parse(words)
        except InvalidMoveError as exc:
            turn = self._half_turn(words, exc)
        if turn is None:
            return
        view = self.tracker.state.view
        if view is None or not self.tracker.may_move():
            self.say("error: it is not your move")
            return
        problem = check_choice(view, turn.put_down, turn.draw)
        if problem is not None:
            self.say(f"error: {explain(problem)}")
            return
        self.put_down = None
        self.tracker.note_sent()
        try:
            await self.client.play(turn)
        except IllegalMoveError as exc:
            self.tracker.note_not_sent()
            self.say(f"error: {explain(exc)}")
        except LcnetError as exc:
            self.tracker.note_not_sent()
            self.say(f"error: the move was not sent: {exc}")

    def _half_turn(self, words: str, not_a_turn: InvalidMoveError) -> Turn | None:
        """A draw completing the put-down typed before, or a put-down alone (which
        then waits for its draw); ``None`` when there is nothing to send yet."""
        if self.put_down is not None:
            try:
                return Turn(self.put_down, Draw.parse(words))
            except InvalidMoveError:
                pass
        try:
            put_down = PutDown.parse(words)
        except InvalidMoveError:
            self.say(f"error: {not_a_turn}; 'help' shows the notation")
            return None
        view = self.tracker.state.view
        if view is None or not self.tracker.may_move():
            self.say("error: it is not your move")
            return None
        problem = check_choice(view, put_down)
        if problem is not None:
            self.say(f"error: {explain(problem)}")
            return None
        self.put_down = put_down
        legal = view.legal_draws(put_down)
        piles = "".join(
            f", {d.suit.letter} ({view.top(d.suit)})" for d in legal if d.suit is not None
        )
        deck = "deck" if any(d.from_deck for d in legal) else ""
        self.say(f"{put_down}: now the draw: {deck}{piles}".replace(": , ", ": "))
        return None

    async def _hint(self) -> None:
        """The bot's suggested turn from this player's view (it sees no hidden card)."""
        view = self.tracker.state.view
        if view is None or not self.tracker.may_move():
            self.say("error: it is not your move")
            return
        from lcnet.bots import advice  # the bots load only when a hint is asked for

        # A search of a fraction of a second: off the event loop, which keeps the
        # connection alive meanwhile.
        hint = await asyncio.to_thread(advice.suggest, view)
        self.say(advice.hint_text(hint))

    async def _talk(self, line: str) -> None:
        try:
            await self.client.say(line)  # shown when it has gone (a Said update)
        except (ValueError, LcnetError) as exc:
            self.say(f"error: not sent: {exc}")
        else:
            self._echoes_due += 1

    async def _resign(self) -> None:
        try:
            await self.client.resign()
        except LcnetError as exc:
            self.say(f"error: the resignation was not sent: {exc}")
            return
        self.say("you resign")
        # The move is no longer due: wait for the end of the match.
        self.tracker.note_sent()

    async def _answer_rematch(self, key: str) -> int | None:
        """The answer to the offer of another match (the match is over)."""
        if key in NO_WORDS or key in QUIT_WORDS:
            return self._leave()
        if key not in AGAIN_WORDS:
            self.say("error: the match is over; type 'again' for another one, or 'quit'")
            return None
        # Said now; the opponent's answer comes as an update (and quit still leaves).
        self._asked_again = True
        if await self.client.rematch(True, wait=0):
            self.say(f"{self.tracker.opponent} agrees: another match starts, the seats swapped")
            return self.tracker.exit_code()
        return None

    def _may_ask_again(self) -> bool:
        """Whether the player may still ask for another match (no line is read
        after it did: the next one belongs to the next match)."""
        return not self._asked_again and self.tracker.rematch_question() is not None

    def _done_with_match(self) -> bool:
        """Over, and no other match to wait for: none may follow, or it was
        declined, or both agreed (the next one starts)."""
        offer = self.tracker.state.rematch
        return offer is None or offer.declined or offer.agreed

    def _leave(self) -> int:
        if self.tracker.over:
            return self.tracker.exit_code()
        if not self.tracker.opponent_known:
            self.say("leaving: the opponent never answered, so no match was started")
            return ExitCode.NOT_STARTED
        path = self.client.replay_path
        later = (
            f"continue it later with: {command()} resume {path}"
            if path is not None
            else "this match is not saved, so it cannot be continued"
        )
        self.say(f"leaving the match unfinished; {later}")
        return ExitCode.UNFINISHED


async def run_lines(client: MatchClient, stdin: TextIO, stdout: TextIO) -> int:
    """Play a match in line mode; returns 0 finished, 1 dispute, 3 left unfinished."""
    return await LineGame(client, stdin, stdout).run()
