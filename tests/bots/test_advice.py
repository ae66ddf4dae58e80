"""The teaching advice: the bot's hint for a view, and verdicts on turns played."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lcnet.bots import advice
from lcnet.bots.commitment import committed_turns, is_stall
from lcnet.game.cards import Card, Suit
from lcnet.game.engine import Turn, View
from lcnet.game.seat import Seat
from lcnet.review import positions
from lcnet.store.replayfile import read_replay
from tests.helpers import table_view

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "replays" / "sample-complete-host.lcnet"
DEALS = 12
"""A small budget: the tests check behaviour, not the quality of the estimate."""


@pytest.fixture(scope="module")
def record() -> positions.MatchRecord:
    return positions.load_contents(read_replay(SAMPLE))


def owner_steps(record: positions.MatchRecord) -> list[tuple[View, Turn]]:
    return [(d.view, d.played) for d in positions.decisions(record, Seat.HOST)]


@pytest.mark.slow
def test_a_hint_is_a_legal_turn_that_keeps_the_commitment_rule(
    record: positions.MatchRecord,
) -> None:
    for view, _played in owner_steps(record)[::9]:
        hint = advice.suggest(view, deals=DEALS)
        # Late in the round a hint may stall (take a pile card only for time).
        assert hint.turn in committed_turns(view, stalls=view.draw_pile_size <= 8)
        assert hint.reason and "\n" not in hint.reason


def test_a_hint_is_the_same_for_the_same_seed_and_reads_no_hidden_card(
    record: positions.MatchRecord,
) -> None:
    """Two tables that differ only in the opponent's hidden hand give one view and one hint."""
    position = next(
        p
        for p in record.positions
        if p.hands_known and p.turn > 4 and p.table.to_move == int(Seat.HOST)
    )
    table = position.table.copy()
    other = table.copy()
    hidden = [
        c
        for c in other.hand(int(Seat.JOINER))
        if c not in other.public_hand_cards(int(Seat.JOINER))
    ]
    for mine, pile in zip(hidden, other.draw_pile(), strict=False):
        other.exchange(mine, pile)
    assert sorted(other.hand(int(Seat.JOINER))) != sorted(table.hand(int(Seat.JOINER)))
    view, same = table.view(int(Seat.HOST)), other.view(int(Seat.HOST))
    assert view == same
    assert advice.suggest(view, seed=5, deals=DEALS) == advice.suggest(same, seed=5, deals=DEALS)


def test_advice_needs_the_holders_turn() -> None:
    view = table_view("r4 r5 r6 r7 r8 r9 r10 y2", draw_pile=44)
    waiting = replace(view, to_move=1)
    with pytest.raises(ValueError, match="to put down"):
        advice.suggest(waiting)
    with pytest.raises(ValueError, match="deals"):
        advice.suggest(view, deals=0)


def test_a_high_card_that_blocks_your_own_lower_cards_loses_points() -> None:
    view = table_view("r4 r5 r6 r7 r8 r9 r10 y2", draw_pile=44)
    blocking = Turn.parse("+r10 deck")
    [verdict] = advice.analyze([(view, blocking)], deals=DEALS)
    assert verdict.played == blocking
    assert verdict.choice != blocking
    assert verdict.loss >= 10
    assert verdict.loss == pytest.approx(verdict.choice_value - verdict.played_value)
    assert not verdict.agrees


def test_the_bots_own_choice_loses_nothing() -> None:
    view = table_view("r4 r5 r6 r7 r8 r9 r10 y2", draw_pile=44)
    hint = advice.suggest(view, deals=DEALS)
    [verdict] = advice.analyze([(view, hint.turn)], deals=DEALS)
    assert verdict.choice == hint.turn and verdict.loss == 0 and verdict.agrees
    assert verdict.choice_value == pytest.approx(hint.value)


@pytest.mark.slow
def test_analyze_gives_one_verdict_per_step_in_order_with_progress(
    record: positions.MatchRecord,
) -> None:
    steps = owner_steps(record)[:6]
    seen: list[tuple[int, int]] = []
    verdicts = advice.analyze(steps, deals=4, on_progress=lambda d, t: seen.append((d, t)))
    assert [v.index for v in verdicts] == list(range(6))
    assert [v.played for v in verdicts] == [turn for _view, turn in steps]
    assert all(v.loss >= 0 for v in verdicts)
    assert seen == [(n, 6) for n in range(1, 7)]
    assert advice.analyze(steps, deals=4) == verdicts  # deterministic


@pytest.mark.parametrize(
    ("hand", "turn", "expected"),
    [
        (
            "r4 r5 r6 r7 r8 r9 r10 y2",
            "+r4 deck",
            "open your red expedition with r4 (you hold r5 r6 r7 r8 r9 r10); "
            "draw from the draw pile",
        ),
        (
            "r4 r5 r6 r7 r8 r9 r10 y2",
            "-y2 deck",
            "discard y2: yellow is not worth opening (you hold 2 points of it); "
            "draw from the draw pile",
        ),
        (
            "rH1 r5 r6 r7 r8 r9 r10 yH2",
            "-yH2 deck",
            "discard yH2: you hold no yellow cards to back the wager; draw from the draw pile",
        ),
        (
            "rH1 r5 r6 r7 r8 r9 r10 yH2",
            "+rH1 deck",
            "play the wager rH1 on your red expedition (you hold r5 r6 r7 r8 r9 r10); "
            "draw from the draw pile",
        ),
    ],
)
def test_the_reason_says_what_the_turn_does(hand: str, turn: str, expected: str) -> None:
    assert advice.reason(table_view(hand, draw_pile=44), Turn.parse(turn)) == expected


def test_late_in_the_round_the_reason_says_so() -> None:
    view = table_view("r4 r5 r6 r7 r8 r9 r10 y2", draw_pile=3)
    assert advice.reason(view, Turn.parse("-y2 deck"), 4.0) == (
        "discard y2: it is too late in the round to open yellow; "
        "draw from the draw pile: it runs the round down while you lead "
        "(estimated round margin: +4)"
    )


def test_the_reason_names_a_pile_card_that_extends_an_expedition() -> None:
    view = table_view("r4 r5 r6 r7 r8 r9 r10 y2", draw_pile=44)
    piles = list(view.discard_piles)
    piles[Suit.GREEN] = (Card(Suit.GREEN, 6),)
    mine = list(view.expeditions[0])
    mine[Suit.GREEN] = (Card(Suit.GREEN, 3),)
    view = replace(view, discard_piles=tuple(piles), expeditions=(tuple(mine), view.expeditions[1]))
    text = advice.reason(view, Turn.parse("+r4 g"), 12.4)
    assert text.endswith(
        "take g6 from the green pile: it extends your green expedition "
        "(estimated round margin: +12)"
    )


def stall_position(draw_pile: int) -> View:
    # y3 tops the yellow pile; the player's yellow is at 5, so it cannot use it.
    return table_view(
        "r4 r5 r6 b5 b6 w7 w8 g9",
        mine="y4 y5 r2 b3 w3 g6",
        theirs="g3 g4",
        piles="y3",
        draw_pile=draw_pile,
    )


@pytest.mark.slow
def test_late_in_the_round_the_bot_also_weighs_stalls_with_its_best_put_down() -> None:
    late, early = stall_position(4), stall_position(20)
    stalls = [t for t in advice.candidates(late) if is_stall(late, t)]
    assert stalls and {t.put_down for t in stalls} == {advice.candidates(late)[0].put_down}
    assert not any(is_stall(early, t) for t in advice.candidates(early))
    assert advice.suggest(late, deals=DEALS).turn in advice.candidates(late)


def test_the_reason_says_what_a_stall_is_for() -> None:
    view = stall_position(4)
    assert advice.reason(view, Turn.parse("-g9 y"), 3.0) == (
        "discard g9: the card you need least; take y3 from the yellow pile: "
        "the draw pile stays as it is: one more turn each before the round ends "
        "(estimated round margin: +3)"
    )
