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

A place is kept only by asking (a connection that sent one ``watch`` and
reads nothing, or has gone, must not hold it). A connection's first ``watch``
is answered, but takes no place: it is *on trial* until it asks again, which
a spectator that reads does within about a second (it asks whenever nothing
comes for a second). Trials never make the host full, so connections that
ask once and never again cannot keep a spectator out; a trial with no second
``watch`` within :data:`PROOF_TIME` is forgotten, and so is the oldest when
more than :data:`MAX_TRIALS` wait. A spectator with a place is sent what the
host writes only while it keeps asking (:data:`LIVE_TIMEOUT`: one that reads
then finds silence and asks), and loses its place after
:data:`PLACE_TIMEOUT` without a ``watch``.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import nacl.signing

from lcnet.deck import hashing
from lcnet.errors import LocalProtocolError, SessionFailed
from lcnet.protocol import wire
from lcnet.protocol.events import Step
from lcnet.protocol.session import Session
from lcnet.protocol.status import Status

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

PROOF_TIME: Final = 3.0
"""Seconds a connection's first ``watch`` is remembered without a second one.
A spectator that reads asks again about a second after the host's answer
(lcnet.watch.spectator.ASK_INTERVAL), since the answer is followed by silence: a
trial is never sent frames as they are written."""

MAX_TRIALS: Final = 4 * MAX_SPECTATORS
"""Connections on trial at once; beyond it, the oldest is forgotten. It bounds
the memory a flood of one-``watch`` connections costs, and an honest newcomer
is pushed out only by this many newer ones within its first second."""

LIVE_TIMEOUT: Final = 4.0
"""Seconds after its last ``watch`` a spectator is still sent each frame as the
host writes it. A spectator kept busy by frames may not ask for a while
(every lcnet.watch.spectator.ACK_EVERY frames); paused, it finds silence and asks
within a second, and gets what it missed."""

PLACE_TIMEOUT: Final = 10.0
"""Seconds without a ``watch`` after which a spectator loses its place (gone,
or not reading). A reading spectator asks at most LIVE_TIMEOUT plus a second
after its last ``watch``."""

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


RECENT_LINES: Final = 16
"""The players' last lines (``say``, ``bye``) an answer repeats to a spectator."""

MAX_LISTED_TRIALS: Final = 8
"""Connections on trial shown with those who watch (a flood is not a list)."""


def full_reason(limit: int) -> str:
    spectators = "spectator" if limit == 1 else "spectators"
    return f"this match already has the {limit} {spectators} its host allows"


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
    asked_at: float = -math.inf
    """When its last ``watch`` came."""
    proven: bool = False
    """It asked again after its first ``watch``: it holds a place (else on trial)."""


@dataclass(frozen=True)
class _Before:
    """The match a host played before this one on the same socket (a rematch)."""

    game: bytes
    chain: list[wire.Frame]
    news: list[bytes]
    """Its standing news: the players' ``rematch`` frames, which say they agreed."""


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
        self.standing: list[bytes] = []
        """Advisory frames every answer repeats (the players' ``rematch`` frames,
        and this host's ``opponent`` frame while its opponent is away), so that a
        spectator that missed them as they came learns them when it asks."""
        self._opponent_away: bytes | None = None
        self._recent: collections.deque[bytes] = collections.deque(maxlen=RECENT_LINES)
        """The players' last lines and leaves (``say``, ``bye``), repeated like
        :attr:`standing`, so that a spectator that was catching up sees them too."""
        self._previous: _Before | None = None
        """The match before this one on the same socket (a rematch), for a
        spectator still asking about it."""

    @property
    def watchers(self) -> tuple[tuple[str, str], ...]:
        """Who watches now: (name, key fingerprint), those with a place in the
        order they came, then those on trial (at most :data:`MAX_LISTED_TRIALS`)."""
        return tuple((w.name, hashing.fingerprint(w.key)) for w in self._listed())

    def _listed(self) -> list[Watcher]:
        placed = [w for w in self._watchers.values() if w.proven]
        trials = [w for w in self._watchers.values() if not w.proven]
        return placed + trials[:MAX_LISTED_TRIALS]

    @property
    def placed(self) -> int:
        """Spectators holding a place (not on trial)."""
        return sum(w.proven for w in self._watchers.values())

    def watching(self) -> wire.Watching:
        """Who holds a place, for the opponent's screen (a ``watching`` control frame)."""
        placed = [w for w in self._watchers.values() if w.proven]
        listed = placed[: wire.MAX_LISTED_WATCHERS]
        return wire.Watching(count=len(placed), watchers=[[w.name, w.key] for w in listed])

    def behind(self, frames: int) -> bool:
        """Whether a spectator has said it holds fewer than ``frames`` frames.

        Those on trial count too: a match between bots can end before a new
        spectator's second ``watch`` (about a second after its first answer),
        and the host must still be there to answer it (for at most
        :data:`SPECTATOR_GRACE`; a trial is forgotten after :data:`PROOF_TIME`)."""
        return any(w.acked < frames for w in self._watchers.values())

    def expire(self, now: float) -> None:
        """Forget trials past :data:`PROOF_TIME` and places past :data:`PLACE_TIMEOUT`."""
        for ident, w in list(self._watchers.items()):
            silent = now - w.asked_at
            if silent > PLACE_TIMEOUT or (not w.proven and silent > PROOF_TIME):
                self._drop(ident)

    def request(self, ident: bytes, frame: wire.Frame, session: Session, now: float) -> str | None:
        """A ``watch`` from connection ``ident``: answer it, or say why not (the
        reason for a ``busy`` frame); ``None`` also for a request too soon
        after the last one answered (it only updates what the spectator has)."""
        message = frame.message
        assert isinstance(message, wire.Watch)
        refusal = self._refusal(ident, frame, session)
        if refusal is not None:
            return refusal
        self.expire(now)
        watcher = self._watchers.get(ident)
        if watcher is None:
            self._make_trial_room()
            watcher = self._watchers[ident] = Watcher(message.name, message.key)
        elif not watcher.proven:
            if self.placed >= self.limit:
                self._drop(ident)
                return full_reason(self.limit)
            watcher.proven = True
            self._on_change()
        watcher.asked_at = now
        # A spectator of the match before (a rematch) is answered from that match.
        before = self._previous if self._previous and frame.game == self._previous.game else None
        # What it holds of this match: none yet while it still asks about the one before.
        previous, watcher.acked = watcher.acked, message.have if before is None else 0
        if watcher.live and message.have > previous and before is None:
            return None  # it reads on: what it lacks is on its way (asked again if lost)
        if now - watcher.served_at < SERVE_INTERVAL and message.have <= watcher.served_have:
            return None  # a repeat within the interval (a spectator that got more may ask)
        watcher.served_at, watcher.served_have = now, message.have
        sends: list[list[bytes]] = []
        if before is None:
            sends = [[EVIDENCE_PART, raw] for raw in self.evidence[watcher.evidence_sent :]]
            watcher.evidence_sent = len(self.evidence)
        chain = session.chain if before is None else before.chain
        end = min(message.have + WINDOW, len(chain))
        sends.extend([chain[seq].raw] for seq in range(message.have, end))
        # A trial is answered, never sent frames as they come: after the answer,
        # silence, and a spectator that reads asks again (it then has a place).
        watcher.live = end == len(chain) and watcher.proven and before is None
        # The window ends with how far the host is (before the match: 0 frames).
        head = chain[-1].hash if chain else NO_GAME
        game = (session.game_id if before is None else before.game) or NO_GAME
        sync = wire.Sync(have=len(chain), head=head)
        sends.append([wire.make_frame(sync, self._signing_key, game=game).raw])
        if end == len(chain):  # news after the frames it follows (a rematch after the end)
            sends.extend([raw] for raw in (self._news() if before is None else before.news))
        for parts in sends:
            if not self._send(ident, parts):
                self._drop(ident)
                break
        return None

    def _news(self) -> list[bytes]:
        away = [self._opponent_away] if self._opponent_away else []
        # The lines first: a rematch "no" ends a spectator's watch, and what
        # comes after it may go unread.
        return [*self._recent, *self.standing, *away]

    def tell(self, raw: bytes, now: float, *, standing: bool = False) -> None:
        """Send an advisory control frame of the match (a player's ``bye``,
        ``say`` or ``rematch``) to every live spectator (it has every frame
        before it); ``standing``: every later answer that reaches the head
        repeats it too."""
        if standing:
            self.standing.append(raw)
        for ident, watcher in list(self._watchers.items()):
            if not watcher.live or now - watcher.asked_at > LIVE_TIMEOUT:
                continue  # catching up, on trial or not asking: it learns what stands when it asks
            if not self._send(ident, [raw]):
                self._drop(ident)

    def pass_on(self, message: wire.Message, raw: bytes, now: float) -> None:
        """A control frame a player sent or received: its spectators are told a
        ``bye``, a ``say`` and a ``rematch`` (which every later answer repeats)."""
        if isinstance(message, wire.Bye | wire.Say):
            self._recent.append(raw)  # a spectator not live now sees it when it catches up
            self.tell(raw, now)
        elif isinstance(message, wire.Rematch):
            self.tell(raw, now, standing=True)

    def status(
        self, status: Status, sign: Callable[[wire.Message], wire.Frame], now: float
    ) -> None:
        """The host's status changed: its opponent's connection is gone (or, to a
        resumed host, not back yet), or it plays again (see :meth:`opponent`)."""
        if status in (Status.DISCONNECTED, Status.WAITING_FOR_PEER):
            self.opponent(False, sign, now)
        elif status is Status.PLAYING:
            self.opponent(True, sign, now)

    def opponent(self, here: bool, sign: Callable[[wire.Message], wire.Frame], now: float) -> None:
        """Tell the spectators, in an ``opponent`` frame (made with ``sign``),
        when the host's opponent goes quiet or away, and when it is back, once
        each way. Answers repeat it while the opponent is away."""
        if self.limit == 0:
            return  # no spectators (a joiner's side, or a host that takes none)
        if here == (self._opponent_away is None):
            return  # as the spectators were told
        try:
            raw = sign(wire.Opponent(here=here)).raw
        except (LocalProtocolError, SessionFailed):
            return  # no match to speak of yet, or this side stopped
        self._opponent_away = None if here else raw
        self.tell(raw, now)

    def next_match(self, finished: Session, on_change: Callable[[], None]) -> Audience:
        """The agreed rematch on the same socket: the same spectators keep their
        places (they follow it from its first frame), ``on_change`` tells the
        new match's peer; a spectator still asking about the ``finished``
        match is answered from it, and so learns that the players agreed."""
        self._on_change = on_change
        if finished.game_id is not None:
            self._previous = _Before(finished.game_id, finished.chain, list(self.standing))
        self.standing, self._opponent_away = [], None
        self._recent.clear()
        self.evidence.clear()
        for watcher in self._watchers.values():
            watcher.acked, watcher.live, watcher.evidence_sent = 0, False, 0
            watcher.served_at, watcher.served_have = -math.inf, -1
        return self

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
        before = self._previous.game if self._previous is not None else None
        if frame.game not in (NO_GAME, session.game_id, before):
            return NOT_THIS_MATCH_REASON
        if self.limit == 0:
            return NO_SPECTATORS_REASON
        if ident not in self._watchers and self.placed >= self.limit:
            return full_reason(self.limit)
        return None

    def _make_trial_room(self) -> None:
        trials = [ident for ident, w in self._watchers.items() if not w.proven]
        for ident in trials[: max(0, len(trials) - MAX_TRIALS + 1)]:
            self._drop(ident)  # the oldest trials

    def forward(self, step: Step, frames: int, now: float) -> None:
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
            if watcher.live and now - watcher.asked_at > LIVE_TIMEOUT:
                watcher.live = False  # paused: if it reads, it finds silence and asks
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
        watcher = self._watchers.pop(ident, None)
        if watcher is not None:
            self.dropped += 1
            if watcher.proven:
                self._on_change()

    def reset(self) -> None:
        """A new match (the host gave up an opening): nobody watches it yet."""
        if self._watchers:
            placed = self.placed
            self._watchers.clear()
            if placed:
                self._on_change()
        self.evidence.clear()
        self.standing, self._opponent_away = [], None
        self._recent.clear()
