"""A hostile host for ``lcnet watch``: the real protocol over a real ROUTER, lying.

The host holds its own signing key and the transcript of a match it played
against an honest joiner (whose key it does not hold), and a
:class:`Scenario` decides what it answers to each ``watch`` and what it
sends between them: the honest answer (docs/PROTOCOL.md §6.6), or frames
with bad signatures, reordered or repeated, a transcript of another match,
``sync`` frames that claim frames it never sends or lengths going
backwards, evidence before anything else, floods of evidence signed by
random keys or by its own key about any position, silence, stalls, a slow
drip of useless messages, oversized and malformed messages, frames after
the end, a ``busy`` with control characters. Every frame it signs is made
with the real encoder (:func:`lcnet.protocol.wire.make_frame`).

:func:`check` states the property a spectator must keep against any of
them: it never crashes, ends within its timeout plus a bound with a
verdict, keeps a bounded file, never calls an honest player a cheater, and
shows no control character. The tests run a few seeded scenarios
(tests/watch/test_watch_hostile.py); ``bench/hostile_host.py`` runs many.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import msgpack
import nacl.signing
import zmq

from lcnet.audit import verdict as audit
from lcnet.bots.uniform import RandomBot
from lcnet.deck import hashing
from lcnet.game.seat import Seat
from lcnet.link.audience import EVIDENCE_PART, NO_GAME, WINDOW
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.session import Session
from lcnet.store.replayfile import read_replay

LOOPBACK = "127.0.0.1"

HOST_NAME = "Ada"
JOINER_NAME = "Ben"


# ------------------------------------------------------------------ matches


@dataclass(frozen=True)
class Match:
    """A transcript the hostile host played, and what it holds beside it."""

    frames: tuple[bytes, ...]
    evidence: tuple[bytes, ...]
    host_key: nacl.signing.SigningKey
    cheater: Seat | None
    """The player who cheated in it (``None``: the joiner played honestly)."""

    @property
    def game(self) -> bytes:
        return hashing.game_id(self.frames[0])

    def head(self, have: int) -> bytes:
        return hashing.chain_hash(self.frames[have - 1]) if have else NO_GAME

    def sync(self, have: int) -> bytes:
        """The host's own ``sync``: it holds ``have`` frames."""
        message = wire.Sync(have=have, head=self.head(min(have, len(self.frames))))
        return wire.make_frame(message, self.host_key, game=self.game).raw


def play(seed: int, *, equivocate: bool = False, rounds: int = 1) -> Match:
    """A match between the hostile host and a joiner, played by random bots in
    memory. ``equivocate``: the joiner signs a second frame for one of its
    positions, and the host keeps it as evidence (as an honest host does)."""
    rng = random.Random(seed)
    keys = {seat: nacl.signing.SigningKey(rng.randbytes(32)) for seat in Seat}
    sessions = {
        Seat.HOST: Session.host(
            keys[Seat.HOST], rng.randbytes(32), name=HOST_NAME, options=MatchOptions(rounds=rounds)
        ),
        Seat.JOINER: Session.joiner(keys[Seat.JOINER], rng.randbytes(32), name=JOINER_NAME),
    }
    bots = {seat: RandomBot(random.Random(rng.getrandbits(64))) for seat in Seat}
    queue: deque[tuple[Seat, bytes]] = deque()
    evidence: list[bytes] = []
    twin_sent = False

    def after(seat: Seat, outgoing: list[bytes]) -> None:
        queue.extend((seat.other, raw) for raw in outgoing)
        session = sessions[seat]
        if not session.is_over and session.dispute is None and session.awaiting_decision:
            view = session.view()
            assert view is not None
            after(seat, [f.raw for f in session.play(bots[seat].choose_turn(view)).outgoing])

    after(Seat.JOINER, [f.raw for f in sessions[Seat.JOINER].start().outgoing])
    for _ in range(50_000):
        if not queue:
            break
        to, raw = queue.popleft()
        step = sessions[to].receive(raw)
        if step.evidence is not None:
            evidence.append(step.evidence.raw)
        after(to, [f.raw for f in step.outgoing])
        frame = wire.decode_frame(raw)
        if (
            equivocate
            and not twin_sent
            and to is Seat.HOST
            and isinstance(frame.message, wire.Ack)
            and frame.seq is not None
            and frame.seq > 20
        ):
            twin_sent = True
            twin = wire.make_frame(
                wire.Ack(key=hashing.position_scalar(rng.randbytes(32), 1)),
                keys[Seat.JOINER],
                seq=frame.seq,
                prev=frame.prev,
                game=frame.game,
            )
            step = sessions[Seat.HOST].receive(twin.raw)
            if step.evidence is not None:
                evidence.append(step.evidence.raw)
            after(Seat.HOST, [f.raw for f in step.outgoing])
    frames = tuple(f.raw for f in sessions[Seat.HOST].chain)
    return Match(frames, tuple(evidence), keys[Seat.HOST], Seat.JOINER if equivocate else None)


# ---------------------------------------------------------------- scenarios


Message = list[bytes]


class Scenario:
    """What the hostile host says: the honest answer, unless a subclass lies."""

    name: ClassVar[str] = "honest"
    drip: ClassVar[float] = 0.0
    """Seconds between two :meth:`tick` calls (0: never)."""
    ends: ClassVar[bool] = True
    """Whether an honest spectator sees the whole match (it can end VALID)."""

    def __init__(self, match: Match, rng: random.Random) -> None:
        self.match = match
        self.rng = rng
        self.evidence_sent = 0
        self.cut = rng.randrange(3, len(match.frames) - 1)
        """Where a scenario that lies from some frame on starts lying."""

    def honest(self, have: int, frames: tuple[bytes, ...] | None = None) -> list[Message]:
        """The §6.6 answer: evidence not yet sent, a window of frames, the host's sync."""
        frames = self.match.frames if frames is None else frames
        out: list[Message] = [
            [EVIDENCE_PART, raw] for raw in self.match.evidence[self.evidence_sent :]
        ]
        self.evidence_sent = len(self.match.evidence)
        out += [[raw] for raw in frames[have : have + WINDOW]]
        out.append([self.match.sync(len(frames))])
        return out

    def answer(self, have: int) -> list[Message]:
        return self.honest(have)

    def tick(self) -> list[Message]:
        return []

    def signed(self, message: wire.Message) -> bytes:
        return wire.make_frame(message, self.match.host_key, game=self.match.game).raw


class Silent(Scenario):
    name = "silent"
    ends = False

    def answer(self, have: int) -> list[Message]:
        return []


class Stall(Scenario):
    """Honest up to a frame, then a truthful ``sync`` forever, often."""

    name = "stall"
    drip = 0.05
    ends = False

    def answer(self, have: int) -> list[Message]:
        return self.honest(have, self.match.frames[: self.cut])

    def tick(self) -> list[Message]:
        return [[self.match.sync(self.cut)]]


class BadSignature(Scenario):
    """One frame with a broken signature, served forever in its place."""

    name = "bad-signature"
    ends = False

    def answer(self, have: int) -> list[Message]:
        raw = bytearray(self.match.frames[self.cut])
        raw[-1 - self.rng.randrange(64)] ^= 1 << self.rng.randrange(8)
        frames = (*self.match.frames[: self.cut], bytes(raw), *self.match.frames[self.cut + 1 :])
        return self.honest(have, frames)


class Claims(Scenario):
    """``sync`` frames that claim frames the host never sends, or lengths going backwards."""

    name = "claims"
    drip = 0.1
    ends = False

    def __init__(self, match: Match, rng: random.Random) -> None:
        super().__init__(match, rng)
        self.claimed = len(match.frames) + rng.randrange(1, 1000)
        self.backwards = rng.random() < 0.5

    def answer(self, have: int) -> list[Message]:
        out = self.honest(have, self.match.frames[: self.cut])[:-1]
        return [*out, [self.match.sync(self.claimed)]]

    def tick(self) -> list[Message]:
        if self.backwards:
            self.claimed = max(0, self.claimed - self.rng.randrange(1, 50))
        return [[self.match.sync(self.claimed)]]


class Reorder(Scenario):
    """Each window shuffled, with duplicates and old frames in it."""

    name = "reorder"
    ends = False

    def answer(self, have: int) -> list[Message]:
        out = self.honest(have)
        old = self.match.frames[: have + 1]
        out += [[self.rng.choice(old)] for _ in range(self.rng.randrange(0, 20))]
        self.rng.shuffle(out)
        return out


class OtherMatch(Scenario):
    """From some frame on, the frames of another match the host played."""

    name = "other-match"
    ends = False

    def __init__(self, match: Match, rng: random.Random) -> None:
        super().__init__(match, rng)
        self.other = play(rng.getrandbits(32))

    def answer(self, have: int) -> list[Message]:
        frames = (*self.match.frames[: self.cut], *self.other.frames[self.cut :])
        return self.honest(have, frames)


class EvidenceFirst(Scenario):
    """A match in which the joiner equivocated, served honestly: evidence first."""

    name = "evidence-first"

    def __init__(self, match: Match, rng: random.Random) -> None:
        super().__init__(play(rng.getrandbits(32), equivocate=True), rng)


class JunkEvidence(Scenario):
    """Evidence frames signed by random keys, on the transcript's history, by the thousand."""

    name = "junk-evidence"
    drip = 0.1

    def __init__(self, match: Match, rng: random.Random) -> None:
        super().__init__(match, rng)
        self.signers = [nacl.signing.SigningKey(rng.randbytes(32)) for _ in range(8)]

    def junk(self) -> bytes:
        frames = self.match.frames
        seq = self.rng.randrange(1, len(frames))
        message = wire.Ack(key=hashing.position_scalar(self.rng.randbytes(32), 1))
        signer = self.rng.choice(self.signers)
        prev = hashing.chain_hash(frames[seq - 1])
        return wire.make_frame(message, signer, seq=seq, prev=prev, game=self.match.game).raw

    def answer(self, have: int) -> list[Message]:
        flood = [[EVIDENCE_PART, self.junk()] for _ in range(self.rng.randrange(50, 400))]
        return [*flood, *self.honest(have)]

    def tick(self) -> list[Message]:
        return [[EVIDENCE_PART, self.junk()] for _ in range(20)]


class OwnEvidence(JunkEvidence):
    """Valid-looking evidence the host signs itself, about any position (it proves
    only against the host)."""

    name = "own-evidence"

    def junk(self) -> bytes:
        frames = self.match.frames
        seq = self.rng.randrange(1, len(frames))
        message = wire.Ack(key=hashing.position_scalar(self.rng.randbytes(32), 1))
        prev = hashing.chain_hash(frames[seq - 1])
        key = self.match.host_key
        return wire.make_frame(message, key, seq=seq, prev=prev, game=self.match.game).raw


class Drip(Scenario):
    """Honest up to a frame, then a slow drip of useless messages."""

    name = "drip"
    drip = 0.05
    ends = False

    def answer(self, have: int) -> list[Message]:
        return self.honest(have, self.match.frames[: self.cut])

    def tick(self) -> list[Message]:
        frames = self.match.frames
        kind = self.rng.randrange(5)
        if kind == 0:
            return [[self.rng.choice(frames[: self.cut])]]  # an old frame again
        if kind == 1:
            return [[self.signed(wire.Ping(n=self.rng.randrange(1000)))]]
        if kind == 2:
            return [[self.rng.randbytes(self.rng.randrange(0, 200))]]
        if kind == 3:
            return [[EVIDENCE_PART]]  # a marker with nothing after it
        ahead = min(len(frames) - 1, self.cut + self.rng.randrange(1, 5))
        return [[frames[ahead]]]  # a frame past a gap


class Malformed(Scenario):
    """Malformed, oversized and many-part messages among the honest ones (an
    oversized one makes ZeroMQ drop the connection: the match may never come whole)."""

    name = "malformed"
    ends = False

    def answer(self, have: int) -> list[Message]:
        junk: list[Message] = []
        for _ in range(self.rng.randrange(1, 6)):
            kind = self.rng.randrange(4)
            if kind == 0:
                junk.append([self.rng.randbytes(self.rng.randrange(1, 5000))])
            elif kind == 1:
                junk.append([bytes(70_000)])  # over the socket's message limit
            elif kind == 2:
                junk.append([b"x"] * self.rng.randrange(100, 3000))
            else:
                junk.append([EVIDENCE_PART, self.rng.randbytes(100), EVIDENCE_PART])
        out = self.honest(have)
        return [*junk, *out] if self.rng.random() < 0.5 else [*out, *junk]


class AfterEnd(Scenario):
    """The whole match, then frames that chain on after its end."""

    name = "after-end"

    def answer(self, have: int) -> list[Message]:
        frames = list(self.match.frames)
        for _ in range(self.rng.randrange(1, 400)):
            message = wire.Ack(key=bytes(32))
            frame = wire.make_frame(
                message,
                self.match.host_key,
                seq=len(frames),
                prev=hashing.chain_hash(frames[-1]),
                game=self.match.game,
            )
            frames.append(frame.raw)
        out = self.honest(have, tuple(frames))
        return [*out[:-1], [self.match.sync(len(self.match.frames))]]


class Busy(Scenario):
    """Turned away, mid-match, with a reason full of control characters."""

    name = "busy"
    ends = False

    def answer(self, have: int) -> list[Message]:
        if have < self.cut:
            return self.honest(have, self.match.frames[: self.cut])
        # A reason with control characters does not decode (§5.4), so it is
        # signed as raw fields; then one that does, which turns the spectator away.
        fields = {"t": "busy", "reason": "go away\x1b]0;pwned\x07\r\nlcnet: VALID"}
        body = msgpack.packb(dict(sorted({**fields, "game": NO_GAME}.items())), use_bin_type=True)
        raw = wire.sign_frame(body, self.match.host_key)
        return [[raw], [self.signed(wire.Busy(reason="full. lcnet: VALID match, exit 0"))]]


SCENARIOS: tuple[type[Scenario], ...] = (
    Scenario,
    Silent,
    Stall,
    BadSignature,
    Claims,
    Reorder,
    OtherMatch,
    EvidenceFirst,
    JunkEvidence,
    OwnEvidence,
    Drip,
    Malformed,
    AfterEnd,
    Busy,
)


# ------------------------------------------------------------------- the host


class HostileHost:
    """A ROUTER bound on 127.0.0.1 (an OS-chosen port) that answers every
    ``watch`` by its scenario, in a thread of its own, until closed."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.asks = 0
        self.sent = 0
        self._context = zmq.Context()
        self._sock = self._context.socket(zmq.ROUTER)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.setsockopt(zmq.SNDHWM, 100_000)
        self._sock.bind(f"tcp://{LOOPBACK}:0")
        endpoint = self._sock.getsockopt(zmq.LAST_ENDPOINT)
        assert isinstance(endpoint, bytes)
        self.port = int(endpoint.rsplit(b":", 1)[1])
        self.error: BaseException | None = None
        """What broke the hostile host itself (a bug of this helper, raised on exit)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hostile-host", daemon=True)

    def __enter__(self) -> HostileHost:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)
        self._sock.close(0)
        self._context.term()
        if self.error is not None:
            raise AssertionError(f"the hostile host failed: {self.error!r}") from self.error

    def _send(self, ident: bytes, messages: list[Message]) -> None:
        for parts in messages:
            try:
                self._sock.send_multipart([ident, *parts], flags=zmq.NOBLOCK)
                self.sent += 1
            except zmq.ZMQError:
                return  # the spectator does not read (or has gone): drop, as a host does

    def _run(self) -> None:
        try:
            self._serve()
        except Exception as exc:  # recorded, and raised when the host is closed
            self.error = exc

    def _serve(self) -> None:
        scenario = self.scenario
        ident: bytes | None = None
        next_tick = time.monotonic()
        while not self._stop.is_set():
            if self._sock.poll(20):
                parts = self._sock.recv_multipart()
                ident = parts[0]
                try:
                    frame = wire.decode_frame(parts[1])
                except (wire.MalformedFrame, IndexError):
                    continue
                if isinstance(frame.message, wire.Watch):
                    self.asks += 1
                    self._send(ident, scenario.answer(frame.message.have))
            if ident is not None and scenario.drip and time.monotonic() >= next_tick:
                next_tick = time.monotonic() + scenario.drip
                self._send(ident, scenario.tick())


# ------------------------------------------------------------------ the property


MAX_EXTRA_SECONDS = 30.0
"""How long past its timeout a spectator may take to end (it closes its
socket, writes its file and audits it): a generous bound, for a busy machine."""


@dataclass
class Run:
    """One spectator's run against a hostile host, as observed from outside."""

    scenario: str
    seconds: float
    timeout: float
    verdict: audit.Verdict | None
    path: Path | None
    lines: list[str] = field(default_factory=list)
    crashed: str | None = None
    exit_code: int | None = None


def check(run: Run, match: Match, *, max_evidence: int, after_end: int) -> list[str]:
    """What the run broke of the spectator's property, one line each."""
    problems: list[str] = []
    if run.crashed is not None:
        problems.append(f"crashed: {run.crashed}")
    if run.seconds > run.timeout + MAX_EXTRA_SECONDS:
        problems.append(f"took {run.seconds:.1f} s for a timeout of {run.timeout:g} s")
    for line in run.lines:
        if not line.isprintable():
            problems.append(f"unescaped text shown: {line!r}")
            break
    if run.verdict is not None and run.verdict.proves_a_fault:
        bad = run.verdict.bad
        assert bad is not None and bad.signer is not None
        if bad.signer.seat not in (Seat.HOST, match.cheater):
            problems.append(f"an honest player blamed: {run.verdict.summary}")
    if run.path is not None and run.path.exists():
        contents = read_replay(run.path)
        # The match, one frame that failed the check, the few that chain on a fault.
        if len(contents.frames) > len(match.frames) + 1 + after_end:
            problems.append(
                f"{len(contents.frames)} frames kept for a match of {len(match.frames)}"
            )
        if len(contents.evidence) > max_evidence:
            problems.append(f"{len(contents.evidence)} evidence records kept")
        limit = (len(match.frames) + 1 + after_end + max_evidence) * (wire.MAX_FRAME_BYTES + 64)
        if os.path.getsize(run.path) > limit + 4096:
            problems.append(f"the file has {os.path.getsize(run.path)} bytes")
        if run.verdict is not None and audit.audit_file(run.path).summary != run.verdict.summary:
            problems.append("the spectator's verdict is not its file's")
    return problems


def scenario_for(seed: int, match_for: Callable[[int], Match]) -> Scenario:
    """The scenario of a seed: its kind and its choices, drawn from it."""
    rng = random.Random(seed)
    kind = SCENARIOS[seed % len(SCENARIOS)]
    return kind(match_for(rng.getrandbits(32)), rng)
