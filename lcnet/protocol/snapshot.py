"""The snapshot a screen gets of a session: :func:`state_of`.

What implements :class:`~lcnet.protocol.client.MatchClient` (the network peer, the
tests' local client) attaches one to every update, so that a screen reads
frozen snapshots and never the live session.
"""

from __future__ import annotations

from types import MappingProxyType

from lcnet.deck import hashing
from lcnet.errors import LcnetError
from lcnet.protocol.client import MatchState
from lcnet.protocol.events import Offer
from lcnet.protocol.session import Session


def state_of(
    session: Session,
    *,
    failure: LcnetError | None = None,
    addresses: tuple[str, ...] = (),
    watchers: tuple[tuple[str, str], ...] = (),
    rematch: Offer | None = None,
    unlisted_watchers: int = 0,
) -> MatchState:
    """What a screen shows of ``session`` now."""
    track = session.round
    match = session.match
    return MatchState(
        seat=session.seat,
        view=session.view(),
        round_number=session.round_number,
        round_starter=track.starter if track is not None else None,
        round_turns=tuple(track.turns) if track is not None else (),
        names=MappingProxyType(dict(session.names)),
        bots=frozenset(session.bots),
        fingerprints=MappingProxyType(
            {seat: hashing.fingerprint(key) for seat, key in session.keys.items()}
        ),
        options=session.options,
        round_scores=tuple(match.round_scores) if match is not None else (),
        dispute=session.dispute,
        is_over=session.is_over,
        awaiting_decision=session.awaiting_decision,
        frames=len(session.chain),
        failure=failure,
        addresses=addresses,
        watchers=watchers,
        rematch=rematch,
        unlisted_watchers=unlisted_watchers,
    )
