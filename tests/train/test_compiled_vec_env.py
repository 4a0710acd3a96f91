"""CompiledVecEnv: the learner's games on a compiled engine, opponents played inside the batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ice_envs.agents.ppo_agent import PolicyNet
from ice_envs.core.errors import OptionError

pytest.importorskip("numba")

from ice_envs.train.compiled_vec_env import CompiledVecEnv


def _snapshot(env: CompiledVecEnv, path: Path, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    d, a = env.engine.obs_dim, env.engine.n_actions
    net = PolicyNet(
        (rng.normal(size=(16, d)).astype(np.float32), rng.normal(size=(a, 16)).astype(np.float32)),
        (np.zeros(16, np.float32), np.zeros(a, np.float32)),
        "tanh",
    )
    net.save_npz(path)
    return str(path)


def _play(env: CompiledVecEnv, steps: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    finished = []
    for _ in range(steps):
        masks = env.action_masks()
        assert (env.engine.seat == env.seat).all(), "every game waits on the learner"
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        env.step_async(actions)
        _, rewards, dones, infos = env.step_wait()
        finished += [infos[i] for i in np.flatnonzero(dones)]
    return finished


@pytest.mark.parametrize(
    ("game", "players"),
    [("cardiceo", 4), ("cubemelt", 3), ("iceberg_rummy", 2), ("tip_of_the_diceberg", 3), ("icebergs", 2)],
)
def test_every_game_trains_against_random_and_snapshot_opponents(tmp_path: Path, game: str, players: int):
    options = {"max_decisions": 60}  # long games end by the cap, as truncations
    env = CompiledVecEnv(game, 16, players, options, opponents={"random": 1.0, "self_play": 1.0}, seed=1)
    env.set_pool([_snapshot(env, tmp_path / "s.npz")])
    env.reset()
    finished = _play(env, 100)
    assert finished, "some games end"
    for info in finished:
        assert set(info) >= {"terminal_observation", "episode", "is_success", "seat", "scores"}
        assert info["episode"]["l"] >= 1
    kinds = env.seat_kind[np.arange(env.num_envs)[:, None], np.arange(players)[None, :]]
    learner = kinds[np.arange(env.num_envs), env.seat]
    assert (learner == -1).all(), "the learner's seat has no opponent kind"
    assert (env.seat_player[np.arange(env.num_envs), env.seat] == -1).all()


def test_outcome_rewards_sum_to_the_learners_outcome():
    env = CompiledVecEnv("cardiceo", 32, 3, opponents={"random": 1.0}, seed=3)
    env.reset()
    finished = _play(env, 300)
    assert len(finished) > 20
    for info in finished:
        assert (info["episode"]["r"] > 0) == info["is_success"]


def test_a_saved_batch_resumes_exactly(tmp_path: Path):
    def make(seed: int) -> CompiledVecEnv:
        env = CompiledVecEnv("cubemelt", 8, 3, opponents={"random": 1.0, "self_play": 1.0}, seed=seed)
        env.set_pool([_snapshot(env, tmp_path / "a.npz", 0), _snapshot(env, tmp_path / "b.npz", 1)])
        return env

    env = make(0)
    env.reset()
    _play(env, 40)
    state = env.training_state()
    other = make(7)
    other.load_training_state(state)
    rng = np.random.default_rng(5)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        assert np.array_equal(env.action_masks(), other.action_masks())
        env.step_async(actions)
        other.step_async(actions)
        a, b = env.step_wait(), other.step_wait()
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])


def test_snapshot_actions_are_legal_and_deterministic_ones_are_the_argmax(tmp_path: Path):
    env = CompiledVecEnv("cardiceo", 8, 2, opponents={"self_play": 1.0}, seed=0, snapshot_deterministic=True)
    path = _snapshot(env, tmp_path / "s.npz")
    env.set_pool([path])
    env.reset()
    net = PolicyNet.load_npz(path)
    obs, mask = env.engine.obs.copy(), env.engine.mask.copy()
    got = env._snapshot_actions(env._net(0), obs, mask)
    for i in range(len(obs)):
        assert got[i] == int(np.argmax(net.probabilities(obs[i], mask[i])))
    env.snapshot_deterministic = False
    sampled = env._snapshot_actions(env._net(0), obs, mask)
    assert all(mask[i, a] for i, a in enumerate(sampled))


def test_unknown_opponents_and_an_empty_pool_are_refused():
    with pytest.raises(OptionError, match="opponents must weigh"):
        CompiledVecEnv("cardiceo", 4, 2, opponents={"mcts": 1.0})
    env = CompiledVecEnv("cardiceo", 4, 2, opponents={"self_play": 1.0})
    with pytest.raises(RuntimeError, match="pool is empty"):
        env.reset()
