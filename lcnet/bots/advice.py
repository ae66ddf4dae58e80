"""Teaching: the bot's suggested turn for a position, and a verdict on a turn played.

Everything here starts from one player's :class:`~lcnet.game.engine.View`, so it
never reads a card that player could not see: the hint during a match
(:func:`suggest`) and the analysis of a saved match (:func:`analyze`, fed
with the file owner's view before each of its turns).

How a turn is valued: the same search machinery as the mcts bot
(:mod:`lcnet.bots.sim`, :mod:`lcnet.bots.policy`). The candidates are the heuristic's best turns
that keep the commitment rule (and, in an analysis, the turn played). Each
is made in the *same* sampled determinizations (common random numbers, so
the comparison is not drowned by the luck of the deal), the heuristic plays
both sides a little further (from 16 cards left, the opponent as a player
of unknown style, as in the mcts bot's late search), and
:func:`~lcnet.bots.policy.evaluate` estimates the round's final score
difference, this player minus the opponent. The mean over the deals is a
turn's *value*, in points; the bot's choice is the candidate with the best
value, and a turn's *loss* is how many points below the bot's choice its
value falls.

The budget is a number of deals, never the clock, and every position gets
its own random source from a seed and the position itself, so the same
seed and budget give the same answers (a hint equals the analysis's choice
for that position) on any machine.

:func:`_values` is the one place that values turns: a stronger search can
replace it without touching the rest.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from lcnet.bots.mcts import STALL_DRAW_PILE, MctsBot, candidate_turns
from lcnet.bots.sim import Determinizer, to_turn
from lcnet.game.cards import Suit, format_cards, sort_hand
from lcnet.game.engine import EXPEDITION_COST, Phase, Turn, View

HINT_DEALS: Final = 300
"""Deals per hint: one position, so a hint takes a fraction of a second."""
ANALYSIS_DEALS: Final = 100
"""Deals per turn of an analysis: a whole match of 3 rounds in about ten seconds."""
MAX_DEALS: Final = 100_000
CANDIDATES: Final = 5
"""The heuristic's best turns the bot considers (its own choice always among them)."""
STALL_PUT_DOWNS: Final = 1
"""From :data:`~lcnet.bots.mcts.STALL_DRAW_PILE` cards left, the bot also
considers its best put-down with each stall (a pile card taken only for
one more turn each): one put-down, so that a hint stays quick."""
DEPTH: Final = 2
"""Turns the heuristic plays after the candidate before the estimate (as the mcts bot)."""
ENDGAME_DRAW_PILE: Final = 8
"""From this many cards in the draw pile, deals are played to the end of the round."""
LATE_DRAW_PILE: Final = 16
"""From this many cards in the draw pile, a lead is worth keeping short."""
MIN_LOSS: Final = 0.5
"""A loss below this many points is noise of the estimate, not a mistake."""
SUIT_NAMES: Final = {suit: suit.name.lower() for suit in Suit}


@dataclass(frozen=True)
class Advice:
    """The bot's suggested turn, why, and what it expects of it."""

    turn: Turn
    reason: str
    """One line for people, e.g. ``play r7 on your red expedition (you hold r8 r9); ...``."""
    value: float
    """The expected final score difference of the round after it (you minus the opponent)."""


@dataclass(frozen=True)
class TurnVerdict:
    """One turn played, set against the bot's choice in the same position."""

    index: int
    """Its place in the sequence given to :func:`analyze`."""
    played: Turn
    choice: Turn
    """The bot's choice: the best of its own candidates (``played`` too, if it is one)."""
    played_value: float
    choice_value: float
    loss: float
    """Points the played turn is expected to lose against the bot's choice (never negative)."""
    reason: str
    """Why the bot's choice, in one line."""

    @property
    def agrees(self) -> bool:
        """The bot chose the same turn, or one better by less than :data:`MIN_LOSS`."""
        return self.played == self.choice or self.loss < MIN_LOSS


def suggest(view: View, *, seed: int = 0, deals: int = HINT_DEALS) -> Advice:
    """The bot's turn for ``view`` (which must be its holder's turn to put down)."""
    _check(view, deals)
    turns = candidates(view)
    values = _values(view, turns, position_rng(seed, view), deals)
    best = max(range(len(turns)), key=lambda i: (values[i], -i))
    return Advice(turns[best], reason(view, turns[best], values[best]), values[best])


def analyze(
    steps: Sequence[tuple[View, Turn]],
    *,
    seed: int = 0,
    deals: int = ANALYSIS_DEALS,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[TurnVerdict]:
    """A verdict on each ``(view, turn played in it)``, in order.

    ``on_progress(done, total)`` is called after each step (for a progress bar).
    """
    verdicts = []
    for index, (view, played) in enumerate(steps):
        _check(view, deals)
        turns = candidates(view)
        # The bot chooses among its own candidates only (ties: the heuristic's
        # order); the played turn is valued on the same deals beside them.
        own = len(turns)
        if played not in turns:
            turns.append(played)
        values = _values(view, turns, position_rng(seed, view), deals)
        best = max(range(own), key=lambda i: (values[i], -i))
        played_value = values[turns.index(played)]
        verdicts.append(
            TurnVerdict(
                index=index,
                played=played,
                choice=turns[best],
                played_value=played_value,
                choice_value=values[best],
                loss=max(0.0, values[best] - played_value),
                reason=reason(view, turns[best], values[best]),
            )
        )
        if on_progress is not None:
            on_progress(index + 1, len(steps))
    return verdicts


def _check(view: View, deals: int) -> None:
    if not view.my_turn or view.phase is not Phase.PUT_DOWN:
        raise ValueError("advice needs a view whose holder is to put down a card")
    if not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"deals must be between 1 and {MAX_DEALS}, not {deals}")


def position_rng(seed: int, view: View) -> random.Random:
    """A random source for one position: the same seed and view give the same draws."""
    key = repr(
        (
            seed,
            view.seat,
            view.draw_pile_size,
            [c.id for c in view.hand],
            [[c.id for c in e] for e in view.expeditions[view.seat]],
            [[c.id for c in e] for e in view.expeditions[view.opponent]],
            [[c.id for c in p] for p in view.discard_piles],
        )
    )
    return random.Random(int.from_bytes(hashlib.blake2b(key.encode()).digest()[:8], "big"))


# ------------------------------------------------------------- the search


def candidates(view: View, limit: int = CANDIDATES) -> list[Turn]:
    """The turns the bot considers: the heuristic's own first, then its next
    best ones, all keeping the commitment rule (as the search chooses them),
    and late in the round the best with each stall."""
    stalls = STALL_PUT_DOWNS if view.draw_pile_size <= STALL_DRAW_PILE else 0
    canonical = Determinizer(view).canonical()
    return [to_turn(t) for t in candidate_turns(view, canonical, limit, stalls=stalls)]


def _values(view: View, turns: Sequence[Turn], rng: random.Random, deals: int) -> list[float]:
    """Each turn's expected final score difference of the round (the holder
    minus the opponent), over the same ``deals`` determinizations of ``view``:
    the search's own valuation, with short playouts (:data:`DEPTH`). One
    view tells nothing of how the opponent draws, so the simulated opponent
    takes pile cards as the heuristic does (``tempo=0``)."""
    search = MctsBot(
        rng,
        iterations=str(deals * len(turns)),
        depth=str(DEPTH),
        endgame=str(ENDGAME_DRAW_PILE),
        tempo="0",
    )
    return search.evaluate_turns(view, turns)


# -------------------------------------------------------------- in words


def short(turn: Turn) -> str:
    """A turn in the short notation a player types (``+r7 deck``, ``-b3 g``)."""
    sign = "-" if turn.put_down.discard else "+"
    draw = "deck" if turn.draw.suit is None else turn.draw.suit.letter
    return f"{sign}{turn.put_down.card} {draw}"


def hint_text(hint: Advice) -> str:
    """A hint in one line: the turn to type, then why."""
    return f"hint: {short(hint.turn)}: {hint.reason}"


def reason(view: View, turn: Turn, value: float | None = None) -> str:
    """Why ``turn`` in ``view``, in one line: what the put-down and the draw do."""
    parts = [_put_down_reason(view, turn), _draw_reason(view, turn, value)]
    text = "; ".join(part for part in parts if part)
    if value is not None:
        text += f" (estimated round margin: {_signed(value)})"
    return text


def _put_down_reason(view: View, turn: Turn) -> str:
    card = turn.put_down.card
    suit = card.suit
    name = SUIT_NAMES[suit]
    others = sort_hand(c for c in view.hand if c.suit is suit and c != card)
    above = [c for c in others if c.rank > card.rank or (card.is_wager and c.is_wager)]
    started = bool(view.expeditions[view.seat][suit])
    if not turn.put_down.discard:
        rest = f" (you hold {format_cards(above)})" if above else ""
        if card.is_wager:
            return f"play the wager {card} on your {name} expedition{rest}"
        if not started:
            return f"open your {name} expedition with {card}{rest}"
        return f"play {card} on your {name} expedition{rest}"
    if not view.can_play(card):
        return f"discard {card}: it no longer fits your {name} expedition"
    if not started:
        held = [c for c in view.hand if c.suit is suit]
        points = sum(c.rank for c in held)
        later = (view.draw_pile_size + 1) // 2 - 1  # put-downs after this one
        if later < 2:
            return f"discard {card}: it is too late in the round to open {name}"
        if points >= EXPEDITION_COST and later < len(held) + 1:
            return f"discard {card}: too few turns are left to make {name} pay"
        if card.is_wager and points == 0:
            return f"discard {card}: you hold no {name} cards to back the wager"
        return f"discard {card}: {name} is not worth opening (you hold {points} points of it)"
    if not view.can_play(card, view.opponent) and view.expeditions[view.opponent][suit]:
        return f"discard {card}: your opponent's {name} expedition is past it"
    return f"discard {card}: the card you need least"


def _draw_reason(view: View, turn: Turn, value: float | None) -> str:
    suit = turn.draw.suit
    if suit is None:
        if value is not None and value > 0 and view.draw_pile_size <= LATE_DRAW_PILE:
            return "draw from the draw pile: it runs the round down while you lead"
        return "draw from the draw pile"
    top = view.top(suit)
    if top is None:  # the card discarded this turn
        return f"take it back from the {SUIT_NAMES[suit]} pile"
    name = SUIT_NAMES[suit]
    text = f"take {top} from the {name} pile"
    put = turn.put_down
    if put.card.suit is suit and not put.discard:
        # The put-down raises the expedition the pile card would go on.
        fits_mine = put.card.rank < top.rank or (top.is_wager and put.card.is_wager)
    else:
        fits_mine = view.can_play(top)
    why = []
    if fits_mine:
        verb = "extends" if view.expeditions[view.seat][suit] else "fits"
        why.append(f"it {verb} your {name} expedition")
    if view.can_play(top, view.opponent) and view.expeditions[view.opponent][suit]:
        why.append("it is kept from your opponent")
    if value is not None and value < 0 and view.draw_pile_size <= LATE_DRAW_PILE:
        why.append("the draw pile stays as it is while you trail")
    elif not fits_mine:
        why.append("the draw pile stays as it is: one more turn each before the round ends")
    return f"{text}: {', and '.join(why)}" if why else text


def _signed(value: float) -> str:
    number = round(value)
    return f"+{number}" if number > 0 else str(number)
