"""The turn input on its own: a real view of a dealt round, no screen, no prompt_toolkit."""

from __future__ import annotations

from dataclasses import dataclass, field

from lcnet.game.engine import Draw, PutDown, Round, Turn, View
from lcnet.ui.turn import Confirm, Do, Say, Send, Stage, TurnInput


@dataclass
class FakeMatch:
    """What the turn input reads of the match, set by each test."""

    over: bool = False
    error: str | None = None
    opponent: str = "Bob"
    opponent_known: bool = True
    moving: bool = True
    view: View | None = field(default_factory=lambda: Round.new(5).view(0))

    def may_move(self) -> bool:
        return self.moving


def turn_input(match: FakeMatch | None = None) -> tuple[TurnInput, FakeMatch]:
    match = match or FakeMatch()
    return TurnInput(match, lambda: match.view), match


def errors(effects: list[object]) -> list[str]:
    return [e.text for e in effects if isinstance(e, Say) and e.error]


def test_a_number_chooses_that_card_and_one_past_the_hand_is_explained() -> None:
    turn, _ = turn_input()
    assert turn.pick(3) == [] and turn.selected == 2
    size = len(turn.hand())
    assert errors(turn.pick(size + 1)) == [f"there is no card {size + 1} in your hand"]
    assert turn.selected == 2


def test_the_arrows_wrap_around_the_hand() -> None:
    turn, _ = turn_input()
    turn.move_selection(-1)
    assert turn.selected == len(turn.hand()) - 1
    turn.move_selection(+1)
    assert turn.selected == 0


def test_a_discard_waits_for_the_draw_and_esc_takes_it_back() -> None:
    turn, _ = turn_input()
    card = turn.hand()[0]
    assert turn.put_selected(discard=True) == [
        Say(f"{PutDown(card, discard=True)}: now choose where to draw from")
    ]
    assert turn.stage is Stage.DRAW and turn.put_down == PutDown(card, discard=True)
    assert turn.take_back() == [Say("choose a card")]
    assert turn.stage is Stage.CARD and turn.put_down is None


def test_the_card_just_discarded_cannot_be_drawn_back() -> None:
    turn, _ = turn_input()
    card = turn.hand()[0]
    turn.put_selected(discard=True)
    [problem] = errors(turn.choose_draw(Draw(card.suit)))
    assert "cannot be drawn back" in problem
    assert turn.stage is Stage.DRAW and not turn.sending


def test_a_draw_before_a_put_down_is_explained() -> None:
    turn, _ = turn_input()
    assert errors(turn.choose_draw(Draw(None))) == ["first choose a card to play or discard"]


def test_a_legal_turn_is_sent_once_and_the_next_starts_from_the_first_card() -> None:
    turn, _ = turn_input()
    turn.pick(2)
    card = turn.hand()[1]
    turn.put_selected(discard=True)
    expected = Turn(PutDown(card, discard=True), Draw(None))
    assert turn.choose_draw(Draw(None)) == [Send(expected), Say(f"sending: {expected}")]
    assert turn.sending and not turn.my_move()
    assert errors(turn.choose_draw(Draw(None))) == ["your move is being sent"]
    turn.sent()
    assert (turn.stage, turn.selected, turn.put_down, turn.sending) == (Stage.CARD, 0, None, False)


def test_a_turn_not_sent_may_be_sent_again() -> None:
    turn, _ = turn_input()
    turn.put_selected(discard=True)
    turn.choose_draw(Draw(None))
    turn.not_sent()
    assert turn.my_move() and turn.stage is Stage.DRAW
    assert isinstance(turn.choose_draw(Draw(None))[0], Send)


def test_why_no_move_can_be_made_now() -> None:
    turn, match = turn_input(FakeMatch(moving=False))
    assert errors(turn.put_selected(discard=False)) == ["wait: it is Bob's turn"]
    match.view = None
    assert errors(turn.hint()) == ["the cards are not dealt yet"]
    match.over = True
    assert errors(turn.hint()) == ["the match is over: press q to leave"]


def test_enter_before_p_or_d_says_what_chooses_the_put_down() -> None:
    turn, _ = turn_input()
    [hint] = errors(turn.hint())
    assert hint.startswith(f"{turn.hand()[0]} is chosen: press p to play it")


def test_quitting_asks_first_unless_the_match_cannot_go_on() -> None:
    turn, match = turn_input()
    assert turn.ask(Confirm.QUIT) == [] and turn.confirm is Confirm.QUIT
    assert turn.cancelled() == [Say("cancelled")] and turn.confirm is None
    turn.ask(Confirm.QUIT)
    assert turn.confirmed() == [Do.EXIT] and turn.confirm is None
    match.error = "the connection failed"
    assert turn.ask(Confirm.QUIT) == [Do.EXIT]


def test_quitting_before_anyone_joined_asks_nothing() -> None:
    # A host waiting for an opponent asked "Quit the unfinished match?" (issue
    # 57, point 8): nobody joined, so no match would be lost.
    turn, _ = turn_input(FakeMatch(opponent_known=False))
    assert turn.ask(Confirm.QUIT) == [Do.EXIT] and turn.confirm is None
    assert turn.interrupt() == [Do.EXIT]


def test_a_second_ctrl_c_quits() -> None:
    turn, _ = turn_input()
    assert turn.interrupt() == [] and turn.confirm is Confirm.QUIT
    assert turn.interrupt() == [Do.EXIT]


def test_resigning_asks_first_and_a_finished_match_has_nothing_to_resign() -> None:
    turn, match = turn_input()
    turn.ask(Confirm.RESIGN)
    assert turn.confirmed() == [Say("resigning..."), Do.RESIGN]
    match.over = True
    assert errors(turn.ask(Confirm.RESIGN)) == ["the match is over: there is nothing to resign"]
    assert turn.confirm is None


def test_typed_commands_help_quit_and_resign() -> None:
    turn, _ = turn_input()
    assert turn.run_command("  ") == []
    assert turn.run_command("HELP") == [Do.HELP]
    turn.run_command("resign")
    assert turn.confirm is Confirm.RESIGN
    turn.run_command("quit")
    assert turn.confirm is Confirm.QUIT


def test_a_typed_put_down_waits_for_a_typed_draw() -> None:
    turn, _ = turn_input()
    card = turn.hand()[0]
    turn.run_command(f"-{card}")
    assert turn.stage is Stage.DRAW and turn.put_down == PutDown(card, discard=True)
    assert isinstance(turn.run_command("deck")[0], Send)


def test_a_typed_turn_is_sent_whole_and_bad_notation_is_explained() -> None:
    turn, _ = turn_input()
    card = turn.hand()[0]
    assert turn.run_command(f"-{card} deck")[0] == Send(
        Turn(PutDown(card, discard=True), Draw(None))
    )
    turn.sent()
    [problem] = errors(turn.run_command("+zz now"))
    assert "not a turn" in problem


def test_the_end_of_the_match_drops_the_half_turn_and_the_question() -> None:
    turn, _ = turn_input()
    turn.put_selected(discard=True)
    turn.ask(Confirm.RESIGN)
    turn.stop()
    assert (turn.stage, turn.put_down, turn.confirm) == (Stage.CARD, None, None)
