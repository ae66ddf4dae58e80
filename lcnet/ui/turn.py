"""The player's turn being put together in the full-screen game, without a screen.

:class:`TurnInput` holds what the keys and typed commands have chosen so
far — the selected card, the put-down waiting for its draw, a move being
sent, a question waiting for a yes — and decides what each choice does. It
does no I/O: each method returns :data:`Effect` values (a message to show, a
turn to send, the match to leave) that :class:`~lcnet.ui.game.GameUI`
carries out, so it is tested with a plain view and no prompt_toolkit.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from lcnet.errors import InvalidMoveError
from lcnet.game.cards import Card
from lcnet.game.engine import Draw, PutDown, Turn, View
from lcnet.ui.tracker import check_choice, explain


class Stage(enum.Enum):
    """Which half of the player's turn the keys choose."""

    CARD = "choose a card"
    DRAW = "choose where to draw from"


class Confirm(enum.Enum):
    """An action waiting for the player's yes."""

    QUIT = "quit"
    RESIGN = "resign"


@dataclass(frozen=True)
class Say:
    """Show ``text`` on the message line (in the error style if ``error``)."""

    text: str
    error: bool = False


@dataclass(frozen=True)
class Send:
    """Send ``turn`` (checked already); then call :meth:`TurnInput.sent` or ``not_sent``."""

    turn: Turn


class Do(enum.Enum):
    """What only the screen around the turn can do."""

    EXIT = "leave the match now"
    RESIGN = "send the resignation"
    HELP = "open the help screen"
    HINT = "ask the bot for a hint"


@dataclass(frozen=True)
class Talk:
    """Send the opponent ``text`` (a line typed as ``say …``)."""

    text: str


Effect = Say | Send | Do | Talk


def said(words: str) -> str | None:
    """The line of a ``say …`` command (``:say …`` too), or ``None`` for another command."""
    words = words.strip().removeprefix(":")
    head, _, rest = words.partition(" ")
    return rest.strip() if head.lower() == "say" else None


class TrackedMatch(Protocol):
    """What the turn input reads of the match (a :class:`~lcnet.ui.tracker.MatchTracker`;
    not :class:`lcnet.game.engine.Match`, the rules' record of one)."""

    @property
    def over(self) -> bool: ...

    @property
    def error(self) -> str | None: ...

    @property
    def opponent(self) -> str: ...

    @property
    def opponent_known(self) -> bool: ...

    def may_move(self) -> bool: ...


class TurnInput:
    """The choices of one player's turn: a card, a put-down, a draw, a command, a yes."""

    def __init__(self, match: TrackedMatch, view: Callable[[], View | None]) -> None:
        self.match = match
        self._view = view
        self.stage = Stage.CARD
        self.selected = 0
        """The chosen card's place in the hand (kept within the hand)."""
        self.put_down: PutDown | None = None
        """The first half of the turn, waiting for its draw (stage ``DRAW``)."""
        self.sending = False
        """A turn was handed over to be sent, and its answer has not come."""
        self.confirm: Confirm | None = None

    # -- what is chosen

    def view(self) -> View | None:
        return self._view()

    def my_move(self) -> bool:
        """The player may move now (and is not already sending a move)."""
        return self.match.may_move() and not self.sending

    def hand(self) -> tuple[Card, ...]:
        view = self.view()
        return view.hand if view is not None else ()

    def selected_card(self) -> Card | None:
        hand = self.hand()
        if not hand:
            return None
        self.selected = min(self.selected, len(hand) - 1)
        return hand[self.selected]

    def reset(self) -> None:
        """Back to choosing a card (the put-down, if any, is taken back)."""
        self.stage = Stage.CARD
        self.put_down = None

    def stop(self) -> None:
        """The match ended or stopped: no half turn, no question is left."""
        self.reset()
        self.confirm = None

    # -- choosing

    def move_selection(self, delta: int) -> list[Effect]:
        hand = self.hand()
        if hand:
            self.selected = (self.selected + delta) % len(hand)
        return []

    def pick(self, number: int) -> list[Effect]:
        """Choose the card with this number (1 is the leftmost)."""
        if number - 1 < len(self.hand()):
            self.selected = number - 1
            return []
        return [Say(f"there is no card {number} in your hand", error=True)]

    def put_selected(self, *, discard: bool) -> list[Effect]:
        """Play (or discard) the chosen card as the first half of the turn."""
        card = self.selected_card()
        if card is None:
            return []
        return self.choose_put_down(PutDown(card, discard=discard))

    def hint(self) -> list[Effect]:
        """Enter before ``p`` or ``d``: say what chooses the put-down."""
        card = self.selected_card()
        if card is None or not self.my_move():
            return self.not_your_move()
        return [
            Say(
                f"{card} is chosen: press p to play it on its expedition or d to discard it, "
                "then choose the draw",
                error=True,
            )
        ]

    def take_back(self) -> list[Effect]:
        self.reset()
        return [Say("choose a card")]

    def choose_put_down(self, put_down: PutDown) -> list[Effect]:
        """Make ``put_down`` the first half of the turn, if the rules allow it."""
        view = self.view()
        if view is None or not self.my_move():
            return self.not_your_move()
        problem = check_choice(view, put_down)
        if problem is not None:
            return [Say(explain(problem), error=True)]
        self.put_down = put_down
        self.stage = Stage.DRAW
        return [Say(f"{put_down}: now choose where to draw from")]

    def choose_draw(self, draw: Draw) -> list[Effect]:
        """Complete the turn with ``draw`` and send it, if the rules allow it."""
        if self.put_down is None:
            return [Say("first choose a card to play or discard", error=True)]
        return self.submit(Turn(self.put_down, draw))

    def submit(self, turn: Turn) -> list[Effect]:
        """Check ``turn`` here, then send it; an illegal one is explained."""
        view = self.view()
        if view is None or not self.my_move():
            return self.not_your_move()
        problem = check_choice(view, turn.put_down, turn.draw)
        if problem is not None:
            return [Say(explain(problem), error=True)]
        self.sending = True
        return [Send(turn), Say(f"sending: {turn}")]

    def sent(self) -> None:
        """The turn went out: the next one starts from the first card."""
        self.reset()
        self.selected = 0
        self.sending = False

    def not_sent(self) -> None:
        """The turn was refused or lost: the same choice may be made again."""
        self.sending = False

    def not_your_move(self) -> list[Effect]:
        """Why no move can be made now."""
        match = self.match
        if match.over:
            text = "the match is over: press q to leave"
        elif self.sending:
            text = "your move is being sent"
        elif self.view() is None:
            text = "the cards are not dealt yet"
        else:
            text = f"wait: it is {match.opponent}'s turn"
        return [Say(text, error=True)]

    # -- questions

    def ask(self, what: Confirm) -> list[Effect]:
        """Ask before quitting or resigning (a match that cannot go on, or that
        nobody joined yet, quits at once: there is nothing to lose)."""
        match = self.match
        if what is Confirm.QUIT and (
            match.over or match.error is not None or not match.opponent_known
        ):
            return [Do.EXIT]
        if what is Confirm.RESIGN and self.match.over:
            return [Say("the match is over: there is nothing to resign", error=True)]
        self.confirm = what
        return []

    def interrupt(self) -> list[Effect]:
        """Ctrl-C: ask to quit, and quit on a second one."""
        if self.confirm is Confirm.QUIT:
            return [Do.EXIT]
        return self.ask(Confirm.QUIT)

    def confirmed(self) -> list[Effect]:
        what, self.confirm = self.confirm, None
        if what is Confirm.QUIT:
            return [Do.EXIT]
        if what is Confirm.RESIGN:
            return [Say("resigning..."), Do.RESIGN]
        return []

    def cancelled(self) -> list[Effect]:
        self.confirm = None
        return [Say("cancelled")]

    # -- typed commands

    def run_command(self, text: str) -> list[Effect]:
        """A typed command: a turn, a put-down (then a draw), help, hint, resign,
        quit, or ``say`` and a line to the opponent."""
        words = text.strip()
        key = words.lower()
        if not words:
            return []
        if (line := said(words)) is not None:
            return [Talk(line)]
        if key in ("help", "?", "h"):
            return [Do.HELP]
        if key == "hint":
            return [Do.HINT]
        if key in ("quit", "q", "exit"):
            return self.ask(Confirm.QUIT)
        if key == "resign":
            return self.ask(Confirm.RESIGN)
        try:
            turn = Turn.parse(words)
        except InvalidMoveError as not_a_turn:
            return self._partial_command(words, not_a_turn)
        return self.submit(turn)

    def _partial_command(self, words: str, not_a_turn: InvalidMoveError) -> list[Effect]:
        if self.stage is Stage.DRAW:
            try:
                return self.choose_draw(Draw.parse(words))
            except InvalidMoveError:
                pass
        try:
            put_down = PutDown.parse(words)
        except InvalidMoveError:
            return [Say(str(not_a_turn), error=True)]
        self.reset()
        return self.choose_put_down(put_down)
