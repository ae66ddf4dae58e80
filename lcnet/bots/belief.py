"""What the opponent's hidden cards are likely to be, from its turns so far.

A particle filter over the opponent's hidden hand (the cards it did not take
from a discard pile; those are public). Each particle is one guess of the
hidden cards. Between two views the bot moves in, the opponent makes one
turn (:func:`opponent_turn` reads it from the two views; when the
opponent opened the round, :func:`opening_turn` reads its first turn from
the bot's first view, from guesses of the hand it was dealt). Every guess is
weighed by whether the heuristic (:func:`~lcnet.bots.policy.policy_turn`),
holding it, would have made that turn, and then moved on as the turn says:

* the card put down leaves it (a guess without it gets it in place of one
  of its cards at random: among uniform guesses, that is a uniform guess
  among those that hold it);
* a card drawn from the deck is a random one of the cards neither seen nor
  guessed;
* a card the bot itself drew from the deck cannot be in the opponent's hand
  (a guess holding it gets another unseen card instead).

A turn the heuristic would not have made costs a guess a factor ``miss``
(:data:`MISS`, not all: the opponent is a player, not the heuristic). When
the weights grow too uneven, the guesses are drawn afresh by weight.

Against the heuristic itself the true hand explains every turn (tests), and
the guesses hold 1.2 to 1.5 times as many of the real hidden cards as
uniform ones; against other styles, whose turns the heuristic explains less
well, 1.0 to 1.2 times (docs/experiments/2026-12-02-belief.md). The hard
search samples the opponent's hand from them from the first turn
(:data:`~lcnet.bots.mcts.BELIEF_DRAW_PILE`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final, NamedTuple

from lcnet.bots.policy import DEFAULT_WEIGHTS, Weights, policy_turn
from lcnet.bots.sim import Sim, SimTurn, table_sim
from lcnet.game.cards import HAND_SIZE, SUIT_OF, Card, deck_size
from lcnet.game.engine import View

PARTICLES: Final = 400
"""Guesses kept of the opponent's hidden hand (about 20 ms a turn to weigh)."""
MISS: Final = 0.01
"""The weight, relative to 1, of a guess with which the heuristic would have
made another turn than the opponent did."""


def _ids(cards: Iterable[Card]) -> set[int]:
    return {c.id for c in cards}


class OpponentTurn(NamedTuple):
    """The opponent's turn between two of the bot's views, and the table
    before it."""

    turn: SimTurn
    """(card, discard, draw): ``draw`` is -1 for the deck, else the pile's suit."""
    hidden: bool
    """Whether the card put down was hidden (not taken from a pile earlier)."""
    own_deck_card: int | None
    """The card the bot drew from the deck in its own turn before, if it did."""
    before: Sim
    """The table as the opponent saw it, its hand holding only its public
    cards (a guess of the hidden ones is added to weigh it)."""


def opponent_turn(last: View, now: View) -> OpponentTurn | None:
    """The opponent's turn between the bot's views ``last`` and ``now`` (the
    bot's own turn came between them too); None unless ``now`` follows
    ``last`` by exactly those two turns."""
    if now.seat != last.seat or now.draw_pile_size > last.draw_pile_size:
        return None
    unseen_last = _ids(last.unseen_cards())
    unseen_now = _ids(now.unseen_cards())
    mine_now = _ids(now.hand)
    known_last, known_now = _ids(last.opponent_known), _ids(now.opponent_known)
    drawn = mine_now - _ids(last.hand)
    revealed = unseen_last - unseen_now - mine_now
    played_known = known_last - known_now
    taken = known_now - known_last
    if len(revealed) + len(played_known) != 1 or len(drawn) != 1 or len(taken) > 1:
        return None
    card = next(iter(revealed or played_known))
    other = now.opponent
    suit = SUIT_OF[card]
    discard = card not in _ids(now.expeditions[other][suit])
    draw = SUIT_OF[next(iter(taken))] if taken else -1
    own = next(iter(drawn & unseen_last), None)  # the bot's own draw, if from the deck
    if now.draw_pile_size != last.draw_pile_size - (own is not None) - (draw < 0):
        return None

    # The table before the opponent's turn: now, with that turn undone.
    expeditions = [[[c.id for c in exp] for exp in side] for side in now.expeditions]
    if not discard:
        if expeditions[other][suit][-1] != card:
            return None
        expeditions[other][suit].pop()
    piles = [[c.id for c in pile] for pile in now.discard_piles]
    if discard:
        if not piles[suit] or piles[suit][-1] != card:
            return None
        piles[suit].pop()
    if draw >= 0:
        piles[draw].append(next(iter(taken)))
    hands: list[list[int]] = [[], []]
    hands[now.seat] = [c.id for c in now.hand]
    hands[other] = sorted(known_last)
    holds: list[list[int]] = [[], []]
    holds[now.seat] = [c.id for c in now.hand_public]
    holds[other] = sorted(known_last)
    sim = table_sim(now.suit_count, other, hands, expeditions, piles, holds)
    sim.deck_size = now.draw_pile_size + (draw < 0)
    return OpponentTurn((card, discard, draw), card in revealed, own, sim)


def opening_turn(view: View) -> OpponentTurn | None:
    """The opponent's first turn of the round, read from the bot's first view
    of it when the opponent moved first: one card of the opponent's on the
    table (played or discarded), no card of the bot's, the draw pile one card
    short of the deal (its first draw can only be from the deck: the one
    pile card is the one it just discarded). None for any other view."""
    other = view.opponent
    played = [exp[-1].id for exp in view.expeditions[other] if exp]
    discarded = [pile[-1].id for pile in view.discard_piles if pile]
    table = sum(len(exp) for side in view.expeditions for exp in side)
    table += sum(len(pile) for pile in view.discard_piles)
    dealt = deck_size(view.suit_count) - 2 * HAND_SIZE
    if (
        table != 1
        or view.draw_pile_size != dealt - 1
        or view.opponent_known
        or len(view.hand) != HAND_SIZE
        or view.opponent_hand_size != HAND_SIZE
    ):
        return None
    card = (played or discarded)[0]
    empty: list[list[list[int]]] = [[[] for _ in range(view.suit_count)] for _ in range(2)]
    hands: list[list[int]] = [[], []]
    hands[view.seat] = [c.id for c in view.hand]
    sim = table_sim(
        view.suit_count, other, hands, empty, [[] for _ in range(view.suit_count)], [[], []]
    )
    sim.deck_size = dealt
    return OpponentTurn((card, not played, -1), True, None, sim)


class HandBelief:
    """Weighted guesses of the opponent's hidden hand, kept up to date by
    :meth:`observe` with every view the bot moves in."""

    def __init__(
        self,
        rng: random.Random,
        particles: int = PARTICLES,
        miss: float = MISS,
        weights: Weights = DEFAULT_WEIGHTS,
    ) -> None:
        self._rng = rng
        self.size = particles
        self.miss = miss
        self.weights = weights
        self.hands: list[list[int]] = []
        """The guesses: each the opponent's hidden cards."""
        self.odds: list[float] = []
        """Their weights (summing to 1)."""
        self._last: View | None = None

    def observe(self, view: View) -> None:
        """Weigh the guesses by the opponent's turn since the last view; from
        uniform guesses at the first view of a round (or one that does not
        follow the last), weighed by the opponent's first turn if it opened
        the round."""
        if view == self._last:
            return
        last, self._last = self._last, view
        turn = None if last is None else opponent_turn(last, view)
        if turn is not None and self._follow(turn, view):
            return
        unseen = [c.id for c in view.unseen_cards()]
        hidden = view.opponent_hand_size - len(view.opponent_known)
        opening = opening_turn(view)
        if opening is not None:
            # Uniform guesses of the hand it was dealt (it holds as many
            # hidden cards now), weighed by its first turn.
            self._uniform([*unseen, opening.turn[0]], hidden)
            if self._follow(opening, view):
                return
        self._uniform(unseen, hidden)

    def _uniform(self, pool: list[int], hidden: int) -> None:
        self.hands = [self._rng.sample(pool, hidden) for _ in range(self.size)]
        self.odds = [1.0 / self.size] * self.size

    def _follow(self, seen: OpponentTurn, now: View) -> bool:
        """Weigh and move on every guess; False if they no longer fit ``now``."""
        rng = self._rng
        card, _, draw = seen.turn
        other = now.opponent
        unseen_now = _ids(now.unseen_cards())
        pool = sorted(unseen_now | {card} if seen.hidden else unseen_now)
        for i, hand in enumerate(self.hands):
            if seen.own_deck_card in hand:
                held = set(hand)
                hand[hand.index(seen.own_deck_card)] = rng.choice(
                    [cid for cid in pool if cid not in held]
                )
            if seen.hidden and card not in hand:
                hand[rng.randrange(len(hand))] = card
            sim = seen.before.copy()
            # In id order, as in the opponent's own view of its hand (the
            # heuristic breaks ties by hand order).
            sim.hands[other] = sorted(sim.hands[other] + hand)
            if policy_turn(sim, self.weights) != seen.turn:
                self.odds[i] *= self.miss
            if seen.hidden:
                hand.remove(card)
            if draw < 0:
                held = set(hand)
                hand.append(rng.choice([cid for cid in pool if cid not in held and cid != card]))
        total = sum(self.odds)
        if total <= 0.0:
            return False
        self.odds = [w / total for w in self.odds]
        if 1.0 / sum(w * w for w in self.odds) < self.size / 2:
            picks = rng.choices(range(self.size), weights=self.odds, k=self.size)
            self.hands = [self.hands[i][:] for i in picks]
            self.odds = [1.0 / self.size] * self.size
        hidden = now.opponent_hand_size - len(now.opponent_known)
        return all(len(h) == hidden and set(h) <= unseen_now for h in self.hands)

    def guess(self, rng: random.Random) -> list[int]:
        """One guess of the hidden cards, drawn by weight (a fresh list)."""
        (hand,) = rng.choices(self.hands, weights=self.odds)
        return hand[:]
