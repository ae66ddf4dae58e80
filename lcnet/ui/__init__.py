"""The terminal user interfaces of lcnet (prompt_toolkit; no networking here).

* :func:`run_tui`: the full-screen game for one player of a match behind a
  :class:`~lcnet.protocol.client.MatchClient`;
* :func:`run_lines`: the same match in plain lines, when stdin is not a
  terminal (scripts, pipes);
* :func:`run_match_ui`: picks one of the two for the standard streams;
* :func:`view_replay`: the full-screen viewer of a saved match
  (``lcnet replay``).

Each returns an exit code: :data:`ExitCode.FINISHED` (0), :data:`ExitCode.DISPUTE`
(1) or :data:`ExitCode.UNFINISHED` (3, the player left a match that can be
resumed). The board they share lives in :mod:`lcnet.ui.board`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from lcnet.protocol.client import MatchClient

if TYPE_CHECKING:
    from lcnet.ui.game import run_tui
    from lcnet.ui.lines import run_lines
    from lcnet.ui.replay_view import view_replay

_LAZY = {
    "run_tui": "lcnet.ui.game",
    "run_lines": "lcnet.ui.lines",
    "view_replay": "lcnet.ui.replay_view",
}
"""Imported when first used: the line mode (scripts, bots' peers) never loads
the full-screen modules, nor prompt_toolkit's application with them."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


async def run_match_ui(client: MatchClient) -> int:
    """The full-screen game on a terminal, the line mode otherwise (stdin or stdout piped)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from lcnet.ui.game import run_tui

        return await run_tui(client)
    from lcnet.ui.lines import run_lines

    return await run_lines(client, sys.stdin, sys.stdout)


__all__ = [
    "run_lines",
    "run_match_ui",
    "run_tui",
    "view_replay",
]
