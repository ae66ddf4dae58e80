"""``lcnet watch``: watch a match on the LAN, checking every move yourself."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from lcnet.addresses import DEFAULT_PORT, format_address, parse_address
from lcnet.netplay import DEFAULT_REPLAYS

DESCRIPTION = """\
Watch a match that `lcnet host` plays at ADDRESS. The host sends you the
signed transcript from its first frame, then every frame as it is played,
and this program checks all of it as `lcnet audit` would: the signatures,
the chain, every move against the rules, the deck's commitments, passes and
keys, and the scores. You see only what the transcript shows anyone: the
board and the moves, never a hidden card. If a player cheats, you see the
dispute and the proof as it happens, and your own verdict at the end.

Every frame is written to your own replay file first (in --replays DIR,
named GAME-spectator-KEY.lcnet): `lcnet audit` of it gives the same verdict
as the players' files. A spectator can change nothing in the match, and the
match never waits for it. The host decides how many may watch
(`lcnet host --spectators N`) and its screen shows who does.
"""

EPILOG = f"""\
examples:
  lcnet watch                         find the matches played on the LAN, watch one
  lcnet watch 192.168.1.20            watch the match played there (port {DEFAULT_PORT})
  lcnet watch 192.168.1.20:50000      ... on another port
  lcnet watch HOST --board            also print the public board after each move

Output: one line per move, the round scores, the result, any dispute; then
the verdict. exit status: the verdict's, as `lcnet audit`: 0 valid (the
match ended and checks), 1 invalid (a proven fault, named), 3 the match did
not end (the host stopped answering, or it turned this spectator away: 4);
2 for a wrong command line.
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet watch`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "address",
        metavar="ADDRESS[:PORT]",
        nargs="?",
        help="the host's address (none: find the matches being played on the LAN)",
    )
    parser.add_argument(
        "--pick",
        metavar="GAME",
        help="without ADDRESS: which match found to watch (its number, or its host's "
        "name or fingerprint)",
    )
    parser.add_argument(
        "--look",
        type=float,
        default=3.0,
        metavar="S",
        help="without ADDRESS: seconds to look for matches on the LAN (default 3)",
    )
    parser.add_argument(
        "--replays",
        type=Path,
        default=DEFAULT_REPLAYS,
        metavar="DIR",
        help=f"where to save your replay file of the match (default: {DEFAULT_REPLAYS}/)",
    )
    parser.add_argument(
        "--board", action="store_true", help="print the public board after each move"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="give up after S seconds without an answer from the host (default 60)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from lcnet.errors import UsageError
    from lcnet.netplay import check_replays_dir

    if not 0 < args.timeout <= 3600:
        raise UsageError(
            f"--timeout must be more than 0 and at most 3600 seconds, not {args.timeout:g}"
        )
    check_replays_dir(args.replays)
    if args.address is None:
        from lcnet.cli.games import watch_found

        return watch_found(args, lambda host, port: _watch(args, host, port))
    if args.pick is not None:
        raise UsageError("--pick chooses among the matches found when no address is given")
    host, port = parse_address(args.address)
    return _watch(args, host, port)


def _watch(args: argparse.Namespace, host: str, port: int) -> int:
    from lcnet import identity
    from lcnet.audit import EXIT_CODES
    from lcnet.watchpeer import Watching, watch

    me = identity.load_identity()
    print(
        f"lcnet: watching the match at {format_address(host, port)} as {me.name}, "
        f"key fingerprint {me.fingerprint}",
        file=sys.stderr,
        flush=True,
    )
    how = Watching(
        identity=me,
        replays=args.replays,
        timeout=args.timeout,
        show=lambda line: print(line, flush=True),
        board=args.board,
        on_file=lambda path: print(
            f"lcnet: saving the match to {path}", file=sys.stderr, flush=True
        ),
    )
    watched = asyncio.run(watch(host, port, how))
    if watched.stopped is not None:
        print(f"lcnet watch: {watched.stopped}", file=sys.stderr, flush=True)
    print(watched.verdict.summary, flush=True)
    if watched.path is not None:
        print(f"lcnet: saved {watched.path}", file=sys.stderr, flush=True)
    return int(EXIT_CODES[watched.verdict.kind])
