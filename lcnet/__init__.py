"""lcnet: Lost Cities played peer to peer, with a masked deck and signed, auditable logs.

The package's face, as ``import chess`` is python-chess's: what a program
that is not lcnet's own command line needs, in one namespace::

    import lcnet

    verdict = lcnet.audit_file("replays/sample-complete-host.lcnet")
    print(verdict.kind.name, verdict.summary)

    record = lcnet.load_record(lcnet.read_replay("replays/sample-complete-host.lcnet"))
    for position in record.positions:
        ...

* The rules: :class:`Card`, :class:`Suit`, :class:`Seat`, :class:`Turn`
  (:class:`PutDown` then :class:`Draw`), :class:`Round`, :class:`View` (what
  one player may see), :class:`Match`.
* A replay file: :func:`read_replay` (its frames, checked), :func:`audit_file`
  (one :class:`Verdict`), :func:`load_record` (a :class:`MatchRecord`: the
  positions, step by step, as ``lcnet replay`` shows them).
* The transcript machines: :class:`Session` (a player's side, with its key and
  secrets) and :class:`Observer` (the audit's, with neither). Both are
  sans-IO: they take bytes and return what to send and what happened.
* :class:`LcnetError`, the root of every error lcnet raises on purpose.

Every name is imported when first used (PEP 562), so ``import lcnet`` loads
no wing and ``lcnet --version`` stays as fast as before. Everything else
belongs to its wing (``lcnet.protocol.wire``, ``lcnet.net.peer``, ...);
docs/DESIGN.md draws them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from lcnet.audit.verdict import Verdict, VerdictKind, audit_file
    from lcnet.errors import LcnetError
    from lcnet.game.cards import Card, Suit
    from lcnet.game.engine import Draw, Match, PutDown, Round, Turn, View
    from lcnet.game.seat import Seat
    from lcnet.protocol.observer import Observer
    from lcnet.protocol.session import Session
    from lcnet.review.positions import MatchRecord, Position
    from lcnet.review.positions import load_contents as load_record
    from lcnet.store.replayfile import ReplayContents, read_replay

_FACE = {
    "Card": ("lcnet.game.cards", "Card"),
    "Suit": ("lcnet.game.cards", "Suit"),
    "Seat": ("lcnet.game.seat", "Seat"),
    "Turn": ("lcnet.game.engine", "Turn"),
    "PutDown": ("lcnet.game.engine", "PutDown"),
    "Draw": ("lcnet.game.engine", "Draw"),
    "Round": ("lcnet.game.engine", "Round"),
    "View": ("lcnet.game.engine", "View"),
    "Match": ("lcnet.game.engine", "Match"),
    "read_replay": ("lcnet.store.replayfile", "read_replay"),
    "ReplayContents": ("lcnet.store.replayfile", "ReplayContents"),
    "audit_file": ("lcnet.audit.verdict", "audit_file"),
    "Verdict": ("lcnet.audit.verdict", "Verdict"),
    "VerdictKind": ("lcnet.audit.verdict", "VerdictKind"),
    "load_record": ("lcnet.review.positions", "load_contents"),
    "MatchRecord": ("lcnet.review.positions", "MatchRecord"),
    "Position": ("lcnet.review.positions", "Position"),
    "Session": ("lcnet.protocol.session", "Session"),
    "Observer": ("lcnet.protocol.observer", "Observer"),
    "LcnetError": ("lcnet.errors", "LcnetError"),
}
"""Each public name: the module that defines it, and its name there."""

__all__ = [
    "Card",
    "Draw",
    "LcnetError",
    "Match",
    "MatchRecord",
    "Observer",
    "Position",
    "PutDown",
    "ReplayContents",
    "Round",
    "Seat",
    "Session",
    "Suit",
    "Turn",
    "Verdict",
    "VerdictKind",
    "View",
    "__version__",
    "audit_file",
    "load_record",
    "read_replay",
]
"""The face: the names of :data:`_FACE`, sorted (a test keeps the two the same)."""


def __getattr__(name: str) -> Any:
    where = _FACE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value  # the next use is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
