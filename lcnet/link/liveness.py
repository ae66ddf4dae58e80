"""The link's decisions, without sockets or clocks: liveness, pacing, resending.

A networked match needs decisions that depend on time: when to ping, when
the opponent counts as gone, how often to ask for missing frames (``sync``)
and to answer such asks, when a joiner gives up on a silent host, when it
dials again after ZeroMQ gave up on its connection. :class:`Link` makes them
all, as a state machine in the manner of h11: it is told what happened (a
frame was heard, the connection came or went, a ``sync`` arrived, the player
resigns) and what time it is (:meth:`Link.tick` with ``now``), and answers
with :data:`Action` values for the adapter (:class:`lcnet.net.peer.NetPeer`) to
carry out. It never reads a clock, a socket or a session: what it needs to
know of the match comes as a :class:`Snapshot` of it, so that tests drive it
with a fake clock, one event at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from lcnet.game.seat import Seat
from lcnet.protocol.status import Status

REDIAL_GRACE: Final = 1.0
"""Seconds the joiner waits, after its connection drops, for ZeroMQ to plan a
reconnection before it dials again itself. libzmq reconnects after a network
error but never after a *protocol* error: a message above the maximum message
size, or bytes that are not ZMTP, end the connection for good
(``session_base_t::engine_error`` terminates the session instead of
reconnecting). When it does reconnect, it says so at once (``EVENT_CONNECT_RETRIED``
follows ``EVENT_DISCONNECTED`` within the same I/O step), so a second of silence
means it has given up; dialing again when it had not costs one extra connection."""

QUIET_AFTER: Final = 3.5
"""Seconds of silence after which the opponent counts as quiet. A live peer
pings every ``ping_interval`` (2 s) and answers each of ours, so a host hears
from it about every second; 3.5 s of nothing means its program stopped or its
connection went. The host tells its spectators at once (the player's own
screen waits for the peer timeout, which ends nothing either)."""

SYNC_MIN_INTERVAL: Final = 0.5
"""At most two sync frames a second: they are cheap, but a loop of them is not."""

RESEND_INTERVAL: Final = 1.0
"""A transcript frame is resent at most once a second, however often the peer asks.

An honest peer asks for frames again only after it lost them with a
connection, which takes a reconnection, so once a second catches it up
without delay that matters; a peer asking for everything many times a second
(a ``sync`` with ``have`` 0) would otherwise cost a whole transcript each time."""


@dataclass(frozen=True)
class Timing:
    """Liveness timing; tests shorten it, people never need to."""

    ping_interval: float = 2.0
    """Seconds between pings (and, while waiting for the peer, syncs)."""
    peer_timeout: float = 10.0
    """No frame and no pong for this long: the opponent counts as disconnected."""
    connect_timeout: float = 30.0
    """The joiner gives up if the host never answers within this time."""
    end_grace: float = 3.0
    """After the match ends, how long to stay to deliver or re-send the last frames."""
    opening_timeout: float = 20.0
    """A new host whose opponent takes the opening (coin, seeds, deal) no step
    further for this long gives up on it and waits for another opponent: one
    hello that goes no further must not hold the host (a real opening takes
    well under a second)."""

    @property
    def quiet_after(self) -> float:
        """Silence after which the opponent counts as *quiet* (see :class:`OpponentQuiet`):
        :data:`QUIET_AFTER`, or more with slow pings, never more than the peer timeout."""
        return min(self.peer_timeout, max(QUIET_AFTER, 1.75 * self.ping_interval))


@dataclass(frozen=True)
class Snapshot:
    """What the link knows of the match: a snapshot of the session, taken by the adapter."""

    frames: int = 0
    """Transcript frames held (the length of the chain)."""
    opponent_known: bool = False
    """Whether the opponent's key is known (its hello or welcome was accepted)."""
    our_turn: bool = False
    """Whether this side speaks next, so that a resignation can be signed now."""
    over: bool = False
    dispute: bool = False
    opening: bool = False
    """Whether the first round's deal is still being made (no move yet)."""


# ------------------------------------------------------------------ actions


@dataclass(frozen=True)
class Begin:
    """Sign and send the match's first frame (a joiner's hello)."""


@dataclass(frozen=True)
class SendSync:
    """Send a ``sync`` with the frames held and the last one's hash."""


@dataclass(frozen=True)
class SendPing:
    """Send a ``ping`` numbered ``n``."""

    n: int


@dataclass(frozen=True)
class ResendLastOwn:
    """Send again the last transcript frame this side signed (it may have been lost)."""


@dataclass(frozen=True)
class Resend:
    """Send again the transcript frames at these indexes that this side signed."""

    indexes: tuple[int, ...]


@dataclass(frozen=True)
class StatusChanged:
    """Show the user a new status."""

    status: Status


@dataclass(frozen=True)
class Notice:
    """Tell the user something (a line of text)."""

    text: str


@dataclass(frozen=True)
class Resign:
    """Sign the resignation the player asked for earlier: it is now this side's turn."""


@dataclass(frozen=True)
class PeerCaughtUp:
    """The opponent holds the whole transcript of a match that is over: nothing more to send."""


@dataclass(frozen=True)
class Redial:
    """Connect again: ZeroMQ gave up on the joiner's connection (see :data:`REDIAL_GRACE`).

    Only a protocol error ends a connection for good: the host sent a message
    too large to read or bytes that are not ZMTP; the adapter counts it as
    dropped and tells the user (:data:`REDIAL_NOTICE`).

    ``silent``: the host answered nothing for the peer timeout instead. Its
    connection may be dead without either end having been told (a network
    that went away): no ZMTP heartbeat ends it (see lcnet.net.peer), so the joiner
    dials again itself, once per silence; the silence notice says why."""

    silent: bool = False


@dataclass(frozen=True)
class AbandonOpening:
    """A new host's opponent took the opening no step further within
    :attr:`Timing.opening_timeout`: turn it away and wait for another."""


@dataclass(frozen=True)
class OpponentGone:
    """The match is over and the opponent has been silent for the peer timeout
    (it answers no ping): whoever waits for its answer (another match?) stops
    waiting. Said once."""


@dataclass(frozen=True)
class OpponentQuiet:
    """The opponent has sent nothing for :attr:`Timing.quiet_after` (``quiet``),
    or is heard again after that (not ``quiet``): a host tells its spectators
    (docs/PROTOCOL.md §6.6) long before its peer timeout. Said once each way."""

    quiet: bool


@dataclass(frozen=True)
class ConnectTimedOut:
    """The host never answered within the connect timeout: the adapter stops
    (and calls :meth:`Link.fail`)."""


Action = (
    Begin
    | SendSync
    | SendPing
    | ResendLastOwn
    | Resend
    | StatusChanged
    | Notice
    | Resign
    | PeerCaughtUp
    | Redial
    | AbandonOpening
    | OpponentGone
    | OpponentQuiet
    | ConnectTimedOut
)

RESIGN_PENDING_NOTICE: Final = "you will resign as soon as it is your turn to speak"
LEFT_NOTICE: Final = (
    "the opponent quit; the match is saved on both sides and goes on here when they "
    "resume it (`lcnet resume`); or quit too, and resume it later"
)
REDIAL_NOTICE: Final = (
    "the connection closed on a message too large to read (or not ZeroMQ's); connecting again"
)


def silence_notice(seconds: float) -> str:
    return (
        f"no answer from the opponent for {int(seconds)} s; waiting for it "
        "(or quit: the match is saved and `lcnet resume` continues it)"
    )


_WAITING: Final = (Status.DISCONNECTED, Status.CONNECTING, Status.WAITING_FOR_PEER)
"""Statuses from which hearing the opponent means playing."""
_LIVE: Final = (Status.PLAYING, Status.CONNECTING)
"""Statuses in which a silent opponent counts as disconnected."""


class Link:
    """One side's link to its opponent: every decision that depends on time.

    Each method takes an event (with ``now``, a monotonic time in seconds,
    where time matters, and a :class:`Snapshot` where the match
    matters) and returns the actions to carry out, in order. After
    :meth:`fail` the link is closed: it answers nothing more.
    """

    def __init__(self, seat: Seat, timing: Timing, now: float, *, role: Seat | None = None) -> None:
        self.seat = seat
        self.role = seat if role is None else role
        """The socket's side (the host's binds): the seat, but in a rematch (swapped)."""
        self.timing = timing
        self.status = Status.WAITING_FOR_PEER if seat is Seat.HOST else Status.CONNECTING
        self.closed = False
        self.resign_pending = False
        self._last_heard = now
        self._next_tick = now + timing.ping_interval
        self._last_sync = -math.inf
        self._resent_at: list[float] = []
        """When each transcript frame was last examined for a resend (see RESEND_INTERVAL)."""
        self._ping_n = 0
        self._redial_at: float | None = None
        """A joiner's connection dropped and ZeroMQ has not said it redials: when to."""
        self._fresh = seat is Seat.HOST and self.role is Seat.HOST
        """A host of a new match (not resumed): it may give up on a stalled opening."""
        self._frames = 0
        self._progress_at = now
        """When the transcript last grew (see :attr:`Timing.opening_timeout`)."""
        self._gone_told = False
        """:class:`OpponentGone` was said (once per match)."""
        self._quiet_armed = True
        """The opponent counts as quiet :attr:`Timing.quiet_after` after it was last
        heard (disarmed once that came, armed again when it is heard)."""
        self._quiet_told = False

    # -- time

    def next_deadline(self) -> float:
        """When :meth:`tick` next has something to do (tick earlier, and it does nothing):
        never (infinity) once the link is closed, since a closed link's tick does nothing
        and so never moves this deadline on (a deadline in the past would be due forever)."""
        if self.closed:
            return math.inf
        quiet_at = self._last_heard + self.timing.quiet_after if self._quiet_armed else None
        due = [self._next_tick, self._redial_at, quiet_at]
        return min(when for when in due if when is not None)

    def tick(self, now: float, match: Snapshot) -> list[Action]:
        """Time has passed: redial, ping, ask for missing frames, notice silence, give up."""
        if self.closed:
            return []
        actions: list[Action] = []
        if self._redial_at is not None and now >= self._redial_at:
            self._redial_at = None
            actions.append(Redial())
        if self._quiet_armed and now - self._last_heard >= self.timing.quiet_after:
            self._quiet_armed = False
            if match.opponent_known and self.status in _LIVE and not match.over:
                self._quiet_told = True
                actions.append(OpponentQuiet(True))
        if now < self._next_tick:
            return actions
        self._next_tick = now + self.timing.ping_interval
        silent = now - self._last_heard
        joiner = self.seat is Seat.JOINER
        self._progress(now, match)
        if (
            self._fresh
            and match.opening
            and match.opponent_known
            and not (match.our_turn or match.over or match.dispute)
            and now - self._progress_at > self.timing.opening_timeout
        ):
            # The next opponent starts afresh.
            self._frames, self._progress_at, self._last_heard = 0, now, now
            self._resent_at, self._last_sync, self.resign_pending = [], -math.inf, False
            return [*actions, AbandonOpening(), *self._set(Status.WAITING_FOR_PEER)]
        if not match.opponent_known:
            # No opponent yet. A host waits as long as it takes; a joiner
            # whose hello gets no answer gives up after the connect timeout.
            if joiner and silent > self.timing.connect_timeout:
                return [*actions, ConnectTimedOut()]
            if joiner:
                actions.append(ResendLastOwn())
            return actions
        self._ping_n += 1
        actions.append(SendPing(self._ping_n))
        if not match.over and not match.our_turn:
            actions += self._sync(now, match, force=False)
        if silent > self.timing.peer_timeout and self.status in _LIVE:
            actions += [*self._set(Status.DISCONNECTED), Notice(silence_notice(silent))]
            if self.role is Seat.JOINER:
                actions.append(Redial(silent=True))
        elif silent > self.timing.peer_timeout and match.over and not self._gone_told:
            self._gone_told = True
            actions.append(OpponentGone())
        return actions

    # -- the match

    def start(self, now: float, match: Snapshot) -> list[Action]:
        """The adapter runs: a new joiner says hello; a resumed side catches up."""
        if self.seat is Seat.JOINER and match.frames == 0:
            return [Begin()]
        self._fresh = self._fresh and match.frames == 0
        if match.frames:
            return [*self._sync(now, match, force=True), ResendLastOwn()]
        return []

    def heard(self, now: float, match: Snapshot) -> list[Action]:
        """A frame from the opponent was accepted (or a control frame of the match arrived)."""
        if self.closed:
            return []
        self._last_heard, self._quiet_armed = now, True
        self._progress(now, match)
        actions: list[Action] = []
        if self._quiet_told:
            self._quiet_told = False
            actions.append(OpponentQuiet(False))
        if self.status in _WAITING and match.opponent_known:
            actions += self._set(Status.PLAYING)
        return actions

    def stepped(self, now: float, match: Snapshot) -> list[Action]:
        """The session took a step (its frames sent, its events shown)."""
        if self.closed:
            return []
        self._progress(now, match)
        if match.dispute:
            actions = self._set(Status.DISPUTE)
        elif match.over:
            actions = self._set(Status.OVER)
        elif match.opponent_known and self.status in (Status.WAITING_FOR_PEER, Status.CONNECTING):
            actions = self._set(Status.PLAYING)
        else:
            actions = []
        if self.resign_pending and not match.over and match.our_turn:
            self.resign_pending = False
            actions.append(Resign())
        if match.over:
            actions += self._sync(now, match, force=True)
        return actions

    def left(self, match: Snapshot) -> list[Action]:
        """The opponent said it quits (a ``bye``): disconnected now, not after the timeout."""
        if self.closed or match.over or match.dispute:
            return []
        return [*self._set(Status.DISCONNECTED), Notice(LEFT_NOTICE)]

    def resign(self, match: Snapshot) -> list[Action]:
        """The player resigns: now if this side speaks, else as soon as it does."""
        if self.closed or match.over:
            return []
        if match.our_turn:
            return [Resign()]
        self.resign_pending = True
        return [Notice(RESIGN_PENDING_NOTICE)]

    def gap(self, now: float, match: Snapshot) -> list[Action]:
        """A frame came from beyond the transcript's end: ask for what is missing."""
        return [] if self.closed else self._sync(now, match, force=False)

    def sync_received(
        self, now: float, match: Snapshot, *, have: int, same_head: bool
    ) -> list[Action]:
        """The opponent holds ``have`` frames (``same_head``: its last one is ours).

        Each frame it lacks is resent at most once per :data:`RESEND_INTERVAL`,
        however often it is asked for.
        """
        if self.closed:
            return []
        resent = self._resent_at
        resent.extend([-math.inf] * (match.frames - len(resent)))
        indexes = []
        for index in range(min(have, match.frames), match.frames):
            if now - resent[index] < RESEND_INTERVAL:
                continue  # resent a moment ago: on its way, or asked for by a flood
            resent[index] = now
            indexes.append(index)
        actions: list[Action] = [Resend(tuple(indexes))] if indexes else []
        if have == match.frames and (match.frames == 0 or same_head):
            if match.over:
                actions.append(PeerCaughtUp())
        else:
            actions += self._sync(now, match, force=False)
        return actions

    # -- the connection (a joiner's: a host's socket serves many peers)

    def connected(self, now: float, match: Snapshot) -> list[Action]:
        """The joiner's connection was made (or made again): catch up on what was lost."""
        if self.closed or self.role is not Seat.JOINER:
            return []
        self._redial_at = None
        return [*self._sync(now, match, force=True), ResendLastOwn()]

    def reconnecting(self) -> None:
        """ZeroMQ says it (re)connects the joiner's socket by itself: no need to redial."""
        self._redial_at = None

    def disconnected(self, now: float) -> list[Action]:
        """The joiner's connection dropped: unless ZeroMQ redials soon, the link does."""
        if self.closed or self.role is not Seat.JOINER:
            return []
        self._redial_at = now + REDIAL_GRACE
        return self._set(Status.DISCONNECTED) if self.status is Status.PLAYING else []

    def fail(self) -> list[Action]:
        """The side stops (a refusal, a fault): the match is over for it; nothing more to do."""
        if self.closed:
            return []
        actions = self._set(Status.OVER)
        self.closed = True
        self._redial_at = None
        return actions

    # -- helpers

    def _progress(self, now: float, match: Snapshot) -> None:
        if match.frames != self._frames:
            self._frames, self._progress_at = match.frames, now

    def _sync(self, now: float, match: Snapshot, *, force: bool) -> list[Action]:
        if not match.frames:
            return []
        if not force and now - self._last_sync < SYNC_MIN_INTERVAL:
            return []
        self._last_sync = now
        return [SendSync()]

    def _set(self, status: Status) -> list[Action]:
        if status is self.status:
            return []
        self.status = status
        return [StatusChanged(status)]
