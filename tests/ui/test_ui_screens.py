"""The full-screen game at other terminal sizes, its move history and its smaller hints.

Driven headless through the prompt_toolkit application against a real local
match, as tests/ui/test_ui_game.py does, with an output whose size a test sets
(and changes, as a terminal's resize does).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input

from lcnet.deck.deal import HAND_SIZE
from lcnet.errors import ExitCode
from lcnet.game.seat import Seat
from lcnet.protocol.events import TurnPlayed
from lcnet.run import localmatch
from lcnet.ui.game import MIN_COLUMNS, MIN_ROWS, GameUI, status_line
from lcnet.ui.gamekeys import HELP_TEXT
from lcnet.ui.tracker import pile_draws
from lcnet.ui.turn import Confirm, Stage
from tests.localclient import LocalClient
from tests.uisupport import (
    SizedOutput,
    bot_match,
    local_client,
    render,
    running,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[2]
LONG_NOT_A_TURN = "this is certainly not a turn"


Scenario = Callable[[GameUI, PipeInput], Awaitable[None]]


def play(client: LocalClient, output: SizedOutput, scenario: Scenario) -> int:
    async def main() -> int:
        with create_pipe_input() as keys:
            ui = GameUI(client, input=keys, output=output)
            async with running(ui.run(), ui.app) as task:
                await scenario(ui, keys)
                code: int = await asyncio.wait_for(asyncio.shield(task), 60)
            return code

    return asyncio.run(main())


def screen_of(ui: GameUI) -> list[str]:
    size = ui.app.output.get_size()
    return render(ui.app, size.columns, size.rows)


async def my_move(ui: GameUI) -> None:
    await wait_until(ui, ui.my_move, "the player's move")


async def quit_confirmed(ui: GameUI, keys: PipeInput) -> None:
    keys.send_text("q")
    await wait_until(ui, lambda: ui.turn.confirm is Confirm.QUIT, "the quit question")
    keys.send_text("y")


async def discard_first(ui: GameUI, keys: PipeInput) -> None:
    """One whole turn: discard the first card, draw from the deck."""
    await my_move(ui)
    mine = sum(1 for seat, _ in ui.tracker.turns if seat is ui.client.seat)
    keys.send_text("1dd")
    await wait_until(
        ui,
        lambda: sum(1 for seat, _ in ui.tracker.turns if seat is ui.client.seat) > mine,
        "the turn played",
    )


def turn_or_end(ui: GameUI, turns_before: int) -> Callable[[], bool]:
    return lambda: len(ui.tracker.turns) > turns_before or bool(ui.screens)


# ------------------------------------------------------------ terminal sizes


@pytest.mark.slow
def test_a_long_message_uses_a_wide_terminal_whole() -> None:
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text(f":{LONG_NOT_A_TURN}\r")
        await wait_until(ui, lambda: "not a turn" in ui.message, "the notation error")
        seen["screen"] = screen_of(ui)
        await quit_confirmed(ui, keys)

    play(local_client(), SizedOutput(110, 30), scenario)
    screen = seen["screen"]
    message = next(row for row in screen if row.startswith("not a turn"))
    assert len(message) > 80 and message.endswith("'-b3 g')")  # on one row, not cut
    assert not any(row.endswith("~") for row in screen)
    assert len(screen[-1]) > 100 and screen[-1].endswith("q quit")  # the status bar's full width


@pytest.mark.slow
def test_a_long_message_wraps_on_an_80_column_terminal() -> None:
    seen: dict[str, object] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text(f":{LONG_NOT_A_TURN}\r")
        await wait_until(ui, lambda: "not a turn" in ui.message, "the notation error")
        seen["screen"] = screen_of(ui)
        seen["message"] = ui.message
        await quit_confirmed(ui, keys)

    play(local_client(), SizedOutput(80, 24), scenario)
    screen: list[str] = seen["screen"]  # type: ignore[assignment]
    start = next(i for i, row in enumerate(screen) if row.startswith("not a turn"))
    message = str(seen["message"])
    assert len(message) > 80
    # Both rows, nothing cut, broken between words.
    assert " ".join(row.rstrip() for row in screen[start : start + 2]) == message
    assert "YOUR MOVE" in screen[-1]  # the status bar is still the last row


@pytest.mark.slow
def test_a_terminal_too_small_asks_for_the_size_and_the_board_comes_back_on_resize() -> None:
    output = SizedOutput(60, 15)
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        seen["small"] = screen_of(ui)
        output.size = Size(rows=30, columns=100)  # the player makes the window larger
        seen["resized"] = screen_of(ui)
        output.size = Size(rows=15, columns=60)
        await quit_confirmed(ui, keys)  # q still quits, with its question on the small screen

    assert play(local_client(), output, scenario) == ExitCode.UNFINISHED
    small = " ".join(seen["small"])
    assert f"make the terminal at least {MIN_COLUMNS}×{MIN_ROWS}" in small
    assert "It is 60×15" in small
    assert all(len(row) <= 60 for row in seen["small"])
    resized = seen["resized"]
    assert any(row.startswith("your hand") for row in resized)
    assert "YOUR MOVE" in resized[-1]


def test_a_terminal_one_row_short_gets_the_size_screen_too() -> None:
    client = local_client()

    async def show() -> list[str]:
        with create_pipe_input() as keys:
            ui = GameUI(client, input=keys, output=SizedOutput(MIN_COLUMNS, MIN_ROWS - 1))
            return screen_of(ui)

    assert "make the terminal at least" in " ".join(asyncio.run(show()))


# ------------------------------------------------------------ move history


@pytest.mark.slow
def test_the_move_history_lists_every_turn_of_the_round_in_order() -> None:
    seen: dict[str, object] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        for _ in range(3):
            await discard_first(ui, keys)
        await my_move(ui)
        seen["turns"] = [seat for seat, _ in ui.tracker.turns]
        keys.send_text("m")
        await wait_until(ui, lambda: ui.history_open, "the move history")
        seen["history"] = screen_of(ui)
        keys.send_text("m")
        await wait_until(ui, lambda: not ui.history_open, "the board again")
        seen["help"] = HELP_TEXT
        await quit_confirmed(ui, keys)

    play(local_client(), SizedOutput(80, 24), scenario)
    turns: list[Seat] = seen["turns"]  # type: ignore[assignment]
    history: list[str] = seen["history"]  # type: ignore[assignment]
    rows = [row.strip() for row in history if row.strip()[:1].isdigit()]
    assert len(rows) == len(turns) >= 6
    for number, (row, seat) in enumerate(zip(rows, turns, strict=True), start=1):
        who = "you " if seat is Seat.HOST else "random bot "
        assert row.startswith(f"{number}  {who}"), row
    assert any(" drew " in row for row in rows if "  you " in f"  {row[3:]}")
    assert "Round 1: every move, in order" in "\n".join(history)
    assert "every move of this round" in str(seen["help"])


@pytest.mark.slow
def test_a_long_history_scrolls_and_shows_the_latest_move_first() -> None:
    seen: dict[str, list[str] | list[int]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        for _ in range(12):
            await discard_first(ui, keys)
        await my_move(ui)
        seen["count"] = [len(ui.tracker.turns)]
        keys.send_text("m")
        await wait_until(ui, lambda: ui.history_open, "the move history")
        seen["end"] = screen_of(ui)
        keys.send_text("\x1b[5~")  # PageUp
        await wait_until(ui, lambda: ui.history_scroll > 0, "scrolled back")
        seen["back"] = screen_of(ui)
        keys.send_text("\r")
        await wait_until(ui, lambda: not ui.history_open, "the board again")
        await quit_confirmed(ui, keys)

    play(local_client(), SizedOutput(80, 24), scenario)

    def numbers(screen: object) -> list[int]:
        assert isinstance(screen, list)
        return [int(row.split()[0]) for row in screen if row.strip()[:1].isdigit()]

    end, back = numbers(seen["end"]), numbers(seen["back"])
    count = seen["count"][0]  # type: ignore[index]
    assert end == list(range(end[0], count + 1)) and end[0] > 1  # the latest turns, in order
    assert back[0] < end[0] and back == sorted(back)
    assert "YOUR MOVE" in str(seen["end"][-1])


# ------------------------------------------------------------ hints and status


@pytest.mark.slow
def test_enter_with_a_card_chosen_says_to_press_p_or_d() -> None:
    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        card = ui.hand()[0]
        keys.send_text("\r")
        await wait_until(ui, lambda: "press p" in ui.message, "a hint")
        assert str(card) in ui.message and "d to discard" in ui.message
        assert ui.turn.stage is Stage.CARD
        await quit_confirmed(ui, keys)

    play(local_client(), SizedOutput(80, 24), scenario)


@pytest.mark.slow
def test_the_status_bar_does_not_say_your_move_during_the_round_summary() -> None:
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        while not ui.screens:
            await wait_until(ui, lambda: ui.my_move() or bool(ui.screens), "a move or the end")
            if ui.screens:
                break
            before = len(ui.tracker.turns)
            keys.send_text("dd")
            await wait_until(ui, turn_or_end(ui, before), "the turn")
        # Round 2 goes on behind the summary until it is the player's move.
        await wait_until(ui, lambda: ui.my_move() and bool(ui.screens), "round 2's first move")
        seen["summary"] = screen_of(ui)
        keys.send_text("\r")
        await wait_until(ui, lambda: not ui.screens, "the board of round 2")
        seen["board"] = screen_of(ui)
        await quit_confirmed(ui, keys)

    play(local_client(rounds=2), SizedOutput(80, 24), scenario)
    assert "Round 1 is over" in "\n".join(seen["summary"])
    assert "YOUR MOVE" not in seen["summary"][-1]
    assert "round 1 is over: Enter goes on" in seen["summary"][-1]
    assert "YOUR MOVE" in seen["board"][-1]


@pytest.mark.slow
def test_a_resumed_round_shows_the_last_moves_from_the_transcript() -> None:
    client = local_client()

    async def two_turns(ui: GameUI, keys: PipeInput) -> None:
        await discard_first(ui, keys)
        await discard_first(ui, keys)
        await my_move(ui)
        await quit_confirmed(ui, keys)

    play(client, SizedOutput(80, 24), two_turns)

    async def show() -> list[str]:
        # A new screen on the same session, mid-round: what `lcnet resume` starts with.
        with create_pipe_input() as keys:
            return screen_of(GameUI(client, input=keys, output=SizedOutput(80, 24)))

    screen = asyncio.run(show())
    last = [row for row in screen if row.strip().startswith("last:")]
    assert len(last) == 2
    assert "random bot " in last[0] and "you discarded " in last[1]


def test_the_card_keys_in_the_help_the_play_command_and_the_code_agree() -> None:
    keys = f"1-{HAND_SIZE}"
    assert f"Left/Right, {keys}  choose one" in HELP_TEXT
    from lcnet.cli.play import EPILOG

    assert f"arrows or {keys} select a card" in EPILOG
    seen: dict[str, str] = {}

    async def scenario(ui: GameUI, keys_in: PipeInput) -> None:
        await my_move(ui)
        keys_in.send_text(str(HAND_SIZE))
        await wait_until(ui, lambda: ui.turn.selected == HAND_SIZE - 1, "the last card chosen")
        keys_in.send_text(str(HAND_SIZE + 1))
        await wait_until(ui, lambda: ui.message_is_error, "no such card")
        seen["message"] = ui.message
        await quit_confirmed(ui, keys_in)

    play(local_client(), SizedOutput(80, 24), scenario)
    assert seen["message"] == f"there is no card {HAND_SIZE + 1} in your hand"


@pytest.mark.slow
def test_at_80_columns_the_status_bar_never_cuts_the_state_the_keys_give_way() -> None:
    """Issue 44, point 15: "waiting for <a long name> to move..." was cut with ~."""
    keys = ["? help  m moves  : type  R resign  q quit ", "? help  m moves  R resign  q quit "]
    keys.append("? help  q quit ")
    for state, shown in (
        ("YOUR MOVE: choose where to draw from", keys[0]),  # exactly 80 columns
        (f"waiting for {'Maximilian Alexander Ro'[:20]} to move...", keys[1]),
        (f"{'Maximilian Alexander'} is disconnected, {'x' * 20}", keys[2]),
    ):
        line = "".join(text for _, text, *_ in status_line(state, keys, 80))
        assert line.startswith(f" {state} ") and line.endswith(shown), line
        assert "~" not in line and len(line) <= 80
    seen: dict[str, list[str]] = {}

    async def scenario(ui: GameUI, keys: PipeInput) -> None:
        await my_move(ui)
        keys.send_text("1d")
        await wait_until(ui, lambda: ui.turn.stage is Stage.DRAW, "the draw stage")
        seen["draw"] = screen_of(ui)
        keys.send_text("d")
        await quit_confirmed(ui, keys)

    play(local_client(), SizedOutput(80, 24), scenario)
    assert seen["draw"][-1] == " YOUR MOVE: choose where to draw from " + keys[0].rstrip()


@pytest.mark.slow
def test_a_resumed_round_tells_its_pile_draws_as_live_play_did() -> None:
    """Issue 44, point 15: after a resume, "took g2 from the green pile"
    became "took the top card from the green pile"."""
    peers = bot_match(rounds=1, suits=5, seed=11)
    localmatch.run(peers)
    played = [e for e in peers[Seat.HOST].events if isinstance(e, TurnPlayed)]
    rebuilt = pile_draws([(e.seat, e.turn) for e in played])
    live = [e.drawn if e.turn.draw.suit is not None else None for e in played]
    assert rebuilt == live
    assert any(card is not None for card in live), "the match has pile draws"
