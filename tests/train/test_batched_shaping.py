"""Reward shaping on the compiled engine: the batched Icebergs voyage potential is the Python one to the
last bit, and ``CompiledVecEnv`` adds the bonus as the scalar training env does."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from ice_envs.core.errors import OptionError
from ice_envs.icebergs.shaping import voyage, voyage_rows
from ice_envs.train.config import ConfigError, config_from_dict
from tests.train.conftest import tiny_config_dict

pytest.importorskip("numba")

from ice_envs.core.vector import make as make_batched
from ice_envs.train.compiled_vec_env import CompiledVecEnv

OPTIONS = {"max_turns": 30, "max_turns_end": "decide"}


@pytest.mark.parametrize(("players", "options"), [(2, {}), (3, {"fleet": True}), (4, {"max_turns": 12})])
def test_batched_voyage_is_the_python_potential_bit_for_bit(players: int, options: dict):
    engine = make_batched("icebergs", 24, players, seed=players, engine="compiled", **options)
    engine.reset(seed=players)
    rng = np.random.default_rng(players)
    nonzero = 0
    for _ in range(120):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in engine.mask])
        engine.step(actions)
        for seat in range(players):
            seats = np.full(engine.num_envs, seat)
            rows = voyage_rows(engine.state, engine._cfg, seats)
            for i in range(engine.num_envs):
                expected = voyage(SimpleNamespace(game_state=engine.state_of(i)), seat)
                assert rows[i] == expected  # exact: the same divisions, added in the same order
                nonzero += expected > 0
    assert nonzero > 100, "ships left Newfoundland in the sample"


def _play(env: CompiledVecEnv, steps: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, list[dict], np.ndarray]]:
    """Random learner moves: each step's rewards, dones, infos and the potentials after it."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        env.step_async(actions)
        _, rewards, dones, infos = env.step_wait()
        out.append((rewards.astype(np.float64), dones, infos, getattr(env, "phi_last", np.zeros(0)).copy()))
    return out


def test_shaped_rewards_telescope_and_leave_the_game_return_alone():
    scale = 2.0
    kwargs = {"opponents": {"random": 1.0, "heuristic": 1.0}, "seed": 4}
    shaped = CompiledVecEnv("icebergs", 12, 2, OPTIONS, shaping=("icebergs_voyage", scale, 1.0), **kwargs)
    plain = CompiledVecEnv("icebergs", 12, 2, OPTIONS, **kwargs)
    shaped.reset()
    plain.reset()
    first = shaped.phi_last.copy()
    assert (first == voyage_rows(plain.engine.state, plain.engine._cfg, plain.seat)).all()
    bonus = np.zeros(12)
    episodes, shaped_steps = 0, 0
    for (r_shaped, d_shaped, i_shaped, phi), (r_plain, d_plain, i_plain, _) in zip(
        _play(shaped, 400, 1), _play(plain, 400, 1), strict=True
    ):
        assert np.array_equal(d_shaped, d_plain)  # shaping changes no game
        bonus += r_shaped - r_plain
        shaped_steps += int((r_shaped != r_plain).sum())
        for i in np.flatnonzero(d_shaped):
            # gamma = 1: the bonuses of an episode add up to -scale * phi(its first decision)
            assert bonus[i] == pytest.approx(-scale * first[i], abs=1e-5)
            assert i_shaped[i]["episode"]["r"] == i_plain[i]["episode"]["r"]  # the game's own return
            episodes += 1
        first[d_shaped] = phi[d_shaped]
        bonus[d_shaped] = 0.0
    assert episodes > 10 and shaped_steps > 100, "the ships' progress was rewarded along the way"


def test_a_shaped_batch_resumes_exactly():
    def make(seed: int) -> CompiledVecEnv:
        return CompiledVecEnv(
            "icebergs", 6, 2, OPTIONS, opponents={"greedy": 1.0}, seed=seed, shaping=("icebergs_voyage", 1.0, 0.99)
        )

    env = make(0)
    env.reset()
    _play(env, 30, 2)
    state = env.training_state()
    assert "phi_last" in state["games"]
    other = make(9)
    other.load_training_state(state)
    for a, b in zip(_play(env, 40, 3), _play(other, 40, 3), strict=True):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_a_potential_without_a_batched_version_is_refused():
    with pytest.raises(OptionError, match="unknown shaping potential 'closer'"):
        CompiledVecEnv("icebergs", 2, 2, OPTIONS, shaping=("closer", 1.0, 1.0))
    with pytest.raises(OptionError, match="unknown shaping potential"):
        CompiledVecEnv("cardiceo", 2, 2, shaping=("icebergs_voyage", 1.0, 1.0))


def test_config_takes_shaping_with_the_batched_env():
    data = tiny_config_dict(
        game__name="icebergs",
        game__players=2,
        game__options={},
        opponents__mix={"heuristic": 1.0},
        vec_env="batched",
        reward_shaping__potential="icebergs_voyage",
        imitation__workers=1,
    )
    cfg = config_from_dict(data)
    assert cfg.vec_env == "batched" and cfg.reward_shaping.potential == "icebergs_voyage"
    with pytest.raises(ConfigError, match="reward_shaping.potential"):
        config_from_dict({**data, "reward_shaping": {"potential": "voyage"}})
