"""The prime-order group of Ed25519, exactly as the masked deck uses it.

A thin, typed wrapper over ``nacl.bindings`` (libsodium) with the rules of
PROTOCOL.md §1.4 built in: points are 32-byte canonical encodings of elements of the
subgroup of prime order ``L``; scalars are 32-byte little-endian integers that
are reduced (``< L``) and never zero; scalar multiplication is always the
*noclamp* variant, so that ``a·(b·P) == (a*b mod L)·P`` and inverses work.

Values from the other peer are checked by the caller (``lcnet.deal``) before
they reach :func:`mul`, so a failure inside libsodium here is a bug of ours
and raises :class:`GroupError`, a :class:`~lcnet.errors.LocalProtocolError`.
:func:`try_mul` is the one exception: it *is* a check, see its docstring.

A deck pass is a batch of independent multiplications: :func:`mul_many`,
:func:`try_mul_many` and :func:`all_valid` spread one over the CPUs with
helper threads (libsodium runs without the GIL) and return exactly what the
one-by-one calls would, in order.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

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


def try_mul_many(scalars: Sequence[bytes], points: Sequence[object]) -> tuple[bytes | None, ...]:
    """:func:`try_mul` of each pair ``scalars[i], points[i]``, spread over the CPUs."""
    if len(scalars) != len(points):
        raise GroupError(f"{len(scalars)} scalars for {len(points)} points")
    return _map_spread(try_mul, scalars, points)


def mul_many(scalars: Sequence[bytes], points: Sequence[bytes]) -> tuple[bytes, ...]:
    """:func:`mul` of each pair ``scalars[i], points[i]``, spread over the CPUs."""
    products: list[bytes] = []
    for product in try_mul_many(scalars, points):
        if product is None:
            raise GroupError("scalar multiplication of a point outside the prime-order group")
        products.append(product)
    return tuple(products)


def all_valid(points: Sequence[object]) -> bool:
    """Whether every one of ``points`` passes :func:`is_valid_point` (spread over the CPUs)."""
    return all(_map_spread(is_valid_point, points))


# -- spreading a batch over the CPUs
#
# A deck pass is 60 or 72 independent multiplications, and libsodium runs
# without the GIL (cffi releases it around each call), so threads run them in
# parallel: a pass takes 0.5-0.8 of the time on two cores. Only the batch is
# spread, never its order or its results.

_MIN_SPREAD: Final = 16
"""Smaller batches run in the calling thread: handing work over costs about
one multiplication, so spreading a few would not pay."""

_MAX_SHARES: Final = 4
"""The calling thread and at most three helpers: a pass is only 60-72 items."""

_T = TypeVar("_T")


class _Helpers:
    """This process's helper threads, made on first use."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pool: ThreadPoolExecutor | None = None
        self.shares = 0

    def get(self) -> tuple[ThreadPoolExecutor | None, int]:
        """The pool (``None`` on a single CPU) and how many shares a batch is cut into."""
        with self.lock:
            if not self.shares:
                self.shares = min(_MAX_SHARES, _cpus())
                if self.shares > 1:
                    self.pool = ThreadPoolExecutor(
                        self.shares - 1, thread_name_prefix="lcnet-group"
                    )
            return self.pool, self.shares


_helpers = _Helpers()


def _forget_helpers() -> None:
    """In a forked child: the parent's threads are not there; make new ones when needed."""
    global _helpers
    _helpers = _Helpers()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _map_spread(fn: Callable[..., _T], *columns: Sequence[object]) -> tuple[_T, ...]:
    """``tuple(map(fn, *columns))``, with the work split between this thread and helpers."""
    count = len(columns[0])
    if count < _MIN_SPREAD:
        return tuple(map(fn, *columns))
    pool, shares = _helpers.get()
    if pool is None:
        return tuple(map(fn, *columns))
    size = -(-count // shares)
    rest = [
        pool.submit(_map_list, fn, *(column[start : start + size] for column in columns))
        for start in range(size, count, size)
    ]
    out = _map_list(fn, *(column[:size] for column in columns))
    for future in rest:
        out.extend(future.result())
    return tuple(out)


def _map_list(fn: Callable[..., _T], *columns: Sequence[object]) -> list[_T]:
    return list(map(fn, *columns))


def _require_scalar(scalar: bytes) -> None:
    if not is_scalar(scalar):
        raise GroupError("a scalar must be 32 bytes encoding an integer in 1 .. L-1")
