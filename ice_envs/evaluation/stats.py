"""Interval maths for evaluation reports: Wilson score intervals and the bootstrap."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    ``successes`` may be fractional when shared wins are split.
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    if p <= 0.0 or p >= 1.0:  # closed forms at the edges, free of rounding error
        bound = trials / (trials + z * z)
        return (0.0, 1.0 - bound) if p <= 0.0 else (bound, 1.0)
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_interval(
    values: np.ndarray, rng: np.random.Generator, resamples: int = 2000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values``."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return (float("nan"), float("nan"))
    idx = rng.integers(0, values.size, size=(resamples, values.size))
    means = values[idx].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return (float(lo), float(hi))
