"""What a user interface sees of a match in progress: the :class:`MatchClient` protocol.

A user interface (the full-screen board, the plain line mode, or a bot
driver) never touches sockets or sessions' internals: it awaits
:meth:`MatchClient.next_update`, reads the client's state, and calls
:meth:`MatchClient.play` or :meth:`MatchClient.resign`. The network peer
(:mod:`lcnet.net`) implements it over ZeroMQ; the tests' ``LocalClient``
(``tests/localclient.py``) implements it in process, against a bot. This
module holds only the interface, so that what implements it (the network)
does not import bots, local matches or replay files through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from lcnet.engine import Turn, View
from lcnet.errors import LcnetError
from lcnet.events import Event
from lcnet.seat import Seat
from lcnet.session import Session
from lcnet.status import Status as Status  # where it always was


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


class MatchClient(Protocol):
    """A match in progress, from one player's side."""

    @property
    def seat(self) -> Seat: ...

    @property
    def session(self) -> Session:
        """The protocol session: read it (view, match, outcome, dispute), never drive it."""
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


def view_of(client: MatchClient) -> View | None:
    return client.session.view()
