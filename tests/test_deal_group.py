"""The group wrapper: the rules of DESIGN.md for points and scalars, enforced.

The masked deck checks a received pass it multiplies anyway through the
multiplication itself; the property tests here pin down why that is sound:
libsodium's noclamp multiplication refuses exactly the points that
``is_valid_point`` refuses.
"""

from __future__ import annotations

import nacl.bindings
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcnet import group, hashing
from lcnet.deal import card_table

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
