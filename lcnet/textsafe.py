"""Text from outside, made safe for a terminal: the one function at the screen's edge.

Anything that did not come from lcnet itself — a replay file's unsigned header,
a file name in the replays folder, a name on the LAN, a reason a peer gives —
goes through :func:`shown` before it reaches the terminal, so that no ESC, BEL,
CR, backspace, bidirectional override or other control character can move the
cursor, rewrite a line, ring the bell or pass one text off as another.

Printable characters stay as they are; every other one is written as a Python
escape (``\\x1b``, ``\\u202e``), and a byte that a file name could not decode
(a lone surrogate from :func:`os.fsdecode`) as ``\\xNN`` of that byte. The
result is printable and one line.
"""

from __future__ import annotations

from typing import Final

ELLIPSIS: Final = "…"


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def shown(text: str, *, limit: int | None = None) -> str:
    """``text`` with every character that is not printable escaped.

    ``limit``, if given, caps the result at that many characters (the last one
    an ellipsis), so that a stranger's text cannot fill the screen.
    """
    if text.isprintable():
        out = text
    else:
        out = "".join(char if char.isprintable() else _escape(char) for char in text)
    if limit is not None and len(out) > limit:
        out = out[: max(0, limit - 1)] + ELLIPSIS
    return out


def shown_bytes(data: bytes, *, limit: int | None = None) -> str:
    """Bytes shown as text: decoded as UTF-8 where they are, ``\\xNN`` where not."""
    return shown(data.decode("utf-8", errors="surrogateescape"), limit=limit)
