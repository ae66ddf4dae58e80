"""``lcnet watch``'s network side: a spectator over ZeroMQ, with its own file.

The spectator connects a DEALER socket to the host (as a joiner does, and
ZeroMQ reconnects it by itself), asks with a signed ``watch`` frame, and
hands every message to :class:`lcnet.spectator.Spectator`, which checks it.
Every frame it keeps is written to its own replay file before anything is
shown (``GAME-spectator-KEY.lcnet``, header seat ``spectator``; a second
watch of the same match gets ``-2``, ``-3``, …). When the host goes away
and comes back (``lcnet resume``), ZeroMQ reconnects and the spectator asks
again from what it has. It never sends anything but ``watch``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
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
from lcnet.net import connect_joiner
from lcnet.replaylog import ReplayHeader
from lcnet.replaywriter import ReplayWriter
from lcnet.spectator import Spectator

SPECTATOR_SEAT: Final = "spectator"
"""The header's ``seat`` of a spectator's replay file."""

ASK_INTERVAL: Final = 1.0
"""Seconds without a message before the spectator asks again (it also keeps
the host's answer coming, which tells that the host is there)."""

DEFAULT_TIMEOUT: Final = 60.0
"""Seconds without any answer from the host before the spectator gives up."""

PROBE_TIMEOUT: Final = 15.0
"""Seconds to find out whether anything accepts connections at the address."""

END_GRACE: Final = 2.0
"""After the spectator's own check finds a fault: seconds to wait for the
player's dispute frame, so that its file holds what the players' do."""


class HostSilent(Exception):
    """The host sent nothing for the spectator's timeout."""


@dataclass
class Watching:
    """How a spectator watches (what ``lcnet watch`` was told)."""

    identity: Identity
    replays: Path
    timeout: float = DEFAULT_TIMEOUT
    show: Callable[[str], None] = print
    board: bool = False
    """Also show the public board after each move."""
    on_file: Callable[[Path], None] = lambda path: None
    """Told the spectator's replay file when it is made (at the first frame)."""


@dataclass(frozen=True)
class Watched:
    verdict: Verdict
    """The audit's verdict on what arrived (the same as on the file)."""
    path: Path | None
    """The spectator's replay file (``None`` if no frame came)."""
    stopped: str | None = None
    """Why the spectator stopped before the match ended (the host went silent)."""


async def watch(host: str, port: int, how: Watching) -> Watched:
    """Watch the match the host at ``host:port`` plays, until it ends or the
    host stops answering. A host that turns the spectator away raises
    :class:`~lcnet.errors.Refused`."""
    # Nothing listening there (or an unknown name) is said now, as `lcnet join` does.
    await probe_listener(host, port, min(how.timeout, PROBE_TIMEOUT))
    context = zmq.asyncio.Context()
    sock = connect_joiner(context, host, port)
    peer = _Spectating(sock, how)
    stopped = None
    try:
        await peer.run()
    except HostSilent as exc:
        stopped = str(exc)
    finally:
        if peer.writer is not None:
            peer.writer.close()
        sock.close(linger=500)
        context.term()
    return Watched(peer.spectator.verdict(), peer.path, stopped)


class _Spectating:
    def __init__(self, sock: zmq.asyncio.Socket, how: Watching) -> None:
        self.sock = sock
        self.how = how
        self.spectator = Spectator()
        self.writer: ReplayWriter | None = None
        self.path: Path | None = None

    async def run(self) -> None:
        how = self.how
        self._ask()
        heard = time.monotonic()
        stopped_at: float | None = None
        while True:
            now = time.monotonic()
            if self.spectator.stopped:
                if self.spectator.observer.is_over or self._dispute_frame_in():
                    self._ask()  # says it has it all: its host need not wait for it
                    return
                stopped_at = stopped_at or now
                if now - stopped_at > END_GRACE:
                    return
            if now - heard > how.timeout:
                raise HostSilent(
                    f"the host sent nothing for {how.timeout:g} s, after "
                    f"{self.spectator.have} frames of its match (watch again to see it from "
                    "the start; it is saved as far as it came)"
                )
            if not await self.sock.poll(timeout=int(ASK_INTERVAL * 1000)):
                self._ask()  # nothing came: ask again (the host may have restarted)
                continue
            parts = await self.sock.recv_multipart()
            heard = time.monotonic()
            self._on_message(parts)

    def _on_message(self, parts: list[bytes]) -> None:
        received = self.spectator.receive(parts)
        if received.busy is not None:
            raise Refused(f"the host turned this spectator away: {received.busy}")
        for raw in received.evidence:
            self._file().append_evidence(raw)
        for raw in received.frames:
            self._file().append_frame(raw)
        for line, is_move in zip(received.lines, received.is_move, strict=True):
            if not (self.how.board and is_move):  # the board's first line tells the move
                self.how.show(line)
        if self.how.board and received.lines:
            for line in self.spectator.board():
                self.how.show(line)
        if received.ask:
            self._ask()

    def _dispute_frame_in(self) -> bool:
        """The last frame kept is a player's dispute (the match stopped with it)."""
        frames = self.spectator.frames
        if not frames:
            return False
        last = wire.decode_frame(frames[-1], allow_unknown_fields=True)
        return isinstance(last.message, wire.Dispute)

    def _ask(self) -> None:
        identity = self.how.identity
        message = wire.Watch(
            v=list(wire.PROTOCOL_VERSION),
            name=identity.name,
            key=identity.public_key,
            have=self.spectator.have,
        )
        game = self.spectator.observer.game_id or NO_GAME
        frame = wire.make_frame(message, identity.signing_key, game=game)
        with contextlib.suppress(zmq.ZMQError):
            self.sock.send_multipart([frame.raw], flags=zmq.NOBLOCK)
        self.spectator.asked()

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
