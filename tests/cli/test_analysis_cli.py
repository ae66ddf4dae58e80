"""``lcnet replay FILE --analyze``: the owner's turns against the bot's choices, as text or JSON."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from lcnet.cli import main
from lcnet.game.seat import Seat
from lcnet.review import analysis, positions
from lcnet.store.replayfile import ReplayHeader, read_replay
from lcnet.store.writer import write_replay

SAMPLES = Path(__file__).resolve().parents[2] / "replays"
COMPLETE = {seat: SAMPLES / f"sample-complete-{seat}.lcnet" for seat in Seat}
DEALS = "1"
"""A tiny budget: these tests check what is printed, not how good the estimate is."""


def owner_turns(path: Path, seat: Seat) -> list[tuple[int, int]]:
    """(round, turn number) of every turn ``seat`` played in the file."""
    record = positions.load_contents(read_replay(path))
    return [(p.round, p.turn) for p in record.positions if p.last and p.last[0] is seat]


@pytest.mark.slow
@pytest.mark.parametrize("seat", list(Seat))
def test_json_covers_exactly_the_file_owners_turns(
    seat: Seat, capsys: pytest.CaptureFixture[str]
) -> None:
    path = COMPLETE[seat]
    assert main(["replay", str(path), "--analyze", "--json", "--deals", DEALS]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["seat"] == str(seat) and document["file"] == str(path)
    assert document["deals"] == int(DEALS) and document["seed"] == 0
    turns = document["turns"]
    assert [(t["round"], t["turn"]) for t in turns] == owner_turns(path, seat)
    for turn in turns:
        assert set(turn) == {
            "round",
            "turn",
            "played",
            "choice",
            "played_value",
            "choice_value",
            "loss",
            "agrees",
            "worst",
            "reason",
        }
        assert turn["loss"] >= 0
        assert turn["loss"] == pytest.approx(
            max(0.0, turn["choice_value"] - turn["played_value"]), abs=0.02
        )
    summary = document["summary"]
    assert summary["turns"] == len(turns)
    worst = [{"round": t["round"], "turn": t["turn"]} for t in turns if t["worst"]]
    assert sorted(summary["worst"], key=str) == sorted(worst, key=str)
    assert len(worst) <= analysis.WORST
    assert document["not_analyzed"] == 0


@pytest.mark.slow
def test_the_same_seed_gives_the_same_analysis(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["replay", str(COMPLETE[Seat.HOST]), "--analyze", "--json", "--deals", DEALS]
    main([*argv, "--seed", "4"])
    first = capsys.readouterr().out
    main([*argv, "--seed", "4"])
    assert capsys.readouterr().out == first


@pytest.mark.slow
def test_the_text_lists_every_turn_marks_the_worst_and_sums_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = COMPLETE[Seat.HOST]
    assert main(["replay", str(path), "--analyze", "--deals", DEALS]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Analysis of Ada (host)'s turns: ")
    header = next(i for i, line in enumerate(out) if line.split()[:2] == ["round", "turn"])
    rows = out[header + 1 : out.index("", header)]
    assert len(rows) == len(owner_turns(path, Seat.HOST))
    assert out[-1].startswith("Summary: ")
    if any(row.endswith("<- worst") for row in rows):
        assert "The turns that lost the most:" in out


@pytest.mark.slow
def test_an_unfinished_match_analyses_its_revealed_rounds_and_says_what_it_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = SAMPLES / "sample-incomplete-joiner.lcnet"
    assert main(["replay", str(path), "--analyze", "--json", "--deals", DEALS]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["not_analyzed"] > 0
    assert {t["round"] for t in document["turns"]} == {1}


@pytest.mark.slow
def test_a_damaged_file_is_analysed_up_to_the_damage(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "sample-damaged-host.lcnet"
    assert main(["replay", str(path), "--analyze", "--deals", DEALS]) == 0
    captured = capsys.readouterr()
    assert "is damaged at bytes" in captured.err
    assert captured.out.splitlines()[-1].endswith("was in the hand.")


@pytest.mark.slow
def test_a_file_with_no_turn_to_analyze_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "sample-cheated-host.lcnet"
    assert main(["replay", str(path), "--analyze", "--deals", DEALS]) == 1
    [err] = capsys.readouterr().err.strip().splitlines()
    assert err.startswith("lcnet replay: nothing to analyze for Ada (host): ")


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["--json"],
        ["--deals", "5"],
        ["--analyze", "--seat", "both"],
        ["--analyze", "--deals", "0"],
    ],
)
def test_misused_options_are_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(COMPLETE[Seat.HOST]), *argv]) == 2
    assert capsys.readouterr().err.startswith("lcnet replay: ")


def test_the_help_explains_the_analysis(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = capsys.readouterr().out
    assert "--analyze" in out and "--deals" in out and "--json" in out
    assert "never the" in out  # the opponent's hidden cards are never read


def test_the_seat_choices_are_the_viewers_perspectives() -> None:
    from lcnet.cli.replay import SEAT_CHOICES
    from lcnet.ui.replay_view import Perspective

    assert tuple(p.value for p in Perspective) == SEAT_CHOICES


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.slow
def test_a_progress_bar_runs_on_a_terminal_and_is_cleared(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["replay", str(COMPLETE[Seat.HOST]), "--analyze", "--deals", "1"]) == 0
    total = len(owner_turns(COMPLETE[Seat.HOST], Seat.HOST))
    written = err.getvalue()
    assert f"\ranalyzing [{'#' * 30}] {total}/{total} turns" in written
    assert written.endswith("\r\x1b[K")  # the bar leaves no trace before the output
    assert capsys.readouterr().out.startswith("Analysis of ")


@pytest.mark.slow
def test_no_progress_bar_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(COMPLETE[Seat.HOST]), "--analyze", "--deals", "1"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_a_file_of_unknown_owner_needs_a_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contents = read_replay(COMPLETE[Seat.HOST])
    header = ReplayHeader(seat="observer", created="2026-11-29T00:00:00Z", software="test")
    path = write_replay(tmp_path / "observed.lcnet", header, contents.frames)
    assert main(["replay", str(path), "--analyze", "--deals", DEALS]) == 1
    assert "--seat host or --seat joiner" in capsys.readouterr().err
    assert (
        main(["replay", str(path), "--analyze", "--json", "--seat", "joiner", "--deals", DEALS])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["seat"] == "joiner"
