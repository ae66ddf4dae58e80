"""``lcnet id``: show or name this user's identity, and manage known peers.

The identity (an Ed25519 key pair and a display name) is created on first
use under ``$LCNET_HOME`` (default ``~/.lcnet``). The fingerprint is what two
players read aloud to each other to be sure they are talking to the right
person.
"""

from __future__ import annotations

import argparse
import sys

from lcnet.cli import _checks as checks
from lcnet.deck import hashing
from lcnet.errors import UsageError
from lcnet.store import identity
from lcnet.textsafe import shown

DESCRIPTION = """\
Show your lcnet identity: display name, public key and fingerprint. The key
pair is created on first use under $LCNET_HOME (default ~/.lcnet); its secret
half never leaves that directory. Read your fingerprint to your opponent (and
theirs to you) to be sure nobody sits in between.
"""

EPILOG = """\
examples:
  lcnet id                   show (and on first use create) your identity
  lcnet id --name Ada        set your display name
  lcnet id --peers           list the peers you have met, with fingerprints
  lcnet id --forget Bob      forget Bob's key, e.g. after Bob got a new one
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet id`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--name",
        metavar="NAME",
        help=f"set your display name (1 to {identity.MAX_NAME_LENGTH} printable characters)",
    )
    parser.add_argument(
        "--peers", action="store_true", help="list known peers and their fingerprints"
    )
    parser.add_argument(
        "--forget",
        metavar="NAME",
        help="forget a known peer's key, so that its next key is trusted on first use",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.name is not None:
        checks.name(args.name)
    if args.forget is not None:
        # Looked up before the change (which makes the folder): an unknown name is a typo.
        if args.forget not in identity.known_peers() or not identity.forget_peer(args.forget):
            raise UsageError(
                f"--forget: no known peer is called '{shown(args.forget)}' (see `lcnet id --peers`)"
            )
        print(f"forgot the key of {args.forget!r}")
        return 0
    if args.peers:
        _print_peers()
        return 0
    created = not identity.identity_exists()
    me = identity.set_name(args.name) if args.name is not None else identity.load_identity()
    if created:
        print(f"created a new identity in {identity.home_dir()}", file=sys.stderr)
    print(f"name:        {me.name}")
    print(f"public key:  {me.public_key.hex()}")
    print(f"fingerprint: {me.fingerprint}")
    return 0


def _print_peers() -> None:
    peers = identity.known_peers()
    if not peers:
        print("no known peers yet")
        return
    width = max(len(name) for name in peers)
    for name, key in sorted(peers.items()):
        print(f"{name:<{width}}  {hashing.fingerprint(key)}")
