"""``rival``: a one-ply greedy player with its own evaluation, held out of tuning.

It tries every turn that keeps its commitments (each put-down with the draw
pile and with every pile card it could play) and keeps the one after which
its *outlook* is best: the sum over suits of what each of its expeditions
is expected to be worth at the end of the round, minus what a discard hands
the opponent, plus a little for a pile card taken from under the
opponent's nose. The formula is its own, written from the scoring rule; it
shares no code or numbers with ``lcnet/bots/policy.py``.

**Held out.** ``rival`` is a referee, not a sparring partner: no number of
any built-in bot may be tuned against it (docs/BOTS.md, "The panel"), so
that a gain measured against it is a gain against a player nobody fitted.

An expedition's expected worth, for each suit:

* the cards on the table count in full;
* the cards in hand that fit count at :data:`HAND_TRUST`, scaled down when
  the cards it holds to play outnumber the turns it has left;
* each unseen number card above the expedition's top counts with the chance
  that it reaches this seat in time: its share of the unseen cards it will
  still draw, times :data:`ARRIVAL_TRUST`;
* then ``(points - 20) * (1 + wagers)``, plus 20 if the cards would reach 8;
  an expedition not yet started is worth at least 0 (it need never open).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from lcnet.bots.panel.basics import Member, allowed_put_downs, started, takeable
from lcnet.game.cards import Card, Suit
from lcnet.game.engine import Draw, PutDown, Turn, View

HAND_TRUST: Final = 0.85
"""A card in hand is not yet on the table: it may never find the turn to be played."""
ARRIVAL_TRUST: Final = 0.5
"""Of an unseen card it may draw, how much it counts on playing it (order, timing)."""
GIFT_STARTED: Final = 0.8
"""Share of a discard's points it charges when the opponent's expedition takes it."""
GIFT_UNSTARTED: Final = 0.25
"""The same when the opponent has not started that suit (it may never)."""
GIFT_WAGER: Final = 6.0
"""A discarded wager that still fits the opponent's expedition."""
DENIAL: Final = 0.25
"""Share of a pile card's points credited for keeping it from the opponent."""
EXPEDITION_COST: Final = 20
BONUS_CARDS: Final = 8
BONUS: Final = 20


@dataclass(frozen=True)
class _Table:
    """One suit of this seat after a candidate turn."""

    points: int
    wagers: int
    cards: int
    level: int

    def plus(self, card: Card) -> _Table:
        """The expedition with ``card`` played on it."""
        level = 1 if card.is_wager else card.rank
        return _Table(self.points + card.rank, self.wagers + card.is_wager, self.cards + 1, level)


class Rival(Member):
    """Plays the turn after which its own estimate of its final score is best."""

    name = "rival"

    def choose_turn(self, view: View) -> Turn:
        outlook = _Outlook(view)
        best: tuple[float, Turn] | None = None
        for put_down in allowed_put_downs(view):
            options: list[Card | None] = [None] if view.draw_pile_size else []
            options.extend(takeable(view, put_down))
            for taken in options:
                value = outlook.after(put_down, taken)
                # Ties go to the first found: the draw pile before a pile card.
                if best is None or value > best[0] + 1e-9:
                    best = (value, Turn(put_down, Draw(None if taken is None else taken.suit)))
        if best is None:  # no draw pile and nothing to take: the round is over anyway
            put_down = view.legal_put_downs()[0]
            return Turn(put_down, view.legal_draws(put_down)[0])
        return best[1]

    def put_down(self, view: View, allowed: list[PutDown]) -> PutDown:
        return self.choose_turn(view).put_down


class _Prospect(NamedTuple):
    """One suit of this seat after a candidate turn: the table, and what may join it."""

    table: _Table
    held_points: int
    """Points of the number cards in hand that fit."""
    held_cards: int
    held_wagers: int
    arriving_points: int
    """Points of the unseen number cards above the expedition's top."""
    arriving_cards: int


class _Outlook:
    """The rival's estimate of its final score after each candidate turn in one view."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.suits = view.suits
        unseen = view.unseen_cards()
        self.coming = {
            s: [c.rank for c in unseen if c.suit == s and not c.is_wager] for s in self.suits
        }
        # Its draws still to come, the same for every candidate: a pile draw
        # leaves the draw pile as it is, but what that extra turn is worth to
        # each side is not this estimate's business (it would make every pile
        # card look like a gain).
        self.my_draws = max(0, view.draw_pile_size - 1) // 2
        self.arrival = ARRIVAL_TRUST * self.my_draws / len(unseen) if unseen else 0.0
        self.tables = {s: _table(view.expeditions[view.seat][s]) for s in self.suits}
        self.hands = {s: [c for c in view.hand if c.suit == s] for s in self.suits}
        self.prospects = {s: self._prospect(s, self.tables[s], self.hands[s]) for s in self.suits}
        self.to_play = sum(p.held_cards for p in self.prospects.values())
        self._worths: dict[tuple[float, frozenset[Suit]], float] = {}

    def _unchanged_worth(self, trust: float, changed: frozenset[Suit]) -> float:
        """The worth of the suits a turn leaves alone (the same for many turns)."""
        key = (trust, changed)
        if key not in self._worths:
            self._worths[key] = sum(
                self._worth(p, trust) for s, p in self.prospects.items() if s not in changed
            )
        return self._worths[key]

    def after(self, put_down: PutDown, taken: Card | None) -> float:
        """The estimate after ``put_down`` and drawing ``taken`` (None: the draw pile)."""
        card = put_down.card
        changed: dict[Suit, _Prospect] = {}
        for suit in {card.suit} | ({taken.suit} if taken is not None else set()):
            table = self.tables[suit]
            if suit == card.suit and not put_down.discard:
                table = table.plus(card)
            hand = [c for c in self.hands[suit] if c != card]
            if taken is not None and taken.suit == suit:
                hand.append(taken)
            changed[suit] = self._prospect(suit, table, hand)
        to_play = self.to_play + sum(
            p.held_cards - self.prospects[s].held_cards for s, p in changed.items()
        )
        time_share = min(1.0, self.my_draws / to_play) if to_play else 1.0
        trust = HAND_TRUST * time_share
        value = self._unchanged_worth(trust, frozenset(changed))
        value += sum(self._worth(p, trust) for p in changed.values())
        if put_down.discard:
            value -= _gift(self.view, card)
        if taken is not None and self.view.can_play(taken, self.view.opponent):
            value += DENIAL * taken.rank
        return value

    def _prospect(self, suit: Suit, table: _Table, hand: list[Card]) -> _Prospect:
        fitting = [c for c in hand if table.level < (2 if c.is_wager else c.rank)]
        numbers = [c.rank for c in fitting if not c.is_wager]
        floor = max(table.level, 1)
        arriving = [rank for rank in self.coming[suit] if rank > floor]
        return _Prospect(
            table,
            sum(numbers),
            len(fitting),
            len(fitting) - len(numbers),
            sum(arriving),
            len(arriving),
        )

    def _worth(self, prospect: _Prospect, trust: float) -> float:
        """An expedition's expected worth at the end of the round."""
        table = prospect.table
        arrival = self.arrival
        points = table.points + trust * prospect.held_points + arrival * prospect.arriving_points
        wagers = table.wagers + trust * prospect.held_wagers
        cards = table.cards + trust * prospect.held_cards + arrival * prospect.arriving_cards
        worth = (points - EXPEDITION_COST) * (1 + wagers)
        if cards >= BONUS_CARDS:
            worth += BONUS
        return worth if table.cards else max(0.0, worth)


def _table(cards: Sequence[Card]) -> _Table:
    top = max((c.rank for c in cards), default=0)
    return _Table(
        sum(c.rank for c in cards),
        sum(c.is_wager for c in cards),
        len(cards),
        top if top else (1 if cards else 0),
    )


def _gift(view: View, card: Card) -> float:
    """What discarding ``card`` may hand the opponent."""
    other = view.opponent
    if not view.can_play(card, other):
        return 0.0
    if card.is_wager:
        return GIFT_WAGER
    if not started(view, card.suit, other):
        return GIFT_UNSTARTED * card.rank
    wagers = sum(c.is_wager for c in view.expeditions[other][card.suit])
    return GIFT_STARTED * card.rank * (1 + wagers)
