"""The random bot: uniform among the legal put-downs, then uniform among the legal draws."""

from __future__ import annotations

import random

from lcnet.game.engine import Turn, View


class RandomBot:
    """Plays uniformly at random: the baseline every other bot must beat.

    It is uniform as specified, draws from discard piles included; it can
    never stall a round, because with positive probability every one of its
    turns draws from the draw pile.
    """

    name = "random"
    quick = True

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose_turn(self, view: View) -> Turn:
        put_down = self._rng.choice(view.legal_put_downs())
        draw = self._rng.choice(view.legal_draws(put_down))
        return Turn(put_down, draw)
