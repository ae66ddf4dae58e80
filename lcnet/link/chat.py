"""A word between players (``say``, docs/PROTOCOL.md §6.9), sans-IO.

A line is printable text of at most :data:`lcnet.protocol.wire.MAX_SAY_BYTES` bytes,
sent in a signed ``say`` control frame outside the transcript: it changes
nothing in the match, and a peer that does not know it drops it. Each side
bounds the rate, the sender before it signs and the receiver before it
shows (:class:`Rate`), so that a chatty or hostile peer costs a screen a few
lines, never a flood.
"""

from __future__ import annotations

from typing import Final

from lcnet.protocol.wire import MAX_SAY_BYTES

BURST: Final = 5
"""Lines a player may say at once."""

REFILL: Final = 2.0
"""Seconds for one more line once the burst is spent."""

MAX_LINES: Final = 1000
"""Lines a spectator shows of one match (at the rate above, over half an
hour of chat); those after are counted, not shown."""


class Rate:
    """A token bucket: :data:`BURST` lines at once, then one per :data:`REFILL` s."""

    def __init__(self, burst: int = BURST, refill: float = REFILL) -> None:
        self._burst = burst
        self._refill = refill
        self._tokens = float(burst)
        self._at: float | None = None

    def allow(self, now: float) -> bool:
        """Whether a line may go (or be shown) at ``now``; counts it if so."""
        if self._at is not None:
            self._tokens = min(self._burst, self._tokens + (now - self._at) / self._refill)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


def line_to_say(text: str) -> str:
    """What a player typed, as the text of a ``say`` frame: spaces at either
    end removed. Raises ``ValueError`` saying what is wrong (empty, too long,
    a character that is not printable)."""
    text = text.strip()
    if not text:
        raise ValueError("say what? (say, then the line to send)")
    if not text.isprintable():
        raise ValueError("a line to the opponent holds printable characters only")
    size = len(text.encode("utf-8"))
    if size > MAX_SAY_BYTES:
        raise ValueError(f"a line to the opponent is at most {MAX_SAY_BYTES} bytes, not {size}")
    return text
