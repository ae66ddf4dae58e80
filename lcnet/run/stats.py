"""The statistics lcnet reports, in one place: 95% intervals of means and rates.

``lcnet selfplay`` and every bench script use these, so a figure in one is
comparable with a figure in another: Student's t for means (the bench's
paired differences included), Wilson's score interval for win rates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its 95% Student t interval (``None`` ends with fewer than 2 units)."""

    mean: float
    low: float | None
    high: float | None
    units: int


_T975: Final = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""The 97.5% quantile of Student's t for 1 to 30 degrees of freedom."""


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom: a table
    to 30, then the Cornish-Fisher expansion around the normal quantile
    (within 0.001 of the exact value beyond 30)."""
    if df < 1:
        raise ValueError("a t quantile needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def mean_interval(values: Sequence[float]) -> MeanInterval:
    """The mean of ``values`` with its 95% Student t interval
    (mean ± t(n-1) · s / sqrt(n)); no interval for fewer than two values."""
    n = len(values)
    if n == 0:
        return MeanInterval(0.0, None, None, 0)
    mean = math.fsum(values) / n
    if n < 2:
        return MeanInterval(mean, None, None, n)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile_975(n - 1) * math.sqrt(variance / n)
    return MeanInterval(mean, mean - half, mean + half, n)


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a success rate."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_half(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% t interval (0 with
    fewer than two values): the form the bench scripts print as ``mean ± half``."""
    interval = mean_interval(values)
    if interval.high is None:
        return interval.mean, 0.0
    return interval.mean, interval.high - interval.mean
