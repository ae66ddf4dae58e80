"""The style opponents (``cautious``, ``aggressive``): legal, never stalling,
sensible, and each playing in its own style.

Every figure comes from fixed seeds and deterministic bots: the counts are
facts about those rounds, not rates that could flake.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lcnet.bots import BOTS, Bot, make_bot
from lcnet.bots.commitment import committed_turns
from lcnet.bots.styles import CAUTIOUS_WAGER
from lcnet.errors import UserError
from lcnet.game.engine import Round, Turn, View
from lcnet.run.selfplay import MAX_TURNS_PER_ROUND, run

STYLES = ("cautious", "aggressive")


def play(specs: tuple[str, str], seed: int, suits: int = 5) -> list[tuple[int, View, Turn]]:
    """One round between ``specs`` (seat 0, seat 1) from ``seed``: every turn
    with its seat and the view it was chosen in. Fails on an illegal turn,
    a turn outside the commitment rule (for a style bot) or a stall."""
    bots: list[Bot] = [make_bot(specs[0], seed), make_bot(specs[1], seed + 1)]
    r = Round.new(random.Random(seed), suits=suits, starter=seed % 2)
    log = []
    while not r.is_over:
        assert r.turns_played < MAX_TURNS_PER_ROUND, f"{specs} stalled on seed {seed}"
        p = r.to_move
        view = r.view(p)
        turn = bots[p].choose_turn(view)
        if specs[p] in STYLES:
            assert turn in committed_turns(view), (specs[p], str(r), turn)
        r.push_turn(turn, p)  # raises if illegal
        log.append((p, view, turn))
    return log


def wagers_played(spec: str, seeds: range) -> int:
    """Wagers ``spec`` plays against ``random`` over ``seeds``, sitting in both seats."""
    count = 0
    for seed in seeds:
        seat = seed % 2
        specs = ("random", spec) if seat else (spec, "random")
        for p, _, turn in play(specs, seed):
            if p == seat and not turn.put_down.discard and turn.put_down.card.is_wager:
                count += 1
    return count


@pytest.mark.slow
@pytest.mark.parametrize("suits", [5, 6])
@pytest.mark.parametrize("spec", STYLES)
@pytest.mark.parametrize("opponent", ["random", "greedy", "cautious", "aggressive"])
def test_style_bots_play_legal_committed_turns_and_finish(
    spec: str, opponent: str, suits: int
) -> None:
    for seed in range(8):
        log = play((spec, opponent) if seed % 2 else (opponent, spec), seed, suits)
        assert len(log) >= (44 if suits == 5 else 56)  # every deck card was drawn


def test_style_bots_are_registered_quick_and_take_no_options() -> None:
    for spec in STYLES:
        assert spec in BOTS
        bot = make_bot(spec, 1)
        assert bot.name == spec and bot.quick
        with pytest.raises(UserError, match="takes no options"):
            make_bot(f"{spec}:depth=2")


@pytest.mark.slow
def test_cautious_never_wagers_without_three_numbers_of_the_suit() -> None:
    wagers = 0
    for seed in range(30):
        for opponent in ("random", "greedy"):
            specs = ("cautious", opponent) if seed % 2 else (opponent, "cautious")
            seat = specs.index("cautious")
            for p, view, turn in play(specs, seed):
                card = turn.put_down.card
                if p != seat or turn.put_down.discard or not card.is_wager:
                    continue
                wagers += 1
                numbers = [c for c in view.hand if c.suit == card.suit and not c.is_wager]
                assert len(numbers) >= CAUTIOUS_WAGER, (str(view.hand), card)
    assert wagers > 0  # the rule was exercised


@pytest.mark.slow
def test_aggressive_wagers_more_than_greedy_and_cautious_less() -> None:
    seeds = range(20)
    counts = {spec: wagers_played(spec, seeds) for spec in ("greedy", *STYLES)}
    assert counts["aggressive"] > counts["greedy"] > counts["cautious"], counts


@pytest.mark.slow
def test_cautious_opens_later_than_greedy_and_aggressive_earlier() -> None:
    """The put-down (counting the bot's own turns) that first opens an expedition."""
    first: Counter[str] = Counter()
    for spec in ("greedy", *STYLES):
        for seed in range(20):
            seat = seed % 2
            specs = ("random", spec) if seat else (spec, "random")
            own = [(view, turn) for p, view, turn in play(specs, seed) if p == seat]
            first[spec] += next(
                (
                    i
                    for i, (view, turn) in enumerate(own)
                    if not turn.put_down.discard
                    and not view.expeditions[seat][turn.put_down.card.suit]
                ),
                len(own),
            )
    assert first["aggressive"] < first["greedy"] < first["cautious"], first


@pytest.mark.slow
@pytest.mark.parametrize("spec", STYLES)
def test_style_bots_beat_random(spec: str) -> None:
    tally = run((spec, "random"), 20, seed=7, rounds=1, duplicate=True)
    assert not tally.defects
    assert tally.wins[spec] >= 18
    assert tally.score_diff_ci95().mean > 50
