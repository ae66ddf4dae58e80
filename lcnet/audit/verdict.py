"""Offline audit of a match from its replay file(s): one verdict, with evidence.

The transcript is fed, frame by frame, to an observer
:class:`~lcnet.protocol.observer.Observer` — the very state machine the peers ran — which
checks framing, every signature, the chain, every move against the engine,
commitments, passes, keys, reveals and the result. The verdict is one of:

* **valid**: the match is complete and sealed by both players' results;
* **incomplete**: everything so far is valid; someone owes the next frame
  (or the file is torn after some frame);
* **invalid**: the first bad frame, who signed it, what is wrong with it;
* **damaged**: bad bytes in the middle of the file, with intact records
  after them (not a torn tail: a crash only tears the end). The verdict of
  the intact prefix is given for information. With the other player's file,
  :func:`lcnet.audit.repair.repair` fills the gap from it and the merged transcript is judged.

Evidence records (frames the peer signed that were not accepted into the
chain) are checked too: a second frame signed by the same player for the
same position is proof of equivocation. With two files of the same match,
:func:`lcnet.audit.compare.compare` finds where they diverge and whether a signer equivocated.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lcnet.deck import hashing
from lcnet.errors import ExitCode
from lcnet.game.seat import Seat
from lcnet.protocol import evidence as rules
from lcnet.protocol import wire
from lcnet.protocol.events import DisputeInfo, DuplicateIgnored, FrameGap, Step
from lcnet.protocol.observer import Observer
from lcnet.store.replayfile import Damage, ReplayContents, TornTail, read_replay


@dataclass(frozen=True)
class Repair:
    """A damaged file's transcript with its gaps filled from the other player's file
    (made by :func:`lcnet.audit.repair.repair`)."""

    source: str
    """The other file (as named on the command line)."""
    filled: list[int]
    """Positions whose frame was taken from ``source``."""
    contents: ReplayContents | None
    """The repaired file (no damage left), or ``None`` if it cannot be repaired."""
    problem: str | None = None
    """Why it cannot be repaired."""
    unvouched: list[int] = field(default_factory=list)
    """Positions taken from ``source`` after the damaged file's last own frame.

    A position filled between two of the damaged file's own frames is pinned
    by the chain hash its own later frame carries: it can only be the frame
    the file lost. A position after its last own frame is vouched for by
    ``source`` alone, which may be the opponent's forgery."""


class VerdictKind(enum.Enum):
    VALID = "valid"
    INCOMPLETE = "incomplete"
    INVALID = "invalid"
    DAMAGED = "damaged"


EXIT_CODES = {
    VerdictKind.VALID: ExitCode.OK,
    VerdictKind.INVALID: ExitCode.FAILED,
    VerdictKind.DAMAGED: ExitCode.USAGE,
    VerdictKind.INCOMPLETE: ExitCode.UNFINISHED,
}
"""``lcnet audit`` exit codes; 2 is also an unreadable file or bad usage."""

SEVERITY = (1, 2, 3, 0)
"""Exit codes from the strongest: a proof of a fault (1: INVALID naming a
player) stands whatever else is wrong; then a file that cannot be judged
whole (2: damaged, INVALID naming no player, unreadable, or two files of
different matches); then incomplete (3); then valid (0)."""


def combined_exit_code(codes: Sequence[int]) -> int:
    """The exit code of several verdicts, by :data:`SEVERITY`."""
    return min(codes, key=SEVERITY.index, default=0)


@dataclass(frozen=True)
class Signer:
    seat: Seat | None
    name: str
    fingerprint: str

    def __str__(self) -> str:
        who = f"{self.name} ({self.seat})" if self.seat is not None else self.name
        return f"{who}, key {self.fingerprint}" if self.fingerprint else who


@dataclass(frozen=True)
class BadFrame:
    """The first frame that breaks the protocol."""

    seq: int
    signer: Signer | None
    """``None`` when no player's signature verifies on it."""
    reason: str
    evidence: str
    """Hex of the frame's exact bytes (what anyone can check against the signer's key)."""


@dataclass
class Verdict:
    kind: VerdictKind
    frames: int
    summary: str
    names: dict[str, str] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    options: dict[str, int] = field(default_factory=dict)
    round_scores: list[list[int]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    winner: str | None = None
    winner_seat: str | None = None
    """``host`` or ``joiner`` (the winner's seat: names may be alike); None for a draw."""
    resigned: str | None = None
    game_id: str | None = None
    """The game id in hex, once the transcript has its first frame."""
    owed: str | None = None
    bad: BadFrame | None = None
    torn: TornTail | None = None
    dispute: str | None = None
    notes: list[str] = field(default_factory=list)
    """Facts about the file that do not change the verdict (trailing bytes,
    skipped records, damage next to a proof of a fault, a repair)."""
    damage: list[Damage] = field(default_factory=list)
    prefix: Verdict | None = None
    """For a damaged file: the verdict on its intact prefix, for information."""
    repaired: Repair | None = None
    shows: Verdict | None = None
    """For a damaged file repaired only with frames no own frame vouches for:
    the verdict on the merged transcript, for information only."""

    @property
    def proves_a_fault(self) -> bool:
        """Whether the verdict names a player: INVALID with a signer."""
        return self.kind is VerdictKind.INVALID and self.bad is not None and bool(self.bad.signer)

    @property
    def exit_code(self) -> int:
        """By kind, except that INVALID naming no player is 2, not 1: a record
        that is no transcript frame proves nothing against either player, so
        it ranks with a file that cannot be judged whole (PROTOCOL §7.2)."""
        if self.kind is VerdictKind.INVALID and not self.proves_a_fault:
            return EXIT_CODES[VerdictKind.DAMAGED]
        return EXIT_CODES[self.kind]

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "verdict": self.kind.value,
            "frames": self.frames,
            "summary": self.summary,
            "players": {
                seat: {"name": self.names.get(seat), "fingerprint": self.fingerprints.get(seat)}
                for seat in ("host", "joiner")
                if seat in self.names
            },
            "options": self.options,
            "round_scores": self.round_scores,
            "totals": self.totals,
            "winner": self.winner,
            "resigned": self.resigned,
        }
        if self.owed is not None:
            out["owed"] = self.owed
        if self.torn is not None:
            out["torn"] = {
                "valid_bytes": self.torn.offset,
                "trailing_bytes": self.torn.trailing,
                "reason": self.torn.reason,
            }
        if self.damage:
            out["damage"] = [
                {
                    "offset": d.offset,
                    "resumes_at": d.resumes_at,
                    "reason": d.reason,
                    "records_after": d.records_after,
                    "frames_after": len(d.frames_after),
                    "first_position_after": frame_position(d.frames_after[0])
                    if d.frames_after
                    else None,
                }
                for d in self.damage
            ]
        if self.prefix is not None:
            out["intact_prefix"] = self.prefix.to_json()
        if self.repaired is not None:
            repaired: dict[str, object] = {
                "from": self.repaired.source,
                "positions": self.repaired.filled,
                "unvouched": self.repaired.unvouched,
            }
            if self.shows is not None:
                repaired["shows"] = self.shows.to_json()
            out["repaired"] = repaired
        if self.notes:
            out["notes"] = list(self.notes)
        if self.dispute is not None:
            out["dispute"] = self.dispute
        if self.bad is not None:
            out["bad_frame"] = {
                "seq": self.bad.seq,
                "signer": None
                if self.bad.signer is None
                else {
                    "seat": None if self.bad.signer.seat is None else str(self.bad.signer.seat),
                    "name": self.bad.signer.name,
                    "fingerprint": self.bad.signer.fingerprint,
                },
                "reason": self.bad.reason,
                "evidence": self.bad.evidence,
            }
        return out


def signer_of(session: Observer, seat: Seat | None) -> Signer | None:
    if seat is None:
        return None
    key = session.keys.get(seat)
    return Signer(seat, session.names.get(seat, str(seat)), hashing.fingerprint(key) if key else "")


def audit_frames(
    frames: Sequence[bytes],
    evidence: Sequence[bytes] = (),
    torn: TornTail | None = None,
    *,
    on_step: Callable[[Observer, Step], None] | None = None,
) -> Verdict:
    """Audit a transcript given as its frames (and any evidence frames).

    ``on_step`` sees the observer after each frame (the replay viewer
    collects its positions that way, without checking everything twice).
    """
    observer = Observer()
    bad: BadFrame | None = None
    for index, raw in enumerate(frames):
        step = observer.receive(raw)
        if on_step is not None:
            on_step(observer, step)
        if observer.dispute is not None and observer.dispute.detected_by is None:
            # Found by the audit itself: proof. (A player's dispute that the
            # audit cannot confirm ends the transcript without proving anything.)
            bad = _bad_from_dispute(observer, observer.dispute, frames, raw)
            break
        if step.accepted is None:
            bad = BadFrame(index, None, _unplaced(observer, index, raw, step.events), raw.hex())
            break
    if bad is None:
        # No more frames: what was deferred until a reveal that never came.
        observer.finish()
        if observer.dispute is not None and observer.dispute.detected_by is None:
            bad = _bad_from_dispute(observer, observer.dispute, frames, frames[-1])
    verdict = _verdict(observer, bad, len(frames), torn)
    if verdict.kind is VerdictKind.INVALID and verdict.bad is not None and verdict.bad.signer:
        return verdict  # a proof against a player's frame: the audit stops there
    # The EVIDENCE records are weighed against the transcript as far as it goes;
    # a proof among them names its signer, whatever follows in the file (a
    # record that is no transcript frame proves nothing against anyone).
    weighed = weigh_evidence(observer, evidence)
    if weighed.proof is not None:
        proof = weighed.proof
        if verdict.kind is VerdictKind.INVALID and verdict.bad is not None:
            proof_note = f"the file also stops being a transcript at frame {verdict.bad.seq}: "
            proof_note += verdict.bad.reason
        else:
            proof_note = ""
        verdict = _verdict(observer, None, len(frames), torn)
        verdict.kind = VerdictKind.INVALID
        verdict.bad = proof
        verdict.summary = f"INVALID: {proof.signer} {proof.reason} (evidence record)"
        if proof_note:
            verdict.notes.append(proof_note)
        return verdict
    if verdict.kind is not VerdictKind.INVALID and not observer.is_over and weighed.crossed:
        verdict = _judge_crossed_dispute(frames, weighed.crossed, len(frames), torn)
    return verdict


def _unplaced(observer: Observer, index: int, raw: bytes, events: Sequence[object]) -> str:
    """Why the record at ``index`` is no next frame of the transcript, saying
    what is wrong (its form, position, chain, game or signature) and, where a
    player's key verifies it, whose it is (which proves nothing against them:
    anyone can copy a signed frame into a file)."""
    reasons = "; ".join(_describe(e) for e in events) or "not accepted"
    try:
        frame: wire.Frame | None = wire.decode_frame(raw, allow_unknown_fields=True)
    except wire.MalformedFrame:
        frame = None
    signer = None
    if frame is not None:
        keys = dict(observer.keys)
        if frame.seq == 0 and isinstance(frame.message, wire.Hello):
            keys.setdefault(Seat.JOINER, frame.message.key)
        if isinstance(frame.message, wire.Welcome):
            keys.setdefault(Seat.HOST, frame.message.key)
        signer = next((seat for seat, key in keys.items() if frame.signed_by(key)), None)
    what = f"record {index} is not the transcript's next frame ({index}): {reasons}"
    if signer is not None:
        what += (
            f" (it is signed by the {signer}'s key, but a signed frame out of place "
            "proves nothing against its signer)"
        )
    return what


def _describe(event: object) -> str:
    if isinstance(event, DuplicateIgnored):
        return f"it is a copy of frame {event.seq}"
    if isinstance(event, FrameGap):
        return f"it claims position {event.got}"
    reason = getattr(event, "reason", None)
    if reason is not None:
        return str(reason)
    return type(event).__name__


def _bad_from_dispute(
    observer: Observer, info: DisputeInfo, frames: Sequence[bytes], raw: bytes
) -> BadFrame:
    offending = frames[info.seq] if info.seq < len(frames) else raw
    return BadFrame(info.seq, signer_of(observer, info.offender), info.reason, offending.hex())


def _verdict(
    observer: Observer, bad: BadFrame | None, count: int, torn: TornTail | None
) -> Verdict:
    verdict = Verdict(kind=VerdictKind.VALID, frames=count, summary="")
    if observer.game_id is not None:
        verdict.game_id = observer.game_id.hex()
    for seat in Seat:
        if seat in observer.names:
            verdict.names[str(seat)] = observer.names[seat]
            verdict.fingerprints[str(seat)] = hashing.fingerprint(observer.keys[seat])
    if observer.options is not None:
        verdict.options = {"suits": observer.options.suits, "rounds": observer.options.rounds}
    if observer.match is not None:
        verdict.round_scores = [list(s) for s in observer.match.round_scores]
        verdict.totals = list(observer.match.totals)
    verdict.torn = torn
    if bad is not None:
        verdict.kind = VerdictKind.INVALID
        verdict.bad = bad
        if bad.signer is not None:
            verdict.summary = f"INVALID at frame {bad.seq}, signed by {bad.signer}: {bad.reason}"
        else:
            verdict.summary = (
                f"INVALID at frame {bad.seq}: {bad.reason}. The file is no transcript from "
                "there on; this names neither player (a replay file is an unsigned container)"
            )
        return verdict
    if observer.dispute is not None:
        info = observer.dispute
        verdict.kind = VerdictKind.INCOMPLETE
        accuser = (
            observer.names.get(info.detected_by, str(info.detected_by))
            if (info.detected_by is not None)
            else "?"
        )
        verdict.dispute = (
            f"the {info.detected_by} ({accuser}) stopped the match, accusing the "
            f"{info.offender} of frame {info.seq}: {info.reason}"
        )
        verdict.summary = (
            f"INCOMPLETE: {verdict.dispute}; this file holds no frame that proves it "
            "(every frame in it verifies)"
        )
        return verdict
    if observer.is_over and (observer.sealed or observer.resigned is not None):
        outcome = observer.outcome
        assert outcome is not None
        if outcome.winner is not None:
            verdict.winner_seat = str(Seat(outcome.winner))
            verdict.winner = observer.names.get(Seat(outcome.winner))
        if observer.resigned is not None:
            verdict.resigned = observer.names.get(observer.resigned, str(observer.resigned))
            verdict.summary = (
                f"VALID: {count} frames; the {observer.resigned} ({verdict.resigned}) resigned; "
                f"{verdict.winner} wins"
            )
        else:
            result = "a draw" if outcome.winner is None else f"{verdict.winner} wins"
            verdict.summary = (
                f"VALID: {count} frames, sealed by both players; totals "
                f"{outcome.totals[0]}:{outcome.totals[1]}, {result}"
            )
        if torn is not None:
            # Bytes after the end change nothing: no frame can follow it.
            end = "the sealed match" if observer.sealed else "the end of the match"
            verdict.notes.append(
                f"the file has {torn.trailing} trailing bytes after {end} ({torn.reason}); "
                "they are ignored"
            )
        return verdict
    verdict.kind = VerdictKind.INCOMPLETE
    verdict.owed = observer.owed()
    where = f"after frame {count - 1}" if count else "before any frame"
    if torn is not None:
        verdict.summary = (
            f"INCOMPLETE: the file is torn {where} ({torn.reason}); valid so far; {verdict.owed}"
        )
    else:
        verdict.summary = f"INCOMPLETE: valid so far ({count} frames); {verdict.owed}"
    return verdict


@dataclass
class Weighed:
    """What a file's EVIDENCE records show (PROTOCOL §6.4)."""

    proof: BadFrame | None = None
    """The first proof of misconduct, in file order."""
    crossed: wire.Frame | None = None
    """The first dispute that crossed the transcript's frames in flight."""


def weigh_evidence(observer: Observer, evidence: Sequence[bytes]) -> Weighed:
    """Weigh the EVIDENCE records against the transcript ``observer`` holds.

    Each on the transcript's history is judged by the rule the live session
    uses too (:func:`lcnet.protocol.evidence.judge`): whose position it was comes from
    the phase, never from the frame held there. Two different records one
    player signed for one position prove equivocation even when neither is
    the transcript's. The first proof in file order decides; otherwise the
    first dispute that crossed the transcript's frames in flight is returned,
    to be judged as the frame it was signed as.
    """
    chain = observer.chain
    out = Weighed()
    seen: dict[tuple[int, Seat], bytes] = {}
    for frame, signer in observer.on_history(evidence):
        seq = frame.seq
        assert seq is not None
        earlier = seen.setdefault((seq, signer), frame.raw)
        if earlier != frame.raw:
            judged = rules.Judgement(
                rules.Finding.EQUIVOCATION,
                f"signed two different frames for position {seq} (equivocation; both are "
                "evidence records)",
            )
        else:
            judged = rules.judge(
                signer=signer,
                message=frame.message,
                seq=seq,
                speaker=observer.speakers[seq],
                held=[observer.signer_of(f) for f in chain[seq:]],
            )
        if judged.finding.proves:
            out.proof = BadFrame(seq, signer_of(observer, signer), judged.reason, frame.raw.hex())
            return out
        if judged.finding is rules.Finding.CROSSED and out.crossed is None:
            out.crossed = frame
    return out


def _judge_crossed_dispute(
    frames: Sequence[bytes], dispute: wire.Frame, count: int, torn: TornTail | None
) -> Verdict:
    """Judge a dispute that crossed frames in flight as the frame it was signed as:
    the one after the transcript its signer had seen."""
    assert dispute.seq is not None
    observer = Observer()
    for raw in frames[: dispute.seq]:
        observer.receive(raw)
    observer.receive_frame(dispute)
    bad = None
    info = observer.dispute
    if info is not None and info.detected_by is None:
        # The accused frame is before the dispute, or the dispute itself
        # (an accuser's own bad seed), whose bytes are the evidence.
        bad = _bad_from_dispute(observer, info, frames[: dispute.seq], dispute.raw)
    verdict = _verdict(observer, bad, count, torn)
    if verdict.dispute is not None:
        verdict.dispute += f" (the dispute crossed frame {dispute.seq} in flight)"
        verdict.summary = (
            f"INCOMPLETE: {verdict.dispute}; this file holds no frame that proves it "
            "(every frame in it verifies)"
        )
    return verdict


def audit_contents(contents: ReplayContents) -> Verdict:
    """The verdict on one file: its transcript's, or DAMAGED (see :func:`file_verdict`)."""
    torn = None if contents.damage else contents.torn
    return file_verdict(contents, audit_frames(contents.frames, all_evidence(contents), torn))


def all_evidence(contents: ReplayContents) -> list[bytes]:
    """Every evidence record of the file, before and after any damage."""
    return contents.evidence + [e for d in contents.damage for e in d.evidence_after]


def file_verdict(contents: ReplayContents, prefix: Verdict) -> Verdict:
    """The verdict on a whole file, given the verdict on its intact prefix.

    An undamaged file's verdict is its transcript's. A damaged file is
    DAMAGED, with the prefix's verdict for information only, unless the
    prefix already proves a fault: that proof stands, whatever the damage hid.
    Records of an unknown kind are mentioned in a note and change nothing.
    """
    notes = _unknown_notes(contents)
    if not contents.damage:
        prefix.notes.extend(notes)
        return prefix
    if prefix.proves_a_fault:
        prefix.damage = list(contents.damage)
        prefix.notes.append(f"the file is also {contents.describe_damage()}")
        prefix.notes.extend(notes)
        return prefix
    return damaged_verdict(
        contents,
        f"DAMAGED: the file is {contents.describe_damage()}{_positions_after(contents)}; "
        f"the intact part before the damage shows (for information only): {prefix.summary}",
        prefix,
        prefix,
        notes,
    )


def damaged_verdict(
    contents: ReplayContents, summary: str, players: Verdict, prefix: Verdict, notes: list[str]
) -> Verdict:
    """A DAMAGED verdict: the players and options as ``players`` knows them,
    the scores of the intact ``prefix`` (given for information)."""
    return Verdict(
        kind=VerdictKind.DAMAGED,
        frames=prefix.frames,
        summary=summary,
        names=players.names,
        fingerprints=players.fingerprints,
        options=players.options,
        round_scores=prefix.round_scores,
        totals=prefix.totals,
        torn=contents.torn,
        notes=notes,
        damage=list(contents.damage),
        prefix=prefix,
    )


def _unknown_notes(contents: ReplayContents) -> list[str]:
    if not contents.unknown:
        return []
    kinds = sorted({u.kind for u in contents.unknown})
    return [
        f"the file holds {len(contents.unknown)} intact record(s) of a kind this lcnet does "
        f"not know (kind {', '.join(map(str, kinds))}, first at byte "
        f"{contents.unknown[0].offset}), perhaps from a later version; skipped, since only "
        "frame and evidence records are judged"
    ]


def frame_position(raw: bytes) -> int | None:
    """The position (``seq``) a frame claims, if it can be decoded."""
    try:
        return wire.decode_frame(raw, allow_unknown_fields=True).seq
    except wire.MalformedFrame:
        return None


def _positions_after(contents: ReplayContents) -> str:
    runs = []
    for d in contents.damage:
        first = frame_position(d.frames_after[0]) if d.frames_after else None
        if first is not None:
            runs.append(f"{first}-{first + len(d.frames_after) - 1}")
    if not runs:
        return ""
    return f"; the frames after it claim positions {', '.join(runs)}"


def audit_file(path: str | Path) -> Verdict:
    """Audit one replay file (raises ReplayFileError if it is not one)."""
    return audit_contents(read_replay(path))
