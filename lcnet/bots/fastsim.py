"""Fast integer-level game logic shared by the ``greedy`` and ``mcts`` bots.

The engine's public API works with :class:`~lcnet.cards.Card` objects, which
is right for callers but too slow for the inner loop of a search. This
module works on card ids and on *suit masks*: the 12 cards of one suit as
the bits of an int (bit ``slot`` with the slot numbering of
:mod:`lcnet.cards`: slots 0-2 are the wagers, slot ``rank + 1`` is the
number ``rank``). Precomputed tables give a mask's number sum, card count or
wager count in one lookup.

It holds:

* :func:`suit_value`, the estimate of what an expedition will be worth at
  the end of the round;
* :class:`Sim`, a lean full-information round that a search copies and
  plays forward, built from a :class:`~lcnet.engine.View` by a
  :class:`Determinizer` (never from hidden information);
* the heuristic that *is* the greedy bot, :func:`rank_turns` and its fast
  form :func:`policy_turn`, which the search also uses to play out
  simulated rounds (:func:`rollout`), and :func:`evaluate`, which estimates
  the final score difference of a simulated round that is not finished.

It changes nothing in :mod:`lcnet.engine` and reads no private state of it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final, TypeAlias

from lcnet.cards import (
    ALL_CARDS,
    CARDS_PER_SUIT,
    LEVEL_AFTER,
    RANK_OF,
    SUIT_OF,
    THRESHOLD,
    WAGER_COPIES,
    sort_hand,
)
from lcnet.engine import BONUS, BONUS_LENGTH, EXPEDITION_COST, View

# ---------------------------------------------------------------- card tables

# SUIT_OF, RANK_OF, LEVEL_AFTER and THRESHOLD are the engine's (lcnet.cards).
BIT_OF: Final = tuple(1 << (c.id % CARDS_PER_SUIT) for c in ALL_CARDS)

SUIT_MASK: Final = (1 << CARDS_PER_SUIT) - 1
WAGER_MASK: Final = (1 << WAGER_COPIES) - 1
NUMBER_MASK: Final = SUIT_MASK & ~WAGER_MASK
SLOT_RANK: Final = tuple(0 if slot < WAGER_COPIES else slot - 1 for slot in range(CARDS_PER_SUIT))
MAX_LEVEL: Final = 10


def _mask_table(weight: tuple[int, ...]) -> tuple[int, ...]:
    table = [0] * (1 << CARDS_PER_SUIT)
    for mask in range(1, 1 << CARDS_PER_SUIT):
        low = mask & -mask
        table[mask] = table[mask ^ low] + weight[low.bit_length() - 1]
    return tuple(table)


NUM_SUM: Final = _mask_table(SLOT_RANK)
"""Sum of the number cards of a suit mask."""
COUNT: Final = _mask_table((1,) * CARDS_PER_SUIT)
"""Number of cards of a suit mask."""
NUM_SQUARES: Final = _mask_table(tuple(r * r for r in SLOT_RANK))
"""Sum of the squared ranks of a suit mask's numbers (for variances)."""
WAGERS: Final = _mask_table(tuple(1 if s < WAGER_COPIES else 0 for s in range(CARDS_PER_SUIT)))
"""Number of wagers of a suit mask."""


def _playable_mask(level: int) -> int:
    # Level 0 (empty) and 1 (wagers only) accept everything; level n accepts
    # the numbers above n, whose slots start at n + 2.
    if level <= 1:
        return SUIT_MASK
    return SUIT_MASK & ~((1 << (level + 2)) - 1)


PLAYABLE: Final = tuple(_playable_mask(level) for level in range(MAX_LEVEL + 1))
"""The slots that still fit on an expedition of each level."""

# --------------------------------------------------------- the expedition estimate

UNSEEN_BELOW_WEIGHT: Final = 0.5
"""An unseen card below the highest playable card in hand helps only if it
arrives before that card must be played: count it half."""
BONUS_RAMP_START: Final = BONUS_LENGTH - 2
"""Expected card counts from here to ``BONUS_LENGTH`` earn a growing share of
the bonus (an expectation is never exactly 8)."""


def suit_value(
    level: int,
    number_sum: int,
    wagers: int,
    count: int,
    hand: int,
    unseen: int,
    turns: int,
    arrival: float,
) -> tuple[float, float]:
    """Estimated final value of one expedition, for the player who holds
    ``hand``, and the expected number of cards it will still take.

    ``level``, ``number_sum``, ``wagers`` and ``count`` describe the
    expedition on the table; ``hand`` and ``unseen`` are suit masks of the
    cards in hand and of the cards this player has not seen; ``turns`` is
    how many more cards this player can put down, and ``arrival`` the
    chance that a given unseen card reaches its hand in time to be played.

    Playable cards in hand count in full, but at most ``turns`` of them
    (the lowest, wagers first, are the ones that would not fit in time);
    unseen playable numbers count with their arrival chance.

    A started expedition is worth its expected value, negative or not. One
    not started yet is worth more than that: the player opens it only if
    the cards that come make it worthwhile, so it is worth the expectation
    of ``max(0, X)`` for ``X`` the final value, taken as normal with the
    variance of the arrivals. Opening an expedition gives that option up,
    which is what makes the bot wait for enough cards before opening.
    """
    playable = hand & PLAYABLE[level]
    while COUNT[playable] > turns:
        playable &= playable - 1  # drop the lowest card: it would not fit in time
    in_hand = COUNT[playable]
    live = unseen & PLAYABLE[level] & NUMBER_MASK
    below = live & ((1 << playable.bit_length()) - 1)
    above = live ^ below
    room = turns - in_hand
    share = arrival
    arriving = share * (COUNT[above] + UNSEEN_BELOW_WEIGHT * COUNT[below])
    if arriving > room:
        # Not every arrival can still be put down: scale them down.
        scale = room / arriving if room > 0 else 0.0
        arriving *= scale
        share *= scale
    multiplier = 1 + wagers + WAGERS[playable]
    total = (
        number_sum
        + NUM_SUM[playable]
        + share * (NUM_SUM[above] + UNSEEN_BELOW_WEIGHT * NUM_SUM[below])
    )
    value = (total - EXPEDITION_COST) * multiplier
    cards = count + in_hand + arriving
    if cards > BONUS_RAMP_START:
        value += BONUS * min(1.0, (cards - BONUS_RAMP_START) / (BONUS_LENGTH - BONUS_RAMP_START))
    plays = in_hand + arriving
    if count:
        return value, plays
    variance = (
        share * (1.0 - share) * (NUM_SQUARES[above] + UNSEEN_BELOW_WEIGHT * NUM_SQUARES[below])
    )
    return _option_value(value, multiplier * math.sqrt(variance), plays)


_SQRT2: Final = math.sqrt(2.0)
_INV_SQRT_2PI: Final = 1.0 / math.sqrt(2.0 * math.pi)


def _option_value(mean: float, sigma: float, plays: float) -> tuple[float, float]:
    """E[max(0, X)] for X normal with this mean and standard deviation, and
    ``plays`` weighted by the chance that X > 0 (the expedition is opened)."""
    if sigma <= 1e-9:
        return (mean, plays) if mean > 0.0 else (0.0, 0.0)
    z = mean / sigma
    cdf = 0.5 * (1.0 + math.erf(z / _SQRT2))
    pdf = _INV_SQRT_2PI * math.exp(-0.5 * z * z)
    return mean * cdf + sigma * pdf, plays * cdf


# ------------------------------------------------------------------ features


# ------------------------------------------------------------------ weights


@dataclass(frozen=True)
class Weights:
    """The tunable numbers of the turn heuristic (the defaults are what the bots play)."""

    arrival_share: float = 0.6
    """Of the unseen cards, the share a player can expect to draw and still
    play is its number of remaining draws over the unseen count, times this
    (some arrive too late, or below cards already played)."""
    overflow: float = 2.5
    """The cost of each planned play beyond the turns left: the cheapest
    plays (a low card in a one-wager expedition is worth about this) drop."""
    feed: float = 0.8
    """The share of a discard's worth to the opponent that counts against it:
    the opponent usually takes a card it can use, unless the pile is covered."""
    feed_unstarted: float = 0.5
    """A card for an expedition the opponent has not started is worth this
    share of its rank to them: it may make the start worthwhile, or not."""
    feed_wager: float = 5.0
    """What a wager is worth to an opponent whose expedition holds only wagers."""
    cover: float = 0.3
    """Covering a pile's top card that the opponent wants delays it (it must
    take our card first): worth this share of the covered card."""
    deny: float = 0.5
    """Taking a pile card the opponent could use keeps it from them."""
    opponent_turn: float = 5.0
    """What one more turn is worth to the opponent (about one play). A draw
    from a discard pile leaves the deck as it is, which gives one more turn
    to the opponent if the draw pile is odd (else to the mover, whose hand
    is then revalued)."""
    pile_draw_margin: float = 0.5
    """A draw from a discard pile must beat the deck by this much: on a tie
    the deck keeps the round moving."""


DEFAULT_WEIGHTS: Final = Weights()


# ------------------------------------------------------------ the simulator

NO_DRAW_PILE: Final = -1
"""The ``draw`` of a turn that draws from the draw pile (otherwise a suit)."""

SimTurn: TypeAlias = tuple[int, bool, int]
"""A whole turn: ``(card id, discard?, draw)``, ``draw`` a suit or ``NO_DRAW_PILE``."""


class Sim:
    """A lean full-information round for simulations (no undo, no history).

    Per player and suit it keeps the expedition's level, number sum, wager
    count and card count, and per suit a mask of the cards on the table
    (expeditions and discard piles): all that scoring, the heuristic and the
    evaluation need. A search owns its Sims: it copies one per simulation
    and plays it forward with :meth:`apply`.

    ``taken`` holds, per player and suit, a mask of the hand cards taken from
    discard piles. The opponent saw them taken, so they are public; and the
    heuristic never discards them (the commitment rule of
    :mod:`lcnet.bots.commitment`), so that simulated rounds end too.

    The draw pile is dealt as two *streams*, one per player: a player's
    draws from the deck come from its own stream (from the other one once
    its own is empty), and the round ends when both are empty. Every draw is
    still a uniformly random unseen card, so the game is the same; but two
    simulations of one determinization that differ in a single pile draw
    still hand each player the same cards afterwards, instead of shifting
    every later card to the other player. That keeps the comparison of two
    turns on common random numbers sharp.
    """

    __slots__ = (
        "board",
        "counts",
        "deck_size",
        "hands",
        "levels",
        "piles",
        "streams",
        "suit_count",
        "sums",
        "taken",
        "to_move",
        "wagers",
    )

    def __init__(self, suit_count: int) -> None:
        self.suit_count = suit_count
        self.hands: list[list[int]] = [[], []]
        self.streams: list[list[int]] = [[], []]  # the next card drawn is the last one
        self.deck_size = 0
        self.levels = [[0] * suit_count, [0] * suit_count]
        self.sums = [[0] * suit_count, [0] * suit_count]
        self.wagers = [[0] * suit_count, [0] * suit_count]
        self.counts = [[0] * suit_count, [0] * suit_count]
        self.piles: list[list[int]] = [[] for _ in range(suit_count)]
        self.board = [0] * suit_count
        self.taken = [[0] * suit_count, [0] * suit_count]
        self.to_move = 0

    def deal(self, deck: list[int]) -> None:
        """Make ``deck`` (drawn from its end) the draw pile, split into the two
        streams so that, while every draw is from the deck, each player draws
        what it would from ``deck``."""
        order = deck[::-1]  # in drawing order
        self.streams[self.to_move] = order[0::2][::-1]
        self.streams[1 - self.to_move] = order[1::2][::-1]
        self.deck_size = len(deck)

    def copy(self) -> Sim:
        s = Sim.__new__(Sim)
        s.suit_count = self.suit_count
        s.hands = [self.hands[0][:], self.hands[1][:]]
        s.streams = [self.streams[0][:], self.streams[1][:]]
        s.deck_size = self.deck_size
        s.levels = [self.levels[0][:], self.levels[1][:]]
        s.sums = [self.sums[0][:], self.sums[1][:]]
        s.wagers = [self.wagers[0][:], self.wagers[1][:]]
        s.counts = [self.counts[0][:], self.counts[1][:]]
        s.piles = [p[:] for p in self.piles]
        s.board = self.board[:]
        s.taken = [self.taken[0][:], self.taken[1][:]]
        s.to_move = self.to_move
        return s

    @property
    def is_over(self) -> bool:
        return not self.deck_size

    def play_card(self, p: int, cid: int) -> None:
        """Add ``cid`` to player ``p``'s expedition (no checks, no hand change)."""
        s = SUIT_OF[cid]
        self.board[s] |= BIT_OF[cid]
        self.levels[p][s] = LEVEL_AFTER[cid]
        self.sums[p][s] += RANK_OF[cid]
        self.wagers[p][s] += RANK_OF[cid] == 0
        self.counts[p][s] += 1

    def apply(self, turn: SimTurn) -> None:
        """Make a whole turn for the player to move (assumed legal)."""
        cid, discard, draw = turn
        p = self.to_move
        hand = self.hands[p]
        hand.remove(cid)
        s = SUIT_OF[cid]
        self.taken[p][s] &= ~BIT_OF[cid]
        if discard:
            self.piles[s].append(cid)
            self.board[s] |= BIT_OF[cid]
        else:
            self.play_card(p, cid)
        if draw < 0:
            stream = self.streams[p] or self.streams[1 - p]
            hand.append(stream.pop())
            self.deck_size -= 1
        else:
            card = self.piles[draw].pop()
            self.board[draw] &= ~BIT_OF[card]
            self.taken[p][draw] |= BIT_OF[card]
            hand.append(card)
        self.to_move = 1 - p

    def score(self, p: int) -> int:
        """Player ``p``'s round score so far, per the rules."""
        total = 0
        sums, wagers, counts = self.sums[p], self.wagers[p], self.counts[p]
        for s in range(self.suit_count):
            n = counts[s]
            if n:
                total += (sums[s] - EXPEDITION_COST) * (1 + wagers[s])
                if n >= BONUS_LENGTH:
                    total += BONUS
        return total


class Determinizer:
    """Builds :class:`Sim` rounds consistent with a view, from the view alone.

    :attr:`unseen` are the cards the seat has not seen (in the draw pile or
    hidden in the opponent's hand). :meth:`sample` shuffles them between the
    opponent's hidden hand and the draw pile; :meth:`canonical` deals them
    in id order, for callers that read nothing of the hidden cards but their
    number (the greedy heuristic).
    """

    def __init__(self, view: View) -> None:
        me, other = view.seat, view.opponent
        sim = Sim(view.suit_count)
        sim.to_move = view.to_move
        sim.hands[me] = [c.id for c in view.hand]
        self.known = [c.id for c in sort_hand(view.opponent_known)]
        sim.hands[other] = self.known[:]
        for who in (0, 1):
            for exp in view.expeditions[who]:
                for card in exp:
                    sim.play_card(who, card.id)
        for s, pile in enumerate(view.discard_piles):
            sim.piles[s] = [c.id for c in pile]
            for card in pile:
                sim.board[s] |= BIT_OF[card.id]
        for card in view.hand_public:
            sim.taken[me][SUIT_OF[card.id]] |= BIT_OF[card.id]
        for card in view.opponent_known:
            sim.taken[other][SUIT_OF[card.id]] |= BIT_OF[card.id]
        self.template = sim
        self.other = other
        self.hidden = view.opponent_hand_size - len(self.known)
        self.unseen = [c.id for c in view.unseen_cards()]

    def _with(self, unseen: list[int]) -> Sim:
        sim = self.template.copy()
        sim.hands[self.other] = self.known + unseen[: self.hidden]
        sim.deal(unseen[self.hidden :])
        return sim

    def sample(self, rng: random.Random) -> Sim:
        """A round drawn uniformly from those consistent with the view."""
        unseen = self.unseen[:]
        rng.shuffle(unseen)
        return self._with(unseen)

    def canonical(self) -> Sim:
        """A round consistent with the view, with the unseen cards in id order."""
        return self._with(self.unseen)


# ------------------------------------------------------------- the heuristic

ScoredTurn: TypeAlias = tuple[float, int, bool, int]
"""``(score, card id, discard?, draw)``: a turn and its heuristic score."""


def policy_turn(sim: Sim, weights: Weights = DEFAULT_WEIGHTS) -> SimTurn:
    """The heuristic's turn for the player to move (the greedy bot's turn).

    See :func:`rank_turns` for what it estimates. To be fast it tries as a
    play only the lowest playable card of each suit (and the lowest number
    after wagers): skipping one's own cards is rarely right. It picks the
    best put-down with a draw from the deck, then tries that put-down with
    each pile whose top card it can play. Deterministic: on equal scores the
    first candidate in hand order wins.
    """
    return _choose(sim, weights, None)


def rank_turns(sim: Sim, weights: Weights = DEFAULT_WEIGHTS) -> list[ScoredTurn]:
    """Every turn the heuristic may make, with its score (higher is better).

    A turn's score estimates the mover's end-of-round value after it (the
    sum of :func:`suit_value` over its expeditions, less a cost for planned
    plays beyond the turns left), minus what a discard hands the opponent
    (a card it can play, worth more on an expedition it started), plus what
    a pile draw keeps from it. A draw from the deck is worth the average of
    what an unseen card adds; a pile draw changes who gets one more turn.
    Scores are relative: only differences within one position mean something.

    The candidates keep the commitment rule: a card taken from a pile is
    never discarded nor overtaken in its suit, and a pile card is drawn only
    if it can be played.
    """
    ranked: list[ScoredTurn] = []
    _choose(sim, weights, ranked)
    return ranked


def _choose(sim: Sim, weights: Weights, ranked: list[ScoredTurn] | None) -> SimTurn:
    """:func:`policy_turn` if ``ranked`` is None, else fill it as :func:`rank_turns`."""
    p = sim.to_move
    q = 1 - p
    hand = sim.hands[p]
    n = sim.suit_count
    levels, sums, wagers, counts = sim.levels[p], sim.sums[p], sim.wagers[p], sim.counts[p]
    opp_levels, opp_wagers, opp_counts = sim.levels[q], sim.wagers[q], sim.counts[q]
    taken = sim.taken[p]
    known = sim.taken[q]  # the opponent's cards that were taken from piles
    board = sim.board
    piles = sim.piles
    masks = [0] * n
    for cid in hand:
        masks[SUIT_OF[cid]] |= BIT_OF[cid]
    unseen = [SUIT_MASK & ~board[s] & ~masks[s] & ~known[s] for s in range(n)]
    pile = sim.deck_size
    turns = (pile - 1) // 2  # this player's put-downs after this turn
    unseen_total = max(1, pile + len(sim.hands[q]) - sum(COUNT[k] for k in known))
    arrival = weights.arrival_share * turns / unseen_total
    overflow_cost = weights.overflow
    base_values = [0.0] * n
    base_plays = [0.0] * n
    for s in range(n):
        base_values[s], base_plays[s] = suit_value(
            levels[s], sums[s], wagers[s], counts[s], masks[s], unseen[s], turns, arrival
        )
    # Scores are the value after the turn less the value before it; planned
    # plays beyond the turns left cost overflow_cost each.
    slack = turns - sum(base_plays)
    base_overflow = -overflow_cost * slack if slack < 0.0 else 0.0
    opp_can_use = pile // 2 >= 2  # one turn to take a fed card, one to play it
    feed, cover, deny = weights.feed, weights.cover, weights.deny
    pile_shift: float | None = None

    def pile_draw_shift() -> float:
        # A pile draw leaves the deck as it is: on an odd pile the opponent
        # gets one more turn, on an even one the mover, worth revaluing its
        # hand with one more turn and one more draw.
        if pile % 2 == 1:
            return -weights.pile_draw_margin - weights.opponent_turn
        longer = turns + 1
        more = weights.arrival_share * longer / unseen_total
        value = 0.0
        plays = 0.0
        for s in range(n):
            v, pl = suit_value(
                levels[s], sums[s], wagers[s], counts[s], masks[s], unseen[s], longer, more
            )
            value += v - base_values[s]
            plays += pl - base_plays[s]
        over = plays - slack - 1
        gain = value - (overflow_cost * over if over > 0.0 else 0.0) + base_overflow
        return gain - weights.pile_draw_margin

    def worth_to_opponent(cid: int) -> float:
        s = SUIT_OF[cid]
        if opp_levels[s] >= THRESHOLD[cid]:
            return 0.0
        rank = RANK_OF[cid]
        if rank == 0:
            return weights.feed_wager if opp_counts[s] else 0.0
        if not opp_counts[s]:
            return weights.feed_unstarted * rank
        return float(rank * (1 + opp_wagers[s]))

    def delta(
        s: int, level: int, number_sum: int, wager_count: int, count: int, hand_mask: int
    ) -> tuple[float, float]:
        v, pl = suit_value(
            level, number_sum, wager_count, count, hand_mask, unseen[s], turns, arrival
        )
        return v - base_values[s], pl - base_plays[s]

    def scored(dv: float, dp: float) -> float:
        over = dp - slack
        return dv - overflow_cost * over if over > 0.0 else dv

    # Put-downs, each as (card, discard, value change, plays change, extra).
    put_downs: list[tuple[int, bool, float, float, float]] = []
    best_score = -1e18
    best = 0
    # Keep the commitment rule; only a hand that already breaks it (a
    # simulated opponent that took cards it cannot play) may need to drop it.
    for keep in (True, False):
        for cid in hand:
            s = SUIT_OF[cid]
            bit = BIT_OF[cid]
            level = levels[s]
            alive = level < THRESHOLD[cid]
            if not (keep and taken[s] & bit):
                extra = 0.0
                if opp_can_use:
                    extra = -feed * worth_to_opponent(cid)
                    if piles[s]:
                        extra += cover * worth_to_opponent(piles[s][-1])
                # A card that no longer fits changes no estimate.
                dv, dp = (
                    delta(s, level, sums[s], wagers[s], counts[s], masks[s] & ~bit)
                    if alive
                    else (0.0, 0.0)
                )
                score = scored(dv, dp) + extra
                if score > best_score:
                    best_score, best = score, len(put_downs)
                put_downs.append((cid, True, dv, dp, extra))
            if not alive:
                continue
            rank = RANK_OF[cid]
            if keep and rank and taken[s] & (bit - 1):
                continue  # it would make a card taken from a pile unplayable
            if ranked is None:
                below = masks[s] & PLAYABLE[level] & (bit - 1)
                if below and (bit <= WAGER_MASK or below & NUMBER_MASK):
                    continue  # a lower card of this suit comes first
            dv, dp = delta(
                s,
                LEVEL_AFTER[cid],
                sums[s] + rank,
                wagers[s] + (rank == 0),
                counts[s] + 1,
                masks[s] & ~bit,
            )
            score = scored(dv, dp)
            if score > best_score:
                best_score, best = score, len(put_downs)
            put_downs.append((cid, False, dv, dp, 0.0))
        if put_downs:
            break

    def deck_draw_gain() -> float:
        # The average worth of an unseen card, from the median live card of each suit.
        gain = 0.0
        for s in range(n):
            live = unseen[s] & PLAYABLE[levels[s]]
            if not live:
                continue
            bits = live
            for _ in range(COUNT[live] // 2):
                bits &= bits - 1
            bit = bits & -bits
            v, pl = suit_value(
                levels[s],
                sums[s],
                wagers[s],
                counts[s],
                masks[s] | bit,
                unseen[s] & ~bit,
                turns,
                arrival,
            )
            gain += (scored(v - base_values[s], pl - base_plays[s]) + base_overflow) * COUNT[live]
        return gain / unseen_total

    # Draws: the deck, or a pile whose top card the mover can then play.
    deck_gain = None
    best_cid, best_discard, dv, dp, extra = put_downs[best]
    best_turn: SimTurn = (best_cid, best_discard, NO_DRAW_PILE)
    best_score = scored(dv, dp) + extra
    if ranked is not None:
        deck_gain = deck_draw_gain()
        ranked.extend(
            (scored(dv, dp) + extra + deck_gain, cid, discard, NO_DRAW_PILE)
            for cid, discard, dv, dp, extra in put_downs
        )
    for d in range(n):
        if not piles[d]:
            continue
        top = piles[d][-1]
        top_bit = BIT_OF[top]
        # The drawn card's suit alone changes the same way after any put-down
        # of another suit.
        fits = levels[d] < THRESHOLD[top]
        if fits:
            dv_draw, dp_draw = delta(
                d, levels[d], sums[d], wagers[d], counts[d], masks[d] | top_bit
            )
        elif all(SUIT_OF[cid] != d for cid, *_ in put_downs):
            continue
        if pile_shift is None:
            pile_shift = pile_draw_shift()
        shift = pile_shift + (deny * worth_to_opponent(top) if opp_can_use else 0.0)
        for cid, discard, dv, dp, extra in put_downs:
            if SUIT_OF[cid] == d:
                if discard or LEVEL_AFTER[cid] >= THRESHOLD[top]:
                    continue  # can't draw back its discard; only cards it can play
                rank = RANK_OF[cid]
                dv2, dp2 = delta(
                    d,
                    LEVEL_AFTER[cid],
                    sums[d] + rank,
                    wagers[d] + (rank == 0),
                    counts[d] + 1,
                    (masks[d] & ~BIT_OF[cid]) | top_bit,
                )
            elif fits:
                dv2, dp2 = dv + dv_draw, dp + dp_draw
            else:
                continue
            score = scored(dv2, dp2) + extra + shift
            if ranked is not None:
                ranked.append((score, cid, discard, d))
                continue
            if deck_gain is None:
                deck_gain = deck_draw_gain()
                best_score += deck_gain
            if score > best_score:
                best_score, best_turn = score, (cid, discard, d)
    return best_turn


def rollout(sim: Sim, max_turns: int, weights: Weights = DEFAULT_WEIGHTS) -> int:
    """Play :func:`policy_turn` for both players for at most ``max_turns``
    turns (to the end of the round if it comes first); returns the turns played."""
    played = 0
    while sim.deck_size and played < max_turns:
        sim.apply(_choose(sim, weights, None))
        played += 1
    return played


# ---------------------------------------------------------------- evaluation


def player_value(sim: Sim, p: int, turns: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """Player ``p``'s estimated final score with ``turns`` put-downs left,
    from what it knows: its hand, the table, and the opponent's cards that
    were taken from piles."""
    n = sim.suit_count
    q = 1 - p
    masks = [0] * n
    for cid in sim.hands[p]:
        masks[SUIT_OF[cid]] |= BIT_OF[cid]
    known = sim.taken[q]
    unseen_total = max(1, sim.deck_size + len(sim.hands[q]) - sum(COUNT[k] for k in known))
    # The last draw comes too late to be played.
    arrival = weights.arrival_share * max(0, turns - 1) / unseen_total
    levels, sums, wagers, counts, board = (
        sim.levels[p],
        sim.sums[p],
        sim.wagers[p],
        sim.counts[p],
        sim.board,
    )
    value = 0.0
    plays = 0.0
    for s in range(n):
        v, pl = suit_value(
            levels[s],
            sums[s],
            wagers[s],
            counts[s],
            masks[s],
            SUIT_MASK & ~board[s] & ~masks[s] & ~known[s],
            turns,
            arrival,
        )
        value += v
        plays += pl
    if plays > turns:
        value -= weights.overflow * (plays - turns)
    return value


def evaluate(sim: Sim, p: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """Player ``p``'s estimated final score minus its opponent's (exact once
    the round is over)."""
    if not sim.deck_size:
        return float(sim.score(p) - sim.score(1 - p))
    pile = sim.deck_size
    # The player to move has (pile + 1) // 2 put-downs left, the other pile // 2.
    mover, waiter = (pile + 1) // 2, pile // 2
    mine, theirs = (mover, waiter) if sim.to_move == p else (waiter, mover)
    return player_value(sim, p, mine, weights) - player_value(sim, 1 - p, theirs, weights)
