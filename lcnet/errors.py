"""The one error hierarchy of lcnet.

Every error lcnet raises on purpose derives from :class:`LcnetError`, so a
caller (and the CLI) can tell "lcnet said no" from a bug. Below the root the
tree separates the kinds of wrong that need different handling:

* *malformed* input that cannot even be parsed (:class:`InvalidCardError`,
  :class:`InvalidMoveError`) versus well-formed input that the rules forbid
  here (:class:`IllegalMoveError`);
* a protocol violation by *this* program (:class:`LocalProtocolError`, a bug)
  versus one by the *other* peer (:class:`RemoteProtocolError`, evidence);
* problems a user can fix (:class:`UserError`), whose text is shown as is.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from lcnet.game.seat import Seat


class ExitCode(enum.IntEnum):
    """Every exit status of lcnet's commands, in one table (each command's
    --help lists the ones it uses). Some numbers mean one thing to each kind
    of command: aliases name them."""

    OK = 0
    FINISHED = 0
    """A match ended (by its last round or a resignation) and is saved."""
    NOT_STARTED = 0
    """The player stopped before any match started (a host that no one
    joined): nothing was played and nothing is to continue."""
    FAILED = 1
    """A user error; for ``lcnet audit``, INVALID (a proof of a fault)."""
    DISPUTE = 1
    """The match stopped on a dispute: a player broke the rules."""
    USAGE = 2
    """The command line is wrong; for ``lcnet audit``, DAMAGED or unreadable."""
    UNFINISHED = 3
    """The player quit an unfinished match (``lcnet audit``: INCOMPLETE)."""
    REFUSED = 4
    """The opponent would not play (a host busy with another match, or that
    turned this peer away, or a joiner that refused this host's welcome)."""
    KEY_CHANGED = 5
    """The opponent presents a known name with another key (a possible impostor)."""
    VERSION = 6
    """The opponent speaks an incompatible protocol version."""
    UNREACHABLE = 7
    """The host never answered (nothing listens there, or it is silent)."""
    NO_GAMES = 8
    """``lcnet games`` (``lcnet join`` without an address) found no game."""
    INTERRUPTED = 130
    """Ctrl-C (128 + SIGINT, as shells report it)."""


class LcnetError(Exception):
    """Root of every error lcnet raises deliberately."""

    exit_code: int = ExitCode.FAILED
    """The command's exit status when this error ends it."""
    title = "lcnet stopped"
    """A heading for it where a screen shows one over the message."""


class InvalidCardError(LcnetError, ValueError):
    """Text that is not a card in lcnet's card notation."""


class InvalidMoveError(LcnetError, ValueError):
    """Text that is not a move in lcnet's move notation."""


class InvalidSetupError(LcnetError, ValueError):
    """A round or a match set up with values the rules do not have (a deck
    that is not a whole deck, a third player, no rounds): a caller's bug."""


class MatchStateError(LcnetError):
    """A match asked for what its state does not allow (a round after the
    last, a result before the end): a caller's bug."""


class IllegalReason(enum.Enum):
    """Why a well-formed move is not allowed in the current position."""

    ROUND_OVER = "the round is over"
    NOT_YOUR_TURN = "it is not this player's turn"
    MUST_PUT_DOWN_FIRST = "a turn starts by putting down a card, then drawing"
    MUST_DRAW = "the card is put down; now a card must be drawn"
    CARD_NOT_IN_HAND = "the card is not in the player's hand"
    WAGER_AFTER_NUMBER = "a wager cannot follow a number card in an expedition"
    NOT_HIGHER = "a number card must be higher than the last card of its expedition"
    DRAW_BACK_DISCARD = "the card just discarded cannot be drawn back in the same turn"
    EMPTY_PILE = "that pile is empty"
    SUIT_NOT_IN_GAME = "that suit is not in this game"


class IllegalMoveError(LcnetError):
    """A well-formed move that the rules do not allow in this position."""

    def __init__(self, move: object, reason: IllegalReason, detail: str = "") -> None:
        self.move = move
        self.reason = reason
        self.detail = detail
        text = f"illegal move {move}: {reason.value}"
        if detail:
            text += f" ({detail})"
        super().__init__(text)


class ProtocolError(LcnetError):
    """A violation of the lcnet protocol."""


class LocalProtocolError(ProtocolError):
    """This program tried to do something the protocol forbids (a bug here)."""


class RemoteProtocolError(ProtocolError):
    """The other peer sent something the protocol forbids.

    ``author`` names who is to blame (a seat name such as ``"host"`` or a
    signer description) when that is known; it is the evidence a dispute
    records.
    """

    def __init__(self, message: str, *, author: str | None = None) -> None:
        self.author = author
        super().__init__(message if author is None else f"{message} (by {author})")


class Violation(RemoteProtocolError):
    """A frame signed by a player that breaks the protocol: proof against that player."""

    def __init__(self, reason: str, *, seat: Seat, seq: int | None = None) -> None:
        self.seat = seat
        self.seq = seq
        self.reason = reason
        super().__init__(reason, author=str(seat))


class UserError(LcnetError):
    """A problem the user can fix; the message is shown to them as is."""

    shown = False
    """Set once the player has read it (the line mode printed it in the game's
    stream): the command then ends with its exit status without repeating it."""


class UsageError(UserError):
    """The command line itself is wrong (exit status 2, like argparse's own errors)."""

    exit_code = ExitCode.USAGE


class SessionFailed(LocalProtocolError):
    """This program failed while handling a frame: a bug of lcnet, not the peer's doing.

    The session is then stopped for good (fail closed, as h11's ERROR state):
    it signed nothing for the failing step and its transcript is what it was
    before, so the replay file holds the last good state and can be resumed.
    """


# ------------------------------------------------------- the network's errors


UNREACHABLE_TEXT: Final = (
    "no answer from the host: check the address and port, that `lcnet host` is running "
    "there, and that a firewall lets the port through"
)


def rematch_unanswered(seconds: float) -> str:
    """Why the program that bound the socket stops when the opponent, which
    agreed to another match, never answered its opening of it (in a rematch,
    this program says hello; there is no address to check)."""
    return (
        f"the opponent agreed to another match but did not answer its opening for "
        f"{seconds:g} s (it left, or its program stopped); the match before is saved"
    )


class NetError(UserError):
    """A network problem the user can act on (the message says how)."""

    title = "The connection failed"
    """A heading for it (the full-screen UI shows one over the message)."""


class Refused(NetError):
    """The opponent would not play with this peer; the message says why."""

    exit_code = ExitCode.REFUSED
    title = "The opponent would not play"


class IncompatiblePeer(NetError):
    """The opponent speaks another major protocol version."""

    exit_code = ExitCode.VERSION
    title = "Incompatible versions of lcnet"


class Unreachable(NetError):
    """The host never answered."""

    exit_code = ExitCode.UNREACHABLE
    title = "The host cannot be reached"


class LocalFailure(NetError):
    """lcnet failed while handling the match: a fault of this program, not of the opponent."""

    @classmethod
    def of(cls, exc: BaseException, replay: Path | None) -> LocalFailure:
        text = str(exc) if isinstance(exc, SessionFailed) else f"{type(exc).__name__}: {exc}"
        where = f" in {replay}" if replay is not None else ""
        return cls(
            f"lcnet stopped because of a fault of its own, not the opponent's ({text}). "
            f"Nothing more was signed; the match is saved up to its last good frame{where}"
            + (f" and `lcnet resume {replay}` continues it" if replay is not None else "")
        )
