"""The history of a player's matches: who beat whom, from the replay files.

Every finished match of a replay folder, as its file's owner played it: the
date, the opponent (name and key fingerprint), the options, the rounds, the
result and the audit's verdict, with the won-drawn-lost record against each
opponent, by key (a name can be taken by anyone), and overall. Only a match
whose file audits VALID counts in a record; any other file is listed with its
verdict and left out.

A match a built-in bot played is kept apart from the record against people:
one against a bot (``lcnet play``, whose file names it ``opponent_bot``)
counts in the owner's record against bots, and one a bot played for the
owner (``--bot``, ``bot`` in its file) in that bot's own record. A match
watched (``lcnet watch``, the seat ``spectator``) is listed with who played
and how it ended, and counts in no record.

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

from lcnet.store import identity

CACHE_FILE: Final = "history.json"
CACHE_VERSION: Final = 2
"""2: the bot that played the opponent, and the matches watched."""
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
    opponent_bot: str | None = None
    """The built-in bot the owner played against (``lcnet play``), if the file says so."""
    watched: bool = False
    """A spectator's file (``lcnet watch``): ``me`` and ``opponent`` are ``None``,
    ``host`` and ``joiner`` say who played, ``score`` is the host's total and the
    joiner's, and ``resigned`` the seat that resigned."""
    host: Player | None = None
    joiner: Player | None = None
    winner: str | None = None
    """In a valid finished match: the winner's seat (``host``, ``joiner``), or ``draw``."""
    playing: bool = False
    """An lcnet program is writing this file now (the match is being played)."""
    copy_of: Path | None = None
    """Another file of the same match, same seat, that is already counted."""

    @property
    def counts(self) -> bool:
        """Whether it counts in a record (the record against people, the record
        against bots, or a bot's own): a VALID, decided match of the file's
        owner, not a copy; a match watched never does."""
        return (
            not self.watched
            and self.verdict == "valid"
            and self.result is not None
            and self.me is not None
            and self.opponent is not None
            and self.copy_of is None
        )

    @property
    def bot_played(self) -> str | None:
        """The name of the bot on either side (the owner's first), if a bot played."""
        spec = self.bot if self.bot is not None else self.opponent_bot
        return None if spec is None else bot_name(spec)

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


def bot_name(spec: str) -> str:
    """A bot's name (``hard``) from its spec (``hard:time=0.5``), as a file's header gives it."""
    return spec.split(":")[0]


@dataclass
class Record:
    """One player's won-drawn-lost record against people, overall and against
    each opponent key, and apart from it, against each built-in bot.

    A key whose side a bot played (``--bot``) has a record of its own for
    each bot (``bot``): the bot's matches are not the person's."""

    player: Player
    overall: Tally = field(default_factory=Tally)
    """Against people (every opponent that was not a built-in bot)."""
    against: dict[str, tuple[Player, Tally]] = field(default_factory=dict)
    """Opponent fingerprint → (the opponent as last seen, the tally)."""
    bot: str | None = None
    """The bot that played this key's side in these matches; ``None``: the person."""
    against_bots: dict[str, Tally] = field(default_factory=dict)
    """A bot's name → the tally against it (``lcnet play``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "player": asdict(self.player),
            "bot": self.bot,
            "overall": asdict(self.overall),
            "against": [
                {"opponent": asdict(opponent), **asdict(tally)}
                for opponent, tally in self.against.values()
            ],
            "against_bots": [
                {"bot": name, **asdict(tally)} for name, tally in self.against_bots.items()
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


def read_match(path: Path, cache: dict[str, Any] | None = None) -> Match:
    """``path`` as a :class:`Match` (a spectator's file too: ``watched``).

    ``cache`` maps file digests to what an audit found (see the module's
    docstring); it is read, and filled for a file not being played. Only a
    regular file is read, never by a call that can block, and only up to
    :data:`~lcnet.store.replayfile.MAX_FILE_BYTES` (:mod:`lcnet.store.safeopen`); anything
    else is a Match ``unreadable`` that says what it is.
    """
    from lcnet.store.replayfile import MAX_FILE_BYTES
    from lcnet.store.safeopen import FileRefused, open_regular

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
    if cache is not None and not playing:
        cache[digest] = _to_cache(found)
    return replace(found, playing=True) if playing else found


def _audit(path: Path, data: bytes) -> Match:
    from lcnet.audit.verdict import audit_contents
    from lcnet.store.replayfile import ReplayFileError, parse_replay

    try:
        contents = parse_replay(data)
    except ReplayFileError as exc:
        return Match(path, "", "unreadable", str(exc))
    header = contents.header
    verdict = audit_contents(contents)
    watched = header.seat == "spectator"  # a match watched (`lcnet watch`), not played
    seat = header.seat if header.seat in ("host", "joiner") else None
    other = None if seat is None else ("joiner" if seat == "host" else "host")

    def player(s: str | None) -> Player | None:
        if s is None or s not in verdict.names:
            return None
        return Player(verdict.names[s], verdict.fingerprints[s])

    score = None
    result = None
    resigned = None
    winner = None
    if verdict.kind.value == "valid":
        winner = "draw" if verdict.winner_seat is None else verdict.winner_seat
    if watched:
        if verdict.totals and verdict.round_scores:
            score = (verdict.totals[0], verdict.totals[1])
        if verdict.resigned is not None and verdict.winner_seat in ("host", "joiner"):
            resigned = "joiner" if verdict.winner_seat == "host" else "host"
    elif seat is not None and other is not None:
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
        bot=_spec(header.extra.get("bot")),
        opponent_bot=_spec(header.extra.get("opponent_bot")),
        watched=watched,
        host=player("host"),
        joiner=player("joiner"),
        winner=winner,
    )


def _spec(value: Any) -> str | None:
    """A bot spec from a file's header (unsigned: anything else is no bot)."""
    return None if value is None else str(value)


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
        opponent_bot=data["opponent_bot"],
        watched=bool(data["watched"]),
        host=player(data["host"]),
        joiner=player(data["joiner"]),
        winner=data["winner"],
    )


def history(directories: Sequence[Path], *, home: Path | None = None) -> list[Match]:
    """Every match of ``directories``, newest first (the verdicts remembered in ``home``)."""
    cache_path = (home if home is not None else identity.home_dir()) / CACHE_FILE
    cache = _read_cache(cache_path)
    before = dict(cache)
    matches = [read_match(p, cache) for p in replay_files(directories)]
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
    from lcnet.store.safeopen import FileRefused, read_regular

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
    """Each file owner's record (by key), from the matches that count: the
    person's (against people, and apart, against bots), then each bot's that
    played for a key (``--bot``), each the most played first."""
    by_owner: dict[tuple[str, str | None], Record] = {}
    for match in sorted(matches, key=lambda m: m.created):
        if not match.counts:
            continue
        assert match.me is not None and match.opponent is not None and match.result is not None
        bot = None if match.bot is None else bot_name(match.bot)
        record = by_owner.setdefault((match.me.fingerprint, bot), Record(match.me, bot=bot))
        record.player = match.me  # the name last used
        if match.opponent_bot is not None:
            record.against_bots.setdefault(bot_name(match.opponent_bot), Tally()).add(match.result)
            continue
        record.overall.add(match.result)
        _, tally = record.against.get(match.opponent.fingerprint, (match.opponent, Tally()))
        tally.add(match.result)
        record.against[match.opponent.fingerprint] = (match.opponent, tally)
    return sorted(
        by_owner.values(),
        key=lambda r: (
            r.bot is not None,
            -(r.overall.played + sum(t.played for t in r.against_bots.values())),
        ),
    )
