"""Arguments shared by the commands that play over the network."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from lcnet.bots import bot_choices
from lcnet.cli import _checks as checks
from lcnet.errors import ExitCode, UsageError, UserError
from lcnet.link.audience import DEFAULT_SPECTATORS, MAX_SPECTATORS
from lcnet.link.liveness import Timing
from lcnet.link.rematch import MAX_REMATCHES
from lcnet.protocol.client import MatchClient, Update
from lcnet.run.netmatch import DEFAULT_REPLAYS, Player
from lcnet.store import identity
from lcnet.textsafe import shown

BIND_HELP = (
    "the address to listen on: one of this machine's IP addresses or an interface's "
    "name (default: every address, IPv4 and IPv6)"
)

HOST, JOIN, RESUME = "host", "join", "resume"

EXIT_STATUSES: Final[tuple[tuple[ExitCode, frozenset[str], str], ...]] = (
    (
        ExitCode.FINISHED,
        frozenset({HOST}),
        "the match was played to its end (or resigned), or you stopped before any match "
        "started (no one joined: nothing to continue)",
    ),
    (
        ExitCode.FINISHED,
        frozenset({JOIN}),
        "the match was played to its end (or resigned), or you left before the host "
        "answered (no match started: nothing to continue)",
    ),
    (ExitCode.FINISHED, frozenset({RESUME}), "the match was played to its end (or resigned)"),
    (
        ExitCode.DISPUTE,
        frozenset({HOST, JOIN, RESUME}),
        "a dispute (a player broke the rules), or another error",
    ),
    (ExitCode.USAGE, frozenset({HOST, JOIN, RESUME}), "the command line is wrong"),
    (
        ExitCode.UNFINISHED,
        frozenset({HOST, JOIN, RESUME}),
        "you left an unfinished match (`lcnet resume FILE` continues it)",
    ),
    (
        ExitCode.REFUSED,
        frozenset({HOST}),
        "the opponent would not play: it refused your welcome (it says why), or it agreed "
        "to another match and never opened it",
    ),
    (
        ExitCode.REFUSED,
        frozenset({JOIN}),
        "the host would not play: it is busy with another match, it turned you away, or it "
        "gave up on an opening that went no further (it says why)",
    ),
    (
        ExitCode.REFUSED,
        frozenset({RESUME}),
        "the opponent would not play: a host busy with another match or that turned you "
        "away (it says why), or a joiner that refused your welcome",
    ),
    (
        ExitCode.KEY_CHANGED,
        frozenset({JOIN}),
        "the host uses a name you know with another key, or signs with another key than "
        "the game found on the network announced: it may be someone else; nothing was "
        "played (a known name: --accept-new-key FINGERPRINT, once you checked it with "
        "them, or `lcnet id --forget NAME`)",
    ),
    (
        ExitCode.KEY_CHANGED,
        frozenset({RESUME}),
        "the opponent uses a name you know with another key: it may be someone else; "
        "nothing was played (--accept-new-key FINGERPRINT, once you checked it with "
        "them, or `lcnet id --forget NAME`)",
    ),
    (
        ExitCode.VERSION,
        frozenset({JOIN}),
        "the host runs an lcnet of an incompatible protocol version",
    ),
    (
        ExitCode.VERSION,
        frozenset({RESUME}),
        "the opponent runs an lcnet of an incompatible protocol version",
    ),
    (
        ExitCode.UNREACHABLE,
        frozenset({JOIN, RESUME}),
        "the host cannot be reached: nothing listens at the address, or it never answered",
    ),
    (
        ExitCode.NO_GAMES,
        frozenset({JOIN}),
        "(without an address) no game was found on the local network",
    ),
    (
        ExitCode.INTERRUPTED,
        frozenset({HOST, JOIN, RESUME}),
        "interrupted (Ctrl-C): an unfinished match is saved, as when you leave",
    ),
)
"""What each exit status means to each command that plays over the network,
and only the statuses it ends with: a host never connects (so is never
unreachable, and never hears a host's key or version), and only a joiner
searches the network."""


def exit_statuses(command: str) -> str:
    """The exit statuses of ``command`` (:data:`HOST`, :data:`JOIN` or
    :data:`RESUME`), as its --help epilog lists them."""
    lines = ["", "exit status:"]
    for code, commands, text in EXIT_STATUSES:
        if command in commands:
            lines += textwrap.wrap(
                text,
                width=79,
                initial_indent=f"  {code:d}  ",
                subsequent_indent="     ",
                break_long_words=False,
                break_on_hyphens=False,
            )
    return "\n".join(lines) + "\n"


def add_player_arguments(
    parser: argparse.ArgumentParser, *, bot_help: str, connects: bool = True, rematch: bool = True
) -> None:
    """The options of a player; ``connects``: whether this command may connect
    to a host (a host only listens, and waits as long as it takes);
    ``rematch``: whether a bot may play this side (and so needs ``--rematch``)."""
    parser.add_argument(
        "--bot",
        metavar="LEVEL",
        help=f"{bot_help}. Levels: {bot_choices()} (options: NAME:key=value, e.g. hard:time=0.5)",
    )
    if rematch:
        parser.add_argument(
            "--rematch",
            type=_count,
            default=0,
            metavar="N",
            help=f"with --bot: play up to N more matches, 0 to {MAX_REMATCHES}, when the "
            "opponent asks for one at the end, each on the same connection with the seats "
            "swapped (default 0: the bot declines). A person is asked at the end of each match",
        )
    parser.add_argument(
        "--replays",
        metavar="DIR",
        type=Path,
        default=DEFAULT_REPLAYS,
        help=f"where to save the match's replay file (default: {DEFAULT_REPLAYS}/)",
    )
    parser.add_argument(
        "--name", help="your display name for this match (default: the one `lcnet id` shows)"
    )
    parser.add_argument(
        "--accept-new-key",
        metavar="FINGERPRINT",
        help="accept this fingerprint as the new key of an opponent you know under "
        "another key (only after checking it with them in person); without it, such an "
        "opponent is refused",
    )
    parser.add_argument(
        "--ready-fd",
        type=int,
        metavar="FD",
        help=argparse.SUPPRESS,  # for programs that start lcnet: see Player.ready_fd
    )
    timing = Timing()
    parser.add_argument(
        "--ping-interval",
        type=float,
        default=timing.ping_interval,
        metavar="S",
        help=f"advanced: seconds between liveness checks (default {timing.ping_interval})",
    )
    if connects:
        parser.add_argument(
            "--connect-timeout",
            type=float,
            default=timing.connect_timeout,
            metavar="S",
            help="advanced: seconds to wait for a first answer from the host "
            f"(default {timing.connect_timeout})",
        )
    else:
        parser.add_argument(
            "--opening-timeout",
            type=float,
            default=timing.opening_timeout,
            metavar="S",
            help="advanced: seconds an opponent may take the opening (coin, seeds, deal) "
            "no step further before the host gives up on it and waits for another "
            f"(default {timing.opening_timeout})",
        )
    parser.add_argument(
        "--peer-timeout",
        type=float,
        default=timing.peer_timeout,
        metavar="S",
        help="advanced: seconds without an answer before the opponent counts as "
        f"disconnected (default {timing.peer_timeout})",
    )


MIN_INTERVAL = 0.01
"""Seconds: below this a liveness timer would spin rather than wait."""


def name_on_first_use(
    ask: Callable[[str], str], *, interactive: bool, home: Path | None = None
) -> None:
    """A person's first match on this machine: make their key, and let them
    choose the name opponents see (the suggestion, on Enter, is the login
    name with the start of the fingerprint: see :func:`identity.default_name`)."""
    if not interactive or identity.identity_exists(home):
        return
    me = identity.load_identity(home)
    print(
        f"lcnet: welcome! A key was made for you (fingerprint {me.fingerprint}); "
        "opponents see your name beside it, and lcnet remembers theirs.",
        flush=True,
    )
    while True:
        try:
            answer = ask(f"Your name, as opponents will see it (Enter: {me.name}): ").strip()
        except EOFError:
            answer = ""
        if not answer:
            return
        try:
            identity.set_name(answer, home)
        except UserError as exc:
            print(f"lcnet: {exc}", flush=True)
            continue
        print("lcnet: `lcnet id --name NAME` changes it later.", flush=True)
        return


def _count(text: str) -> int:
    """A whole number (its range is checked with the other options)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None


def check_bot(spec: str) -> None:
    """Make the bot ``spec`` names once, so that a bad name or option is a usage
    error (exit 2, naming ``--bot``) before any socket, file or announcement,
    not a failure after the match has opened."""
    from lcnet.bots import make_bot

    try:
        make_bot(spec)
    except UserError as exc:
        raise UsageError(f"--bot {shown(spec)}: {exc}") from None


def check_player_options(args: argparse.Namespace, *, plays: bool = True) -> None:
    """Every option of a player (:func:`add_player_arguments`), checked before
    any socket, file or announcement: a bad one is a usage error naming it
    (``plays``: a match is to be played, and saved in --replays; else the
    folder is only read)."""
    rematches = getattr(args, "rematch", 0)
    checks.whole("--rematch", rematches, 0, MAX_REMATCHES)
    if rematches and args.bot is None:
        raise UsageError("--rematch is for --bot: a person is asked at the end of each match")
    if args.bot is not None:
        check_bot(args.bot)
    for option in ("ping_interval", "peer_timeout", "connect_timeout", "opening_timeout"):
        value = getattr(args, option, None)
        if value is not None:
            checks.seconds("--" + option.replace("_", "-"), value, MIN_INTERVAL)
    if args.name is not None:
        checks.name(args.name)
    if args.accept_new_key is not None:
        try:
            identity.normalize_fingerprint(args.accept_new_key)
        except UserError as exc:
            raise UsageError(f"--accept-new-key: {exc}") from None
    checks.ready_fd(args.ready_fd)
    checks.replays(args.replays, writes=plays)


def player_from(args: argparse.Namespace) -> Player:
    check_player_options(args)
    rematches = getattr(args, "rematch", 0)
    default = Timing()
    timing = Timing(
        ping_interval=args.ping_interval,
        peer_timeout=args.peer_timeout,
        connect_timeout=getattr(args, "connect_timeout", default.connect_timeout),
        opening_timeout=getattr(args, "opening_timeout", default.opening_timeout),
    )
    accept = None
    if args.accept_new_key is not None:
        accept = identity.normalize_fingerprint(args.accept_new_key)
    if args.bot is None and args.name is None:
        name_on_first_use(input, interactive=sys.stdin.isatty() and sys.stdout.isatty())
    return Player(
        bot=args.bot,
        replays=args.replays,
        timing=timing,
        name=args.name,
        accept_new_key=accept,
        front_end=None if args.bot is not None else StandardStreams(),
        ready_fd=args.ready_fd,
        spectators=getattr(args, "spectators", DEFAULT_SPECTATORS),
        rematches=rematches,
        narrate=narrator if args.bot is not None else None,
    )


def narrator(client: MatchClient) -> Callable[[Update], list[str]]:
    """What a bot's side tells the person who runs it (:attr:`Player.narrate`):
    the line mode's sentences (who joined, with the fingerprints; each round's
    score; the opponent gone and back; refusals; the result and the file),
    without the moves."""
    from lcnet.ui.tracker import MatchTracker

    tracker = MatchTracker(client, moves=False)
    # Escaped at the edge: a line may quote a file name or a peer's words.
    return lambda update: [shown(line) for line in tracker.apply(update)]


def add_spectators_argument(parser: argparse.ArgumentParser) -> None:
    def count(text: str) -> int:
        value = int(text)
        if not 0 <= value <= MAX_SPECTATORS:
            raise argparse.ArgumentTypeError(f"0 to {MAX_SPECTATORS}, not {value}")
        return value

    parser.add_argument(
        "--spectators",
        type=count,
        default=DEFAULT_SPECTATORS,
        metavar="N",
        help=f"how many may watch the match with `lcnet watch` (default {DEFAULT_SPECTATORS}; "
        "0: nobody). A spectator checks every move itself and can change nothing",
    )


class StandardStreams:
    """The person at this program's standard streams (a :class:`~lcnet.run.netmatch.FrontEnd`):
    the full-screen game when both standard input and output are a terminal, the
    line mode otherwise (pipes, files, scripts). The user interface is imported
    only when the match starts."""

    @property
    def line_mode(self) -> bool:
        return not (sys.stdin.isatty() and sys.stdout.isatty())

    @property
    def says_where_saved(self) -> bool:
        return self.line_mode

    def refuse_to_start(self) -> None:
        if sys.stdin is None or sys.stdin.isatty():
            return
        from lcnet.ui.lines import input_is_empty

        if input_is_empty(sys.stdin):
            raise UsageError(
                "standard input is empty, so no match was started: give the moves one per "
                "line (e.g. printf 'board\\nresign\\n' | lcnet play), or run in a terminal"
            )

    async def run(self, client: MatchClient) -> int:
        if self.line_mode:
            from lcnet.ui.lines import run_lines

            return await run_lines(client, sys.stdin, sys.stdout)
        from lcnet.ui.game import run_tui

        return await run_tui(client)


def print_listening(
    who: str | None = None, *, resumed: bool = False
) -> Callable[[int, Sequence[str]], None]:
    """What a host prints once it listens: each address the opponent can use, then
    how to join (and ``who``, this player's name and fingerprint). Standard
    error, so that the line mode's standard output stays the game's.

    A ``resumed`` match is continued by the opponent with ``lcnet resume``
    (``lcnet join`` would start a new match), so that is what it says."""

    def listening(port: int, addresses: Sequence[str]) -> None:
        def say(text: str) -> None:
            print(f"lcnet: {text}", file=sys.stderr, flush=True)

        for address in addresses:
            say(f"listening on {address}")
        if addresses:
            others = f"  (or {', '.join(addresses[1:])})" if len(addresses) > 1 else ""
            if resumed:
                say(
                    "the opponent continues with: lcnet resume ITS-FILE (its replay file of "
                    f"this match; it connects here by itself, or with --connect {addresses[0]})"
                )
            else:
                say(f"the opponent joins with: lcnet join {addresses[0]}{others}")
        if all(a.startswith(("127.", "[::1]")) for a in addresses):
            say("(loopback: only a player on this machine can join there)")
        if who is not None:
            say(who)

    return listening
