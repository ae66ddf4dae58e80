"""``lcnet join``: connect to a host and play."""

from __future__ import annotations

import argparse
import asyncio
import sys

from lcnet.cli import _checks as checks
from lcnet.cli._netargs import JOIN, add_player_arguments, exit_statuses, player_from
from lcnet.errors import UsageError
from lcnet.net.addresses import DEFAULT_PORT, format_address, parse_address
from lcnet.run.netmatch import join_match, player_identity

DESCRIPTION = """\
Connect to a player who runs `lcnet host`, and play a new match. The host
decides the number of suits and rounds. If nothing listens at the address,
that is said at once. Both players' key fingerprints are shown; read them to
each other to be sure nobody sits in between. The match is saved as a replay
file as it goes; if it is interrupted, continue it with `lcnet resume` (which
lists your unfinished matches). Joining never resumes an old match.
"""

EPILOG = f"""\
ADDRESS is an IPv4 address or a host name, or an IPv6 address in brackets,
with `:PORT` after it if the host chose another port than {DEFAULT_PORT}.

examples:
  lcnet join                         look for games on the local network, pick one
  lcnet join 192.168.1.20            the host's address (port {DEFAULT_PORT})
  lcnet join 192.168.1.20:50000      another port
  lcnet join my-pc.local             a host name
  lcnet join [fd00::2]:50000         IPv6 (link-local: [fe80::1%eth0]:50000)
  lcnet join 192.168.1.20 --bot medium
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet join`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG + exit_statuses(JOIN)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "address",
        metavar="ADDRESS[:PORT]",
        nargs="?",
        help="where `lcnet host` runs, as it shows (none: look for games on the local network)",
    )
    parser.add_argument(
        "--pick",
        metavar="GAME",
        help="with no address: join this one of the games found (its number, its "
        "player's name or its whole fingerprint, 16 hex digits) without asking",
    )
    add_player_arguments(parser, bot_help="let a built-in bot play this side")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.address is None:
        from lcnet.cli.games import join_found

        if args.pick is not None:
            checks.pick(args.pick)
        return join_found(args)
    if args.pick is not None:
        raise UsageError("--pick chooses among the games found when no address is given")
    host, port = parse_address(args.address)
    player = player_from(args)
    me = player_identity(player)
    print(
        f"lcnet: connecting to {format_address(host, port)} as {me.name}, "
        f"key fingerprint {me.fingerprint}",
        file=sys.stderr,
        flush=True,
    )
    return asyncio.run(join_match(host=host, port=port, player=player))
