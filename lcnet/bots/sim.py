"""The bots' simulator: a lean full-information round on card ids and suit masks.

The engine's public API works with :class:`~lcnet.game.cards.Card` objects, which
is right for callers but too slow for the inner loop of a search. This
module works on card ids and on *suit masks*: the 12 cards of one suit as
the bits of an int (bit ``slot`` with the slot numbering of
:mod:`lcnet.game.cards`: slots 0-2 are the wagers, slot ``rank + 1`` is the
number ``rank``). Precomputed tables give a mask's number sum, card count or
wager count in one lookup.

It holds the mask tables, :class:`Sim` (a round that a search copies and
plays forward) and :class:`Determinizer`, which builds Sims consistent with
a :class:`~lcnet.game.engine.View` (never from hidden information). The policy
that plays in it is :mod:`lcnet.bots.policy`.

It changes nothing in :mod:`lcnet.game.engine` and reads no private state of it.
"""

from __future__ import annotations

import random
from typing import Final, TypeAlias

from lcnet.game.cards import (
    ALL_CARDS,
    CARDS_PER_SUIT,
    LEVEL_AFTER,
    RANK_OF,
    SUIT_OF,
    WAGER_COPIES,
    sort_hand,
)
from lcnet.game.engine import BONUS, BONUS_LENGTH, DRAWS, EXPEDITION_COST, PUT_DOWNS, Turn, View

# The per-card tables SUIT_OF, RANK_OF, LEVEL_AFTER and THRESHOLD are the
# engine's (lcnet.game.cards); only the bit of a card in its suit mask is ours.
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


NO_DRAW_PILE: Final = -1
"""The ``draw`` of a turn that draws from the draw pile (otherwise a suit)."""

SimTurn: TypeAlias = tuple[int, bool, int]
"""A whole turn: ``(card id, discard?, draw)``, ``draw`` a suit or ``NO_DRAW_PILE``."""


def to_turn(sim_turn: SimTurn) -> Turn:
    """The engine's :class:`~lcnet.game.engine.Turn` for a simulator's turn."""
    cid, discard, draw = sim_turn
    return Turn(PUT_DOWNS[cid * 2 + discard], DRAWS[draw + 1])


def from_turn(turn: Turn) -> SimTurn:
    """The simulator's form of an engine :class:`~lcnet.game.engine.Turn`."""
    draw = NO_DRAW_PILE if turn.draw.suit is None else int(turn.draw.suit)
    return (turn.put_down.card.id, turn.put_down.discard, draw)


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


def table_sim(
    suit_count: int,
    to_move: int,
    hands: list[list[int]],
    expeditions: list[list[list[int]]],
    piles: list[list[int]],
    taken: list[list[int]],
) -> Sim:
    """A :class:`Sim` of a table given by card ids: each player's hand,
    expeditions (per player, per suit, in the order played), the discard
    piles (bottom first) and the hand cards each player took from a pile.
    The draw pile is left empty."""
    sim = Sim(suit_count)
    sim.to_move = to_move
    sim.hands = hands
    for who in (0, 1):
        for exp in expeditions[who]:
            for cid in exp:
                sim.play_card(who, cid)
        for cid in taken[who]:
            sim.taken[who][SUIT_OF[cid]] |= BIT_OF[cid]
    for s, pile in enumerate(piles):
        sim.piles[s] = pile
        for cid in pile:
            sim.board[s] |= BIT_OF[cid]
    return sim


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
        self.known = [c.id for c in sort_hand(view.opponent_known)]
        hands: list[list[int]] = [[], []]
        hands[me] = [c.id for c in view.hand]
        hands[other] = self.known[:]
        taken: list[list[int]] = [[], []]
        taken[me] = [c.id for c in view.hand_public]
        taken[other] = self.known
        self.template = table_sim(
            view.suit_count,
            view.to_move,
            hands,
            [[[c.id for c in exp] for exp in side] for side in view.expeditions],
            [[c.id for c in pile] for pile in view.discard_piles],
            taken,
        )
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

    def with_hidden(self, hidden: list[int], rng: random.Random) -> Sim:
        """A round in which the opponent's hidden cards are ``hidden`` (a
        guess of them, as many as it holds, all unseen) and the draw pile is
        the other unseen cards, shuffled."""
        chosen = set(hidden)
        rest = [cid for cid in self.unseen if cid not in chosen]
        rng.shuffle(rest)
        return self._with(hidden + rest)

    def canonical(self) -> Sim:
        """A round consistent with the view, with the unseen cards in id order."""
        return self._with(self.unseen)
