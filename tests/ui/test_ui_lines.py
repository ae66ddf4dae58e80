"""The plain line mode, driven through an in-memory stdin against a real local match."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, cast

import pytest

from lcnet.errors import ExitCode
from lcnet.game.engine import Turn, View
from lcnet.game.seat import Seat
from lcnet.protocol.client import Update
from lcnet.protocol.events import DisputeInfo, DisputeRaised, MatchOptions
from lcnet.protocol.status import Status
from lcnet.ui import run_match_ui
from lcnet.ui.lines import run_lines
from tests.localclient import LocalClient
from tests.uisupport import TIMEOUT, ScriptedClient, local_client

Answer = str | Callable[[View], str]


class ScriptInput:
    """A stdin whose lines are written as they are read, like a player who sees
    the table: each answer is a line, or a function of the player's view.
    After the answers, ``then`` (if any) answers every further read; else EOF."""

    def __init__(
        self, client: LocalClient, answers: list[Answer], then: Answer | None = None
    ) -> None:
        self.client = client
        self.answers = list(answers)
        self.then = then
        self.reads = 0

    def isatty(self) -> bool:
        return False

    def readline(self, size: int | None = -1, /) -> str:
        self.reads += 1
        if self.answers:
            answer: Answer | None = self.answers.pop(0)
        else:
            answer = self.then
        if answer is None:
            return ""
        if callable(answer):
            view = self.client.state.view
            assert view is not None
            answer = answer(view)
        return answer + "\n"


def discard_first(view: View) -> str:
    """A legal turn in any position: discard the first card, draw from the deck."""
    return f"-{view.hand[0]} deck"


def draw_back_discard(view: View) -> str:
    card = view.hand[0]
    return f"-{card} {card.suit.letter}"


def run(client: LocalClient, stdin: ScriptInput) -> tuple[int, str]:
    out = io.StringIO()

    async def main() -> int:
        return await asyncio.wait_for(run_lines(client, cast(TextIO, stdin), out), TIMEOUT)

    code = asyncio.run(main())
    return code, out.getvalue()


def test_a_piped_script_plays_its_turns_and_end_of_input_leaves_cleanly() -> None:
    client = local_client()
    stdin = ScriptInput(client, [discard_first, discard_first])
    code, out = run(client, stdin)
    assert code == ExitCode.UNFINISHED
    assert out.count("you discarded") == 2
    assert "random bot " in out  # the opponent's moves are printed
    assert out.rstrip().endswith(
        "leaving the match unfinished; this match is not saved, so it cannot be continued"
    )
    assert stdin.reads == 3  # one line per move, then the end of input


def test_the_state_is_printed_before_each_move() -> None:
    client = local_client()
    _code, out = run(client, ScriptInput(client, [discard_first]))
    before_move = out.split("your move:")[0]
    assert "draw pile 4" in before_move
    assert "  hand: " in before_move
    assert "then draw from: deck" in before_move


def test_bad_notation_is_explained_and_asked_again() -> None:
    client = local_client()
    _code, out = run(client, ScriptInput(client, ["play the red one", discard_first]))
    assert "> play the red one\nerror: not a turn: 'play the red one'" in out
    assert out.count("your move:") == 3  # asked again after the error, then the next move
    assert "you discarded" in out


def test_an_illegal_turn_is_explained_with_the_rule() -> None:
    client = local_client()
    _code, out = run(client, ScriptInput(client, [draw_back_discard]))
    assert "the card just discarded cannot be drawn back in the same turn" in out
    assert "you discarded" not in out


def test_help_and_board_answer_without_playing() -> None:
    client = local_client()
    code, out = run(client, ScriptInput(client, ["help", "board"]))
    assert "+r7 deck" in out
    assert out.count("discards") == 2  # the table printed again on request
    assert code == ExitCode.UNFINISHED


def test_what_you_say_is_echoed_before_the_next_prompt() -> None:
    client = local_client()
    code, out = run(client, ScriptInput(client, ["say hello", "quit"]))
    assert "> say hello\nyou say: hello\nyour move:\n> quit" in out
    assert code == ExitCode.UNFINISHED


def test_quit_leaves_an_unfinished_match() -> None:
    client = local_client()
    code, out = run(client, ScriptInput(client, ["quit"], then=discard_first))
    assert code == ExitCode.UNFINISHED
    assert "you discarded" not in out


def test_resign_ends_the_match() -> None:
    client = local_client()
    code, out = run(client, ScriptInput(client, ["resign"]))
    assert code == ExitCode.FINISHED
    assert "you resigned: random bot wins" in out


@pytest.mark.slow
def test_a_whole_match_prints_round_results_and_the_final_result() -> None:
    client = local_client(rounds=2)
    code, out = run(client, ScriptInput(client, [], then=discard_first))
    assert code == ExitCode.FINISHED
    assert "round 1 over: you " in out and "round 2 over: you " in out
    assert " - 20) × " in out  # each expedition's scoring, spelled out
    assert "round 2 of 2: " in out
    last = out.rstrip().splitlines()
    assert any(w in "\n".join(last[-5:]) for w in ("you win the match", "wins the match", "draw"))
    assert last[-1] == "this match was not saved to a file"


def test_a_dispute_is_printed_with_the_evidence_file() -> None:
    client = ScriptedClient(options=MatchOptions(rounds=1))
    client.replay = Path("replays/match-host.lcnet")
    dispute = DisputeInfo(Seat.JOINER, 12, b"\0" * 32, "a wrong drawn-card key", Seat.HOST)
    client.inject(Update(event=DisputeRaised(dispute)))
    code, out = run(client, ScriptInput(client, [], then=discard_first))
    assert code == ExitCode.DISPUTE
    assert "dispute: random bot broke the rules in frame 12: a wrong drawn-card key" in out
    assert "check it with: " in out and "lcnet audit replays/match-host.lcnet" in out


def test_a_client_that_gives_up_ends_the_line_mode_with_how_to_resume() -> None:
    client = ScriptedClient(options=MatchOptions(rounds=1))
    client.replay = Path("replays/match-host.lcnet")
    client.inject(Update(notice="the host is unreachable"))
    client.inject(Update(status=Status.OVER))
    code, out = run(client, ScriptInput(client, [], then=discard_first))
    assert code == ExitCode.UNFINISHED
    assert "the host is unreachable" in out
    assert "lcnet resume replays/match-host.lcnet" in out


def test_a_lost_opponent_is_announced_and_the_game_goes_on() -> None:
    client = ScriptedClient(options=MatchOptions(rounds=1))
    client.replay = Path("replays/match-host.lcnet")
    client.inject(Update(status=Status.DISCONNECTED))
    client.inject(Update(status=Status.PLAYING))
    _code, out = run(client, ScriptInput(client, [discard_first]))
    assert "random bot is disconnected. Wait: the match goes on when they reconnect" in out
    assert "lcnet resume replays/match-host.lcnet" in out
    assert "is back; the match goes on" in out
    assert "you discarded" in out


def test_the_line_mode_is_chosen_when_stdin_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = local_client()
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", ScriptInput(client, ["quit"]))
    monkeypatch.setattr(sys, "stdout", out)
    code = asyncio.run(asyncio.wait_for(run_match_ui(client), TIMEOUT))
    assert code == ExitCode.UNFINISHED
    assert out.getvalue().startswith("lcnet line mode")


def put_down_first(view: View) -> str:
    return f"-{view.hand[0]}"


def test_a_put_down_alone_asks_for_the_draw_and_the_next_line_completes_the_turn() -> None:
    client = local_client()
    code, out = run(client, ScriptInput(client, [put_down_first, "deck"]))
    assert code == ExitCode.UNFINISHED
    assert "not a turn" not in out
    assert ": now the draw: deck" in out
    assert out.count("you discarded") == 1


def test_a_card_not_in_hand_is_not_in_your_hand() -> None:
    client = local_client()

    def missing(view: View) -> str:
        return f"+{next(iter(view.unseen_cards()))} deck"

    _code, out = run(client, ScriptInput(client, [missing]))
    assert "not in your hand" in out
    assert "the player's hand" not in out


@pytest.mark.slow
def test_hint_prints_the_bots_suggestion_and_the_move_is_still_due() -> None:
    client = local_client()
    code, out = run(client, ScriptInput(client, ["hint", discard_first]))
    assert code == ExitCode.UNFINISHED
    [line] = [line for line in out.splitlines() if line.startswith("hint: ")]
    notation, _, reason = line.removeprefix("hint: ").partition(": ")
    Turn.parse(notation)  # a turn the player can type as it is
    assert "draw" in reason or "take" in reason
    assert out.count("your move:") == 3  # asked again after the hint, then the next move
    assert out.count("you discarded") == 1


def test_help_lists_hint() -> None:
    client = local_client()
    _code, out = run(client, ScriptInput(client, ["help"]))
    assert "hint (the bot's suggestion" in out


def test_the_result_puts_the_winner_s_total_first() -> None:
    # "Alice wins the match, 2 to 12" put the loser's total first (issue 44,
    # point 15).
    from types import SimpleNamespace

    from lcnet.game.engine import Outcome
    from lcnet.game.seat import Seat
    from lcnet.ui.tracker import MatchTracker

    me = SimpleNamespace(me=Seat.HOST, opponent="Alice")
    lost = MatchTracker.outcome_text(me, Outcome((2, 12), 1), None)  # type: ignore[arg-type]
    assert lost == "Alice wins the match, 12 to 2"
    won = MatchTracker.outcome_text(me, Outcome((12, 2), 0), None)  # type: ignore[arg-type]
    assert won == "you win the match, 12 to 2"
    resigned = MatchTracker.outcome_text(me, Outcome((2, 12), 1), Seat.HOST)  # type: ignore[arg-type]
    # It said "the score stood at you 0, alice 0" while the board showed the
    # round in play at -18 (issue 57, point 8): these are the finished rounds.
    assert resigned == "you resigned: Alice wins (finished rounds: you 2, Alice 12)"


def test_quitting_before_anyone_joined_is_no_unfinished_match() -> None:
    # A host quit while it waited exited 3 ("`lcnet resume` continues it")
    # though no match had started and no file existed (issue 44, point 9).
    from types import SimpleNamespace

    import nacl.signing

    from lcnet.game.seat import Seat
    from lcnet.protocol.client import Update
    from lcnet.protocol.session import Session
    from lcnet.protocol.snapshot import state_of
    from lcnet.protocol.status import Status
    from lcnet.ui.tracker import MatchTracker

    session = Session.host(nacl.signing.SigningKey(b"\x01" * 32), b"\x02" * 32, name="Hana")
    client = SimpleNamespace(
        seat=Seat.HOST, state=state_of(session), status=Status.WAITING_FOR_PEER, replay_path=None
    )
    tracker = MatchTracker(client)  # type: ignore[arg-type]
    assert not tracker.opponent_known
    assert tracker.exit_code() == ExitCode.NOT_STARTED == 0
    session.keys[Seat.JOINER] = b"\x03" * 32  # once someone answered, it can go on
    tracker.apply(Update(state=state_of(session)))
    assert tracker.exit_code() == ExitCode.UNFINISHED
