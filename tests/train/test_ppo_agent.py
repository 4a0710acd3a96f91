"""The PPO agent: loads a MaskablePPO checkpoint, matches the torch policy, plays only legal moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ice_envs
from ice_envs.agents import AgentSpecError, load_agent
from ice_envs.agents.ppo_agent import LOGIT_QUANTUM, PolicyNet, PPOAgent, load_policy_net

pytest.importorskip("sb3_contrib")


@pytest.fixture(scope="module")
def model(tiny_run: Path):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(tiny_run / "final.zip", device="cpu")


def random_observations(n: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    env = ice_envs.make("cardiceo", num_players=2, hand_size=5)
    rng = np.random.default_rng(seed)
    out = []
    env.reset(seed=seed)
    while len(out) < n:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            out.append(obs)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.reset()
    return out[:n]


def test_numpy_policy_matches_the_torch_policy(model, tiny_run: Path):
    import torch

    net = load_policy_net(tiny_run / "final.zip")
    assert net.activation == "tanh" and net.meta["game"] == "cardiceo" and net.meta["players"] == 2
    obs = np.stack([o["observation"] for o in random_observations(64)])
    with torch.no_grad():
        x = torch.as_tensor(obs)
        latent = model.policy.mlp_extractor.forward_actor(model.policy.extract_features(x))
        expected = model.policy.action_net(latent).numpy()
    np.testing.assert_allclose(net.logits(obs), expected, rtol=1e-5, atol=1e-5)


def test_greedy_action_is_maskable_ppos_deterministic_prediction(model, tiny_run: Path):
    agent = PPOAgent.load(tiny_run / "final.zip", game="cardiceo", num_players=2)
    assert agent.deterministic and agent.name == "ppo:final.zip" and not agent.needs_view
    ties = 0
    for obs in random_observations(100, seed=1):
        action, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool), deterministic=True)
        logits = np.rint(agent.net.logits(obs["observation"]).astype(np.float64) / LOGIT_QUANTUM)
        legal = np.flatnonzero(obs["action_mask"])
        best = legal[logits[legal] == logits[legal].max()]
        if best.size > 1:  # a near-tie on the quantum grid: the lowest id, whatever torch's last bits say
            ties += 1
            assert agent.act(obs) == int(best[0]) and int(action) in best
        else:
            assert agent.act(obs) == int(action)
    assert ties <= 2


def test_zip_and_npz_agree_and_sampling_is_seeded(tiny_run: Path):
    z = PPOAgent.load(tiny_run / "final.zip", seed=5, deterministic=False)
    n = PPOAgent.load(tiny_run / "final.npz", seed=5, deterministic=False)
    observations = random_observations(50, seed=2)
    assert [z.act(o) for o in observations] == [n.act(o) for o in observations]
    probs = z.action_probabilities(observations[0])
    assert probs.sum() == pytest.approx(1.0)
    assert np.all(probs[observations[0]["action_mask"] == 0] == 0)


@pytest.mark.parametrize("deterministic", [True, False])
def test_only_legal_moves_in_whole_games(tiny_run: Path, deterministic: bool):
    agent = PPOAgent.load(tiny_run / "final.zip", game="cardiceo", seed=0, deterministic=deterministic)
    for players in (2, 4):  # the Cardiceo encoding has fixed seat slots: one checkpoint fits every count
        env = ice_envs.make("cardiceo", num_players=players)
        rng = np.random.default_rng(players)
        for game in range(5):
            env.reset(seed=game)
            decisions = 0
            for name in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                action = agent.act(obs) if name == "player_0" else int(rng.choice(np.flatnonzero(obs["action_mask"])))
                assert obs["action_mask"][action] == 1
                env.step(action)
                decisions += 1
                assert decisions < 5000


def test_ppo_spec_in_an_evaluation(tiny_run: Path):
    from ice_envs.evaluation.tournament import evaluate

    spec_agent = load_agent(f"ppo:{tiny_run / 'final.zip'}", "cardiceo", num_players=2)
    assert isinstance(spec_agent, PPOAgent)
    summary, results = evaluate(
        "cardiceo", 2, f"ppo:{tiny_run / 'final.zip'},random", 6, seed=0, options={"hand_size": 5}, progress=False
    )
    assert summary["per_agent"][0]["agent"] == "ppo:final.zip" and len(results) == 6


def test_clear_errors(tiny_run: Path, tmp_path: Path):
    with pytest.raises(AgentSpecError, match="ppo checkpoint not found"):
        PPOAgent.load(tmp_path / "missing.zip")
    junk = tmp_path / "junk.zip"
    junk.write_text("not a zip")
    with pytest.raises(AgentSpecError, match="is not a MaskablePPO checkpoint"):
        PPOAgent.load(junk)
    other = next((g for g in ice_envs.GAMES if g != "cardiceo"), None)
    if other is not None:
        with pytest.raises(AgentSpecError, match="was trained on 'cardiceo'"):
            PPOAgent.load(tiny_run / "final.zip", game=other)
    net = load_policy_net(tiny_run / "final.npz")
    small = PolicyNet(net.weights[:-1] + (net.weights[-1][:5],), net.biases[:-1] + (net.biases[-1][:5],))
    small.save_npz(tmp_path / "small.npz")
    with pytest.raises(AgentSpecError, match=r"expects observations of size \d+ and 5 actions"):
        PPOAgent.load(tmp_path / "small.npz", game="cardiceo", num_players=3)
    with pytest.raises(AgentSpecError, match="unsupported activation"):
        PolicyNet.from_state_dict({}, "sigmoid")
