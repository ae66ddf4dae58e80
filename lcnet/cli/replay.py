"""``lcnet replay``: step through a saved match, full screen or as text."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Final

from lcnet import replay
from lcnet.replaylog import ReplayContents, read_replay
from lcnet.seat import Seat
from lcnet.ui.replay_view import Perspective, text_lines, view_replay

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
  ?                 help                q, Esc       quit

Hands are only shown for rounds whose seeds were revealed (every finished
round); an unfinished round stays hidden, as it was at the table.

With --text, or when the output is not a terminal, the same steps are
printed as plain text, one block per turn, for pipes and scripts.

A damaged file (bad bytes in its middle, with intact records after them) is
said to be so, with where the damage is; the steps before the damage are
shown. 'lcnet audit FILE OTHER-FILE' repairs it from the other player's file.
"""

EPILOG = """\
exit status: 0 shown, 2 missing or unreadable file

examples:
  lcnet replay replays/3f2a9c1b-host.lcnet
  lcnet replay match.lcnet --seat both        start with both hands open
  lcnet replay match.lcnet --text | less      the whole match as text
  lcnet replay match.lcnet --text --seat joiner > joiner-view.txt
"""

SEAT_CHOICES: Final = tuple(p.value for p in Perspective)


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
        "both for an observer's file)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    contents = read_replay(args.file)
    record = replay.load_contents(contents)
    if contents.damage:
        print(
            f"lcnet replay: {args.file} is {contents.describe_damage()}. Only the intact "
            f"part before the damage is shown ({len(contents.frames)} frames). The other "
            f"player's file can repair it: lcnet audit {args.file} OTHER-FILE",
            file=sys.stderr,
        )
    perspective = Perspective(args.seat) if args.seat else default_perspective(contents)
    if args.text or not (sys.stdout.isatty() and sys.stdin.isatty()):
        return print_text(record, perspective)
    return view_replay(record, perspective=perspective)


def print_text(record: replay.MatchRecord, perspective: Perspective) -> int:
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
    try:
        return Perspective.of(Seat[contents.header.seat.upper()])
    except KeyError:
        return Perspective.BOTH
