"""Play over the network: the ZeroMQ adapter that carries a session's frames.

The host binds a ROUTER socket and the joiner connects a DEALER (PAIR is
unsuitable over TCP). Each ZeroMQ message carries one frame. The adapter:

* writes every frame to the replay file (one write, fsync) *before* sending it,
  and every accepted frame from the peer as it arrives;
* sends ``sync`` on every (re)connection, and the peer that holds more frames
  resends the missing ones from its transcript, because ZeroMQ silently drops
  messages in flight when a connection breaks (duplicates are ignored);
* checks liveness with the protocol's own ``ping``/``pong`` and ``sync``
  (:mod:`lcnet.link.liveness`), never with ZMTP heartbeats (see
  :func:`lcnet.net.sockets.common_options`);
* turns away a third peer with a ``busy`` frame that says why, without
  disturbing the match;
* counts, and otherwise ignores, anything that does not decode or verify
  (a joiner redials when a message too large to read cost its connection).

:class:`NetPeer` implements :class:`~lcnet.protocol.client.MatchClient`, so the
terminal UI, the line mode and the bot driver run on it unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

import nacl.signing
import zmq
import zmq.asyncio
from zmq.utils.monitor import recv_monitor_message

from lcnet.deck import hashing
from lcnet.errors import (
    UNREACHABLE_TEXT,
    IncompatiblePeer,
    LocalFailure,
    LocalProtocolError,
    Refused,
    SessionFailed,
    Unreachable,
    UserError,
    rematch_unanswered,
)
from lcnet.game.engine import Turn
from lcnet.game.seat import Seat
from lcnet.link import admission, chat, liveness, rematch
from lcnet.link.audience import DEFAULT_SPECTATORS, NO_GAME, SPECTATOR_GRACE, Audience
from lcnet.link.liveness import Link, Snapshot, Timing
from lcnet.net.sockets import CLOSE_LINGER_MS
from lcnet.protocol import wire
from lcnet.protocol.client import MatchState, Update
from lcnet.protocol.events import (
    ControlReceived,
    DisputeRaised,
    FrameDropped,
    FrameGap,
    MatchEnded,
    Offer,
    PeerIdentified,
    Said,
    Step,
)
from lcnet.protocol.session import Session
from lcnet.protocol.snapshot import state_of
from lcnet.protocol.status import Status
from lcnet.store.identity import KeyChanged
from lcnet.store.writer import MatchFile, ReplayWriter

DEFAULT_TIMING: Final = Timing()

SPECTATOR_CHECK: Final = 1.0
"""Seconds between two looks at a host's spectators for those that stopped
asking (:meth:`lcnet.link.audience.Audience.expire`)."""


Restart = Callable[[], tuple[Session, Callable[[Session], ReplayWriter]]]
"""A host's new match (a fresh session and the way to open its replay file),
to wait in for another opponent when an opening stalls."""

PeerCheck = Callable[[Seat, str, bytes], str | None]
"""Checks a peer's name and key when it first shows them: raises to refuse the
peer, or returns a caution to show with its name (a look-alike of a known
name), or ``None``."""


@dataclasses.dataclass(frozen=True)
class Carried:
    """What a rematch on the same connection keeps of the match before it."""

    before: Session
    opponent: bytes | None
    """The opponent's connection (a host's; a joiner has one connection)."""
    audience: Audience
    """The spectators, who follow the players into the rematch."""
    addresses: tuple[str, ...]


class NetPeer:
    """One side of a networked match: a session, its replay file and a socket.

    Resending is bounded (:mod:`lcnet.link.liveness`): each transcript frame is resent
    at most once per :data:`lcnet.link.liveness.RESEND_INTERVAL`, however often a ``sync`` asks.
    The joiner dials again itself when ZeroMQ cut its connection for a
    message above :data:`lcnet.net.sockets.MAX_MESSAGE_BYTES`
    (:data:`lcnet.link.liveness.REDIAL_GRACE`), counting
    it in :attr:`dropped`. A host turns away every peer but its opponent with
    a ``busy`` frame that says why (:func:`lcnet.link.admission.admit`), and lets
    spectators watch (:mod:`lcnet.link.audience`).
    """

    def __init__(
        self,
        session: Session,
        sock: zmq.asyncio.Socket,
        *,
        writer: ReplayWriter | Callable[[Session], ReplayWriter] | None,
        timing: Timing = DEFAULT_TIMING,
        peer_check: PeerCheck | None = None,
        fresh_game: Callable[[bytes], bool] | None = None,
        signing_key: nacl.signing.SigningKey | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        restart: Restart | None = None,
        spectators: int = DEFAULT_SPECTATORS,
        on_audience: Callable[[int], None] = lambda count: None,
        role: Seat | None = None,
        after: Carried | None = None,
    ) -> None:
        self._seat: Seat = session.seat
        self._role: Seat = session.seat if role is None else role
        """Which socket this side has: the host's (bound, many peers) or the joiner's.
        The seat in the match is the same but in a rematch, which swaps the seats."""
        self._session = session
        self._sock = sock
        self._file = MatchFile(writer, wall_clock)
        self._timing = timing
        self._restart = restart
        """For a host: a new match to wait in when an opening stalls (see
        :attr:`Timing.opening_timeout`); without it, the host stops instead."""
        key = self._signing_key = signing_key or session.signing_key
        self._door = _Door(sock, self._role, key, peer_check, fresh_game, self._post)
        if after is not None:
            self._door.peer = after.opponent  # the rematch's opponent: the same connection
        self._clock = clock
        self._updates: asyncio.Queue[Update] = asyncio.Queue()
        self._link = Link(self._seat, timing, clock(), role=self._role)
        """Every decision that depends on time (see :mod:`lcnet.link.liveness`)."""
        self._line: _JoinerLine | None = None
        """For a joiner: its connection's events, and the redial (:class:`liveness.Redial`)."""
        self._failure: UserError | None = None
        self._recorded: MatchState | None = None
        """The match as the replay file holds it, after the last step recorded
        (shown once this program failed in a step; made once a step)."""
        self._peer_done = asyncio.Event()
        self._ended = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.dropped = 0
        """Messages dropped because they did not decode, verify or belong here
        (for a joiner, also those too large to read, which cost a connection)."""
        self._audience = (
            # The same spectators follow a rematch, in the places they hold.
            after.audience.next_match(after.before, self._audience_changed)
            if after is not None
            else Audience(
                spectators if self._role is Seat.HOST else 0,
                _sender(sock),
                self._audience_changed,
                key,
            )
        )
        self._on_audience = on_audience
        """For a host: who watches, and what each is sent (:mod:`lcnet.link.audience`)."""
        self._talk = _Talk(self._send_control, self._post, self._clock)
        self._previous = after.before if after is not None else None
        """The match before this one, when this one is its rematch."""
        self._watchers: tuple[tuple[str, str], ...] = ()
        self._unlisted = 0
        """Who watches, as the program that bound the socket last said (``watching``)."""
        self.addresses: tuple[str, ...] = after.addresses if after is not None else ()
        """For a host: where the opponent can reach it (``ADDRESS:PORT``, as
        ``lcnet join`` reads it), for the waiting screen."""
        self._recorded = self.state  # the session as given: as its file holds it

    # -- MatchClient

    @property
    def seat(self) -> Seat:
        return self._seat

    @property
    def session(self) -> Session:
        return self._session

    @property
    def status(self) -> Status:
        return self._link.status

    @property
    def replay_path(self) -> Path | None:
        return self._file.path

    @property
    def turned_away(self) -> int:
        """Third peers sent away with a busy frame."""
        return self._door.turned_away

    @property
    def failure(self) -> UserError | None:
        """Why the peer stopped early (a refused peer, an unreachable host)."""
        return self._failure

    @property
    def state(self) -> MatchState:
        if isinstance(self._failure, LocalFailure) and self._recorded is not None:
            # Failed in a step: the match stands where its file holds it.
            return dataclasses.replace(self._recorded, failure=self._failure)
        return state_of(
            self._session,
            failure=self._failure,
            addresses=self.addresses,
            watchers=self._audience.watchers if self._role is Seat.HOST else self._watchers,
            unlisted_watchers=0 if self._role is Seat.HOST else self._unlisted,
            rematch=self._talk.offer if self._rematch_possible() else None,
        )

    async def next_update(self) -> Update:
        return await self._updates.get()

    def _post(self, update: Update) -> None:
        """Queue ``update`` for the front end, with the match as it stands now."""
        self._updates.put_nowait(dataclasses.replace(update, state=self.state))

    async def play(self, turn: Turn) -> None:
        if self._failure is not None:
            raise self._failure
        try:
            step = self._session.play(turn)  # not this side's move: LocalProtocolError
        except SessionFailed as exc:
            self._stop_on(LocalFailure.of(exc, self.replay_path))
            raise
        self._commit(step)
        if self._failure is not None:  # the move could not be recorded: it was not sent
            raise self._failure

    async def resign(self) -> None:
        if self._failure is not None:
            raise self._failure
        self._carry_out(self._link.resign(_snapshot(self._session)))
        if self._failure is not None:
            raise self._failure

    async def rematch(self, ok: bool, *, wait: float | None = None) -> bool:
        """Say whether this player wants another match (:class:`_Talk`); then
        :meth:`successor` runs it."""
        return self._rematch_possible() and await self._talk.answer(ok, wait)

    async def say(self, text: str) -> None:
        """Send the opponent a line (:meth:`_Talk.say`; its spectators see it too)."""
        if self._failure is not None:
            raise self._failure
        self._talk.say(text, self._session)

    def _rematch_possible(self) -> bool:
        return self._failure is None and rematch.possible(self._session)

    def successor(self, session: Session, writer: Callable[[Session], ReplayWriter]) -> NetPeer:
        """The agreed rematch, ``session``, on this connection; call after
        ``aclose(keep_socket=True)``, so that this peer reads nothing more."""
        return NetPeer(
            session,
            self._sock,
            writer=writer,
            timing=self._timing,
            signing_key=self._signing_key,
            clock=self._clock,
            wall_clock=self._file.wall,
            spectators=self._audience.limit,
            on_audience=self._on_audience,
            role=self._role,
            after=Carried(self._session, self._door.peer, self._audience, self.addresses),
        )

    def _send_control(self, message: wire.Message) -> None:
        """Send a control frame of this match, if it still can (a host's
        spectators are told a ``bye``, ``say`` or ``rematch`` too)."""
        with contextlib.suppress(zmq.ZMQError, LocalProtocolError, SessionFailed):
            raw = self._session.control(message).raw
            self._send(raw)
            self._audience.pass_on(message, raw, self._clock())

    # -- running

    def start(self) -> None:
        """Start the receive task and the one that feeds the link the clock and
        the connection's events."""
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._receive_loop()),
            loop.create_task(self._pump_loop()),
        ]
        self._carry_out(self._link.start(self._clock(), _snapshot(self._session)))
        if self._session.next_seq:  # resumed: the spectators are told it waits for its opponent
            self._audience.status(self._link.status, self._session.control, self._clock())

    async def wait_closed(self) -> None:
        """Wait until the match is over and the last frames had their chance to arrive."""
        await self._ended.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._peer_done.wait(), self._timing.end_grace)
        # Spectators still catching up get the end too, for a moment (the match is over).
        deadline = self._clock() + SPECTATOR_GRACE
        while self._audience.behind(self._session.next_seq) and self._clock() < deadline:
            await asyncio.sleep(0.05)

    async def aclose(self, *, keep_socket: bool = False) -> None:
        """Stop; ``keep_socket``: for the rematch's :meth:`successor`."""
        self._say_bye()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if not keep_socket:
            self._sock.close(linger=CLOSE_LINGER_MS)
        self._file.close()

    def _say_bye(self) -> None:
        """Tell the opponent this side quits an unfinished match (advisory, see
        :class:`wire.Bye`), so that its screen says so at once."""
        connected = self._role is Seat.JOINER or self._door.peer is not None
        if self._failure is None and connected and _owes_bye(self._session):
            self._send_control(wire.Bye())
        elif self._rematch_possible():
            self._talk.leave()  # no rematch: the opponent's screen says so at once

    # -- receiving

    async def _receive_loop(self) -> None:
        while (parts := await _next_message(self._sock)) is not None:
            if len(parts) != (2 if self._role is Seat.HOST else 1):
                self.dropped += 1
                continue
            ident, raw = (b"", *parts) if len(parts) == 1 else parts
            try:
                self._handle(ident, raw)
            except UserError as exc:  # a refused host (the joiner's only peer): stop
                self._stop_on(exc)
            except Exception as exc:
                # Whatever the peer sends is refused without an exception; one that
                # escapes is a fault of this program. Fail closed: stop, sign
                # nothing more, keep the file as the last good state.
                self._stop_on(LocalFailure.of(exc, self.replay_path))
                return

    def _handle(self, ident: bytes, raw: bytes) -> None:
        if self._failure is not None:
            return  # stopped: nothing more is answered, resent or recorded
        session = self._session
        try:
            frame = session.decode(raw)
        except wire.IncompatibleVersion as exc:
            self.dropped += 1
            # Its one peer, the host, speaks another version: stop. A bound
            # socket (the role, not the seat: a rematch swaps only the seats)
            # is reached by strangers too, and turns them away.
            if self._role is Seat.JOINER and session.next_seq <= 1:
                self._stop_on(IncompatiblePeer(str(exc)))
            elif self._role is Seat.HOST and ident != self._door.peer:
                self._door.turn_away(session, ident, str(exc))
            return
        except wire.MalformedFrame:
            self.dropped += 1
            return
        if self._role is Seat.HOST and ident != self._door.peer:
            if isinstance(frame.message, wire.Watch):
                refusal = self._audience.request(ident, frame, session, self._clock())
                if refusal is not None:
                    self._door.turn_away(session, ident, refusal)
                return
            admitted = self._door.admit(session, ident, frame)
            if not admitted:
                self.dropped += admitted is None
                return
            if session.opponent_known and self._audience.watchers:
                # The opponent on a new connection: what was in flight on the old one is lost.
                self._send_control(self._audience.watching())
        if frame.message.CONTROL:
            self._on_control(frame)
            return
        if self._previous is not None and (wrong := rematch.check_opening(self._previous, frame)):
            self._stop_on(Refused(wrong))
            return
        if self._seat is Seat.JOINER and isinstance(frame.message, wire.Welcome):
            try:
                self._door.check_peer(session, Seat.HOST, frame.message.name, frame.message.key)
            except KeyChanged as exc:
                # Say no to the host too, so that it drops the match it opened.
                self._door.turn_away(session, b"", exc.refusal, game=frame.game)
                raise
        step = session.receive_frame(frame)
        if _heard_from_opponent(step, session):
            self._heard()
        if step.accepted is None and step.evidence is None and not step.outgoing:
            if any(isinstance(e, FrameGap) for e in step.events):
                self._carry_out(self._link.gap(self._clock(), _snapshot(self._session)))
            else:
                self.dropped += sum(1 for e in step.events if isinstance(e, FrameDropped))
        self._commit(step)

    def _on_control(self, frame: wire.Frame) -> None:
        message = frame.message
        if isinstance(message, wire.Busy):
            refusal = admission.refusal(self._session, frame)
            if refusal is not None:
                self._stop_on(Refused(refusal))
            return
        step = self._session.receive_frame(frame)
        if not any(isinstance(e, ControlReceived) for e in step.events):
            self.dropped += 1
            return
        if isinstance(message, wire.Say) and not self._talk.heard_say(self._seat.other, message):
            self.dropped += 1  # more than a person types: not shown, not passed on
            return
        self._audience.pass_on(message, frame.raw, self._clock())
        if isinstance(message, wire.Bye):
            self._carry_out(self._link.left(_snapshot(self._session)))
            return
        if isinstance(message, wire.Watching) and self._role is Seat.JOINER:
            self._watchers, self._unlisted = _watchers_of(message)
            self._post(Update())
            return
        if isinstance(message, wire.Rematch):
            if self._rematch_possible():  # an offer before the end means nothing
                self._talk.heard(message.ok)
            return
        self._heard()
        if isinstance(message, wire.Ping):
            self._send(self._session.control(wire.Pong(n=message.n)).raw)
        elif isinstance(message, wire.Sync):
            self._on_sync(message)

    def _on_sync(self, message: wire.Sync) -> None:
        same_head = message.head == self._session.head
        actions = self._link.sync_received(
            self._clock(), _snapshot(self._session), have=message.have, same_head=same_head
        )
        self._carry_out(actions)

    def _heard(self) -> None:
        self._carry_out(self._link.heard(self._clock(), _snapshot(self._session)))

    # -- sending

    def _commit(self, step: Step) -> None:
        """Record a step in the replay file, then send its frames (in that order)."""
        try:
            self._file.record(self._session, step)
        except (OSError, UserError) as exc:
            # Unrecorded frames must never leave (nor be sent again by a sync):
            # the session forgets them and the peer stops, the file as it was.
            self._session.abandon(step, f"the replay file could not be written: {exc}")
            self._stop_on(LocalFailure.of(exc, self.replay_path))
            return
        self._recorded = recorded = self.state  # what each event's update shows too
        for frame in step.outgoing:
            self._send(frame.raw)
        self._audience.forward(step, self._session.next_seq, self._clock())
        for event in step.events:
            self._updates.put_nowait(Update(event=event, state=recorded))
            if isinstance(event, MatchEnded | DisputeRaised):
                self._ended.set()
            elif isinstance(event, PeerIdentified) and self._audience.watchers:
                self._send_control(self._audience.watching())  # those who came before the opponent
        self._carry_out(self._link.stepped(self._clock(), _snapshot(self._session)))

    def _send(self, raw: bytes) -> None:
        if self._role is Seat.JOINER:
            _send_now(self._sock, [raw])
        elif self._door.peer is not None:
            _send_now(self._sock, [self._door.peer, raw])

    def _send_frames(self, *frames: wire.Frame | None) -> None:
        for frame in frames:
            if frame is not None:
                self._send(frame.raw)

    # -- the link

    def _carry_out(self, actions: list[liveness.Action]) -> None:
        """Carry out what the link decided, in order."""
        for action in actions:
            if self._failure is not None and not isinstance(action, liveness.StatusChanged):
                return  # stopped: nothing more is sent or signed
            match action:
                case liveness.SendSync():
                    self._send_frames(self._session.sync())
                case liveness.SendPing(n=n):
                    self._send(self._session.control(wire.Ping(n=n)).raw)
                case liveness.ResendLastOwn():
                    self._send_frames(self._session.last_own_frame())
                case liveness.Resend(indexes=indexes):
                    self._send_frames(*map(self._session.own_frame, indexes))
                case liveness.StatusChanged(status=status):
                    self._audience.status(status, self._session.control, self._clock())
                    self._post(Update(status=status))
                case liveness.Notice(text=text):
                    self._notice(text)
                case liveness.Resign():
                    self._commit(self._session.resign())
                case liveness.Begin():
                    self._commit(self._session.start())
                case liveness.PeerCaughtUp():
                    self._peer_done.set()
                case liveness.Redial(silent=silent):
                    self._redial(silent=silent)
                case liveness.ConnectTimedOut() if self._role is Seat.HOST:
                    # A rematch's joiner binds the socket: no address to check.
                    self._stop_on(Refused(rematch_unanswered(self._timing.connect_timeout)))
                case liveness.ConnectTimedOut():
                    self._stop_on(Unreachable(UNREACHABLE_TEXT))
                case liveness.OpponentGone():
                    self._talk.gone()
                case liveness.OpponentQuiet(quiet=quiet):
                    self._audience.opponent(not quiet, self._session.control, self._clock())
                case liveness.AbandonOpening():
                    self._abandon_opening()

    def _abandon_opening(self) -> None:
        """The opponent took the opening no further: turn it away, drop the files
        of a match in which nothing was played, and wait for another opponent."""
        seconds = self._timing.opening_timeout
        name = self.state.names.get(self._seat.other, "the opponent")
        if self._door.peer is not None:
            self._door.turn_away(self._session, self._door.peer, admission.gave_up(seconds))
        self._file.discard()
        if self._restart is None:
            self._stop_on(Refused(f"{name} took the opening no further for {seconds:g} s"))
            return
        self._session, open_writer = self._restart()
        self._file = MatchFile(open_writer, self._file.wall)
        self._door.peer = None
        self._audience.reset()
        self._notice(admission.gave_up_notice(name, seconds))

    async def _pump_loop(self) -> None:
        """Feed the link the clock and (a joiner's) connection events, and act on them."""
        line = self._line = _JoinerLine(self._sock) if self._role is Seat.JOINER else None
        try:
            # A closed link (the side failed) has nothing more to time: the loop ends.
            while not self._link.closed:
                wait = max(0.0, self._link.next_deadline() - self._clock())
                if line is None:
                    await asyncio.sleep(min(wait, SPECTATOR_CHECK))
                    self._audience.expire(self._clock())
                elif (event := await line.next_event(wait)) is not None:
                    if event is _LineEvent.DOWN:
                        self._carry_out(self._link.disconnected(self._clock()))
                    elif event is _LineEvent.UP:
                        # (Re)connected: whatever was in flight may be lost; catch up.
                        self._carry_out(
                            self._link.connected(self._clock(), _snapshot(self._session))
                        )
                    elif event is _LineEvent.RETRYING:
                        self._link.reconnecting()
                    continue
                self._carry_out(self._link.tick(self._clock(), _snapshot(self._session)))
        except (zmq.ZMQError, asyncio.CancelledError):
            pass
        finally:
            if line is not None:
                line.close()

    def _redial(self, *, silent: bool = False) -> None:
        """Dial the host again: ZeroMQ gave up (REDIAL_GRACE), or it fell ``silent``."""
        if self._line is not None and self._line.redial() and not silent:
            # The message that cost the connection is lost like any other that does not decode.
            self.dropped += 1
            self._notice(liveness.REDIAL_NOTICE)

    # -- status

    def _audience_changed(self) -> None:
        self._on_audience(self._audience.placed)
        self._send_control(self._audience.watching())  # the opponent's screen shows them too
        self._post(Update())

    def _notice(self, text: str) -> None:
        self._post(Update(notice=text))

    def _stop_on(self, exc: UserError) -> None:
        """Stop this side for ``exc`` (the first one counts): nothing more is sent or signed."""
        if self._failure is None:
            self._failure = exc  # the command reports it when the player stops
            self._post(Update(failure=exc))  # ... and the UI shows it now
            self._carry_out(self._link.fail())
            self._ended.set()
            self._peer_done.set()


def _watchers_of(message: wire.Watching) -> tuple[tuple[tuple[str, str], ...], int]:
    """(name, fingerprint) of each spectator a ``watching`` frame names, and
    how many more watch (it names at most :data:`wire.MAX_LISTED_WATCHERS`)."""
    named = tuple((name, hashing.fingerprint(key)) for name, key in message.watchers)
    return named, max(0, message.count - len(named))


class _Door:
    """Whom a host talks to: the connection of its opponent, the one that signs
    as its opponent in this match; every other peer is sent away with a
    ``busy`` frame that says why (the rule is :func:`lcnet.link.admission.admit`;
    this carries it out). A joiner uses it only to refuse its host's welcome."""

    def __init__(
        self,
        sock: zmq.asyncio.Socket,
        role: Seat,
        signing_key: nacl.signing.SigningKey,
        peer_check: PeerCheck | None,
        fresh_game: Callable[[bytes], bool] | None,
        post: Callable[[Update], None],
    ) -> None:
        self._sock, self._role, self._key = sock, role, signing_key
        self._peer_check, self._post = peer_check, post
        self._fresh_game = fresh_game
        """For a host: whether a game id is new to it (and from now on, not new)."""
        self.peer: bytes | None = None
        """The opponent's connection (a host's socket serves many)."""
        self.turned_away = 0

    def admit(self, session: Session, ident: bytes, frame: wire.Frame) -> bool | None:
        """Whether ``frame``, from a connection not the opponent's, is the
        opponent's (then it is from now on); ``None``: ignored."""
        decision = admission.admit(
            session,
            frame,
            # The host has an opponent (the match may be over, or resumed).
            in_match=self.peer is not None or session.opponent_known,
            own_key=bytes(self._key.verify_key),
            fresh_game=self._fresh_game,
            check_peer=lambda seat, name, key: self.check_peer(session, seat, name, key),
        )
        match decision:
            case admission.Admit():
                self.peer = ident
                return True
            case admission.Ignore():
                return None
            case admission.TurnAway(reason=KeyChanged() as changed):
                self._post(Update(warning=changed))
                self.turn_away(session, ident, changed.refusal)
            case admission.TurnAway() as away:
                if isinstance(frame.message, wire.Hello) and away.text != admission.BUSY_REASON:
                    self._post(Update(notice=f"turned away a peer: {away.text}"))
                self.turn_away(session, ident, away.text)
        return False

    def turn_away(
        self, session: Session, ident: bytes, reason: str, *, game: bytes | None = None
    ) -> None:
        """Send a peer that is not the opponent away, with the reason (a joiner
        refusing its host's welcome sends the same frame to the host)."""
        busy = wire.make_frame(
            wire.Busy(reason=_clip_utf8(reason, wire.MAX_REASON_BYTES)),
            self._key,
            game=game or session.game_id or NO_GAME,
        )
        if self._role is Seat.JOINER:
            _send_now(self._sock, [busy.raw])
        else:
            self.turned_away += 1
            _send_now(self._sock, [ident, busy.raw])

    def check_peer(self, session: Session, seat: Seat, name: str, key: bytes) -> None:
        """Whether the opponent's name and key are acceptable (raises if not)."""
        if self._peer_check is not None and seat not in session.keys:
            caution = self._peer_check(seat, name, key)
            if caution is not None:
                self._post(Update(caution=caution))


class _Talk:
    """What a player says to the other beside the match: its lines (``say``,
    :mod:`lcnet.link.chat`), and its part in agreeing on another match
    (:mod:`lcnet.link.rematch`): each side says yes or no once, in a ``rematch``
    control frame."""

    def __init__(
        self,
        send: Callable[[wire.Message], None],
        post: Callable[[Update], None],
        clock: Callable[[], float],
    ) -> None:
        self.offer = Offer()
        self._send, self._post, self._clock = send, post, clock
        self._heard = asyncio.Event()
        """The opponent answered, or went away (nobody will answer)."""
        self._said, self._heard_lines = chat.Rate(), chat.Rate()
        """How fast this player may say lines, and how fast the opponent's are shown."""

    def _changed(self) -> None:
        self._post(Update())

    def say(self, text: str, session: Session) -> None:
        """Send the opponent a line. Raises ``ValueError`` for a line that cannot
        go (empty, too long, not printable, or too many too fast) and
        :class:`LocalProtocolError` before the opponent is known."""
        text = chat.line_to_say(text)
        if session.game_id is None or not session.opponent_known:
            raise LocalProtocolError("there is no opponent to say it to yet")
        if not self._said.allow(self._clock()):
            raise ValueError(
                f"not so fast: {chat.BURST} lines at once, then one every {chat.REFILL:g} s"
            )
        self._send(wire.Say(text=text))
        self._post(Update(event=Said(session.seat, text)))

    def heard_say(self, seat: Seat, message: wire.Say) -> bool:
        """The opponent's line: shown, unless it says more than a person types."""
        if not self._heard_lines.allow(self._clock()):
            return False
        self._post(Update(event=Said(seat, message.text)))
        return True

    async def answer(self, ok: bool, wait: float | None) -> bool:
        """Say ``ok`` (the first answer stands); with ``ok``, wait at most ``wait``
        seconds for the opponent's, and no longer than it stays (see
        :meth:`gone`): whether both want another match."""
        if self.offer.ours is None:
            self.offer = dataclasses.replace(self.offer, ours=ok)
            self._send(wire.Rematch(ok=ok))
            self._changed()
        if ok and self.offer.theirs is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._heard.wait(), wait)
        return self.offer.agreed

    def gone(self) -> None:
        """The opponent is gone (silent for the peer timeout after the end):
        nobody is left to answer, so a wait for its answer ends now."""
        self._heard.set()

    def heard(self, ok: bool) -> None:
        """The opponent's answer (its first counts)."""
        if self.offer.theirs is None:
            self.offer = dataclasses.replace(self.offer, theirs=ok)
            self._heard.set()
            self._changed()

    def leave(self) -> None:
        """This player leaves without having said yes: say no, if not said yet."""
        if self.offer.ours is None:
            self.offer = dataclasses.replace(self.offer, ours=False)
            self._send(wire.Rematch(ok=False))


async def _next_message(sock: zmq.asyncio.Socket) -> list[bytes] | None:
    """The socket's next message (``None``: the socket is closed)."""
    while True:
        # A waiting message is received without a pause: yield first, so
        # that a task awaiting updates runs on the last frame's effect (a
        # turn, say) before this frame's work (a round's check) starts.
        await asyncio.sleep(0)
        try:
            # Poll, then take the message without waiting: a peer closed
            # for a rematch (cancelled at the poll) leaves every message
            # unread for the next match's peer.
            await sock.poll()  # readable
            return await sock.recv_multipart(flags=zmq.NOBLOCK)
        except zmq.Again:
            continue
        except zmq.ZMQError:
            return None


_RECONNECTING: Final = zmq.EVENT_CONNECT_DELAYED | zmq.EVENT_CONNECT_RETRIED | zmq.EVENT_CONNECTED
"""Monitor events by which ZeroMQ shows it (re)connects a connecting socket by itself."""


def _connected_endpoint(sock: zmq.asyncio.Socket) -> str | None:
    """The address a connecting socket was given (as given: a name stays a name)."""
    with contextlib.suppress(zmq.ZMQError):
        last = sock.getsockopt(zmq.LAST_ENDPOINT)
        text = last.decode(errors="replace") if isinstance(last, bytes) else str(last)
        return text or None
    return None


async def _event_within(monitor: zmq.asyncio.Socket, seconds: float) -> bool:
    """Whether a monitor event is waiting, or arrives within ``seconds``.

    Always lets the event loop run once: a poll without a timeout (``seconds``
    under a millisecond) gives an already-done future, whose ``await`` does not
    yield, so a caller looping on it would starve every other task (the UI, the
    timers that would end the wait) for as long as it loops.
    """
    await asyncio.sleep(0)
    if await monitor.poll(timeout=int(seconds * 1000)):
        return True
    # The poll's own timer may have fired late (a busy event loop): look once more.
    events = monitor.getsockopt(zmq.EVENTS)
    return isinstance(events, int) and bool(events & zmq.POLLIN)


def _sender(sock: zmq.asyncio.Socket) -> Callable[[bytes, list[bytes]], bool]:
    """Non-blocking sends on ``sock`` without asyncio's futures (half the cost,
    for the many small sends to spectators): ``False`` if a send cannot go now."""
    plain: list[zmq.Socket[bytes]] = []  # made at the first send: a joiner never sends

    def send(ident: bytes, parts: list[bytes]) -> bool:
        if not plain:
            plain.append(zmq.Socket.shadow(sock.underlying))
        try:
            plain[0].send_multipart([ident, *parts], flags=zmq.NOBLOCK)
        except zmq.ZMQError:
            return False
        return True

    return send


def _heard_from_opponent(step: Step, session: Session) -> bool:
    """Whether a step shows the opponent there: a frame taken, or one that
    tells something (a frame from beyond the end, once its key is known). A
    frame dropped shows nothing: junk from a stranger, or from a hostile host,
    must not hold a joiner past its connect timeout, nor keep a silent
    opponent looking present."""
    if step.accepted is not None:
        return True
    known = session.opponent_known
    return any(
        not isinstance(event, FrameDropped) and (known or not isinstance(event, FrameGap))
        for event in step.events
    )


def _owes_bye(session: Session) -> bool:
    """Whether quitting now leaves an unfinished match the opponent should hear of."""
    return not (session.is_over or session.dispute is not None or not session.opponent_known)


def _snapshot(session: Session) -> Snapshot:
    """What the link needs to know of the session, now."""
    return Snapshot(
        frames=session.next_seq,
        opponent_known=session.opponent_known,
        our_turn=session.our_turn,
        over=session.is_over,
        dispute=session.dispute is not None,
        opening=session.opening,
    )


class _LineEvent(enum.Enum):
    UP = "connected"
    DOWN = "disconnected"
    RETRYING = "reconnecting"
    OTHER = "other"


class _JoinerLine:
    """A joiner's connection as ZeroMQ's monitor reports it, and the redial
    ZeroMQ does not do after it cut a connection for an oversized message."""

    def __init__(self, sock: zmq.asyncio.Socket) -> None:
        self._sock = sock
        self._monitor = sock.get_monitor_socket(
            zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED | _RECONNECTING
        )
        self._endpoint = _connected_endpoint(sock)
        """Where it connects (as given: a name stays a name), to dial again."""

    async def next_event(self, seconds: float) -> _LineEvent | None:
        """The next connection event, or ``None`` if none came within ``seconds``."""
        if not await _event_within(self._monitor, seconds):
            return None
        event = await recv_monitor_message(self._monitor)
        kind = event["event"]
        if kind == zmq.EVENT_DISCONNECTED:
            where = event["endpoint"]
            if self._endpoint is None and isinstance(where, bytes):
                self._endpoint = where.decode(errors="replace")
            return _LineEvent.DOWN
        if kind == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            return _LineEvent.UP
        if isinstance(kind, int) and kind & _RECONNECTING:
            return _LineEvent.RETRYING
        return _LineEvent.OTHER

    def redial(self) -> bool:
        """Disconnect and connect again; ``False`` if the address is not known."""
        if self._endpoint is None:
            return False
        with contextlib.suppress(zmq.ZMQError):
            self._sock.disconnect(self._endpoint)
        with contextlib.suppress(zmq.ZMQError):
            self._sock.connect(self._endpoint)
        return True

    def close(self) -> None:
        with contextlib.suppress(zmq.ZMQError):
            self._sock.disable_monitor()
        self._monitor.close(linger=0)


def _clip_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8, on a character boundary."""
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def _send_now(sock: zmq.asyncio.Socket, parts: list[bytes]) -> bool:
    """Send without waiting; ``False`` if ZeroMQ could not take it now.

    A frame that cannot go (no connection, the peer gone) is not lost: it is
    in the transcript, and the sync after reconnecting sends it again.
    """
    try:
        result = sock.send_multipart(parts, flags=zmq.NOBLOCK)
    except zmq.ZMQError:
        return False
    if isinstance(result, asyncio.Future):
        if result.done():
            return result.exception() is None
        result.add_done_callback(_swallow)
    return True


def _swallow(future: asyncio.Future[object]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: a failed send is recovered by the next sync
