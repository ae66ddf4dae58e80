"""A spectator of a live match, sans-IO: the transcript checked as it arrives.

A spectator holds what its host sent it: the transcript frames, in order and
chained, and any evidence frames. It runs them through the audit's own
observer (:class:`lcnet.observer.Observer`), so every signature, the chain,
every move against the rules, the deck's commitments, passes and keys and
the scores are checked exactly as ``lcnet audit`` checks a file, frame by
frame; :meth:`Spectator.verdict` is the audit's verdict on what it holds,
the same as ``lcnet audit`` of the spectator's file. It sees only the public
transcript: hidden cards stay masked, and it shows no more than ``lcnet
replay`` of the same frames would at that step.

It decides when to ask the host for frames (``watch`` with how many it has):
on a gap, when the host's ``sync`` says it holds more, every
:data:`ACK_EVERY` frames (so the host knows it reads), and when
:meth:`idle` says nothing came for a while.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from lcnet import audit, hashing, wire
from lcnet.audience import EVIDENCE_PART
from lcnet.events import (
    DisputeRaised,
    MatchEnded,
    RoundStarted,
    RoundVerified,
    Step,
    TurnPlayed,
)
from lcnet.observer import Observer
from lcnet.replay import Collector, MatchRecord, Position, render_text
from lcnet.seat import Seat

ACK_EVERY: Final = 96
"""Frames between two ``watch`` frames while the spectator keeps up."""


@dataclass
class Received:
    """What one message from the host changed."""

    frames: list[bytes] = field(default_factory=list)
    """New transcript frames, in order (to write to the spectator's file)."""
    evidence: list[bytes] = field(default_factory=list)
    """New evidence frames (to write as EVIDENCE records)."""
    lines: list[str] = field(default_factory=list)
    """What happened, one line each: moves, round scores, the result, a dispute."""
    is_move: list[bool] = field(default_factory=list)
    """For each line, whether it tells a move (a board shows the last move too)."""
    ask: bool = False
    """Send a ``watch`` now (a gap, the host holds more, or an acknowledgement)."""
    busy: str | None = None
    """The host turned this spectator away, with its reason (unverified)."""


class Spectator:
    """The transcript as the host sends it, checked frame by frame."""

    def __init__(self, frames: list[bytes] | None = None, evidence: list[bytes] | None = None):
        self.frames: list[bytes] = []
        self.evidence: list[bytes] = list(evidence or ())
        self.observer = Observer()
        self._collector = Collector()
        self._acked = 0
        self.dropped = 0
        """Messages that were no next frame, no evidence and no ``sync`` of this match."""
        for raw in frames or ():
            self._take(raw)

    @property
    def have(self) -> int:
        return len(self.frames)

    @property
    def stopped(self) -> bool:
        """The match is over, or in dispute: nothing after can change the verdict."""
        return self.observer.is_over or self.observer.dispute is not None

    def _record(self) -> MatchRecord:
        """The match so far, as ``lcnet replay`` would load it (names, positions)."""
        observer = self.observer
        return MatchRecord(
            names=dict(observer.names),
            fingerprints={s: hashing.fingerprint(k) for s, k in observer.keys.items()},
            suits=observer.options.suits if observer.options else 5,
            rounds=observer.options.rounds if observer.options else 0,
            positions=self._collector.positions,
            round_starts=self._collector.round_starts,
            verdict=audit.Verdict(kind=audit.VerdictKind.INCOMPLETE, frames=self.have, summary=""),
        )

    def board(self) -> list[str]:
        """The public board now, as ``lcnet replay --text`` shows the same step."""
        record = self._record()
        if not record.positions:
            return []
        position: Position = record.positions[-1]
        return render_text(record, position, None)

    def verdict(self) -> audit.Verdict:
        """The audit's verdict on the frames and evidence held (as on the file)."""
        return audit.audit_frames(self.frames, self.evidence)

    def asked(self) -> None:
        """A ``watch`` went out with :attr:`have`."""
        self._acked = self.have

    def receive(self, parts: list[bytes]) -> Received:
        """One message from the host: frames, each evidence frame after the
        part ``evidence`` (docs/PROTOCOL.md §6.6)."""
        out = Received()
        index = 0
        while index < len(parts):
            if parts[index] == EVIDENCE_PART and index + 1 < len(parts):
                raw = parts[index + 1]
                if raw not in self.evidence and _decodes(raw):
                    self.evidence.append(raw)
                    out.evidence.append(raw)
                index += 2
            else:
                self._receive_frame(parts[index], out)
                index += 1
        return out

    def _receive_frame(self, raw: bytes, out: Received) -> None:
        try:
            frame = wire.decode_frame(raw, allow_unknown_fields=True)
        except wire.MalformedFrame:
            self.dropped += 1
            return
        if frame.message.CONTROL:
            self._control(frame, out)
        elif frame.seq is not None and frame.seq > self.have:
            out.ask = True  # a gap: frames were lost, ask from what we have
        elif frame.seq == self.have:
            before = self.have
            for is_move, line in self._take(raw):
                out.lines.append(line)
                out.is_move.append(is_move)
            if self.have > before:
                out.frames.append(raw)
            if self.have - self._acked >= ACK_EVERY:
                out.ask = True

    def _control(self, frame: wire.Frame, out: Received) -> None:
        message = frame.message
        host_key = self.observer.keys.get(Seat.HOST)
        if isinstance(message, wire.Busy):
            out.busy = message.reason  # before the match, the host's key is not known
            return
        if not isinstance(message, wire.Sync) or host_key is None:
            self.dropped += 1
            return
        if frame.game != self.observer.game_id or not frame.signed_by(host_key):
            self.dropped += 1
            return
        if message.have > self.have:
            out.ask = True

    def _take(self, raw: bytes) -> list[tuple[bool, str]]:
        """Check the next frame; keep it if it belongs to the transcript."""
        if self.stopped:
            # Past the end or a dispute: keep what chains on (the host's file has it).
            frame = wire.decode_frame(raw, allow_unknown_fields=True)
            if self.frames and frame.prev == hashing.chain_hash(self.frames[-1]):
                self.frames.append(raw)
            return []
        step = self.observer.receive(raw)
        proof = self.observer.dispute is not None and self.observer.dispute.detected_by is None
        if step.accepted is None and not proof:
            self.dropped += 1
            return []
        self.frames.append(raw)
        self._collector.step(self.observer, step)
        return self._lines(step)

    def _lines(self, step: Step) -> list[tuple[bool, str]]:
        """What ``step`` did, a line each, with whether the line is a move."""
        names = self.observer.names
        lines: list[tuple[bool, str]] = []
        for event in step.events:
            if isinstance(event, RoundStarted):
                lines.append(
                    (False, f"round {event.round} begins; {names.get(event.starter)} starts")
                )
            elif isinstance(event, TurnPlayed):
                text = f"{names.get(event.seat)}: {event.turn}"
                if event.drawn is not None and event.turn.draw.suit is not None:
                    text += f" (drew {event.drawn})"
                lines.append((True, text))
            elif isinstance(event, RoundVerified):
                scores = ", ".join(f"{names.get(s)} {event.scores[int(s)]:+d}" for s in Seat)
                lines.append((False, f"round {event.round} over, deck verified: {scores}"))
            elif isinstance(event, MatchEnded):
                totals = event.outcome.totals
                who = (
                    "a draw"
                    if event.outcome.winner is None
                    else f"{names.get(Seat(event.outcome.winner))} wins"
                )
                how = (
                    f", {names.get(event.resigned)} resigned" if event.resigned is not None else ""
                )
                text = (
                    f"the match is over: {names.get(Seat.HOST)} {totals[0]}, "
                    f"{names.get(Seat.JOINER)} {totals[1]}: {who}{how}"
                )
                lines.append((False, text))
            elif isinstance(event, DisputeRaised):
                info = event.dispute
                by = (
                    "this spectator's check"
                    if info.detected_by is None
                    else names.get(info.detected_by, str(info.detected_by))
                )
                text = (
                    f"DISPUTE: frame {info.seq} of the {info.offender} "
                    f"({names.get(info.offender)}): {info.reason} (found by {by})"
                )
                lines.append((False, text))
        return lines


def _decodes(raw: bytes) -> bool:
    try:
        wire.decode_frame(raw, allow_unknown_fields=True)
    except wire.MalformedFrame:
        return False
    return True
