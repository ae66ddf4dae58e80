"""The saved matches a player can resume (``lcnet resume`` with no file)."""

from __future__ import annotations

import contextlib
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from lcnet.deck import hashing
from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.events import MatchOptions
from lcnet.run.netmatch import key_of, options_from
from lcnet.store import identity
from lcnet.store.replayfile import (
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
    bot: str | None = None
    """The built-in bot that played this side (``host``/``join --bot SPEC``): the
    resume lets it play on."""
    opponent_bot: str | None = None
    """The built-in bot of an ``lcnet play`` match (the opponent): the resume brings it back."""
    command: str | None = None
    """The command line that resumes it here (escaped for the terminal), if one does."""
    why_not: str | None = None
    """Why no command resumes it here (another identity's match, the bot's file gone)."""

    def describe(self) -> list[str]:
        """The match in a few lines, for a list of them (the file's name and its
        unsigned header escaped)."""
        if self.options is None:
            options = "options not agreed yet"
        else:
            rounds = self.options.rounds
            options = f"{self.options.suits} suits, {rounds} round{'s' if rounds != 1 else ''}"
        role = "you host" if self.role == "host" else "you joined"
        if self.bot is not None:
            role = f"your {_bot_name(self.bot)} {'hosts' if self.role == 'host' else 'joined'}"
        against = f"{shown(self.opponent)} ({role})"
        if self.opponent_bot is not None:
            against = f"the built-in {_bot_name(self.opponent_bot)} (lcnet play)"
        lines = [
            shown(str(self.path)),
            f"against {against}; {options}; started {shown(self.created)}",
            f"next: {shown(self.owed)}",
        ]
        if self.command is not None:
            lines.append(f"resume: {self.command}")
        if self.why_not is not None:
            lines.append(f"not resumable here: {shown(self.why_not)}")
        return lines


def _bot_name(spec: str) -> str:
    """``hard bot`` for ``hard:time=0.5``, escaped (the spec comes from a file's header)."""
    return f"{shown(spec.split(':')[0], limit=40)} bot" + (
        f" ({shown(spec, limit=80)})" if ":" in spec else ""
    )


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
    """The unfinished matches, newest first, each with the command that resumes
    it here, or why none does."""
    unreadable: list[Unreadable] = field(default_factory=list)
    """Entries that could not be read: anything that is not a regular file (a
    directory, FIFO, device, link to nothing), one too large or without
    permission, and a file with a side file that is no readable replay."""


def unfinished_matches(directory: Path) -> list[Unfinished]:
    """The unfinished matches in ``directory``, newest first (see :func:`saved_matches`)."""
    return saved_matches(directory).unfinished


@dataclass(frozen=True)
class _Found:
    path: Path
    contents: ReplayContents
    owed: str
    game: bytes | None


def saved_matches(directory: Path) -> Saved:
    """The unfinished matches in ``directory``, and the entries that could not
    be read.

    A match is unfinished while its private side file exists, no lcnet program
    is playing it, and the audit says someone owes a message. A built-in bot's
    own file of an ``lcnet play`` match is left out (resuming the person's
    file brings the bot back); a match whose side a bot played (``lcnet host
    --bot SPEC``, ``lcnet join ADDRESS --bot SPEC``) is listed with the bot,
    and resumed by it (``lcnet resume FILE --bot SPEC``). Each match says the
    command that resumes it here, or why none does: it was played with
    another key than this identity's ($LCNET_HOME), or the bot's file of an
    ``lcnet play`` match is not next to it.

    Each file is opened as :mod:`lcnet.store.safeopen` opens one (a regular file
    only, never blocking, its size checked first), and whether it is being
    played is asked of that open file, never of its name again.
    """
    from lcnet.audit.verdict import audit_contents
    from lcnet.store.replayfile import MAX_FILE_BYTES, ReplayFileError, parse_replay
    from lcnet.store.safeopen import FileRefused, open_regular
    from lcnet.store.writer import secret_path

    found = Saved()
    if not directory.is_dir():
        return found
    candidates: list[_Found] = []
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
        if contents.header.seat not in ("host", "joiner"):
            continue
        verdict = audit_contents(contents)
        if verdict.owed is None:
            continue  # over, or not a match that can go on
        game = hashing.game_id(contents.frames[0]) if contents.frames else None
        candidates.append(_Found(path, contents, verdict.owed, game))
    # The games whose person's file of an `lcnet play` match is here: the bot's
    # own file of each comes back with it.
    played = {c.game: c for c in candidates if _spec(c.contents, "opponent_bot") is not None}
    bot_files = {c.game: c for c in candidates if _spec(c.contents, "bot") is not None}
    me = _own_key(None)
    for c in candidates:
        bot = _spec(c.contents, "bot")
        opponent_bot = _spec(c.contents, "opponent_bot")
        if bot is not None and c.game in played:
            continue  # resumed through its person's file
        role = c.contents.header.seat
        command, why_not = _how_to_resume(c, role, bot, opponent_bot, me, bot_files)
        found.unfinished.append(
            Unfinished(
                path=c.path,
                contents=c.contents,
                role=role,
                opponent=_opponent_name(c.contents, role),
                created=c.contents.header.created,
                options=options_from(c.contents),
                owed=c.owed,
                bot=bot,
                opponent_bot=opponent_bot,
                command=command,
                why_not=why_not,
            )
        )
    found.unfinished.sort(key=lambda match: (match.created, match.path.name), reverse=True)
    return found


def _spec(contents: ReplayContents, key: str) -> str | None:
    """The bot spec the header names under ``key`` (``bot``, ``opponent_bot``), if any."""
    value = contents.header.extra.get(key)
    return value if isinstance(value, str) else None


def _own_key(home: Path | None) -> bytes | None:
    """The public key of the identity in ``home`` (default: $LCNET_HOME), never
    creating one; ``None`` if there is none (or it cannot be read)."""
    from lcnet.errors import UserError

    try:
        if not identity.identity_exists(home):
            return None
        return identity.load_identity(home, create=False).public_key
    except (UserError, OSError):
        return None


def _how_to_resume(
    found: _Found,
    role: str,
    bot: str | None,
    opponent_bot: str | None,
    me: bytes | None,
    bot_files: dict[bytes | None, _Found],
) -> tuple[str | None, str | None]:
    """The command that resumes ``found`` here (escaped), or why none does."""
    from lcnet.bots import parse_bot_spec
    from lcnet.errors import UserError
    from lcnet.invocation import command
    from lcnet.run.botpeer import bot_home

    seat = Seat.HOST if role == "host" else Seat.JOINER
    played_with = key_of(found.contents, seat)
    words = [command(), "resume", shlex.quote(str(found.path))]
    if bot is not None:
        try:
            parse_bot_spec(bot)
        except UserError as exc:
            return None, f"its side was played by a bot this lcnet cannot make: {exc}"
        words += ["--bot", shlex.quote(bot)]
    if played_with is not None and played_with != me:
        if bot is not None and _own_key(bot_home(bot)) == played_with:
            # The bot's own side of an `lcnet play` match (its own identity):
            # it comes back only with its person's file, which is not here.
            return None, (
                "the bot's own side of an lcnet play match; it resumes with its player's "
                "file (lcnet resume THAT-FILE), which is not in this folder"
            )
        return None, _other_key(played_with, me)
    if opponent_bot is not None and found.game not in bot_files:
        return None, "the bot's replay file of this match (with its side file) is not next to it"
    return shown(" ".join(words)), None


def _other_key(played_with: bytes, me: bytes | None) -> str:
    where = identity.home_dir()
    mine = f"the key {hashing.fingerprint(me)}" if me is not None else "no identity"
    return (
        f"played with the key {hashing.fingerprint(played_with)}, and this machine's "
        f"lcnet home ({where}) has {mine}: resume it with the LCNET_HOME it was played with"
    )


def _opponent_name(contents: ReplayContents, role: str) -> str:
    wanted = wire.Hello if role == "host" else wire.Welcome
    for raw in contents.frames[:2]:
        with contextlib.suppress(wire.MalformedFrame):
            message = wire.decode_frame(raw).message
            if isinstance(message, wanted):
                return message.name
    return "an opponent who never answered"
