"""Bot-vs-bot matches in process, and the ``lcnet selfplay`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcnet.bots import Bot
from lcnet.cli import main
from lcnet.game.cards import Card
from lcnet.game.engine import Draw, Round, Turn, View
from lcnet.game.seat import Seat
from lcnet.run import localmatch, selfplay
from lcnet.run.selfplay import (
    BotDefect,
    GameResult,
    Tally,
    bot_labels,
    play_game,
    play_game_signed,
    play_round,
    run,
    split_bot_specs,
)
from lcnet.run.stats import mean_interval, t_quantile_975, wilson_interval


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


@pytest.mark.slow
def test_same_seed_same_games() -> None:
    a = run(("random", "random"), 6, seed=5, rounds=2)
    b = run(("random", "random"), 6, seed=5, rounds=2)
    assert a == b
    c = run(("random", "random"), 6, seed=6, rounds=2)
    assert a.score_sums != c.score_sums


@pytest.mark.slow
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


@pytest.mark.slow
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
        == 2  # a usage error, before any game (issue 57, point 3)
    )
    assert f"--replays {blocked / 'sub'}: {blocked} is not a folder" in capsys.readouterr().err


# ------------------------------------------------------------ duplicate deals

Deal = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], int]
"""Seat 0's hand, seat 1's hand, the draw pile and the starter, as dealt."""


def dealt_rounds(monkeypatch: pytest.MonkeyPatch) -> list[Deal]:
    """Record every round :func:`play_game` deals, before it is played."""
    seen: list[Deal] = []
    real = selfplay.play_round

    def recording(bots: list[Bot], rnd: Round, max_turns: int = 1000) -> Round:
        seen.append((tuple(rnd.hand(0)), tuple(rnd.hand(1)), tuple(rnd.draw_pile()), rnd.to_move))
        return real(bots, rnd, max_turns)

    monkeypatch.setattr(selfplay, "play_round", recording)
    return seen


@pytest.mark.slow
def test_both_games_of_a_pair_get_the_same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = dealt_rounds(monkeypatch)
    games = [
        play_game(("random", "greedy"), i, seed=4, rounds=3, suits=6, duplicate=True)
        for i in range(4)
    ]
    assert len(seen) == 12  # 4 games of 3 rounds
    # Every round's hands and draw pile; later starters follow the scores,
    # so only round 1's starter (a seat) is part of the deal.
    by_game = [[rnd[:3] for rnd in seen[3 * g : 3 * g + 3]] for g in range(4)]
    starters = [seen[3 * g][3] for g in range(4)]
    assert by_game[0] == by_game[1] and by_game[2] == by_game[3]
    assert starters[0] == starters[1] and starters[2] == starters[3]
    assert by_game[0] != by_game[2]  # another pair, another deal
    assert all(len(hand) == 8 for game in by_game for rnd in game for hand in rnd[:2])
    assert [g.seats for g in games] == [("random", "greedy"), ("greedy", "random")] * 2


def test_without_duplicate_every_game_has_its_own_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = dealt_rounds(monkeypatch)
    play_game(("random", "greedy"), 0, seed=4, rounds=1)
    play_game(("random", "greedy"), 1, seed=4, rounds=1)
    assert seen[0] != seen[1]


def test_the_bots_own_randomness_still_differs_within_a_pair() -> None:
    """random against random on one deal: the seats swap, but each game's bots
    draw from their own sources, so the two games are not one game mirrored."""
    a = play_game(("random", "random"), 0, seed=2, rounds=1, duplicate=True)
    b = play_game(("random", "random"), 1, seed=2, rounds=1, duplicate=True)
    assert a.round_scores != b.round_scores[::-1]
    assert a.round_scores != tuple((y, x) for x, y in b.round_scores)


@pytest.mark.slow
def test_signed_duplicate_games_deal_the_same_decks(monkeypatch: pytest.MonkeyPatch) -> None:
    decks: list[list[tuple[Card, ...]]] = []
    real = localmatch.run

    def recording(peers: dict[Seat, localmatch.Peer], **kw: int) -> None:
        real(peers, **kw)
        decks.append([d.order for d in peers[Seat.HOST].session.rounds_verified])

    monkeypatch.setattr(localmatch, "run", recording)
    games = [
        play_game_signed(("greedy", "random"), i, seed=3, rounds=2, duplicate=True)
        for i in range(2)
    ]
    assert all(g.defect is None for g in games)
    assert len(decks) == 2 and len(decks[0]) == 2
    assert decks[0] == decks[1]
    assert games[0].seats == ("greedy", "random") and games[1].seats == ("random", "greedy")


@pytest.mark.slow
def test_a_deterministic_bot_against_itself_on_duplicate_deals_breaks_even() -> None:
    """greedy uses no randomness: on the same deal each seat plays the same
    game in both halves of a pair, so every pair's differences cancel."""
    tally = run(("greedy", "greedy"), 6, seed=8, rounds=2, duplicate=True)
    assert tally.games == 6 and not tally.defects
    assert tally.wins["greedy#1"] == tally.wins["greedy#2"]
    assert tally.diff_units() == [0.0, 0.0, 0.0]
    assert tally.score_diff_ci95() == selfplay.MeanInterval(0.0, 0.0, 0.0, 3)
    assert tally.diffs[0] == -tally.diffs[1] and tally.diffs[2] == -tally.diffs[3]


@pytest.mark.slow
def test_duplicate_games_in_parallel_equal_games_in_sequence() -> None:
    one = run(("random", "greedy"), 4, seed=9, rounds=1, duplicate=True)
    assert run(("random", "greedy"), 4, seed=9, rounds=1, duplicate=True, jobs=2) == one


def test_duplicate_needs_an_even_number_of_games() -> None:
    with pytest.raises(selfplay.UsageError, match="even number of games"):
        run(("random", "random"), 3, seed=1, duplicate=True)


# --------------------------------------------------------- interval arithmetic


def test_mean_interval_on_known_numbers() -> None:
    # mean 3, sample variance 2.5, t(4) = 2.776: 3 ± 2.776 * sqrt(2.5 / 5)
    est = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert est.mean == 3.0 and est.units == 5
    assert est.low == pytest.approx(3 - 2.776 * 0.5**0.5)
    assert est.high == pytest.approx(3 + 2.776 * 0.5**0.5)
    assert mean_interval([7.0]) == selfplay.MeanInterval(7.0, None, None, 1)
    assert mean_interval([]) == selfplay.MeanInterval(0.0, None, None, 0)
    assert mean_interval([2.0, 2.0, 2.0]) == selfplay.MeanInterval(2.0, 2.0, 2.0, 3)


@pytest.mark.parametrize(
    ("df", "exact"),
    [(1, 12.706), (10, 2.228), (30, 2.042), (31, 2.0395), (40, 2.0211), (60, 2.0003),
     (120, 1.9799), (199, 1.9720), (10_000, 1.9602)],
)  # fmt: skip
def test_t_quantile_matches_the_tables(df: int, exact: float) -> None:
    assert t_quantile_975(df) == pytest.approx(exact, abs=0.0006)


def test_duplicate_units_are_the_pairs_means() -> None:
    tally = Tally(("a", "b"), duplicate=True)
    # Game 2k has "a" in seat 0, game 2k+1 has "b" in seat 0; one round each.
    results = [
        GameResult(0, ("a", "b"), ((30, 10),)),  # a +20
        GameResult(1, ("b", "a"), ((25, 15),)),  # a -10
        GameResult(2, ("a", "b"), ((40, 0),)),  # a +40
        GameResult(3, ("b", "a"), ((0, 20),)),  # a +20
        GameResult(4, ("a", "b"), ((5, 0),)),  # a +5, but its partner is defective
        GameResult(5, ("b", "a"), (), defect="stalled"),
    ]
    for result in results:
        tally.add(result)
    assert tally.diffs == {0: 20.0, 1: -10.0, 2: 40.0, 3: 20.0, 4: 5.0}
    assert tally.diff_units() == [5.0, 30.0]
    est = tally.score_diff_ci95()
    assert est.mean == 17.5 and est.units == 2
    # s = sqrt(((5-17.5)^2 + (30-17.5)^2) / 1) = 17.678; t(1) = 12.706
    assert est.low == pytest.approx(17.5 - 12.706 * 12.5)
    plain = Tally(("a", "b"))
    for result in results[:4]:
        plain.add(result)
    assert plain.diff_units() == [20.0, -10.0, 40.0, 20.0]


def test_per_round_differences_divide_by_the_rounds() -> None:
    tally = Tally(("a", "b"))
    tally.add(GameResult(0, ("b", "a"), ((10, 40), (0, 30), (5, 5))))
    assert tally.diffs == {0: 20.0}  # a scored 75, b 15, over 3 rounds


# ------------------------------------------------------------ the command


@pytest.mark.slow
def test_selfplay_duplicate_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["selfplay", "--duplicate", "--games", "4", "--rounds", "1", "--seed", "1"]
    assert main([*argv, "--bots", "greedy,greedy", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["duplicate"] is True and out["deals"] == 2 and out["games"] == 4
    assert out["score_diff_per_round"] == {
        "first": "greedy#1",
        "second": "greedy#2",
        "mean": 0.0,
        "ci95": [0.0, 0.0],
        "interval": "student-t",
        "unit": "deal",
        "units": 2,
    }
    assert set(out["win_rate_ci95"]) == {"greedy#1", "greedy#2"}


@pytest.mark.slow
def test_selfplay_reports_the_score_difference_without_duplicate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["selfplay", "--games", "3", "--rounds", "1", "--bots", "greedy,random", "--seed", "2"]
    assert main([*argv, "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)["score_diff_per_round"]
    assert diff["unit"] == "game" and diff["units"] == 3 and diff["mean"] > 0
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "score difference per round, greedy minus random: +" in text
    assert "Student t over 3 games" in text and "Wilson" in text


def test_selfplay_duplicate_text_and_progress(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["selfplay", "--duplicate", "--games", "2", "--rounds", "1", "--progress"]
    assert main([*argv, "--bots", "greedy,random", "--seed", "3"]) == 0
    captured = capsys.readouterr()
    assert "2 matches of 1 round(s) on 1 duplicate deal, 5 suits, seed 3" in captured.out
    assert "no interval from 1 deal" in captured.out
    assert "game 2/2 (deal 1)" in captured.err


@pytest.mark.slow
def test_selfplay_duplicate_with_replays_writes_both_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["selfplay", "--duplicate", "--games", "2", "--rounds", "1", "--seed", "5"]
    assert main([*argv, "--bots", "greedy,random", "--replays", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("selfplay-5-000[01]-*.lcnet"))) == 4


def test_selfplay_duplicate_needs_even_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--duplicate", "--games", "3", "--bots", "random,random"]) == 2
    err = capsys.readouterr().err
    assert "--games must be even with --duplicate" in err and "Traceback" not in err
