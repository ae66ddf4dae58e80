"""Built-in players. A bot sees only a :class:`~lcnet.game.engine.View`, never the full state.

Every bot has a ``name`` and ``choose_turn(view) -> Turn``, called when it is
the bot's turn to put down a card; it returns the whole turn (the put-down
and then the draw), which is what the protocol sends as one message.

Every built-in bot is written so that any match between built-in bots ends:
it draws from a discard pile only a card it means to use, and otherwise
from the draw pile (see RULES.md, "No turn limit").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from lcnet.errors import UserError
from lcnet.game.engine import Turn, View


class Bot(Protocol):
    """What every built-in player provides."""

    name: str
    quick: bool
    """Whether a turn takes about a millisecond or less. A caller on an event
    loop runs a quick bot in place; a slower one (a search) in a worker thread,
    so that the connection stays responsive while it thinks."""

    def choose_turn(self, view: View) -> Turn:
        """The whole turn to make in ``view`` (it is this bot's turn to put down)."""
        ...


BotFactory = Callable[..., Bot]
"""Makes a bot from a random source and its options (``key=value`` strings)."""


def _random_bot(rng: random.Random, **options: str) -> Bot:
    from lcnet.bots.uniform import RandomBot

    _no_options("random", options)
    return RandomBot(rng)


def _greedy_bot(rng: random.Random, **options: str) -> Bot:
    from lcnet.bots.greedy import GreedyBot

    return GreedyBot(rng, **options)


def _mcts_bot(rng: random.Random, **options: str) -> Bot:
    from lcnet.bots.mcts import MctsBot

    return MctsBot(rng, **options)


def _cautious_bot(rng: random.Random, **options: str) -> Bot:
    from lcnet.bots.styles import CautiousBot

    return CautiousBot(rng, **options)


def _aggressive_bot(rng: random.Random, **options: str) -> Bot:
    from lcnet.bots.styles import AggressiveBot

    return AggressiveBot(rng, **options)


def _no_options(name: str, options: dict[str, str]) -> None:
    if options:
        raise UserError(f"the {name} bot takes no options (got {', '.join(options)})")


def _easy_bot(rng: random.Random, **options: str) -> Bot:
    from lcnet.bots.easy import EasyBot

    return EasyBot(rng, **options)


LEVELS: dict[str, str] = {
    "easy": "a beginner: opens expeditions eagerly, ignores what you collect",
    "medium": "plays the best-looking turn, one turn ahead (the greedy bot)",
    "hard": "searches sampled deals to the end of the round (the mcts bot)",
}
"""The levels a person chooses from, weakest first, each with one line for help texts."""


def _panel_bot(name: str) -> BotFactory:
    """The factory of panel member ``name`` (imported only when one is made)."""

    def make(rng: random.Random, **options: str) -> Bot:
        from lcnet.bots.panel import PANEL

        return PANEL[name](rng, **options)

    return make


BOTS: dict[str, BotFactory] = {
    # The levels (LEVELS), weakest first.
    "easy": _easy_bot,
    "medium": _greedy_bot,
    "hard": _mcts_bot,
    # The same bots by what they are, and the baseline.
    "random": _random_bot,
    "greedy": _greedy_bot,
    "mcts": _mcts_bot,
    # Style opponents for measuring a search, not on the level scale
    # (lcnet/bots/styles.py): more than one way of playing, sharing no tuning
    # with greedy or mcts.
    "cautious": _cautious_bot,
    "aggressive": _aggressive_bot,
    # Panel opponents (lcnet/bots/panel/): written from how people play,
    # sharing no code with greedy or mcts. slow and rival are held out of
    # any tuning (docs/BOTS.md, "The panel").
    "committer": _panel_bot("committer"),
    "hoarder": _panel_bot("hoarder"),
    "gambler": _panel_bot("gambler"),
    "planner": _panel_bot("planner"),
    "slow": _panel_bot("slow"),
    "rival": _panel_bot("rival"),
}
"""Every bot name, and how to make each."""


def bot_choices() -> str:
    """The ``--bot`` help's list: the levels, each with what it is, then the other names."""
    levels = "; ".join(f"{name}: {what}" for name, what in LEVELS.items())
    others = ", ".join(name for name in BOTS if name not in LEVELS)
    return f"{levels}. Also: {others}"


def parse_bot_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name[:key=value,...]`` (e.g. ``mcts:iterations=400``) into name and options."""
    name, _, rest = spec.strip().partition(":")
    if name not in BOTS:
        raise UserError(f"unknown bot {name!r}: choose one of {', '.join(BOTS)}")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise UserError(f"bad bot option {item!r} in {spec!r}: write key=value")
        options[key.strip()] = value.strip()
    return name, options


def make_bot(spec: str, rng: random.Random | int | None = None) -> Bot:
    """The built-in bot described by ``spec`` (``name[:key=value,...]``) with its
    own random source (or a seed for one)."""
    name, options = parse_bot_spec(spec)
    return BOTS[name](rng if isinstance(rng, random.Random) else random.Random(rng), **options)
