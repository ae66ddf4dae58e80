"""Whom a host talks to: its admission rule, without sockets or files.

A host's socket hears from anyone. :func:`admit` decides, for each frame
from a connection that is not its opponent's, whether the host takes the
sender as its opponent (a fresh ``hello`` it accepts, or its joiner back on
a new connection), ignores the frame, or turns the sender away with the
reason it is told in a ``busy`` frame (docs/PROTOCOL.md §6.5). It reads
the session and calls what it is given (the ledger of games played, the
check of the peer's name and key), so :class:`lcnet.net.peer.NetPeer` only
carries the decision out. :func:`refusal` is the other side of it: what a
``busy`` frame means to the player that receives it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from lcnet.deck import hashing
from lcnet.errors import UserError
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.session import Session

BUSY_REASON: Final = "this host is already playing a match with someone else"
"""Sent only while the host is in a match with another peer."""
OTHER_MATCH_REASON: Final = (
    "this host is playing another match with you; continue that one with `lcnet resume`"
)
OWN_KEY_REASON: Final = "that hello presents this host's own key (join with another identity)"
BAD_SIGNATURE_REASON: Final = "that hello's signature does not verify with the key it presents"
NOT_FIRST_REASON: Final = "a match starts with a hello at position 0"
REPLAYED_REASON: Final = "that hello opened a match this host has already played (a replayed hello)"
NO_MATCH_REASON: Final = (
    "this host has no match with you to continue: it is waiting for a new opponent"
)


@dataclass(frozen=True)
class Admit:
    """Take the sender as the opponent (a new joiner, or the joiner on a new connection)."""


@dataclass(frozen=True)
class Ignore:
    """Drop the frame: a stranger's frame that asks for nothing (not a hello or a sync)."""


@dataclass(frozen=True)
class TurnAway:
    """Send the sender away with ``reason`` (a refusal of the peer check keeps its
    exception, which may have more to say to this host's player)."""

    reason: str | UserError

    @property
    def text(self) -> str:
        return self.reason if isinstance(self.reason, str) else str(self.reason)


Decision = Admit | Ignore | TurnAway


def admit(
    session: Session,
    frame: wire.Frame,
    *,
    in_match: bool,
    own_key: bytes,
    fresh_game: Callable[[bytes], bool] | None,
    check_peer: Callable[[Seat, str, bytes], None],
) -> Decision:
    """What the host does with ``frame`` from a connection not its opponent's.

    ``in_match``: the host has an opponent (the match may be over, or
    resumed); ``fresh_game``: whether a game id is new to this host (and
    from now on, not new); ``check_peer``: raises :class:`UserError` to
    refuse a joiner's name and key.
    """
    peer_key = session.keys.get(session.seat.other)  # the joiner (in a rematch, the host)
    if peer_key is not None and frame.signed_by(peer_key) and frame.game == session.game_id:
        return Admit()  # the opponent, on a new connection (handover)
    message = frame.message
    if not isinstance(message, wire.Hello | wire.Sync):
        return Ignore()
    if in_match:
        if isinstance(message, wire.Hello) and message.key == peer_key:
            return TurnAway(OTHER_MATCH_REASON)
        return TurnAway(BUSY_REASON)
    if not isinstance(message, wire.Hello):
        return TurnAway(NO_MATCH_REASON)  # a sync: someone resuming a match not this host's
    if message.key == own_key:
        return TurnAway(OWN_KEY_REASON)
    if not frame.signed_by(message.key):
        return TurnAway(BAD_SIGNATURE_REASON)
    if frame.seq != 0:
        return TurnAway(NOT_FIRST_REASON)
    if fresh_game is not None and not fresh_game(hashing.game_id(frame.raw)):
        return TurnAway(REPLAYED_REASON)
    try:
        check_peer(Seat.JOINER, message.name, message.key)
    except UserError as exc:
        return TurnAway(exc)
    return Admit()


def refusal(session: Session, frame: wire.Frame) -> str | None:
    """What a ``busy`` frame from the other side means to a player: why the
    match stops, or ``None`` when it is not about this match (it is dropped).

    A joiner is turned away before its match starts, or told its host gave up
    on the match's opening (it stalled); a host hears that its joiner refused
    the welcome (it knows the host's name with another key, say). Only a frame
    signed by the opponent's key of this match counts once keys are known.
    """
    message = frame.message
    assert isinstance(message, wire.Busy)
    if session.seat is Seat.JOINER and session.next_seq <= 1:
        return f"the host turned this peer away: {message.reason}"
    peer_key = session.keys.get(session.seat.other)
    if peer_key is None or frame.game != session.game_id or not frame.signed_by(peer_key):
        return None
    if session.seat is Seat.JOINER and session.opening:
        # Nothing was played, and the host waits for another opponent.
        return f"the host stopped this match: {message.reason}"
    if session.seat is Seat.HOST and len(session.chain) <= 2:
        return f"the opponent refused to play: {message.reason}"
    return None


def gave_up(seconds: float) -> str:
    """The ``busy`` reason of a host that gave up on a stalled opening."""
    return (
        f"the match's opening went no further for {seconds:g} s; this host "
        "gave up on it and waits for another opponent"
    )


def gave_up_notice(name: str, seconds: float) -> str:
    """What the host's screen says when it gave up on ``name``'s opening."""
    return (
        f"{name} took the opening no further for {seconds:g} s: nothing was played, "
        "no file kept; waiting for another opponent"
    )
