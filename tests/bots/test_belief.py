"""The belief about the opponent's hidden hand (lcnet.bots.belief)."""

from __future__ import annotations

import itertools
import random

import pytest

from lcnet.bots import make_bot
from lcnet.bots.belief import HandBelief, opening_turn, opponent_turn
from lcnet.bots.mcts import BeliefDeterminizer, MctsBot
from lcnet.bots.policy import policy_turn
from lcnet.bots.sim import from_turn
from lcnet.errors import UserError
from lcnet.game.engine import Round, Turn, View


def watched_round(seed: int, opponent: str) -> list[tuple[View, Round, Turn | None]]:
    """A round of greedy (seat 0) against ``opponent``: each of seat 0's
    views, with the round as it was then and the opponent's next turn."""
    r = Round.new(random.Random(seed), starter=seed % 2)
    bots = [make_bot("greedy", 0), make_bot(opponent, seed)]
    seen: list[tuple[View, Round, Turn | None]] = []
    while not r.is_over:
        p = r.to_move
        view = r.view(p)
        turn = bots[p].choose_turn(view)
        if p == 0:
            seen.append((view, r.copy(), None))
        elif seen and seen[-1][2] is None:
            seen[-1] = (seen[-1][0], seen[-1][1], turn)
        r.push_turn(turn, p)
    return seen


def hidden_hand(rnd: Round, view: View) -> list[int]:
    known = {c.id for c in view.opponent_known}
    return [c.id for c in rnd.hand(view.opponent) if c.id not in known]


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["greedy", "aggressive", "random"])
def test_the_opponents_turn_is_read_from_two_views(opponent: str) -> None:
    checked = 0
    for seed in range(3):
        seen = watched_round(seed, opponent)
        for (last, rnd, turn), (now, _, _) in itertools.pairwise(seen):
            read = opponent_turn(last, now)
            assert read is not None and turn is not None
            assert read.turn == from_turn(turn)
            # The table before it is the opponent's own view of it: with its
            # real hand, the heuristic plays there as it did at the table.
            before = read.before.copy()
            assert set(before.hands[1]) <= {c.id for c in rnd.hand(1)}
            before.hands[1] = sorted(c.id for c in rnd.hand(1))
            assert before.deck_size == now.draw_pile_size + (read.turn[2] < 0)
            if opponent == "greedy":
                assert policy_turn(before) == read.turn
            checked += 1
    assert checked > 50


def test_views_that_do_not_follow_each_other_are_not_read_as_one_turn() -> None:
    seen = [view for view, _, _ in watched_round(4, "greedy")]
    assert opponent_turn(seen[3], seen[2]) is None
    assert opponent_turn(seen[2], seen[4]) is None
    other = [view for view, _, _ in watched_round(5, "greedy")]
    assert opponent_turn(seen[0], other[5]) is None


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["greedy", "cautious", "random"])
def test_every_guess_fits_the_view(opponent: str) -> None:
    belief = HandBelief(random.Random(1), particles=30)
    for seed in range(2):
        for view, _, _ in watched_round(seed, opponent):
            belief.observe(view)
            unseen = {c.id for c in view.unseen_cards()}
            hidden = view.opponent_hand_size - len(view.opponent_known)
            assert len(belief.hands) == 30
            assert abs(sum(belief.odds) - 1.0) < 1e-9
            for hand in belief.hands:
                assert len(hand) == hidden and len(set(hand)) == hidden
                assert set(hand) <= unseen
            assert BeliefDeterminizer(view, belief).usable


@pytest.mark.slow
def test_against_the_heuristic_the_guesses_hold_more_of_its_hidden_cards() -> None:
    right = uniform = 0.0
    for seed in range(6):
        belief = HandBelief(random.Random(seed), particles=100)
        for view, rnd, _ in watched_round(seed, "greedy"):
            belief.observe(view)
            real = set(hidden_hand(rnd, view))
            if real:
                held = sum(
                    w * len(real & set(h)) for w, h in zip(belief.odds, belief.hands, strict=True)
                )
                right += held / len(real)
                uniform += len(real) / len(view.unseen_cards())
    # Seeded, so the same figure every run: 1.3 times the uniform guess's.
    assert right > 1.2 * uniform


def test_the_search_samples_its_deals_from_the_belief() -> None:
    seen = watched_round(2, "greedy")
    bot = MctsBot(random.Random(1), iterations="8", belief="1000", particles="5")
    for view, _, _ in seen[:10]:
        bot.observe(view)
    view = seen[9][0]
    assert bot.belief is not None
    guesses = {tuple(sorted(h)) for h in bot.belief.hands}
    determinizer = bot.determinizer(view)
    for seed in range(20):
        sim = determinizer.sample(random.Random(seed))
        hand = sim.hands[view.opponent]
        known = [c.id for c in view.opponent_known]
        assert hand[: len(known)] == sorted(known)
        assert tuple(sorted(hand[len(known) :])) in guesses
        assert sim.deck_size == view.draw_pile_size


def test_the_search_samples_from_the_belief_only_from_its_draw_pile_size() -> None:
    seen = [view for view, _, _ in watched_round(2, "greedy")]
    bot = MctsBot(random.Random(1), iterations="8", belief="8", particles="5")
    for view in seen:
        bot.observe(view)
        beliefs = isinstance(bot.determinizer(view), BeliefDeterminizer)
        assert beliefs == (view.draw_pile_size <= 8)
    off = MctsBot(random.Random(1), iterations="8", belief="0")
    assert off.belief is None
    assert not isinstance(off.determinizer(seen[-1]), BeliefDeterminizer)


@pytest.mark.parametrize("spec", ["belief=-1", "belief=x", "particles=0", "miss=1.5", "miss=x"])
def test_bad_belief_options_are_refused(spec: str) -> None:
    name, _, value = spec.partition("=")
    with pytest.raises(UserError):
        MctsBot(random.Random(1), **{"belief": "8", name: value})
    if name != "belief":
        with pytest.raises(UserError):  # also when the belief is off
            MctsBot(random.Random(1), **{"belief": "0", name: value})


def opening_views(seed: int) -> list[tuple[View, Round, Turn]]:
    """Rounds greedy opens against greedy: seat 0's first view, after the
    opponent's (seat 1) first turn; the round before that turn; the turn."""
    found = []
    for s in range(seed, seed + 12):
        r = Round.new(random.Random(s), starter=1)
        before = r.copy()
        turn = make_bot("greedy", s).choose_turn(r.view(1))
        r.push_turn(turn, 1)
        found.append((r.view(0), before, turn))
    return found


def test_the_opponents_first_turn_is_read_from_the_first_view() -> None:
    kinds = set()
    for view, before, turn in opening_views(10):
        read = opening_turn(view)
        assert read is not None
        assert read.turn == from_turn(turn) and read.hidden and read.own_deck_card is None
        kinds.add(read.turn[1])
        # The table before it: empty, the bot's hand as now, a full draw pile;
        # with the real dealt hand the heuristic makes that turn.
        sim = read.before.copy()
        assert sim.deck_size == view.draw_pile_size + 1 and sim.to_move == 1
        assert sim.hands[0] == [c.id for c in view.hand]
        sim.hands[1] = sorted(c.id for c in before.hand(1))
        assert policy_turn(sim) == read.turn
    assert kinds == {False, True}  # both a first play and a first discard were read


def test_only_the_first_view_after_the_opponents_first_turn_is_an_opening() -> None:
    seen = [view for view, _, _ in watched_round(3, "greedy")]  # seed 3: seat 1 opens
    assert opening_turn(seen[0]) is not None
    assert all(opening_turn(view) is None for view in seen[1:])
    opener = [view for view, _, _ in watched_round(2, "greedy")]  # seat 0 opens
    assert opening_turn(opener[0]) is None


@pytest.mark.slow
def test_the_first_turn_weighs_the_guesses_of_the_dealt_hand() -> None:
    weighed = 0
    for view, before, turn in opening_views(30):
        belief = HandBelief(random.Random(1), particles=200)
        belief.observe(view)
        hidden = view.opponent_hand_size
        unseen = {c.id for c in view.unseen_cards()}
        assert all(len(set(h)) == hidden and set(h) <= unseen for h in belief.hands)
        assert abs(sum(belief.odds) - 1.0) < 1e-9
        # Uniform guesses would all weigh alike and hold as many of the
        # real cards as their share of the unseen ones.
        real = {c.id for c in before.hand(1)} - {from_turn(turn)[0]}  # still held
        held = sum(w * len(real & set(h)) for w, h in zip(belief.odds, belief.hands, strict=True))
        weighed += held / len(real) > hidden / len(unseen)
    assert weighed >= 8  # of 12 openings: the guesses hold more than uniform ones
