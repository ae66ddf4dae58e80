"""``lcnet play``: play a built-in bot on this machine, through the real protocol."""

from __future__ import annotations

import argparse
import asyncio

from lcnet.cli import _checks as checks
from lcnet.cli._netargs import add_player_arguments, check_bot, player_from
from lcnet.protocol.events import MatchOptions
from lcnet.protocol.wire import MAX_ROUNDS
from lcnet.run.botpeer import play_against_bot

DEFAULT_BOT = "hard"

DESCRIPTION = """\
Play Lost Cities against a built-in bot on this machine. The bot runs as a
second peer in its own process and the two play over loopback TCP with the
full protocol: a masked deck neither side can see into, signed moves, and a
replay file for each player that `lcnet audit` can check. Without a terminal
(standard input from a pipe or a file), a plain line mode reads one move per
line, so games can be scripted.
"""

EPILOG = """\
examples:
  lcnet play                    against the hard level (the mcts search)
  lcnet play --bot easy         a beginner's opponent (or medium)
  lcnet play --suits 6 --rounds 1
  printf 'board\\nresign\\n' | lcnet play --bot medium
                                line mode: prints the table, then resigns
                                (`help` inside lists the commands)

In the game: arrows or 1-8 select a card, p plays it, d discards it, then
choose the draw: Enter for the deck or a suit letter for its discard pile.
You can also type moves: `+r7 deck`, `-b3 g`, `play r7, draw deck`.
When a match ends, a (line mode: `again`) asks for another one with the
seats swapped; the bot always agrees. q (`quit`) leaves.
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet play`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
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
    add_player_arguments(
        parser, bot_help=f"the bot to play against (default {DEFAULT_BOT})", rematch=False
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    checks.whole("--rounds", args.rounds, 1, MAX_ROUNDS)
    options = MatchOptions(suits=args.suits, rounds=args.rounds)
    spec = args.bot or DEFAULT_BOT
    args.bot = None  # the person plays this side; the bot plays the other
    # Made once here, so that a bad name or option fails now with its reason
    # (exit 2), not later in the bot's own process.
    check_bot(spec)
    player = player_from(args)
    return asyncio.run(play_against_bot(spec=spec, options=options, player=player))
