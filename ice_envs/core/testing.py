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

    def feed(self, values: Iterable[int]) -> None:
        """Append ``values`` to the script (to replay the draws of a batched engine step by step)."""
        self._values.extend(int(v) for v in values)

    @property
    def remaining(self) -> list[int]:
        """Scripted values not used yet."""
        return list(self._values)

    def __getattr__(self, name: str):
        return getattr(self._fallback, name)


def draws_by_game(log: list[tuple[int, np.ndarray, np.ndarray]], stage: int) -> dict[int, list[int]]:
    """The draws of a batched engine's ``draw_log`` (:mod:`ice_envs.core.vector`) made in ``stage``,
    per game, in the order each game made them: what a :class:`ScriptedRng` replays into the scalar env."""
    games = [g for s, g, _ in log if s == stage]
    if not games:
        return {}
    values = [v for s, _, v in log if s == stage]
    all_games = np.concatenate(games)
    all_values = np.concatenate(values)
    order = np.argsort(all_games, kind="stable")
    all_games, all_values = all_games[order], all_values[order]
    cuts = np.flatnonzero(np.diff(all_games)) + 1
    starts = np.concatenate(([0], cuts))
    return {
        int(all_games[a]): chunk.tolist() for a, chunk in zip(starts.tolist(), np.split(all_values, cuts), strict=True)
    }
