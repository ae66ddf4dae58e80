"""The ``lcnet`` command line: one module per command, each with ``register``.

Each command module defines ``register(subparsers) -> None``, which adds its
sub-parser and sets ``func`` (a callable taking the parsed arguments and
returning an exit code). Errors a user can act on are :class:`UserError`
(or another :class:`LcnetError`): they are printed as one line and the
command exits non-zero. Only unexpected errors print a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from lcnet import __version__
from lcnet.errors import LcnetError

COMMANDS = ("play", "host", "join", "games", "resume", "selfplay", "audit", "replay", "id")
"""Command modules under :mod:`lcnet.cli`, in the order ``--help`` lists them."""

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lcnet",
        description=(
            "Lost Cities for two, peer to peer: no server, no trusted dealer, "
            "every match signed and auditable."
        ),
    )
    parser.add_argument("--version", action="version", version=f"lcnet {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"lcnet.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the flush at exit too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except LcnetError as exc:
        if not getattr(exc, "shown", False):
            print(f"lcnet {args.command}: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 1)
    return code
