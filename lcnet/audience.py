"""A host's spectators: who may watch, and what each is sent (sans-IO).

A spectator asks with a ``watch`` control frame signed by its own key
(docs/PROTOCOL.md §6.6). The host answers a window of the transcript from
the frame the spectator says it has, ends the window with its own ``sync``
(how many frames the host holds, so the spectator knows whether to ask
again), and from the moment a window reaches the head forwards what it
writes to its replay file, one message per step: any evidence frame (after
a part ``evidence``), the peer's frame, its own.

The match never waits for a spectator. Every send is non-blocking, a send
that fails drops the spectator, and so does a spectator that falls more than
:data:`MAX_UNACKED` frames behind what it said it has: it may come back and
catch up from what it holds. A spectator sends nothing that changes the
match: the host reads nothing from it but ``watch``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import nacl.signing

from lcnet import hashing, wire
from lcnet.events import Step
from lcnet.session import Session

DEFAULT_SPECTATORS: Final = 8
"""How many may watch one match unless the host says otherwise (``--spectators``)."""

MAX_SPECTATORS: Final = 64

WINDOW: Final = 64
"""Transcript frames answered to one ``watch`` (the spectator asks again for more)."""

SERVE_INTERVAL: Final = 0.2
"""Seconds between two answers to one spectator: a flood of ``watch`` frames
costs the host at most one window per interval."""

SPECTATOR_GRACE: Final = 5.0
"""Seconds a host that has ended its match still answers spectators that are
behind, so that they get the end too (it waits no longer, and not during play)."""

MAX_UNACKED: Final = 256
"""Frames a spectator may be sent beyond what its last ``watch`` said it has."""

EVIDENCE_PART: Final = b"evidence"
"""The part before an evidence frame in a message to a spectator."""

NO_GAME: Final = bytes(wire.HASH_SIZE)
"""The game id of a control frame sent before any match exists (``busy``,
a spectator's first ``watch``, the host's answer to it)."""

NO_SPECTATORS_REASON: Final = "this host takes no spectators (lcnet host --spectators 0)"
NOT_THIS_MATCH_REASON: Final = "this host is not playing that match (it plays another, or none)"
BAD_WATCH_SIGNATURE_REASON: Final = (
    "that watch's signature does not verify with the key it presents"
)


def full_reason(limit: int) -> str:
    return f"this match already has the {limit} spectators its host allows"


@dataclass
class Watcher:
    name: str
    key: bytes
    acked: int = 0
    """Transcript frames the spectator said it has (its last ``watch``)."""
    live: bool = False
    """A window reached the head: every new frame is forwarded to it."""
    served_at: float = -math.inf
    served_have: int = -1
    """The ``have`` of the last request answered."""
    evidence_sent: int = 0


Send = Callable[[bytes, list[bytes]], bool]
"""Send the parts to a connection (by its ZeroMQ identity) without waiting;
``False`` if it could not go now."""


class Audience:
    """The spectators of one host's match."""

    def __init__(
        self,
        limit: int,
        send: Send,
        on_change: Callable[[], None],
        signing_key: nacl.signing.SigningKey,
    ) -> None:
        if not 0 <= limit <= MAX_SPECTATORS:
            raise ValueError(f"spectators: 0 to {MAX_SPECTATORS}, not {limit}")
        self.limit = limit
        self._send = send
        self._on_change = on_change
        self._signing_key = signing_key
        self._watchers: dict[bytes, Watcher] = {}
        self.evidence: list[bytes] = []
        """Every evidence frame of the match so far, for a spectator that arrives late."""
        self.dropped = 0
        """Spectators dropped because a send failed or they fell too far behind."""

    @property
    def watchers(self) -> tuple[tuple[str, str], ...]:
        """Who watches now: (name, key fingerprint), in the order they came."""
        return tuple((w.name, hashing.fingerprint(w.key)) for w in self._watchers.values())

    def watching(self) -> wire.Watching:
        """Who watches, for the opponent's screen (a ``watching`` control frame)."""
        listed = list(self._watchers.values())[: wire.MAX_LISTED_WATCHERS]
        return wire.Watching(count=len(self._watchers), watchers=[[w.name, w.key] for w in listed])

    def behind(self, frames: int) -> bool:
        """Whether a spectator has said it holds fewer than ``frames`` frames."""
        return any(w.acked < frames for w in self._watchers.values())

    def request(self, ident: bytes, frame: wire.Frame, session: Session, now: float) -> str | None:
        """A ``watch`` from connection ``ident``: answer it, or say why not (the
        reason for a ``busy`` frame); ``None`` also for a request too soon
        after the last one answered (it only updates what the spectator has)."""
        message = frame.message
        assert isinstance(message, wire.Watch)
        refusal = self._refusal(ident, frame, session)
        if refusal is not None:
            return refusal
        watcher = self._watchers.get(ident)
        if watcher is None:
            watcher = self._watchers[ident] = Watcher(message.name, message.key)
            self._on_change()
        previous, watcher.acked = watcher.acked, message.have
        if watcher.live and message.have > previous:
            return None  # it reads on: what it lacks is on its way (asked again if lost)
        if now - watcher.served_at < SERVE_INTERVAL and message.have <= watcher.served_have:
            return None  # a repeat within the interval (a spectator that got more may ask)
        watcher.served_at, watcher.served_have = now, message.have
        sends = [[EVIDENCE_PART, raw] for raw in self.evidence[watcher.evidence_sent :]]
        watcher.evidence_sent = len(self.evidence)
        chain = session.chain
        end = min(message.have + WINDOW, len(chain))
        sends.extend([chain[seq].raw] for seq in range(message.have, end))
        watcher.live = end == len(chain)
        # The window ends with how far the host is (before the match: 0 frames).
        head, game = session.head, session.game_id
        sync = wire.Sync(have=len(chain), head=head or NO_GAME)
        sends.append([wire.make_frame(sync, self._signing_key, game=game or NO_GAME).raw])
        for parts in sends:
            if not self._send(ident, parts):
                self._drop(ident)
                break
        return None

    def _refusal(self, ident: bytes, frame: wire.Frame, session: Session) -> str | None:
        message = frame.message
        assert isinstance(message, wire.Watch)
        if message.v[0] != wire.PROTOCOL_VERSION[0]:
            major, minor = wire.PROTOCOL_VERSION
            return (
                f"incompatible protocol version {message.v[0]}.{message.v[1]} "
                f"(this host speaks {major}.{minor})"
            )
        if not frame.signed_by(message.key):
            return BAD_WATCH_SIGNATURE_REASON
        if frame.game != NO_GAME and frame.game != session.game_id:
            return NOT_THIS_MATCH_REASON
        if self.limit == 0:
            return NO_SPECTATORS_REASON
        if ident not in self._watchers and len(self._watchers) >= self.limit:
            return full_reason(self.limit)
        return None

    def forward(self, step: Step, frames: int) -> None:
        """Send what the host just wrote to its file to every live spectator;
        ``frames`` is the transcript's length after the step."""
        if step.evidence is not None:
            self.evidence.append(step.evidence.raw)  # kept for a spectator yet to come
        if not self._watchers:
            return  # nobody watches (a joiner, a host without spectators): no work a step
        parts: list[bytes] = []
        if step.evidence is not None:
            parts += [EVIDENCE_PART, step.evidence.raw]
        if step.accepted is not None:
            parts.append(step.accepted.raw)
        parts.extend(frame.raw for frame in step.outgoing)
        if not parts:
            return
        for ident, watcher in list(self._watchers.items()):
            if not watcher.live:
                continue  # catching up: it is sent what it asks for
            if frames - watcher.acked > MAX_UNACKED:
                self._drop(ident)  # it stopped reading, or reads too slowly
                continue
            if self._send(ident, parts):  # one message for the whole step
                watcher.evidence_sent = len(self.evidence)
            else:
                self._drop(ident)

    def _drop(self, ident: bytes) -> None:
        if self._watchers.pop(ident, None) is not None:
            self.dropped += 1
            self._on_change()

    def reset(self) -> None:
        """A new match (the host gave up an opening): nobody watches it yet."""
        if self._watchers:
            self._watchers.clear()
            self._on_change()
        self.evidence.clear()
