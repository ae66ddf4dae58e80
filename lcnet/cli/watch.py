"""``lcnet watch``: watch a match on the LAN, checking every move yourself."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lcnet.errors import ExitCode
from lcnet.net.addresses import DEFAULT_PORT, format_address, parse_address
from lcnet.run.netmatch import DEFAULT_REPLAYS

if TYPE_CHECKING:
    from lcnet.ui.watch_view import WatchScreen
    from lcnet.watch.peer import Watched, Watching

DEFAULT_TIMEOUT: Final = 300.0
"""As :data:`lcnet.watch.peer.DEFAULT_TIMEOUT` (not imported here: --help needs no ZeroMQ)."""

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
  lcnet watch HOST --lines            lines, not the full screen
  lcnet watch HOST --board            lines, and the public board after each move

At a terminal, the live board full screen (the screen on the wall), as
`lcnet replay` shows the same step: both expeditions, the discard piles, the
draw pile, the totals, whose move and the last move; a hand only once its
round has ended. Under it, the latest of the lines below. Keys: i who plays
(names and key fingerprints), m the moves, l all the lines, ? help, q leave
(the watch stops there, your file kept: exit status {ExitCode.INTERRUPTED:d}, as Ctrl-C).
After the match the board stays until q; the verdict is printed then.

Lines (with --lines or --board, or when input or output is not a terminal):
who plays (both names and key fingerprints, and whether this machine knows
each key: compare them with the players; type i and Enter to see them
again), one line per move, the round scores, the result, any dispute; then
the verdict, the one `lcnet audit` gives your file.

Beside the moves: the players' lines (say), a player leaving, the host
losing its opponent and getting it back, and (within a few seconds) a host
that stops answering; the watch then waits for it to be resumed. When both
players agree on another match, the watch follows them into it, in a file
of its own, after the first match's verdict; the exit status is the last
match's.

The host is not trusted: a frame it sends that fails the check is told at
once with what failed, and the watch stops there; a match that makes no
progress (no new frame) for --timeout seconds is left, whatever the host
keeps sending; evidence is kept only as far as it can prove something.

exit status:
  {ExitCode.OK:d}  valid: the match ended, and all of it checks
  {ExitCode.FAILED:d}  invalid: a player broke the rules (the verdict names who, with the proof)
  {ExitCode.USAGE:d}  the host sent a frame that fails the check (this names neither
     player: the host's stream is no transcript from there); or a wrong command line
  {ExitCode.UNFINISHED:d}  the match did not end: no new frame for --timeout seconds, or it
     stopped on a dispute that nothing in it proves
  {ExitCode.REFUSED:d}  the host turned this spectator away
  {ExitCode.UNREACHABLE:d}  nothing answers at the address
  {ExitCode.NO_GAMES:d}  (without ADDRESS) no match is being played or waiting on the LAN
  {ExitCode.INTERRUPTED:d}  interrupted (Ctrl-C, or q before the end): the file holds what came
"""

EXIT_CODES: Final = (
    ExitCode.OK,
    ExitCode.FAILED,
    ExitCode.USAGE,
    ExitCode.UNFINISHED,
    ExitCode.REFUSED,
    ExitCode.UNREACHABLE,
    ExitCode.NO_GAMES,
    ExitCode.INTERRUPTED,
)
"""Every status ``lcnet watch`` ends with (its --help lists them)."""


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
        "--board",
        action="store_true",
        help="print lines and the public board after each move (no full screen)",
    )
    parser.add_argument(
        "--lines",
        action="store_true",
        help="print lines, one per move, even at a terminal (no full screen)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help="leave after S seconds without a new frame of the match, whatever the host "
        f"sends (default {DEFAULT_TIMEOUT:g})",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from lcnet.cli import _checks as checks
    from lcnet.errors import UsageError
    from lcnet.run.netmatch import check_replays_dir

    # Every option, before any file, socket or search (exit 2, naming it).
    if not 0 < args.timeout <= 3600:
        raise UsageError(
            f"--timeout must be more than 0 and at most 3600 seconds, not {args.timeout:g}"
        )
    if not 0 < args.look <= 600:
        raise UsageError(f"--look must be more than 0 and at most 600 seconds, not {args.look:g}")
    if args.address is not None and args.pick is not None:
        raise UsageError("--pick chooses among the matches found when no address is given")
    if args.pick is not None:
        checks.pick(args.pick)
    address = parse_address(args.address) if args.address is not None else None
    checks.replays(args.replays)
    check_replays_dir(args.replays)
    if address is None:
        from lcnet.cli.games import watch_found

        return watch_found(args, lambda host, port: _watch(args, host, port))
    host, port = address
    return _watch(args, host, port)


def _watch(args: argparse.Namespace, host: str, port: int) -> int:
    from lcnet.errors import UserError
    from lcnet.store import identity
    from lcnet.textsafe import shown
    from lcnet.watch.peer import Watching, watch

    def say(text: str) -> None:
        print(shown(text), file=sys.stderr, flush=True)

    me = identity.load_identity()
    try:
        known = identity.known_peers()
    except UserError as exc:
        say(f"lcnet: {exc}; no player is shown as known")
        known = {}
    typed = sys.stdin is not None and sys.stdin.isatty()
    screen = typed and sys.stdout.isatty() and not (args.lines or args.board)
    say(
        f"lcnet: watching the match at {format_address(host, port)} as {me.name}, "
        f"key fingerprint {me.fingerprint}"
        + ("; type i and Enter to see who plays" if typed and not screen else "")
    )
    how = Watching(
        identity=me,
        replays=args.replays,
        timeout=args.timeout,
        show=lambda line: print(line, flush=True),  # escaped by the spectator
        board=args.board,
        on_file=lambda path: say(f"lcnet: saving the match to {path}"),
        known_peers=known,
        commands=sys.stdin.fileno() if typed else None,
        on_match_end=lambda watched: _match_ended(watched, say),
    )
    if screen:
        return _watch_on_screen(host, port, how)
    watched = asyncio.run(watch(host, port, how))
    if watched.stopped is not None:
        say(f"lcnet watch: {watched.stopped}")
    print(shown(watched.verdict.summary), flush=True)
    if watched.path is not None:
        say(f"lcnet: saved {watched.path}")
    return watched.verdict.exit_code


def _match_ended(watched: Watched, say: Callable[[str], None]) -> None:
    """A match the spectator watched ended, and the players agreed on another."""
    from lcnet.textsafe import shown

    print(shown(watched.verdict.summary), flush=True)
    if watched.path is not None:
        say(f"lcnet: saved {watched.path}")
    say("lcnet: the players play another match, the seats swapped: watching it too")


def _watch_on_screen(host: str, port: int, how: Watching) -> int:
    """The watch with the live board full screen; the verdict printed after it."""
    from lcnet.textsafe import shown
    from lcnet.ui.watch_view import WatchScreen

    def say(text: str) -> None:
        print(shown(text), file=sys.stderr, flush=True)

    saved: list[Path] = []
    screen = WatchScreen(
        title=f"watching the match at {format_address(host, port)}", known_peers=how.known_peers
    )
    watched = asyncio.run(watch_on_screen(host, port, how, screen, saved=saved.append))
    if watched is None:
        say("lcnet watch: left before the match ended" + (f"; saved {saved[-1]}" if saved else ""))
        return ExitCode.INTERRUPTED
    if watched.stopped is not None:
        say(f"lcnet watch: {watched.stopped}")
    print(shown(watched.verdict.summary), flush=True)
    if watched.path is not None:
        say(f"lcnet: saved {watched.path}")
    return watched.verdict.exit_code


async def watch_on_screen(
    host: str,
    port: int,
    how: Watching,
    screen: WatchScreen,
    *,
    saved: Callable[[Path], None] = lambda path: None,
) -> Watched | None:
    """Watch the match at ``host:port`` with its live board on ``screen``, in
    one event loop: the spectator's lines go under the board, none to the
    terminal. Returns what :func:`lcnet.watch.peer.watch` returns, once the
    viewer leaves after the watch ended; ``None`` if the viewer left before
    (``q``: the watch stops there, its file kept; ``saved`` is told the file)."""
    import dataclasses

    from lcnet.watch.peer import watch

    def on_file(path: Path) -> None:
        saved(path)
        screen.show(f"saving the match to {path}")

    def match_ended(watched: Watched) -> None:
        screen.show(f"verdict: {watched.verdict.summary}")
        if watched.path is not None:
            screen.show(f"saved {watched.path}; the players play another match: watching it")

    on_screen = dataclasses.replace(
        how,
        show=screen.show,
        on_match_end=match_ended,
        on_frames=screen.take_frames,
        on_file=on_file,
        board=False,  # the screen is the board
        commands=None,  # the screen reads the keys
    )

    async def watching() -> Watched:
        watched = await watch(host, port, on_screen)
        if watched.stopped is not None:
            screen.show(watched.stopped)
        screen.show(f"verdict: {watched.verdict.summary}")
        return watched

    return await screen.run_beside(watching())
