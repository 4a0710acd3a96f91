"""The uniformly random legal agent."""

from __future__ import annotations

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent


class RandomAgent(SeededAgent):
    """Picks uniformly among the legal actions of the mask."""

    name = "random"

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        return self.random_legal(observation["action_mask"])
