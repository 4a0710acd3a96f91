"""Test helpers shared by the games' unit tests."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class ScriptedRng:
    """A stand-in for ``np.random.Generator`` whose ``integers`` returns preset values.

    Use it to play a rulebook example with fixed dice: every call of
    ``integers(low, high)`` returns the next scripted value (checked to lie in
    ``[low, high)``). Other methods fall back to a seeded real generator.
    """

    def __init__(self, values: Iterable[int], seed: int = 0) -> None:
        self._values = list(values)
        self._fallback = np.random.default_rng(seed)

    def integers(self, low, high=None, size=None, **kwargs):
        if size is not None or not self._values:
            raise AssertionError(f"unscripted roll integers({low}, {high}, size={size}); script exhausted or sized")
        if high is None:
            low, high = 0, low
        value = self._values.pop(0)
        assert low <= value < high, f"scripted value {value} outside [{low}, {high})"
        return value

    @property
    def remaining(self) -> list[int]:
        """Scripted values not used yet."""
        return list(self._values)

    def __getattr__(self, name: str):
        return getattr(self._fallback, name)
