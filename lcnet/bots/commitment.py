"""The rule that makes every match between built-in bots end.

The rules allow endless play: two players can pass cards through the
discard piles forever without touching the draw pile. Built-in bots (all but
``random``, which is uniform by definition and stalls with probability 0)
keep one invariant instead: **a card a bot took from a discard pile is
committed to its expedition.** Concretely, a bot

1. draws from a discard pile only a card it can play on its own expedition;
2. never discards such a card (the view calls them ``hand_public``);
3. never plays a card above a committed card of the same suit, which would
   make the committed card unplayable.

Every committed card stays playable, so a turn that keeps the rule always
exists (play the lowest committed card of a suit). A card taken from a pile
never returns to a pile, so a bot draws from the piles at most once per card
per round, and all its other turns draw from the draw pile: the round ends.

A bot may also *stall* (``committed_turns(view, stalls=True)``, the hard
bot late in the round): take a pile card it cannot play, to give both
players one more turn before the draw pile runs out. Such a card is
committed too (never discarded, so it never returns to a pile and the
argument above holds) but *dead*: it can never be played, so it bars no
play of its suit (rule 3 counts only the committed cards that can still be
played). A bot stalls only while at least one card of its hand is not
dead, so a turn that keeps the rule still always exists (discard a card
that is not committed, or play the lowest committed card that can be).
"""

from __future__ import annotations

from lcnet.game.cards import HAND_SIZE
from lcnet.game.engine import Draw, PutDown, Turn, View


def put_down_keeps_commitments(view: View, put_down: PutDown) -> bool:
    card = put_down.card
    if put_down.discard:
        return card not in view.hand_public
    # A wager has rank 0, so this also keeps committed wagers playable.
    return not any(
        c.suit == card.suit and c.rank < card.rank and view.can_play(c) for c in view.hand_public
    )


def draw_keeps_commitments(view: View, put_down: PutDown, draw: Draw) -> bool:
    """Whether ``draw`` after ``put_down`` takes only a pile card the bot can
    play (or any card from the draw pile)."""
    if draw.suit is None:
        return True
    pile = view.discard_piles[draw.suit]
    top = pile[-1] if pile else None
    if top is None:
        return False
    if not put_down.discard and put_down.card.suit == top.suit:
        # The put-down changes the expedition this card would go on.
        return put_down.card.rank < top.rank or (top.is_wager and put_down.card.is_wager)
    return view.can_play(top)


def dead_cards(view: View) -> int:
    """The committed cards in hand that can no longer be played (taken to stall)."""
    return sum(not view.can_play(c) for c in view.hand_public)


def is_stall(view: View, turn: Turn) -> bool:
    """Whether ``turn`` takes a pile card the bot cannot play (a stall)."""
    return turn.draw.suit is not None and not draw_keeps_commitments(view, turn.put_down, turn.draw)


def committed_turns(view: View, *, stalls: bool = False) -> list[Turn]:
    """The legal turns that keep the commitment rule (never empty when the
    invariant holds; if a bot takes over a hand that breaks it, all legal
    turns are returned so that the bot can still move). With ``stalls``,
    also the turns that take a pile card the bot cannot play, while the
    hand would keep a card that is not dead."""
    stall = stalls and dead_cards(view) + 1 < HAND_SIZE
    turns = [
        Turn(pd, d)
        for pd in view.legal_put_downs()
        if put_down_keeps_commitments(view, pd)
        for d in view.legal_draws(pd)
        if stall or draw_keeps_commitments(view, pd, d)
    ]
    return turns or view.legal_turns()
