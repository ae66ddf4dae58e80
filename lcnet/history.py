"""The history of a player's matches: who beat whom, from the replay files.

Every finished match of a replay folder, as its file's owner played it: the
date, the opponent (name and key fingerprint), the options, the rounds, the
result and the audit's verdict, with the won-drawn-lost record against each
opponent, by key (a name can be taken by anyone), and overall. Only a match
whose file audits VALID counts in a record; any other file is listed with its
verdict and left out.

Auditing a file checks every signature and deck operation of the match, which
takes a moment; each verdict is remembered in ``$LCNET_HOME/history.json``
under the BLAKE2b digest of the file's bytes, so a file is audited once, and
again only when its bytes change. A file being played right now is read, not
remembered.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from lcnet import identity

CACHE_FILE: Final = "history.json"
CACHE_VERSION: Final = 1
MAX_CACHE_BYTES: Final = 64 << 20
"""A cache above this is ignored (and rebuilt): some 200,000 matches."""

WON: Final = "won"
DRAWN: Final = "drawn"
LOST: Final = "lost"


@dataclass(frozen=True)
class Player:
    name: str
    fingerprint: str


@dataclass(frozen=True)
class Match:
    """One replay file, as its owner played it."""

    path: Path
    created: str
    """When the match started (the file header's ``created``, UTC, ISO 8601)."""
    verdict: str
    """The audit's verdict (valid, invalid, incomplete, damaged), or ``unreadable``."""
    summary: str
    """The audit's one-line summary, or why the file cannot be read."""
    seat: str | None = None
    """The file owner's seat: ``host`` or ``joiner``."""
    me: Player | None = None
    opponent: Player | None = None
    suits: int | None = None
    rounds: int | None = None
    rounds_played: int = 0
    score: tuple[int, int] | None = None
    """The owner's total and the opponent's."""
    result: str | None = None
    """``won``, ``drawn`` or ``lost`` for the owner; None while there is none."""
    resigned: str | None = None
    """``me`` or ``opponent`` if the match ended by resignation."""
    game_id: str | None = None
    bot: str | None = None
    """The built-in bot that played the owner's side (``--bot``), if one did."""
    playing: bool = False
    """An lcnet program is writing this file now (the match is being played)."""
    copy_of: Path | None = None
    """Another file of the same match, same seat, that is already counted."""

    @property
    def counts(self) -> bool:
        """Whether it counts in a record: a VALID, decided match, not a copy."""
        return (
            self.verdict == "valid"
            and self.result is not None
            and self.me is not None
            and self.opponent is not None
            and self.copy_of is None
        )

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["path"] = str(self.path)
        out["copy_of"] = None if self.copy_of is None else str(self.copy_of)
        out["score"] = None if self.score is None else list(self.score)
        out["counts"] = self.counts
        return out


@dataclass
class Tally:
    won: int = 0
    drawn: int = 0
    lost: int = 0

    def add(self, result: str) -> None:
        setattr(self, result, getattr(self, result) + 1)

    @property
    def played(self) -> int:
        return self.won + self.drawn + self.lost


@dataclass
class Record:
    """One player's won-drawn-lost record, overall and against each opponent key."""

    player: Player
    overall: Tally = field(default_factory=Tally)
    against: dict[str, tuple[Player, Tally]] = field(default_factory=dict)
    """Opponent fingerprint → (the opponent as last seen, the tally)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "player": asdict(self.player),
            "overall": asdict(self.overall),
            "against": [
                {"opponent": asdict(opponent), **asdict(tally)}
                for opponent, tally in self.against.values()
            ],
        }


def replay_files(directories: Iterable[Path]) -> list[Path]:
    """The ``*.lcnet`` entries of ``directories`` (each file once), sorted by path.

    Whatever they are: a directory, a FIFO or a dangling link named so is
    listed too, and :func:`read_match` says what it is. A file reached twice
    (the same folder given twice, or a link to a file listed already) is
    listed once, by its own name rather than a link's.
    """
    found: dict[object, Path] = {}
    for directory in directories:
        if directory.is_dir():
            for path in directory.glob("*.lcnet"):
                key = _identity(path)
                if key not in found or (found[key].is_symlink() and not path.is_symlink()):
                    found[key] = path
    return sorted(found.values())


def _identity(path: Path) -> object:
    """The file ``path`` leads to (device and inode), or the path itself where
    it leads nowhere (a dangling link, a loop, a file gone meanwhile)."""
    try:
        status = path.stat()
    except (OSError, ValueError):
        return path.absolute()
    return (status.st_dev, status.st_ino)


def read_match(path: Path, cache: dict[str, Any] | None = None) -> Match | None:
    """``path`` as a :class:`Match`; ``None`` for a built-in bot's own file.

    ``cache`` maps file digests to what an audit found (see the module's
    docstring); it is read, and filled for a file not being played. Only a
    regular file is read, never by a call that can block, and only up to
    :data:`~lcnet.replaylog.MAX_FILE_BYTES` (:mod:`lcnet.safeopen`); anything
    else is a Match ``unreadable`` that says what it is.
    """
    from lcnet.replaylog import MAX_FILE_BYTES
    from lcnet.safeopen import FileRefused, open_regular

    try:
        with open_regular(path, limit=MAX_FILE_BYTES, what="replay file") as file:
            playing = file.locked()
            data = file.read()
    except FileRefused as exc:
        return Match(path, "", "unreadable", exc.reason)
    digest = hashlib.blake2b(data, digest_size=32).hexdigest()
    known = None if cache is None or playing else cache.get(digest)
    if isinstance(known, dict):
        with contextlib.suppress(TypeError, ValueError, KeyError, IndexError):
            return _from_json(path, known)
    found = _audit(path, data)
    if found is not None and cache is not None and not playing:
        cache[digest] = _to_cache(found)
    return found if not playing or found is None else replace(found, playing=True)


def _audit(path: Path, data: bytes) -> Match | None:
    from lcnet.audit import audit_contents
    from lcnet.replaylog import ReplayFileError, parse_replay

    try:
        contents = parse_replay(data)
    except ReplayFileError as exc:
        return Match(path, "", "unreadable", str(exc))
    header = contents.header
    if header.seat == "spectator":
        return None  # a match watched (`lcnet watch`), not played
    verdict = audit_contents(contents)
    seat = header.seat if header.seat in ("host", "joiner") else None
    other = None if seat is None else ("joiner" if seat == "host" else "host")

    def player(s: str | None) -> Player | None:
        if s is None or s not in verdict.names:
            return None
        return Player(verdict.names[s], verdict.fingerprints[s])

    score = None
    result = None
    resigned = None
    if seat is not None and other is not None:
        index = 0 if seat == "host" else 1
        if verdict.totals and verdict.round_scores:
            score = (verdict.totals[index], verdict.totals[1 - index])
        if verdict.kind.value == "valid":
            if verdict.winner_seat is None:
                result = DRAWN
            else:
                result = WON if verdict.winner_seat == seat else LOST
            if verdict.resigned is not None:
                resigned = "opponent" if verdict.winner_seat == seat else "me"
    return Match(
        path=path,
        created=header.created,
        verdict=verdict.kind.value,
        summary=verdict.summary,
        seat=seat,
        me=player(seat),
        opponent=player(other),
        suits=verdict.options.get("suits"),
        rounds=verdict.options.get("rounds"),
        rounds_played=len(verdict.round_scores),
        score=score,
        result=result,
        resigned=resigned,
        game_id=verdict.game_id,
        bot=str(header.extra["bot"]) if "bot" in header.extra else None,
    )


def _to_cache(found: Match) -> dict[str, Any]:
    out = found.to_json()
    for key in ("path", "copy_of", "counts", "playing"):
        out.pop(key)
    return out


def _from_json(path: Path, data: Mapping[str, Any]) -> Match:
    def player(value: Any) -> Player | None:
        return None if value is None else Player(str(value["name"]), str(value["fingerprint"]))

    score = data["score"]
    return Match(
        path=path,
        created=str(data["created"]),
        verdict=str(data["verdict"]),
        summary=str(data["summary"]),
        seat=data["seat"],
        me=player(data["me"]),
        opponent=player(data["opponent"]),
        suits=data["suits"],
        rounds=data["rounds"],
        rounds_played=int(data["rounds_played"]),
        score=None if score is None else (int(score[0]), int(score[1])),
        result=data["result"],
        resigned=data["resigned"],
        game_id=data["game_id"],
        bot=data["bot"],
    )


def history(directories: Sequence[Path], *, home: Path | None = None) -> list[Match]:
    """Every match of ``directories``, newest first (the verdicts remembered in ``home``)."""
    cache_path = (home if home is not None else identity.home_dir()) / CACHE_FILE
    cache = _read_cache(cache_path)
    before = dict(cache)
    matches = [m for m in (read_match(p, cache) for p in replay_files(directories)) if m]
    if cache != before:
        with contextlib.suppress(Exception):  # a cache that cannot be written is only slower
            identity.write_json(cache_path, {"version": CACHE_VERSION, "verdicts": cache})
    # Two matches begun in the same second (a quick rematch): the one whose
    # file was last written ended later.
    matches.sort(key=lambda m: (m.created, _written(m.path), str(m.path)), reverse=True)
    return _mark_copies(_without_bot_sides(matches))


def _written(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _without_bot_sides(matches: list[Match]) -> list[Match]:
    """Leave out a bot's file of a match whose other side's file is here too
    (the bot of an `lcnet play` match): the person's file tells that match."""
    sides = {(m.game_id, m.seat) for m in matches if m.game_id is not None}
    other = {"host": "joiner", "joiner": "host"}
    return [
        m
        for m in matches
        if m.bot is None
        or m.seat not in other
        or (m.game_id, other[m.seat]) not in sides
        or _both_bots(matches, m)
    ]


def _both_bots(matches: list[Match], match: Match) -> bool:
    """Both sides of ``match`` were played by bots (bots against bots): keep both."""
    return all(m.bot is not None for m in matches if m.game_id == match.game_id)


def _read_cache(path: Path) -> dict[str, Any]:
    from lcnet.safeopen import FileRefused, read_regular

    try:
        data = json.loads(read_regular(path, limit=MAX_CACHE_BYTES).decode("utf-8"))
    except (FileRefused, ValueError, UnicodeDecodeError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    verdicts = data.get("verdicts")
    return dict(verdicts) if isinstance(verdicts, dict) else {}


def _mark_copies(matches: list[Match]) -> list[Match]:
    """Of two files that would count the same match for the same seat (a copy),
    the older is counted and the other listed as its copy."""
    seen: dict[tuple[str, str], Path] = {}
    out = []
    for match in reversed(matches):  # oldest first
        if match.counts and match.game_id is not None and match.seat is not None:
            key = (match.game_id, match.seat)
            if key in seen:
                match = replace(match, copy_of=seen[key])
            else:
                seen[key] = match.path
        out.append(match)
    out.reverse()
    return out


def records(matches: Iterable[Match]) -> list[Record]:
    """Each file owner's record (by key), from the matches that count."""
    by_owner: dict[str, Record] = {}
    for match in sorted(matches, key=lambda m: m.created):
        if not match.counts:
            continue
        assert match.me is not None and match.opponent is not None and match.result is not None
        record = by_owner.setdefault(match.me.fingerprint, Record(match.me))
        record.player = match.me  # the name last used
        record.overall.add(match.result)
        _, tally = record.against.get(match.opponent.fingerprint, (match.opponent, Tally()))
        tally.add(match.result)
        record.against[match.opponent.fingerprint] = (match.opponent, tally)
    return sorted(by_owner.values(), key=lambda r: -r.overall.played)
