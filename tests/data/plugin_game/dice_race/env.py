"""
# Dice Race

A toy two- or three-player race, the plug-in example of ice-envs (rules: ``dice_race.rules``).
Import: ``from ice_envs import dice_race_v0`` (or ``ice_envs.make("dice_race")``).

``env(num_players=2, goal=20, max_rounds=30, render_mode=None, illegal_action="raise",
reward_mode="outcome", max_cycles=None)``

Observation (float32, in [0, 1]): the positions / goal of each relative seat (self first;
0 for absent seats, 3 entries), the roll one-hot (6), which relative seats are at the table
(3), the rounds played / max_rounds (1). Actions: 0 step one square, 1 dash the roll.
Rewards: +1 for each winner, -1 for the others (``reward_mode="score"``: squares gained).

Version history: v0, the first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from dice_race import rules
from dice_race.spec import SPEC
from ice_envs.core.aec import IceAECEnv
from ice_envs.core.errors import OptionError
from ice_envs.core.wrapping import make_factories

MAX_SEATS = 3
OBS_SIZE = MAX_SEATS + rules.DIE_SIDES + MAX_SEATS + 1


class DiceRaceEnv(IceAECEnv):
    """Dice Race as a PettingZoo AEC env (see the module docstring)."""

    metadata = {**IceAECEnv.metadata, "name": SPEC.env_name}
    min_players = 2
    max_players = MAX_SEATS
    engine = rules

    def __init__(self, num_players: int = 2, goal: int = 20, max_rounds: int = 30, **common: Any) -> None:
        for option, value in (("goal", goal), ("max_rounds", max_rounds)):
            if not isinstance(value, int) or value < 2:
                raise OptionError(f"dice_race: {option} must be an integer of at least 2, got {value!r}")
        self.goal, self.max_rounds = goal, max_rounds
        super().__init__(num_players, **common)

    def _num_actions(self) -> int:
        return rules.NUM_ACTIONS

    def _observation_box(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)

    def _new_state(self, rng: np.random.Generator, options: dict[str, Any]) -> rules.DiceRaceState:
        return rules.new_game(self.num_players, self.goal, self.max_rounds, rng)

    def _current_seat(self) -> int:
        return self.game_state.current

    def _encode(self, seat: int) -> np.ndarray:
        s: rules.DiceRaceState = self.game_state
        n = self.num_players
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        for k in range(n):
            obs[k] = s.positions[(seat + k) % n] / s.goal
        obs[MAX_SEATS + s.roll - 1] = 1.0
        obs[MAX_SEATS + rules.DIE_SIDES : MAX_SEATS + rules.DIE_SIDES + n] = 1.0
        obs[-1] = min(1.0, s.decisions / (n * s.max_rounds))
        return obs

    def _describe(self, action: int) -> str:
        s: rules.DiceRaceState = self.game_state
        square = rules.target(s, action)
        what = "step one square" if action == rules.STEP else f"dash the roll of {s.roll}"
        bumped = [f"player_{p}" for p, pos in enumerate(s.positions) if p != s.current and pos == square < s.goal]
        return f"{what} to square {square}" + (f", sending {', '.join(bumped)} home" if bumped else "")

    def _render_text(self, viewer: int | None) -> str:
        s: rules.DiceRaceState = self.game_state
        if s.over:
            head = "Dice Race over: " + " and ".join(f"player_{p}" for p in s.winners) + " won"
        else:
            head = f"Dice Race, goal {s.goal}: player_{s.current} rolled {s.roll}"
        rows = [f"player_{p}: {'#' * pos}{'.' * (s.goal - pos)} {pos}" for p, pos in enumerate(s.positions)]
        return "\n".join([head, *rows])


env, raw_env = make_factories(DiceRaceEnv)
