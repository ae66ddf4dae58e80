"""The group wrapper: the rules of PROTOCOL.md §1.4 for points and scalars, enforced.

The masked deck checks a received pass it multiplies anyway through the
multiplication itself; the property tests here pin down why that is sound:
libsodium's noclamp multiplication refuses exactly the points that
``is_valid_point`` refuses.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import nacl.bindings
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcnet.deck import batch, group, hashing
from lcnet.deck.deal import card_table
from lcnet.run import threads

SCALAR = hashing.global_scalar(b"group test")
IDENTITY = bytes([1]) + bytes(31)
ORDER_8_POINT = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
CARD_POINT = card_table(5).points[0]

INVALID_POINTS = {
    "identity": IDENTITY,
    "order 8": ORDER_8_POINT,
    "order 8·L": bytes(nacl.bindings.crypto_core_ed25519_add(CARD_POINT, ORDER_8_POINT)),
    "non-canonical": b"\xff" * 31 + b"\x7f",
    "not on the curve": bytes([2]) + bytes(31),
    "all zero": bytes(32),
}


@pytest.mark.parametrize("name", list(INVALID_POINTS))
def test_invalid_points_are_refused_by_the_check_and_by_multiplication(name: str) -> None:
    point = INVALID_POINTS[name]
    assert not group.is_valid_point(point)
    assert group.try_mul(SCALAR, point) is None
    with pytest.raises(group.GroupError):
        group.mul(SCALAR, point)


@pytest.mark.slow
@settings(max_examples=300)
@given(st.binary(min_size=32, max_size=32))
def test_multiplication_refuses_exactly_the_invalid_points(data: bytes) -> None:
    assert (group.try_mul(SCALAR, data) is None) == (not group.is_valid_point(data))


@settings(max_examples=50)
@given(st.binary(max_size=64))
def test_mapped_hashes_are_valid_and_survive_multiplication(data: bytes) -> None:
    point = group.from_uniform(hashing.chain_hash(data))
    assert group.is_valid_point(point)
    product = group.try_mul(SCALAR, point)
    assert product is not None and group.is_valid_point(product)


def test_a_special_input_maps_to_the_identity_which_is_why_card_points_are_checked() -> None:
    assert group.from_uniform(bytes(32)) == IDENTITY


@settings(max_examples=20)
@given(st.binary(min_size=64, max_size=64), st.binary(min_size=64, max_size=64))
def test_masks_commute_and_inverses_undo_them(wide_a: bytes, wide_b: bytes) -> None:
    a, b = group.reduce_scalar(wide_a), group.reduce_scalar(wide_b)
    if not (any(a) and any(b)):
        return  # zero: probability 2⁻²⁵², and the derivations never produce it
    ab = group.mul(a, group.mul(b, CARD_POINT))
    assert ab == group.mul(b, group.mul(a, CARD_POINT))
    assert ab == group.mul(group.scalar_mul(a, b), CARD_POINT)
    assert group.mul(group.scalar_invert(group.scalar_mul(a, b)), ab) == CARD_POINT


@pytest.mark.parametrize(
    "scalar",
    [bytes(32), group.GROUP_ORDER.to_bytes(32, "little"), b"\xff" * 32, b"short"],
    ids=["zero", "L", "above L", "short"],
)
def test_only_reduced_non_zero_scalars_are_used(scalar: bytes) -> None:
    assert not group.is_scalar(scalar)
    with pytest.raises(group.GroupError):
        group.mul(scalar, CARD_POINT)
    with pytest.raises(group.GroupError):
        group.scalar_invert(scalar)


def test_a_reduction_takes_sixty_four_bytes() -> None:
    with pytest.raises(group.GroupError):
        group.reduce_scalar(bytes(32))


def _scalars(count: int) -> list[bytes]:
    return [hashing.position_scalar(b"s" * 32, i) for i in range(count)]


@pytest.fixture
def four_shares(monkeypatch: pytest.MonkeyPatch) -> Iterator[threads.Helpers]:
    """Batches cut into four shares (three helper threads), whatever this machine
    has, as the command line installs them (lcnet.run.threads)."""
    helpers = threads.Helpers(cpus=lambda: 4)
    monkeypatch.setattr(threads, "_helpers", helpers)
    threads.install()
    yield helpers
    batch.use_mapper(None)
    if helpers.pool is not None:
        helpers.pool.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("count", [0, 1, 15, 16, 17, 60, 72])
def test_a_batch_gives_exactly_the_one_by_one_results_in_order(
    four_shares: threads.Helpers, count: int
) -> None:
    scalars = _scalars(count)
    points = list(card_table(6).points[:count])
    assert batch.mul_many(scalars, points) == tuple(map(group.mul, scalars, points))
    assert batch.all_valid(points)
    # From 16 on, the batch was spread: the helper threads were made for it.
    assert (four_shares.pool is not None) == (count >= 16)


def test_one_cpu_means_no_helper_threads() -> None:
    helpers = threads.Helpers(cpus=lambda: 1)
    scalars, points = _scalars(60), list(card_table(5).points)
    assert helpers.spread(group.mul, scalars, points) == tuple(map(group.mul, scalars, points))
    assert helpers.get() == (None, 1)


def test_the_deck_makes_no_thread_unless_the_edge_installs_them() -> None:
    batch.use_mapper(None)
    before = threading.active_count()
    scalars, points = _scalars(60), list(card_table(5).points)
    assert batch.mul_many(scalars, points) == tuple(map(group.mul, scalars, points))
    assert threading.active_count() == before


@pytest.mark.slow
@pytest.mark.parametrize("where", [0, 14, 15, 29, 45, 59])
def test_a_batch_finds_an_invalid_point_wherever_it_is(
    four_shares: threads.Helpers, where: int
) -> None:
    points: list[bytes] = list(card_table(5).points)
    points[where] = ORDER_8_POINT
    products = batch.try_mul_many(_scalars(60), points)
    assert [i for i, p in enumerate(products) if p is None] == [where]
    assert not batch.all_valid(points)
    with pytest.raises(group.GroupError):
        batch.mul_many(_scalars(60), points)


def test_a_batch_needs_one_scalar_per_point() -> None:
    with pytest.raises(group.GroupError):
        batch.try_mul_many(_scalars(3), list(card_table(5).points[:4]))


@pytest.mark.parametrize("where", [0, 45])
def test_a_bad_scalar_in_a_batch_is_a_bug_not_an_invalid_point(
    four_shares: threads.Helpers, where: int
) -> None:
    scalars = _scalars(60)
    scalars[where] = bytes(32)  # zero: never a key
    with pytest.raises(group.GroupError):  # raised, whichever thread met it; not None
        batch.try_mul_many(scalars, list(card_table(5).points))


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_spreads_batches_with_threads_of_its_own(
    four_shares: threads.Helpers,
) -> None:
    scalars, points = _scalars(60), list(card_table(5).points)
    expected = batch.mul_many(scalars, points)  # the parent's helper threads now exist
    pid = os.fork()
    if pid == 0:  # the child, where the parent's threads do not run
        code = 2
        try:
            signal.alarm(60)  # waiting on a thread that is not there would hang: end instead
            code = 0 if batch.mul_many(scalars, points) == expected else 1
        finally:
            os._exit(code)  # never return into the test runner
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
