"""The batched training path: a stable-baselines3 VecEnv over a batched engine, MaskablePPO through it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.train.batched_vec_env import BatchedVecEnv, greedy_actions


class MaskCheckingEnv(BatchedVecEnv):
    """Records every action the learner takes and whether its mask allowed it."""

    def step_async(self, actions):
        actions = np.asarray(actions, dtype=np.int64)
        self.allowed = getattr(self, "allowed", [])
        self.allowed.append(self.engine.mask[np.arange(self.num_envs), actions].astype(bool))
        super().step_async(actions)


@pytest.mark.parametrize(
    ("game", "players", "options"), [("cardiceo", 3, {"hand_size": 5}), ("cubemelt", 2, {"expansion": True})]
)
def test_maskable_ppo_trains_through_the_batched_vec_env(game, players, options):
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = MaskCheckingEnv(game, 16, players, options, opponents={"random": 0.5, "greedy": 0.5}, seed=1)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=128,
        n_epochs=1,
        seed=1,
        verbose=0,
        policy_kwargs={"net_arch": [16, 16]},
    )
    model.learn(total_timesteps=3072)
    assert model.num_timesteps >= 3072
    allowed = np.concatenate(env.allowed)
    assert allowed.size >= 3072 and allowed.all(), "MaskablePPO took a masked action"
    episodes = list(model.ep_info_buffer)
    assert len(episodes) >= 20
    returns = np.array([e["r"] for e in episodes])
    assert np.all(np.abs(returns) <= 1.0)  # outcome rewards: +1 or -1 per game, nothing between decisions
    assert set(np.unique(returns)) <= {-1.0, 1.0}


def test_rewards_go_to_the_learner_seat_and_episodes_end_with_the_game():
    env = BatchedVecEnv("cardiceo", 32, 4, {"hand_size": 5}, learner_seat=2, seed=3)
    obs = env.reset()
    assert obs.shape == (32, env.observation_space.shape[0])
    assert (env.engine.seat == 2).all()  # every game waits for the learner
    rng = np.random.default_rng(0)
    wins = games = 0
    for _ in range(600):
        mask = env.action_masks()
        assert mask.any(axis=1).all()
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, rewards, dones, infos = env.step(actions)
        assert (env.engine.seat == 2).all()
        assert np.all(rewards[~dones] == 0.0)  # outcome mode: nothing before the end
        for i in np.flatnonzero(dones):
            info = infos[i]
            games += 1
            wins += info["is_success"]
            assert rewards[i] == (1.0 if info["is_success"] else -1.0) == info["episode"]["r"]
            assert info["seat"] == 2 and info["terminal_observation"].shape == obs[i].shape
            assert info["scores"][2] == (5 if info["is_success"] else info["scores"][2])
    assert games >= 50
    assert 0.1 < wins / games < 0.45  # a random learner against three random players


def test_score_rewards_sum_to_the_learner_score():
    env = BatchedVecEnv("cubemelt", 16, 3, {"reward_mode": "score"}, seed=5)
    env.reset()
    rng = np.random.default_rng(1)
    totals = np.zeros(16)
    checked = 0
    for _ in range(400):
        mask = env.action_masks()
        obs, rewards, dones, infos = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
        totals += rewards
        for i in np.flatnonzero(dones):
            assert totals[i] == pytest.approx(infos[i]["episode"]["r"], abs=1e-4)
            assert totals[i] == pytest.approx(infos[i]["scores"][infos[i]["seat"]], abs=1e-4)
            totals[i] = 0.0
            checked += 1
    assert checked >= 10


def test_illegal_learner_actions_are_penalized_or_raise():
    env = BatchedVecEnv("cardiceo", 4, 2, seed=0)
    env.reset()
    mask = env.action_masks()
    actions = mask.argmax(axis=1)
    actions[1] = int(np.flatnonzero(~mask[1])[0])
    _, rewards, dones, infos = env.step(actions)
    assert dones[1] and rewards[1] == -1.0 and infos[1]["illegal_action"]
    assert env.lengths[1] == 0 and (env.engine.seat == env.seat).all()
    strict = BatchedVecEnv("cardiceo", 4, 2, seed=0, illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalActionError):
        strict.step(actions)
    with pytest.raises(OptionError):
        BatchedVecEnv("cardiceo", 4, 2, opponents={"nobody": 1.0})


@pytest.mark.parametrize("game", ["cardiceo", "cubemelt"])
def test_greedy_opponents_play_legal_moves(game):
    from ice_envs import vector

    engine = (
        vector.make(game, 64, 3, seed=2, expansion=True, engine="numpy")
        if game == "cubemelt"
        else vector.make(game, 64, 3, engine="numpy")
    )
    _, mask, _ = engine.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(200):
        actions = greedy_actions(engine, np.arange(64), mask, rng)
        assert mask[np.arange(64), actions].all()
        _, mask, *_ = engine.step(actions)


@pytest.mark.parametrize(("game", "options"), [("cubemelt", {"expansion": True}), ("cardiceo", {})])
def test_training_state_is_plain_json_and_resumes_exactly(game, options):
    import json

    env = BatchedVecEnv(game, 8, 3, options, opponents={"random": 0.5, "greedy": 0.5}, seed=4)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        mask = env.action_masks()
        env.step((rng.random(mask.shape) * mask).argmax(axis=1))
    blob = json.loads(json.dumps(env.training_state(), allow_nan=False))
    mask = env.action_masks()
    actions = [(np.random.default_rng(k).random(mask.shape) * mask).argmax(axis=1) for k in range(30)]

    def play(e):
        out = []
        for a in actions:
            m = e.action_masks()
            a = np.where(m[np.arange(8), a], a, m.argmax(axis=1))
            obs, r, d, _ = e.step(a)
            out.append((obs, r, d))
        return out

    first = play(env)
    fresh = BatchedVecEnv(game, 8, 3, options, opponents={"random": 0.5, "greedy": 0.5}, seed=99)
    fresh.reset()
    fresh.load_training_state(blob)
    again = play(fresh)
    assert all(np.array_equal(x, y) for p, q in zip(first, again, strict=True) for x, y in zip(p, q, strict=True))
    if game == "cubemelt":  # the engine's views of its tracks still follow them
        assert np.shares_memory(fresh.engine.love, fresh.engine.tracks)
    bad = {**blob, "games": {**blob["games"], "seat": {**blob["games"]["seat"], "shape": [9]}}}
    with pytest.raises(ValueError, match="seat"):
        fresh.load_training_state(bad)
    with pytest.raises(OptionError, match="self-play"):
        env.set_pool(["snapshot.npz"])
