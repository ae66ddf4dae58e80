"""What the user is told of the connection and the match: :class:`Status`.

A leaf module: the link (:mod:`lcnet.link.liveness`) decides the status without the
session, and the front ends show it.
"""

from __future__ import annotations

import enum


class Status(enum.Enum):
    """The state of the connection and the match, as the user should see it."""

    CONNECTING = "connecting"
    WAITING_FOR_PEER = "waiting for the opponent to connect"
    PLAYING = "playing"
    DISCONNECTED = "the opponent is disconnected"
    DISPUTE = "dispute"
    OVER = "the match is over"
