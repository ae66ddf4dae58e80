"""How often the hard search makes the heuristic's turn, and whether its numbers can fit it.

    python bench/imitate.py [--rounds R] [--spec SPEC] [--again K] [--jobs J]
                            [--out FILE | --load FILE] [--passes P]

Labels every position of seat 0 in R greedy-against-greedy rounds (4 by
default) with the turn of the search SPEC (``mcts:iterations=250`` by
default: the hard bot's budget without the time cap, so the labels do not
depend on the machine), shown seat 0's earlier views as if it had played
them. Prints:

* how often the search makes the heuristic's own turn (its first
  candidate), early (more than 16 cards in the draw pile) and late, and
  where it departs, how: the same put-down with another draw, or another
  put-down;
* where it departs, what it plays instead (a card on a started expedition,
  one that opens an expedition, or a discard), against what a pick at
  random among its other candidates would play: whether its departures
  lean somewhere the heuristic does not go;
* how often the search makes the same turn again with another seed, on the
  first K rounds (2 by default; 0: not measured): how much of its choice
  is its sampling noise rather than the position;
* the heuristic's numbers (:class:`~lcnet.bots.policy.Weights`) fitted by
  coordinate search (each number times 0.5 to 2, P passes) so that its own
  turn is the search's as often as possible, on the odd rounds, and how
  often the fitted heuristic and the default one make the search's turn on
  the even rounds.

A heuristic fitted this way would be a cheap copy of the search, to play
the bot's own later turns in the search's simulations (a second step of
policy improvement); how much of the search's choices the numbers can
express says whether that can work. ``--out`` keeps the labels (JSON),
``--load`` reads them instead of labelling again. The defaults take about
a minute on two cores (``--rounds 40 --again 10``; the figures in
docs/experiments/2026-12-03-search-against-heuristic.md, about nine).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/NAME.py`: the checkout's bench package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.regret import greedy_round
from lcnet.bots import make_bot
from lcnet.bots.mcts import LATE_DRAW_PILE, MctsBot, candidate_turns
from lcnet.bots.policy import DEFAULT_WEIGHTS, Weights, policy_turn
from lcnet.bots.sim import Determinizer, Sim, SimTurn, from_turn
from lcnet.game.cards import SUIT_OF
from lcnet.game.engine import View

FACTORS = (0.5, 0.7, 0.85, 1.2, 1.4, 2.0)
"""What each number is multiplied by in a step of the fit."""
AGAIN_SEED = 7777
"""Added to a round's seed for the search's second labelling."""

Sample = tuple[Sim, SimTurn, bool]
"""A position (seat 0's view, its unseen cards in id order: all the
heuristic reads of it), the search's turn there, and whether it is late."""


def seat0_views(seed: int) -> list[View]:
    """Seat 0's views in the greedy-against-greedy round of ``seed``
    (bench/regret.py's rounds)."""
    return [view for _, view in greedy_round(seed)]


def label(job: tuple[int, int, str]) -> tuple[int, list[SimTurn]]:
    """The search's turn at every view of seat 0 in round ``seed``, as it
    would choose with the views before shown to it."""
    seed, bot_seed, spec = job
    bot = make_bot(spec, bot_seed)
    return seed, [from_turn(bot.choose_turn(view)) for view in seat0_views(seed)]


def label_all(seeds: list[int], offset: int, spec: str, jobs: int) -> dict[int, list[SimTurn]]:
    work = [(seed, seed + offset, spec) for seed in seeds]
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
        return dict(pool.map(label, work))


def samples(views: list[View], turns: list[SimTurn]) -> list[Sample]:
    return [
        (Determinizer(view).canonical(), turn, view.draw_pile_size <= LATE_DRAW_PILE)
        for view, turn in zip(views, turns, strict=True)
    ]


def agreement(data: list[Sample], weights: Weights) -> tuple[float, float, float]:
    """Share of the search's turns the heuristic makes: all, early, late."""
    hits = [0, 0]
    counts = [0, 0]
    for sim, turn, late in data:
        counts[late] += 1
        hits[late] += policy_turn(sim, weights) == turn
    return (
        sum(hits) / max(1, sum(counts)),
        hits[0] / max(1, counts[0]),
        hits[1] / max(1, counts[1]),
    )


def fit(data: list[Sample], passes: int) -> Weights:
    """The heuristic's numbers that make the search's turn most often on ``data``."""
    best = DEFAULT_WEIGHTS
    best_score = agreement(data, best)[0]
    for _ in range(passes):
        improved = False
        for field in dataclasses.fields(Weights):
            for factor in FACTORS:
                value = getattr(best, field.name) * factor
                if field.name == "arrival_share":
                    value = min(1.0, value)  # a share above 1 expects more cards than there are
                trial = dataclasses.replace(best, **{field.name: value})
                score = agreement(data, trial)[0]
                if score > best_score:
                    best, best_score, improved = trial, score, True
        if not improved:
            break
    return best


def departures(data: list[Sample]) -> Counter[tuple[str, str]]:
    """How the search's turn differs from the heuristic's, by phase."""
    kinds: Counter[tuple[str, str]] = Counter()
    for sim, turn, late in data:
        own = policy_turn(sim)
        if own == turn:
            kind = "same_turn"
        elif own[:2] == turn[:2]:
            kind = "same_put_down_other_draw"
        else:
            kind = "other_put_down"
        kinds["late" if late else "early", kind] += 1
    return kinds


KINDS = ("extend", "open", "discard")
"""The kinds of put-down :func:`put_down_kind` tells apart."""


def put_down_kind(sim: Sim, turn: SimTurn) -> str:
    """``extend`` (a card on a started expedition), ``open`` or ``discard``."""
    cid, discard, _ = turn
    if discard:
        return "discard"
    return "extend" if sim.counts[sim.to_move][SUIT_OF[cid]] else "open"


def departure_kinds(
    views: dict[int, list[View]], data: dict[int, list[Sample]], spec: str
) -> defaultdict[tuple[str, ...], float]:
    """Per phase: the positions with more than one candidate of the search
    ``spec``, those where it leaves the heuristic's turn, the kind of
    put-down it makes there, and the kinds a pick at random among the other
    candidates would make (expected counts). ``data`` holds each seed's
    samples of ``views``."""
    search = make_bot(spec, 0)
    assert isinstance(search, MctsBot)
    found: defaultdict[tuple[str, ...], float] = defaultdict(float)
    for seed, rows in data.items():
        for view, (sim, turn, late) in zip(views[seed], rows, strict=True):
            candidates = candidate_turns(view, sim, search.width(view))
            if len(candidates) < 2:
                continue
            phase = "late" if late else "early"
            found[phase, "positions"] += 1
            others = candidates[1:]
            for other in others:
                found[phase, "random", put_down_kind(sim, other)] += 1 / len(others)
            if turn != candidates[0]:
                found[phase, "departs"] += 1
                found[phase, "search", put_down_kind(sim, turn)] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds labelled (default 4)")
    parser.add_argument("--spec", default="mcts:iterations=250", help="the search labelling")
    parser.add_argument("--again", type=int, default=2, help="rounds labelled twice (2)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", help="write the labels to this file (JSON)")
    parser.add_argument("--load", help="read the labels from this file instead")
    parser.add_argument("--passes", type=int, default=3, help="passes of the fit (3)")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.load:
        with open(args.load) as f:
            labels = {int(k): [(c, d, w) for c, d, w in v] for k, v in json.load(f).items()}
    else:
        labels = label_all(list(range(args.rounds)), 0, args.spec, args.jobs)
        if args.out:
            with open(args.out, "w") as f:
                json.dump(labels, f)
    views = {seed: seat0_views(seed) for seed in labels}
    data = {seed: samples(views[seed], turns) for seed, turns in labels.items()}
    everything = [s for rows in data.values() for s in rows]
    print(f"positions: {len(everything)} positions")
    kinds = departures(everything)
    for phase in ("early", "late"):
        total = sum(n for (p, _), n in kinds.items() if p == phase) or 1
        for kind in ("same_turn", "same_put_down_other_draw", "other_put_down"):
            print(f"{phase}_{kind}: {kinds[phase, kind] / total:.3f} share")
    # Where it departs (1 - same_turn above), what it puts down instead.
    leaning = departure_kinds(views, data, args.spec)
    for phase in ("early", "late"):
        positions = leaning[phase, "positions"] or 1
        departs = leaning[phase, "departs"] or 1
        for kind in KINDS:
            print(
                f"{phase}_departs_to_{kind}: {leaning[phase, 'search', kind] / departs:.3f} share"
            )
            random_share = leaning[phase, "random", kind] / positions
            print(f"{phase}_random_other_candidate_{kind}: {random_share:.3f} share")
    if args.again:
        seeds = sorted(labels)[: args.again]
        again = label_all(seeds, AGAIN_SEED, args.spec, args.jobs)
        same = [0, 0]
        count = [0, 0]
        for seed in seeds:
            for (_, turn, late), other in zip(data[seed], again[seed], strict=True):
                count[late] += 1
                same[late] += turn == other
        for i, phase in enumerate(("early", "late")):
            share = same[i] / max(1, count[i])
            print(f"{phase}_same_turn_again: {share:.3f} share  (of {count[i]} positions)")
    train = [s for seed, rows in data.items() if seed % 2 for s in rows]
    test = [s for seed, rows in data.items() if not seed % 2 for s in rows]
    fitted = fit(train, args.passes)
    for name, weights in (("default", DEFAULT_WEIGHTS), ("fitted", fitted)):
        for part, rows in (("on_fit_rounds", train), ("on_check_rounds", test)):
            shares = dict(zip(("all", "early", "late"), agreement(rows, weights), strict=True))
            for phase, share in shares.items():
                print(f"{name}_{part}_{phase}: {share:.3f} share")
    changed = {
        f.name: round(getattr(fitted, f.name), 3)
        for f in dataclasses.fields(Weights)
        if getattr(fitted, f.name) != getattr(DEFAULT_WEIGHTS, f.name)
    }
    print(f"fitted_numbers: {changed}")
    print(f"wall: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
