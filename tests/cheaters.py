"""Test helpers: a table of two real sessions, and a cheating peer.

The cheater is a modified client: it runs the real session with its real
key and secrets, but rewrites some of its own messages (or their headers)
just before signing them. Frames travel as raw bytes between the two
sessions, each written to that peer's real replay file before it is sent,
so a test can also inject arbitrary bytes and audit the files afterwards.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from pathlib import Path

import nacl.signing

from lcnet.audit import verdict as audit
from lcnet.bots.uniform import RandomBot
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions, Step
from lcnet.protocol.session import Session
from lcnet.protocol.transcript import FrameHeader
from lcnet.store.replayfile import ReplayHeader
from lcnet.store.writer import ReplayWriter

Tamper = Callable[["Cheater", wire.Message], wire.Message | None]
"""Rewrites a message the cheater is about to sign (``None``: leave it)."""

HeaderTamper = Callable[
    ["Cheater", wire.Message, int, bytes | None, bytes | None],
    tuple[int, bytes | None, bytes | None] | None,
]


def once(rewrite: Tamper) -> Tamper:
    """A tamper that acts on the first message it changes, and records that it did."""
    done: list[wire.Message] = []

    def tamper(cheater: Cheater, message: wire.Message) -> wire.Message | None:
        if done:
            return None
        changed = rewrite(cheater, message)
        if changed is not None:
            done.append(changed)
        return changed

    tamper.done = done  # type: ignore[attr-defined]
    return tamper


class Cheater(Session):
    """A session whose owner rewrites its own messages before signing them."""

    tamper: Tamper | None = None
    tamper_header: HeaderTamper | None = None
    confused = False
    """Set once its own rewritten frame broke its own state: it then stops moving."""

    def emit(self, message: wire.Message, step: Step) -> wire.Frame:
        if self.tamper is not None:
            message = self.tamper(self, message) or message
        header = self.next_header()
        if self.tamper_header is not None:
            changed = self.tamper_header(self, message, *header)
            if changed is not None:
                header = FrameHeader(*changed)
        frame = self.sign(message, header)
        try:
            self.append_own(frame, step)
        except Exception:
            self.confused = True
        return frame

    # What a modified client can read of its own secrets.

    def own_key(self, position: int) -> bytes:
        assert self.round is not None and self.round.own_deal is not None
        return self.round.own_deal._secrets.position_keys[position]

    def hidden_positions(self) -> dict[object, int]:
        assert self.round is not None and self.round.own_deal is not None
        return dict(self.round.own_deal.hidden_positions)


class Table:
    """Two sessions playing random moves, frames relayed as bytes through a queue."""

    def __init__(
        self,
        directory: Path,
        *,
        seed: int = 1,
        suits: int = 5,
        rounds: int = 1,
        cheater: Seat | None = None,
        tamper: Tamper | None = None,
        tamper_header: HeaderTamper | None = None,
        hold: frozenset[Seat] = frozenset(),
    ) -> None:
        self.hold = hold
        """Seats whose moves are not played automatically (see :meth:`play`)."""
        rng = random.Random(seed)
        self.keys = {s: nacl.signing.SigningKey(rng.randbytes(32)) for s in Seat}
        masters = {s: rng.randbytes(32) for s in Seat}
        self.sessions: dict[Seat, Session] = {}
        for seat in Seat:
            cls = Cheater if seat is cheater else Session
            session = cls(
                seat=seat,
                signing_key=self.keys[seat],
                master_secret=masters[seat],
                name="Hana" if seat is Seat.HOST else "Joe",
                options=MatchOptions(suits=suits, rounds=rounds) if seat is Seat.HOST else None,
            )
            if isinstance(session, Cheater):
                session.tamper = tamper
                session.tamper_header = tamper_header
            self.sessions[seat] = session
        self.bots = {s: RandomBot(random.Random(rng.getrandbits(64))) for s in Seat}
        self.paths = {s: directory / f"{s}.lcnet" for s in Seat}
        self.writers = {
            s: ReplayWriter.create(
                self.paths[s], ReplayHeader(seat=str(s), created="test", software="test")
            )
            for s in Seat
        }
        self.queue: deque[tuple[Seat, bytes]] = deque()
        self.sent: dict[Seat, list[bytes]] = {s: [] for s in Seat}
        self.steps: dict[Seat, list[Step]] = {s: [] for s in Seat}
        self._record(Seat.JOINER, self.sessions[Seat.JOINER].start())

    @property
    def host(self) -> Session:
        return self.sessions[Seat.HOST]

    @property
    def joiner(self) -> Session:
        return self.sessions[Seat.JOINER]

    def _record(self, seat: Seat, step: Step) -> None:
        self.steps[seat].append(step)
        writer = self.writers[seat]
        if step.evidence is not None:
            writer.append_evidence(step.evidence.raw)
        if step.accepted is not None:
            writer.append_frame(step.accepted.raw)
        for frame in step.outgoing:
            writer.append_frame(frame.raw)
            self.sent[seat].append(frame.raw)
            self.queue.append((seat.other, frame.raw))
        session = self.sessions[seat]
        confused = isinstance(session, Cheater) and session.confused
        if session.awaiting_decision and seat not in self.hold and not confused:
            self.play(seat)

    def play(self, seat: Seat) -> None:
        """Let ``seat``'s random bot make the move it owes."""
        session = self.sessions[seat]
        view = session.view()
        assert view is not None
        self._record(seat, session.play(self.bots[seat].choose_turn(view)))

    def deliver(self) -> Step:
        """Hand the next queued frame to its receiver."""
        to, raw = self.queue.popleft()
        return self.inject(to, raw)

    def inject(self, to: Seat, raw: bytes) -> Step:
        """Hand ``raw`` to the session of ``to`` (as if it came off the wire)."""
        step = self.sessions[to].receive(raw)
        self._record(to, step)
        return step

    def run(self, until: Callable[[Table], bool] | None = None, max_frames: int = 20_000) -> None:
        """Relay frames until the queue is empty (or ``until`` holds before a delivery)."""
        for _ in range(max_frames):
            if not self.queue or (until is not None and until(self)):
                return
            self.deliver()
        raise AssertionError("the match did not end")

    def next_from(self, seat: Seat) -> bytes:
        """Take the next queued frame sent by ``seat`` out of the queue (undelivered)."""
        for index, (to, raw) in enumerate(self.queue):
            if to is seat.other:
                del self.queue[index]
                return raw
        raise AssertionError(f"nothing from the {seat} is queued")

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()

    def audit(self, seat: Seat) -> audit.Verdict:
        self.close()
        return audit.audit_file(self.paths[seat])
