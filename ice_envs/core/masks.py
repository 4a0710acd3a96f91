"""Action-mask helpers."""

from __future__ import annotations

import numpy as np

_INT8 = np.dtype(np.int8)
#: Legal ids of the int8 masks seen lately, by the mask's bytes (masks of at most
#: ``_CACHE_MAX_SIZE`` actions; emptied when it holds ``_CACHE_MAX_ENTRIES``).
_LEGAL_BY_MASK: dict[bytes, tuple[int, ...]] = {}
_CACHE_MAX_SIZE = 256
_CACHE_MAX_ENTRIES = 4096


def sample_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action of ``mask`` (one draw from ``rng``)."""
    if type(mask) is np.ndarray and mask.dtype is _INT8 and mask.ndim == 1 and mask.size <= _CACHE_MAX_SIZE:
        key = mask.tobytes()
        legal = _LEGAL_BY_MASK.get(key)
        if legal is None:
            if len(_LEGAL_BY_MASK) >= _CACHE_MAX_ENTRIES:
                _LEGAL_BY_MASK.clear()
            legal = _LEGAL_BY_MASK[key] = tuple(mask.nonzero()[0].tolist())
        # the same draw and the same pick as below, from a tuple of ints
        return legal[rng.integers(len(legal))]
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])
