"""Potential-based reward shaping for games whose real reward is too sparse to find.

With a potential ``phi(state, seat)``, the learner's reward between two of its decisions
gets ``scale * (gamma * phi(s') - phi(s))`` added, where ``s`` is the state at its previous
decision and ``s'`` the state now; the potential of a finished game is 0. Shaping of this
form leaves the optimal policies of the game unchanged (Ng, Harada and Russell, 1999): it
only tells the learner earlier that it is getting closer. Evaluations and win rates never
see it, and ``info["episode"]["r"]`` stays the game's own return.

Potentials are game knowledge: each game's spec names its own (``GameSpec.potentials``, e.g.
``ice_envs/icebergs/shaping.py``), and the config picks one by name (``reward_shaping.potential``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from ice_envs.core.registry import get_spec

Potential = Callable[[Any, int], float]


class Shaper:
    """Adds ``scale * (gamma * phi(s') - phi(s))`` between the learner's decisions."""

    def __init__(self, game: str, potential: str, scale: float, gamma: float) -> None:
        self.game = game
        self.name = potential
        _potential(game, potential)  # an unknown potential fails here, not at the first step
        self.scale = scale
        self.gamma = gamma
        self._last = 0.0

    @property
    def potential(self) -> Potential:
        """The game's potential of that name (looked up by name, so a checkpoint's env state holds
        only plain data: ``train/checkpoints.py`` saves no functions)."""
        return _potential(self.game, self.name)

    def start(self, env: Any, seat: int) -> None:
        """A new game: remember the potential of the learner's first decision."""
        self._last = self.potential(env, seat)

    def bonus(self, env: Any, seat: int, done: bool) -> float:
        """The shaping reward of the transition that just ended (the potential after the end is 0)."""
        now = 0.0 if done else self.potential(env, seat)
        bonus = self.scale * (self.gamma * now - self._last)
        self._last = now
        return bonus


@cache
def _potential(game: str, name: str) -> Potential:
    return get_spec(game).potential(name)
