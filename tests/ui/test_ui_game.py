"""The full-screen game, driven headless by keys against a real local match."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import ColorDepth

from lcnet.bots import LEVELS
from lcnet.errors import ExitCode
from lcnet.game.engine import Turn
from lcnet.game.seat import Seat
from lcnet.protocol.client import Update
from lcnet.protocol.events import DisputeInfo, DisputeRaised, MatchEnded, MatchOptions
from lcnet.protocol.status import Status
from lcnet.ui.game import GameUI
from lcnet.ui.turn import Confirm, Stage
from tests.localclient import LocalClient
from tests.uisupport import (
    ScriptedClient,
    SmallOutput,
    local_client,
    render,
    running,
    wait_until,
)

Scenario = Callable[[GameUI, PipeInput], Awaitable[None]]


def play(client: LocalClient, scenario: Scenario, *, monochrome: bool | None = None) -> int:
    """Run the game on ``client`` while ``scenario`` presses keys; return its exit code."""

    async def main() -> int:
        with create_pipe_input() as keys:
            ui = GameUI(client, input=keys, output=SmallOutput(), monochrome=monochrome)
            async with running(ui.run(), ui.app) as task:
                await scenario(ui, keys)
                code: int = await asyncio.wait_for(asyncio.shield(task), 60)
            return code

    return asyncio.run(main())


async def my_move(ui: GameUI) -> None:
    await wait_until(ui, ui.my_move, "the player's move")


def my_turns(ui: GameUI) -> int:
    return sum(1 for seat, _ in ui.tracker.turns if seat is ui.client.seat)


def turns_reach(ui: GameUI, count: int) -> Callable[[], bool]:
    """Whether the player has played ``count`` turns this round."""
    return lambda: my_turns(ui) >= count


def turn_or_end(ui: GameUI, turns_before: int) -> Callable[[], bool]:
    """Whether a turn was played since ``turns_before``, or a screen opened."""
    return lambda: len(ui.tracker.turns) > turns_before or bool(ui.screens)


async def quit_confirmed(ui: GameUI, keys: PipeInput) -> None:
    keys.send_text("q")
    await wait_until(ui, lambda: ui.turn.confirm is Confirm.QUIT, "the quit question")
    keys.send_text("y")


@pytest.mark.slow
def test_a_whole_turn_by_keys_choose_discard_draw_from_the_deck() -> None:
    client = local_client()
    seen: dict[str, object] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        before = my_turns(ui)
        hand = ui.hand()
        keys.send_text("2")
        await wait_until(ui, lambda: ui.turn.selected == 1, "the second card chosen")
        keys.send_text("d")
        await wait_until(ui, lambda: ui.turn.stage is Stage.DRAW, "the draw stage")
        seen["draw screen"] = render(ui.app)
        keys.send_text("d")
        await wait_until(ui, lambda: my_turns(ui) == before + 1, "the turn played")
        seen["played"] = ui.tracker.turns[-1] if ui.tracker.turns[-1][0] is Seat.HOST else None
        seen["discarded"] = hand[1]
        await my_move(ui)
        seen["after"] = render(ui.app)
        await quit_confirmed(ui, keys)

    assert play(client, scenario) == ExitCode.UNFINISHED
    screen = "\n".join(seen["after"])  # type: ignore[arg-type]
    assert f"you discarded {seen['discarded']} and drew" in screen
    assert "random bot" in screen  # the opponent's last move is shown too
    draw_screen = "\n".join(seen["draw screen"])  # type: ignore[arg-type]
    assert "[draw pile" in draw_screen and "then draw" in draw_screen


@pytest.mark.slow
def test_a_typed_turn_in_the_card_notation_is_played() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        before = my_turns(ui)
        card = ui.hand()[0]
        keys.send_text(f":-{card} deck\r")
        await wait_until(ui, lambda: my_turns(ui) == before + 1, "the typed turn played")
        assert ui.tracker.last_moves[Seat.HOST].startswith(f"you discarded {card} and drew")
        await quit_confirmed(ui, keys)

    assert play(client, scenario) == ExitCode.UNFINISHED


@pytest.mark.slow
def test_typing_plus_starts_a_command_and_a_lone_put_down_waits_for_the_draw() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        card = ui.hand()[0]
        keys.send_text(f"-{card}\r")
        await wait_until(ui, lambda: ui.turn.stage is Stage.DRAW, "the draw stage after a put-down")
        assert (
            ui.turn.put_down is not None
            and ui.turn.put_down.card == card
            and ui.turn.put_down.discard
        )
        keys.send_text("\x1b")  # Esc takes the card back
        await wait_until(ui, lambda: ui.turn.stage is Stage.CARD, "back to choosing a card")
        await quit_confirmed(ui, keys)

    play(client, scenario)


@pytest.mark.slow
def test_drawing_back_the_card_just_discarded_is_explained() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        card = ui.hand()[0]
        keys.send_text("1d")
        await wait_until(ui, lambda: ui.turn.stage is Stage.DRAW, "the draw stage")
        keys.send_text(card.suit.letter)
        await wait_until(ui, lambda: ui.message_is_error, "an explanation")
        assert "cannot be drawn back" in ui.message
        assert ui.turn.stage is Stage.DRAW  # still the player's choice to make
        await quit_confirmed(ui, keys)

    play(client, scenario)


@pytest.mark.slow
def test_a_card_not_in_hand_and_bad_notation_are_explained() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        view = ui.view()
        assert view is not None
        missing = next(c for c in view.unseen_cards())
        keys.send_text(f":+{missing} deck\r")
        await wait_until(ui, lambda: ui.message_is_error, "an explanation")
        assert "not in your hand" in ui.message
        keys.send_text(":+zz now\r")
        await wait_until(ui, lambda: "not a turn" in ui.message, "a notation error")
        await quit_confirmed(ui, keys)

    play(client, scenario)


@pytest.mark.slow
def test_an_unplayable_card_is_explained_when_played() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        # Play the highest card of a suit, then try a lower one of that suit.
        while True:
            await my_move(ui)
            view = ui.view()
            assert view is not None
            pairs = [
                (high, low)
                for high in view.hand
                for low in view.hand
                if high.suit == low.suit and low.rank < high.rank and view.can_play(high)
            ]
            if pairs:
                break
            before = my_turns(ui)
            keys.send_text(f":-{view.hand[0]} deck\r")
            await wait_until(ui, turns_reach(ui, before + 1), "a discard")
        high, low = pairs[0]
        before = my_turns(ui)
        keys.send_text(f":+{high} deck\r")
        await wait_until(ui, lambda: my_turns(ui) == before + 1, "the high card played")
        await my_move(ui)
        keys.send_text(f"{ui.hand().index(low) + 1}p")
        await wait_until(ui, lambda: ui.message_is_error, "an explanation")
        assert "must be higher" in ui.message or "cannot follow" in ui.message
        assert ui.turn.stage is Stage.CARD
        await quit_confirmed(ui, keys)

    play(client, scenario)


@pytest.mark.slow
def test_a_whole_match_ends_with_round_summary_and_final_result() -> None:
    client = local_client(rounds=1)
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        while not ui.screens:
            await wait_until(ui, lambda: ui.my_move() or bool(ui.screens), "a move or the end")
            if ui.screens:
                break
            before = len(ui.tracker.turns)
            keys.send_text("dd")  # discard the chosen card, draw from the deck
            await wait_until(ui, turn_or_end(ui, before), "the turn")
        await wait_until(ui, lambda: ui.tracker.ended is not None, "the match's end")
        seen["summary"] = render(ui.app)
        keys.send_text("\r")
        await wait_until(ui, lambda: ui.screens[0].kind is MatchEnded, "the final result")
        seen["final"] = render(ui.app)
        keys.send_text("q")  # a finished match quits without a question

    assert play(client, scenario) == ExitCode.FINISHED
    summary = "\n".join(seen["summary"])
    assert "Round 1 is over" in summary
    assert "(" in summary and " - 20) × " in summary  # each expedition's computation
    assert "match:" in summary
    final = "\n".join(seen["final"])
    assert "The match is over" in final
    assert "not saved" in final  # a local match has no replay file


@pytest.mark.slow
def test_quitting_asks_first_and_no_keeps_playing() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text("q")
        await wait_until(ui, lambda: ui.turn.confirm is Confirm.QUIT, "the quit question")
        assert "Quit the unfinished match (it is not saved" in "\n".join(render(ui.app))
        keys.send_text("n")
        await wait_until(ui, lambda: ui.turn.confirm is None, "the answer no")
        assert ui.app.is_running
        keys.send_text("\x03")  # Ctrl-C asks too, and a second one confirms
        await wait_until(ui, lambda: ui.turn.confirm is Confirm.QUIT, "the quit question")
        keys.send_text("\x03")

    assert play(client, scenario) == ExitCode.UNFINISHED


@pytest.mark.slow
def test_resigning_asks_first_then_ends_the_match() -> None:
    client = local_client()
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text("R")
        await wait_until(ui, lambda: ui.turn.confirm is Confirm.RESIGN, "the resign question")
        keys.send_text("y")
        await wait_until(ui, lambda: ui.tracker.ended is not None, "the end of the match")
        seen["final"] = render(ui.app)
        keys.send_text("q")

    assert play(client, scenario) == ExitCode.FINISHED
    assert "you resigned: random bot wins" in "\n".join(seen["final"])


@pytest.mark.slow
@pytest.mark.parametrize("bot_agrees", [True, False])
def test_the_result_screen_offers_another_match_and_a_asks_for_it(bot_agrees: bool) -> None:
    client = local_client(bot_rematch=bot_agrees)
    seen: dict[str, str] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text("R")
        await wait_until(ui, lambda: ui.turn.confirm is Confirm.RESIGN, "the resign question")
        keys.send_text("y")
        await wait_until(ui, lambda: ui.tracker.ended is not None, "the end of the match")
        seen["offer"] = "\n".join(render(ui.app))
        keys.send_text("a")  # with a bot that declined, nothing to ask: `a` does nothing
        if not bot_agrees:
            keys.send_text("q")

    assert play(client, scenario) == ExitCode.FINISHED
    offer = re.sub(r"\s+", " ", seen["offer"])
    if bot_agrees:
        assert "random bot asks for another match, with the seats swapped" in offer
        assert client.rematches == 1  # `a` agreed, and the screen left for the next match
    else:
        assert "random bot does not want another match. Press q to leave." in offer
        assert client.rematches == 0


@pytest.mark.slow
def test_a_dispute_says_what_the_opponent_did_and_where_the_evidence_is() -> None:
    client = ScriptedClient(options=MatchOptions(rounds=1))
    client.replay = Path("replays/match-host.lcnet")
    seen: dict[str, list[str]] = {}
    dispute = DisputeInfo(
        offender=Seat.JOINER,
        seq=41,
        frame_hash=b"\0" * 32,
        reason="r9 is played as a public card, but the joiner took no such card",
        detected_by=Seat.HOST,
    )

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        client.inject(Update(event=DisputeRaised(dispute)))
        client.inject(Update(status=Status.DISPUTE))
        await wait_until(ui, lambda: ui.tracker.dispute is not None, "the dispute")
        seen["screen"] = render(ui.app)
        keys.send_text("q")  # a stopped match quits without a question

    assert play(client, scenario) == ExitCode.DISPUTE
    screen = " ".join(line.strip() for line in seen["screen"])
    assert "random bot broke the rules in frame 41" in screen
    assert "took no such card" in screen
    assert f"lcnet audit {client.replay}" in screen


@pytest.mark.slow
def test_a_lost_opponent_is_shown_with_what_to_do() -> None:
    client = ScriptedClient(options=MatchOptions(rounds=1))
    client.replay = Path("replays/match-host.lcnet")
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        client.inject(Update(status=Status.DISCONNECTED))
        await wait_until(ui, lambda: ui.tracker.status is Status.DISCONNECTED, "disconnected")
        seen["lost"] = render(ui.app)
        client.inject(Update(status=Status.PLAYING))
        await wait_until(ui, lambda: ui.tracker.status is Status.PLAYING, "reconnected")
        seen["back"] = render(ui.app)
        await quit_confirmed(ui, keys)

    play(client, scenario)
    lost = " ".join(line.strip() for line in seen["lost"])
    assert "random bot is disconnected" in lost
    assert f"lcnet resume {client.replay}" in lost
    assert "disconnected" not in " ".join(seen["back"])


@pytest.mark.slow
def test_the_help_screen_opens_and_closes() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text("?")
        await wait_until(ui, lambda: ui.help_open, "the help screen")
        screen = "\n".join(render(ui.app))
        assert "+r7 deck" in screen and "Esc, Enter, ?: back" in screen
        assert all(level in screen for level in LEVELS), "the help says what each level is"
        keys.send_text("\r")
        await wait_until(ui, lambda: not ui.help_open, "the board again")
        await quit_confirmed(ui, keys)

    play(client, scenario)


@pytest.mark.slow
def test_a_long_message_wraps_between_words() -> None:
    client = local_client()
    words = [f"word{n}" for n in range(60)]  # far more than three rows of 80
    seen: list[str] = []

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        ui._say(" ".join(words))
        seen.extend(render(ui.app))
        await quit_confirmed(ui, keys)

    play(client, scenario)
    rows = [row.strip() for row in seen if "word" in row]
    assert 1 < len(rows) <= 3
    for row in rows[:-1]:
        assert all(token in words for token in row.split()), row  # no word cut in two
    assert rows[-1].endswith("~"), "what does not fit is cut, and says so"


@pytest.mark.slow
@pytest.mark.parametrize("suits", [5, 6])
def test_the_game_fits_an_80x24_terminal(suits: int) -> None:
    client = local_client(suits=suits)
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        seen["screen"] = render(ui.app)
        seen["hand"] = [str(c) for c in ui.hand()]
        await quit_confirmed(ui, keys)

    play(client, scenario)
    screen = seen["screen"]
    assert "YOUR MOVE" in screen[-1] and "q quit" in screen[-1]  # the status bar is the last row
    hand_row = next(row for row in screen if row.startswith("your hand"))
    assert all(card in hand_row for card in seen["hand"])
    assert sum(1 for row in screen if re.fullmatch(r" +draw pile \d+", row)) == 1


@pytest.mark.slow
def test_no_color_turns_colours_off_and_keeps_the_suit_letters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    client = local_client()
    seen: dict[str, object] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        seen["depth"] = ui.app.color_depth
        seen["mono"] = ui.monochrome
        seen["screen"] = render(ui.app)
        seen["hand"] = [str(c) for c in ui.hand()]
        await quit_confirmed(ui, keys)

    play(client, scenario)
    assert seen["mono"] is True
    assert seen["depth"] is ColorDepth.DEPTH_1_BIT
    hand_row = next(row for row in seen["screen"] if row.startswith("your hand"))  # type: ignore[attr-defined]
    assert all(card in hand_row for card in seen["hand"])  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_client_that_gives_up_is_shown_with_how_to_resume() -> None:
    client = ScriptedClient(options=MatchOptions(rounds=1))
    client.replay = Path("replays/match-host.lcnet")
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        client.inject(Update(notice="the host stopped answering"))
        client.inject(Update(status=Status.OVER))
        await wait_until(ui, lambda: ui.tracker.stopped_early, "the stop")
        seen["screen"] = render(ui.app)
        keys.send_text("q")  # nothing more can happen: no question

    assert play(client, scenario) == ExitCode.UNFINISHED
    screen = " ".join(line.strip() for line in seen["screen"])
    assert "The host stopped answering" in screen
    assert "lcnet resume replays/match-host.lcnet" in screen


def test_before_the_deal_the_screen_waits_and_shows_the_players_key() -> None:
    client = local_client()

    async def show() -> list[str]:
        with create_pipe_input() as keys:
            return render(GameUI(client, input=keys, output=SmallOutput()).app)

    screen = "\n".join(asyncio.run(show()))
    assert "Shuffling and dealing" in screen
    assert "you: you (host), key " in screen
    assert "dealing..." in screen.splitlines()[-1]


@pytest.mark.slow
def test_h_shows_the_bots_hint_and_chooses_its_card() -> None:
    client = local_client()
    seen: dict[str, object] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text("h")
        await wait_until(ui, lambda: ui.message.startswith("hint: "), "the hint")
        seen["message"] = ui.message
        seen["selected"] = ui.turn.selected_card()
        seen["screen"] = render(ui.app)
        await quit_confirmed(ui, keys)

    assert play(client, scenario) == ExitCode.UNFINISHED
    message = str(seen["message"])
    notation = message.removeprefix("hint: ").partition(": ")[0]
    turn = Turn.parse(notation)
    assert seen["selected"] == turn.put_down.card  # the suggested card comes chosen
    assert "hint: " in "\n".join(seen["screen"])  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_typed_hint_asks_the_bot_too() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text(":hint\r")
        await wait_until(ui, lambda: ui.message.startswith("hint: "), "the hint")
        await quit_confirmed(ui, keys)

    assert play(client, scenario) == ExitCode.UNFINISHED


@pytest.mark.slow
def test_no_hint_when_it_is_not_your_move() -> None:
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        ui.turn.sending = True  # as while a move is being sent
        ui.ask_hint()
        assert ui.message == "your move is being sent" and ui.message_is_error
        assert not ui.hinting
        ui.turn.sending = False
        await quit_confirmed(ui, keys)

    assert play(client, scenario) == ExitCode.UNFINISHED


@pytest.mark.slow
def test_esc_leaves_the_command_line_at_once_and_keeps_the_next_key() -> None:
    # Esc waited for a longer key sequence (Meta-digit is the command line's
    # own binding), so it took 1-1.5 s and a digit typed right after it was
    # swallowed (issue 44, point 11). Esc and the digit arrive together here.
    client = local_client()

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text(":")
        await wait_until(ui, lambda: ui.app.layout.has_focus(ui.command), "the command line")
        keys.send_text("\x1b2")
        await wait_until(ui, lambda: ui.turn.selected == 1, "the second card chosen")
        assert not ui.app.layout.has_focus(ui.command) and ui.command.text == ""
        await quit_confirmed(ui, keys)

    assert play(client, scenario) == ExitCode.UNFINISHED


@pytest.mark.slow
def test_the_card_line_says_start_when_there_is_no_expedition_yet() -> None:
    # It said "p: play on your red expedition" before there was one (issue 44,
    # point 15).
    client = local_client()
    seen: dict[str, str] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text("1")
        await wait_until(ui, lambda: ui.turn.selected == 0, "the first card chosen")
        seen["card"] = str(ui.hand()[0])
        seen["screen"] = "\n".join(render(ui.app))
        await quit_confirmed(ui, keys)

    play(client, scenario)
    assert "p: start a " in seen["screen"] and "p: play on your" not in seen["screen"]


@pytest.mark.slow
def test_a_host_waiting_for_its_opponent_again_shows_where_it_listens() -> None:
    # A resumed host (or one whose opponent dropped) said where it listens
    # only on stderr, behind the full screen (issue 44, point 10).
    client = ScriptedClient(options=MatchOptions(rounds=1))
    client.replay = Path("replays/match-host.lcnet")
    client.addresses = ("127.0.0.1:48150", "[::1]:48150")
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        client.inject(Update(status=Status.DISCONNECTED))
        await wait_until(ui, lambda: ui.tracker.status is Status.DISCONNECTED, "disconnected")
        seen["lost"] = render(ui.app)
        client.inject(Update(status=Status.WAITING_FOR_PEER))  # as a resumed host starts
        await wait_until(ui, lambda: ui.tracker.status is Status.WAITING_FOR_PEER, "waiting")
        seen["resumed"] = render(ui.app)
        await quit_confirmed(ui, keys)

    play(client, scenario)
    resumed = " ".join(line.strip() for line in seen["resumed"])
    assert "waiting for the opponent to connect; listening on 127.0.0.1:48150" in resumed
    lost = " ".join(line.strip() for line in seen["lost"])
    assert "listening on 127.0.0.1:48150 (and 1 more)" in lost
    assert f"lcnet resume {client.replay}" in lost
