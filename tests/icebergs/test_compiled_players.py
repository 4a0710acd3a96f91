"""Icebergs' compiled players: the state row round trip they read, and decision-by-decision parity."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ice_envs import vector
from ice_envs.core.registry import make as make_env
from ice_envs.icebergs import compiled as C
from ice_envs.icebergs import rules

ROUND_TRIP_CASES = [
    (3, {}),
    (2, {"fleet": True}),
    (3, {"fleet": True, "extra_ships": True}),
    (1, {"solo": True, "solo_ice_six": "player"}),
    (4, {"restart_on_sink": True}),
    (2, {"map": "strait", "max_turns": 30}),
]


def _played(num_players: int, options: dict, steps: int = 200) -> vector.BatchedEngine:
    engine = vector.make("icebergs", 12, num_players, seed=3, engine="compiled", **options)
    _, mask, _ = engine.reset()
    rng = np.random.default_rng(5)
    for _ in range(steps):
        _, mask, *_ = engine.step(vector.random_actions(mask, rng))
    return engine


@pytest.mark.parametrize(("num_players", "options"), ROUND_TRIP_CASES)
def test_pack_state_is_the_inverse_of_state_of(num_players, options):
    engine = _played(num_players, options)
    cfg = engine.config_row()
    for i in range(engine.num_envs):
        row = engine.pack_state(engine.state_of(i))
        assert row.dtype == engine.state_dtype and row.shape == engine.state[i].shape
        kept = np.ones(engine.state_width, dtype=bool)
        pending = int(engine.state[i, C.NUM_HAZARDS])
        kept[cfg[C.S_HAZARDS] + 2 * pending :] = False  # pairs past the pending hazards are stale
        assert np.array_equal(row[kept], engine.state[i][kept])
        assert not row[~kept].any()


@pytest.mark.parametrize(("num_players", "options"), ROUND_TRIP_CASES)
def test_load_takes_scalar_states_back(num_players, options):
    states = []
    env = make_env("icebergs", raw=True, num_players=num_players, **options)
    rng = np.random.default_rng(9)
    for g in range(6):
        env.reset(seed=g)
        for _ in range(int(rng.integers(0, 80))):
            if all(env.terminations.values()) or all(env.truncations.values()):
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        states.append(env.game_state.copy())
    engine = vector.make("icebergs", len(states), num_players, seed=0, engine="compiled", **options)
    _, mask, seat = engine.load(states)
    for i, state in enumerate(states):
        back = engine.state_of(i)
        assert dataclasses.replace(back, log=[]) == dataclasses.replace(state, log=[])
        if not state.over:
            assert seat[i] == state.deciding_seat
            assert np.array_equal(np.flatnonzero(mask[i]), sorted(rules.legal_actions(state)))
