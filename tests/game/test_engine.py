"""The rules of RULES.md, one behaviour per test, table-driven where it fits."""

from __future__ import annotations

import random

import pytest

from lcnet.errors import (
    IllegalMoveError,
    IllegalReason,
    InvalidMoveError,
    InvalidSetupError,
    MatchStateError,
)
from lcnet.game.cards import Card, Suit
from lcnet.game.engine import (
    Draw,
    Match,
    Phase,
    PutDown,
    Round,
    Turn,
    expedition_value,
    move_from_code,
)
from tests.helpers import cards, deal

# ------------------------------------------------------------------- scoring

SCORING_TABLE = [
    # The three normative examples of RULES.md, then the rest of its table.
    ("y2 y3 y7 y8 y10", 10),
    ("yH1 yH2 y4 y5 y6 y7 y8 y10", 80),
    ("yH1 y4 y6 y7", -6),
    ("yH1", -40),
    ("yH1 yH2 yH3", -80),
    ("", 0),
    # More: the bonus is not multiplied and counts wagers; negatives multiply.
    ("y2 y3 y4 y5 y6 y7 y8 y9", 44 - 20 + 20),
    ("yH1 yH2 yH3 y2 y3 y4 y5 y6", (20 - 20) * 4 + 20),
    ("y10", -10),
    ("yH1 yH2 yH3 y2 y3 y4 y5 y6 y7 y8 y9 y10", (54 - 20) * 4 + 20),
    ("yH1 yH2 y10", -30),
]


@pytest.mark.parametrize(("expedition", "value"), SCORING_TABLE)
def test_expedition_value_follows_the_rules_table(expedition: str, value: int) -> None:
    assert expedition_value(cards(expedition)) == value


def test_round_score_is_the_sum_over_suits() -> None:
    r = deal("y2 y3 b5 b6 b7 g2 g3 g4", "w2 w3 w4 w5 w6 w7 w8 w9")
    for mine, theirs in [("+y2", "-w2"), ("+b5", "-w3"), ("+y3", "-w4")]:
        r.push_turn(Turn.parse(f"{mine} deck"))
        r.push_turn(Turn.parse(f"{theirs} deck"))
    assert r.score(0) == expedition_value(cards("y2 y3")) + expedition_value(cards("b5")) == -30
    assert r.score(1) == 0
    assert r.scores() == (-30, 0)


# ------------------------------------------------------------- legal plays


@pytest.mark.parametrize(
    ("before", "card", "legal"),
    [
        ("", "rH1", True),
        ("", "r2", True),
        ("", "r10", True),
        ("rH1", "rH2", True),  # several wagers in a row
        ("rH1 rH2", "rH3", True),
        ("rH1", "r2", True),
        ("r4", "r5", True),  # the seed's example: after a red 4, anything above
        ("r4", "r10", True),  # gaps allowed
        ("r4", "rH1", False),  # ... but never a wager,
        ("r4", "r2", False),  # a 2
        ("r4", "r3", False),  # or a 3
        ("rH1 r2", "rH2", False),
        ("r9", "r10", True),
    ],
)
def test_expedition_order(before: str, card: str, legal: bool) -> None:
    played = cards(before)
    target = Card.parse(card)
    others = [c for c in cards("y2 y3 y4 y5 y6 y7 y8 y9 y10") if c not in played][: 7 - len(played)]
    hand0 = [*played, target, *others]
    r = deal(" ".join(map(str, hand0)), "b2 b3 b4 b5 b6 b7 b8 b9")
    for c in played:
        r.push(PutDown(c))
        r.push(Draw())
        r.push(PutDown(r.hand(1)[0], discard=True))
        r.push(Draw())
    assert r.is_legal(PutDown(target)) is legal
    assert r.is_legal(PutDown(target, discard=True))  # a discard is always legal


ILLEGAL_CASES = [
    # (description, moves before, the illegal move, player, reason)
    ("wager after a number", ["+r4", "deck"], "+rH1", None, IllegalReason.WAGER_AFTER_NUMBER),
    ("not higher than the last", ["+r4", "deck"], "+r3", None, IllegalReason.NOT_HIGHER),
    ("card not in hand", [], "+b7", None, IllegalReason.CARD_NOT_IN_HAND),
    ("drawing back the discard", ["-r4"], "draw r", None, IllegalReason.DRAW_BACK_DISCARD),
    ("drawing from an empty pile", ["-r4"], "draw y", None, IllegalReason.EMPTY_PILE),
    ("not your turn", [], "+r4", 1, IllegalReason.NOT_YOUR_TURN),
    ("drawing before putting down", [], "draw deck", None, IllegalReason.MUST_PUT_DOWN_FIRST),
    ("two put-downs in one turn", ["+r4"], "+r5", None, IllegalReason.MUST_DRAW),
    ("a suit not in the game", [], "-pH1", None, IllegalReason.SUIT_NOT_IN_GAME),
]


def _parse_step(text: str) -> PutDown | Draw:
    try:
        return PutDown.parse(text)
    except InvalidMoveError:
        return Draw.parse(text)


@pytest.mark.parametrize(
    ("before", "move", "player", "reason"),
    [case[1:] for case in ILLEGAL_CASES],
    ids=[case[0] for case in ILLEGAL_CASES],
)
def test_illegal_moves_say_why(
    before: list[str], move: str, player: int | None, reason: IllegalReason
) -> None:
    r = deal("rH1 r3 r4 r5 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9")
    for step in before:
        r.push(_parse_step(step))
        if r.to_move == 1 and r.phase is Phase.PUT_DOWN:
            r.push(PutDown.parse("-b2" if Card.parse("b2") in r.hand(1) else "-b3"))
            r.push(Draw())
    illegal = _parse_step(move)
    with pytest.raises(IllegalMoveError) as info:
        r.push(illegal, player)
    assert info.value.reason is reason
    assert info.value.move == illegal
    assert reason.value in str(info.value)


def test_a_rejected_move_changes_nothing() -> None:
    r = deal("rH1 r3 r4 r5 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9")
    r.push(PutDown.parse("+r4"))
    r.push(Draw())
    r.push(PutDown.parse("-b2"))
    r.push(Draw())
    before = (str(r), r.move_stack)
    with pytest.raises(IllegalMoveError):
        r.push(PutDown.parse("+r3"))
    with pytest.raises(IllegalMoveError):
        r.push_turn(Turn.parse("-y2 draw y"))
    assert (str(r), r.move_stack) == before


def test_the_illegal_reason_names_the_expedition() -> None:
    r = deal("rH1 r3 r4 r5 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9")
    r.push(PutDown.parse("+r4"))
    r.push(Draw())
    r.push(PutDown.parse("-b2"))
    r.push(Draw())
    with pytest.raises(IllegalMoveError, match="the red expedition is r4"):
        r.push(PutDown.parse("+r3"))


def test_a_discard_can_be_drawn_by_the_opponent_next_turn() -> None:
    r = deal("rH1 r3 r4 r5 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9")
    r.push(PutDown.parse("-r4"))
    r.push(Draw())
    r.push(PutDown.parse("-b2"))
    r.push(Draw.parse("r"))
    assert Card.parse("r4") in r.hand(1)
    assert r.discard_pile(Suit.RED) == []
    assert r.view(0).opponent_known == {Card.parse("r4")}


def test_draw_from_another_pile_after_discarding() -> None:
    r = deal("rH1 r3 r4 r5 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9")
    r.push(PutDown.parse("-r4"))
    r.push(Draw())
    r.push(PutDown.parse("-b2"))
    r.push(Draw())
    r.push(PutDown.parse("-y2"))
    assert Draw.parse("draw b") in r.legal_moves()
    assert Draw.parse("draw y") not in r.legal_moves()
    r.push(Draw.parse("draw b"))
    assert Card.parse("b2") in r.hand(0)


# ---------------------------------------------------------------- round end


def test_the_round_ends_exactly_when_the_last_card_is_drawn() -> None:
    r = Round.new(7)
    rng = random.Random(7)
    while r.draw_pile_size > 1 or r.phase is not Phase.DRAW:
        assert not r.is_over
        moves = [m for m in r.legal_moves() if not (isinstance(m, Draw) and m.suit is not None)]
        r.push(rng.choice(moves))
    mover = r.to_move
    r.push(Draw())
    assert r.is_over and r.draw_pile_size == 0
    assert r.to_move == mover
    assert r.legal_moves() == []
    with pytest.raises(IllegalMoveError) as info:
        r.push(PutDown(r.hand(1 - mover)[0], discard=True))
    assert info.value.reason is IllegalReason.ROUND_OVER


def test_a_round_deals_eight_cards_each_and_leaves_the_rest_to_draw() -> None:
    for suits, pile in ((5, 44), (6, 56)):
        r = Round.new(1, suits=suits, starter=1)
        assert len(r.hand(0)) == len(r.hand(1)) == 8
        assert r.draw_pile_size == pile
        assert r.to_move == 1 and r.phase is Phase.PUT_DOWN
        assert all(not r.discard_pile(s) and not r.expedition(0, s) for s in r.suits)


def test_deal_follows_the_dealing_convention() -> None:
    order = Round.new(3).draw_pile()  # any 44 cards
    r = Round.new(3)
    full = [*r.hand(0), *r.hand(1), *r.draw_pile()]
    again = Round.deal(full)
    assert again.hand(0) == full[:8] and again.hand(1) == full[8:16]
    assert again.draw_pile() == full[16:] == order
    again.push(PutDown(full[0], discard=True))
    again.push(Draw())
    assert again.hand(0)[-1] == full[16]


def test_deal_rejects_a_deck_that_is_not_a_whole_deck() -> None:
    r = Round.new(3)
    full = [*r.hand(0), *r.hand(1), *r.draw_pile()]
    with pytest.raises(InvalidSetupError):
        Round.deal(full[:-1])
    with pytest.raises(InvalidSetupError):
        Round.deal([*full[:-1], full[0]])


# ----------------------------------------------------------- push and pop


@pytest.mark.slow
def test_pop_restores_every_position_exactly() -> None:
    r = Round.new(11)
    rng = random.Random(11)
    snapshots = []
    while not r.is_over:
        snapshots.append((str(r), r.view(0), r.view(1), r.turns_played))
        r.push(rng.choice(r.legal_moves()))
    while r.move_stack:
        r.pop()
        assert (str(r), r.view(0), r.view(1), r.turns_played) == snapshots.pop()


def test_copy_is_independent() -> None:
    r = Round.new(5)
    c = r.copy()
    c.push(c.legal_moves()[0])
    assert r.phase is Phase.PUT_DOWN and c.phase is Phase.DRAW


# ---------------------------------------------------------------- notation


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("play r7", PutDown(Card.parse("r7"))),
        ("+r7", PutDown(Card.parse("r7"))),
        ("p r7", PutDown(Card.parse("r7"))),
        ("discard gH2", PutDown(Card.parse("gH2"), discard=True)),
        ("-gH2", PutDown(Card.parse("gH2"), discard=True)),
        ("x gH2", PutDown(Card.parse("gH2"), discard=True)),
        ("draw deck", Draw()),
        ("deck", Draw()),
        ("draw r", Draw(Suit.RED)),
        ("draw red", Draw(Suit.RED)),
        ("g", Draw(Suit.GREEN)),
    ],
)
def test_moves_parse_from_text(text: str, move: PutDown | Draw) -> None:
    assert _parse_step(text) == move
    assert _parse_step(str(move)) == move
    assert eval(repr(move), {"PutDown": PutDown, "Draw": Draw}) == move
    assert move_from_code(move.code) == move


@pytest.mark.parametrize("text", ["", "play", "play r11", "draw", "draw q", "jump r7", "+r7 +r8"])
def test_bad_move_text_is_an_invalid_move_error(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        _parse_step(text)


@pytest.mark.parametrize(
    ("text", "turn"),
    [
        ("play r7, draw deck", Turn(PutDown(Card.parse("r7")), Draw())),
        ("+r7 deck", Turn(PutDown(Card.parse("r7")), Draw())),
        ("-b3 g", Turn(PutDown(Card.parse("b3"), True), Draw(Suit.GREEN))),
        ("discard yH1; draw w", Turn(PutDown(Card.parse("yH1"), True), Draw(Suit.WHITE))),
    ],
)
def test_turns_parse_and_print(text: str, turn: Turn) -> None:
    assert Turn.parse(text) == turn
    assert Turn.parse(str(turn)) == turn
    assert eval(repr(turn), {"Turn": Turn}) == turn


def test_bad_turn_text_is_an_invalid_move_error() -> None:
    with pytest.raises(InvalidMoveError):
        Turn.parse("+r7")
    with pytest.raises(InvalidMoveError):
        Turn.parse("+r7 +r8")


# ---------------------------------------------------------------------- views


def test_a_view_shows_own_hand_and_hides_the_opponents() -> None:
    r = deal("rH1 r3 r4 r5 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9")
    v = r.view(0)
    assert v.hand == tuple(sorted(cards("rH1 r3 r4 r5 y2 y3 y4 y5")))
    assert v.opponent_hand_size == 8 and v.opponent_known == frozenset()
    assert v.draw_pile_size == 44
    assert not any(c in v.hand for c in cards("b2 b3 b4 b5 b6 b7 b8 b9"))


def test_view_legal_turns_match_the_round() -> None:
    r = Round.new(21)
    v = r.view(0)
    for turn in v.legal_turns():
        r.push_turn(turn)
        r.pop()
        r.pop()
    assert len(v.legal_put_downs()) == len([m for m in r.legal_moves()])


def test_determinize_keeps_what_the_seat_knows() -> None:
    r = deal("rH1 r3 r4 r5 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9")
    r.push_turn(Turn.parse("-r4 deck"))
    r.push_turn(Turn.parse("-b2 r"))
    v = r.view(0)
    d = v.determinize(random.Random(1))
    assert d.view(0) == v
    assert Card.parse("r4") in d.hand(1)
    assert sorted(d.hand(0)) == sorted(r.hand(0))


# ---------------------------------------------------------------------- match


def test_the_leader_starts_the_next_round() -> None:
    m = Match(rounds=3, first_starter=1)
    assert m.start_round() == 1
    m.record_round((10, 30))
    assert m.start_round() == 1
    m.record_round((50, 0))
    assert m.totals == (60, 30)
    assert m.start_round() == 0


def test_on_equal_totals_the_other_player_starts() -> None:
    m = Match(rounds=3, first_starter=0)
    assert m.start_round() == 0
    m.record_round((10, 10))
    assert m.start_round() == 1
    m.record_round((-5, -5))
    assert m.start_round() == 0


def test_equal_final_totals_are_a_draw() -> None:
    m = Match(rounds=1)
    m.start_round()
    m.record_round((12, 12))
    assert m.is_over and m.outcome().is_draw and m.outcome().winner is None
    m2 = Match(rounds=2)
    m2.start_round()
    m2.record_round((12, 30))
    m2.start_round()
    m2.record_round((40, 0))
    assert m2.outcome().winner == 0 and m2.outcome().totals == (52, 30)


def test_a_match_is_three_rounds_by_default() -> None:
    m = Match()
    for _ in range(3):
        assert not m.is_over
        m.start_round()
        m.record_round((0, 1))
    assert m.is_over
    with pytest.raises(MatchStateError):
        m.start_round()
