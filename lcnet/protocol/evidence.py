"""What a signed frame outside the transcript proves (docs/PROTOCOL.md §6.4).

One rule, used by the live session when a peer's frame arrives for a position
it already holds, and by the audit when it weighs a file's EVIDENCE records.
The frame must already be known to be on the transcript's history (this
game, ``prev`` the chain hash of the transcript's frame before it) and to
differ from the transcript's frame at its position; who signed it is known.

Whose turn a position was is decided by the **phase**, from the frames
before it, never by the frame the transcript happens to hold there: either
player may put a ``dispute`` at any position, so the frame held at a
position says nothing about whose position it was.

* The signer also signed the transcript's frame at that position: two
  frames for one position, **equivocation**.
* Any other message but a ``dispute`` from a player who was not the phase's
  speaker: a frame for a position that was not its signer's (**out of turn**;
  a ``resign`` included, which only the speaker may send).
* Any other message but a ``dispute`` from the speaker: its own frame, which
  crossed the other player's ``dispute`` held there. **Nothing** is proven:
  a player cannot be blamed for a frame it was entitled to sign, whoever
  copied it into a file.
* A ``dispute`` whose signer also signed a later transcript frame: that
  later frame follows another frame at the dispute's position, so the signer
  signed two histories that part there (a **fork**, proof like equivocation).
* Any other ``dispute``: every transcript frame from its position on is the
  other player's, so its signer had not seen them when it signed: it
  **crossed them in flight** and is judged as the frame it was signed as.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from lcnet.game.seat import Seat
from lcnet.protocol import wire


class Finding(enum.Enum):
    EQUIVOCATION = "equivocation"
    OUT_OF_TURN = "out of turn"
    FORK = "fork"
    CROSSED = "crossed in flight"
    NOTHING = "nothing"

    @property
    def proves(self) -> bool:
        """Whether the finding is proof of misconduct by the frame's signer."""
        return self in (Finding.EQUIVOCATION, Finding.OUT_OF_TURN, Finding.FORK)


@dataclass(frozen=True)
class Judgement:
    finding: Finding
    reason: str
    """What the frame shows, in words (the signer is named by the caller)."""


def judge(
    *,
    signer: Seat,
    message: wire.Message,
    seq: int,
    speaker: Seat | None,
    held: Sequence[Seat | None],
) -> Judgement:
    """What a frame signed by ``signer`` for position ``seq`` proves.

    ``speaker`` is who the phase let speak at ``seq`` (``None``: nobody, the
    position after a violation); ``held`` the signers of the transcript's
    frames from ``seq`` on (``held[0]`` signed the frame at ``seq``).
    """
    if held and held[0] is signer:
        return Judgement(
            Finding.EQUIVOCATION, f"signed two different frames for position {seq} (equivocation)"
        )
    if not isinstance(message, wire.Dispute):
        if signer is not speaker:
            whose = (
                "no player's to send (it follows a violation)"
                if speaker is None
                else f"the other player's to send (the {speaker}'s)"
            )
            return Judgement(
                Finding.OUT_OF_TURN,
                f"signed a {message.TYPE} for position {seq}, which was {whose}",
            )
        return Judgement(
            Finding.NOTHING,
            f"a {message.TYPE} for position {seq}, which was its signer's to send, crossed the "
            f"{signer.other}'s dispute held there: that proves nothing against either",
        )
    later = next((seq + i for i, s in enumerate(held) if s is signer), None)
    if later is not None:
        return Judgement(
            Finding.FORK,
            f"signed a dispute for position {seq} and also frame {later}, which follows "
            f"another frame at position {seq} (two histories signed by one player)",
        )
    return Judgement(
        Finding.CROSSED,
        f"a dispute for position {seq} that crossed the {signer.other}'s frames from "
        f"position {seq} on in flight",
    )
