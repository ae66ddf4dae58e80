"""``lcnet resume``: continue an unfinished match from its replay file, or list them."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from lcnet.cli._netargs import (
    RESUME,
    add_player_arguments,
    add_spectators_argument,
    exit_statuses,
    player_from,
    print_listening,
)
from lcnet.net.addresses import parse_address
from lcnet.run.botpeer import resume_against_bot
from lcnet.run.netmatch import resume_match
from lcnet.run.saved import saved_matches
from lcnet.store.replayfile import read_replay, refuse_damaged
from lcnet.textsafe import shown

DESCRIPTION = """\
Continue a match that stopped before its end (a crash, a closed terminal, a
lost connection) from your replay file and its private side file
(FILE.secret). A host listens again on the same port (and shows where); a
joiner connects again to the same host. The two peers compare how far each
got, re-send what the other missed, and play on. A match against a built-in
bot (`lcnet play`) is resumed together with the bot.

Without FILE, lists the unfinished matches in --replays DIR, newest first:
the opponent, the options, who owes the next message, and the exact command
that resumes each here (or why none does: a match played with another
identity's key). A match a bot played for you (`lcnet host --bot LEVEL`,
`lcnet join ADDRESS --bot LEVEL`) is listed with its bot and resumed by it:
`lcnet resume FILE --bot LEVEL`. Resuming is only ever this command: `lcnet
host` and `lcnet join` always start a new match.
"""

EPILOG = """\
examples:
  lcnet resume                       list the unfinished matches in replays/
  lcnet resume replays/fe4a4d8d-joiner.lcnet
  lcnet resume replays/fe4a4d8d-host.lcnet --bot hard   a match `lcnet host --bot hard` played
  lcnet resume replays/fe4a4d8d-host.lcnet --port 50000
  lcnet resume replays/fe4a4d8d-joiner.lcnet --connect 192.168.1.30:48150
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet resume`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG + exit_statuses(RESUME)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "file", type=Path, nargs="?", help="your replay file of the match (none: list them)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="as host: listen on this port instead of the original one",
    )
    parser.add_argument(
        "--connect",
        metavar="ADDRESS[:PORT]",
        default=None,
        help="as joiner: connect here instead of to the original host address",
    )
    add_spectators_argument(parser)
    add_player_arguments(parser, bot_help="let a built-in bot play this side")
    parser.set_defaults(func=run)


def list_unfinished(replays: Path) -> int:
    """Print the unfinished matches in ``replays``, newest first, and how to resume
    one; then one line for each entry that could not be read."""
    saved = saved_matches(replays)
    found = saved.unfinished
    folder = shown(str(replays))
    if not found:
        print(f"No unfinished match in {folder}/ (--replays DIR looks in another place).")
    else:
        print(f"Unfinished matches in {folder}/, newest first:")
        for match in found:
            first, *rest = match.describe()
            print()
            print(f"  {first}")
            for line in rest:
                print(f"    {line}")
    if saved.unreadable:
        print()
        print(f"Not read ({len(saved.unreadable)}):")
        for entry in saved.unreadable:
            print(f"  {entry.describe()}")
    return 0


def run(args: argparse.Namespace) -> int:
    # Every option, before any file is read or socket opened (exit 2, naming it).
    from lcnet.cli import _checks as checks
    from lcnet.cli._netargs import check_player_options
    from lcnet.errors import UsageError

    if args.port is not None:
        checks.port("--port", args.port)
    if args.connect is not None:
        try:
            parse_address(args.connect)
        except UsageError as exc:
            raise UsageError(f"--connect: {exc}") from None
    check_player_options(args, plays=args.file is not None)
    if args.file is None:
        return list_unfinished(args.replays)
    contents = read_replay(args.file)
    refuse_damaged(args.file, contents)  # before anything starts (ReplayWriter.reopen checks too)
    player = player_from(args)
    opponent_bot = contents.header.extra.get("opponent_bot")
    if isinstance(opponent_bot, str) and args.connect is None and args.bot is None:
        return asyncio.run(
            resume_against_bot(args.file, contents, spec=opponent_bot, player=player)
        )
    connect_to = parse_address(args.connect) if args.connect else None
    return asyncio.run(
        resume_match(
            args.file,
            contents,
            player=player,
            connect_to=connect_to,
            port=args.port,
            on_listening=print_listening(resumed=True),
        )
    )
