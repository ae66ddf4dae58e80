"""Two replay files of one match, side by side: where they agree, where they
diverge, and whether one signer signed two frames for one position (a proof
of equivocation against that signer)."""

from __future__ import annotations

from dataclasses import dataclass

from lcnet.audit.verdict import BadFrame, signer_of
from lcnet.deck import hashing
from lcnet.protocol import wire
from lcnet.protocol.observer import Observer
from lcnet.store.replayfile import ReplayContents


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
    observer = Observer()
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
                    signer_of(observer, seat),
                    f"signed two different frames for position {common} (equivocation)",
                    f"{a[common].hex()} / {b[common].hex()}",
                )
    summary = f"the files diverge at frame {common}"
    if proof is not None:
        summary += f": {proof.signer} {proof.reason} — proof against that signer"
    return Comparison(True, common, (len(a), len(b)), proof, summary)
