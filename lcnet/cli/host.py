"""``lcnet host``: wait for an opponent on this machine's network and play."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from lcnet import identity
from lcnet.cli._netargs import EXIT_CODES, add_player_arguments, player_from
from lcnet.errors import UsageError
from lcnet.net import DEFAULT_PORT, local_addresses
from lcnet.netplay import host_match, offer_resume, resume_match, unfinished_matches
from lcnet.session import MatchOptions

DESCRIPTION = """\
Wait for one opponent to join, then play a match. Shows the address and
port to give the opponent, and both players' key fingerprints, which you can
read to each other to be sure nobody sits in between. The match is saved as a
replay file as it goes; if it is interrupted, continue it with `lcnet resume`.
"""

EPILOG = f"""\
examples:
  lcnet host                     wait on port {DEFAULT_PORT}, play in the terminal
  lcnet host --suits 6 --rounds 5
  lcnet host --bot mcts          let the built-in bot play for you (someone can
                                 play it from another machine with lcnet join)

The opponent runs `lcnet join THIS-MACHINE-ADDRESS` (and `:PORT` if you chose
another port). The port must be reachable: open it in your firewall (TCP).
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "host",
        help="wait for an opponent to join, then play",
        description=DESCRIPTION,
        epilog=EPILOG + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"TCP port to listen on (default {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument(
        "--bind",
        default="0.0.0.0",
        metavar="ADDR",
        help="address to listen on (default: all addresses of this machine)",
    )
    parser.add_argument(
        "--suits", type=int, choices=(5, 6), default=5, help="5 suits, or 6 with purple (default 5)"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, metavar="R", help="rounds in the match (default 3)"
    )
    add_player_arguments(parser, bot_help="let a built-in bot play this side", connects=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    try:
        options = MatchOptions(suits=args.suits, rounds=args.rounds)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    player = player_from(args)
    me = identity.load_identity()

    def listening(bind: str, port: int) -> None:
        where = [f"{a}:{port}" for a in local_addresses()] if bind in ("0.0.0.0", "*") else []
        print(f"lcnet: listening on {bind}:{port}", file=sys.stderr, flush=True)
        if where:
            print(
                f"lcnet: the opponent joins with: lcnet join {where[0]}"
                + (f"  (or {', '.join(where[1:])})" if len(where) > 1 else ""),
                file=sys.stderr,
                flush=True,
            )
        print(
            f"lcnet: you are {me.name}, key fingerprint {me.fingerprint}",
            file=sys.stderr,
            flush=True,
        )
        print("lcnet: waiting for an opponent...", file=sys.stderr, flush=True)

    chosen = offer_resume(unfinished_matches(player.replays, role="host"), player)
    if chosen is not None:
        return asyncio.run(
            resume_match(chosen.path, chosen.contents, player=player, on_listening=listening)
        )
    return asyncio.run(
        host_match(
            bind=args.bind, port=args.port, options=options, player=player, on_listening=listening
        )
    )
