"""The greedy bot: the best turn by a hand-written heuristic, one turn deep.

The heuristic (:func:`lcnet.bots.policy.rank_turns`) estimates what the
bot's expeditions will be worth at the end of the round after each turn:
the cards on the table, the playable cards in hand, the unseen cards that
may still arrive, the wager multipliers and the 8-card bonus, all against
the number of turns left (:func:`~lcnet.bots.policy.suit_value`). It
subtracts what a discard would hand the opponent, weighs a pile draw
against a random card from the deck and against the extra turn it gives one
side. The same heuristic plays both sides of the ``mcts`` bot's simulations.

The bot reads only its view (the heuristic sees the opponent's hidden cards
and the draw pile only as counts), and keeps the commitment rule of
:mod:`lcnet.bots.commitment`, so matches between built-in bots end.
"""

from __future__ import annotations

import random

from lcnet.bots.commitment import committed_turns
from lcnet.bots.policy import DEFAULT_WEIGHTS, Weights, policy_turn
from lcnet.bots.sim import Determinizer, to_turn
from lcnet.errors import UserError
from lcnet.game.engine import Turn, View


class GreedyBot:
    """Plays the heuristic's best turn. Deterministic: it needs no randomness.

    ``weights`` (positional, for experiments) changes the heuristic's numbers.
    """

    name = "greedy"
    quick = True  # one heuristic pass: about 0.3 ms a turn (bench/README.md)

    def __init__(
        self, rng: random.Random, weights: Weights = DEFAULT_WEIGHTS, /, **options: str
    ) -> None:
        if options:
            raise UserError(f"the greedy bot takes no options (got {', '.join(options)})")
        self._weights = weights

    def choose_turn(self, view: View) -> Turn:
        turn = to_turn(policy_turn(Determinizer(view).canonical(), self._weights))
        allowed = committed_turns(view)
        # The heuristic keeps the commitment rule; if it was handed a view
        # that breaks it, fall back to an allowed turn.
        return turn if turn in allowed else allowed[0]
