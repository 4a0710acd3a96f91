"""The "floor" env: the cheapest possible game on the same base class and wrappers.

Two agents alternate a single legal action for ``length`` decisions. The throughput
benchmark measures it in the same run as each game, so that a game's cost is reported
as a ratio to the pure PettingZoo + base-class overhead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.wrapping import make_factories

_ONLY_ACTION = (0,)


class FloorEnv(IceAECEnv):
    """Two agents, one action, ``length`` decisions (default 100)."""

    metadata = {**IceAECEnv.metadata, "name": "floor_v0"}
    min_players = 2
    max_players = 2

    def __init__(self, num_players: int = 2, length: int = 100, **common: Any) -> None:
        self.length = int(length)
        super().__init__(num_players, **common)

    def _num_actions(self) -> int:
        return 1

    def _observation_box(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (1,), np.float32)

    def _new_state(self, rng: np.random.Generator, options: dict[str, Any]) -> list[int]:
        return [0]

    def _current_seat(self) -> int:
        return self.game_state[0] % 2

    def _game_over(self) -> bool:
        return self.game_state[0] >= self.length

    def _legal_actions(self) -> Sequence[int]:
        return _ONLY_ACTION

    def _apply_action(self, action: int) -> None:
        self.game_state[0] += 1

    def _encode(self, seat: int) -> np.ndarray:
        return np.array([self.game_state[0] / self.length], dtype=np.float32)

    def _outcome(self) -> np.ndarray:
        return np.zeros(2)

    def _scores(self) -> np.ndarray:
        return np.zeros(2)

    def _describe(self, action: int) -> str:
        return "the only action"

    def _render_text(self, viewer: int | None) -> str:
        return f"floor: decision {self.game_state[0]} of {self.length}"

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> list[int]:
        return list(self.game_state)


env, raw_env = make_factories(FloorEnv)
