"""A damaged replay file judged with the other player's file of the match.

Bytes in the middle of a file are bad (lcnet.store.replayfile says where); the
other player's file of the same match may hold the frames lost there.
:func:`repair` takes them only where the merged transcript forms one chain,
and :func:`audit_pair` judges both files so, then compares them
(:mod:`lcnet.audit.compare`). docs/PROTOCOL.md §7.2 is the normative rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from lcnet.audit.compare import Comparison, compare
from lcnet.audit.verdict import (
    Repair,
    Verdict,
    all_evidence,
    audit_contents,
    damaged_verdict,
    frame_position,
)
from lcnet.deck import hashing
from lcnet.protocol import wire
from lcnet.store.replayfile import Damage, ReplayContents


def _placed_runs(contents: ReplayContents) -> list[tuple[Damage, int | None]]:
    """Each damage with the position its following frames start at (``None``: no
    frames follow it, or they do not carry consecutive positions)."""
    out: list[tuple[Damage, int | None]] = []
    for d in contents.damage:
        start = frame_position(d.frames_after[0]) if d.frames_after else None
        if start is not None and any(
            frame_position(raw) != start + i for i, raw in enumerate(d.frames_after)
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
    # A damaged file that also ends cut off: the run read after the damage may
    # be one a player planted, whose last length swallows the file's own
    # records, so where its transcript ended is not shown by its bytes (nor by
    # the other file's, which may be that player's). PROTOCOL.md §7.2.
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
            f"this file also ends in a record cut off at byte {contents.torn.offset}: after "
            "damage that is not shown to be what a crash left (a run of records a player "
            "planted in a frame can end so), so neither the frames read after the damage "
            "nor where they stop are shown to be this file's own (PROTOCOL.md §7.2, damage "
            "and a torn end)"
        )
    verdict = damaged_verdict(
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
