"""A uniformly random legal action per row of a mask, compiled (numba): :func:`ice_envs.core.vector.sample_legal`."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["sample_legal_rows"]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def sample_legal_rows(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: the ``floor(u[i] * k)``-th of row ``i``'s ``k`` legal actions (0 if none); see
    :func:`ice_envs.core.vector.sample_legal`."""
    for i in range(mask.shape[0]):
        row = mask[i]
        k = 0
        for a in range(row.shape[0]):
            if row[a]:
                k += 1
        out[i] = 0
        if k == 0:
            continue
        pick = int(np.floor(u[i] * k))
        for a in range(row.shape[0]):
            if row[a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1
