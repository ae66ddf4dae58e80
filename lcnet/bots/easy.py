"""The easy bot: the greedy heuristic with a beginner's blind spots.

It is meant to be beaten by a beginner, so its mistakes are the ones people
make, not random ones. It plays the heuristic of :mod:`lcnet.bots.policy`
with other numbers (:data:`BEGINNER_WEIGHTS`):

* it is **optimistic**: it expects most unseen cards of a suit to reach it
  in time, so it opens expeditions too eagerly and puts wagers down on thin
  hands (a wager multiplies that hoped-for sum);
* it **forgets what the opponent collects**: it discards whatever it does
  not need, even a card the opponent is waiting for, and never takes a pile
  card just to keep it from the opponent;
* it **never plans the endgame**: it does not count the turns left against
  the cards it still means to play, nor who gets the last turn.

It keeps the commitment rule (:mod:`lcnet.bots.commitment`) like every
built-in bot, so rounds against it end.
"""

from __future__ import annotations

import random
from typing import Final

from lcnet.bots.greedy import GreedyBot
from lcnet.bots.policy import Weights
from lcnet.errors import UserError

BEGINNER_WEIGHTS: Final = Weights(
    arrival_share=1.0,
    overflow=0.0,
    feed=0.0,
    feed_unstarted=0.0,
    feed_wager=0.0,
    cover=0.0,
    deny=0.0,
    opponent_turn=0.0,
)
"""The heuristic's numbers for a beginner (see the module docstring)."""


class EasyBot(GreedyBot):
    """Greedy with :data:`BEGINNER_WEIGHTS`. Deterministic."""

    name = "easy"

    def __init__(self, rng: random.Random, /, **options: str) -> None:
        if options:
            raise UserError(f"the easy bot takes no options (got {', '.join(options)})")
        super().__init__(rng, BEGINNER_WEIGHTS)
