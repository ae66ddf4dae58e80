"""``lcnet replay``: the full-screen viewer driven by keys, and the text form."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input

from lcnet.bots import advice
from lcnet.cli import main
from lcnet.game.seat import Seat
from lcnet.review import positions
from lcnet.review.positions import MatchRecord
from lcnet.store.replayfile import read_replay
from lcnet.ui.board import SCREEN_WIDTH, plain
from lcnet.ui.replay_view import (
    BODY_ROWS,
    HELP_TEXT,
    Perspective,
    ReplayViewer,
    position_lines,
    text_lines,
)
from tests.uisupport import (
    SizedOutput,
    SmallOutput,
    make_replay,
    match_frames,
    render,
    running,
    wait_until,
)

Scenario = Callable[[ReplayViewer, PipeInput], Awaitable[None]]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Both players' files of a finished 2-round match."""
    return make_replay(tmp_path_factory.mktemp("replays"), rounds=2)


@pytest.fixture(scope="module")
def record(files: list[Path]) -> MatchRecord:
    return positions.load_contents(read_replay(files[0]))


def unfinished(files: list[Path], frames: int) -> MatchRecord:
    """The same match cut after ``frames`` frames, as a crashed peer's file would be."""
    contents = read_replay(files[0])
    return positions.load(contents.frames[:frames])


def view(record: MatchRecord, scenario: Scenario, perspective: Perspective) -> int:
    async def main() -> int:
        with create_pipe_input() as keys:
            viewer = ReplayViewer(record, perspective=perspective, input=keys, output=SmallOutput())
            async with running(viewer.app.run_async(), viewer.app) as task:
                await scenario(viewer, keys)
                code: int = await asyncio.wait_for(asyncio.shield(task), 60)
            return code

    return asyncio.run(main())


@pytest.mark.slow
def test_keys_step_through_the_match(record: MatchRecord) -> None:
    last = len(record.positions) - 1
    second_round = record.round_starts[1]

    async def scenario(viewer: ReplayViewer, keys: PipeInput) -> None:
        keys.send_text("\x1b[C\x1b[C ")  # Right, Right, Space
        await wait_until(viewer, lambda: viewer.index == 3, "step 3")
        keys.send_text("\x1b[D")  # Left
        await wait_until(viewer, lambda: viewer.index == 2, "back to step 2")
        keys.send_text("G")
        await wait_until(viewer, lambda: viewer.index == last, "the last step")
        keys.send_text("[")
        await wait_until(viewer, lambda: viewer.index == second_round, "round 2's start")
        keys.send_text("[")
        await wait_until(viewer, lambda: viewer.index == 0, "round 1's start")
        keys.send_text("]")
        await wait_until(viewer, lambda: viewer.index == second_round, "round 2 again")
        keys.send_text("g")
        await wait_until(viewer, lambda: viewer.index == 0, "the first step")
        keys.send_text("q")

    assert view(record, scenario, Perspective.HOST) == 0


@pytest.mark.slow
def test_the_view_switches_between_seats_and_both_hands(record: MatchRecord) -> None:
    seen: dict[str, list[str]] = {}

    async def scenario(viewer: ReplayViewer, keys: PipeInput) -> None:
        seen["host"] = render(viewer.app)
        keys.send_text("v")
        await wait_until(viewer, lambda: viewer.perspective is Perspective.JOINER, "joiner")
        seen["joiner"] = render(viewer.app)
        keys.send_text("v")
        await wait_until(viewer, lambda: viewer.perspective is Perspective.BOTH, "both")
        seen["both"] = render(viewer.app)
        keys.send_text("q")

    view(record, scenario, Perspective.HOST)
    table = record.positions[0].table
    host_hand = " ".join(str(c) for c in sorted(table.hand(0), key=lambda c: c.id))
    joiner_hand = " ".join(str(c) for c in sorted(table.hand(1), key=lambda c: c.id))
    for name, shows_host, shows_joiner in [
        ("host", True, False),
        ("joiner", False, True),
        ("both", True, True),
    ]:
        screen = "\n".join(seen[name])
        assert (host_hand in screen) is shows_host, name
        assert (joiner_hand in screen) is shows_joiner, name


@pytest.mark.slow
def test_the_status_bar_gives_the_audit_verdict(record: MatchRecord) -> None:
    seen: dict[str, list[str]] = {}

    async def scenario(viewer: ReplayViewer, keys: PipeInput) -> None:
        seen["screen"] = render(viewer.app)
        keys.send_text("?")
        await wait_until(viewer, lambda: viewer.help_open, "the help screen")
        seen["help"] = render(viewer.app)
        keys.send_text("\x1b")
        await wait_until(viewer, lambda: not viewer.help_open, "the board again")
        keys.send_text("q")

    view(record, scenario, Perspective.BOTH)
    assert seen["screen"][-2].startswith(" audit: VALID:")
    assert "q quit" in seen["screen"][-1]
    assert "both hands open" in "\n".join(seen["help"])


def test_hands_stay_hidden_in_a_round_whose_seeds_were_not_revealed(
    files: list[Path],
) -> None:
    record = unfinished(files, 120)  # mid-way through round 1
    position = record.positions[-1]
    assert not position.hands_known
    text = "\n".join(
        line
        for perspective in Perspective
        for line in plain(position_lines(record, position, perspective))
    )
    assert "cards, hidden" in text
    assert "hands: hidden (this round's seeds were not revealed)" in text
    assert record.verdict.summary.startswith("INCOMPLETE")


def test_a_card_drawn_from_the_deck_is_secret_in_a_one_seat_view(record: MatchRecord) -> None:
    position = next(
        p
        for p in record.positions
        if p.last is not None and p.last[0] is Seat.JOINER and p.last[1].draw.from_deck
    )
    drawn = str(position.drawn)
    host_view = plain(position_lines(record, position, Perspective.HOST))[1]
    both_view = plain(position_lines(record, position, Perspective.BOTH))[1]
    assert f"drew {drawn} from" not in host_view
    assert f"drew {drawn} from" in both_view


@pytest.mark.slow
@pytest.mark.parametrize("suits", [5, 6])
def test_every_step_fits_80_columns_and_24_rows(suits: int) -> None:
    record = positions.load(match_frames(rounds=1, suits=suits))
    for position in record.positions:
        for perspective in Perspective:
            lines = plain(position_lines(record, position, perspective))
            assert max(len(line) for line in lines) <= SCREEN_WIDTH
            assert len(lines) <= 24 - 3  # the title and the two status lines

    async def scenario(viewer: ReplayViewer, keys: PipeInput) -> None:
        keys.send_text("G")
        await wait_until(viewer, lambda: viewer.index > 0, "the last step")
        screen = render(viewer.app)  # also checks that the layout fits 24 rows
        assert "over:" in "\n".join(screen)
        keys.send_text("q")

    view(record, scenario, Perspective.BOTH)


@pytest.mark.slow
def test_replay_text_prints_every_step_and_the_verdict(
    files: list[Path], record: MatchRecord, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(files[0]), "--text", "--seat", "both"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Ada (host), key ") and "view: both" in out[0]
    assert sum(1 for line in out if line.startswith("round ") and ", turn " in line) == len(
        record.positions
    )
    assert out[-1] == f"audit: {record.verdict.summary}"
    assert out == text_lines(record, Perspective.BOTH)


@pytest.mark.slow
def test_replay_text_defaults_to_the_file_owners_seat(
    files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(files[1]), "--text"]) == 0
    assert "view: joiner" in capsys.readouterr().out.splitlines()[0]


def test_a_missing_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path / "nope.lcnet"), "--text"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"lcnet replay: no such replay file: {tmp_path / 'nope.lcnet'}"]


def test_a_file_that_is_not_a_replay_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a match\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lcnet replay: not an lcnet replay file")


def test_replay_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "--text" in out and "--seat" in out


@pytest.mark.slow
def test_a_analyses_the_owners_turns_and_shows_each_verdict_under_the_board(
    record: MatchRecord,
) -> None:
    seen: dict[str, list[str]] = {}

    async def scenario(viewer: ReplayViewer, keys: PipeInput) -> None:
        keys.send_text("a")
        await wait_until(viewer, lambda: viewer.analysis is not None, "the analysis")
        seen["start"] = render(viewer.app)
        result = viewer.analysis
        assert result is not None and result.seat is Seat.HOST
        assert {t.decision.index for t in result.turns} == {
            i for i, p in enumerate(record.positions) if p.last and p.last[0] is Seat.HOST
        }
        first = result.turns[0]
        viewer.go(first.decision.index)
        seen["turn"] = render(viewer.app)
        seen["expected"] = [advice.short(first.verdict.played)]
        if result.worst():
            keys.send_text("w")
            target = min(t.decision.index for t in result.worst())
            await wait_until(viewer, lambda: viewer.index == target, "the worst turn")
        keys.send_text("q")

    def run(viewer_record: MatchRecord) -> int:
        async def main() -> int:
            with create_pipe_input() as keys:
                viewer = ReplayViewer(
                    viewer_record,
                    perspective=Perspective.HOST,
                    owner=Seat.HOST,
                    deals=2,
                    input=keys,
                    output=SmallOutput(),
                )
                async with running(viewer.app.run_async(), viewer.app) as task:
                    await scenario(viewer, keys)
                    code: int = await asyncio.wait_for(asyncio.shield(task), 60)
                return code

        return asyncio.run(main())

    assert run(record) == 0
    start = "\n".join(seen["start"])
    assert "analysis of Ada (host):" in start  # the round's first step is nobody's turn
    turn = "\n".join(seen["turn"])
    played = seen["expected"][0]
    assert f"bot: {played}" in turn or f"bot (one of the worst): {played}" in turn


def test_a_without_a_players_view_asks_for_one(record: MatchRecord) -> None:
    async def scenario(viewer: ReplayViewer, keys: PipeInput) -> None:
        keys.send_text("a")
        await wait_until(viewer, lambda: bool(viewer.analysis_note), "the note")
        assert "choose one player's view with v" in "\n".join(render(viewer.app))
        keys.send_text("q")

    assert view(record, scenario, Perspective.BOTH) == 0


def test_the_help_names_the_analysis_keys_and_fits_the_body() -> None:
    lines = HELP_TEXT.splitlines()
    assert len(lines) <= BODY_ROWS and max(len(line) for line in lines) < SCREEN_WIDTH
    assert any(line.strip().startswith("a ") for line in lines)
    assert any(line.strip().startswith("w ") for line in lines)


def test_a_terminal_too_small_for_the_replay_says_so_and_the_replay_comes_back(
    record: MatchRecord,
) -> None:
    """Issue 44, point 15: at 60×20 the viewer was cut off without a word."""
    output = SizedOutput(60, 20)
    seen: dict[str, list[str]] = {}

    async def main() -> int:
        with create_pipe_input() as keys:
            viewer = ReplayViewer(record, input=keys, output=output)
            seen["small"] = render(viewer.app, 60, 20)
            output.size = Size(rows=24, columns=80)
            seen["fits"] = render(viewer.app)
            output.size = Size(rows=20, columns=60)
            async with running(viewer.app.run_async(), viewer.app) as task:
                keys.send_text("q")
                code: int = await asyncio.wait_for(asyncio.shield(task), 60)
            return code

    assert asyncio.run(main()) == 0
    small = " ".join(seen["small"])
    assert "The terminal is too small for the replay." in small
    assert f"It is 60×20: make the terminal at least {SCREEN_WIDTH}×24" in small
    assert "q quits." in small and "replay:" not in small
    assert seen["fits"][0].startswith(" replay:") and "audit:" in " ".join(seen["fits"])


def test_a_name_with_control_characters_is_shown_escaped_in_text_and_on_the_board(
    record: MatchRecord,
) -> None:
    """The wire refuses such a name; should one ever get past it, the replay
    still shows it escaped (lcnet.textsafe.shown at the screen's edge)."""
    import dataclasses

    hostile = dataclasses.replace(
        record, names={Seat.HOST: "Ada\x1b[2J\x07", Seat.JOINER: "Ben\r\u202e"}
    )
    lines = text_lines(hostile, Perspective.BOTH)
    assert all(line.isprintable() for line in lines)
    assert "Ada\\x1b[2J\\x07 (host)" in lines[0] and "Ben\\x0d\\u202e (joiner)" in lines[0]
    over = hostile.positions[-1]
    board = plain(position_lines(hostile, over, Perspective.BOTH))
    assert all(line.isprintable() for line in board), board
    assert any("Ada\\x1b[2J" in line for line in board)
