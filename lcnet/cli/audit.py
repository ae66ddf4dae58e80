"""``lcnet audit``: re-verify a saved match from its replay file(s) and give a verdict."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import sys
from typing import Any

from lcnet.audit import verdict as audit
from lcnet.audit.compare import Comparison
from lcnet.audit.repair import audit_pair
from lcnet.invocation import command
from lcnet.store.replayfile import ReplayContents, ReplayFileError, read_replay
from lcnet.textsafe import shown

DESCRIPTION = """\
Re-verify a match from its replay file alone: framing, every signature, the
hash chain, every move against the rules engine, the seed commitments, the
deck passes and keys, the reveals and the scores. Prints one verdict:

  valid       the match is complete and sealed by both players' results
  incomplete  valid so far; says who owes the next message (or where the
              file is torn)
  invalid     the first bad frame: its position, who signed it (name and
              fingerprint), what is wrong, and the frame's bytes as evidence
  damaged     bad bytes in the middle of the file with intact records after
              them (a crash only tears the end, so this is not a torn
              tail): where, how many intact records follow, and what the
              intact part before the damage shows (for information only)

Bytes torn off after a sealed match, and records of a kind this lcnet does
not know, change nothing: the verdict says so in a note.

With two files of the same match (one from each player), also says where
they diverge and whether one player signed two different frames for the
same position on the same history (one in each file), which proves that
player cheated. A damaged file is repaired from the other: the frames the
damage hid are taken from it if the merged frames form one chain. Frames
filled in between two of the damaged file's own frames are pinned by its
chain and the merged transcript is judged; frames taken after its own last
frame are vouched for by the other file alone, so the file stays damaged
(the verdict shows what they say, for information) unless they prove a
fault against the signer of a bad frame. If the other file cannot fill the
gap (damaged at the same place, too short, or it does not chain), that file
stays damaged.
"""

EPILOG = """\
exit status: 0 valid, 1 invalid (a player is named: the proof of a fault),
2 damaged, invalid naming no player (a record that is no transcript frame),
unreadable file, files of two matches or bad usage, 3 incomplete. With two
files, or a damaged file whose intact part proves a fault, the strongest
wins: 1 (a proof of a fault stands whatever else is wrong), then 2 (cannot
be judged whole), then 3, then 0. When one file stops where the other goes
on (its frames are the start of the other's), the pair is judged by the
longer transcript: an incomplete file beside its own complete match is 0.

examples:
  lcnet audit replays/3f2a9c1b-host.lcnet
  lcnet audit mine.lcnet theirs.lcnet --json
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet audit`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("file", help="a replay file")
    parser.add_argument("file2", nargs="?", help="the other player's file of the same match")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Judge, then print: the exit status is the verdict's even when the reader
    of the output has gone away (``| head -1``, ``| true``)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = _judge(args)
    try:
        sys.stdout.write(buffer.getvalue())
        sys.stdout.flush()
    except BrokenPipeError:
        # Silence the flush at exit too; the verdict stands.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return code


def _judge(args: argparse.Namespace) -> int:
    paths = [args.file] if args.file2 is None else [args.file, args.file2]
    contents: list[ReplayContents] = []
    unreadable: dict[str, ReplayFileError] = {}
    for path in paths:
        try:
            contents.append(read_replay(path))
        except ReplayFileError as exc:
            unreadable[path] = exc
    if len(unreadable) == len(paths):
        for path in paths[1:]:
            print(f"lcnet audit: {shown(_named(path, unreadable[path]))}", file=sys.stderr)
        return _unreadable(paths[0], unreadable[paths[0]], as_json=args.json)
    if unreadable:
        # One of two files cannot be read at all: the other is still judged,
        # alone (a proof in it stands), and the exit code counts both.
        [(bad_path, error)] = unreadable.items()
        [good_path] = [p for p in paths if p != bad_path]
        verdict = audit.audit_contents(contents[0])
        code = audit.combined_exit_code([verdict.exit_code, error.exit_code])
        if args.json:
            files = [
                dict(verdict.to_json(), file=good_path),
                {
                    "file": bad_path,
                    "verdict": "unreadable",
                    "error": _named(bad_path, error),
                    "exit_code": error.exit_code,
                },
            ]
            print(json.dumps({"files": files, "comparison": None}, indent=2))
        else:
            _print_verdict(good_path, verdict)
            print(f"lcnet audit: {shown(_named(bad_path, error))}", file=sys.stderr)
        return code
    comparison: Comparison | None = None
    if len(contents) == 2:
        verdicts, comparison = audit_pair(contents[0], contents[1], (paths[0], paths[1]))
    else:
        verdicts = [audit.audit_contents(contents[0])]
        if verdicts[0].kind is audit.VerdictKind.DAMAGED:
            verdicts[0].notes.append(
                "the other player's file of this match can repair it: "
                f"{command()} audit {paths[0]} OTHER-FILE"
            )
    # Precedence (audit.SEVERITY): proof of a fault (1), then a damaged file
    # or files of two matches (2), then incomplete (3), then valid (0).
    codes = [v.exit_code for v in verdicts]
    if comparison is not None:
        codes, comparison = _extended(codes, verdicts, comparison, paths)
    if comparison is not None and not comparison.same_match:
        codes.append(2)
    if comparison is not None and comparison.equivocation:
        codes.append(1)
    code = audit.combined_exit_code(codes)
    if args.json:
        print(json.dumps(_json(paths, verdicts, comparison), indent=2))
    else:
        for path, verdict in zip(paths, verdicts, strict=True):
            _print_verdict(path, verdict)
        if comparison is not None:
            print(shown(f"both files: {comparison.summary}"))
    return code


def _extended(
    codes: list[int],
    verdicts: list[audit.Verdict],
    comparison: Comparison,
    paths: list[str],
) -> tuple[list[int], Comparison]:
    """When one file's transcript is a prefix of the other's (the other went
    on), the pair is judged by the longer transcript: the shorter file's
    "incomplete" is no verdict on the match, only on where it stopped. A
    proof of a fault in the shorter file (its evidence records) stands."""
    longer = comparison.longer
    if longer is None or any(v.damage for v in verdicts):
        return codes, comparison
    shorter = 1 - longer
    if verdicts[shorter].kind is not audit.VerdictKind.INCOMPLETE:
        return codes, comparison
    summary = (
        f"{comparison.summary}; the pair is judged by {paths[longer]}, whose transcript "
        f"extends {paths[shorter]}'s"
    )
    return [codes[longer]], dataclasses.replace(comparison, summary=summary)


def _named(path: str, exc: ReplayFileError) -> str:
    """The error, naming the file (escaped) once."""
    reason, name = str(exc), shown(path)
    return reason if name in reason else f"{name}: {reason}"


def _unreadable(path: str, exc: ReplayFileError, *, as_json: bool) -> int:
    """A file that cannot be read at all: the error names it (as JSON with --json)."""
    message = _named(path, exc)
    if not as_json:
        raise ReplayFileError(message) from None
    print(
        json.dumps(
            {"file": path, "verdict": "unreadable", "error": message, "exit_code": exc.exit_code},
            indent=2,
        )
    )
    return exc.exit_code


def _json(
    paths: list[str], verdicts: list[audit.Verdict], comparison: Comparison | None
) -> dict[str, Any]:
    if comparison is None:
        out = verdicts[0].to_json()
        out["file"] = paths[0]
        return out
    return {
        "files": [dict(v.to_json(), file=p) for p, v in zip(paths, verdicts, strict=True)],
        "comparison": {
            "same_match": comparison.same_match,
            "common_frames": comparison.common,
            "frames": list(comparison.lengths),
            "equivocation": None
            if comparison.equivocation is None
            else {
                "seq": comparison.equivocation.seq,
                "signer": str(comparison.equivocation.signer),
                "evidence": comparison.equivocation.evidence,
            },
            "summary": comparison.summary,
        },
    }


def _print_verdict(path: str, verdict: audit.Verdict) -> None:
    """The verdict as lines, each escaped as a whole: the file name, the players'
    names and anything a text quotes from the file reach the terminal only
    through :func:`~lcnet.textsafe.shown`."""
    for line in _verdict_lines(path, verdict):
        print(shown(line))


def _verdict_lines(path: str, verdict: audit.Verdict) -> list[str]:
    lines = [f"{path}: {verdict.summary}"]
    for seat, name in verdict.names.items():
        lines.append(f"  {seat}: {name}, key {verdict.fingerprints[seat]}")
    if verdict.options:
        rounds = verdict.options["rounds"]
        lines.append(
            f"  options: {verdict.options['suits']} suits, {rounds} round{'s' * (rounds != 1)}"
        )
    for number, scores in enumerate(verdict.round_scores, start=1):
        lines.append(f"  round {number}: {scores[0]} : {scores[1]}")
    if verdict.bad is not None:
        lines.append(f"  bad frame: {verdict.bad.seq}")
        lines.append(
            f"  signed by: {verdict.bad.signer or 'no player (the signature does not verify)'}"
        )
        lines.append(f"  what is wrong: {verdict.bad.reason}")
        lines.append(f"  evidence (the frame's exact bytes, hex): {verdict.bad.evidence}")
    lines.extend(f"  note: {note}" for note in verdict.notes)
    return lines
