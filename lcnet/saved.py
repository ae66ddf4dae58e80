"""The saved matches a player can resume (``lcnet resume`` with no file)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from lcnet import wire
from lcnet.events import MatchOptions
from lcnet.netplay import options_from
from lcnet.replaylog import (
    ReplayContents,
)
from lcnet.textsafe import shown


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
        """The match in a few lines, for a list of them (the file's name and its
        unsigned header escaped)."""
        if self.options is None:
            options = "options not agreed yet"
        else:
            rounds = self.options.rounds
            options = f"{self.options.suits} suits, {rounds} round{'s' if rounds != 1 else ''}"
        role = "you host" if self.role == "host" else "you joined"
        return [
            shown(str(self.path)),
            f"against {shown(self.opponent)} ({role}); {options}; started {shown(self.created)}",
            f"next: {shown(self.owed)}",
        ]


@dataclass(frozen=True)
class Unreadable:
    """A ``*.lcnet`` entry of the folder that could not be read (said, then passed over)."""

    path: Path
    reason: str
    """What it is or why it cannot be read, without the name."""

    def describe(self) -> str:
        """One line: the name and the reason, escaped."""
        return f"{shown(str(self.path))}: {shown(self.reason)}"


@dataclass
class Saved:
    """What a replay folder holds for ``lcnet resume``."""

    unfinished: list[Unfinished] = field(default_factory=list)
    """The matches this player can resume, newest first."""
    unreadable: list[Unreadable] = field(default_factory=list)
    """Entries that could not be read: anything that is not a regular file (a
    directory, FIFO, device, link to nothing), one too large or without
    permission, and a file with a side file that is no readable replay."""


def unfinished_matches(directory: Path) -> list[Unfinished]:
    """The matches in ``directory`` that this player can resume, newest first
    (see :func:`saved_matches`)."""
    return saved_matches(directory).unfinished


def saved_matches(directory: Path) -> Saved:
    """The matches in ``directory`` that this player can resume, and the entries
    that could not be read.

    A match is resumable while its private side file exists, no lcnet program
    is playing it, and its file is not a built-in bot's own (an ``lcnet play``
    match resumes through its person's file, which brings the bot back).
    Each file is opened as :mod:`lcnet.safeopen` opens one (a regular file
    only, never blocking, its size checked first), and whether it is being
    played is asked of that open file, never of its name again.
    """
    from lcnet.audit import audit_contents
    from lcnet.replaylog import MAX_FILE_BYTES, ReplayFileError, parse_replay
    from lcnet.replaywriter import secret_path
    from lcnet.safeopen import FileRefused, open_regular

    found = Saved()
    if not directory.is_dir():
        return found
    for path in sorted(directory.glob("*.lcnet")):
        try:
            with open_regular(path, limit=MAX_FILE_BYTES, what="replay file") as file:
                # os.path.exists: False, not an error, for a name the system
                # cannot take (a 255-byte file name plus ".secret").
                if not os.path.exists(secret_path(path)) or file.locked():
                    continue  # finished, not ours to resume, or being played right now
                data = file.read()
        except FileRefused as exc:
            found.unreadable.append(Unreadable(path, exc.reason))
            continue
        try:
            contents = parse_replay(data)
        except ReplayFileError as exc:
            found.unreadable.append(Unreadable(path, str(exc)))
            continue
        role = contents.header.seat
        if role not in ("host", "joiner") or "bot" in contents.header.extra:
            continue
        verdict = audit_contents(contents)
        if verdict.owed is None:
            continue  # over, or not a match that can go on
        found.unfinished.append(
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
    found.unfinished.sort(key=lambda match: (match.created, match.path.name), reverse=True)
    return found


def _opponent_name(contents: ReplayContents, role: str) -> str:
    wanted = wire.Hello if role == "host" else wire.Welcome
    for raw in contents.frames[:2]:
        with contextlib.suppress(wire.MalformedFrame):
            message = wire.decode_frame(raw).message
            if isinstance(message, wanted):
                return message.name
    return "an opponent who never answered"
