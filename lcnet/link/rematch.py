"""Another match on the same connection, with the seats swapped (docs/PROTOCOL.md §6.7).

When a match is over (sealed or resigned, not stopped by a dispute), each
player says with a signed ``rematch`` control frame whether it wants another
one. When both have said yes, the player who was the joiner hosts the next
match and the one who was the host joins it: a new match with a new game id,
new commitments and its own replay file, the same options, the same two
keys, on the connection already open. Sans-IO: :class:`~lcnet.protocol.events.Offer`
is what each side said; :func:`next_session` the next match's session; :func:`check_opening`
what the next match's first frames must keep.
"""

from __future__ import annotations

from typing import Final

import nacl.signing

from lcnet.game.seat import Seat
from lcnet.protocol import wire
from lcnet.protocol.session import Session

MAX_REMATCHES: Final = 100
"""More matches a bot plays on one connection (``--rematch N``, and ``lcnet
play``'s bot): an evening's worth many times over (a match of 3 rounds takes
minutes); a larger number is a typo, and it bounds how long one opponent keeps
a bot playing without its owner."""


def possible(session: Session) -> bool:
    """Whether ``session``'s match ended so that another may follow: it is over
    and no dispute stopped it (a match that proved a fault is not played again)."""
    return session.is_over and session.dispute is None and session.game_id is not None


def next_session(
    finished: Session, signing_key: nacl.signing.SigningKey, master_secret: bytes
) -> Session:
    """This player's session of the match after ``finished``: the other seat,
    the same options, a new master secret (so new commitments and coin)."""
    name, bot = finished.names.get(finished.seat, ""), finished.seat in finished.bots
    if finished.seat is Seat.HOST:
        return Session.joiner(signing_key, master_secret, name=name, bot=bot)
    return Session.host(signing_key, master_secret, name=name, options=finished.options, bot=bot)


def check_opening(finished: Session, frame: wire.Frame) -> str | None:
    """Why ``frame``, a first frame of the next match, is not the rematch both
    agreed to (``None`` if it is): the ``hello`` or ``welcome`` must carry the
    opponent's key of ``finished``, and a ``welcome`` its options."""
    message = frame.message
    if not isinstance(message, wire.Hello | wire.Welcome):
        return None
    if message.key != finished.keys.get(finished.seat.other):
        return "the next match's opening is signed by another key than the opponent's"
    options = finished.options
    if (
        isinstance(message, wire.Welcome)
        and options is not None
        and (message.suits, message.rounds) != (options.suits, options.rounds)
    ):
        return (
            f"the next match's host set {message.suits} suits and {message.rounds} "
            f"rounds instead of the same options ({options.suits} and {options.rounds})"
        )
    return None
