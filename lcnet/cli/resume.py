"""``lcnet resume``: continue an unfinished match from its replay file."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from lcnet.cli._netargs import add_player_arguments, player_from
from lcnet.net import parse_address
from lcnet.netplay import resume_against_bot, resume_match
from lcnet.replaylog import read_replay, refuse_damaged

DESCRIPTION = """\
Continue a match that stopped before its end (a crash, a closed terminal, a
lost connection) from your replay file and its private side file
(FILE.secret). A host listens again on the same port; a joiner connects again
to the same host. The two peers compare how far each got, re-send what the
other missed, and play on. A match against a built-in bot (`lcnet play`) is
resumed together with the bot.
"""

EPILOG = """\
examples:
  lcnet resume replays/fe4a4d8d-joiner.lcnet
  lcnet resume replays/fe4a4d8d-host.lcnet --port 50000
  lcnet resume replays/fe4a4d8d-joiner.lcnet --connect 192.168.1.30:48150
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "resume",
        help="continue an unfinished match from its replay file",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, help="your replay file of the match")
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="as host: listen on this port instead of the original one",
    )
    parser.add_argument(
        "--connect",
        metavar="HOST[:PORT]",
        default=None,
        help="as joiner: connect here instead of to the original host address",
    )
    add_player_arguments(parser, bot_help="let a built-in bot play this side")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    contents = read_replay(args.file)
    refuse_damaged(args.file, contents)  # before anything starts (ReplayWriter.reopen checks too)
    player = player_from(args)
    opponent_bot = contents.header.extra.get("opponent_bot")
    if isinstance(opponent_bot, str) and args.connect is None and args.bot is None:
        return asyncio.run(
            resume_against_bot(args.file, contents, spec=opponent_bot, player=player)
        )
    connect_to = parse_address(args.connect) if args.connect else None

    def listening(bind: str, port: int) -> None:
        print(f"lcnet: listening on {bind}:{port}", file=sys.stderr, flush=True)

    return asyncio.run(
        resume_match(
            args.file,
            contents,
            player=player,
            connect_to=connect_to,
            port=args.port,
            on_listening=listening,
        )
    )
