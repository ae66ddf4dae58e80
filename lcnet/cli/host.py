"""``lcnet host``: wait for an opponent on this machine's network and play."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from lcnet.cli import _checks as checks
from lcnet.cli._netargs import (
    BIND_HELP,
    HOST,
    add_player_arguments,
    add_spectators_argument,
    exit_statuses,
    player_from,
    print_listening,
)
from lcnet.net.addresses import DEFAULT_PORT, EVERY_ADDRESS
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.wire import MAX_ROUNDS
from lcnet.run.netmatch import host_match, player_identity

DESCRIPTION = """\
Wait for one opponent to join, then start a new match with the options given
here. Shows every address of this machine with the port, to give the
opponent, and both players' key fingerprints, which you can read to each
other to be sure nobody sits in between. The match is saved as a replay file
as it goes; if it is interrupted, continue it with `lcnet resume` (which
lists your unfinished matches). Hosting never resumes an old match.
"""

EPILOG = f"""\
examples:
  lcnet host                     wait on port {DEFAULT_PORT}, play in the terminal
  lcnet host --suits 6 --rounds 5
  lcnet host --port 50000 --bind 192.168.1.20
  lcnet host --bot hard          let the built-in bot play for you (someone can
                                 play it from another machine with lcnet join)

The game is announced on the local network (multicast DNS), so the opponent
can run `lcnet join` with no address and pick it. The screen also lists
where to join by address, e.g. `lcnet join 192.168.1.20` (and `:PORT` if you
chose another port). The port must be reachable: open it in your firewall (TCP).
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet host`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG + exit_statuses(HOST)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"TCP port to listen on (default {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument("--bind", default=EVERY_ADDRESS, metavar="ADDR", help=BIND_HELP)
    parser.add_argument(
        "--suits", type=int, choices=(5, 6), default=5, help="5 suits, or 6 with purple (default 5)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        metavar="R",
        help=f"rounds in the match, 1 to {MAX_ROUNDS} (default 3)",
    )
    parser.add_argument(
        "--no-announce",
        action="store_true",
        help="do not announce the game on the local network (it is announced, with your "
        "name and fingerprint, on the interfaces of the --bind address, never on loopback)",
    )
    add_spectators_argument(parser)
    add_player_arguments(parser, bot_help="let a built-in bot play this side", connects=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    checks.port("--port", args.port)
    checks.bind(args.bind)
    checks.whole("--rounds", args.rounds, 1, MAX_ROUNDS)
    options = MatchOptions(suits=args.suits, rounds=args.rounds)
    player = player_from(args)
    me = player_identity(player)
    listening = print_listening(f"you are {me.name}, key fingerprint {me.fingerprint}")

    def waiting(port: int, addresses: Sequence[str]) -> None:
        listening(port, addresses)
        print("lcnet: waiting for an opponent...", file=sys.stderr, flush=True)

    return asyncio.run(
        host_match(
            bind=args.bind,
            port=args.port,
            options=options,
            player=player,
            on_listening=waiting,
            announce=not args.no_announce,
        )
    )
