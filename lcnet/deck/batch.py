"""A deck pass's multiplications, as one batch that the edge may spread over the CPUs.

A deck pass is a batch of 60 or 72 independent multiplications in the group
(:mod:`lcnet.deck.group`): :func:`mul_many`, :func:`try_mul_many` and
:func:`all_valid` return exactly what the one-by-one calls would, in order.
They run them through a :data:`Mapper`: by default in the calling thread;
a program installs another with :func:`use_mapper` (the command line installs
helper threads, :mod:`lcnet.run.threads`: libsodium runs without the GIL).
No thread is made here: the deck stays sans-IO.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

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


# -- how a batch is run


class Mapper(Protocol):
    """``tuple(map(fn, *columns))``, however the work is shared out."""

    def __call__(self, fn: Callable[..., Any], *columns: Sequence[object]) -> tuple[Any, ...]: ...


def _in_this_thread(fn: Callable[..., Any], *columns: Sequence[object]) -> tuple[Any, ...]:
    return tuple(map(fn, *columns))


_mapper: Mapper = _in_this_thread


def use_mapper(mapper: Mapper | None) -> None:
    """Run every later batch through ``mapper`` (``None``: in the calling thread).

    It must return what ``tuple(map(fn, *columns))`` would, in order: only the
    work is shared out, never the order or the results."""
    global _mapper
    _mapper = _in_this_thread if mapper is None else mapper


def _map_spread(fn: Callable[..., Any], *columns: Sequence[object]) -> tuple[Any, ...]:
    return _mapper(fn, *columns)
