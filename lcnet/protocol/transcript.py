"""One match's signed transcript, checked frame by frame: the machine both roles share.

A :class:`Transcript` holds the chain of frames and what they have made of
the match (names and keys, options, the rounds, the outcome, a dispute). It
says who may speak next and takes a frame only when it extends the chain and
its signer was entitled to speak; then the state table
(:data:`lcnet.protocol.transitions.TABLE`) applies it.

Two roles stand on it:

* :class:`lcnet.protocol.session.Session`, a player, with its signing key and secrets:
  it builds its own frames and answers a proven violation with a dispute;
* :class:`lcnet.protocol.observer.Observer`, with no secrets: ``lcnet audit`` and
  ``lcnet replay`` run it, so they execute the very code of the live game.

The transcript holds its role as data: ``own``, the seat whose side it is
(``None``: an observer's, no side). Whose signature a frame may carry, who
is blamed for a fault found here, who detects it and how strictly a frame
is decoded follow from it. What the two roles *do* differently (a player
answers and builds its frames, an observer judges and defers deck checks
to the reveal) is in the few methods each defines, below. No sockets, files
or clocks: frames in, :class:`Step` out.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

from lcnet.deck import deal
from lcnet.deck.deckcheck import RoundTrack
from lcnet.errors import LocalProtocolError, SessionFailed, Violation
from lcnet.game.engine import Match, Outcome
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import (
    DisputeInfo,
    DisputeRaised,
    DuplicateIgnored,
    FrameDropped,
    FrameGap,
    MatchEnded,
    MatchOptions,
    Step,
)
from lcnet.protocol.phases import OPENING, Phase
from lcnet.protocol.transitions import TABLE

_SEATS: Final = (Seat.HOST, Seat.JOINER)
"""Seat by number, without an enum lookup (asked for several times per frame)."""


_SIGNERS: Final = (Seat.JOINER, Seat.HOST)
"""The order in which a frame's signer is looked for among the known keys."""


class FrameHeader(NamedTuple):
    """Where a transcript frame stands: its position, the previous frame's hash, the game."""

    seq: int
    prev: bytes | None
    game: bytes | None


class Transcript(abc.ABC):
    """A match's transcript as one side sees it, frame by frame (see the module)."""

    def __init__(self, *, own: Seat | None = None, options: MatchOptions | None = None) -> None:
        self.own: Final = own
        """The seat whose side this transcript is (``None``: an observer's)."""
        self.options: MatchOptions | None = options
        self.names: dict[Seat, str] = {}
        self.bots: set[Seat] = set()
        """The seats whose opening said a program plays them (``bot``, advisory)."""
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
        self.coin_commitment: bytes | None = None
        """The joiner's commitment to its coin nonce (from the hello)."""
        self.host_nonce: bytes | None = None
        """The host's coin nonce (from the welcome)."""
        self.outcome: Outcome | None = None
        self.resigned: Seat | None = None
        self.sealed = False
        self.dispute: DisputeInfo | None = None
        self.dropped = 0
        self.failure: str | None = None
        """Why this program failed (see :class:`SessionFailed`); it then refuses all."""

    # -- what follows from the role

    def is_own(self, seat: Seat) -> bool:
        """Whether ``seat`` is this side (whose cards it holds itself)."""
        return seat is self.own

    @property
    def detector(self) -> Seat | None:
        """Who a violation this side finds is detected by (``None``: the audit)."""
        return self.own

    def decode(self, raw: bytes) -> wire.Frame:
        """A received frame, decoded by the version rule of §5.5: fields this
        version does not know only from a peer that announced a newer minor
        version. A player knows who sends (its peer); an observer does not
        before the signature names the signer, so it decodes leniently and
        holds the frame to its signer's version then (:meth:`receive_frame`).
        Raises :class:`wire.MalformedFrame` (:class:`wire.IncompatibleVersion`)."""
        ours = wire.PROTOCOL_VERSION[1]
        lenient = self.own is None or self.minors.get(self.own.other, ours) > ours
        return wire.decode_frame(raw, allow_unknown_fields=lenient)

    def _signers(self) -> Iterable[Seat]:
        """Whose signature a new frame may carry, in the order to try them: a
        player's peer's only; for an observer, the speaker's first."""
        if self.own is not None:
            return (self.own.other,)
        return [s for s in (self.speaker, *_SEATS) if s is not None]

    def _welcome_by(self, holder: Seat) -> Seat | None:
        """Who signed a welcome carrying ``holder``'s key, a key already known
        (``None``: drop it). A player drops it (its own key, or the joiner's
        own); an observer names its holder, never the host."""
        return holder if self.own is None else None

    def _blames(self, offender: Seat) -> bool:
        """Whether a fault of ``offender`` found here is proven (else it is this
        program's own): a player blames only the other; an observer judges both."""
        return offender is not self.own

    # -- what a role does

    @abc.abstractmethod
    def new_round(self, number: int, starter: Seat) -> RoundTrack:
        """The track of a new round, with this role's deck checks."""

    @abc.abstractmethod
    def _receive_control(self, frame: wire.Frame, step: Step) -> Step: ...

    @abc.abstractmethod
    def _receive_old(self, frame: wire.Frame, step: Step) -> Step:
        """A frame for a position the transcript already holds."""

    @abc.abstractmethod
    def _on_dispute(self, frame: wire.Frame, author: Seat, step: Step) -> None: ...

    def _earliest(self, violation: Violation, frame: wire.Frame) -> Violation:
        """The violation on record when ``violation`` is found at ``frame``."""
        return violation

    @abc.abstractmethod
    def _after_frame(self, step: Step) -> None:
        """What this side does once a frame of the other side is applied."""

    @abc.abstractmethod
    def _answer(self, info: DisputeInfo, offending: wire.Frame, step: Step) -> None:
        """How this side answers a violation it found (a player disputes it)."""

    # -- state queries

    @property
    def opening(self) -> bool:
        """Whether the match's first deal is still being made (no move played yet)."""
        return self.phase in OPENING and self.round_number <= 1

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
    def head(self) -> bytes | None:
        """The chain hash of the last transcript frame."""
        return self.chain[-1].hash if self.chain else None

    @property
    def next_seq(self) -> int:
        return len(self.chain)

    @property
    def round_number(self) -> int:
        return self.round.number if self.round else 0

    def next_header(self) -> FrameHeader:
        """The header of this transcript's next frame (position, previous hash, game)."""
        seq = len(self.chain)
        return FrameHeader(seq, self.head if seq else None, self.game_id if seq else None)

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

    def signer_of(self, frame: wire.Frame) -> Seat | None:
        """Whose known key verifies ``frame``, if a player's does (the joiner's first)."""
        return next(
            (s for s in _SIGNERS if s in self.keys and frame.signed_by(self.keys[s])),
            None,
        )

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

    # -- receiving

    def receive(self, raw: bytes) -> Step:
        """Take one frame: check it, apply it, answer it."""
        self._require_working()
        try:
            frame = self.decode(raw)
        except wire.MalformedFrame as exc:
            return self._drop(Step(), str(exc))
        return self.receive_frame(frame)

    def receive_frame(self, frame: wire.Frame) -> Step:
        """Like :meth:`receive`, for a frame the caller has already decoded.

        Raises :class:`SessionFailed` if this program fails while handling it
        (nothing is signed then, and it refuses everything after).
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
                if not self._blames(violation.seat):
                    raise
                self._fail(self._earliest(violation, frame), frame, step, in_chain=True)
                return step
            if not self.is_over:
                self._after_frame(step)
        return step

    def abandon(self, step: Step, reason: str) -> None:
        """The caller could not record ``step`` (its replay file refused the
        write): forget the step's frames and stop for good, as for a fault of
        this program, so that nothing unrecorded is ever sent or sent again."""
        frames = [*([step.accepted] if step.accepted is not None else []), *step.outgoing]
        if frames and self.chain[-len(frames) :] == frames:
            self._cut(len(self.chain) - len(frames))
        self.failure = reason

    def _as_violation(
        self, exc: Violation | deal.DeckProtocolError, frame: wire.Frame
    ) -> Violation:
        if isinstance(exc, Violation):
            return exc
        return Violation(str(exc), seat=exc.seat, seq=self._seq_of_deck_item(exc, frame))

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

    def _author_at(self, seq: int) -> Seat | None:
        """Who signed our frame at ``seq`` (by key)."""
        return self.signer_of(self.chain[seq])

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
        for candidate in self._signers():
            seat: Seat | None = candidate
            key = self.keys.get(candidate)
            if (
                key is None
                and self.phase is Phase.WELCOME
                and isinstance(frame.message, wire.Welcome)
            ):
                key = frame.message.key  # the host introduces its key in this very frame
                holder = next((s for s, k in self.keys.items() if k == key), None)
                if holder is not None:
                    # A welcome carrying a key already known verifies only by
                    # that key: its holder signed it (the role says what follows).
                    seat = self._welcome_by(holder)
            if key is None or seat is None:
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

    # -- applying a frame (either author)

    def _apply(self, frame: wire.Frame, author: Seat, step: Step) -> None:
        message = frame.message
        seq = frame.seq
        if isinstance(message, wire.Dispute):
            self._on_dispute(frame, author, step)
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

    # -- the end

    def _fail(self, exc: Violation, frame: wire.Frame, step: Step, *, in_chain: bool) -> None:
        """Stop the match on a violation (the role answers it)."""
        if self.dispute is not None:
            return  # the first violation is the one on record
        seq = exc.seq if exc.seq is not None else frame.seq
        if seq is None:
            seq = len(self.chain)
        offending = frame
        if in_chain and seq < len(self.chain):
            offending = self.chain[seq]
        info = DisputeInfo(exc.seat, seq, offending.hash, exc.reason, detected_by=self.detector)
        self.dispute = info
        # The position after a violation is no player's turn: only a dispute goes there.
        self.phase = Phase.OVER
        step.events.append(DisputeRaised(info))
        self._answer(info, offending, step)

    def _end_with_dispute(
        self, offender: Seat, message: wire.Dispute, step: Step, *, detected_by: Seat | None
    ) -> None:
        info = DisputeInfo(offender, message.about, message.frame, message.reason, detected_by)
        self.dispute = info
        self.phase = Phase.OVER
        step.events.append(DisputeRaised(info))

    def _end_resigned(self, seat: Seat, step: Step) -> None:
        self.resigned = seat
        scores = tuple(self.match.round_scores) if self.match else ()
        totals = self.match.totals if self.match else (0, 0)
        self.outcome = Outcome(totals, int(seat.other))
        self.phase = Phase.OVER
        step.events.append(MatchEnded(self.outcome, scores, seat, sealed=False))
