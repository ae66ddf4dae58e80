"""The bots' turn heuristic: the greedy bot's policy and the search's model of both players.

* :func:`suit_value` estimates what an expedition will be worth at the end
  of the round, from the cards on the table, in hand and unseen;
* :class:`TurnScorer` scores the turns of the player to move in one
  position with it (:func:`policy_turn` is the greedy bot's turn,
  :func:`rank_turns` every turn with its score);
* :func:`rollout` lets the heuristic play both sides of a simulated round
  (:class:`~lcnet.bots.sim.Sim`), and :func:`evaluate` estimates the final
  score difference of one that is not finished.

The heuristic reads a Sim only as its player would: its own hand, the
table, and the opponent's cards taken from discard piles; the opponent's
other cards and the draw pile only as counts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple, TypeAlias

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
    Sim,
    SimTurn,
)
from lcnet.game.cards import LEVEL_AFTER, RANK_OF, SUIT_OF, THRESHOLD
from lcnet.game.engine import BONUS, BONUS_LENGTH, EXPEDITION_COST

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


# ------------------------------------------------------------- the heuristic

ScoredTurn: TypeAlias = tuple[float, int, bool, int]
"""``(score, card id, discard?, draw)``: a turn and its heuristic score."""


class PutDownEstimate(NamedTuple):
    """One put-down the heuristic considers, with what it changes."""

    card: int
    discard: bool
    value_change: float
    """Change of the mover's estimated end-of-round value (its suit only)."""
    plays_change: float
    """Change of the mover's expected number of plays still to make."""
    feed: float
    """For a discard: minus what it hands the opponent, plus what covering
    the pile's old top card keeps from it (0 for a play)."""


class TurnScorer:
    """The greedy heuristic's estimates for the player to move in one position.

    Built once per position, it holds the mover's expeditions and hand as
    suit masks, the cards it has not seen, how many put-downs it has left,
    and each expedition's estimated end-of-round value before the turn
    (:func:`suit_value`). A turn's score is the change of the total value
    less the cost of planned plays beyond the turns left
    (:meth:`net`), plus what a discard hands the opponent
    (:meth:`worth_to_opponent`), plus the worth of the draw: a random deck
    card (:meth:`deck_draw_gain`) or a pile card, which also shifts who gets
    one more turn (:meth:`pile_draw_shift`).
    """

    __slots__ = (
        "_deck_gain",
        "_pile_shift",
        "arrival",
        "base_overflow",
        "base_plays",
        "base_values",
        "counts",
        "deck",
        "levels",
        "masks",
        "mover",
        "opp_can_use",
        "opp_counts",
        "opp_levels",
        "opp_wagers",
        "overflow_cost",
        "piles",
        "sim",
        "slack",
        "suit_count",
        "sums",
        "taken",
        "turns",
        "unseen",
        "unseen_total",
        "wagers",
        "weights",
    )

    def __init__(self, sim: Sim, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.sim = sim
        self.weights = weights
        mover = self.mover = sim.to_move
        rival = 1 - mover
        n = self.suit_count = sim.suit_count
        self.levels, self.sums = sim.levels[mover], sim.sums[mover]
        self.wagers, self.counts = sim.wagers[mover], sim.counts[mover]
        self.opp_levels, self.opp_wagers = sim.levels[rival], sim.wagers[rival]
        self.opp_counts = sim.counts[rival]
        self.taken = sim.taken[mover]
        self.piles = sim.piles
        masks = self.masks = [0] * n
        for cid in sim.hands[mover]:
            masks[SUIT_OF[cid]] |= BIT_OF[cid]
        # The opponent's cards that were taken from piles are known to it.
        rival_known = sim.taken[rival]
        board = sim.board
        self.unseen = [SUIT_MASK & ~board[s] & ~masks[s] & ~rival_known[s] for s in range(n)]
        deck = self.deck = sim.deck_size
        turns = self.turns = (deck - 1) // 2  # the mover's put-downs after this turn
        self.unseen_total = max(
            1, deck + len(sim.hands[rival]) - sum(COUNT[k] for k in rival_known)
        )
        self.arrival = weights.arrival_share * turns / self.unseen_total
        self.overflow_cost = weights.overflow
        self.base_values = [0.0] * n
        self.base_plays = [0.0] * n
        for s in range(n):
            self.base_values[s], self.base_plays[s] = suit_value(
                self.levels[s],
                self.sums[s],
                self.wagers[s],
                self.counts[s],
                masks[s],
                self.unseen[s],
                turns,
                self.arrival,
            )
        # Scores are the value after the turn less the value before it;
        # planned plays beyond the turns left cost overflow_cost each.
        self.slack = turns - sum(self.base_plays)
        self.base_overflow = -self.overflow_cost * self.slack if self.slack < 0.0 else 0.0
        self.opp_can_use = deck // 2 >= 2  # one turn to take a fed card, one to play it
        self._pile_shift: float | None = None
        self._deck_gain: float | None = None

    # ------------------------------------------------------------ the parts

    def change(
        self, s: int, level: int, number_sum: int, wager_count: int, count: int, hand_mask: int
    ) -> tuple[float, float]:
        """Value and plays change of suit ``s`` if its expedition and the
        mover's cards of the suit become these."""
        value, plays = suit_value(
            level,
            number_sum,
            wager_count,
            count,
            hand_mask,
            self.unseen[s],
            self.turns,
            self.arrival,
        )
        return value - self.base_values[s], plays - self.base_plays[s]

    def net(self, value_change: float, plays_change: float) -> float:
        """A value change less the cost of the plays it adds beyond the turns left."""
        over = plays_change - self.slack
        return value_change - self.overflow_cost * over if over > 0.0 else value_change

    def worth_to_opponent(self, cid: int) -> float:
        """What card ``cid`` would be worth to the opponent if it got it."""
        s = SUIT_OF[cid]
        if self.opp_levels[s] >= THRESHOLD[cid]:
            return 0.0
        rank = RANK_OF[cid]
        if rank == 0:
            return self.weights.feed_wager if self.opp_counts[s] else 0.0
        if not self.opp_counts[s]:
            return self.weights.feed_unstarted * rank
        return float(rank * (1 + self.opp_wagers[s]))

    def pile_draw_shift(self) -> float:
        """What drawing from a pile rather than the deck is worth for the turn
        count alone. A pile draw leaves the deck as it is: on an odd deck the
        opponent gets one more turn, on an even one the mover, worth revaluing
        its hand with one more turn and one more draw."""
        if self._pile_shift is None:
            self._pile_shift = self._compute_pile_draw_shift()
        return self._pile_shift

    def _compute_pile_draw_shift(self) -> float:
        weights = self.weights
        if self.deck % 2 == 1:
            return -weights.pile_draw_margin - weights.opponent_turn
        longer = self.turns + 1
        more = weights.arrival_share * longer / self.unseen_total
        value = 0.0
        plays = 0.0
        levels, sums, wagers, counts = self.levels, self.sums, self.wagers, self.counts
        for s in range(self.suit_count):
            v, pl = suit_value(
                levels[s],
                sums[s],
                wagers[s],
                counts[s],
                self.masks[s],
                self.unseen[s],
                longer,
                more,
            )
            value += v - self.base_values[s]
            plays += pl - self.base_plays[s]
        over = plays - self.slack - 1
        gain = value - (self.overflow_cost * over if over > 0.0 else 0.0) + self.base_overflow
        return gain - weights.pile_draw_margin

    def deck_draw_gain(self) -> float:
        """The average worth of a card from the deck, from the median live
        unseen card of each suit."""
        if self._deck_gain is None:
            self._deck_gain = self._compute_deck_draw_gain()
        return self._deck_gain

    def _compute_deck_draw_gain(self) -> float:
        gain = 0.0
        levels, sums, wagers, counts = self.levels, self.sums, self.wagers, self.counts
        for s in range(self.suit_count):
            unseen = self.unseen[s]
            live = unseen & PLAYABLE[levels[s]]
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
                self.masks[s] | bit,
                unseen & ~bit,
                self.turns,
                self.arrival,
            )
            gain += (
                self.net(v - self.base_values[s], pl - self.base_plays[s]) + self.base_overflow
            ) * COUNT[live]
        return gain / self.unseen_total

    # ------------------------------------------------------------ put-downs

    def put_downs(self, all_plays: bool) -> tuple[list[PutDownEstimate], int]:
        """The put-downs the heuristic considers, and the index of the best
        one with a deck draw (the first of equal ones in hand order).

        With ``all_plays`` False, a play is tried only for the lowest
        playable card of each suit (and the lowest number after wagers):
        skipping one's own cards is rarely right. The commitment rule is
        kept; only a hand that already breaks it (a simulated opponent that
        took cards it cannot play) may need to drop it.
        """
        hand = self.sim.hands[self.mover]
        levels, sums, wagers, counts = self.levels, self.sums, self.wagers, self.counts
        masks, taken, piles = self.masks, self.taken, self.piles
        feed, cover = self.weights.feed, self.weights.cover
        opp_can_use = self.opp_can_use
        change, net, worth = self.change, self.net, self.worth_to_opponent
        estimates: list[PutDownEstimate] = []
        best_score = -1e18
        best = 0
        for keep in (True, False):
            for cid in hand:
                s = SUIT_OF[cid]
                bit = BIT_OF[cid]
                level = levels[s]
                alive = level < THRESHOLD[cid]
                if not (keep and taken[s] & bit):
                    fed = 0.0
                    if opp_can_use:
                        fed = -feed * worth(cid)
                        if piles[s]:
                            fed += cover * worth(piles[s][-1])
                    # A card that no longer fits changes no estimate.
                    dv, dp = (
                        change(s, level, sums[s], wagers[s], counts[s], masks[s] & ~bit)
                        if alive
                        else (0.0, 0.0)
                    )
                    score = net(dv, dp) + fed
                    if score > best_score:
                        best_score, best = score, len(estimates)
                    estimates.append(PutDownEstimate(cid, True, dv, dp, fed))
                if not alive:
                    continue
                rank = RANK_OF[cid]
                if keep and rank and taken[s] & (bit - 1) & PLAYABLE[level]:
                    continue  # it would make a card taken from a pile unplayable
                if not all_plays:
                    below = masks[s] & PLAYABLE[level] & (bit - 1)
                    if below and (bit <= WAGER_MASK or below & NUMBER_MASK):
                        continue  # a lower card of this suit comes first
                dv, dp = change(
                    s,
                    LEVEL_AFTER[cid],
                    sums[s] + rank,
                    wagers[s] + (rank == 0),
                    counts[s] + 1,
                    masks[s] & ~bit,
                )
                score = net(dv, dp)
                if score > best_score:
                    best_score, best = score, len(estimates)
                estimates.append(PutDownEstimate(cid, False, dv, dp, 0.0))
            if estimates:
                break
        return estimates, best

    # ------------------------------------------------------------ whole turns

    def pile_draws(
        self, put_downs: list[PutDownEstimate]
    ) -> Iterator[tuple[float, int, bool, int]]:
        """Each put-down with each pile draw the heuristic allows (a top card
        the mover can then play), scored: ``(score, card, discard, pile)``."""
        levels, sums, wagers, counts, masks = (
            self.levels,
            self.sums,
            self.wagers,
            self.counts,
            self.masks,
        )
        net = self.net
        for pile in range(self.suit_count):
            if not self.piles[pile]:
                continue
            top = self.piles[pile][-1]
            top_bit = BIT_OF[top]
            # The drawn card's suit alone changes the same way after any
            # put-down of another suit.
            fits = levels[pile] < THRESHOLD[top]
            if fits:
                draw_dv, draw_dp = self.change(
                    pile,
                    levels[pile],
                    sums[pile],
                    wagers[pile],
                    counts[pile],
                    masks[pile] | top_bit,
                )
            elif all(SUIT_OF[est.card] != pile for est in put_downs):
                continue
            shift = self.pile_draw_shift() + (
                self.weights.deny * self.worth_to_opponent(top) if self.opp_can_use else 0.0
            )
            for cid, discard, dv, dp, fed in put_downs:
                if SUIT_OF[cid] == pile:
                    if discard or LEVEL_AFTER[cid] >= THRESHOLD[top]:
                        continue  # can't draw back its discard; only cards it can play
                    rank = RANK_OF[cid]
                    turn_dv, turn_dp = self.change(
                        pile,
                        LEVEL_AFTER[cid],
                        sums[pile] + rank,
                        wagers[pile] + (rank == 0),
                        counts[pile] + 1,
                        (masks[pile] & ~BIT_OF[cid]) | top_bit,
                    )
                elif fits:
                    turn_dv, turn_dp = dv + draw_dv, dp + draw_dp
                else:
                    continue
                yield net(turn_dv, turn_dp) + fed + shift, cid, discard, pile

    def best_turn(self) -> SimTurn:
        """The heuristic's turn: the best put-down with a deck draw, unless
        that put-down (or another) with a pile draw scores higher."""
        put_downs, best = self.put_downs(all_plays=False)
        cid, discard, dv, dp, fed = put_downs[best]
        best_turn: SimTurn = (cid, discard, NO_DRAW_PILE)
        best_score: float | None = None
        for score, cid, discard, pile in self.pile_draws(put_downs):
            if best_score is None:
                best_score = self.net(dv, dp) + fed + self.deck_draw_gain()
            if score > best_score:
                best_score, best_turn = score, (cid, discard, pile)
        return best_turn

    def ranked_turns(self) -> list[ScoredTurn]:
        """Every turn the heuristic may make, scored (see :func:`rank_turns`)."""
        put_downs, _ = self.put_downs(all_plays=True)
        gain = self.deck_draw_gain()
        ranked: list[ScoredTurn] = [
            (self.net(dv, dp) + fed + gain, cid, discard, NO_DRAW_PILE)
            for cid, discard, dv, dp, fed in put_downs
        ]
        ranked.extend(self.pile_draws(put_downs))
        return ranked


def policy_turn(sim: Sim, weights: Weights = DEFAULT_WEIGHTS) -> SimTurn:
    """The heuristic's turn for the player to move (the greedy bot's turn).

    See :func:`rank_turns` for what it estimates. To be fast it tries as a
    play only the lowest playable card of each suit (and the lowest number
    after wagers): skipping one's own cards is rarely right. It picks the
    best put-down with a draw from the deck, then tries that put-down with
    each pile whose top card it can play. Deterministic: on equal scores the
    first candidate in hand order wins.
    """
    return TurnScorer(sim, weights).best_turn()


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
    return TurnScorer(sim, weights).ranked_turns()


def rollout(
    sim: Sim,
    max_turns: int,
    weights: Weights = DEFAULT_WEIGHTS,
    by_seat: tuple[Weights, Weights] | None = None,
) -> int:
    """Play :func:`policy_turn` for both players for at most ``max_turns``
    turns (to the end of the round if it comes first); returns the turns
    played. Both play with ``weights``, or with seat 0's and seat 1's own
    numbers if ``by_seat`` gives them."""
    seats = by_seat or (weights, weights)
    played = 0
    while sim.deck_size and played < max_turns:
        sim.apply(TurnScorer(sim, seats[sim.to_move]).best_turn())
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


def deal_values(
    sim: Sim,
    turns: Sequence[SimTurn],
    p: int,
    depth: int,
    weights: Weights = DEFAULT_WEIGHTS,
    opponent: Weights | None = None,
) -> list[float]:
    """Each of ``turns`` made in the sampled deal ``sim`` (left unchanged),
    followed by a :func:`rollout` of ``depth`` turns, then :func:`evaluate`d
    for player ``p``: the turns compared on the same deal. In the rollouts
    the other player plays with ``opponent``'s numbers if given, else with
    ``weights`` like ``p``."""
    values = []
    by_seat = None
    if opponent is not None:
        by_seat = (weights, opponent) if p == 0 else (opponent, weights)
    for turn in turns:
        played = sim.copy()
        played.apply(turn)
        rollout(played, depth, weights, by_seat)
        values.append(evaluate(played, p, weights))
    return values
