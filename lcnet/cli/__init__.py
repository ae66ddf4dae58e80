"""The ``lcnet`` command line: one module per command, imported only when it runs.

:data:`COMMANDS` names each command and says in one line what it does: that
is all ``lcnet --help`` and ``lcnet --version`` need, so they import no
command module (and none of zmq, prompt_toolkit, nacl or zeroconf). The
module ``lcnet.cli.NAME`` of the command that runs, or whose ``--help`` is
asked for, is imported then: its ``configure(parser)`` adds the command's
description and arguments and sets ``func`` (a callable taking the parsed
arguments and returning an exit code). Each module imports what its command
needs, and the heavy parts only inside the function that uses them.

Errors a user can act on are :class:`UserError` (or another
:class:`LcnetError`): they are printed as one line and the command exits
non-zero. Only unexpected errors print a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final

from lcnet import __version__
from lcnet.errors import ExitCode, LcnetError
from lcnet.textsafe import shown

COMMANDS: Final[Mapping[str, str]] = {
    "play": "play a built-in bot on this machine (the full protocol, over loopback)",
    "host": "wait for an opponent to join, then play a new match",
    "join": "connect to a host and play",
    "games": "list the games announced on the local network",
    "watch": "watch a match on the LAN, checking every move yourself",
    "resume": "continue an unfinished match (without FILE: list them)",
    "selfplay": "let two built-in bots play each other and print the tally",
    "audit": "verify a saved match and say whether it is valid",
    "replay": "step through a saved match, full screen or as text",
    "history": "list your finished matches and your record against each opponent",
    "id": "show or set your name, key and fingerprint",
}
"""Each command (its module is ``lcnet.cli.NAME``) and its line in ``--help``, in that order."""

LISTINGS: Final = frozenset({"games", "resume", "selfplay", "history", "id"})
"""Commands that only list: one whose reader stops reading (``| head``) exits 0.
(``audit`` and ``replay`` handle it themselves: the verdict stands.)"""


class CommandParser(argparse.ArgumentParser):
    """A command's parser, filled in by its module the first time it is used.

    Parsing the command's arguments, or printing its usage or help, imports
    ``lcnet.cli.NAME`` and lets its ``configure`` add the rest.
    """

    module: str | None = None
    """The module still to configure this parser, or ``None`` once it has."""

    def configure(self) -> None:
        if self.module is not None:
            name, self.module = self.module, None
            importlib.import_module(name).configure(self)

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self.configure()
        return super().parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        self.configure()
        return super().format_usage()

    def format_help(self) -> str:
        self.configure()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lcnet",
        description=(
            "Lost Cities for two, peer to peer: no server, no trusted dealer, "
            "every match signed and auditable."
        ),
    )
    parser.add_argument("--version", action="version", version=f"lcnet {__version__}")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=CommandParser
    )
    for name, help_line in COMMANDS.items():
        subparsers.add_parser(name, help=help_line).module = f"lcnet.cli.{name}"
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return ExitCode.USAGE
    from lcnet.run import threads

    threads.install()  # the deck's batches spread over this machine's CPUs
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the flush at exit too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        # A listing whose reader has read enough is done (`| head -1` exits 0
        # whether or not the pipe filled first); a command whose status says
        # more (a match, a watch) did not end as it should.
        return ExitCode.OK if args.command in LISTINGS else ExitCode.FAILED
    except LcnetError as exc:
        if not getattr(exc, "shown", False):
            # The message may quote a file name or a peer's words: escaped line by line.
            text = "\n".join(shown(line) for line in str(exc).split("\n"))
            print(f"lcnet {args.command}: {text}", file=sys.stderr)
        return exc.exit_code
    return code
