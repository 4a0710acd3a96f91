"""Dice helpers shared by the dice games."""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np


def roll(rng: np.random.Generator, faces: int | np.ndarray, size: int | None = None) -> np.ndarray:
    """Roll dice with ``faces`` sides (1..faces); ``faces`` may be an array of die types."""
    faces_arr = np.asarray(faces)
    if size is not None:
        faces_arr = np.broadcast_to(faces_arr, (size,))
    return rng.integers(1, faces_arr + 1).astype(np.int64)


@cache
def nonempty_subsets(n: int) -> tuple[tuple[int, ...], ...]:
    """All non-empty subsets of ``range(n)`` as index tuples, smallest first, in a fixed order."""
    return tuple(c for k in range(1, n + 1) for c in combinations(range(n), k))


@cache
def subset_bitmasks(n: int) -> tuple[int, ...]:
    """Bitmask of each subset of :func:`nonempty_subsets` (bit i set ⇔ die i is in it)."""
    return tuple(sum(1 << i for i in s) for s in nonempty_subsets(n))


def subset_sums(values: np.ndarray | list[int]) -> dict[tuple[int, ...], int]:
    """Total of every non-empty subset of ``values`` (keyed by index tuple)."""
    vals = list(values)
    return {s: sum(vals[i] for i in s) for s in nonempty_subsets(len(vals))}
