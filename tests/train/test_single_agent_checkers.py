"""The single-agent wrapper passes stable-baselines3's and Gymnasium's env checkers.

Both checkers step actions sampled from the action space without a mask; under the default
``illegal_action="penalize"`` an illegal one ends the episode with reward -1 (PettingZoo
classic's ``TerminateIllegalWrapper``), under ``"raise"`` it raises ``IllegalActionError``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.registry import built_in_games
from ice_envs.wrappers.single_agent import SingleAgentEnv

pytest.importorskip("stable_baselines3")
GAMES = sorted(ice_envs.GAMES)


def _smallest(game: str) -> int:
    return min(ice_envs.get_spec(game).players)


def _illegal_action(env: SingleAgentEnv) -> int:
    illegal = np.flatnonzero(~env.action_masks())
    assert illegal.size, "every action is legal here"
    return int(illegal[0])


@pytest.mark.parametrize("game", GAMES)
def test_stable_baselines3_env_checker_passes(game):
    from stable_baselines3.common.env_checker import check_env

    env = SingleAgentEnv(game, _smallest(game))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning
        check_env(env)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_env_checker_passes(game):
    from gymnasium.utils.env_checker import check_env

    env = SingleAgentEnv(game, _smallest(game))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    # the one remaining note: alternative render modes are tested only for envs made by gymnasium.make
    assert [str(w.message) for w in caught if "spec" not in str(w.message)] == []


@pytest.mark.filterwarnings("ignore:.*not having a spec")
@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_render_modes_pass_the_checkers(mode):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = SingleAgentEnv("cardiceo", 2, render_mode=mode)
    check_env(env)
    sb3_check_env(env)
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, str) if mode == "ansi" else frame.ndim == 3 and frame.dtype == np.uint8


def test_no_render_mode_renders_nothing():
    env = SingleAgentEnv("cardiceo", 2)
    env.reset(seed=0)
    assert env.render() is None


@pytest.mark.parametrize("mode", ["bogus", "human", ""])
def test_an_unknown_render_mode_is_refused(mode):
    with pytest.raises(OptionError, match="render_mode"):
        SingleAgentEnv("cardiceo", 2, render_mode=mode)


def test_an_unknown_illegal_action_policy_is_refused():
    with pytest.raises(OptionError, match="illegal_action"):
        SingleAgentEnv("cardiceo", 2, illegal_action="ignore")


#: Games with an illegal action at the first decision (the built-in ones; a plug-in may have none).
@pytest.mark.parametrize("game", sorted(built_in_games()))
def test_an_illegal_action_ends_the_episode_with_minus_one(game):
    env = SingleAgentEnv(game, _smallest(game))
    obs, _ = env.reset(seed=3)
    before = env.raw.num_steps
    obs, reward, terminated, truncated, info = env.step(_illegal_action(env))
    assert reward == -1.0 and terminated and not truncated
    assert info["illegal_action"] is True and info["is_success"] is False
    assert info["episode"]["r"] == -1.0 and info["episode"]["l"] == 1
    assert env.raw.num_steps == before  # the game was not played on
    assert env.observation_space.contains(obs)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=4)  # and the next episode starts normally
    assert env.action_masks().any()


def test_legal_actions_have_no_illegal_action_flag():
    env = SingleAgentEnv("cardiceo", 2)
    env.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        assert "illegal_action" not in info


def test_raise_keeps_the_old_behaviour():
    env = SingleAgentEnv("cardiceo", 2, illegal_action="raise")
    env.reset(seed=3)
    with pytest.raises(IllegalActionError):
        env.step(_illegal_action(env))


@pytest.mark.parametrize("policy", ["penalize", "raise"])
def test_an_action_outside_the_action_space_raises(policy):
    env = SingleAgentEnv("cardiceo", 2, illegal_action=policy)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(env.action_space.n)


def test_infinite_observation_bounds_are_made_finite():
    env = SingleAgentEnv("iceberg_rummy", 2)
    raw_box = env.raw.observation_space(env.raw.possible_agents[0])["observation"]
    assert not np.all(np.isfinite(raw_box.low))  # the game's own box has unbounded scores
    box = env.observation_space
    assert np.all(np.isfinite(box.low)) and np.all(np.isfinite(box.high)) and box.dtype == raw_box.dtype
    finite = np.isfinite(raw_box.low)
    assert np.array_equal(box.low[finite], raw_box.low[finite])
    obs, _ = env.reset(seed=0)
    assert box.contains(obs)


def test_same_seed_same_episode():
    def episode(seed: int) -> list:
        env = SingleAgentEnv("cubemelt", 2)
        obs, _ = env.reset(seed=seed)
        env.action_space.seed(seed)
        out = [obs.copy()]
        for _ in range(50):
            obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            out.append((obs.copy(), reward, terminated, truncated))
            if terminated or truncated:
                break
        return out

    a, b = episode(7), episode(7)
    assert len(a) == len(b)
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(x[0], y[0]) and x[1:] == y[1:]


def test_maskable_ppo_trains_through_the_wrapper_without_illegal_actions():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    flagged: list[dict] = []

    class Watched(SingleAgentEnv):
        def step(self, action):
            out = super().step(action)
            if out[4].get("illegal_action"):
                flagged.append(out[4])
            return out

    vec = DummyVecEnv([lambda: Watched("cardiceo", 2, {"hand_size": 5})])
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128
    assert flagged == []  # MaskablePPO never samples a masked action
