"""Helper threads for the deck's batches: the edge's, installed into the deck.

A deck pass is 60 or 72 independent multiplications, and libsodium runs
without the GIL (cffi releases it around each call), so threads run them in
parallel: a pass takes 0.5-0.8 of the time on two cores. The deck
(:mod:`lcnet.deck.batch`) makes no thread itself; :func:`install` gives it
:func:`spread`, which cuts a batch between the calling thread and this
process's helpers (made on first use, made anew in a forked child). Only the
batch is spread, never its order or its results.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from lcnet.deck import batch

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

MIN_SPREAD: Final = 16
"""Smaller batches run in the calling thread: handing work over costs about
one multiplication, so spreading a few would not pay."""

MAX_SHARES: Final = 4
"""The calling thread and at most three helpers: a pass is only 60-72 items."""


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


class Helpers:
    """A process's helper threads, made on first use."""

    def __init__(self, cpus: Callable[[], int] | None = None) -> None:
        self.lock = threading.Lock()
        self.pool: ThreadPoolExecutor | None = None
        self.shares = 0
        self.cpus = cpus or _cpus

    def get(self) -> tuple[ThreadPoolExecutor | None, int]:
        """The pool (``None`` on a single CPU) and how many shares a batch is cut into."""
        with self.lock:
            if not self.shares:
                self.shares = min(MAX_SHARES, self.cpus())
                if self.shares > 1:
                    from concurrent.futures import ThreadPoolExecutor  # on first use

                    self.pool = ThreadPoolExecutor(
                        self.shares - 1, thread_name_prefix="lcnet-group"
                    )
            return self.pool, self.shares

    def spread(self, fn: Callable[..., Any], *columns: Sequence[object]) -> tuple[Any, ...]:
        """``tuple(map(fn, *columns))``, the work split between this thread and helpers
        (a :class:`lcnet.deck.batch.Mapper`)."""
        count = len(columns[0])
        if count < MIN_SPREAD:
            return tuple(map(fn, *columns))
        pool, shares = self.get()
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


_helpers = Helpers()


def spread(fn: Callable[..., Any], *columns: Sequence[object]) -> tuple[Any, ...]:
    """:meth:`Helpers.spread` with this process's helpers."""
    return _helpers.spread(fn, *columns)


def install() -> None:
    """Let the deck's batches use this process's helper threads from now on."""
    batch.use_mapper(spread)


def _forget_helpers() -> None:
    """In a forked child: the parent's threads are not there; make new ones when needed."""
    global _helpers
    _helpers = Helpers(_helpers.cpus)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)


def _map_list(fn: Callable[..., Any], *columns: Sequence[object]) -> list[Any]:
    return list(map(fn, *columns))
