"""The built-in bots: legal turns, the commitment rule, no hidden information,
sensible greedy choices, a deterministic search, and matches that end.

Behaviour only: no test looks at a clock (the search's clock is a fake).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import random

import pytest

from lcnet.bots import BOTS, LEVELS, Bot, make_bot
from lcnet.bots.commitment import committed_turns, dead_cards, is_stall
from lcnet.bots.greedy import GreedyBot
from lcnet.bots.mcts import (
    DECK_ONLY_MARGIN,
    ENDGAME_CANDIDATES,
    LATE_SPREAD,
    SEARCH_WEIGHTS,
    STALL_PUT_DOWNS,
    MctsBot,
    SearchConfig,
    TempoMemory,
)
from lcnet.bots.policy import Weights, evaluate, policy_turn, rank_turns, rollout
from lcnet.bots.sim import NO_DRAW_PILE, Determinizer, Sim
from lcnet.errors import UserError
from lcnet.game.cards import Card, Suit, parse_cards
from lcnet.game.engine import Draw, Move, PutDown, Round, Turn, View, expedition_value
from tests.helpers import table_view

TURN_CAP = 2_000
"""Far more turns than any sane round takes (a round has 44 or 56 deck draws)."""

SEARCH = "mcts:iterations=6,depth=4,particles=32"
"""A search small enough for tests, big enough to compare several candidates
(short playouts: the levels' tests below run hard's full-length ones)."""

STALLER = "mcts:iterations=6,depth=4,particles=32,stall=1000"
"""The search comparing stalls at every turn: the commitment rule's stalls
must keep every round finite."""

BOT_SPECS = ("random", "greedy", SEARCH, STALLER)

LEVEL_SPECS = ("easy", "medium", "hard:iterations=4,particles=32")
"""The levels, the search with a test-sized budget."""


def play_round(bots: list[Bot], seed: int, suits: int = 5) -> Round:
    """A whole round between ``bots`` (seat 0, seat 1), failing on a stall."""
    r = Round.new(random.Random(seed), suits=suits, starter=seed % 2)
    for _ in range(TURN_CAP):
        if r.is_over:
            return r
        p = r.to_move
        r.push_turn(bots[p].choose_turn(r.view(p)), p)
    raise AssertionError(f"the round did not end in {TURN_CAP} turns")


# ------------------------------------------------------------ legality


@pytest.mark.slow
@pytest.mark.parametrize("suits", [5, 6])
@pytest.mark.parametrize("spec", ["greedy", "easy", SEARCH, STALLER])
def test_every_turn_is_legal_and_keeps_the_commitment_rule(spec: str, suits: int) -> None:
    rounds = 1 if spec.startswith("mcts") else 6
    for seed in range(rounds):
        bot = make_bot(spec, seed)
        opponent = make_bot("random", seed + 100)
        r = Round.new(random.Random(seed), suits=suits, starter=seed % 2)
        seat = seed % 2
        while not r.is_over:
            p = r.to_move
            view = r.view(p)
            if p == seat:
                turn = bot.choose_turn(view)
                # The search stalls late in the round (the staller throughout).
                stalls = spec.startswith("mcts")
                assert turn in committed_turns(view, stalls=stalls), (str(r), turn)
            else:
                turn = opponent.choose_turn(view)
            r.push_turn(turn, p)  # raises if illegal


# ------------------------------------------------------- hidden information


def positions(seed: int, count: int) -> list[tuple[Round, int]]:
    """Rounds in progress (with the seat to move) from a game of greedy against random."""
    bots = [make_bot("greedy", seed), make_bot("random", seed)]
    r = Round.new(random.Random(seed))
    found: list[tuple[Round, int]] = []
    while not r.is_over and len(found) < count:
        p = r.to_move
        if r.turns_played % 7 == 3:
            found.append((r.copy(), p))
        r.push_turn(bots[p].choose_turn(r.view(p)), p)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("spec", BOT_SPECS)
def test_a_bot_plays_the_same_whatever_the_hidden_cards(spec: str) -> None:
    for r, seat in positions(seed=3, count=5):
        view = r.view(seat)
        other = view.determinize(random.Random(99))
        # Same view, different hidden cards (the opponent's hand or the deck order).
        assert other.view(seat) == view
        assert other.hand(1 - seat) != r.hand(1 - seat) or other.draw_pile() != r.draw_pile()
        first = make_bot(spec, 5).choose_turn(r.view(seat))
        second = make_bot(spec, 5).choose_turn(other.view(seat))
        assert first == second


def test_a_determinization_keeps_what_the_seat_knows() -> None:
    for r, seat in positions(seed=4, count=4):
        view = r.view(seat)
        determinizer = Determinizer(view)
        for sim in (determinizer.sample(random.Random(1)), determinizer.canonical()):
            assert sorted(sim.hands[seat]) == sorted(c.id for c in view.hand)
            assert len(sim.hands[1 - seat]) == view.opponent_hand_size
            assert {c.id for c in view.opponent_known} <= set(sim.hands[1 - seat])
            assert sim.deck_size == view.draw_pile_size
            assert sim.piles == [[c.id for c in pile] for pile in view.discard_piles]
            for p in (0, 1):
                for suit in view.suits:
                    played = list(view.expeditions[p][suit])
                    assert sim.counts[p][suit] == len(played)
            hidden = set(sim.hands[1 - seat]) | set(sim.streams[0]) | set(sim.streams[1])
            assert hidden == {c.id for c in view.unseen_cards()} | {
                c.id for c in view.opponent_known
            }


# ---------------------------------------------------------------- greedy


def greedy_turn(view: View) -> Turn:
    return GreedyBot(random.Random(0)).choose_turn(view)


def test_greedy_plays_the_card_that_earns_the_eight_card_bonus() -> None:
    view = table_view(
        "r10 y2 y3 b2 b3 w2 w3 g2",
        mine="rH1 r3 r4 r5 r6 r7 r8 y6 y7 b7 b8 w8 w9",
        theirs="y8 b9 w10 g9",
        draw_pile=3,
    )
    assert greedy_turn(view).put_down == PutDown.parse("play r10")


def test_greedy_scores_on_its_last_turn() -> None:
    # The last card of the draw pile ends the round: whatever stays in hand is lost.
    view = table_view(
        "r9 y2 y3 b2 b3 w2 w3 g2",
        mine="r4 r5 r6 r7 r8 y6 b7 w8",
        theirs="y8 b9 w10 g9",
        draw_pile=1,
    )
    assert greedy_turn(view).put_down == PutDown.parse("play r9")


def test_greedy_does_not_discard_a_card_the_opponent_needs() -> None:
    # g9 is dead for greedy (its green is at 10) but the opponent's green
    # is open with a wager; y2 is dead for both.
    view = table_view(
        "g9 y2 r5 r6 b7 b8 w6 w7",
        mine="y5 y6 g10 r3 r4 b5 b6 w4 w5",
        theirs="gH1 g3 g4 y3",
        draw_pile=20,
    )
    turn = greedy_turn(view)
    assert turn.put_down != PutDown.parse("discard g9")
    assert turn.put_down.discard is False or turn.put_down == PutDown.parse("discard y2")


def test_greedy_takes_the_pile_card_that_extends_its_expedition() -> None:
    view = table_view(
        "y2 y3 g2 g3 r2 r3 w2 w3", mine="bH1 b4 b5", theirs="b2", piles="b6", draw_pile=24
    )
    assert greedy_turn(view).draw == Draw(Suit.BLUE)


def test_greedy_does_not_open_an_expedition_on_its_last_turns() -> None:
    view = table_view("y3 y4 b2 b3 w2 w3 g2 g3", mine="r4 r5 r6", theirs="y8 b9", draw_pile=3)
    turn = greedy_turn(view)
    assert turn.put_down.discard or turn.put_down.card.suit == Suit.RED


GREEDY_GAMES_DIGEST = "da8736e892538431ff099cc228bfb7df90c5c3d31971407b1aaf51217df26ff0"
"""The moves of 40 seeded rounds of greedy (against random and itself), as
played before the heuristic moved out of ``fastsim``: greedy is the yardstick
the other bots' strength is measured against, so its play must not drift."""


@pytest.mark.slow
def test_greedy_plays_exactly_as_it_always_has() -> None:
    digest = hashlib.sha256()
    for seed in range(40):
        bots = [make_bot("greedy", 0), make_bot("random" if seed % 2 else "greedy", seed)]
        r = play_round(bots, seed, suits=5 + seed % 2)
        digest.update(" ".join(str(m) for m in r.move_stack).encode() + b"\n")
    assert digest.hexdigest() == GREEDY_GAMES_DIGEST


def test_greedy_takes_no_options() -> None:
    with pytest.raises(UserError):
        make_bot("greedy:depth=3")


# ------------------------------------------------------------------ mcts


@pytest.mark.slow
@pytest.mark.parametrize(
    ("search", "opponent"),
    [
        ("mcts:iterations=8,depth=4,particles=32", "random"),
        ("hard:iterations=4,particles=32", "easy"),
    ],
)
def test_the_search_with_an_iteration_budget_is_deterministic(search: str, opponent: str) -> None:
    def game() -> list[Move]:
        r = play_round([make_bot(search, 11), make_bot(opponent, 12)], seed=8)
        return r.move_stack

    assert game() == game()


def test_mcts_with_one_candidate_plays_the_heuristic_turn_unsearched() -> None:
    # With one candidate there is nothing to search.
    view = table_view(
        "r9 y2 y3 b2 b3 w2 w3 g2",
        mine="r4 r5 r6 r7 r8 y6 b7 w8",
        theirs="y8 b9 w10 g9",
        draw_pile=1,
    )
    bot = MctsBot(random.Random(1), iterations="50", candidates="1")
    assert bot.choose_turn(view) == greedy_turn(view)
    assert bot.last_simulations == 0


@pytest.mark.slow
def test_the_search_overrules_the_heuristic_only_by_its_margin() -> None:
    views = [r.view(p) for r, p in positions(seed=6, count=12)]

    def search(view: View, margin: str) -> tuple[Turn, int]:
        bot = MctsBot(random.Random(1), iterations="40", particles="32", margin=margin)
        return bot.choose_turn(view), bot.last_simulations

    free = [search(v, "0")[0] for v in views]
    assert any(t != greedy_turn(v) for t, v in zip(free, views, strict=True)), (
        "with no margin the search plays another turn than the heuristic somewhere"
    )
    held = [search(v, "100") for v in views]
    assert [turn for turn, _ in held] == [greedy_turn(v) for v in views]
    assert all(simulations > 0 for _, simulations in held), "it searched, and kept the heuristic's"


def test_mcts_finds_the_last_turn_points() -> None:
    view = table_view(
        "r9 y2 y3 b2 b3 w2 w3 g2",
        mine="r4 r5 r6 r7 r8 y6 b7 w8",
        theirs="y8 b9 w10 g9",
        draw_pile=1,
    )
    assert MctsBot(random.Random(1), iterations="40").choose_turn(view).put_down == PutDown.parse(
        "play r9"
    )


class FakeClock:
    """A clock that advances by ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.slow
def test_mcts_stops_when_its_time_is_up() -> None:
    view = positions(seed=6, count=1)[0][0].view(positions(seed=6, count=1)[0][1])
    short = MctsBot(random.Random(1), FakeClock(0.01), time="0.05")
    long = MctsBot(random.Random(1), FakeClock(0.01), time="0.5")
    assert short.choose_turn(view) in committed_turns(view)
    assert long.choose_turn(view) in committed_turns(view)
    assert 0 < short.last_simulations < long.last_simulations


@pytest.mark.slow
def test_mcts_stops_at_whichever_budget_comes_first() -> None:
    view = positions(seed=6, count=1)[0][0].view(positions(seed=6, count=1)[0][1])
    bot = MctsBot(random.Random(1), FakeClock(0.0001), iterations="20", time="100")
    bot.choose_turn(view)
    assert bot.last_simulations <= 20 + 4  # the last deal may finish its candidates


@pytest.mark.slow
def test_late_in_the_round_the_search_compares_more_turns() -> None:
    rnd, seat = next((r, p) for r, p in positions(seed=6, count=80) if r.draw_pile_size <= 16)
    view = rnd.view(seat)
    late = MctsBot(random.Random(1), iterations="40")
    early = MctsBot(random.Random(1), iterations="40", late="0")
    fixed = MctsBot(random.Random(1), iterations="40", candidates="3")
    for bot in (late, early, fixed):
        assert bot.choose_turn(view) in committed_turns(view)
    assert early.last_candidates == 4
    assert late.last_candidates > early.last_candidates
    assert fixed.last_candidates == 3  # a width that was given is kept
    assert late.last_simulations > early.last_simulations + 40  # three times the budget


@pytest.mark.slow
def test_in_the_endgame_the_search_compares_every_allowed_turn() -> None:
    rnd, seat = next(
        (r, p)
        for seed in range(40)
        for r, p in positions(seed, count=200)
        if r.draw_pile_size <= 8 and len(committed_turns(r.view(p))) > 10
    )
    view = rnd.view(seat)
    allowed = committed_turns(view)
    # Without stalls: they come on top of the width (the test above).
    endgame = MctsBot(random.Random(1), iterations="40", stall="0")
    late = MctsBot(random.Random(1), iterations="40", endgame="0", stall="0")
    fixed = MctsBot(random.Random(1), iterations="40", candidates="3", stall="0")
    for bot in (endgame, late, fixed):
        assert bot.choose_turn(view) in allowed
    assert endgame.last_candidates == min(len(allowed), ENDGAME_CANDIDATES)
    assert late.last_candidates == 10  # the late search's width
    assert fixed.last_candidates == 3  # a width that was given is kept


def stall_view(hand: str = "r4 r5 r6 b5 b6 w7 w8 g9", dead: str = "") -> View:
    """A late position (4 cards left) whose yellow pile's top, y3, the bot
    cannot play (its yellow is at 5); ``dead`` are cards of ``hand`` it took
    from the piles before (committed)."""
    view = table_view(hand, mine="y4 y5 r2 b3 w3 g6", theirs="g3 g4", piles="y3", draw_pile=4)
    return dataclasses.replace(view, hand_public=frozenset(parse_cards(dead)))


def test_a_stall_takes_a_pile_card_the_bot_cannot_play_only_when_asked() -> None:
    view = stall_view()
    stall = Turn(PutDown.parse("discard g9"), Draw(Suit.YELLOW))
    assert stall in view.legal_turns() and is_stall(view, stall)
    assert stall not in committed_turns(view)
    assert stall in committed_turns(view, stalls=True)
    # Every turn the rule allowed before is still allowed: stalls only add.
    assert set(committed_turns(view)) < set(committed_turns(view, stalls=True))
    assert not any(is_stall(view, t) for t in committed_turns(view))


def test_a_card_taken_to_stall_is_never_discarded_and_bars_no_play() -> None:
    view = stall_view("r3 r4 r5 b5 b6 w7 w8 g9", dead="r3")  # red is at 2: r3 fits
    assert dead_cards(view) == 0
    assert Turn(PutDown.parse("play r4"), Draw(None)) not in committed_turns(view)
    view = stall_view("r4 r5 b2 b5 b6 w7 w8 g9", dead="b2")  # blue is at 3: b2 is dead
    assert dead_cards(view) == 1
    allowed = committed_turns(view, stalls=True)
    assert Turn(PutDown.parse("play b5"), Draw(None)) in allowed
    assert not any(t.put_down == PutDown.parse("discard b2") for t in allowed)


def test_a_bot_stalls_only_while_its_hand_keeps_a_card_that_is_not_dead() -> None:
    hand = "b2 w2 g2 g5 y2 bH1 wH1 r7"
    six = stall_view(hand, dead="b2 w2 g2 g5 y2 bH1")
    seven = stall_view(hand, dead="b2 w2 g2 g5 y2 bH1 wH1")
    assert dead_cards(six) == 6 and dead_cards(seven) == 7
    assert any(is_stall(six, t) for t in committed_turns(six, stalls=True))
    assert any(is_stall(seven, t) for t in seven.legal_turns())
    assert not any(is_stall(seven, t) for t in committed_turns(seven, stalls=True))
    assert committed_turns(seven, stalls=True)  # a turn is left


@pytest.mark.slow
def test_the_search_compares_stalls_with_its_best_put_downs_only_when_asked() -> None:
    view = stall_view()
    plain = MctsBot(random.Random(1), iterations="40", stall="0")
    staller = MctsBot(random.Random(1), iterations="40")  # from 8 cards left by default
    early = MctsBot(random.Random(1), iterations="40", stall="3")  # 4 cards left: not yet
    for bot in (plain, early):
        assert not is_stall(view, bot.choose_turn(view))
    assert staller.choose_turn(view) in committed_turns(view, stalls=True)
    stalls = [t for t in committed_turns(view, stalls=True) if is_stall(view, t)]
    assert plain.last_candidates == early.last_candidates
    assert plain.last_candidates < staller.last_candidates <= plain.last_candidates + len(stalls)
    with pytest.raises(UserError, match="stall=-1"):
        MctsBot(random.Random(1), stall="-1")


@pytest.mark.slow
def test_the_search_pairs_each_stall_with_its_best_put_downs_and_options_are_checked() -> None:
    view = stall_view()

    def compared(**options: str) -> int:
        bot = MctsBot(random.Random(1), iterations="40", **options)
        assert bot.choose_turn(view) in committed_turns(view, stalls=True)
        return bot.last_candidates

    plain, stalling = compared(stall="0"), compared()
    assert (stalling - plain) % STALL_PUT_DOWNS == 0 and stalling > plain
    # Options no measurement supports are gone (docs/BOTS.md); so are typos.
    for option in ("early", "puts", "cap", "capfrom", "iteration"):
        with pytest.raises(UserError, match=f"unknown mcts option.*{option}"):
            MctsBot(random.Random(1), **{option: "1"})
    config = SearchConfig.parse({"candidates": "7", "spread": "0", "time": "0.5"})
    assert (config.candidates, config.late_candidates, config.endgame_candidates) == (7, 7, 7)
    assert (config.spread, config.late_spread) == (0.0, 0.0)
    assert (config.time, config.iterations) == (0.5, None)  # one budget given: the only one
    assert SearchConfig.parse({}) == SearchConfig()


class SpreadSpy(MctsBot):
    """Records the spread the search asks each sampled deal's opponent for."""

    def __init__(self, **options: str) -> None:
        super().__init__(random.Random(1), **options)
        self.asked: set[float] = set()

    def opponent(self, spread: float) -> Weights | None:
        self.asked.add(spread)
        return super().opponent(spread)


@pytest.mark.slow
def test_late_in_the_round_the_simulated_opponent_is_of_unknown_style() -> None:
    found = positions(seed=6, count=80)
    early_rnd, early_seat = found[0]
    late_rnd, late_seat = next((r, p) for r, p in found if r.draw_pile_size <= 16)
    bot = SpreadSpy(iterations="40")
    bot.choose_turn(early_rnd.view(early_seat))
    assert bot.asked == {0.0}
    bot.asked.clear()
    bot.choose_turn(late_rnd.view(late_seat))
    assert bot.asked == {LATE_SPREAD}
    given = SpreadSpy(iterations="40", spread="0")
    given.choose_turn(late_rnd.view(late_seat))
    assert given.asked == {0.0}, "a spread that was given holds everywhere"


def test_mcts_default_budget_is_a_simulation_count_capped_below_a_second() -> None:
    bot = MctsBot(random.Random(1))
    assert bot.config.iterations is not None and bot.config.iterations > 0
    assert bot.config.time is not None and 0 < bot.config.time <= 1.0


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:iterations=0",
        "mcts:iterations=many",
        "mcts:time=-1",
        "mcts:time=nan",
        "mcts:time=soon",
        "mcts:depth=-2",
        "mcts:width=3",
        "mcts:spread=-0.1",
        "mcts:spread=nan",
        "mcts:spread=wide",
        "mcts:spread=4",
        "mcts:late=-1",
        "mcts:late=soon",
        "mcts:tempo=2",
        "mcts:tempo=yes",
        "mcts:margin=-1",
        "mcts:margin=nan",
        "mcts:margin=101",
    ],
)
def test_mcts_rejects_bad_options(spec: str) -> None:
    with pytest.raises(UserError):
        make_bot(spec)


def test_the_simulated_opponent_is_a_new_style_each_deal_and_the_bot_stays_itself() -> None:
    bot = MctsBot(random.Random(1), spread="0.5")
    styles = [bot.opponent(bot.config.spread) for _ in range(50)]
    assert all(style is not None for style in styles)
    assert len({style for style in styles}) == 50, "a new style for every deal"
    assert all(style is not None and 0 < style.arrival_share <= 1.0 for style in styles)
    assert bot.weights == SEARCH_WEIGHTS, "the bot's own numbers do not move"
    assert MctsBot(random.Random(1), spread="0", tempo="0").opponent(0.0) is None


@pytest.mark.slow
def test_a_rollout_plays_each_seat_with_its_own_numbers() -> None:
    """A seat given numbers that never draw from a pile draws only from the deck."""
    timid = dataclasses.replace(SEARCH_WEIGHTS, pile_draw_margin=1000.0)
    pile_draws = [0, 0]
    for seed in range(20):
        r = Round.new(random.Random(seed))
        sim = Determinizer(r.view(0)).sample(random.Random(seed))
        while sim.deck_size:
            mover, before = sim.to_move, sim.deck_size
            rollout(sim, 1, SEARCH_WEIGHTS, (SEARCH_WEIGHTS, timid))
            pile_draws[mover] += sim.deck_size == before
    assert pile_draws[0] > 0 and pile_draws[1] == 0, pile_draws


# --------------------------------------------------------- whole matches


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second"), list(itertools.combinations_with_replacement(BOT_SPECS, 2))
)
def test_every_pairing_finishes_its_rounds(first: str, second: str) -> None:
    # A search is slow even on a test budget: one round (5 or 6 suits by the
    # pairing) for a pairing with one, two for the others.
    searching = "mcts" in first + second
    deals = [(1 + len(first + second) % 2, 5 + len(first + second) % 2)] if searching else []
    for seed, suits in deals or [(1, 5), (2, 6)]:
        bots = [make_bot(first, seed), make_bot(second, seed + 50)]
        r = play_round(bots, seed, suits)
        assert r.is_over


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second"), list(itertools.combinations_with_replacement(LEVEL_SPECS, 2))
)
def test_every_pairing_of_levels_finishes_its_rounds(first: str, second: str) -> None:
    # The search is slow even on a test budget: one round for a pairing with
    # it (of 6 suits if the two levels differ, 5 if it plays itself).
    seeds = [int(first != second)] if "hard" in first + second else range(12)
    for seed in seeds:
        bots = [make_bot(first, seed), make_bot(second, seed + 50)]
        assert play_round(bots, seed, suits=5 + seed % 2).is_over


@pytest.mark.slow
def test_greedy_mirror_rounds_end_even_with_pile_draws() -> None:
    for seed in range(10):
        r = play_round([make_bot("greedy", 0), make_bot("greedy", 0)], seed)
        assert r.is_over


# ----------------------------------------------------------- the simulator


def test_a_simulated_round_scores_as_the_rules_say() -> None:
    for r, seat in positions(seed=9, count=6):
        sim = Determinizer(r.view(seat)).sample(random.Random(2))
        for p in (0, 1):
            expected = sum(expedition_value(r.expedition(p, s)) for s in r.suits)
            assert sim.score(p) == expected


@pytest.mark.parametrize("suits", [5, 6])
def test_a_rollout_plays_to_the_end_and_then_the_evaluation_is_exact(suits: int) -> None:
    r = Round.new(random.Random(suits), suits=suits)
    sim = Determinizer(r.view(0)).sample(random.Random(3))
    rollout(sim, max_turns=TURN_CAP)
    assert sim.is_over
    assert evaluate(sim, 0) == sim.score(0) - sim.score(1)
    assert evaluate(sim, 1) == -evaluate(sim, 0)


def test_the_heuristic_ranks_only_turns_that_keep_the_commitment_rule() -> None:
    for r, seat in positions(seed=10, count=6):
        view = r.view(seat)
        sim = Determinizer(view).canonical()
        allowed = set(committed_turns(view))
        ranked = rank_turns(sim)
        for _, cid, discard, draw in ranked:
            turn = Turn(
                PutDown(Card.from_id(cid), discard),
                Draw(None if draw == NO_DRAW_PILE else Suit(draw)),
            )
            assert turn in allowed
        best = policy_turn(sim)
        assert best in {(cid, discard, draw) for _, cid, discard, draw in ranked}


def test_deck_draws_follow_each_players_stream() -> None:
    # While every draw is from the deck, a Sim deals exactly like the round.
    r = Round.new(random.Random(5))
    sim = Sim(5)
    sim.hands = [[c.id for c in r.hand(0)], [c.id for c in r.hand(1)]]
    sim.deal([c.id for c in reversed(r.draw_pile())])
    for _ in range(10):
        p = r.to_move
        card = r.hand(p)[0]
        r.push_turn(Turn(PutDown(card, True), Draw(None)), p)
        sim.apply((card.id, True, NO_DRAW_PILE))
        assert sorted(sim.hands[p]) == sorted(c.id for c in r.hand(p))
    assert sim.deck_size == r.draw_pile_size


# ------------------------------------------------------------------ levels


def test_the_levels_are_bots_weakest_first_with_a_description() -> None:
    assert list(LEVELS) == ["easy", "medium", "hard"]
    for name, description in LEVELS.items():
        assert name in BOTS
        assert description and "\n" not in description
    assert isinstance(make_bot("medium"), GreedyBot)
    assert isinstance(make_bot("hard"), MctsBot)
    assert isinstance(make_bot("mcts"), MctsBot)


def test_easy_is_deterministic_and_takes_no_options() -> None:
    view = positions(seed=6, count=1)[0][0].view(positions(seed=6, count=1)[0][1])
    assert make_bot("easy", 1).choose_turn(view) == make_bot("easy", 2).choose_turn(view)
    with pytest.raises(UserError):
        make_bot("easy:depth=3")


def test_easy_forgets_what_the_opponent_collects() -> None:
    # Every card in hand is dead for the bot; g9 is the one the opponent's
    # green (a wager, 3, 4) still takes. Greedy keeps it; the beginner does not care.
    view = table_view(
        "g9 r2 r3 r4 r5 r6 r7 r8",
        mine="g10 r10",
        theirs="gH1 g3 g4 r9",
        draw_pile=20,
    )
    assert greedy_turn(view).put_down != PutDown.parse("discard g9")
    assert make_bot("easy").choose_turn(view).put_down == PutDown.parse("discard g9")


def test_evaluate_turns_ranks_the_last_turn_points_above_a_discard() -> None:
    view = table_view(
        "r9 y2 y3 b2 b3 w2 w3 g2",
        mine="r4 r5 r6 r7 r8 y6 b7 w8",
        theirs="y8 b9 w10 g9",
        draw_pile=1,
    )
    bot = MctsBot(random.Random(1), iterations="30")
    play = Turn(PutDown.parse("play r9"), Draw(None))
    discard = Turn(PutDown.parse("discard r9"), Draw(None))
    values = bot.evaluate_turns(view, [play, discard])
    # The round ends with this turn: the values are exact score differences.
    mine = sum(expedition_value(e) for e in view.expeditions[0])
    theirs = sum(expedition_value(e) for e in view.expeditions[1])
    assert values == [mine + 9 - theirs, mine - theirs]


@pytest.mark.slow
def test_evaluate_turns_sees_a_discard_that_feeds_the_opponent() -> None:
    view = table_view(
        "g9 y2 r5 r6 b7 b8 w6 w7",
        mine="y5 y6 g10 r3 r4 b5 b6 w4 w5",
        theirs="gH1 g3 g4 y3",
        draw_pile=20,
    )
    # An opponent that takes the pile cards it can use, as the heuristic does.
    bot = MctsBot(random.Random(1), iterations="200", tempo="0")
    feed = Turn(PutDown.parse("discard g9"), Draw(None))
    dead = Turn(PutDown.parse("discard y2"), Draw(None))
    feed_value, dead_value = bot.evaluate_turns(view, [feed, dead])
    assert feed_value < dead_value
    assert bot.evaluate_turns(view, []) == []


def play_watching(memory: TempoMemory, seed: int, opponent: str) -> tuple[int, int]:
    """A round of greedy (seat 0) against ``opponent`` whose seat-0 views
    ``memory`` observes; returns the opponent's turns and pile draws between
    seat 0's first and last view, counted from the turns themselves."""
    r = Round.new(random.Random(seed))
    bots = [make_bot("greedy", 0), make_bot(opponent, 0)]
    views = turns = draws = 0
    counted = (0, 0)
    while not r.is_over:
        p = r.to_move
        view = r.view(p)
        if p == 0:
            memory.observe(view)
            views += 1
            counted = (turns, draws)
        turn = bots[p].choose_turn(view)
        if p == 1 and views:
            turns += 1
            draws += turn.draw.suit is not None
        r.push_turn(turn, p)
    return counted


@pytest.mark.slow
def test_the_tempo_memory_counts_the_opponents_pile_draws_over_a_match() -> None:
    memory = TempoMemory()
    assert memory.pile_drawer() == 0.5, "even odds before the opponent has moved"
    expected = [0, 0]
    for seed in range(3):  # one match of three rounds: the counts add up
        turns, draws = play_watching(memory, seed, "greedy")
        expected[0] += turns
        expected[1] += draws
        assert (memory.turns, memory.draws) == tuple(expected)
    assert memory.draws > 0
    assert memory.pile_drawer() > 0.99, "greedy takes pile cards"
    keeper = TempoMemory()
    for seed in range(3):
        play_watching(keeper, seed, "cautious")
    assert keeper.turns > 60
    assert keeper.pile_drawer() < 0.2, "cautious keeps to the draw pile"


def test_the_tempo_memory_counts_a_card_taken_again() -> None:
    """random breaks the commitment rule: it discards cards it took from the
    piles, and takes some of them again."""
    for seed in range(5):
        memory = TempoMemory()
        assert play_watching(memory, seed, "random") == (memory.turns, memory.draws)
        assert memory.draws > 0


def test_a_bot_made_in_the_middle_of_a_round_counts_only_what_it_sees() -> None:
    r = Round.new(random.Random(2))
    bots = [make_bot("greedy", 0), make_bot("greedy", 0)]
    views = []
    while not r.is_over:
        p = r.to_move
        view = r.view(p)
        if p == 0:
            views.append(view)
        r.push_turn(bots[p].choose_turn(view), p)
    middle = next(i for i, v in enumerate(views) if v.opponent_known)
    late = TempoMemory()
    for view in views[middle:]:
        late.observe(view)
        late.observe(view)  # the same position twice is one view
    assert late.turns == len(views) - middle - 1
    whole, until = TempoMemory(), TempoMemory()
    for view in views:
        whole.observe(view)
    for view in views[: middle + 1]:
        until.observe(view)
    # The cards held at its first view were taken in turns it did not see.
    assert until.draws > 0
    assert late.draws == whole.draws - until.draws


@pytest.mark.slow
def test_the_search_reads_its_opponents_draws_as_it_plays() -> None:
    r = Round.new(random.Random(3))
    bot = MctsBot(random.Random(1), iterations="8")
    opponent = make_bot("cautious", 0)
    while not r.is_over:
        p = r.to_move
        view = r.view(p)
        r.push_turn(bot.choose_turn(view) if p == 0 else opponent.choose_turn(view), p)
    assert bot.memory.turns > 15
    assert bot.memory.pile_drawer() < 0.2


def test_the_simulated_opponent_keeps_to_the_draw_pile_as_the_real_one_did() -> None:
    keeper, drawer, off = (MctsBot(random.Random(1), **o) for o in ({}, {}, {"tempo": "0"}))
    keeper.memory.turns = 60  # 60 turns, no pile card taken
    drawer.memory.turns, drawer.memory.draws = 30, 6
    off.memory.turns = 30
    assert keeper.memory.pile_drawer() < 1e-3 and drawer.memory.pile_drawer() > 0.999
    for spread in (0.0, 0.5):
        for _ in range(20):
            style = keeper.opponent(spread)
            assert style is not None and style.pile_draw_margin >= DECK_ONLY_MARGIN / 10
            style = drawer.opponent(spread)
            assert style is None or style.pile_draw_margin < 10
            assert drawer.opponent(0.0) is None and off.opponent(0.0) is None


@pytest.mark.slow
def test_feeding_a_discard_costs_less_against_an_opponent_that_never_takes_one() -> None:
    view = table_view(
        "g9 y2 r5 r6 b7 b8 w6 w7",
        mine="y5 y6 g10 r3 r4 b5 b6 w4 w5",
        theirs="gH1 g3 g4 y3",
        draw_pile=20,
    )
    feed = Turn(PutDown.parse("discard g9"), Draw(None))
    dead = Turn(PutDown.parse("discard y2"), Draw(None))
    costs = []
    for draws in (6, 0):  # an opponent that takes pile cards, then one that never did
        bot = MctsBot(random.Random(1), iterations="400")
        bot.memory.turns, bot.memory.draws = 30, draws
        feed_value, dead_value = bot.evaluate_turns(view, [feed, dead])
        costs.append(dead_value - feed_value)
    assert costs[0] > 0, "g9 goes on the opponent's green expedition"
    assert costs[1] < costs[0] / 2
