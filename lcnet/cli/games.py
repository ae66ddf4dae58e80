"""``lcnet games``: list the games announced on the local network.

Also the no-address path of ``lcnet join``: look, list, let the player pick.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable

from lcnet.errors import ExitCode, UsageError, UserError
from lcnet.net import choosing, discovery
from lcnet.net.discovery import DEFAULT_LOOK_SECONDS, Game, NoGamesFound
from lcnet.textsafe import shown

DESCRIPTION = """\
Look for games that `lcnet host` announces on the local network (DNS-SD over
multicast DNS, service type _lcnet._tcp) and list them: the host's name and
key fingerprint, the address to join, the options, and whether it is waiting
for an opponent or busy. `lcnet join` with no address does the same and lets
you pick one.
"""

EPILOG = f"""\
examples:
  lcnet games                    listen {DEFAULT_LOOK_SECONDS:g} s, then list what answered
  lcnet games --json             the same as JSON, for scripts
  lcnet games --timeout 5        listen longer (a busy or slow network)

exit status: 0 if at least one game was found, {ExitCode.NO_GAMES} if none was
(with --json, `[]` is printed then), 2 for a wrong command line.
The search uses this machine's network interfaces other than loopback; a
firewall must let multicast DNS through (UDP port 5353).
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` the parser of ``lcnet games`` (its --help line: lcnet.cli.COMMANDS)."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--json", action="store_true", help="print the games as JSON")
    add_timeout_argument(parser)
    parser.set_defaults(func=run)


def add_timeout_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_LOOK_SECONDS,
        metavar="S",
        help=f"seconds to listen for answers (default {DEFAULT_LOOK_SECONDS:g})",
    )


def _look(seconds: float) -> list[Game]:
    """The games found, marked against the known peers (:func:`choosing.assess`)."""
    from lcnet.store import identity

    if not 0 < seconds <= 600:
        raise UsageError(f"--timeout must be more than 0 and at most 600 seconds, not {seconds:g}")
    games = asyncio.run(discovery.find_games(seconds))
    return discovery.sort_games(choosing.assess(games, identity.known_peers()))


def _none_found(seconds: float) -> NoGamesFound:
    return NoGamesFound(
        f"no lcnet game found on the local network in {seconds:g} s. Is `lcnet host` "
        "running (without --no-announce) on a machine of this network? A firewall may "
        "also block multicast DNS (UDP port 5353); then ask the host for its address "
        "and run `lcnet join ADDRESS`"
    )


def listing(games: list[Game]) -> str:
    """The numbered list, one game a line (every text from the network escaped)."""
    rows = [
        tuple(
            shown(cell)
            for cell in (f"{i}.", g.name, g.fingerprint, g.where, g.options(), g.status, g.note())
        )
        for i, g in enumerate(games, 1)
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    return "\n".join(
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


FLAGGED = (
    "! marks a game that may not be who its name says: anyone on the network can "
    "announce any name. Check the fingerprint with the player you mean (`lcnet id` shows it)."
)

FORGED = (
    "FORGED marks an announcement made under a service name that is not its own (the "
    "name carries another key's fingerprint than its record): someone answers as another "
    "game. It is never picked by name; join it only after checking its fingerprint."
)


def explain(games: list[Game]) -> str | None:
    """What the marks in the listing of ``games`` mean, if any is marked."""
    lines = [FORGED] if any(g.forged for g in games) else []
    if any(g.warnings for g in games):
        lines.append(FLAGGED)
    return "\n".join(lines) or None


def run(args: argparse.Namespace) -> int:
    try:
        games = _look(args.timeout)
    except NoGamesFound:
        if args.json:
            print("[]", flush=True)
        raise
    if args.json:
        print(json.dumps([g.to_json() for g in games], indent=2), flush=True)
    elif games:
        print(f"{len(games)} game(s) on the local network:")
        print(listing(games))
        marks = explain(games)
        if marks is not None:
            print(marks)
        for hint in what_to_do(games):
            print(hint, flush=True)
    if not games:
        raise _none_found(args.timeout)
    return 0


def what_to_do(games: list[Game]) -> list[str]:
    """The commands for the games listed: join one that waits, watch one being
    played (joining a game being played would only be turned away)."""
    hints = []
    if any(g.joinable for g in games):
        hints.append(
            "join one that waits with: lcnet join (and pick it), or lcnet join ADDRESS:PORT"
        )
    if any(g.watchable for g in games):
        hints.append(
            "watch one being played with: lcnet watch (and pick it), or lcnet watch ADDRESS:PORT"
        )
    return hints


def nothing_to_watch(games: list[Game], seconds: float) -> str:
    """Why ``lcnet watch`` found nothing to watch: no game at all, or only games
    that wait for their opponent (not being played yet)."""
    waiting = [g for g in games if g.joinable]
    if waiting:
        names = ", ".join(f"{shown(g.name)} at {g.where}" for g in waiting[:4])
        more = f" and {len(waiting) - 4} more" if len(waiting) > 4 else ""
        return (
            f"no lcnet match is being played yet on the local network (looked {seconds:g} s): "
            f"{len(waiting)} game(s) wait for an opponent ({names}{more}); watch one once it "
            "starts, with `lcnet watch ADDRESS`"
        )
    return (
        f"no lcnet match is being played on the local network (looked {seconds:g} s). "
        "A host announces its match while it plays unless started with --no-announce; "
        "ask the host for its address and run `lcnet watch ADDRESS`"
    )


def _say(text: str) -> None:
    print(f"lcnet: {text}", file=sys.stderr, flush=True)


def join_found(args: argparse.Namespace) -> int:
    """``lcnet join`` with no address: look, list, pick, then join the picked game."""
    from lcnet.cli._netargs import player_from
    from lcnet.run.netmatch import join_match
    from lcnet.store import identity

    player = player_from(args)
    me = identity.load_identity()
    seconds = DEFAULT_LOOK_SECONDS
    _say(f"looking for games on the local network ({seconds:g} s)...")
    games = _look(seconds)
    if not games:
        raise _none_found(seconds)
    _say(f"{len(games)} game(s) found:")
    print(listing(games), file=sys.stderr, flush=True)
    marks = explain(games)
    if marks is not None:
        print(marks, file=sys.stderr, flush=True)
    game = _choose(games, args.pick)
    if not game.joinable:
        raise UserError(
            f"the game of {shown(game.name)} at {game.where} cannot be joined: {shown(game.status)}"
            + (" (it is playing someone else)" if game.status == discovery.BUSY else "")
            + (f"; watch it with: lcnet watch {game.where}" if game.watchable else "")
        )
    _say(
        f"connecting to {shown(game.name)} at {game.where} (announced key {game.fingerprint}) "
        f"as {me.name}, key fingerprint {me.fingerprint}"
        + (" -- a FORGED announcement, as picked" if game.forged else "")
    )
    return asyncio.run(join_match(host=game.address, port=game.port, player=player, announced=game))


def _choose(games: list[Game], choice: str | None, verb: str = "join") -> Game:
    if choice is not None:
        try:
            game = choosing.pick(games, choice)
        except choosing.AmbiguousPick as exc:
            # The option itself names no one game: a wrong command line, not a failure.
            raise UsageError(f"--pick {shown(choice)}: {exc}") from None
        if game.warnings:
            _say(f"{verb}ing a flagged game, as picked: {shown('; '.join(game.warnings))}")
        return game
    if not sys.stdin.isatty():
        raise UsageError(
            f"standard input is not a terminal, so no game was picked: {verb} one with "
            f"`lcnet {verb} ADDRESS:PORT` (the address above), or `lcnet {verb} --pick N` "
            "(its number, its player's name or fingerprint)"
        )
    default = " (Enter: 1)" if len(games) == 1 else ""
    while True:
        try:
            answer = input(f"{verb} which game? 1-{len(games)}{default}, q to quit: ").strip()
        except EOFError:
            raise UserError("no game picked") from None
        if answer.lower() in ("q", "quit"):
            raise UserError("no game picked")
        if not answer and len(games) == 1:
            answer = "1"
        try:
            game = choosing.pick(games, answer)
        except choosing.NeedsConfirmation as exc:
            game, why = exc.game, exc.reason
        except UserError as exc:
            print(shown(str(exc)), file=sys.stderr, flush=True)
            continue
        else:
            if not game.warnings:
                return game
            why = f"{game.name} at {game.where} is flagged: {'; '.join(game.warnings)}"
        why = shown(why)
        if _confirmed(why, verb):
            return game


def _confirmed(why: str, verb: str) -> bool:
    """Whether the player, told ``why``, still wants the game (typing ``yes``)."""
    print(why, file=sys.stderr, flush=True)
    try:
        answer = input(f"{verb} it anyway? type yes to {verb}, anything else to pick again: ")
    except EOFError:
        raise UserError("no game picked") from None
    return answer.strip().lower() == "yes"


def watch_found(args: argparse.Namespace, watch: Callable[[str, int], int]) -> int:
    """``lcnet watch`` with no address: look, list the matches being played, pick
    one (the only one without asking), then ``watch(address, port)``."""
    seconds = args.look
    _say(f"looking for matches being played on the local network ({seconds:g} s)...")
    found = _look(seconds)
    # A game that waits for its opponent can be watched too: from its first frame.
    playing = [g for g in found if g.watchable]
    waiting = [g for g in found if g.joinable]
    games = playing + waiting
    if not games:
        raise NoGamesFound(nothing_to_watch(found, seconds))
    counts = [f"{len(playing)} being played"] if playing else []
    if waiting:
        counts.append(f"{len(waiting)} waiting for an opponent (watched from its start)")
    _say(f"{len(games)} match(es): {', '.join(counts)}:")
    print(listing(games), file=sys.stderr, flush=True)
    marks = explain(games)
    if marks is not None:
        print(marks, file=sys.stderr, flush=True)
    # The only one is watched without asking, unless it is flagged (a forgery, a
    # name that is not who it says): then it is picked as any game is.
    alone = len(games) == 1 and args.pick is None and not games[0].warnings
    game = games[0] if alone else _choose(games, args.pick, "watch")
    if game in waiting:
        _say(f"{shown(game.name)} waits for an opponent: the watch begins with its match")
    return watch(game.address, game.port)
