"""Choosing one of the games found on the LAN, and holding its host to its announcement.

:func:`lcnet.net.discovery.look` finds the games; here they are weighed
(:func:`assess`: a known player under a new key, a look-alike of a known
name, a forged announcement), one is picked as the player typed it
(:func:`pick`: its number, its player's name or its whole fingerprint; a
flagged or ambiguous choice is refused with what matched), and the host
picked must then sign with the key it announced (:func:`announced_key_check`).
No sockets here: what was found comes in as :class:`~lcnet.net.discovery.Game`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from lcnet.deck import hashing
from lcnet.errors import UserError
from lcnet.game.seat import Seat
from lcnet.net.discovery import AnnouncedKeyMismatch, Game
from lcnet.net.peer import PeerCheck
from lcnet.store import names


def assess(games: Sequence[Game], known: Mapping[str, bytes]) -> list[Game]:
    """``games`` marked against what this player knows (``known``: name → key) and
    against each other: a game whose key is the one known for its name is
    ``known``; warnings say when its name is known with another key, looks
    like a known name or like another game's name, or mixes scripts."""
    known_names = list(known)
    marked = []
    for game in games:
        warnings = [] if game.forged is None else [names.forged_warning(game.forged)]
        key = known.get(game.name)
        is_known = key is not None and hashing.fingerprint(key) == game.fingerprint
        if key is not None and not is_known:
            warnings.append(f"not the key known for {game.name}")
        alike = names.lookalikes(game.name, known_names)
        if alike:
            warnings.append(f"looks like {' / '.join(alike)}, known here")
        if names.mixes_scripts(game.name):
            warnings.append(f"mixes scripts ({', '.join(sorted(names.scripts(game.name)))})")
        others = [
            g
            for g in games
            if g.fingerprint != game.fingerprint and names.look_alike(g.name, game.name)
        ]
        if others:
            keys = len({g.fingerprint for g in others}) + 1
            warnings.append(f"{keys} keys answer as {game.name!r} or a look-alike")
        marked.append(dataclasses.replace(game, known=is_known, warnings=tuple(warnings)))
    return marked


class NeedsConfirmation(UserError):
    """A game was picked by a name that may not be who it says: ask the player first."""

    def __init__(self, game: Game, reason: str) -> None:
        super().__init__(
            f"{reason}. Pick it by its number or whole fingerprint if you are sure, after "
            "checking the fingerprint with the player you mean (`lcnet id` shows it)"
        )
        self.game = game
        self.reason = reason


class AmbiguousPick(UserError):
    """Several games answer to the choice: the message lists them by their numbers."""

    def __init__(self, why: str, games: Sequence[Game], matched: Sequence[Game], how: str) -> None:
        number = {id(game): n for n, game in enumerate(games, 1)}
        listed = "; ".join(f"{number[id(g)]}. {_seen(g)}" for g in matched)
        super().__init__(f"{why}: {listed}. Pick one exactly by {how}")


def pick(games: Sequence[Game], choice: str) -> Game:
    """The game ``choice`` names: its number in the list, its player's name, or
    its whole fingerprint.

    A name picks only a game that is alone in answering to it or to a name
    that looks like it (else :class:`AmbiguousPick`); a flagged game
    (:attr:`Game.warnings`) picked by name raises :class:`NeedsConfirmation`.
    """
    choice = choice.strip()
    if choice.isdigit():
        index = int(choice)
        if 1 <= index <= len(games):
            return games[index - 1]
        raise UserError(f"there is no game {index}: pick a number from 1 to {len(games)}")
    wanted = choice.replace("-", "").replace(" ", "").upper()
    whole = len(wanted) == len(hashing.fingerprint_digest(b"").hex())
    if whole:
        by_key = [g for g in games if g.fingerprint.replace("-", "") == wanted]
        if len(by_key) == 1:
            return by_key[0]
        if by_key:  # one key at several addresses
            why = f"{len(by_key)} games have the key {by_key[0].fingerprint}"
            raise AmbiguousPick(why, games, by_key, "its number")
    by_name = [g for g in games if names.look_alike(g.name, choice)]
    if len(by_name) == 1 and by_name[0].forged is not None:
        raise UserError(
            f"{_seen(by_name[0])} is a forged announcement ({by_name[0].forged}), so it is "
            "not picked by name. Pick it by its number or whole fingerprint only after "
            "checking the fingerprint with the player you mean (`lcnet id` shows it)"
        )
    if len(by_name) == 1:
        game = by_name[0]
        if game.name.casefold() != choice.casefold():
            raise NeedsConfirmation(
                game,
                f"no game is named {choice!r}, but {_seen(game)} has a name that looks "
                "like it: it may be someone else",
            )
        if game.warnings:
            raise NeedsConfirmation(
                game,
                f"{_seen(game)} is flagged ({'; '.join(game.warnings)}): it may not be who "
                "the name says",
            )
        return game
    if len(by_name) > 1:
        why = (
            f"{len(by_name)} games answer to {choice!r} or a name that looks like it, so "
            "someone may be posing as another (check the fingerprint with the player you "
            "mean: `lcnet id` shows it)"
        )
        raise AmbiguousPick(
            why, games, by_name, "its number or its whole fingerprint (16 hex digits)"
        )
    if not whole and wanted and all(c in "0123456789ABCDEF" for c in wanted):
        # A few hex digits: anyone on the network can make a key whose
        # fingerprint starts with them in seconds, so a prefix picks nothing.
        prefixed = [g for g in games if g.fingerprint.replace("-", "").startswith(wanted)]
        if prefixed:
            seen = ", ".join(_seen(g) for g in prefixed)
            raise UserError(
                f"{choice!r} is only the start of a fingerprint ({seen}): a key with a "
                "fingerprint starting so is made in seconds, so pick a game by "
                "its whole fingerprint (16 hex digits, as `lcnet games` shows) or by its number"
            )
    raise UserError(f"no game found matches {choice!r} (a number, a name or a whole fingerprint)")


def _seen(game: Game) -> str:
    """A game as a list shows it: its player, address and fingerprint."""
    return f"{game.name} at {game.where}, key {game.fingerprint}"


def announced_key_check(game: Game, then: PeerCheck | None = None) -> PeerCheck:
    """A peer check for joining ``game``: the host must sign with the announced key.

    The announcement is unauthenticated, and anyone can answer at an address;
    so the welcome's key is compared with the fingerprint the player picked.
    A mismatch refuses the host before anything is played (or remembered);
    otherwise ``then`` (trust on first use) checks the name and key as usual.
    """

    def check(seat: Seat, name: str, key: bytes) -> str | None:
        presented = hashing.fingerprint(key)
        if seat is Seat.HOST and presented != game.fingerprint:
            raise AnnouncedKeyMismatch(
                f"IMPOSTOR? the game found on the network as {game.name!r} at {game.where} "
                f"announced the key {game.fingerprint}, but the host there signs as "
                f"{name!r} with the key {presented}. Someone else answered at that "
                "address, or the announcement was forged; nothing was played. Ask the "
                "player you meant to join for their fingerprint (`lcnet id`)."
            )
        return None if then is None else then(seat, name, key)

    return check
