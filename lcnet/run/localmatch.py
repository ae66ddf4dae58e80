"""Two sessions wired together in memory: a whole signed match in one process.

Used by ``lcnet selfplay --replays``, by the tests, by the audit benchmark
and by the sample-file generator. Everything runs through the real protocol:
two :class:`~lcnet.protocol.session.Session` objects with their own keys and secrets
exchange real signed frames, each written to that peer's replay file before
it is "sent" — only the socket is missing.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nacl.signing

from lcnet import __version__
from lcnet.deck import deal
from lcnet.errors import LocalProtocolError
from lcnet.game.engine import Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import Event, MatchOptions, Step
from lcnet.protocol.session import Session
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import ReplayWriter, delete_secret, write_secret

Decide = Callable[[View], Turn]
"""Chooses a turn from a view (a bot's ``choose_turn``)."""

MAX_FRAMES = 20_000
"""A safety stop for bot matches: a 3-round 6-suit match takes about 500 frames."""


@dataclass
class Peer:
    """One side of a local match: its session, its decisions, its replay file."""

    session: Session
    decide: Decide
    master: bytes = field(repr=False, default=b"")
    """The master secret, which the private side file keeps while the match runs."""
    writer: ReplayWriter | None = None
    events: list[Event] = field(default_factory=list)

    def record(self, step: Step) -> None:
        """Write what a step produced, in order, before anything is sent."""
        self.events.extend(step.events)
        if self.writer is None:
            return
        if step.evidence is not None:
            self.writer.append_evidence(step.evidence.raw)
        if step.accepted is not None:
            self.writer.append_frame(step.accepted.raw)
        for frame in step.outgoing:
            self.writer.append_frame(frame.raw)


def new_peers(
    decide: Mapping[Seat, Decide],
    *,
    options: MatchOptions,
    rng: random.Random,
    names: Mapping[Seat, str] | None = None,
    kinds: Mapping[Seat, type[Session]] | None = None,
) -> dict[Seat, Peer]:
    """Two fresh sessions with keys and master secrets from ``rng`` (reproducible).

    ``kinds`` may give a seat a subclass of :class:`Session` (a modified client,
    as ``replays/make_samples.py`` makes).
    """
    names = names or {Seat.HOST: "host", Seat.JOINER: "joiner"}
    kinds = kinds or {}
    keys = {seat: nacl.signing.SigningKey(rng.randbytes(32)) for seat in Seat}
    masters = {seat: rng.randbytes(deal.MASTER_SECRET_SIZE) for seat in Seat}
    host = kinds.get(Seat.HOST, Session).host(
        keys[Seat.HOST], masters[Seat.HOST], name=names[Seat.HOST], options=options
    )
    joiner = kinds.get(Seat.JOINER, Session).joiner(
        keys[Seat.JOINER], masters[Seat.JOINER], name=names[Seat.JOINER]
    )
    return {
        Seat.HOST: Peer(host, decide[Seat.HOST], masters[Seat.HOST]),
        Seat.JOINER: Peer(joiner, decide[Seat.JOINER], masters[Seat.JOINER]),
    }


def run(peers: Mapping[Seat, Peer], *, max_frames: int = MAX_FRAMES) -> None:
    """Relay frames between the two peers until neither has anything to say."""
    queue: deque[tuple[Seat, wire.Frame]] = deque()

    def after(seat: Seat, step: Step) -> None:
        peer = peers[seat]
        peer.record(step)
        queue.extend((seat.other, frame) for frame in step.outgoing)
        while peer.session.awaiting_decision:
            view = peer.session.view()
            assert view is not None
            decided = peer.session.play(peer.decide(view))
            peer.record(decided)
            queue.extend((seat.other, frame) for frame in decided.outgoing)

    after(Seat.JOINER, peers[Seat.JOINER].session.start())
    delivered = 0
    while queue:
        to, frame = queue.popleft()
        after(to, peers[to].session.receive(frame.raw))
        delivered += 1
        if delivered > max_frames:
            raise LocalProtocolError(f"the match did not end within {max_frames} frames")


def open_replays(peers: Mapping[Seat, Peer], directory: Path, stem: str, created: str) -> None:
    """Give each peer a replay file ``<stem>-<seat>.lcnet`` in ``directory``."""
    for seat, peer in peers.items():
        path = directory / f"{stem}-{seat}.lcnet"
        header = ReplayHeader(seat=str(seat), created=created, software=f"lcnet {__version__}")
        peer.writer = ReplayWriter.create(path, header)
        write_secret(path, {"master": peer.master, "seat": str(seat)})


def close_replays(peers: Mapping[Seat, Peer]) -> list[Path]:
    """Close the files; a finished match needs no side file any more."""
    paths = []
    for peer in peers.values():
        if peer.writer is None:
            continue
        peer.writer.close()
        if peer.session.is_over:
            delete_secret(peer.writer.path)
        paths.append(peer.writer.path)
    return paths
