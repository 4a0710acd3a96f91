"""A checkpoint reads the observation pieces it was trained on by name, so added pieces do not break it."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.ppo_agent import PolicyNet, PPOAgent, observation_pieces
from ice_envs.core.errors import AgentSpecError
from ice_envs.core.registry import built_in_games


def _net(pieces: list[list], n_actions: int, seed: int = 0) -> PolicyNet:
    rng = np.random.default_rng(seed)
    size = sum(s for _, s in pieces)
    weights = (rng.normal(size=(16, size)), rng.normal(size=(n_actions, 16)))
    biases = (rng.normal(size=16), rng.normal(size=n_actions))
    meta = {"game": "cardiceo", "players": 3, "options": {}, "observation_pieces": pieces}
    return PolicyNet.checked(weights, biases, "tanh", meta)


def _env():
    return ice_envs.make("cardiceo", num_players=3, raw=True)


def test_trainer_meta_records_every_piece_of_the_layout() -> None:
    env = _env()
    pieces = observation_pieces(env.obs_layout)
    assert [name for name, _ in pieces] == list(env.obs_layout.names)
    assert sum(size for _, size in pieces) == env.obs_layout.size


def test_a_checkpoint_without_the_newer_pieces_reads_its_own_by_name(tmp_path) -> None:
    env = _env()
    full = observation_pieces(env.obs_layout)
    # as if the last piece had been added after training, and the first two swapped in the file's order
    trained = [full[1], full[0], *full[2:-1]]
    path = tmp_path / "old.npz"
    _net(trained, env.action_space("player_0").n).save_npz(path)
    agent = PPOAgent.load(path, game="cardiceo", num_players=3)
    take = np.concatenate(
        [np.arange(env.obs_layout.slice(name).start, env.obs_layout.slice(name).stop) for name, _ in trained]
    )
    np.testing.assert_array_equal(agent.observation_indices, take)
    env.reset(seed=4)
    for _ in range(30):
        if any(env.terminations.values()):
            break
        obs = env.observe(env.agent_selection)
        expected = agent.net.probabilities(obs["observation"][take], obs["action_mask"])
        np.testing.assert_array_equal(agent.action_probabilities(obs), expected)
        env.step(agent.act(obs))


def test_a_checkpoint_of_the_current_layout_reads_the_whole_vector(tmp_path) -> None:
    env = _env()
    path = tmp_path / "now.npz"
    _net(observation_pieces(env.obs_layout), env.action_space("player_0").n).save_npz(path)
    assert PPOAgent.load(path, game="cardiceo", num_players=3).observation_indices is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: [["no_such_piece", p[0][1]], *p[1:]], "no longer has"),
        (lambda p: [[p[0][0], p[0][1] + 1], *p[1:]], "entries, not"),
    ],
    ids=["gone", "resized"],
)
def test_a_piece_that_is_gone_or_resized_is_refused(tmp_path, change, message) -> None:
    env = _env()
    path = tmp_path / "bad.npz"
    _net(change(observation_pieces(env.obs_layout)), env.action_space("player_0").n).save_npz(path)
    with pytest.raises(AgentSpecError, match=message):
        PPOAgent.load(path, game="cardiceo", num_players=3)


@pytest.mark.parametrize(
    "pieces",
    [[["hand", 15]], "hand", [["hand", -1]], [["hand", 15], ["hand", 15]], [["hand", True]]],
    ids=["short", "text", "negative", "twice", "bool"],
)
def test_malformed_recorded_pieces_are_refused(pieces) -> None:
    weights, biases = (np.ones((4, 30)), np.ones((2, 4))), (np.ones(4), np.ones(2))
    with pytest.raises(AgentSpecError, match="observation_pieces"):
        PolicyNet.checked(weights, biases, "tanh", {"observation_pieces": pieces})


@pytest.mark.parametrize("game", sorted(built_in_games()))  # a plug-in ships no checkpoint here
def test_every_shipped_checkpoint_records_its_pieces(game: str) -> None:
    net = PolicyNet.load_npz(f"checkpoints/{game}_ppo/final.npz")
    assert sum(size for _, size in net.meta["observation_pieces"]) == net.obs_size
    agent = PPOAgent.load(f"checkpoints/{game}_ppo/final.npz", game=game, num_players=net.meta["players"])
    env = ice_envs.make(game, num_players=net.meta["players"], raw=True, **net.meta["options"])
    env.reset(seed=0)
    agent.act(env.observe(env.agent_selection))
