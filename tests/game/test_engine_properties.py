"""Properties that hold in every game: checked over many random games."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcnet.game.cards import Card, new_deck
from lcnet.game.engine import Draw, Phase, PutDown, Round, View

seeds = st.integers(min_value=0, max_value=2**32 - 1)
suit_counts = st.sampled_from([5, 6])
# Biased toward the draw pile so that games stay short; pile draws still
# happen often enough to exercise the public-card bookkeeping.
deck_bias = st.floats(min_value=0.0, max_value=0.9)


def reference_value(expedition: list[Card]) -> int:
    """An independent reading of RULES.md's scoring, written separately from the engine."""
    if len(expedition) == 0:
        return 0
    numbers = [c.rank for c in expedition if not c.is_wager]
    wagers = len(expedition) - len(numbers)
    bonus = 20 if len(expedition) >= 8 else 0
    return (sum(numbers) - 20) * (wagers + 1) + bonus


def every_card_once(r: Round) -> None:
    places: list[Card] = [*r.hand(0), *r.hand(1), *r.draw_pile()]
    for suit in r.suits:
        places += r.discard_pile(suit) + r.expedition(0, suit) + r.expedition(1, suit)
    assert Counter(places) == Counter(new_deck(r.suit_count))


def expeditions_ascend(r: Round) -> None:
    for player in (0, 1):
        for suit in r.suits:
            exp = r.expedition(player, suit)
            assert all(c.suit == suit for c in exp)
            ranks = [c.rank for c in exp]
            wagers = [c for c in exp if c.is_wager]
            assert ranks[: len(wagers)] == [0] * len(wagers), "wagers come first"
            numbers = ranks[len(wagers) :]
            assert all(a < b for a, b in itertools.pairwise(numbers)), exp


def view_hides_the_opponent(r: Round, seat: int, taken_from_piles: set[Card]) -> None:
    v: View = r.view(seat)
    other = 1 - seat
    assert set(v.hand) == set(r.hand(seat))
    hidden = set(r.hand(other)) - taken_from_piles
    visible: set[Card] = set(v.hand) | set(v.opponent_known) | set(v.hand_public)
    for pile in v.discard_piles:
        visible |= set(pile)
    for per_player in v.expeditions:
        for exp in per_player:
            visible |= set(exp)
    assert not visible & hidden, "a hidden opponent card leaked into the view"
    assert not visible & set(r.draw_pile()), "a draw-pile card leaked into the view"
    assert v.opponent_known <= set(r.hand(other))
    assert v.opponent_hand_size == len(r.hand(other))
    assert v.draw_pile_size == r.draw_pile_size


def random_round(seed: int, suits: int, bias: float, check: bool = True) -> Round:
    rng = random.Random(seed)
    r = Round.new(rng, suits=suits, starter=rng.randrange(2))
    in_hand_from_piles: list[set[Card]] = [set(), set()]
    turns = 0
    while not r.is_over:
        moves = r.legal_moves()
        assert moves, "a legal move always exists while the round goes on"
        if r.phase is Phase.DRAW and Draw() in moves and rng.random() < bias:
            move: PutDown | Draw = Draw()
        else:
            move = rng.choice(moves)
        mover = r.to_move
        if isinstance(move, PutDown):
            in_hand_from_piles[mover].discard(move.card)
        pile_before = r.draw_pile_size
        r.push(move)
        if isinstance(move, Draw):
            turns += 1
            if move.suit is not None:
                in_hand_from_piles[mover].add(r.hand(mover)[-1])
            # The round ends exactly when the last draw-pile card is drawn.
            assert r.is_over == (move.suit is None and pile_before == 1)
            assert r.is_over == (r.draw_pile_size == 0)
        if check:
            every_card_once(r)
            expeditions_ascend(r)
            for seat in (0, 1):
                view_hides_the_opponent(r, seat, in_hand_from_piles[1 - seat])
    assert r.draw_pile_size == 0 and r.turns_played == turns
    return r


@pytest.mark.slow
@settings(max_examples=30)
@given(seeds, suit_counts, deck_bias)
def test_invariants_hold_throughout_random_games(seed: int, suits: int, bias: float) -> None:
    random_round(seed, suits, bias)


@pytest.mark.slow
@settings(max_examples=200)
@given(seeds, suit_counts, deck_bias)
def test_scores_equal_an_independent_recomputation(seed: int, suits: int, bias: float) -> None:
    r = random_round(seed, suits, bias, check=False)
    for player in (0, 1):
        expected = sum(reference_value(r.expedition(player, s)) for s in r.suits)
        assert r.score(player) == expected


@pytest.mark.slow
@settings(max_examples=200)
@given(seeds, suit_counts)
def test_playout_keeps_the_invariants_and_ends_the_round(seed: int, suits: int) -> None:
    rng = random.Random(seed)
    r = Round.new(rng, suits=suits)
    turns = r.playout(rng)
    assert r.is_over and r.draw_pile_size == 0 and r.legal_moves() == []
    assert r.turns_played == turns
    every_card_once(r)
    expeditions_ascend(r)
    assert all(len(r.hand(p)) == 8 for p in (0, 1))


@pytest.mark.slow
@settings(max_examples=50)
@given(seeds, suit_counts, st.integers(min_value=0, max_value=40))
def test_playout_continues_any_position_legally(seed: int, suits: int, steps: int) -> None:
    rng = random.Random(seed)
    r = Round.new(rng, suits=suits)
    for _ in range(steps):
        if r.is_over:
            break
        r.push(rng.choice(r.legal_moves()))
    r.playout(rng)
    assert r.is_over
    every_card_once(r)
    expeditions_ascend(r)


@pytest.mark.slow
def test_playout_put_downs_are_uniform_among_the_legal_ones() -> None:
    # One-turn playouts from a fixed position, many times: every legal
    # put-down must come up about equally often, and no illegal one ever.
    base = Round.new(3)
    legal = {m for m in base.legal_moves() if isinstance(m, PutDown)}
    counts: Counter[PutDown] = Counter()
    rng = random.Random(99)
    trials = 16_000
    for _ in range(trials):
        r = base.copy()
        r.playout(rng, max_turns=1)
        (played,) = [c for c in base.hand(0) if c not in r.hand(0)]
        discarded = r.discard_pile(played.suit) == [played]
        counts[PutDown(played, discarded)] += 1
    assert set(counts) == legal
    expected = trials / len(legal)
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    # 99.99th percentile of chi-square with 15 degrees of freedom is ~44.3.
    assert chi2 < 44.3, (chi2, counts)


def test_games_are_reproducible_from_a_seed() -> None:
    a = Round.new(123)
    b = Round.new(123)
    a.playout(random.Random(1))
    b.playout(random.Random(1))
    assert str(a) == str(b) and a.scores() == b.scores()
