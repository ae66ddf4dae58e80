"""A deck pass's multiplications, spread over the CPUs.

A deck pass is a batch of 60 or 72 independent multiplications in the group
(:mod:`lcnet.deck.group`): :func:`mul_many`, :func:`try_mul_many` and
:func:`all_valid` spread one over helper threads (libsodium runs without the
GIL) and return exactly what the one-by-one calls would, in order. The
helper threads are this module's, made on first use and made anew in a
forked child; only the masked deck (:mod:`lcnet.deck.deal`) uses them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

from lcnet.deck.group import GroupError, is_valid_point, try_mul


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
