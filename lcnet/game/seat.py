"""The two seats at an lcnet table: the host (who listens) and the joiner.

The seat is what the protocol and the masked deck name a player by; it is
fixed for a whole match. The host is also side *A* of the masked deck (passes
1 and 3) and the joiner side *B* (passes 2 and 4). A seat prints as its
lower-case name, which is also how errors name the author of a fault.
"""

from __future__ import annotations

import enum


class Seat(enum.IntEnum):
    """Host (0) or joiner (1); the integer is what hashes and messages carry."""

    HOST = 0
    JOINER = 1

    @property
    def other(self) -> Seat:
        """The opponent's seat."""
        return Seat.JOINER if self is Seat.HOST else Seat.HOST

    def __str__(self) -> str:
        return self.name.lower()
