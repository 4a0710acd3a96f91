"""Action-mask helpers."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def mask_from(indices: Iterable[int], size: int) -> np.ndarray:
    """An int8 mask of length ``size`` with ones at ``indices``."""
    mask = np.zeros(size, dtype=np.int8)
    mask[np.fromiter(indices, dtype=np.intp)] = 1
    return mask


def sample_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action of ``mask``."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])
