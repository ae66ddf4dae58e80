"""The terminal user interfaces of lcnet (prompt_toolkit; no networking here).

* :func:`run_tui`: the full-screen game for one player of a match behind a
  :class:`~lcnet.client.MatchClient`;
* :func:`run_lines`: the same match in plain lines, when stdin is not a
  terminal (scripts, pipes);
* :func:`run_match_ui`: picks one of the two for the standard streams;
* :func:`view_replay`: the full-screen viewer of a saved match
  (``lcnet replay``).

Each returns an exit code: :data:`EXIT_FINISHED` (0), :data:`EXIT_DISPUTE`
(1) or :data:`EXIT_UNFINISHED` (3, the player left a match that can be
resumed). The board they share lives in :mod:`lcnet.ui.board`.
"""

from __future__ import annotations

import sys

from lcnet.client import EXIT_DISPUTE, EXIT_FINISHED, EXIT_UNFINISHED, MatchClient
from lcnet.ui.game import run_tui
from lcnet.ui.lines import run_lines
from lcnet.ui.replay_view import view_replay


async def run_match_ui(client: MatchClient) -> int:
    """The full-screen game on a terminal, the line mode otherwise (stdin or stdout piped)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return await run_tui(client)
    return await run_lines(client, sys.stdin, sys.stdout)


__all__ = [
    "EXIT_DISPUTE",
    "EXIT_FINISHED",
    "EXIT_UNFINISHED",
    "run_lines",
    "run_match_ui",
    "run_tui",
    "view_replay",
]
