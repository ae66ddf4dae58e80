"""``planner``: weighs every turn by what each expedition will be worth.

How strong players describe thinking about a turn: an expedition is worth
what its cards will add up to by the end of the round, not what is on the
table now. So for each suit add up the cards played, the cards in hand that
still fit, and the cards still to come (the unseen ones above your top card,
times your share of the draws left), multiply by the wagers, take off the
20 it costs, count the chance of the 8-card bonus; a suit you have not
opened is worth that only if it turns out well, so keep it open as an
option rather than a debt. Then make the turn (card and draw) that raises
the total most, with as many cards as there are turns left to play them.
Do not throw the opponent a card it can use unless everything else is
worse; take a discard only when it clearly helps; and near the end count
the turns: a discard-pile draw lengthens the round for both players.
"""

from __future__ import annotations

import math
from typing import Final

from lcnet.bots.panel.basics import Member, allowed_put_downs, finish, takeable
from lcnet.game.cards import LEVEL_AFTER, Card, Suit
from lcnet.game.engine import Draw, PutDown, Turn, View

COST: Final = 20
"""What an expedition costs (RULES.md)."""
BONUS: Final = 20
"""The 8-card bonus."""
BONUS_CARDS: Final = 8
"""Cards an expedition needs for the bonus; with that many expected it counts
half the bonus, all of it from 1.5 more, none from 1.5 fewer."""

ARRIVAL: Final = 0.75
"""The share of its expected draws of a suit it counts on playing (some come too late)."""
SIGMA_FLOOR: Final = 6.0
"""The least uncertainty (points) of an unopened suit's worth: what keeping it open is worth."""
OPPONENT_SHARE: Final = 0.7
"""How much of a discard's worth to the opponent it counts against the discard."""
UNOPENED_SHARE: Final = 0.25
"""A card of a suit the opponent has not opened is worth this share of its points to it."""
DENY_SHARE: Final = 0.3
"""How much of a pile card's worth to the opponent counts for taking it."""
TAKE_MARGIN: Final = 1.5
"""How much a pile card must beat the draw pile by before it takes it."""
OPPONENT_TURN: Final = 2.0
"""What an extra turn for the opponent is worth to it, late in the round..."""
AHEAD_TURN: Final = 3.0
"""...plus this much more when it is ahead on the table (then it ends the round sooner)."""
LATE_PILE: Final = 16
"""The draw-pile size from which the turn count matters."""

# One suit's state: table sum, table wagers, table cards, level (0 empty, 1
# wagers only, else the top number), number ranks in hand, wagers in hand.
_SuitState = tuple[int, int, int, int, tuple[int, ...], int]
# One suit's reading (:func:`_read`): started, table sum, table wagers, table
# cards, points and cards in hand that fit, wagers in hand it may still play,
# points and cards expected to arrive, their variance, the plays it plans.
_Row = tuple[bool, int, int, int, int, int, int, float, float, float, float]


class Planner(Member):
    """Plays the turn that raises the expected worth of its expeditions most,
    minus what a discard hands the opponent."""

    name = "planner"

    def choose_turn(self, view: View) -> Turn:
        allowed = allowed_put_downs(view)
        ranks: dict[Suit, list[int]] = {s: [] for s in view.suits}
        total_unseen = 0
        for card in view.unseen_cards():
            total_unseen += 1
            if not card.is_wager:
                ranks[card.suit].append(card.rank)
        unseen = [_above(ranks[s]) for s in view.suits]
        base = [self._suit_state(view, s) for s in view.suits]
        deck = view.draw_pile_size
        lead = view.score(view.seat) - view.score(view.opponent)
        turn_cost = 0.0
        if deck <= LATE_PILE:
            turn_cost = OPPONENT_TURN + (AHEAD_TURN if lead > 0 else 0.0)

        memo: dict[tuple[int, _SuitState, int], _Row] = {}
        best: tuple[float, int, Turn] | None = None
        for put_down in allowed:
            after = list(base)
            card = put_down.card
            after[card.suit] = _put(after[card.suit], card, put_down.discard)
            penalty = OPPONENT_SHARE * _worth_to_opponent(view, card) if put_down.discard else 0.0
            if not put_down.discard and not card.is_wager:
                penalty -= 0.01 * (11 - card.rank)  # ties: play rather than throw, low first
            draws = view.legal_draws(put_down)
            deck_draw = next((d for d in draws if d.suit is None), None)
            # The draw pile: this turn's card and later ones arrive at random.
            capacity = (deck - 1) // 2
            deck_value = -math.inf
            if deck_draw is not None:
                deck_value = (
                    _evaluate(after, unseen, total_unseen, capacity, capacity, memo)
                    - penalty
                    - turn_cost * (deck // 2)
                )
                best = _better(best, deck_value, put_down, deck_draw)
            # A pile card: one turn more for whoever moves when the pile empties.
            for taken in takeable(view, put_down):
                with_card = list(after)
                with_card[taken.suit] = _add(with_card[taken.suit], taken)
                capacity = deck // 2
                value = (
                    _evaluate(with_card, unseen, total_unseen, capacity, max(0, capacity - 1), memo)
                    - penalty
                    - turn_cost * ((deck + 1) // 2)
                    + DENY_SHARE * _worth_to_opponent(view, taken)
                )
                if value > deck_value + TAKE_MARGIN:
                    draw = next(d for d in draws if d.suit == taken.suit)
                    best = _better(best, value, put_down, draw)
        if best is None:  # a seat to move always has a put-down and a draw
            return finish(view, allowed[0])
        return best[2]

    def _suit_state(self, view: View, suit: Suit) -> _SuitState:
        table = view.expeditions[view.seat][suit]
        wagers = sum(1 for c in table if c.is_wager)
        hand = tuple(sorted(c.rank for c in view.hand if c.suit == suit and not c.is_wager))
        hand_wagers = sum(1 for c in view.hand if c.suit == suit and c.is_wager)
        return (
            sum(c.rank for c in table),
            wagers,
            len(table),
            view.level(view.seat, suit),
            hand,
            hand_wagers,
        )


def _better(
    best: tuple[float, int, Turn] | None, value: float, put_down: PutDown, draw: Draw
) -> tuple[float, int, Turn]:
    """The better of ``best`` and this turn (ties: the lower codes, so it is deterministic)."""
    key = -(put_down.code * 64 + draw.code)
    if best is None or (value, key) > (best[0], best[1]):
        return (value, key, Turn(put_down, draw))
    return best


def _put(state: _SuitState, card: Card, discard: bool) -> _SuitState:
    total, wagers, count, level, hand, hand_wagers = state
    if card.is_wager:
        hand_wagers -= 1
    else:
        hand = tuple(r for r in hand if r != card.rank)
    if discard:
        return (total, wagers, count, level, hand, hand_wagers)
    if card.is_wager:
        return (total, wagers + 1, count + 1, max(level, 1), hand, hand_wagers)
    return (total + card.rank, wagers, count + 1, LEVEL_AFTER[card.id], hand, hand_wagers)


def _add(state: _SuitState, card: Card) -> _SuitState:
    total, wagers, count, level, hand, hand_wagers = state
    if card.is_wager:
        return (total, wagers, count, level, hand, hand_wagers + 1)
    return (total, wagers, count, level, tuple(sorted((*hand, card.rank))), hand_wagers)


def _above(ranks: list[int]) -> list[tuple[int, int, int]]:
    """For each level 0..10: the sum, count and sum of squares of ``ranks`` above it."""
    return [
        (
            sum(r for r in ranks if r > level),
            sum(1 for r in ranks if r > level),
            sum(r * r for r in ranks if r > level),
        )
        for level in range(11)
    ]


def _evaluate(
    states: list[_SuitState],
    unseen: list[list[tuple[int, int, int]]],
    total_unseen: int,
    capacity: int,
    draws: int,
    memo: dict[tuple[int, _SuitState, int], _Row],
) -> float:
    """The expected worth of all its expeditions at the end of the round, with
    ``capacity`` turns left to play cards in and ``draws`` random cards to come
    that it can still play (``memo``: each suit's reading, kept for the turn)."""
    rows = []
    planned = 0.0
    for suit, state in enumerate(states):
        row = memo.get((suit, state, draws))
        if row is None:
            row = _read(state, unseen[suit], total_unseen, draws)
            memo[(suit, state, draws)] = row
        rows.append(row)
        planned += row[-1]
    fit = min(1.0, capacity / planned) if planned > 0 else 1.0
    worth = 0.0
    for (
        started,
        total,
        wagers,
        count,
        held_sum,
        held_cnt,
        bets,
        coming_sum,
        coming_cnt,
        spread,
        _,
    ) in rows:
        base = total + fit * (held_sum + coming_sum) - COST
        played_bets = fit * bets if base > 0 else 0.0
        times = 1 + wagers + played_bets
        cards = count + fit * (held_cnt + coming_cnt) + played_bets
        bonus = BONUS * min(1.0, max(0.0, (cards - BONUS_CARDS + 1.5) / 3))
        mean = base * times + bonus
        if started:
            worth += mean
        else:
            sigma = times * fit * math.sqrt(spread) + SIGMA_FLOOR
            worth += _positive_part(mean, sigma)
    return worth


def _read(
    state: _SuitState, unseen: list[tuple[int, int, int]], total_unseen: int, draws: int
) -> _Row:
    """One suit's reading: its table, the cards in hand that fit, the cards
    expected to arrive (``draws`` random draws to come), and the plays it
    plans there (none in a suit it will not open)."""
    total, wagers, count, level, hand, hand_wagers = state
    share = min(1.0, ARRIVAL * draws / total_unseen) if total_unseen else 0.0
    held = [r for r in hand if r > level]
    held_sum = sum(held)
    above_sum, above_cnt, above_squares = unseen[level]
    coming_sum = share * above_sum
    coming_cnt = share * above_cnt
    spread = share * (1 - share) * above_squares
    bets = hand_wagers if level <= 1 else 0
    base = total + held_sum + coming_sum - COST
    used = bets if base > 0 else 0
    started = count > 0
    planned = 0.0
    if started or base * (1 + wagers + used) > 0:
        planned = len(held) + used + coming_cnt
    return (
        started,
        total,
        wagers,
        count,
        held_sum,
        len(held),
        bets,
        coming_sum,
        coming_cnt,
        spread,
        planned,
    )


def _positive_part(mean: float, sigma: float) -> float:
    """E[max(0, X)] for X normal with this mean and spread: an unopened suit
    is worth something only if it turns out well (it will not be opened otherwise)."""
    z = mean / sigma
    density = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    below = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    return sigma * density + mean * below


def _worth_to_opponent(view: View, card: Card) -> float:
    """What ``card`` is worth to the opponent if it gets it: its points times
    its wagers on an expedition it has, much less on one it has not opened
    (more if it took cards of that suit), nothing if it no longer fits."""
    other = view.opponent
    if not view.can_play(card, other):
        return 0.0
    table = view.expeditions[other][card.suit]
    wagers = sum(1 for c in table if c.is_wager)
    if card.is_wager:
        return 5.0 if table or any(c.suit == card.suit for c in view.opponent_known) else 1.0
    if table:
        return float(card.rank * (1 + wagers))
    if any(c.suit == card.suit for c in view.opponent_known):
        return card.rank * 0.5
    return card.rank * UNOPENED_SHARE
