"""What a match session tells the rest of lcnet: options, events and steps.

The user interfaces, the network adapter, the audit and the replay viewer
read these values; only :mod:`lcnet.protocol.session` makes them. Keeping them here
lets those modules depend on the values without importing the state machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lcnet.deck import deal
from lcnet.game.cards import Card
from lcnet.game.engine import Outcome, Turn
from lcnet.game.seat import Seat
from lcnet.protocol import wire

# ------------------------------------------------------------------ values


@dataclass(frozen=True)
class MatchOptions:
    """What the host decides for a match."""

    suits: int = 5
    rounds: int = 3

    def __post_init__(self) -> None:
        if self.suits not in (5, 6):
            raise ValueError(f"a match has 5 or 6 suits, not {self.suits}")
        if not 1 <= self.rounds <= wire.MAX_ROUNDS:
            raise ValueError(f"a match has 1 to {wire.MAX_ROUNDS} rounds, not {self.rounds}")


@dataclass(frozen=True)
class DisputeInfo:
    """Why a match stopped: who broke the rules, in which frame, how."""

    offender: Seat
    seq: int
    frame_hash: bytes
    reason: str
    detected_by: Seat | None
    """The seat that raised the dispute (``None``: found by an observer)."""


# ------------------------------------------------------------------ events


@dataclass(frozen=True)
class Event:
    """Something that happened in the match, for the user interface."""


@dataclass(frozen=True)
class PeerIdentified(Event):
    seat: Seat
    name: str
    key: bytes


@dataclass(frozen=True)
class MatchStarted(Event):
    options: MatchOptions
    first_starter: Seat


@dataclass(frozen=True)
class RoundStarted(Event):
    round: int
    starter: Seat
    hand: tuple[Card, ...]
    """This peer's 8 cards (empty for an observer)."""


@dataclass(frozen=True)
class TurnPlayed(Event):
    round: int
    seat: Seat
    turn: Turn
    drawn: Card | None
    """The card drawn, when this peer may know it (its own draw, or any pile draw)."""


@dataclass(frozen=True)
class RoundVerified(Event):
    round: int
    scores: tuple[int, int]
    deck: deal.RoundDeck


@dataclass(frozen=True)
class MatchEnded(Event):
    outcome: Outcome
    round_scores: tuple[tuple[int, int], ...]
    resigned: Seat | None
    sealed: bool
    """True once both players signed the same result."""


@dataclass(frozen=True)
class DisputeRaised(Event):
    dispute: DisputeInfo


@dataclass(frozen=True)
class Said(Event):
    """A player's line (a ``say`` control frame): this player's, or the opponent's."""

    seat: Seat
    text: str


@dataclass(frozen=True)
class FrameDropped(Event):
    reason: str


@dataclass(frozen=True)
class DuplicateIgnored(Event):
    seq: int


@dataclass(frozen=True)
class FrameGap(Event):
    """A frame from further ahead than expected: frames were lost on the way."""

    expected: int
    got: int


@dataclass(frozen=True)
class ControlReceived(Event):
    message: wire.Message


@dataclass
class Step:
    """What one call changed: events, the accepted inbound frame, and this
    peer's frames to record and then send, in order."""

    events: list[Event] = field(default_factory=list)
    accepted: wire.Frame | None = None
    evidence: wire.Frame | None = None
    outgoing: list[wire.Frame] = field(default_factory=list)


@dataclass(frozen=True)
class Offer:
    """What each player said of another match (:mod:`lcnet.link.rematch`): ``None``
    not yet, then yes or no."""

    ours: bool | None = None
    theirs: bool | None = None

    @property
    def agreed(self) -> bool:
        """Both want another match: it starts."""
        return bool(self.ours and self.theirs)

    @property
    def declined(self) -> bool:
        """One of them does not: there is none."""
        return self.ours is False or self.theirs is False
