"""The saved matches a player can resume (``lcnet resume`` with no file)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from lcnet import wire
from lcnet.events import MatchOptions
from lcnet.netplay import options_from
from lcnet.replaylog import (
    ReplayContents,
)


@dataclass(frozen=True)
class Unfinished:
    """A match of this player's that stopped before its end and can be resumed."""

    path: Path
    contents: ReplayContents
    role: str
    """``host`` or ``joiner``: this player's seat."""
    opponent: str
    created: str
    options: MatchOptions | None
    owed: str
    """Who owes the next message, in words (as the audit says it)."""

    def describe(self) -> list[str]:
        """The match in a few lines, for a list of them."""
        if self.options is None:
            options = "options not agreed yet"
        else:
            rounds = self.options.rounds
            options = f"{self.options.suits} suits, {rounds} round{'s' if rounds != 1 else ''}"
        role = "you host" if self.role == "host" else "you joined"
        return [
            str(self.path),
            f"against {self.opponent} ({role}); {options}; started {self.created}",
            f"next: {self.owed}",
        ]


def unfinished_matches(directory: Path) -> list[Unfinished]:
    """The matches in ``directory`` that this player can resume, newest first.

    A match is resumable while its private side file exists, no lcnet program
    is playing it, and its file is not a built-in bot's own (an ``lcnet play``
    match resumes through its person's file, which brings the bot back).
    """
    from lcnet.audit import audit_contents
    from lcnet.replaylog import ReplayFileError, read_replay
    from lcnet.replaywriter import in_use, secret_path

    found: list[Unfinished] = []
    if not directory.is_dir():
        return found
    for path in sorted(directory.glob("*.lcnet")):
        if not secret_path(path).exists() or in_use(path):
            continue  # finished, not ours to resume, or being played right now
        try:
            contents = read_replay(path)
        except ReplayFileError:
            continue
        role = contents.header.seat
        if role not in ("host", "joiner") or "bot" in contents.header.extra:
            continue
        verdict = audit_contents(contents)
        if verdict.owed is None:
            continue  # over, or not a match that can go on
        found.append(
            Unfinished(
                path=path,
                contents=contents,
                role=role,
                opponent=_opponent_name(contents, role),
                created=contents.header.created,
                options=options_from(contents),
                owed=verdict.owed,
            )
        )
    found.sort(key=lambda match: (match.created, match.path.name), reverse=True)
    return found


def _opponent_name(contents: ReplayContents, role: str) -> str:
    wanted = wire.Hello if role == "host" else wire.Welcome
    for raw in contents.frames[:2]:
        with contextlib.suppress(wire.MalformedFrame):
            message = wire.decode_frame(raw).message
            if isinstance(message, wanted):
                return message.name
    return "an opponent who never answered"
