"""The protocol session: a sans-IO state machine for one match's signed transcript.

One :class:`Session` per peer: it says who may speak next, checks every frame
the other peer sends before anything changes (signature, chain, game id,
turn, schema, the rules engine, the masked deck), and builds this peer's own
frames — automatically where the protocol leaves no choice (passes, keys,
acknowledgements, reveals, results) and from a decision otherwise
(:meth:`Session.play`, :meth:`Session.resign`). The same class, created with
:meth:`Session.observer`, has no secrets and checks a finished or unfinished
transcript from the outside: that is what ``lcnet audit`` and ``lcnet
replay`` run, so they execute the very code of the live game.

No sockets, files or clocks: frames are bytes in, :class:`Step` results out.
The caller writes every frame the session returns to its replay file before
sending it (docs/PROTOCOL.md §6 has the state machine as a table).

A frame the peer signed but that breaks the protocol moves the session to a
terminal error with a :class:`DisputeInfo` (fail closed), and the session
answers with a signed ``dispute`` frame. Bytes that do not decode or do not
verify are dropped and counted; they never change anything.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, NamedTuple, TypeAlias

import nacl.signing

from lcnet import deal, evidence, group, hashing, wire
from lcnet.cards import ALL_CARDS, Card, deck_size
from lcnet.deckcheck import ObserverDeck, PlayerDeck, RoundTrack
from lcnet.engine import DRAWS, PUT_DOWNS, Match, Outcome, Round, Turn, View
from lcnet.errors import (
    IllegalMoveError,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    Violation,
)
from lcnet.errors import SessionFailed as SessionFailed  # re-exported: where it always was
from lcnet.events import (
    ControlReceived,
    DisputeInfo,
    DisputeRaised,
    DuplicateIgnored,
    FrameDropped,
    FrameGap,
    MatchEnded,
    MatchOptions,
    MatchStarted,
    PeerIdentified,
    RoundStarted,
    RoundVerified,
    Step,
    TurnPlayed,
)
from lcnet.seat import Seat

# ------------------------------------------------------------------ phases


class Phase(enum.Enum):
    """Where the transcript stands: the kind of frame that comes next."""

    HELLO = "hello"
    WELCOME = "welcome"
    COIN = "coin"
    COMMIT_HOST = "host's seed commitment"
    COMMIT_JOINER = "joiner's seed commitment"
    PASS_1 = "deck pass 1"
    PASS_2 = "deck pass 2"
    PASS_3 = "deck pass 3"
    PASS_4 = "deck pass 4"
    KEYS_JOINER = "joiner's dealing keys"
    KEYS_HOST = "host's dealing keys"
    MOVE = "move"
    ACK = "acknowledgement"
    REVEAL_HOST = "host's seed reveal"
    REVEAL_JOINER = "joiner's seed reveal"
    RESULT_HOST = "host's result"
    RESULT_JOINER = "joiner's countersigned result"
    OVER = "over"


_OPENING: Final = frozenset(
    {
        Phase.HELLO,
        Phase.WELCOME,
        Phase.COIN,
        Phase.COMMIT_HOST,
        Phase.COMMIT_JOINER,
        Phase.PASS_1,
        Phase.PASS_2,
        Phase.PASS_3,
        Phase.PASS_4,
        Phase.KEYS_JOINER,
        Phase.KEYS_HOST,
    }
)
"""The phases of a deal: before the first move, the match's opening."""


Handler: TypeAlias = Callable[["Session", wire.Frame, Seat, Step], "Phase | None"]
"""A :class:`Session` method that applies one frame of the transcript."""


@dataclass(frozen=True, slots=True)
class Transition:
    """One row of the state machine: who speaks in a phase, what, and what follows.

    ``speaker`` is ``None`` where the round decides: the player to move in
    MOVE, the other player in ACK. ``handler`` is the :class:`Session`
    method that applies the frame (called with the session, the frame, its
    author and the step); it returns the next phase when the row has more
    than one ``successors`` (the game decides), else ``None``.
    """

    speaker: Seat | None
    expects: type[wire.Message] | None
    handler: Handler | None
    successors: tuple[Phase, ...]
    pass_number: int | None = None


_SEATS: Final = (Seat.HOST, Seat.JOINER)
"""Seat by number, without an enum lookup (asked for several times per frame)."""

# Messages that need a decision of the local player; every other one of this
# peer's frames is built by the session itself.
_DECIDED: Final = frozenset({wire.MoveMsg, wire.Resign, wire.Dispute})


class FrameHeader(NamedTuple):
    """Where a transcript frame stands: its position, the previous frame's hash, the game."""

    seq: int
    prev: bytes | None
    game: bytes | None


# ------------------------------------------------------------------ session


class Session:
    """One side of a match (or an observer of one), frame by frame."""

    def __init__(
        self,
        *,
        seat: Seat | None,
        signing_key: nacl.signing.SigningKey | None,
        master_secret: bytes | None,
        name: str = "",
        options: MatchOptions | None = None,
    ) -> None:
        if seat is not None and (signing_key is None or master_secret is None):
            raise LocalProtocolError("a playing session needs its signing key and master secret")
        if seat is Seat.HOST and options is None:
            options = MatchOptions()
        self.seat = seat
        self._signing_key = signing_key
        self._master = master_secret
        self._local_name = name
        self._host_options = options
        self.options: MatchOptions | None = options if seat is Seat.HOST else None
        self.names: dict[Seat, str] = {}
        self.keys: dict[Seat, bytes] = {}
        self.minors: dict[Seat, int] = {}
        """The minor protocol version each player announced (PROTOCOL §5.5): a
        signer's own announcement decides which fields its frames may carry."""
        self.phase = Phase.HELLO
        self.chain: list[wire.Frame] = []
        self.speakers: list[Seat | None] = []
        """Who the phase let speak at each position of ``chain`` (``None``: no
        one, the position after a violation). Whose position it was is decided
        by the phase, never by the frame a player chose to put there (§6.4)."""
        self.game_id: bytes | None = None
        self.match: Match | None = None
        self.first_starter: Seat | None = None
        self.round: RoundTrack | None = None
        self.rounds_verified: list[deal.RoundDeck] = []
        self._coin_commitment: bytes | None = None
        self._host_nonce: bytes | None = None
        self.outcome: Outcome | None = None
        self.resigned: Seat | None = None
        self.sealed = False
        self.dispute: DisputeInfo | None = None
        self.dropped = 0
        self.failure: str | None = None
        """Why this program failed (see :class:`SessionFailed`); the session then refuses all."""
        self._restoring = False
        if seat is not None:
            assert signing_key is not None
            self.keys[seat] = bytes(signing_key.verify_key)
            self.names[seat] = name

    # -- construction

    @classmethod
    def host(
        cls,
        signing_key: nacl.signing.SigningKey,
        master_secret: bytes,
        *,
        name: str,
        options: MatchOptions | None = None,
    ) -> Session:
        return cls(
            seat=Seat.HOST,
            signing_key=signing_key,
            master_secret=master_secret,
            name=name,
            options=options or MatchOptions(),
        )

    @classmethod
    def joiner(
        cls, signing_key: nacl.signing.SigningKey, master_secret: bytes, *, name: str
    ) -> Session:
        return cls(
            seat=Seat.JOINER, signing_key=signing_key, master_secret=master_secret, name=name
        )

    @classmethod
    def observer(cls) -> Session:
        """A session with no seat and no secrets, for audit and replay."""
        return cls(seat=None, signing_key=None, master_secret=None)

    @classmethod
    def resume(
        cls,
        seat: Seat,
        signing_key: nacl.signing.SigningKey,
        master_secret: bytes,
        frames: Sequence[bytes],
        *,
        name: str,
        options: MatchOptions | None = None,
    ) -> tuple[Session, Step]:
        """Rebuild a session from its replay file's frames.

        Every frame is checked again as if it arrived now; this peer's own
        frames must be exactly what the session would build. The returned
        step holds the frames now due from this peer (built, not yet sent).
        """
        session = cls(
            seat=seat,
            signing_key=signing_key,
            master_secret=master_secret,
            name=name,
            options=options,
        )
        session._restoring = True
        try:
            for raw in frames:
                session._restore_frame(raw)
        finally:
            session._restoring = False
        step = Step()
        if session.phase is not Phase.OVER:
            session._auto(step)
        return session, step

    # -- state queries

    @property
    def opening(self) -> bool:
        """Whether the match's first deal is still being made (no move played yet)."""
        return self.phase in _OPENING and self.round_number <= 1

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def speaker(self) -> Seat | None:
        """Who is entitled to the next transcript frame (``None`` when over)."""
        if self.phase is Phase.OVER:
            return None
        fixed = TABLE[self.phase].speaker
        if fixed is not None:
            return fixed
        assert self.round is not None
        if self.phase is Phase.MOVE:
            assert self.round.table is not None
            return _SEATS[self.round.table.to_move]
        assert self.round.pending is not None
        return self.round.pending[0].other

    @property
    def awaiting_decision(self) -> bool:
        """Whether this peer must now choose a move (:meth:`play`) or resign."""
        return self.phase is Phase.MOVE and self.speaker is self.seat and self.failure is None

    @property
    def head(self) -> bytes | None:
        """The chain hash of the last transcript frame."""
        return self.chain[-1].hash if self.chain else None

    @property
    def next_seq(self) -> int:
        return len(self.chain)

    @property
    def round_number(self) -> int:
        return self.round.number if self.round else 0

    def view(self) -> View | None:
        """What this peer knows of the current round (``None`` outside a round)."""
        if self.seat is None or self.round is None or self.round.table is None:
            return None
        return self.round.table.view(int(self.seat))

    def owed(self) -> str:
        """Who owes the next frame and what it is, in words."""
        if self.phase is Phase.OVER:
            return "nothing: the match is over"
        speaker = self.speaker
        who = self.names.get(speaker, str(speaker)) if speaker is not None else "?"
        what = self.phase.value
        if self.round is not None and self.phase is not Phase.MOVE:
            what += f" (round {self.round.number})"
        elif self.round is not None:
            what = f"a move (round {self.round.number}, turn {len(self.round.turns) + 1})"
        return f"the {speaker} ({who}) owes {what}"

    # -- starting, deciding

    def start(self) -> Step:
        """The joiner's opening frame (the host starts by receiving it)."""
        self._require_working()
        step = Step()
        if self.seat is Seat.JOINER and not self.chain:
            with self._failing_closed("building the opening frame"):
                self._auto(step)
        return step

    def play(self, turn: Turn) -> Step:
        """Make ``turn`` as this peer's move (checked; raises IllegalMoveError)."""
        self._require_working()
        if not self.awaiting_decision:
            raise LocalProtocolError("it is not this peer's move")
        assert self.round is not None and self.round.table is not None
        # The engine checks the turn on a copy, and says precisely why an
        # illegal one is illegal (IllegalMoveError).
        self.round.table.copy().push_turn(turn, int(self.seat))  # type: ignore[arg-type]
        step = Step()
        with self._failing_closed("building this player's move"):
            self.emit(self._build_move(turn), step)
            self._auto(step)
        return step

    def resign(self) -> Step:
        """Give up the match (allowed when this peer may speak)."""
        self._require_working()
        if self.phase is Phase.OVER or self.speaker is not self.seat:
            raise LocalProtocolError("a resignation is sent when this peer may speak")
        step = Step()
        with self._failing_closed("building a resignation"):
            self.emit(wire.Resign(), step)
        return step

    def control(self, message: wire.Message) -> wire.Frame:
        """A signed control frame (sync, ping, pong) for this match."""
        self._require_working()
        if not message.CONTROL or self.game_id is None or self._signing_key is None:
            raise LocalProtocolError("control frames need a game id and a signing key")
        return wire.make_frame(message, self._signing_key, game=self.game_id)

    # -- receiving

    def receive(self, raw: bytes) -> Step:
        """Take one frame from the peer: check it, apply it, answer it."""
        self._require_working()
        try:
            frame = self.decode(raw)
        except wire.MalformedFrame as exc:
            return self._drop(Step(), str(exc))
        return self.receive_frame(frame)

    def decode(self, raw: bytes) -> wire.Frame:
        """A frame from the peer, decoded by the one rule of §5.5: fields this
        version does not know only from a peer that announced a newer minor
        version. An observer does not know the signer before it checks the
        signature, so it decodes leniently and holds the frame to its signer's
        version once the signature names the signer (:meth:`receive_frame`).
        Raises :class:`wire.MalformedFrame` (:class:`wire.IncompatibleVersion`)."""
        lenient = self.seat is None or self._allow_unknown()
        return wire.decode_frame(raw, allow_unknown_fields=lenient)

    def receive_frame(self, frame: wire.Frame) -> Step:
        """Like :meth:`receive`, for a frame the caller has already decoded.

        Raises :class:`SessionFailed` if this program fails while handling it
        (nothing is signed then, and the session refuses everything after).
        """
        self._require_working()
        step = Step()
        if frame.message.CONTROL:  # still useful after the end: the last syncs
            return self._receive_control(frame, step)
        if self.phase is Phase.OVER:  # fail closed: nothing changes any more
            seq = frame.seq
            if seq is not None and seq < len(self.chain) and frame.raw == self.chain[seq].raw:
                step.events.append(DuplicateIgnored(seq))
                return step
            return self._drop(step, "the match is over")
        assert frame.seq is not None
        if frame.seq < len(self.chain):
            return self._receive_old(frame, step)
        if frame.seq > len(self.chain):
            step.events.append(FrameGap(len(self.chain), frame.seq))
            return step
        author = self._author_of(frame)
        if author is None:
            return self._drop(step, "the frame's signature does not verify")
        newer = self.unannounced_fields(frame, author)
        if newer is not None:
            return self._drop(step, newer)
        off_chain = self._off_chain(frame)
        if off_chain is not None:
            # Signed, but it does not extend this transcript. That shows only that
            # its signer saw another history (a replayed or stale frame, or a fork
            # made by either side), not who is to blame: refuse it, prove nothing.
            return self._drop(step, off_chain)
        with self._failing_closed(f"handling frame {frame.seq}"):
            self._push(frame)
            step.accepted = frame
            try:
                self._apply(frame, author, step)
            except (Violation, deal.DeckProtocolError) as exc:
                violation = self._as_violation(exc, frame)
                if not self._proven_against_peer(violation.seat):
                    raise
                self._fail(self._earliest(violation, frame), frame, step, in_chain=True)
                return step
            if self.seat is not None and not self.is_over and not self._restoring:
                self._auto(step)
        return step

    def _as_violation(
        self, exc: Violation | deal.DeckProtocolError, frame: wire.Frame
    ) -> Violation:
        if isinstance(exc, Violation):
            return exc
        return Violation(str(exc), seat=exc.seat, seq=self._seq_of_deck_item(exc, frame))

    def _earliest(self, violation: Violation, frame: wire.Frame) -> Violation:
        """The first bad frame in transcript order: an observer's postponed
        checks of earlier frames come first (PROTOCOL §6.4), so that its verdict
        is the one of an auditor that checks everything at once."""
        track = self.round
        if self.seat is not None or track is None:
            return violation
        try:
            track.deck.run_deferred()
        except (Violation, deal.DeckProtocolError) as exc:
            earlier = self._as_violation(exc, frame)
            if (
                earlier.seq is not None
                and violation.seq is not None
                and earlier.seq < violation.seq
            ):
                return earlier
        return violation

    def abandon(self, step: Step, reason: str) -> None:
        """The caller could not record ``step`` (its replay file refused the
        write): forget the step's frames and stop for good, as for a fault of
        this program, so that nothing unrecorded is ever sent or sent again."""
        frames = [*([step.accepted] if step.accepted is not None else []), *step.outgoing]
        if frames and self.chain[-len(frames) :] == frames:
            self._cut(len(self.chain) - len(frames))
        self.failure = reason

    def _proven_against_peer(self, offender: Seat) -> bool:
        """Whether a fault found is the other player's (an observer judges both)."""
        return self.seat is None or offender is not self.seat

    def _require_working(self) -> None:
        if self.failure is not None:
            raise SessionFailed(f"this session stopped after a fault of its own: {self.failure}")

    @contextlib.contextmanager
    def _failing_closed(self, doing: str) -> Iterator[None]:
        """Any error in the block that is not a proven fault of the peer is this
        program's: undo the block's frames, stop for good, sign nothing."""
        mark = len(self.chain)
        try:
            yield
        except Exception as exc:
            self._cut(mark)
            # The phase stays: the match is not over, only this program stopped
            # (its replay file, which never saw this step, resumes it).
            self.failure = f"{doing}: {type(exc).__name__}: {exc}"
            raise SessionFailed(
                f"lcnet failed while {self.failure} — a fault of this program, not of the "
                "opponent; nothing was signed for it"
            ) from exc

    def _drop(self, step: Step, reason: str) -> Step:
        """Refuse a frame: count it, say why, change nothing else."""
        self.dropped += 1
        step.events.append(FrameDropped(reason))
        return step

    def _seq_of_deck_item(self, exc: deal.DeckProtocolError, frame: wire.Frame) -> int | None:
        """The frame that carried the faulty deck item (found late, e.g. at the reveal)."""
        track = self.round
        if track is not None:
            if exc.pass_number is not None and exc.pass_number in track.pass_seqs:
                return track.pass_seqs[exc.pass_number]
            key_item = (exc.seat, exc.position)
            if exc.fault is deal.DeckFault.KEY_MISMATCH and key_item in track.key_seqs:
                return track.key_seqs[key_item]
        return frame.seq

    def _receive_control(self, frame: wire.Frame, step: Step) -> Step:
        peer = self._peer_seat()
        if peer is None or peer not in self.keys or frame.game != self.game_id:
            return self._drop(step, "a control frame for no known match")
        try:
            frame.verify(self.keys[peer])
        except wire.BadSignature:
            return self._drop(step, "a control frame whose signature does not verify")
        step.events.append(ControlReceived(frame.message))
        return step

    def _receive_old(self, frame: wire.Frame, step: Step) -> Step:
        assert frame.seq is not None
        ours = self.chain[frame.seq]
        if frame.raw == ours.raw:
            step.events.append(DuplicateIgnored(frame.seq))
            return step
        peer = self._peer_seat()
        if peer is None or peer not in self.keys:
            return self._drop(step, "an unexpected frame")
        try:
            frame.verify(self.keys[peer])
        except wire.BadSignature:
            return self._drop(step, "the frame's signature does not verify")
        off_chain = self._off_chain(frame)
        if off_chain is not None:
            return self._drop(step, off_chain)
        # The same game, position and history as a frame we hold: keep it, and
        # judge it by the one rule the audit uses too (lcnet.evidence).
        step.evidence = frame
        judged = evidence.judge(
            signer=peer,
            message=frame.message,
            seq=frame.seq,
            speaker=self.speakers[frame.seq],
            held=[self._author_at(k) for k in range(frame.seq, len(self.chain))],
        )
        if judged.finding is evidence.Finding.CROSSED:
            # Either player may dispute at any time, so a dispute can cross our
            # frames in flight: the peer's last word, judged like any other.
            self._record_their_dispute(frame, peer, step)
        elif judged.finding.proves:
            self._fail(
                Violation(f"the {peer} {judged.reason}", seat=peer, seq=frame.seq),
                frame,
                step,
                in_chain=False,
            )
        else:
            step.evidence = None
            return self._drop(step, judged.reason)
        return step

    def _author_at(self, seq: int) -> Seat | None:
        """Who signed our frame at ``seq`` (by key)."""
        frame = self.chain[seq]
        return next((seat for seat, key in self.keys.items() if frame.signed_by(key)), None)

    def _peer_seat(self) -> Seat | None:
        return None if self.seat is None else self.seat.other

    @property
    def peer_minor(self) -> int:
        """The minor version the peer announced (this version's until it has)."""
        peer = self._peer_seat()
        return self.minors.get(peer, wire.PROTOCOL_VERSION[1]) if peer is not None else 0

    def _allow_unknown(self) -> bool:
        return self.peer_minor > wire.PROTOCOL_VERSION[1]

    def unannounced_fields(self, frame: wire.Frame, author: Seat) -> str | None:
        """Why ``frame`` may not carry the fields it does, if it may not: only a
        signer that announced a newer minor version may add fields (§5.5), and
        it is the signer's own announcement that counts, not the other player's."""
        if not frame.unknown or isinstance(frame.message, wire.Hello | wire.Welcome):
            return None  # a hello or welcome is decoded by the version it announces
        minor = self.minors.get(author, wire.PROTOCOL_VERSION[1])
        if minor > wire.PROTOCOL_VERSION[1]:
            return None
        return (
            f"a {frame.message.TYPE} carrying field(s) {', '.join(sorted(frame.unknown))}, "
            f"which protocol {wire.PROTOCOL_VERSION[0]}.{minor} (announced by its signer, "
            f"the {author}) does not have"
        )

    def _push(self, frame: wire.Frame) -> None:
        """Append ``frame`` to the transcript, with whose position it was."""
        self.speakers.append(self.speaker)
        self.chain.append(frame)

    def _cut(self, length: int) -> None:
        """Forget the transcript's frames from position ``length`` on."""
        del self.chain[length:]
        del self.speakers[length:]

    def _author_of(self, frame: wire.Frame) -> Seat | None:
        """Who signed ``frame``, among those allowed to; ``None`` if no one did."""
        if frame.seq == 0:
            message = frame.message
            if not isinstance(message, wire.Hello):
                return None  # no key is known before the hello: nothing can verify it
            try:
                frame.verify(message.key)
            except wire.BadSignature:
                return None
            return Seat.JOINER
        candidates: Iterable[Seat]
        if self.seat is not None:
            candidates = [self.seat.other]
        else:
            speaker = self.speaker
            candidates = [s for s in (speaker, *Seat) if s is not None]
        for seat in candidates:
            key = self.keys.get(seat)
            if (
                key is None
                and self.phase is Phase.WELCOME
                and isinstance(frame.message, wire.Welcome)
            ):
                key = frame.message.key  # the host introduces its key in this very frame
                holder = next((s for s, k in self.keys.items() if k == key), None)
                if holder is not None:
                    # A welcome carrying a key already known verifies only by that
                    # key: its holder signed it. A live joiner drops it (its own
                    # key); an observer names that holder, never the host.
                    if self.seat is not None:
                        continue
                    seat = holder
            if key is None:
                continue
            try:
                frame.verify(key)
            except wire.BadSignature:
                continue
            return seat
        return None

    def _off_chain(self, frame: wire.Frame) -> str | None:
        """Why ``frame`` does not extend this transcript at its position, if it does not."""
        seq = frame.seq
        if not seq:
            # Frame 0 has no header: a different one is the start of another game.
            if self.chain and frame.raw != self.chain[0].raw:
                return "a different first frame (another game)"
            return None
        if frame.game != self.game_id:
            return "a frame of another game (or another run of this game's opening)"
        if seq <= len(self.chain) and frame.prev != self.chain[seq - 1].hash:
            return f"a frame for position {seq} that does not follow frame {seq - 1}"
        return None

    # -- emitting this peer's frames

    def next_header(self) -> FrameHeader:
        """The header of this transcript's next frame (position, previous hash, game)."""
        seq = len(self.chain)
        return FrameHeader(seq, self.head if seq else None, self.game_id if seq else None)

    @property
    def signing_key(self) -> nacl.signing.SigningKey | None:
        """The key this side signs its frames with (``None`` for an observer):
        the network layer signs its control messages (hello, ping, sync) with it."""
        return self._signing_key

    def sign(self, message: wire.Message, header: FrameHeader | None = None) -> wire.Frame:
        """Sign ``message`` with this peer's key, as the frame ``header`` says
        (default: the next one), without checking or recording it.

        With :meth:`emit` and :meth:`append_own` this is the supported seam for
        making frames the protocol forbids — a modified client in the tests
        (``tests/cheaters.py``) or in ``replays/make_samples.py``.
        """
        if self._signing_key is None:
            raise LocalProtocolError("an observer signs nothing")
        seq, prev, game = header or self.next_header()
        return wire.make_frame(message, self._signing_key, seq=seq, prev=prev, game=game)

    def append_own(self, frame: wire.Frame, step: Step) -> None:
        """Record ``frame``, signed by this peer, as the next transcript frame:
        to be sent (``step.outgoing``) and applied to this peer's own state.

        Raises what this peer's own checks find wrong with it (the state may
        then be half changed: only a modified client goes on after that).
        """
        assert self.seat is not None
        self._push(frame)
        step.outgoing.append(frame)
        self._apply(frame, self.seat, step)

    def emit(self, message: wire.Message, step: Step) -> wire.Frame:
        """Sign, record and apply ``message`` as this peer's next frame.

        The session calls it for every frame it builds; a modified client
        overrides it (see :meth:`sign`). An honest frame failing this peer's
        own checks is a bug here, never the peer's fault.
        """
        frame = self.sign(message)
        try:
            self.append_own(frame, step)
        except ProtocolError as exc:
            raise LocalProtocolError(f"this peer built a bad {message.TYPE} frame: {exc}") from exc
        return frame

    def _auto(self, step: Step) -> None:
        """Build every frame now due from this peer that needs no decision."""
        while self.phase is not Phase.OVER and self.speaker is self.seat:
            if TABLE[self.phase].expects in _DECIDED:
                return
            self.emit(self._build_auto(), step)

    def _build_auto(self) -> wire.Message:
        phase = self.phase
        assert self.seat is not None and self._master is not None
        version = list(wire.PROTOCOL_VERSION)
        if phase is Phase.HELLO:
            nonce = hashing.coin_nonce(self._master)
            assert self._signing_key is not None
            return wire.Hello(
                v=version,
                name=self._local_name,
                key=bytes(self._signing_key.verify_key),
                coin=hashing.coin_commitment(nonce),
            )
        if phase is Phase.WELCOME:
            assert self._host_options is not None and self._signing_key is not None
            return wire.Welcome(
                v=version,
                name=self._local_name,
                key=bytes(self._signing_key.verify_key),
                suits=self._host_options.suits,
                rounds=self._host_options.rounds,
                coin=hashing.coin_nonce(self._master),
            )
        if phase is Phase.COIN:
            return wire.Coin(nonce=hashing.coin_nonce(self._master))
        track = self.round
        assert track is not None
        own = track.own_deal
        assert own is not None
        if phase in (Phase.COMMIT_HOST, Phase.COMMIT_JOINER):
            return wire.Commit(round=track.number, commit=own.commitment)
        if TABLE[phase].pass_number is not None:
            made = own.make_pass()
            return wire.DeckPass(round=track.number, n=made.number, points=b"".join(made.points))
        if phase in (Phase.KEYS_JOINER, Phase.KEYS_HOST):
            return wire.DealKeys(round=track.number, keys=b"".join(own.dealing_keys()))
        if phase is Phase.ACK:
            assert track.pending is not None
            if track.pending[1].draw.from_deck:
                return wire.Ack(key=own.give_draw().key)
            return wire.Ack()
        if phase in (Phase.REVEAL_HOST, Phase.REVEAL_JOINER):
            return wire.Reveal(round=track.number, seed=own.reveal_seed())
        if phase in (Phase.RESULT_HOST, Phase.RESULT_JOINER):
            assert self.match is not None
            return wire.Result(
                scores=[list(s) for s in self.match.round_scores],
                totals=list(self.match.totals),
            )
        raise LocalProtocolError(f"no automatic frame in phase {phase}")

    def _build_move(self, turn: Turn) -> wire.MoveMsg:
        track = self.round
        assert track is not None and track.own_deal is not None and track.table is not None
        card = turn.put_down.card
        draw = wire.DRAW_PILE if turn.draw.suit is None else int(turn.draw.suit)
        if track.table.holds_public(int(self.seat), card):  # type: ignore[arg-type]
            return wire.MoveMsg(card=card.id, discard=turn.put_down.discard, draw=draw)
        revealed = track.own_deal.reveal_card(card)
        return wire.MoveMsg(
            card=card.id,
            discard=turn.put_down.discard,
            draw=draw,
            pos=revealed.position,
            key=revealed.key,
        )

    def _restore_frame(self, raw: bytes) -> None:
        frame = wire.decode_frame(raw, allow_unknown_fields=self._allow_unknown())
        if frame.message.CONTROL:
            return
        if frame.seq != len(self.chain):
            raise LocalProtocolError(
                f"the replay file's frame {len(self.chain)} claims position {frame.seq}"
            )
        assert self._signing_key is not None and self.seat is not None
        try:
            frame.verify(bytes(self._signing_key.verify_key))
            own = True
        except wire.BadSignature:
            own = False
        if not own:
            step = self.receive(raw)
            if step.accepted is None or self.dispute is not None:
                raise LocalProtocolError(
                    f"frame {frame.seq} of the replay file no longer verifies: "
                    + "; ".join(str(e) for e in step.events)
                )
            return
        if self.speaker is not self.seat and not isinstance(
            frame.message, wire.Dispute | wire.Resign
        ):
            raise LocalProtocolError(f"frame {frame.seq} is ours but it was not our turn to speak")
        message = frame.message
        if isinstance(message, wire.MoveMsg):
            expected: wire.Message = self._build_move(_turn_of(message))
        elif isinstance(message, wire.Resign | wire.Dispute):
            expected = message
        else:
            expected = self._build_auto()
        if expected != message:
            raise LocalProtocolError(
                f"frame {frame.seq} of the replay file is not what this peer would send"
            )
        if frame.seq and (frame.prev != self.head or frame.game != self.game_id):
            raise LocalProtocolError(f"frame {frame.seq} of the replay file breaks the chain")
        self._push(frame)
        self._apply(frame, self.seat, Step())

    # -- applying a frame (both authors, and observers)

    def _apply(self, frame: wire.Frame, author: Seat, step: Step) -> None:
        message = frame.message
        seq = frame.seq
        if isinstance(message, wire.Dispute):
            if author is self.seat:
                self._end_with_dispute(author.other, message, step, detected_by=author)
            elif self.seat is None:
                self._judge_dispute(message, author, step)
            else:
                self._record_their_dispute(frame, author, step)
            return
        speaker = self.speaker
        if author is not speaker:
            raise Violation(
                f"{message.TYPE} out of turn: the {speaker} was to send {self.phase.value}",
                seat=author,
                seq=seq,
            )
        if isinstance(message, wire.Resign):
            if self.phase in (Phase.HELLO, Phase.WELCOME):
                raise Violation("a resignation before the match started", seat=author, seq=seq)
            self._end_resigned(author, step)
            return
        row = TABLE[self.phase]
        if type(message) is not row.expects:
            raise Violation(
                f"{message.TYPE} where {self.phase.value} was due", seat=author, seq=seq
            )
        assert row.handler is not None  # OVER takes no frame
        successor = row.handler(self, frame, author, step)
        if successor is None:
            (successor,) = row.successors
        elif successor not in row.successors:
            raise LocalProtocolError(f"{self.phase} cannot lead to {successor} (see TABLE)")
        self.phase = successor

    def _on_hello(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.Hello)
        self._check_version(m.v, author, frame.seq)
        if m.key == self.keys.get(Seat.HOST):
            # Two players, two keys (PROTOCOL §5.4): a host never plays itself.
            raise Violation("the joiner uses the host's own key", seat=author, seq=frame.seq)
        self._learn_peer(author, m.name, m.key, step)
        self._coin_commitment = m.coin
        self.game_id = hashing.game_id(frame.raw)
        return None

    def _on_welcome(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.Welcome)
        self._check_version(m.v, author, frame.seq)
        if m.key == self.keys.get(Seat.JOINER):
            raise Violation("the host uses the joiner's own key", seat=author, seq=frame.seq)
        self._learn_peer(author, m.name, m.key, step)
        self.options = MatchOptions(suits=m.suits, rounds=m.rounds)
        self._host_nonce = m.coin
        return None

    def _on_coin(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.Coin)
        assert self.game_id and self._coin_commitment and self._host_nonce and self.options
        try:
            first = deal.coin_first_player(
                game_id=self.game_id,
                joiner_commitment=self._coin_commitment,
                joiner_nonce=m.nonce,
                host_nonce=self._host_nonce,
            )
        except RemoteProtocolError as exc:
            raise Violation(str(exc), seat=author, seq=frame.seq) from None
        self.first_starter = first
        self.match = Match(
            rounds=self.options.rounds, suit_count=self.options.suits, first_starter=int(first)
        )
        step.events.append(MatchStarted(self.options, first))
        self._start_round()
        return None

    def _start_round(self) -> None:
        assert self.match is not None and self.options is not None and self.game_id is not None
        number = self.match.rounds_played + 1
        starter = Seat(self.match.start_round())
        if self.seat is not None:
            assert self._master is not None
            own = deal.RoundDeal.from_master(
                seat=self.seat,
                suit_count=self.options.suits,
                game_id=self.game_id,
                round_number=number,
                master_secret=self._master,
            )
            self.round = RoundTrack(number=number, starter=starter, deck=PlayerDeck(own))
        else:
            deck = ObserverDeck(None, suit_count=self.options.suits, game_id=self.game_id)
            self.round = RoundTrack(number=number, starter=starter, deck=deck)
            deck.attach(self.round)

    def _on_commit(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.Commit)
        track = self._track_round(m.round, author, frame.seq)
        track.commitments[author] = m.commit
        track.deck.commitment(author, m.commit)
        return None

    def _on_pass(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.DeckPass)
        track = self._track_round(m.round, author, frame.seq)
        number = TABLE[self.phase].pass_number
        assert number is not None
        if m.n != number:
            raise Violation(f"pass {m.n} where pass {number} was due", seat=author, seq=frame.seq)
        points = tuple(m.point_list())
        track.deck.deck_pass(author, number, points)
        track.passes.append(points)
        if frame.seq is not None:
            track.pass_seqs[number] = frame.seq
        return None

    def _on_keys(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.DealKeys)
        track = self._track_round(m.round, author, frame.seq)
        receiver = author.other
        keys = m.key_list()
        for position, key in zip(deal.hand_positions(receiver), keys, strict=True):
            _check_key(key, f"dealing key for position {position}", author, frame.seq)
        for position, key in zip(deal.hand_positions(receiver), keys, strict=True):
            track.keys_given[author][position] = key
            track.hidden[receiver].add(position)
            if frame.seq is not None:
                track.key_seqs[(author, position)] = frame.seq
        track.deck.dealing_keys(author, keys)
        if self.phase is Phase.KEYS_HOST:
            self._deal_table(track, step)
        return None

    def _deal_table(self, track: RoundTrack, step: Step) -> None:
        """Set up the round's table: known cards where they are, placeholders elsewhere."""
        size = self._deck_size()
        mine = track.deck.hand
        known = set(mine)
        fillers = iter(c for c in ALL_CARDS[:size] if c not in known)
        hands = {
            seat: list(mine)
            if seat is self.seat
            else [next(fillers) for _ in range(deal.HAND_SIZE)]
            for seat in Seat
        }
        order = [*hands[Seat.HOST], *hands[Seat.JOINER], *fillers]
        track.table = Round.deal(order, int(track.starter))
        step.events.append(RoundStarted(track.number, track.starter, tuple(sorted(mine))))

    def _on_move(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.MoveMsg)
        track = self.round
        assert track is not None and track.table is not None
        seq = frame.seq
        if m.card >= self._deck_size():
            raise Violation(f"card id {m.card} is not in this game", seat=author, seq=seq)
        if m.draw >= self._suit_count():
            raise Violation(f"there is no discard pile {m.draw} in this game", seat=author, seq=seq)
        card = Card.from_id(m.card)
        turn = _turn_of(m)
        table = track.table
        if m.pos is not None:
            assert m.key is not None
            _check_key(m.key, f"key for position {m.pos}", author, seq)
            if author is not self.seat:
                track.deck.hidden_play(author, card, m.pos, m.key, seq)
                if card not in table.hand(int(author)):
                    placeholder = next(
                        c for c in table.hand(int(author)) if not table.holds_public(int(author), c)
                    )
                    table.exchange(card, placeholder)
            track.hidden[author].discard(m.pos)
            track.seen.add(card)
            track.plays[m.pos] = (author, card)
            if seq is not None:
                track.key_seqs[(author, m.pos)] = seq
        elif not table.holds_public(int(author), card):
            raise Violation(
                f"{card} is played as a public card, but the {author} took no such card "
                "from a discard pile",
                seat=author,
                seq=seq,
            )
        try:
            table.push(turn.put_down, int(author))
            table.check(turn.draw, int(author))
        except IllegalMoveError as exc:
            raise Violation(str(exc), seat=author, seq=seq) from None
        track.pending = (author, turn)
        return None

    def _on_ack(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.Ack)
        track = self.round
        assert track is not None and track.table is not None and track.pending is not None
        mover, turn = track.pending
        table = track.table
        drawn: Card | None = None
        if turn.draw.from_deck:
            if m.key is None:
                raise Violation(
                    "the acknowledgement of a deck draw has no key", seat=author, seq=frame.seq
                )
            position = track.next_draw
            _check_key(m.key, f"key for position {position}", author, frame.seq)
            track.next_draw += 1
            track.keys_given[author][position] = m.key
            track.hidden[mover].add(position)
            if frame.seq is not None:
                track.key_seqs[(author, position)] = frame.seq
            placeholder = table.draw_pile()[0]
            table.push(turn.draw, int(mover))
            drawn = track.deck.draw_key(author, position, m.key)
            if drawn is not None:
                table.exchange(drawn, placeholder)
                track.seen.add(drawn)
        else:
            if m.key is not None:
                raise Violation(
                    "the acknowledgement of a pile draw carries a key", seat=author, seq=frame.seq
                )
            assert turn.draw.suit is not None
            drawn = table.discard_pile(turn.draw.suit)[-1]
            table.push(turn.draw, int(mover))
        track.turns.append((mover, turn))
        track.pending = None
        step.events.append(TurnPlayed(track.number, mover, turn, drawn))
        return Phase.REVEAL_HOST if table.is_over else Phase.MOVE

    def _on_reveal(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.Reveal)
        track = self._track_round(m.round, author, frame.seq)
        track.seeds[author] = m.seed
        track.deck.reveal(author, m.seed)
        if self.phase is Phase.REVEAL_HOST:
            return None
        verified = self._verify_round(track, author, frame.seq)
        self.rounds_verified.append(verified)
        assert self.match is not None and track.table is not None
        scores = track.table.scores()
        self.match.record_round(scores)
        step.events.append(RoundVerified(track.number, scores, verified))
        if self.match.is_over:
            return Phase.RESULT_HOST
        self._start_round()
        return Phase.COMMIT_HOST

    def check_deferred(self) -> Step:
        """An observer's last checks when no more frames will come: what waited
        for a seed reveal that never came (pass validity, openings of played cards)."""
        step = Step()
        track = self.round
        if track is None or self.dispute is not None:
            return step
        try:
            track.deck.run_deferred()
        except deal.DeckProtocolError as exc:
            seq = self._seq_of_deck_item(exc, self.chain[-1])
            violation = Violation(str(exc), seat=exc.seat, seq=seq)
            self._fail(violation, self.chain[-1], step, in_chain=True)
        except Violation as exc:
            self._fail(exc, self.chain[-1], step, in_chain=True)
        return step

    def _verify_round(self, track: RoundTrack, author: Seat, seq: int | None) -> deal.RoundDeck:
        """With both seeds known, check the whole round with full information."""
        verified = track.deck.verified_deck()
        full = Round.deal(verified.order, int(track.starter))
        for mover, turn in track.turns:
            try:
                full.push_turn(turn, int(mover))
            except IllegalMoveError as exc:
                raise Violation(
                    f"with every card known, round {track.number} shows an illegal move: {exc}",
                    seat=mover,
                    seq=seq,
                ) from None
        assert track.table is not None
        if not full.is_over or full.scores() != track.table.scores():
            raise Violation(
                f"round {track.number} does not replay to the same end with every card known",
                seat=author,
                seq=seq,
            )
        return verified

    def _on_result(self, frame: wire.Frame, author: Seat, step: Step) -> Phase | None:
        m = frame.message
        assert isinstance(m, wire.Result)
        assert self.match is not None
        expected_scores = [list(s) for s in self.match.round_scores]
        if m.scores != expected_scores or m.totals != list(self.match.totals):
            raise Violation(
                f"the result {m.scores} (totals {m.totals}) is not the verified "
                f"{expected_scores} (totals {list(self.match.totals)})",
                seat=author,
                seq=frame.seq,
            )
        if self.phase is Phase.RESULT_HOST:
            return None
        self.sealed = True
        self.outcome = self.match.outcome()
        step.events.append(
            MatchEnded(self.outcome, tuple(self.match.round_scores), None, sealed=True)
        )
        return None

    # -- helpers

    def _track_round(self, number: int, author: Seat, seq: int | None) -> RoundTrack:
        track = self.round
        assert track is not None
        if number != track.number:
            raise Violation(
                f"round {number} where round {track.number} is on", seat=author, seq=seq
            )
        return track

    def _check_version(self, version: list[int], author: Seat, seq: int | None) -> None:
        if version[0] != wire.PROTOCOL_VERSION[0]:
            raise Violation(
                f"protocol version {version[0]}.{version[1]} (this lcnet speaks "
                f"{wire.PROTOCOL_VERSION[0]}.{wire.PROTOCOL_VERSION[1]})",
                seat=author,
                seq=seq,
            )
        self.minors[author] = version[1]

    def _learn_peer(self, seat: Seat, name: str, key: bytes, step: Step) -> None:
        self.keys[seat] = key
        self.names[seat] = name
        if seat is not self.seat:
            step.events.append(PeerIdentified(seat, name, key))

    def _suit_count(self) -> int:
        assert self.options is not None
        return self.options.suits

    def _deck_size(self) -> int:
        return deck_size(self._suit_count())

    def _fail(self, exc: Violation, frame: wire.Frame, step: Step, *, in_chain: bool) -> None:
        """Stop the match on a violation and, as a player, tell the peer."""
        if self.dispute is not None:
            return  # the first violation is the one on record
        seq = exc.seq if exc.seq is not None else frame.seq
        if seq is None:
            seq = len(self.chain)
        offending = frame
        if in_chain and seq < len(self.chain):
            offending = self.chain[seq]
        info = DisputeInfo(exc.seat, seq, offending.hash, exc.reason, detected_by=self.seat)
        self.dispute = info
        # The position after a violation is no player's turn: only a dispute goes there.
        self.phase = Phase.OVER
        step.events.append(DisputeRaised(info))
        if self.seat is not None and self._signing_key is not None and self.game_id is not None:
            seed = None
            if self.round is not None and self._master is not None:
                seed = hashing.round_seed(self._master, self.game_id, self.round.number)
            message = wire.Dispute(
                about=seq, frame=offending.hash, reason=_clip(exc.reason), seed=seed
            )
            out = wire.make_frame(
                message, self._signing_key, seq=len(self.chain), prev=self.head, game=self.game_id
            )
            self.chain.append(out)
            self.speakers.append(None)
            step.outgoing.append(out)

    def _end_with_dispute(
        self, offender: Seat, message: wire.Dispute, step: Step, *, detected_by: Seat | None
    ) -> None:
        info = DisputeInfo(offender, message.about, message.frame, message.reason, detected_by)
        self.dispute = info
        self.phase = Phase.OVER
        step.events.append(DisputeRaised(info))

    def _judge_dispute(self, message: wire.Dispute, accuser: Seat, step: Step) -> None:
        """An observer weighs a dispute: with the accuser's seed it redoes the
        openings only the accuser could do, and if the accused frame fails them
        the dispute is proven (a Violation against the accused frame)."""
        track = self.round
        accused = accuser.other
        if track is not None:
            track.deck.run_deferred()
        if (
            message.seed is not None
            and track is not None
            and accuser in track.commitments
            and len(track.passes) == deal.PASS_COUNT
            and message.about < len(self.chain)
        ):
            problem = track.deck.judge_dispute(accuser, message.seed, message.about)
            if problem is not None:
                raise Violation(problem, seat=accused, seq=message.about)
        self._end_with_dispute(accused, message, step, detected_by=accuser)

    def _record_their_dispute(self, frame: wire.Frame, author: Seat, step: Step) -> None:
        message = frame.message
        assert isinstance(message, wire.Dispute)
        self._end_with_dispute(author.other, message, step, detected_by=author)

    def _end_resigned(self, seat: Seat, step: Step) -> None:
        self.resigned = seat
        scores = tuple(self.match.round_scores) if self.match else ()
        totals = self.match.totals if self.match else (0, 0)
        self.outcome = Outcome(totals, int(seat.other))
        self.phase = Phase.OVER
        step.events.append(MatchEnded(self.outcome, scores, seat, sealed=False))


# ------------------------------------------------------------------ the table

TABLE: Final[Mapping[Phase, Transition]] = MappingProxyType(
    {
        Phase.HELLO: Transition(Seat.JOINER, wire.Hello, Session._on_hello, (Phase.WELCOME,)),
        Phase.WELCOME: Transition(Seat.HOST, wire.Welcome, Session._on_welcome, (Phase.COIN,)),
        Phase.COIN: Transition(Seat.JOINER, wire.Coin, Session._on_coin, (Phase.COMMIT_HOST,)),
        Phase.COMMIT_HOST: Transition(
            Seat.HOST, wire.Commit, Session._on_commit, (Phase.COMMIT_JOINER,)
        ),
        Phase.COMMIT_JOINER: Transition(
            Seat.JOINER, wire.Commit, Session._on_commit, (Phase.PASS_1,)
        ),
        Phase.PASS_1: Transition(Seat.HOST, wire.DeckPass, Session._on_pass, (Phase.PASS_2,), 1),
        Phase.PASS_2: Transition(Seat.JOINER, wire.DeckPass, Session._on_pass, (Phase.PASS_3,), 2),
        Phase.PASS_3: Transition(Seat.HOST, wire.DeckPass, Session._on_pass, (Phase.PASS_4,), 3),
        Phase.PASS_4: Transition(
            Seat.JOINER, wire.DeckPass, Session._on_pass, (Phase.KEYS_JOINER,), 4
        ),
        Phase.KEYS_JOINER: Transition(
            Seat.JOINER, wire.DealKeys, Session._on_keys, (Phase.KEYS_HOST,)
        ),
        Phase.KEYS_HOST: Transition(Seat.HOST, wire.DealKeys, Session._on_keys, (Phase.MOVE,)),
        Phase.MOVE: Transition(None, wire.MoveMsg, Session._on_move, (Phase.ACK,)),
        Phase.ACK: Transition(None, wire.Ack, Session._on_ack, (Phase.MOVE, Phase.REVEAL_HOST)),
        Phase.REVEAL_HOST: Transition(
            Seat.HOST, wire.Reveal, Session._on_reveal, (Phase.REVEAL_JOINER,)
        ),
        Phase.REVEAL_JOINER: Transition(
            Seat.JOINER, wire.Reveal, Session._on_reveal, (Phase.COMMIT_HOST, Phase.RESULT_HOST)
        ),
        Phase.RESULT_HOST: Transition(
            Seat.HOST, wire.Result, Session._on_result, (Phase.RESULT_JOINER,)
        ),
        Phase.RESULT_JOINER: Transition(
            Seat.JOINER, wire.Result, Session._on_result, (Phase.OVER,)
        ),
        Phase.OVER: Transition(None, None, None, ()),
    }
)
"""The state machine as data (docs/PROTOCOL.md §6.1, which a test compares with it).

In every phase but HELLO, WELCOME and OVER the speaker may send ``resign``
instead, and either player ``dispute`` (both end the match: OVER)."""


def _turn_of(m: wire.MoveMsg) -> Turn:
    # The engine's interned moves: index 0 of DRAWS is the draw pile (-1 on the wire).
    return Turn(PUT_DOWNS[m.card * 2 + m.discard], DRAWS[m.draw + 1])


def _check_key(key: bytes, item: str, author: Seat, seq: int | None) -> None:
    """Every key a frame carries must be a scalar in 1 … L−1 (PROTOCOL §1.4, §3.6).

    Anyone can check that, an auditor included, so a key out of range is a
    violation by the frame's signer at that very frame, whoever opens it.
    """
    if not group.is_scalar(key):
        raise Violation(f"{item}: {deal.DeckFault.INVALID_KEY.value}", seat=author, seq=seq)


def _clip(text: str) -> str:
    data = text.encode("utf-8")[: wire.MAX_REASON_BYTES]
    return data.decode("utf-8", errors="ignore")
