"""Offline audit of a match from its replay file(s): one verdict, with evidence.

The transcript is fed, frame by frame, to an observer
:class:`~lcnet.session.Session` — the very state machine the peers ran — which
checks framing, every signature, the chain, every move against the engine,
commitments, passes, keys, reveals and the result. The verdict is one of:

* **valid**: the match is complete and sealed by both players' results;
* **incomplete**: everything so far is valid; someone owes the next frame
  (or the file is torn after some frame);
* **invalid**: the first bad frame, who signed it, what is wrong with it;
* **damaged**: bad bytes in the middle of the file, with intact records
  after them (not a torn tail: a crash only tears the end). The verdict of
  the intact prefix is given for information. With the other player's file,
  :func:`repair` fills the gap from it and the merged transcript is judged.

Evidence records (frames the peer signed that were not accepted into the
chain) are checked too: a second frame signed by the same player for the
same position is proof of equivocation. With two files of the same match,
:func:`compare` finds where they diverge and whether a signer equivocated.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lcnet import evidence as rules
from lcnet import hashing, wire
from lcnet.errors import ExitCode
from lcnet.events import DisputeInfo, DuplicateIgnored, FrameGap, Step
from lcnet.replaylog import Damage, ReplayContents, TornTail, read_replay
from lcnet.seat import Seat
from lcnet.session import Session


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
    resigned: str | None = None
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
                    "first_position_after": _position(d.frames_after[0])
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


def _signer(session: Session, seat: Seat | None) -> Signer | None:
    if seat is None:
        return None
    key = session.keys.get(seat)
    return Signer(seat, session.names.get(seat, str(seat)), hashing.fingerprint(key) if key else "")


def audit_frames(
    frames: Sequence[bytes],
    evidence: Sequence[bytes] = (),
    torn: TornTail | None = None,
    *,
    on_step: Callable[[Session, Step], None] | None = None,
) -> Verdict:
    """Audit a transcript given as its frames (and any evidence frames).

    ``on_step`` sees the observer after each frame (the replay viewer
    collects its positions that way, without checking everything twice).
    """
    observer = Session.observer()
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
        observer.check_deferred()
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


def _unplaced(observer: Session, index: int, raw: bytes, events: Sequence[object]) -> str:
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
    observer: Session, info: DisputeInfo, frames: Sequence[bytes], raw: bytes
) -> BadFrame:
    offending = frames[info.seq] if info.seq < len(frames) else raw
    return BadFrame(info.seq, _signer(observer, info.offender), info.reason, offending.hex())


def _verdict(observer: Session, bad: BadFrame | None, count: int, torn: TornTail | None) -> Verdict:
    verdict = Verdict(kind=VerdictKind.VALID, frames=count, summary="")
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
        verdict.winner = (
            None if outcome.winner is None else observer.names.get(Seat(outcome.winner))
        )
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


def _on_history(observer: Session, evidence: Sequence[bytes]) -> Iterator[tuple[wire.Frame, Seat]]:
    """The evidence records that can prove something, with their signers.

    A record that does not decode (fields of a newer minor version only from
    a signer that announced it, §5.5), that no player's key verifies, whose
    position is 0 or not in the transcript, or that is not on the transcript's
    history (this game, ``prev`` the hash of the transcript's frame before it)
    proves nothing: anyone can copy an old frame into a file, and a fork can
    be either side's doing (PROTOCOL §6.4). Nor does a copy of the
    transcript's own frame.
    """
    chain = observer.chain
    for raw in evidence:
        try:
            frame = wire.decode_frame(raw, allow_unknown_fields=True)
        except wire.MalformedFrame:
            continue
        seq = frame.seq
        signer = next(
            (
                s
                for s in (Seat.JOINER, Seat.HOST)
                if s in observer.keys and frame.signed_by(observer.keys[s])
            ),
            None,
        )
        if signer is None or not seq or seq >= len(chain):
            continue
        if observer.unannounced_fields(frame, signer) is not None:
            continue
        if frame.game != observer.game_id or frame.prev != chain[seq - 1].hash:
            continue
        if chain[seq].raw != raw:
            yield frame, signer


def weigh_evidence(observer: Session, evidence: Sequence[bytes]) -> Weighed:
    """Weigh the EVIDENCE records against the transcript ``observer`` holds.

    Each on the transcript's history is judged by the rule the live session
    uses too (:func:`lcnet.evidence.judge`): whose position it was comes from
    the phase, never from the frame held there. Two different records one
    player signed for one position prove equivocation even when neither is
    the transcript's. The first proof in file order decides; otherwise the
    first dispute that crossed the transcript's frames in flight is returned,
    to be judged as the frame it was signed as.
    """
    chain = observer.chain
    out = Weighed()
    seen: dict[tuple[int, Seat], bytes] = {}
    for frame, signer in _on_history(observer, evidence):
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
                held=[_signer_seat(observer, f) for f in chain[seq:]],
            )
        if judged.finding.proves:
            out.proof = BadFrame(seq, _signer(observer, signer), judged.reason, frame.raw.hex())
            return out
        if judged.finding is rules.Finding.CROSSED and out.crossed is None:
            out.crossed = frame
    return out


def _signer_seat(observer: Session, frame: wire.Frame) -> Seat | None:
    return next((s for s, key in observer.keys.items() if frame.signed_by(key)), None)


def _judge_crossed_dispute(
    frames: Sequence[bytes], dispute: wire.Frame, count: int, torn: TornTail | None
) -> Verdict:
    """Judge a dispute that crossed frames in flight as the frame it was signed as:
    the one after the transcript its signer had seen."""
    assert dispute.seq is not None
    observer = Session.observer()
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
    return _damaged(
        contents,
        f"DAMAGED: the file is {contents.describe_damage()}{_positions_after(contents)}; "
        f"the intact part before the damage shows (for information only): {prefix.summary}",
        prefix,
        prefix,
        notes,
    )


def _damaged(
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


def _position(raw: bytes) -> int | None:
    """The position (``seq``) a frame claims, if it can be decoded."""
    try:
        return wire.decode_frame(raw, allow_unknown_fields=True).seq
    except wire.MalformedFrame:
        return None


def _positions_after(contents: ReplayContents) -> str:
    runs = []
    for d in contents.damage:
        first = _position(d.frames_after[0]) if d.frames_after else None
        if first is not None:
            runs.append(f"{first}-{first + len(d.frames_after) - 1}")
    if not runs:
        return ""
    return f"; the frames after it claim positions {', '.join(runs)}"


# ------------------------------------------------------------- repair


@dataclass(frozen=True)
class Repair:
    """A damaged file's transcript with its gaps filled from the other player's file."""

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


def _placed_runs(contents: ReplayContents) -> list[tuple[Damage, int | None]]:
    """Each damage with the position its following frames start at (``None``: no
    frames follow it, or they do not carry consecutive positions)."""
    out: list[tuple[Damage, int | None]] = []
    for d in contents.damage:
        start = _position(d.frames_after[0]) if d.frames_after else None
        if start is not None and any(
            _position(raw) != start + i for i, raw in enumerate(d.frames_after)
        ):
            start = None
        out.append((d, start))
    return out


def known_frames(contents: ReplayContents) -> dict[int, bytes]:
    """Every frame of a file that can be placed: the intact prefix by its index,
    and the frames after each damage by the positions they carry."""
    known = dict(enumerate(contents.frames))
    for d, start in _placed_runs(contents):
        if start is not None:
            for i, raw in enumerate(d.frames_after):
                known.setdefault(start + i, raw)
    return known


def repair(damaged: ReplayContents, other: ReplayContents, source: str) -> Repair:
    """Fill each gap the damage left in ``damaged``'s transcript from ``other``.

    The two players' files hold the same frames at the same positions (up to
    where one stopped), and each frame carries its position, so a missing
    position is taken from the other file. If no frame follows the last
    damage, how many it hid is unknown: every frame the other file holds from
    there on is taken, and there must be at least one. The repair fails if the
    other file lacks a missing position (it is damaged there too, or shorter),
    if it is of another match, or if the frames after a damage cannot be placed.
    """
    theirs = known_frames(other)
    ours = known_frames(damaged)
    shared = sorted(set(theirs) & set(ours))
    if not shared or theirs[shared[0]] != ours[shared[0]]:
        return Repair(source, [], None, f"{source} is not of the same match")
    merged = list(damaged.frames)
    filled: list[int] = []

    def fill(upto: int | None) -> bool:
        """Take the other file's frames up to position ``upto`` (or all it has)."""
        took = False
        while (upto is None or len(merged) < upto) and len(merged) in theirs:
            filled.append(len(merged))
            merged.append(theirs[len(merged)])
            took = True
        return took if upto is None else len(merged) == upto

    runs = _placed_runs(damaged)
    for d, start in runs:
        if d.frames_after and start is None:
            return Repair(
                source,
                [],
                None,
                f"the frames after the damage at byte {d.offset} do not carry consecutive "
                "positions, so they cannot be placed",
            )
        if start is None:
            continue  # no frame after this damage: the next one (or the end) decides
        if start < len(merged):
            return Repair(
                source,
                [],
                None,
                f"the frames after the damage at byte {d.offset} claim positions from "
                f"{start}, which come before it",
            )
        if not fill(start):
            return Repair(
                source,
                [],
                None,
                f"{source} holds no frame at position {len(merged)} (it is damaged there too "
                "or stops before it), so it cannot fill the gap",
            )
        merged.extend(d.frames_after)
    tail_open = runs[-1][1] is None
    if tail_open and not fill(None):
        return Repair(
            source,
            [],
            None,
            f"no frame follows the damage at byte {runs[-1][0].offset}, so how many frames "
            f"it hid is unknown, and {source} holds no frame after position {len(merged) - 1}",
        )
    # The merged transcript must be one chain: every frame at its own position,
    # each naming the one before it and this game (PROTOCOL §7.2). Whatever does
    # not chain at both ends is not spliced in.
    broken = _chain_break(merged)
    if broken is not None:
        return Repair(
            source,
            [],
            None,
            f"the merged frames do not form one chain at position {broken} (the files "
            "diverge there, or a frame is not where it claims), so it cannot fill the gap",
        )
    repaired = ReplayContents(
        header=damaged.header,
        frames=merged,
        notes=damaged.notes,
        evidence=all_evidence(damaged),
        torn=None if tail_open else damaged.torn,
        valid_bytes=damaged.valid_bytes,
        unknown=damaged.unknown,
    )
    last_own = max(ours)
    return Repair(source, filled, repaired, unvouched=[p for p in filled if p > last_own])


def _chain_break(frames: Sequence[bytes]) -> int | None:
    """The first position at which ``frames`` stop being one chain, if they do."""
    game = hashing.game_id(frames[0]) if frames else None
    before: wire.Frame | None = None
    for position, raw in enumerate(frames):
        try:
            frame = wire.decode_frame(raw, allow_unknown_fields=True)
        except wire.MalformedFrame:
            return position
        if frame.seq != position:
            return position
        if before is not None and (frame.prev != before.hash or frame.game != game):
            return position
        before = frame
    return None


def _chains(before: bytes, after: bytes) -> bool:
    """Whether frame ``after`` names frame ``before`` as its predecessor."""
    try:
        first = wire.decode_frame(before, allow_unknown_fields=True)
        second = wire.decode_frame(after, allow_unknown_fields=True)
    except wire.MalformedFrame:
        return False
    return second.prev == first.hash


def audit_pair(
    first: ReplayContents, second: ReplayContents, names: tuple[str, str]
) -> tuple[list[Verdict], Comparison]:
    """Audit both players' files of one match: each damaged file is repaired
    from the other if it can be, and the two (repaired) transcripts compared."""
    pair = (first, second)
    used: list[ReplayContents] = []
    verdicts: list[Verdict] = []
    for index, contents in enumerate(pair):
        if not contents.damage:
            used.append(contents)
            verdicts.append(audit_contents(contents))
            continue
        fix = repair(contents, pair[1 - index], names[1 - index])
        if fix.contents is None:
            verdict = audit_contents(contents)
            verdict.notes.append(f"it cannot be repaired from {fix.source}: {fix.problem}")
            used.append(contents)
        else:
            used.append(fix.contents)
            verdict = _repaired_verdict(contents, fix)
        verdicts.append(verdict)
    comparison = compare(used[0], used[1])
    for index in range(2):
        taken = verdicts[index].repaired
        if taken is not None and taken.filled:
            which = ("first", "second")
            comparison = dataclasses.replace(
                comparison,
                summary=f"{comparison.summary} (the {which[index]} file's position(s) "
                f"{_ranges(taken.filled)} were taken from the {which[1 - index]}, so the two "
                "agree there by construction)",
            )
    return verdicts, comparison


def _repaired_verdict(contents: ReplayContents, fix: Repair) -> Verdict:
    """The verdict on a damaged file repaired from the other file.

    Where every frame taken lies between two of the file's own frames, the
    chain pins it and the merged transcript is the file's own: its verdict
    stands. Frames taken after the file's last own frame are vouched for by
    the other file alone, so they can prove a fault only against a frame's
    signer (its signature is the proof, wherever the frame came from); any
    other verdict stays DAMAGED, with what the repair shows for information:
    damage never turns into a claim the damaged file's own bytes do not prove.
    """
    assert fix.contents is not None
    merged = audit_contents(fix.contents)
    taken = _ranges(fix.filled) or "none"
    note = (
        f"this file is {contents.describe_damage()}; it was repaired from {fix.source}, "
        f"which gave the frame(s) at position(s) {taken}"
        + (
            ""
            if fix.filled
            else " (the damaged bytes held no frame; a lost note or evidence record "
            "cannot be recovered from the other file)"
        )
    )
    proven = merged.proves_a_fault
    # A damaged file that also ends cut off: the cut may be damage too, so where
    # its transcript ended is not shown by its bytes (nor by the other file's).
    open_end = fix.unvouched or contents.torn is not None
    if not open_end or proven:
        merged.repaired = fix
        merged.damage = list(contents.damage)
        merged.summary += f" [repaired from {fix.source}]"
        merged.notes.append(note)
        if fix.unvouched:
            merged.notes.append(
                f"the frame(s) at position(s) {_ranges(fix.unvouched)} come from "
                f"{fix.source} alone (no frame of this file vouches for them); the proof "
                "rests on the signature of the frame it names"
            )
        return merged
    prefix = audit_contents(contents)
    if fix.unvouched:
        why = (
            f"its frame(s) at position(s) {_ranges(fix.unvouched)} follow this file's last "
            f"own frame, so only {fix.source} vouches for them"
        )
    else:
        assert contents.torn is not None
        why = (
            f"this file also ends in a record cut off at byte {contents.torn.offset}, so "
            "where its transcript ended is not shown"
        )
    verdict = _damaged(
        contents,
        f"DAMAGED: the file is {contents.describe_damage()}; {fix.source} fills it, "
        f"but {why}. With them the transcript shows (for information only, not a "
        f"claim against this file's owner): {merged.summary}",
        merged,
        prefix,
        [note],
    )
    verdict.repaired = fix
    verdict.shows = merged
    return verdict


def _ranges(positions: Sequence[int]) -> str:
    """``[3, 4, 5, 9]`` as ``3-5, 9``."""
    runs: list[list[int]] = []
    for p in positions:
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def audit_file(path: str | Path) -> Verdict:
    """Audit one replay file (raises ReplayFileError if it is not one)."""
    return audit_contents(read_replay(path))


# ------------------------------------------------------------- two files


@dataclass(frozen=True)
class Comparison:
    """How two replay files of one match relate."""

    same_match: bool
    common: int
    """Frames the two files share from the start."""
    lengths: tuple[int, int]
    equivocation: BadFrame | None
    summary: str
    longer: int | None = None
    """0 or 1: the file whose transcript goes on where the other's stops (the
    other's frames are a prefix of it); ``None`` otherwise."""


def compare(first: ReplayContents, second: ReplayContents) -> Comparison:
    """Where two files diverge, and whether one signer signed two frames for one position."""
    a, b = first.frames, second.frames
    if not a or not b or a[0] != b[0]:
        return Comparison(
            False,
            0,
            (len(a), len(b)),
            None,
            "the files are not of the same match (their first frames differ)",
        )
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    if common == len(a) == len(b):
        return Comparison(
            True, common, (len(a), len(b)), None, f"the files hold the same {common} frames"
        )
    if common == min(len(a), len(b)):
        longer = "first" if len(a) > len(b) else "second"
        return Comparison(
            True,
            common,
            (len(a), len(b)),
            None,
            f"the files agree on {common} frames; the {longer} goes on "
            f"to frame {max(len(a), len(b)) - 1}",
            longer=0 if len(a) > len(b) else 1,
        )
    # Both have a frame at position `common`, and they differ.
    observer = Session.observer()
    for raw in a[:common]:
        observer.receive(raw)
    proof = None
    try:
        fa: wire.Frame | None = wire.decode_frame(a[common], allow_unknown_fields=True)
        fb: wire.Frame | None = wire.decode_frame(b[common], allow_unknown_fields=True)
    except wire.MalformedFrame:
        fa = fb = None
    if fa is not None and fb is not None:
        for seat, key in observer.keys.items():
            same_history = (
                fa.seq == fb.seq == common
                and fa.game == fb.game
                and fa.prev == fb.prev == hashing.chain_hash(a[common - 1])
            )
            if same_history and fa.signed_by(key) and fb.signed_by(key):
                proof = BadFrame(
                    common,
                    _signer(observer, seat),
                    f"signed two different frames for position {common} (equivocation)",
                    f"{a[common].hex()} / {b[common].hex()}",
                )
    summary = f"the files diverge at frame {common}"
    if proof is not None:
        summary += f": {proof.signer} {proof.reason} — proof against that signer"
    return Comparison(True, common, (len(a), len(b)), proof, summary)
