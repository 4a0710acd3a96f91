"""Action-mask helpers."""

from __future__ import annotations

import numpy as np


def sample_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action of ``mask`` (one draw from ``rng``)."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])
