"""``lcnet history``: the matches of your replay folder, who beat whom, and what you watched."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Final

from lcnet.run.history import Match, Player, Record, Tally, bot_name, history, records
from lcnet.run.netmatch import DEFAULT_REPLAYS
from lcnet.textsafe import shown

DESCRIPTION = f"""\
List the matches saved in your replay folder ({DEFAULT_REPLAYS}/, and any given
with --replays DIR), newest first: the date, the opponent (name and key
fingerprint), whether a built-in bot played (yours: `--bot`; the
opponent: `lcnet play`), the options, the rounds played, the result and the
audit's verdict. Then the won-drawn-lost record against each opponent and
overall, by key, not by name (anyone can take a name).

Your record is against people. Matches against a built-in bot (`lcnet play`)
are your record against bots, apart; matches a bot played for you (`lcnet
host --bot`, `lcnet join --bot`) are that bot's record, not yours.

Each file is audited as `lcnet audit` would (signatures, the deck, every
move, the scores); the verdict is remembered, and the file audited again
only if its bytes change. Only a match whose file audits valid counts in a
record: any other file is listed with its verdict and left out. Where both
sides' files of a match are in the folders and one side was played by a
built-in bot (the bot's file of an `lcnet play` match), only the other is
listed. The matches you watched (`lcnet watch`) are listed apart: who
played, how it ended, the verdict; they count in no record.
"""

DATE_WIDTH: Final = 25
"""The widest date column: a header's ``created`` that is no ISO date is cut here."""

EPILOG = f"""\
examples:
  lcnet history                        the matches in {DEFAULT_REPLAYS}/ and your record
  lcnet history --replays ~/old-games  also the matches in ~/old-games
  lcnet history --json                 the same as JSON, for scripts

A file that cannot be read (a directory, a FIFO, a device, a link to nothing,
a file too large to be a replay, one without permission) is listed as
unreadable with what it is, and the listing goes on. File names and the
files' unsigned texts are shown with their control characters escaped.

exit status: 0 (also when there is no match to list), 2 for a wrong command line.
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet history`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--replays",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help=f"also list the matches in DIR (more than once for more; {DEFAULT_REPLAYS}/ always)",
    )
    parser.add_argument("--json", action="store_true", help="print the matches and records as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from lcnet.cli import _checks as checks

    for folder in args.replays:  # each folder given is one to read (exit 2, naming it)
        checks.replays(folder, writes=False, must_exist=True)
    folders = [DEFAULT_REPLAYS, *args.replays]
    matches = history(folders)
    owners = records(matches)
    if args.json:
        print(
            json.dumps(
                {
                    "matches": [m.to_json() for m in matches],
                    "records": [r.to_json() for r in owners],
                },
                indent=2,
                # Every character outside ASCII escaped: no control character of a
                # file name or header reaches the terminal, and a file name that is
                # not UTF-8 survives (as \udcXX, which Python's json reads back).
                ensure_ascii=True,
            )
        )
        return 0
    where = ", ".join(f"{shown(str(folder))}/" for folder in dict.fromkeys(folders))
    if not matches:
        hint = "" if args.replays else " (--replays DIR looks in another place)"
        print(f"No saved match in {where}{hint}.")
        return 0
    played = [m for m in matches if not m.watched]
    watched = [m for m in matches if m.watched]
    if played:
        print(f"Matches in {where}, newest first:")
        print()
        for line in table(played):
            print(f"  {line}")
    me = _own_fingerprint()
    for record in owners:
        print()
        print(*record_lines(record, yours=record.player.fingerprint == me), sep="\n")
    if watched:
        if played:
            print()
        print(f"Matches watched (lcnet watch) in {where}, newest first; in no record:")
        print()
        for line in watched_table(watched):
            print(f"  {line}")
    left_out = [m for m in played if not m.counts]
    if left_out:
        print()
        print(left_out_line(left_out))
        for m in left_out:
            if m.verdict in ("invalid", "damaged", "unreadable"):
                print(f"  {shown(str(m.path))}: {shown(m.summary)}")
    return 0


def _own_fingerprint() -> str | None:
    from lcnet.errors import UserError
    from lcnet.store import identity

    try:
        if not identity.identity_exists():
            return None
        return identity.load_identity(create=False).fingerprint
    except UserError:
        return None


def table(matches: list[Match]) -> list[str]:
    """One line a match, in aligned columns (a ``bot`` column if a bot played one)."""
    bots = any(m.bot is not None or m.opponent_bot is not None for m in matches)
    head = ("date", "opponent", *(["bot"] if bots else []), "options", "rounds", "result")
    rows: list[tuple[str, ...]] = [(*head, "verdict", "file")]
    for m in matches:
        rows.append(
            (
                _date(m.created),
                "?" if m.opponent is None else _who(m.opponent),
                *([_bot(m)] if bots else []),
                _options(m),
                "?" if m.rounds is None else f"{m.rounds_played} of {m.rounds}",
                _result(m),
                _verdict(m),
                shown(m.path.name),
            )
        )
    return _aligned(rows)


def watched_table(matches: list[Match]) -> list[str]:
    """One line a match watched: who hosted, who joined, how it ended."""
    rows: list[tuple[str, ...]] = [
        ("date", "host", "joiner", "options", "rounds", "result", "verdict", "file")
    ]
    for m in matches:
        rows.append(
            (
                _date(m.created),
                "?" if m.host is None else _who(m.host),
                "?" if m.joiner is None else _who(m.joiner),
                _options(m),
                "?" if m.rounds is None else f"{m.rounds_played} of {m.rounds}",
                _watched_result(m),
                m.verdict,
                shown(m.path.name),
            )
        )
    return _aligned(rows)


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """The rows in columns as wide as their widest cell (the last one, the file, as it is)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
        + "  "
        + row[-1]
        for row in rows
    ]


BOT_WIDTH: Final = 20
"""A bot's name comes from the file's header (unsigned): cut here."""


def _bot(m: Match) -> str:
    """Who of the two was a built-in bot: ``yours (hard)``, ``opponent (hard)``, or ``-``."""
    if m.bot is not None:
        return f"yours ({shown(bot_name(m.bot), limit=BOT_WIDTH)})"
    if m.opponent_bot is not None:
        return f"opponent ({shown(bot_name(m.opponent_bot), limit=BOT_WIDTH)})"
    return "-"


def _options(m: Match) -> str:
    return "?" if m.suits is None else f"{m.suits} suits, {_rounds(m.rounds)}"


def _watched_result(m: Match) -> str:
    """How a watched match ended: ``Ada won 45:12``, ``a draw 10:10``, ``unfinished``."""
    if m.playing:
        return "being played now"
    if m.winner is None:
        return "unfinished" if m.verdict == "incomplete" else "-"
    score = "" if m.score is None else f" {m.score[0]}:{m.score[1]}"
    if m.winner == "draw":
        return f"a draw{score}"
    winner = m.host if m.winner == "host" else m.joiner
    name = m.winner if winner is None else shown(winner.name, limit=BOT_WIDTH)
    text = f"{name} won{score}"
    if m.resigned is not None:
        loser = m.joiner if m.winner == "host" else m.host
        text += f" ({m.resigned if loser is None else shown(loser.name, limit=BOT_WIDTH)} resigned)"
    return text


def _who(player: Player) -> str:
    """``name (fingerprint)``, escaped: the name is the player's own choice."""
    return shown(f"{player.name} ({player.fingerprint})")


def _rounds(count: int | None) -> str:
    return f"{count} round" if count == 1 else f"{count} rounds"


def _date(created: str) -> str:
    """``2026-12-06T22:40:00Z`` as ``2026-12-06 22:40`` (UTC, as the file says);
    escaped, for the file's header is not signed."""
    if len(created) >= 16 and created[10] == "T":
        return shown(f"{created[:10]} {created[11:16]}")
    return shown(created, limit=DATE_WIDTH) or "?"


def _result(m: Match) -> str:
    if m.playing:
        return "being played now"
    if m.result is None:
        return "unfinished" if m.verdict == "incomplete" else "-"
    text = m.result
    if m.score is not None:
        text += f" {m.score[0]}:{m.score[1]}"
    if m.resigned == "me":
        text += " (you resigned)"
    elif m.resigned == "opponent":
        text += " (they resigned)"
    return text


def _verdict(m: Match) -> str:
    if m.copy_of is not None:
        return f"{m.verdict} (copy)"
    return m.verdict


def record_lines(record: Record, *, yours: bool) -> list[str]:
    """The record of one player against people, overall and against each
    opponent key; then, apart, against each built-in bot. A bot's record
    (it played the player's side: ``--bot``) is said to be the bot's."""
    who = _who(record.player)
    overall = record.overall
    if record.bot is not None:
        bot = shown(record.bot, limit=BOT_WIDTH)
        head = (
            f"Your {bot} bot's record (it played for you with --bot)"
            if yours
            else f"Record of the {bot} bot that played as {who} with --bot"
        )
    else:
        head = "Your record" if yours else f"Record of {who}"
        if record.against_bots:
            head += " against people"
    lines = []
    if overall.played or not record.against_bots:
        lines.append(
            f"{head}: {_tally(overall)}"
            + (f" (you are {who})" if yours and record.bot is None else "")
        )
        opponents = sorted(
            record.against.values(), key=lambda item: (-item[1].played, item[0].name)
        )
        for opponent, tally in opponents:
            lines.append(f"  against {_who(opponent)}: {_tally(tally)}")
    if record.against_bots:
        tallies = record.against_bots.values()
        bots = Tally(
            won=sum(t.won for t in tallies),
            drawn=sum(t.drawn for t in tallies),
            lost=sum(t.lost for t in tallies),
        )
        if record.bot is not None:
            head = f"{head}, against bots"
        else:
            head = "Your record against bots" if yours else f"Record of {who} against bots"
        lines.append(f"{head} (lcnet play): {_tally(bots)}")
        for name, tally in sorted(record.against_bots.items(), key=lambda i: -i[1].played):
            lines.append(f"  against the {shown(name, limit=BOT_WIDTH)} bot: {_tally(tally)}")
    return lines


def _tally(tally: Tally) -> str:
    return f"{tally.won} won, {tally.drawn} drawn, {tally.lost} lost"


def left_out_line(left_out: list[Match]) -> str:
    counts: dict[str, int] = {}
    for m in left_out:
        if m.copy_of is not None:
            kind = "copy"
        elif m.playing:
            kind = "being played"
        else:
            kind = "unfinished" if m.verdict == "incomplete" else m.verdict
        counts[kind] = counts.get(kind, 0) + 1
    parts = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
    return (
        f"Not in any record ({parts}): only a finished match whose file audits valid counts, once."
    )
