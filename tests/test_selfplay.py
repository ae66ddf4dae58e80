"""Bot-vs-bot matches in process, and the ``lcnet selfplay`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcnet.cli import main
from lcnet.engine import Draw, Round, Turn, View
from lcnet.selfplay import (
    BotDefect,
    bot_labels,
    play_game,
    play_round,
    run,
    split_bot_specs,
    wilson_interval,
)


class StallingBot:
    """Discards, then draws from another discard pile whenever one has a card:
    two of these never touch the draw pile once two piles are in use."""

    name = "staller"
    quick = True

    def choose_turn(self, view: View) -> Turn:
        for put_down in view.legal_put_downs():
            if not put_down.discard:
                continue
            draws = view.legal_draws(put_down)
            pile_draws = [d for d in draws if d.suit is not None]
            return Turn(put_down, pile_draws[0] if pile_draws else Draw())
        raise AssertionError("a discard is always legal")


def test_a_stalled_round_is_a_bot_defect() -> None:
    with pytest.raises(BotDefect, match="reached 50 turns"):
        play_round([StallingBot(), StallingBot()], Round.new(1), max_turns=50)


def test_same_seed_same_games() -> None:
    a = run(("random", "random"), 6, seed=5, rounds=2)
    b = run(("random", "random"), 6, seed=5, rounds=2)
    assert a == b
    c = run(("random", "random"), 6, seed=6, rounds=2)
    assert a.score_sums != c.score_sums


def test_games_in_parallel_equal_games_in_sequence() -> None:
    assert run(("random", "random"), 4, seed=9, jobs=2) == run(("random", "random"), 4, seed=9)


def test_seats_alternate_between_games() -> None:
    first = play_game(("random", "greedy"), 0, seed=1, rounds=1)
    second = play_game(("random", "greedy"), 1, seed=1, rounds=1)
    assert first.seats == ("random", "greedy")
    assert second.seats == ("greedy", "random")


def test_tally_counts_every_game() -> None:
    tally = run(("random", "random"), 8, seed=3, rounds=1)
    assert tally.games == 8
    assert sum(tally.wins.values()) + tally.draws == 8
    assert set(tally.wins) == {"random#1", "random#2"}


def test_bot_specs_split_on_commas_between_bots_only() -> None:
    assert split_bot_specs("greedy,random") == ["greedy", "random"]
    assert split_bot_specs("mcts:time=0.1,iterations=5,greedy") == [
        "mcts:time=0.1,iterations=5",
        "greedy",
    ]
    assert bot_labels(["greedy", "greedy"]) == ("greedy#1", "greedy#2")


def test_wilson_interval_brackets_the_rate() -> None:
    lo, hi = wilson_interval(180, 200)
    assert lo < 0.9 < hi
    assert 0.84 < lo < 0.86 and 0.93 < hi < 0.94
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_selfplay_json_has_the_documented_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["selfplay", "--games", "4", "--bots", "random,random", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["games"] == 4
    assert out["wins"]["random#1"] + out["wins"]["random#2"] + out["draws"] == 4
    assert set(out["mean_score"]) == {"random#1", "random#2"}
    assert out["seed"] == 1 and out["rounds"] == 3 and out["suits"] == 5


def test_selfplay_text_names_both_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--games", "2", "--bots", "random,random", "--suits", "6"]) == 0
    out = capsys.readouterr().out
    assert "random#1" in out and "random#2" in out and "6 suits" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "chess,random"], "unknown bot 'chess'"),
        (["--bots", "random"], "exactly two bots"),
        (["--bots", "random:depth=3,random"], "takes no options"),
        (["--games", "0"], "--games must be at least 1"),
    ],
)
def test_selfplay_usage_errors_are_one_clear_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["selfplay", *argv]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["selfplay", "--rounds", "21", "--bots", "random,random"], "--rounds must be 1 to 20"),
        (["play", "--ping-interval", "0"], "--ping-interval must be at least"),
        (["join", "127.0.0.1", "--peer-timeout", "-1"], "--peer-timeout must be at least"),
    ],
)
def test_out_of_range_options_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_selfplay_says_when_it_cannot_save(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert (
        main(
            [
                "selfplay",
                "--games",
                "1",
                "--bots",
                "random,random",
                "--replays",
                str(blocked / "sub"),
            ]
        )
        == 1
    )
    assert "cannot save matches" in capsys.readouterr().err
