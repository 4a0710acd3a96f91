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

Many draws at once (``random(size)``, ``integers(..., size)``, ``shuffle``) are computed as numpy arrays: the
stream's ``k``-th output is a pure function of its state plus ``k`` times the increment, so the whole block
is one vectorised SplitMix64 pass, bit for bit the draws made one at a time. A bounded draw that would need
Lemire's rejection step (a chance of about ``n / 2**32`` per draw) sends the block back to the one-at-a-time
path from the same state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SplitMixRng", "stream_state"]

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_LOW32 = np.uint64(0xFFFFFFFF)


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

    def next64_block(self, count: int) -> np.ndarray:
        """The next ``count`` outputs of :meth:`next64` as a ``uint64`` array, the stream advanced past them."""
        steps = np.arange(1, count + 1, dtype=np.uint64)
        z = np.uint64(self.state) + steps * np.uint64(_GOLDEN)  # uint64 arrays wrap modulo 2**64
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
        z ^= z >> np.uint64(31)
        self.state = (self.state + count * _GOLDEN) & _MASK64
        return z

    def _below_block(self, bounds: np.ndarray) -> np.ndarray | None:
        """``[below(n) for n in bounds]`` from one block of draws, or ``None`` (the stream untouched) when one
        of them would take Lemire's rejection step, which draws again."""
        start = self.state
        m = (self.next64_block(bounds.size) >> np.uint64(32)) * bounds
        if ((m & _LOW32) < bounds).any():  # a possible rejection: leave it to the one-at-a-time path
            self.state = start
            return None
        return (m >> np.uint64(32)).astype(np.int64)

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
            if 1 <= high - low < 1 << 32:
                block = self._below_block(np.full(count, high - low, dtype=np.uint64))
                if block is not None:
                    return (low + block).reshape(size)
            values = [self.integers(low, high) for _ in range(count)]
            return np.asarray(values, dtype=np.int64).reshape(size)
        if low == 0 and high == 1 << 63:
            return self.next64() >> 1
        return low + self.below(high - low)

    def shuffle(self, x: Any) -> None:
        """Shuffle ``x`` in place along its first axis (Fisher-Yates from the end)."""
        n = len(x)
        if n > 1:
            swaps = self._below_block(np.arange(n, 1, -1, dtype=np.uint64))  # bounds n .. 2 for i = n-1 .. 1
            if swaps is not None:
                _swap_in_order(x, swaps.tolist())
                return
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
            return ((self.next64_block(count) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))).reshape(size)
        return (self.next64() >> 11) * (1.0 / (1 << 53))


def _swap_in_order(x: Any, targets: list[int]) -> None:
    """Fisher-Yates' swaps ``x[i] <-> x[targets[k]]`` for ``i = n-1 .. 1`` (``k = n-1-i``), in place."""
    n = len(x)
    items = list(range(n)) if isinstance(x, np.ndarray) else x
    for k, j in enumerate(targets):
        i = n - 1 - k
        items[i], items[j] = items[j], items[i]
    if isinstance(x, np.ndarray):
        x[...] = x[items]  # the rows in their shuffled order (a copy is taken before the write)
