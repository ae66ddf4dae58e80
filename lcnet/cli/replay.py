"""``lcnet replay``: step through a saved match, full screen or as text."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Final

from lcnet.errors import UsageError, UserError
from lcnet.game.seat import Seat
from lcnet.invocation import command
from lcnet.review import positions
from lcnet.store.replayfile import ReplayContents, read_replay
from lcnet.textsafe import shown

if TYPE_CHECKING:
    from lcnet.ui.replay_view import Perspective

DESCRIPTION = """\
Step through a saved match: the table after every turn, the move that led
there, the round and the scores. The file is checked on the way exactly as
'lcnet audit' checks it, and the verdict is shown too.

Full screen (the default on a terminal):
  Right, Space, n   next turn           Left, b      previous turn
  Home, g           first               End, G       last
  PageDown, ]       next round          PageUp, [    previous round
  v                 switch the view: the host's hand, the joiner's hand,
                    or both hands open
  a                 analyze: the bot's verdict on each turn of the file's
                    owner (computed in the background), shown under the
                    board at that turn;  w  the next of the worst turns
  ?                 help                q, Esc       quit

Hands are only shown for rounds whose seeds were revealed (every finished
round); an unfinished round stays hidden, as it was at the table.

With --text, or when the output is not a terminal, the same steps are
printed as plain text, one block per turn, for pipes and scripts.

With --analyze, each turn of the file's owner (or of --seat) is valued
from what that player knew at the time (its hand and the table, never the
opponent's hidden cards, even where the file reveals them at the round's
end) and set against the bot's choice in the same position: both turns are
played out in the same sampled deals, and the bot estimates the round's
final margin after each. The table lists every turn with the bot's choice
and the points it is expected to lose, marks the costliest, and sums up.
The numbers are estimates (more --deals, less noise); a loss under half a
point counts as agreement. --json prints the same as a JSON document. A
progress bar runs on stderr when it is a terminal. Only rounds whose seeds
were revealed can be analysed (a finished round).

A damaged file (bad bytes in its middle, with intact records after them) is
said to be so, with where the damage is; the steps before the damage are
shown. 'lcnet audit FILE OTHER-FILE' repairs it from the other player's file.
"""

EPILOG = """\
exit status: 0 shown, 1 nothing to analyze, 2 missing or unreadable file (also a
directory, FIFO, device or a file too large to be a replay: only a regular
file is read)

examples:
  lcnet replay replays/3f2a9c1b-host.lcnet
  lcnet replay match.lcnet --seat both        start with both hands open
  lcnet replay match.lcnet --text | less      the whole match as text
  lcnet replay match.lcnet --text --seat joiner > joiner-view.txt
  lcnet replay replays/3f2a9c1b-host.lcnet --analyze
  lcnet replay match.lcnet --analyze --json --deals 400 --seed 7 > analysis.json
"""

SEAT_CHOICES: Final = ("host", "joiner", "both")
"""The values of :class:`~lcnet.ui.replay_view.Perspective` (written out, so that
``--analyze`` and ``--help`` need not load the terminal interface)."""
DEFAULT_DEALS: Final = 100
"""Deals per turn of an analysis (lcnet.bots.advice.ANALYSIS_DEALS, without loading the bots)."""
MAX_DEALS: Final = 100_000
BAR_WIDTH: Final = 30


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet replay`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("file", help="a replay file (from replays/, or the other player's)")
    parser.add_argument(
        "--text", action="store_true", help="print every step as plain text instead"
    )
    parser.add_argument(
        "--seat",
        choices=SEAT_CHOICES,
        help="whose hand to show: host, joiner, or both (default: the file owner's seat; "
        "both for an observer's file); with --analyze, whose turns",
    )
    parser.add_argument(
        "--analyze",
        action="store_true",
        help="set each turn of the file's owner against the bot's choice, from what the "
        "player knew then, and mark the turns that lost the most expected points",
    )
    parser.add_argument(
        "--json", action="store_true", help="with --analyze: print the analysis as JSON"
    )
    parser.add_argument(
        "--deals",
        type=int,
        default=DEFAULT_DEALS,
        metavar="N",
        help=f"with --analyze: sampled deals per turn (default {DEFAULT_DEALS}; more is "
        "slower and steadier)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="with --analyze: the random seed of the deals (default 0; the same seed and "
        "deals give the same analysis)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if (args.json or args.deals != DEFAULT_DEALS or args.seed) and not args.analyze:
        raise UsageError("--json, --deals and --seed go with --analyze")
    if not 1 <= args.deals <= MAX_DEALS:
        raise UsageError(f"--deals must be between 1 and {MAX_DEALS}")
    contents = read_replay(args.file)
    record = positions.load_contents(contents)
    if contents.damage:
        name = shown(args.file)
        print(
            f"lcnet replay: {name} is {contents.describe_damage()}. Only the intact "
            f"part before the damage is shown ({len(contents.frames)} frames). The other "
            f"player's file can repair it: {command()} audit {name} OTHER-FILE",
            file=sys.stderr,
        )
    if args.analyze:
        return analyze(args, contents, record)
    from lcnet.ui.replay_view import Perspective, view_replay

    perspective = Perspective(args.seat) if args.seat else default_perspective(contents)
    if args.text or not (sys.stdout.isatty() and sys.stdin.isatty()):
        return print_text(record, perspective)
    return view_replay(record, perspective=perspective, owner=_owner(contents))


def analyze(
    args: argparse.Namespace, contents: ReplayContents, record: positions.MatchRecord
) -> int:
    """``--analyze``: the analysis of one player's turns, as text or JSON."""
    from lcnet.review import analysis

    seat = _analyzed_seat(args.seat, contents)
    progress = _ProgressBar() if sys.stderr.isatty() else None
    try:
        result = analysis.analyze_record(
            record,
            seat,
            seed=args.seed,
            deals=args.deals,
            on_progress=progress.update if progress else None,
        )
    finally:
        if progress is not None:
            progress.clear()
    if args.json:
        document = {"file": args.file, **analysis.to_json(result)}
        document["audit"] = record.verdict.summary
        print(json.dumps(document, indent=2))
    else:
        for line in analysis.text_lines(result):
            print(shown(line))  # it quotes the players' names
    return 0


def _owner(contents: ReplayContents) -> Seat | None:
    """The seat of the player who wrote the file, if it is a player's."""
    try:
        return Seat[contents.header.seat.upper()]
    except KeyError:
        return None


def _analyzed_seat(choice: str | None, contents: ReplayContents) -> Seat:
    if choice == "both":
        raise UsageError("--analyze looks at one player's turns: --seat host or --seat joiner")
    if choice is not None:
        return Seat[choice.upper()]
    owner = _owner(contents)
    if owner is None:
        raise UserError(
            "the file does not say whose it is: choose whose turns with --seat host or "
            "--seat joiner"
        )
    return owner


class _ProgressBar:
    """``analyzing [#####.....] 12/82`` on one line of stderr, redrawn in place."""

    def update(self, done: int, total: int) -> None:
        filled = BAR_WIDTH * done // max(total, 1)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        sys.stderr.write(f"\ranalyzing [{bar}] {done}/{total} turns")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def print_text(record: positions.MatchRecord, perspective: Perspective) -> int:
    from lcnet.ui.replay_view import text_lines

    try:
        for line in text_lines(record, perspective):
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (``| head``): not an error. Point stdout at
        # nothing so that the interpreter's last flush does not complain.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def default_perspective(contents: ReplayContents) -> Perspective:
    """The view of the player who wrote the file (both hands for anyone else's file)."""
    from lcnet.ui.replay_view import Perspective

    try:
        return Perspective.of(Seat[contents.header.seat.upper()])
    except KeyError:
        return Perspective.BOTH
