"""Potential-based reward shaping for games whose real reward is too sparse to find.

With a potential ``phi(state, seat)``, the learner's reward between two of its decisions
gets ``scale * (gamma * phi(s') - phi(s))`` added, where ``s`` is the state at its previous
decision and ``s'`` the state now; the potential of a finished game is 0. Shaping of this
form leaves the optimal policies of the game unchanged (Ng, Harada and Russell, 1999): it
only tells the learner earlier that it is getting closer. Evaluations and win rates never
see it, and ``info["episode"]["r"]`` stays the game's own return.

Potentials read the engine state of the raw env (``env.state``) and are named in the config
(``reward_shaping.potential``); :data:`POTENTIALS` maps each name to its game and function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ice_envs.icebergs import rules as icebergs_rules

Potential = Callable[[Any, int], float]


def icebergs_voyage(env: Any, seat: int) -> float:
    """Icebergs: how far the seat's ships are through the voyage to Alaska and home, in [0, 2].

    Per ship: 0 in Newfoundland (or sunk); at sea on the way out, the share of the map's
    columns already crossed westward; 1 in Alaska; at sea loaded, 1 plus the share crossed
    back eastward; 2 home. The seat's potential is the mean over its ships.
    """
    state = env.state
    cfg = state.config
    cols = cfg.hexmap.cols
    ships = range(seat * cfg.ships_per_player, (seat + 1) * cfg.ships_per_player)
    total = 0.0
    for k in ships:
        status = state.status[k]
        if status == icebergs_rules.AT_SEA:
            col = state.pos[k] % cols
            total += 1 + (col + 1) / (cols + 1) if state.loaded[k] else (cols - col) / (cols + 1)
        elif status in (icebergs_rules.ALASKA_LOADING, icebergs_rules.ALASKA_READY):
            total += 1.0
        elif status == icebergs_rules.HOME:
            total += 2.0
    return total / cfg.ships_per_player


#: Shaping potential name -> (game, potential).
POTENTIALS: dict[str, tuple[str, Potential]] = {
    "icebergs_voyage": ("icebergs", icebergs_voyage),
}


class Shaper:
    """Adds ``scale * (gamma * phi(s') - phi(s))`` between the learner's decisions."""

    def __init__(self, potential: str, scale: float, gamma: float) -> None:
        self.name = potential
        self.potential = POTENTIALS[potential][1]
        self.scale = scale
        self.gamma = gamma
        self._last = 0.0

    def start(self, env: Any, seat: int) -> None:
        """A new game: remember the potential of the learner's first decision."""
        self._last = self.potential(env, seat)

    def bonus(self, env: Any, seat: int, done: bool) -> float:
        """The shaping reward of the transition that just ended (the potential after the end is 0)."""
        now = 0.0 if done else self.potential(env, seat)
        bonus = self.scale * (self.gamma * now - self._last)
        self._last = now
        return bonus
