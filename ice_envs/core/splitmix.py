"""A Python generator on the compiled engines' SplitMix64 stream, for players that must decide alike in both.

The compiled engines and their compiled players draw from SplitMix64 streams (:mod:`ice_envs.core.compiled`:
``below`` and ``shuffle``). :class:`SplitMixRng` offers the part of ``numpy.random.Generator``'s API that the
games' rules and players use (``integers``, ``permutation``, ``shuffle``, ``choice`` without replacement,
``random``), each defined by those same draws in the same order. Give it to a Python player as its ``rng``
and the player draws exactly what the compiled player draws from a stream in the same state: that is how
the parity tests of the compiled players check decisions that depend on a player's own randomness (a
random fallback, a re-deal of the hidden cards).

The definitions (the compiled functions follow them draw by draw):

* ``integers(low, high)``: ``low + below(high - low)`` (Lemire's unbiased multiply-shift on the top 32
  bits; ``high - low < 2**32``); ``integers(0, 2**63)`` is one raw 64-bit draw shifted right by one.
* ``shuffle(x)``: Fisher-Yates from the end, ``for i = n-1 .. 1: swap(x[i], x[below(i + 1)])``.
* ``permutation(n | array)``: a copy (or ``arange(n)``) shuffled so.
* ``choice(a, size=k, replace=False)``: the first ``k`` entries of ``permutation(a)``.
* ``random()``: ``(next64 >> 11) * 2**-53``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SplitMixRng", "stream_state"]

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def stream_state(seed: int) -> int:
    """The stream state a compiled engine derives from ``seed`` for one game (``seed_streams(seed, 1)[0]``)."""
    from ice_envs.core.compiled import seed_streams

    return int(seed_streams(int(seed), 1)[0])


class SplitMixRng:
    """``numpy.random.Generator``'s methods that the games use, on one SplitMix64 stream (module docstring).

    Args:
        state: the raw 64-bit stream state (as kept in a compiled engine's ``uint64`` stream row).
    """

    def __init__(self, state: int) -> None:
        self.state = int(state) & _MASK64

    @classmethod
    def from_seed(cls, seed: int) -> SplitMixRng:
        """The stream a compiled engine gives game 0 of a batch seeded with ``seed``."""
        return cls(stream_state(seed))

    # ------------------------------------------------------------------ raw draws
    def next64(self) -> int:
        """The next 64 random bits (SplitMix64)."""
        self.state = (self.state + _GOLDEN) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (``1 <= n < 2**32``), as the compiled ``below``."""
        if not 1 <= n < 1 << 32:
            raise ValueError(f"SplitMixRng: bound {n} outside 1..2**32-1")
        m = (self.next64() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next64() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32

    # ------------------------------------------------------------------ Generator's API
    def integers(self, low: int, high: int | None = None, size: Any = None, dtype: Any = None) -> Any:
        """``low + below(high - low)``; ``integers(0, 2**63)`` is ``next64() >> 1`` (module docstring)."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if size is not None:
            count = int(np.prod(size))
            values = [self.integers(low, high) for _ in range(count)]
            return np.asarray(values, dtype=np.int64).reshape(size)
        if low == 0 and high == 1 << 63:
            return self.next64() >> 1
        return low + self.below(high - low)

    def shuffle(self, x: Any) -> None:
        """Shuffle ``x`` in place along its first axis (Fisher-Yates from the end)."""
        for i in range(len(x) - 1, 0, -1):
            j = self.below(i + 1)
            if isinstance(x, np.ndarray) and x.ndim > 1:
                x[[i, j]] = x[[j, i]]
            else:
                x[i], x[j] = x[j], x[i]

    def permutation(self, x: Any) -> np.ndarray:
        """``arange(x)`` (an int) or a copy of ``x``, shuffled."""
        out = np.arange(int(x)) if isinstance(x, int | np.integer) else np.array(x, copy=True)
        self.shuffle(out)
        return out

    def choice(self, a: Any, size: int | None = None, replace: bool = True) -> Any:
        """Without replacement only: the first ``size`` entries of ``permutation(a)``."""
        if replace:
            raise NotImplementedError("SplitMixRng.choice: only replace=False is defined")
        perm = self.permutation(a)
        return perm[0] if size is None else perm[: int(size)]

    def random(self, size: Any = None) -> Any:
        """Uniform floats in ``[0, 1)``: ``(next64 >> 11) * 2**-53``."""
        if size is not None:
            count = int(np.prod(size))
            return np.asarray([self.random() for _ in range(count)], dtype=np.float64).reshape(size)
        return (self.next64() >> 11) * (1.0 / (1 << 53))
