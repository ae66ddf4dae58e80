"""``lcnet join``: connect to a host and play."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from lcnet import identity
from lcnet.cli._netargs import EXIT_CODES, add_player_arguments, player_from
from lcnet.net import DEFAULT_PORT, parse_address
from lcnet.netplay import join_match, offer_resume, resume_match, unfinished_matches

DESCRIPTION = """\
Connect to a player who runs `lcnet host`, and play a match. The host decides
the number of suits and rounds. Both players' key fingerprints are shown; read
them to each other to be sure nobody sits in between. The match is saved as a
replay file as it goes; if it is interrupted, continue it with `lcnet resume`.
"""

EPILOG = f"""\
examples:
  lcnet join 192.168.1.20            the host's address (port {DEFAULT_PORT})
  lcnet join 192.168.1.20:50000      another port
  lcnet join [fe80::1%eth0]:50000    IPv6
  lcnet join 192.168.1.20 --bot greedy
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "join",
        help="connect to a host and play",
        description=DESCRIPTION,
        epilog=EPILOG + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("address", metavar="HOST[:PORT]", help="where `lcnet host` runs")
    add_player_arguments(parser, bot_help="let a built-in bot play this side")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    host, port = parse_address(args.address)
    player = player_from(args)
    me = identity.load_identity()
    print(
        f"lcnet: connecting to {host}:{port} as {me.name}, key fingerprint {me.fingerprint}",
        file=sys.stderr,
        flush=True,
    )
    found = unfinished_matches(player.replays, role="joiner", host=host, port=port)
    chosen = offer_resume(found, player)
    if chosen is not None:
        return asyncio.run(resume_match(chosen.path, chosen.contents, player=player))
    return asyncio.run(join_match(host=host, port=port, player=player))
