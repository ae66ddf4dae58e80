"""``lcnet watch``'s network side: a spectator over ZeroMQ, with its own file.

The spectator connects a DEALER socket to the host (as a joiner does, and
ZeroMQ reconnects it by itself), asks with a signed ``watch`` frame, and
hands every message to :class:`lcnet.watch.spectator.Spectator`, which checks it.
Every frame it keeps is written to its own replay file before anything is
shown (``GAME-spectator-KEY.lcnet``, header seat ``spectator``; a second
watch of the same match gets ``-2``, ``-3``, …). When the host goes away
and comes back (``lcnet resume``), ZeroMQ reconnects and the spectator asks
again from what it has. It never sends anything but ``watch``, and no
oftener than :class:`lcnet.watch.spectator.Pace` says.

The host is a stranger: the watch ends with a verdict when a frame fails the
check (at once), when the match ends, or when no new frame came for the
timeout, whatever the host keeps sending. Every line shown goes through
:func:`lcnet.textsafe.shown`. Who plays (names, key fingerprints, whether
this machine knows each key) is shown when the match's first two frames
name them, and again on ``i`` + Enter.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import zmq
import zmq.asyncio

from lcnet import __version__
from lcnet.audit.verdict import Verdict
from lcnet.deck import hashing
from lcnet.errors import Refused
from lcnet.game.seat import Seat
from lcnet.link.audience import NO_GAME
from lcnet.net.addresses import probe_listener
from lcnet.net.sockets import connect_joiner
from lcnet.protocol import wire
from lcnet.store.identity import Identity
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import ReplayWriter
from lcnet.textsafe import shown
from lcnet.watch.spectator import Pace, Received, Spectator, who_plays

SPECTATOR_SEAT: Final = "spectator"
"""The header's ``seat`` of a spectator's replay file."""

DEFAULT_TIMEOUT: Final = 300.0
"""Seconds without a new frame of the match before the spectator leaves the
host (a host gone or stalled, or players who do not play): long enough for
a player who thinks, or a host that is resumed after a crash."""

PROBE_TIMEOUT: Final = 15.0
"""Seconds to find out whether anything accepts connections at the address."""

END_GRACE: Final = 2.0
"""After the spectator's own check finds a fault: seconds to wait for the
player's dispute frame, so that its file holds what the players' do."""

HOST_SILENT: Final = 3.5
"""Seconds without any message from the host after which the spectator says
the host does not answer. A live host answers a ``watch`` within two
seconds: the spectator asks after a second without a new frame, and the
host answers the second ask with the same ``have`` (docs/PROTOCOL.md §6.6)."""

REMATCH_WAIT: Final = 180.0
"""After a match that ended without a dispute: seconds the spectator waits
for both players' answers about another match (a bot waits 120 s for a
person's), unless one says no or the host stops answering first."""

DRAIN_MESSAGES: Final = 64
"""Messages already arrived that the spectator still reads when its watch ends."""

BATCH_MESSAGES: Final = 256
"""Messages read at one wake-up, those already arrived (the loop's deadlines
come between two batches): a window of frames, with room for what a host
sends beside it."""

MAX_COMMAND_BYTES: Final = 256
"""Bytes of the terminal's input kept while no line ends (``i`` + Enter is two)."""


class HostStalled(Exception):
    """The match made no progress for the spectator's timeout."""


@dataclass
class Watching:
    """How a spectator watches (what ``lcnet watch`` was told)."""

    identity: Identity
    replays: Path
    timeout: float = DEFAULT_TIMEOUT
    show: Callable[[str], None] = print
    """Told each line to print (already escaped: it holds text from outside)."""
    board: bool = False
    """Also show the public board after each move."""
    on_file: Callable[[Path], None] = lambda path: None
    """Told the spectator's replay file when it is made (at the first frame)."""
    known_peers: Mapping[str, bytes] = field(default_factory=dict)
    """This machine's known peers (name → key), to say whether it knows each player."""
    commands: int | None = None
    """A file descriptor to read the viewer's commands from, a line each (the
    terminal's standard input): ``i`` shows who plays again."""
    follow: bool = True
    """Follow the players into another match when both agree (a rematch)."""
    on_match_end: Callable[[Watched], None] = lambda watched: None
    """Told each match's outcome before the spectator follows the players into
    the next one (the last match's is what :func:`watch` returns)."""
    on_frames: Callable[[Sequence[bytes]], None] = lambda frames: None
    """Told the whole transcript kept so far after a message added frames to it
    (written to the file first): the full-screen board (:mod:`lcnet.ui.watch_view`)."""


@dataclass(frozen=True)
class Watched:
    verdict: Verdict
    """The audit's verdict on what arrived (the same as on the file)."""
    path: Path | None
    """The spectator's replay file (``None`` if no frame came)."""
    stopped: str | None = None
    """Why the spectator stopped before the match ended (no progress for the
    timeout, or a match longer than lcnet keeps)."""
    failed: str | None = None
    """What failed in the frame the host sent in the place of the next one (it
    ends the watch; the file holds that frame, and its verdict names neither player)."""
    matches: int = 1
    """Matches watched on this connection (more than one: it followed rematches)."""


async def watch(host: str, port: int, how: Watching) -> Watched:
    """Watch the match the host at ``host:port`` plays, until it ends, a frame
    fails the check, or the match makes no progress for the timeout; when both
    players agree on another match, follow them into it (``how.follow``),
    with a file of its own. A host that turns the spectator away raises
    :class:`~lcnet.errors.Refused`. Returns the last match's outcome."""
    # Nothing listening there (or an unknown name) is said now, as `lcnet join` does.
    await probe_listener(host, port, min(how.timeout, PROBE_TIMEOUT))
    context = zmq.asyncio.Context()
    sock = connect_joiner(context, host, port)
    peer = _Spectating(sock, how)
    loop = asyncio.get_running_loop()
    if how.commands is not None:
        loop.add_reader(how.commands, lambda: peer.on_command_input())
    matches = 0
    try:
        while True:
            matches += 1
            watched = await _watch_one(peer, matches)
            if not peer.follows:
                return watched
            how.on_match_end(watched)
            peer = peer.next_match()
    finally:
        if how.commands is not None:
            loop.remove_reader(how.commands)
        if peer.writer is not None:
            peer.writer.close()
        sock.close(linger=500)
        context.term()


async def _watch_one(peer: _Spectating, matches: int) -> Watched:
    stopped = None
    try:
        await peer.run()
    except HostStalled as exc:
        stopped = str(exc)
    finally:
        if peer.writer is not None:
            peer.writer.close()
    spectator = peer.spectator
    stopped = stopped or spectator.full
    return Watched(spectator.verdict(), peer.path, stopped, spectator.failure, matches)


class _Spectating:
    def __init__(
        self,
        sock: zmq.asyncio.Socket,
        how: Watching,
        binder: bytes | None = None,
        *,
        typed: bytes = b"",
        players_before: set[bytes] | None = None,
    ) -> None:
        self.sock = sock
        self._shadow: zmq.Socket[bytes] | None = None
        self.how = how
        self.spectator = Spectator(binder=binder)
        self.pace = Pace(how.timeout, time.monotonic())
        self.writer: ReplayWriter | None = None
        self.path: Path | None = None
        self._typed = typed
        """What the viewer typed of a command line so far."""
        self.players_before = players_before
        """In a rematch: the keys of the match before's players (the same two must play)."""
        self.follows = False
        """Both players agreed on another match: the spectator follows them."""
        self._heard_at = time.monotonic()
        self._silence_told = False
        self._answered = False
        """Whether the host has answered yet (the first answer says so if no match has begun)."""

    def next_match(self) -> _Spectating:
        """The spectator of the rematch the players agreed on, on this connection:
        the program it is connected to is the one that bound the socket."""
        spectator = self.spectator
        binder = spectator.binder or spectator.observer.keys.get(Seat.HOST)
        players = {p.key for p in spectator.players()}
        return _Spectating(self.sock, self.how, binder, typed=self._typed, players_before=players)

    def show(self, line: str) -> None:
        """Every line reaches the screen here, escaped (names and reasons come from outside)."""
        self.how.show(shown(line))

    async def run(self) -> None:
        spectator, pace = self.spectator, self.pace
        stopped_at: float | None = None
        while True:
            now = time.monotonic()
            if spectator.failure is not None or spectator.full is not None:
                return
            self._silence(now)
            if spectator.stopped:
                stopped_at = stopped_at or now
                if self._end_of_match(now, stopped_at):
                    await self._drain()
                    return
            elif pace.given_up(now):
                raise HostStalled(pace.why_given_up(spectator.have))
            if pace.ask_now(now, spectator.have):
                self._ask(now)
            wait = max(0.0, self.next_wake(stopped_at) - time.monotonic())
            if await self.sock.poll(timeout=math.ceil(wait * 1000)):
                for parts in self._arrived(BATCH_MESSAGES):
                    received = spectator.receive(parts)
                    self._heard_at = time.monotonic()
                    pace.heard(self._heard_at, received)
                    self._on_message(received)
                    if spectator.stopped:
                        break  # the loop ends the match's watch (and drains what is left)

    def next_wake(self, stopped_at: float | None) -> float:
        """When the loop has something to decide without a message: the next
        ask, the timeout, the host's silence, the end of the match's watch.
        Each is a time still to come once the loop has acted on it (one in the
        past would be due for ever, and the loop would spin)."""
        wake = self.pace.next_deadline()
        if not self._silence_told:
            wake = min(wake, self._heard_at + HOST_SILENT)
        if stopped_at is not None:
            wake = min(wake, stopped_at + self._end_wait())
        return wake

    def _end_wait(self) -> float:
        """How long after the match stopped :meth:`_end_of_match` waits at most
        (silence and the timeout, which also end it, have their own deadlines)."""
        observer = self.spectator.observer
        if observer.is_over and observer.dispute is None and self.how.follow:
            return REMATCH_WAIT
        return END_GRACE

    async def _drain(self) -> None:
        """Read what has arrived already (news the host sent after the end: a
        player's last line), at most a window's worth, without waiting."""
        for parts in self._arrived(DRAIN_MESSAGES):
            self._on_message(self.spectator.receive(parts))

    def _arrived(self, most: int) -> Iterator[list[bytes]]:
        """The messages that have arrived, at most ``most``, read without waiting
        through a plain shadow of the socket: a flood costs no future per message."""
        if self._shadow is None:
            self._shadow = zmq.Socket.shadow(self.sock.underlying)
        for _ in range(most):
            try:
                yield self._shadow.recv_multipart(flags=zmq.NOBLOCK)
            except zmq.Again:
                return

    def _silence(self, now: float) -> None:
        """Say when the host stops answering, and when it answers again."""
        silent = now - self._heard_at >= HOST_SILENT
        if silent and not self._silence_told:
            self._silence_told = True
            self.show(
                f"no answer from the host for {HOST_SILENT:g} s: it has stopped, or the "
                "network is down. Waiting for it (a stopped host can continue the match "
                f"with lcnet resume); leaving after {self.how.timeout:g} s without a new "
                "frame (Ctrl-C leaves now; the file keeps what came)"
            )
        elif not silent and self._silence_told:
            self._silence_told = False
            self.show("the host answers again")

    def _end_of_match(self, now: float, stopped_at: float) -> bool:
        """Whether the watch of this match ends now that nothing can change its
        verdict: at once, but after a match whose players may agree on another
        (the spectator then waits for their answers, :data:`REMATCH_WAIT`),
        and after its own check found a fault (:data:`END_GRACE` for the
        player's dispute)."""
        spectator = self.spectator
        observer = spectator.observer
        if observer.is_over and observer.dispute is None and self.how.follow:
            if spectator.rematch_agreed:
                self.follows = True
                return True
            return (
                spectator.rematch_declined
                or self._silence_told
                or now - stopped_at > REMATCH_WAIT
                or self.pace.given_up(now)  # never longer than the timeout says
            )
        if observer.is_over or self._dispute_frame_in():
            self._ask(now)  # says it has it all: its host need not wait for it
            return True
        return now - stopped_at > END_GRACE

    def _on_message(self, received: Received) -> None:
        if received.busy is not None:
            raise Refused(f"the host turned this spectator away: {shown(received.busy)}")
        if not self._answered:
            self._answered = True
            if not self.spectator.frames and self.players_before is None:
                self.show("the host answers: its match has not begun (it waits for its opponent)")
        for raw in received.frames:
            self._file().append_frame(raw)
        for raw in received.evidence:
            self._file().append_evidence(raw)
        if received.frames:
            self.how.on_frames(self.spectator.frames)
        for kind, detail in received.dropped:
            self.show(f"note: the host sent {kind.value} ({detail}): not kept, and told only once")
        if received.players:
            self.who_plays()
            self._check_rematch_players()
        for line, is_move in zip(received.lines, received.is_move, strict=True):
            if not (self.how.board and is_move):  # the board's first line tells the move
                self.show(line)
        if self.how.board and any(received.is_move):
            for line in self.spectator.board():
                self.show(line)

    def _check_rematch_players(self) -> None:
        """A followed rematch must be played by the same two players."""
        before = self.players_before
        if before is not None and {p.key for p in self.spectator.players()} != before:
            self.spectator.failure = (
                "the host's next match is not between the players who agreed on it"
            )
            self.show(f"FAILED CHECK: {self.spectator.failure}; the watch stops here")

    def who_plays(self) -> None:
        players = self.spectator.players()
        if not players:
            self.show("who plays: not known yet (the match has not begun)")
            return
        self.show("who plays (compare the key fingerprints with the players):")
        for line in who_plays(players, self.how.known_peers):
            self.show(f"  {line}")

    def on_command_input(self) -> None:
        """The viewer typed: ``i`` + Enter shows who plays again."""
        assert self.how.commands is not None
        try:
            data = os.read(self.how.commands, MAX_COMMAND_BYTES)
        except OSError:
            data = b""
        if not data:  # the end of the input: nothing more will be typed
            asyncio.get_running_loop().remove_reader(self.how.commands)
            return
        self._typed = (self._typed + data)[-MAX_COMMAND_BYTES:]
        *lines, self._typed = self._typed.split(b"\n")
        for line in lines:
            if line.strip().lower() == b"i":
                self.who_plays()

    def _dispute_frame_in(self) -> bool:
        """The last frame kept is a player's dispute (the match stopped with it)."""
        frames = self.spectator.frames
        if not frames:
            return False
        last = wire.decode_frame(frames[-1], allow_unknown_fields=True)
        return isinstance(last.message, wire.Dispute)

    def _ask(self, now: float) -> None:
        identity = self.how.identity
        message = wire.Watch(
            v=list(wire.PROTOCOL_VERSION),
            name=identity.name,
            key=identity.public_key,
            have=self.spectator.have,
        )
        game = self.spectator.observer.game_id or NO_GAME
        frame = wire.make_frame(message, identity.signing_key, game=game)
        try:
            sent = self.sock.send_multipart([frame.raw], flags=zmq.NOBLOCK)
        except zmq.ZMQError:
            sent = None  # no connection now: the next ask goes when it is back
        if isinstance(sent, asyncio.Future):
            # A send that cannot go now fails its future: retrieve that, or
            # asyncio prints a traceback when the future is collected.
            sent.add_done_callback(_retrieve)
        self.pace.asked(now, self.spectator.have)

    def _file(self) -> ReplayWriter:
        """The spectator's file, opened at the first frame (named after the game)."""
        if self.writer is not None:
            return self.writer
        first = self.spectator.frames[0]
        game = hashing.game_id(first)
        fingerprint = self.how.identity.fingerprint.replace("-", "")[:8].lower()
        stem = f"{game.hex()[:8]}-spectator-{fingerprint}"
        self.path = self.how.replays / f"{stem}.lcnet"
        number = 1
        while self.path.exists():
            number += 1
            self.path = self.how.replays / f"{stem}-{number}.lcnet"
        header = ReplayHeader(
            seat=SPECTATOR_SEAT,
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            software=f"lcnet {__version__}",
        )
        self.writer = ReplayWriter.create(self.path, header)
        self.how.on_file(self.path)
        return self.writer


def _retrieve(future: asyncio.Future[object]) -> None:
    if not future.cancelled():
        future.exception()
