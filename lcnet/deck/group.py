"""The prime-order group of Ed25519, exactly as the masked deck uses it.

A thin, typed wrapper over ``nacl.bindings`` (libsodium) with the rules of
PROTOCOL.md §1.4 built in: points are 32-byte canonical encodings of elements of the
subgroup of prime order ``L``; scalars are 32-byte little-endian integers that
are reduced (``< L``) and never zero; scalar multiplication is always the
*noclamp* variant, so that ``a·(b·P) == (a*b mod L)·P`` and inverses work.

Values from the other peer are checked by the caller (``lcnet.deck.deal``) before
they reach :func:`mul`, so a failure inside libsodium here is a bug of ours
and raises :class:`GroupError`, a :class:`~lcnet.errors.LocalProtocolError`.
:func:`try_mul` is the one exception: it *is* a check, see its docstring.

A deck pass spreads its batch of multiplications over the CPUs with
:mod:`lcnet.deck.batch`; this module is only the maths.
"""

from __future__ import annotations

from typing import Final

import nacl.bindings as _sodium
import nacl.exceptions as _nacl_exc

from lcnet.errors import LocalProtocolError

POINT_SIZE: Final = 32
"""Bytes in an encoded group element (``crypto_core_ed25519_BYTES``)."""

SCALAR_SIZE: Final = 32
"""Bytes in an encoded scalar (``crypto_core_ed25519_SCALARBYTES``)."""

WIDE_SCALAR_SIZE: Final = 64
"""Bytes reduced into one scalar: 512 bits make the bias mod L negligible."""

GROUP_ORDER: Final = 2**252 + 27742317777372353535851937790883648493
"""``L``, the prime order of the subgroup every valid point lies in."""


class GroupError(LocalProtocolError):
    """A group operation got a value this program must never pass to it."""


def is_valid_point(point: object) -> bool:
    """Whether ``point`` is 32 bytes encoding a non-identity element of the prime-order group.

    libsodium's ``crypto_core_ed25519_is_valid_point`` refuses non-canonical
    encodings, points not on the curve, small-order points (the identity
    included) and points outside the prime-order subgroup.
    """
    if not isinstance(point, bytes) or len(point) != POINT_SIZE:
        return False
    return bool(_sodium.crypto_core_ed25519_is_valid_point(point))


def is_scalar(scalar: object) -> bool:
    """Whether ``scalar`` is 32 bytes encoding an integer in ``1 .. L-1``.

    Checked with plain integers, not libsodium: the value is either ours or
    public (a key the other peer revealed), so timing does not matter here.
    """
    if not isinstance(scalar, bytes) or len(scalar) != SCALAR_SIZE:
        return False
    return 0 < int.from_bytes(scalar, "little") < GROUP_ORDER


def reduce_scalar(wide: bytes) -> bytes:
    """A 64-byte little-endian integer reduced mod ``L`` (may be zero: callers re-derive)."""
    if len(wide) != WIDE_SCALAR_SIZE:
        raise GroupError(f"a scalar is reduced from {WIDE_SCALAR_SIZE} bytes, not {len(wide)}")
    return bytes(_sodium.crypto_core_ed25519_scalar_reduce(wide))


def scalar_mul(a: bytes, b: bytes) -> bytes:
    """``a * b mod L``; non-zero because ``L`` is prime and neither factor is zero."""
    _require_scalar(a)
    _require_scalar(b)
    return bytes(_sodium.crypto_core_ed25519_scalar_mul(a, b))


def scalar_invert(a: bytes) -> bytes:
    """``a⁻¹ mod L`` (constant time in libsodium: ``a`` is usually secret)."""
    _require_scalar(a)
    return bytes(_sodium.crypto_core_ed25519_scalar_invert(a))


def from_uniform(data: bytes) -> bytes:
    """The point libsodium's Elligator 2 map gives for 32 uniform bytes.

    The result is multiplied by the cofactor, so it lies in the prime-order
    subgroup; nobody knows its discrete logarithm to any other such point.
    """
    if len(data) != POINT_SIZE:
        raise GroupError(f"from_uniform takes {POINT_SIZE} bytes, not {len(data)}")
    return bytes(_sodium.crypto_core_ed25519_from_uniform(data))


def mul(scalar: bytes, point: bytes) -> bytes:
    """``scalar · point`` for a reduced non-zero scalar and a valid point."""
    result = try_mul(scalar, point)
    if result is None:
        raise GroupError("scalar multiplication of a point that is not in the prime-order group")
    return result


def try_mul(scalar: bytes, point: object) -> bytes | None:
    """``scalar · point``, or ``None`` if ``point`` is not a valid group element.

    libsodium's ``crypto_scalarmult_ed25519_noclamp`` begins with the very
    tests of ``crypto_core_ed25519_is_valid_point`` (canonical encoding, on
    the curve, not of small order, in the prime-order subgroup) and fails on
    any point that does not pass them. With a non-zero scalar below ``L`` the
    product of a valid point is never the identity, so ``None`` here means
    exactly "``is_valid_point(point)`` is false". Multiplying a received point
    we must multiply anyway therefore checks it at no extra cost.
    """
    _require_scalar(scalar)
    if not isinstance(point, bytes) or len(point) != POINT_SIZE:
        return None
    try:
        return bytes(_sodium.crypto_scalarmult_ed25519_noclamp(scalar, point))
    except _nacl_exc.RuntimeError:
        return None


def _require_scalar(scalar: bytes) -> None:
    if not is_scalar(scalar):
        raise GroupError("a scalar must be 32 bytes encoding an integer in 1 .. L-1")
