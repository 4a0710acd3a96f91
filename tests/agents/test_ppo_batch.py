"""``PPOAgent.act_batch`` decides for many agents in one forward pass, as each agent's ``act`` would."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.ppo_agent import PPOAgent
from ice_envs.evaluation.batched import batch_key

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINT = ROOT / "checkpoints" / "cardiceo_ppo" / "final.npz"


def _positions(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` decisions of random 4-player Cardiceo."""
    env = ice_envs.make("cardiceo", num_players=4, raw=True)
    rng = np.random.default_rng(3)
    observations, masks = [], []
    env.reset(seed=3)
    while len(observations) < count:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset(seed=int(rng.integers(1 << 30)))
            continue
        observations.append(obs["observation"].copy())
        masks.append(obs["action_mask"].copy())
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.stack(observations), np.stack(masks)


@pytest.mark.parametrize("deterministic", [True, False])
def test_act_batch_makes_each_agents_own_decision(deterministic: bool) -> None:
    observations, masks = _positions(64)
    agents = [
        PPOAgent.load(CHECKPOINT, game="cardiceo", num_players=4, seed=i, deterministic=deterministic)
        for i in range(len(observations))
    ]
    twins = [
        PPOAgent.load(CHECKPOINT, game="cardiceo", num_players=4, seed=i, deterministic=deterministic)
        for i in range(len(observations))
    ]
    assert len({batch_key(a) for a in agents}) == 1
    batched = PPOAgent.act_batch(agents, observations, masks)
    one_by_one = [t.act({"observation": o, "action_mask": m}) for t, o, m in zip(twins, observations, masks)]
    assert batched == one_by_one
    assert all(masks[i, a] for i, a in enumerate(batched))
    # each agent drew from its own generator, as act does: their next draws agree too
    assert [a.rng.random() for a in agents] == [t.rng.random() for t in twins]
    if not deterministic:  # sampling does not always pick the most probable move
        greedy = [t.greedy_action({"observation": o, "action_mask": m}) for t, o, m in zip(twins, observations, masks)]
        assert batched != greedy


def test_agents_that_cannot_decide_together_have_other_keys() -> None:
    a = PPOAgent.load(CHECKPOINT, game="cardiceo", num_players=4, seed=0)
    b = PPOAgent.load(CHECKPOINT, game="cardiceo", num_players=4, seed=1)
    sampling = PPOAgent.load(CHECKPOINT, game="cardiceo", num_players=4, seed=0, deterministic=False)
    assert batch_key(a) == batch_key(b) != batch_key(sampling)
    heuristic = ice_envs.agents.spec.load_agent("heuristic", "cardiceo", num_players=4)
    assert batch_key(heuristic) is None
