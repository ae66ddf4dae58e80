"""``lcnet watch``'s network side: a spectator over ZeroMQ, with its own file.

The spectator connects a DEALER socket to the host (as a joiner does, and
ZeroMQ reconnects it by itself), asks with a signed ``watch`` frame, and
hands every message to :class:`lcnet.spectator.Spectator`, which checks it.
Every frame it keeps is written to its own replay file before anything is
shown (``GAME-spectator-KEY.lcnet``, header seat ``spectator``; a second
watch of the same match gets ``-2``, ``-3``, …). When the host goes away
and comes back (``lcnet resume``), ZeroMQ reconnects and the spectator asks
again from what it has. It never sends anything but ``watch``, and no
oftener than :class:`lcnet.spectator.Pace` says.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import zmq
import zmq.asyncio

from lcnet import __version__, hashing, wire
from lcnet.addresses import probe_listener
from lcnet.audience import NO_GAME
from lcnet.audit import Verdict
from lcnet.errors import Refused
from lcnet.identity import Identity
from lcnet.replaylog import ReplayHeader
from lcnet.replaywriter import ReplayWriter
from lcnet.sockets import connect_joiner
from lcnet.spectator import Pace, Received, Spectator, who_plays
from lcnet.textsafe import shown

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


async def watch(host: str, port: int, how: Watching) -> Watched:
    """Watch the match the host at ``host:port`` plays, until it ends, a frame
    fails the check, or the match makes no progress for the timeout. A host
    that turns the spectator away raises :class:`~lcnet.errors.Refused`."""
    # Nothing listening there (or an unknown name) is said now, as `lcnet join` does.
    await probe_listener(host, port, min(how.timeout, PROBE_TIMEOUT))
    context = zmq.asyncio.Context()
    sock = connect_joiner(context, host, port)
    peer = _Spectating(sock, how)
    stopped = None
    loop = asyncio.get_running_loop()
    if how.commands is not None:
        loop.add_reader(how.commands, peer.on_command_input)
    try:
        await peer.run()
    except HostStalled as exc:
        stopped = str(exc)
    finally:
        if how.commands is not None:
            loop.remove_reader(how.commands)
        if peer.writer is not None:
            peer.writer.close()
        sock.close(linger=500)
        context.term()
    spectator = peer.spectator
    stopped = stopped or spectator.full
    return Watched(spectator.verdict(), peer.path, stopped, spectator.failure)


class _Spectating:
    def __init__(self, sock: zmq.asyncio.Socket, how: Watching) -> None:
        self.sock = sock
        self.how = how
        self.spectator = Spectator()
        self.pace = Pace(how.timeout, time.monotonic())
        self.writer: ReplayWriter | None = None
        self.path: Path | None = None
        self._typed = b""

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
            if spectator.stopped:
                if spectator.observer.is_over or self._dispute_frame_in():
                    self._ask(now)  # says it has it all: its host need not wait for it
                    return
                stopped_at = stopped_at or now
                if now - stopped_at > END_GRACE:
                    return
            if pace.given_up(now):
                raise HostStalled(pace.why_given_up(spectator.have))
            if pace.ask_now(now, spectator.have):
                self._ask(now)
            wake = pace.next_deadline()
            if stopped_at is not None:
                wake = min(wake, stopped_at + END_GRACE)
            wait = max(0.0, wake - time.monotonic())
            if await self.sock.poll(timeout=math.ceil(wait * 1000)):
                parts = await self.sock.recv_multipart()
                received = spectator.receive(parts)
                pace.heard(time.monotonic(), received)
                self._on_message(received)

    def _on_message(self, received: Received) -> None:
        if received.busy is not None:
            raise Refused(f"the host turned this spectator away: {shown(received.busy)}")
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
        for line, is_move in zip(received.lines, received.is_move, strict=True):
            if not (self.how.board and is_move):  # the board's first line tells the move
                self.show(line)
        if self.how.board and any(received.is_move):
            for line in self.spectator.board():
                self.show(line)

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
