"""The panel: opponents written from how people describe playing Lost Cities.

The built-in levels were tuned against our own heuristic; the panel is
there to measure them against players that share nothing with it. Each
member follows one piece of advice players give each other, in a few plain
rules with its own numbers, and reads only its :class:`~lcnet.game.engine.View`.
It imports nothing of lcnet but :mod:`lcnet.game.cards`, :mod:`lcnet.game.engine`,
:mod:`lcnet.errors` and itself (a test keeps it so), never the heuristic
(``lcnet/bots/policy.py``), the simulator, the search or the other bots.

``committer`` (:mod:`.committer`)
    Opens a suit only with 20 points of it in hand, plays low to high,
    discards what it will never use, bets only early on a strong suit.
``hoarder`` (:mod:`.hoarder`)
    Takes every discard it can use; otherwise a plain sensible player.
``gambler`` (:mod:`.gambler`)
    Bets on any follow-up, opens suits on little, plays rather than waits.
``planner`` (:mod:`.planner`)
    Plays the turn that raises the expected end-of-round worth of its
    expeditions most, minus what a discard hands the opponent.
``slow`` (:mod:`.slow`)
    Opens only with a run of four, discards freely meanwhile, rushes out
    its hand when the draw pile runs short.
``rival`` (:mod:`.rival`)
    A one-ply greedy player with its own estimate of an expedition's worth.

``rival`` and ``slow`` are held out: never tune a bot against them, only
report against them (docs/BOTS.md, "The panel").

Every member keeps the commitment rule of :mod:`.basics` (a card it takes
from a discard pile fits its expedition and never returns to a pile), so
every match between a member and any built-in bot ends. Members are quick
and deterministic.
"""

from __future__ import annotations

from typing import Final

from lcnet.bots.panel.basics import Member
from lcnet.bots.panel.committer import Committer
from lcnet.bots.panel.gambler import Gambler
from lcnet.bots.panel.hoarder import Hoarder
from lcnet.bots.panel.planner import Planner
from lcnet.bots.panel.rival import Rival
from lcnet.bots.panel.slow import Slow

PANEL: Final[dict[str, type[Member]]] = {
    bot.name: bot for bot in (Committer, Hoarder, Gambler, Planner, Slow, Rival)
}
"""Every member by name, in the order tables list them."""

TUNING: Final = ("committer", "hoarder", "gambler", "planner")
"""The members a change to a bot may be tried against."""
HELD_OUT: Final = ("slow", "rival")
"""The members a change is only confirmed on, never tuned against."""
