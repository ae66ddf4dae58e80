"""The phases of a match's transcript and the shape of the state table's rows.

The table itself, with what each frame does, is :data:`lcnet.protocol.transitions.TABLE`
(docs/PROTOCOL.md §6.1 has it as a table too, which a test compares with it).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol, TypeAlias

from lcnet.deck import deal
from lcnet.deck.deckcheck import RoundTrack
from lcnet.game.engine import Match, Outcome
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions, Step


class Phase(enum.Enum):
    """Where the transcript stands: the kind of frame that comes next."""

    HELLO = "hello"
    WELCOME = "welcome"
    COIN = "coin"
    COMMIT_HOST = "host's seed commitment"
    COMMIT_JOINER = "joiner's seed commitment"
    PASS_1 = "deck pass 1"
    PASS_2 = "deck pass 2"
    PASS_3 = "deck pass 3"
    PASS_4 = "deck pass 4"
    KEYS_JOINER = "joiner's dealing keys"
    KEYS_HOST = "host's dealing keys"
    MOVE = "move"
    ACK = "acknowledgement"
    REVEAL_HOST = "host's seed reveal"
    REVEAL_JOINER = "joiner's seed reveal"
    RESULT_HOST = "host's result"
    RESULT_JOINER = "joiner's countersigned result"
    OVER = "over"


OPENING: Final = frozenset(
    {
        Phase.HELLO,
        Phase.WELCOME,
        Phase.COIN,
        Phase.COMMIT_HOST,
        Phase.COMMIT_JOINER,
        Phase.PASS_1,
        Phase.PASS_2,
        Phase.PASS_3,
        Phase.PASS_4,
        Phase.KEYS_JOINER,
        Phase.KEYS_HOST,
    }
)
"""The phases of a deal: before the first move, the match's opening."""


class TranscriptState(Protocol):
    """What a frame's handler may read and change of the transcript it applies to:
    all of it is here, so that the table (:mod:`lcnet.protocol.transitions`)
    needs nothing of :class:`lcnet.protocol.transcript.Transcript`, which
    holds these fields and runs the table."""

    phase: Phase
    options: MatchOptions | None
    names: dict[Seat, str]
    bots: set[Seat]
    keys: dict[Seat, bytes]
    minors: dict[Seat, int]
    game_id: bytes | None
    match: Match | None
    first_starter: Seat | None
    round: RoundTrack | None
    rounds_verified: list[deal.RoundDeck]
    coin_commitment: bytes | None
    host_nonce: bytes | None
    outcome: Outcome | None
    sealed: bool

    def is_own(self, seat: Seat) -> bool:
        """Whether ``seat`` is this side (whose cards it holds itself)."""
        ...

    def new_round(self, number: int, starter: Seat) -> RoundTrack:
        """The track of a new round, with this role's deck checks."""
        ...


Handler: TypeAlias = Callable[[TranscriptState, wire.Frame, Seat, Step], "Phase | None"]
"""What one frame of the transcript does to it (a function of :mod:`lcnet.protocol.transitions`)."""


@dataclass(frozen=True, slots=True)
class OwnSide:
    """What a player brings to the frames it builds itself, beside the
    transcript: who it is, its master secret, and (a host) the match it offers."""

    name: str
    key: bytes
    """Its public key (the one its frames verify by)."""
    master_secret: bytes
    options: MatchOptions | None
    """The host's options for the match, which its welcome carries (a joiner: ``None``)."""
    bot: bool
    """A program plays this side: its hello or welcome says so (``bot``, 1.1)."""


Builder: TypeAlias = Callable[[TranscriptState, OwnSide], wire.Message]
"""The frame a player builds itself in a phase where it speaks and the
protocol leaves it no choice (a function of :mod:`lcnet.protocol.transitions`).
Not a pure function: building an ``ack`` gives away the next draw's key,
which the round's own deal then counts as given."""


@dataclass(frozen=True, slots=True)
class Transition:
    """One row of the state machine: who speaks in a phase, what, what follows,
    and what the speaker builds.

    ``speaker`` is ``None`` where the round decides: the player to move in
    MOVE, the other player in ACK. ``handler`` applies the frame (called with
    the transcript, the frame, its author and the step); it returns the next
    phase when the row has more than one ``successors`` (the game decides),
    else ``None``. ``builds`` makes the frame when the player whose turn it is
    is this side (``None``: a decision makes it, as in MOVE); an observer
    builds nothing.
    """

    speaker: Seat | None
    expects: type[wire.Message] | None
    handler: Handler | None
    successors: tuple[Phase, ...]
    builds: Builder | None
    pass_number: int | None = None
