"""The final deck order is uniform as long as one side is honest.

The deck order is ``order[i] = π_A(π_B(i))`` (checked against the real group
passes in test_deal.py), so these statistics run on the permutation
derivation alone, which keeps them fast. Seeds are fixed, so every run gives
the same numbers; the threshold is one an honest shuffle exceeds with
probability about 10⁻⁹, so the test cannot flake.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from lcnet.deck import hashing
from lcnet.deck.deal import Seat
from lcnet.deck.rounddeal import RoundDeal
from tests.deck.test_deal import GAME_ID, MASTER_HOST, exchange_commitments, run_passes

DECK = 60
SAMPLES = 6000
"""100 expected per position: the chi-square approximation is excellent."""

CHI_SQUARE_LIMIT = 150.0
"""Chi-square with 59 degrees of freedom exceeds 150 with probability ≈ 10⁻⁹."""

Strategy = Callable[[int], Sequence[int]]
"""What a dishonest side shuffles with in sample ``n`` (it cannot see the other's)."""


def honest_seed(sample: int) -> bytes:
    return hashlib.blake2b(b"uniformity test %d" % sample, digest_size=32).digest()


@functools.cache
def honest_permutations() -> tuple[tuple[int, ...], ...]:
    """The honest side's shuffles, derived once for all the tests of this module."""
    return tuple(hashing.permutation(honest_seed(sample), DECK) for sample in range(SAMPLES))


def inverse(perm: Sequence[int]) -> list[int]:
    result = [0] * len(perm)
    for index, value in enumerate(perm):
        result[value] = index
    return result


FIXED = hashing.permutation(b"\x42" * 32, DECK)
DISHONEST: dict[str, Strategy] = {
    "identity": lambda _: range(DECK),
    "reversed": lambda _: range(DECK - 1, -1, -1),
    "one fixed shuffle": lambda _: FIXED,
    "rotating": lambda n: [(i + n) % DECK for i in range(DECK)],
}


def chi_square(values: Sequence[int], bins: int) -> float:
    expected = len(values) / bins
    counts = Counter(values)
    return sum((counts.get(b, 0) - expected) ** 2 / expected for b in range(bins))


def position_of(card: int, host_perm: Sequence[int], joiner_perm: Sequence[int]) -> int:
    """Where ``card`` lands: ``order[i] = host_perm[joiner_perm[i]]``, inverted."""
    return inverse(joiner_perm)[inverse(host_perm)[card]]


@pytest.mark.slow
@pytest.mark.parametrize("strategy", list(DISHONEST))
@pytest.mark.parametrize("honest", [Seat.HOST, Seat.JOINER])
@pytest.mark.parametrize("card", [0, 35, 59])
def test_a_cards_position_is_uniform_when_one_side_is_honest(
    honest: Seat, strategy: str, card: int
) -> None:
    positions = []
    for sample, fair in enumerate(honest_permutations()):
        other = DISHONEST[strategy](sample)
        host_perm, joiner_perm = (fair, other) if honest is Seat.HOST else (other, fair)
        positions.append(position_of(card, host_perm, joiner_perm))
    assert chi_square(positions, DECK) < CHI_SQUARE_LIMIT


@pytest.mark.parametrize("honest", [Seat.HOST, Seat.JOINER])
def test_the_card_on_top_of_the_pile_is_uniform_when_one_side_is_honest(honest: Seat) -> None:
    first_draw = 16
    cards = []
    for fair in honest_permutations():
        host_perm, joiner_perm = (fair, FIXED) if honest is Seat.HOST else (FIXED, fair)
        cards.append(host_perm[joiner_perm[first_draw]])
    assert chi_square(cards, DECK) < CHI_SQUARE_LIMIT


def test_the_statistic_rejects_a_deck_both_sides_fixed() -> None:
    positions = [position_of(0, FIXED, FIXED) for _ in range(SAMPLES)]
    assert chi_square(positions, DECK) > CHI_SQUARE_LIMIT


def test_the_statistic_rejects_a_card_that_favours_half_the_deck() -> None:
    # 120 instead of 100 in each of the first 30 positions, 80 in the others.
    positions = [p for p in range(30) for _ in range(120)] + [
        p for p in range(30, DECK) for _ in range(80)
    ]
    assert len(positions) == SAMPLES
    assert chi_square(positions, DECK) > CHI_SQUARE_LIMIT


@pytest.mark.slow
@pytest.mark.parametrize("fixed_side", [Seat.HOST, Seat.JOINER])
def test_one_sides_pass_alone_does_not_fix_the_deck(fixed_side: Seat) -> None:
    """Same secret on one side, two secrets on the other: the real passes give two decks."""
    hands = set()
    for variant in (b"\x01", b"\x02"):
        masters = {fixed_side: MASTER_HOST, fixed_side.other: variant * 32}
        host, joiner = (
            RoundDeal.from_master(
                seat=seat,
                suit_count=5,
                game_id=GAME_ID,
                round_number=1,
                master_secret=masters[seat],
            )
            for seat in (Seat.HOST, Seat.JOINER)
        )
        exchange_commitments(host, joiner)
        run_passes(host, joiner)
        hands.add(host.open_hand(joiner.dealing_keys()))
    assert len(hands) == 2
