"""The names the bots' simulator and heuristic had when they were one module.

The simulator now lives in :mod:`lcnet.bots.sim` and the heuristic in
:mod:`lcnet.bots.policy`; this module re-exports their public names so that
code written against ``lcnet.bots.fastsim`` keeps working. New code should
import from those two modules.
"""

from __future__ import annotations

from lcnet.bots.policy import (
    DEFAULT_WEIGHTS,
    ScoredTurn,
    TurnScorer,
    Weights,
    evaluate,
    player_value,
    policy_turn,
    rank_turns,
    rollout,
    suit_value,
)
from lcnet.bots.sim import (
    BIT_OF,
    COUNT,
    NO_DRAW_PILE,
    NUM_SQUARES,
    NUM_SUM,
    NUMBER_MASK,
    PLAYABLE,
    SUIT_MASK,
    WAGER_MASK,
    WAGERS,
    Determinizer,
    Sim,
    SimTurn,
)

__all__ = [
    "BIT_OF",
    "COUNT",
    "DEFAULT_WEIGHTS",
    "NO_DRAW_PILE",
    "NUMBER_MASK",
    "NUM_SQUARES",
    "NUM_SUM",
    "PLAYABLE",
    "SUIT_MASK",
    "WAGERS",
    "WAGER_MASK",
    "Determinizer",
    "ScoredTurn",
    "Sim",
    "SimTurn",
    "TurnScorer",
    "Weights",
    "evaluate",
    "player_value",
    "policy_turn",
    "rank_turns",
    "rollout",
    "suit_value",
]
