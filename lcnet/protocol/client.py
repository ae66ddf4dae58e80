"""What a user interface sees of a match in progress: the :class:`MatchClient` protocol.

A user interface (the full-screen board, the plain line mode, or a bot
driver) never touches sockets or the session: it awaits
:meth:`MatchClient.next_update`, each of which carries a frozen
:class:`MatchState` of what there is to show, and calls
:meth:`MatchClient.play` or :meth:`MatchClient.resign`. The boundary is one
way: the screen reads snapshots, never the live session
(``tests/test_layers.py`` keeps the screen's modules from importing it). The
network peer (:mod:`lcnet.net.peer`) implements it over ZeroMQ; the tests'
``LocalClient`` (``tests/localclient.py``) implements it in process, against
a bot; :func:`lcnet.protocol.snapshot.state_of` makes the snapshots. This module
holds only the interface, so that what implements it (the network) does
not import bots, local matches or replay files through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from lcnet.errors import LcnetError
from lcnet.game.engine import Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol.events import DisputeInfo, Event, MatchOptions, Offer
from lcnet.protocol.status import Status


@dataclass(frozen=True)
class MatchState:
    """What a screen shows of the match at one moment, frozen: taken when the
    update that carries it was made, so that a screen never reads the live
    session (which may already be further on)."""

    seat: Seat
    view: View | None = None
    """This player's view of the round in progress (``None`` outside a round)."""
    round_number: int = 0
    round_starter: Seat | None = None
    round_turns: tuple[tuple[Seat, Turn], ...] = ()
    """The turns of the round in progress so far, in order."""
    names: Mapping[Seat, str] = field(default_factory=lambda: MappingProxyType({}))
    fingerprints: Mapping[Seat, str] = field(default_factory=lambda: MappingProxyType({}))
    """The players' key fingerprints, as far as their keys are known."""
    bots: frozenset[Seat] = frozenset()
    """The seats whose program said in its opening that a bot plays it (advisory)."""
    options: MatchOptions | None = None
    round_scores: tuple[tuple[int, int], ...] = ()
    """Each recorded round's scores by seat (host, joiner)."""
    dispute: DisputeInfo | None = None
    is_over: bool = False
    awaiting_decision: bool = False
    """Whether this player must choose a move now."""
    frames: int = 0
    """Transcript frames so far (past the welcome, a match has started)."""
    failure: LcnetError | None = None
    """Why the client stopped early, if it did."""
    addresses: tuple[str, ...] = ()
    """For a host: where the opponent can join it (``ADDRESS:PORT``)."""
    watchers: tuple[tuple[str, str], ...] = ()
    """Who watches the match (name, key fingerprint): the host's spectators,
    as the host knows them or (for its opponent) tells them."""
    unlisted_watchers: int = 0
    """How many more watch than :attr:`watchers` names (the host names 16 at most)."""
    rematch: Offer | None = None
    """Once the match is over (and no dispute stopped it), what each player said
    of another match with the seats swapped; ``None`` when none may follow."""

    @property
    def totals(self) -> tuple[int, int]:
        """Match totals by seat of the recorded rounds."""
        return (sum(s[0] for s in self.round_scores), sum(s[1] for s in self.round_scores))


@dataclass(frozen=True)
class Update:
    """Something to show: a match event, or a change of status, or a notice."""

    event: Event | None = None
    status: Status | None = None
    notice: str | None = None
    failure: LcnetError | None = None
    """Why the client stops now (a refusal, an unreachable host): the one reason to show."""
    warning: LcnetError | None = None
    """A peer refused without stopping (a host turning away a known name with a new key)."""
    caution: str | None = None
    """The opponent's name may not be who it says (it looks like a known name, or
    mixes scripts): shown wherever the opponent's identity is."""
    state: MatchState | None = None
    """The match as it stood when this update was made."""


class MatchClient(Protocol):
    """A match in progress, from one player's side."""

    @property
    def seat(self) -> Seat: ...

    @property
    def state(self) -> MatchState:
        """The match as it stands now (a frozen snapshot)."""
        ...

    @property
    def status(self) -> Status: ...

    @property
    def replay_path(self) -> Path | None:
        """Where this match is being saved."""
        ...

    async def next_update(self) -> Update:
        """Wait for the next thing to show."""
        ...

    async def play(self, turn: Turn) -> None:
        """Make this player's move (raises IllegalMoveError, with the reason, if illegal)."""
        ...

    async def resign(self) -> None:
        """Give up (sent as soon as this player may speak)."""
        ...

    async def say(self, text: str) -> None:
        """Send the opponent a line of text, outside the match (``say``): it
        comes back as a :class:`~lcnet.protocol.events.Said` update, and the opponent's
        as one too. Raises ``ValueError`` for a line that cannot go (empty, too
        long, not printable, too many too fast), :class:`LcnetError` when there
        is nobody to say it to."""
        ...

    async def rematch(self, ok: bool, *, wait: float | None = None) -> bool:
        """Once the match is over: say whether this player wants another, with
        the seats swapped; with ``ok``, wait (at most ``wait`` seconds) for the
        opponent's answer. Whether both want it (the caller then returns, and
        the next match starts)."""
        ...
