"""Dice helpers shared by the dice games."""

from __future__ import annotations

from functools import cache
from itertools import combinations


@cache
def nonempty_subsets(n: int) -> tuple[tuple[int, ...], ...]:
    """All non-empty subsets of ``range(n)`` as index tuples, smallest first, in a fixed order."""
    return tuple(c for k in range(1, n + 1) for c in combinations(range(n), k))
