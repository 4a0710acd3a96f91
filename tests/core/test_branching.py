"""Branching for search on the compiled engines: load positions into a batch, play them out in one call."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs import vector
from ice_envs.core.engine_parity import assert_same_state
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.testing import ScriptedRng, draws_by_game
from ice_envs.core.vector import STAGE_STEP

CASES = [("cardiceo", 3, {"hand_size": 5}), ("cubemelt", 4, {"expansion": True})]


def _positions(game: str, n: int, options: dict, count: int, steps: int) -> list:
    """``count`` positions reached by random play (taken from a compiled batch)."""
    engine = vector.make(game, count, n, seed=11, engine="compiled", **options)
    _, mask, _ = engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        _, mask, *_ = engine.step(vector.sample_legal(mask, rng))
    return [engine.state_of(i) for i in range(count)], engine


@pytest.mark.parametrize(("game", "n", "options"), CASES)
def test_loaded_positions_are_the_states_given(game, n, options):
    states, source = _positions(game, n, options, 12, 15)
    engine = vector.make(game, 12, n, engine="compiled", **options)
    obs, mask, seat = engine.load(states)
    for i, state in enumerate(states):
        assert_same_state(engine, engine.state_of(i), state, f"game {i}")
    assert np.array_equal(obs, source.obs) and np.array_equal(mask, source.mask) and np.array_equal(seat, source.seat)


@pytest.mark.parametrize(("game", "n", "options"), CASES)
def test_a_playout_is_a_game_the_scalar_env_plays_the_same_way(game, n, options):
    """Replaying a playout's actions and draws into the scalar env ends on the same scores and outcome."""
    states, _ = _positions(game, n, options, 8, 10)
    engine = vector.make(game, 8, n, engine="compiled", **options)
    engine.log_capacity = 4096
    engine.draw_log = []
    engine.load(states, seeds=range(8))
    engine.draw_log = []
    result = engine.playout(record=5000)
    draws = draws_by_game(engine.draw_log, STAGE_STEP)
    for i, state in enumerate(states):
        env = ice_envs.make(game, raw=True, num_players=n, **options)
        env.reset(options={"state": state})
        env._rng = ScriptedRng(draws.get(i, []))
        length = int(result["length"][i])
        for a in result["actions"][i, :length]:
            env.step(int(a))
        assert not env._rng.remaining
        assert env.terminations[env.possible_agents[0]], f"game {i} did not end"
        assert np.array_equal(env.scores(), result["scores"][i])
        assert np.array_equal(env.outcome(), result["outcome"][i])


@pytest.mark.parametrize(("game", "n", "options"), CASES)
def test_the_same_seeds_give_the_same_playouts_and_first_actions_are_played(game, n, options):
    states, _ = _positions(game, n, options, 1, 6)
    engine = vector.make(game, 64, n, engine="compiled", **options)
    _, mask, _ = engine.load(states * 64, seeds=range(64))
    a = engine.playout(record=3)
    engine.load(states * 64, seeds=range(64))
    b = engine.playout(record=3)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert len({tuple(row) for row in a["scores"].tolist()}) > 1  # 64 streams, not one game 64 times
    first = int(np.flatnonzero(mask[0])[-1])
    engine.load(states * 64, seeds=range(64))
    c = engine.playout(np.full(64, first), record=1)
    assert (c["actions"][:, 0] == first).all()
    engine.load(states * 64)
    illegal = np.flatnonzero(mask[0] == 0)
    if illegal.size:
        with pytest.raises(IllegalActionError, match="not legal"):
            engine.playout(np.full(64, int(illegal[0])))
    with pytest.raises(OptionError, match="one state per game"):
        engine.load(states)
