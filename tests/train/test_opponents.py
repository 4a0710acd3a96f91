"""Opponent mixes and the self-play pool's promotion rule."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ice_envs.agents.ppo_agent import PolicyNet, PPOAgent
from ice_envs.agents.random_agent import RandomAgent
from ice_envs.train.opponents import SelfPlayPool
from ice_envs.wrappers.opponents import OpponentMix


def write_net(path: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    net = PolicyNet(
        (rng.normal(size=(4, 104)).astype(np.float32), rng.normal(size=(10, 4)).astype(np.float32)),
        (np.zeros(4, np.float32), np.zeros(10, np.float32)),
    )
    net.save_npz(path)
    return path


def test_per_seat_mix_follows_the_weights():
    mix = OpponentMix("cardiceo", {"random": 3.0, "heuristic": 1.0})
    rng = np.random.default_rng(0)
    kinds = Counter()
    labels = Counter()
    for _ in range(400):
        label, table = mix.draw(rng, [1, 2, 3])
        labels[label] += 1
        assert set(table) == {1, 2, 3}
        for agent in table.values():
            kinds["random" if isinstance(agent, RandomAgent) else "heuristic"] += 1
    assert 0.70 < kinds["random"] / 1200 < 0.80
    assert labels["mixed"] > 0 and labels["random"] > 0


def test_whole_table_mix_gives_one_kind_per_game():
    mix = OpponentMix("cardiceo", {"random": 1.0, "heuristic": 1.0}, per_seat=False)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(50):
        label, table = mix.draw(rng, [0, 2])
        assert label in ("random", "heuristic")
        assert len({type(a) for a in table.values()}) == 1
        seen.add(label)
    assert seen == {"random", "heuristic"}


def test_self_play_draws_snapshots_from_the_pool(tmp_path: Path):
    a, b = write_net(tmp_path / "a.npz", 0), write_net(tmp_path / "b.npz", 1)
    mix = OpponentMix("cardiceo", {"self_play": 1.0}, latest_share=1.0)
    with pytest.raises(RuntimeError, match="pool is empty"):
        mix.draw(np.random.default_rng(0), [1])
    mix.set_pool([str(a), str(b)])
    rng = np.random.default_rng(0)
    for _ in range(10):
        label, table = mix.draw(rng, [1])
        assert label == "self_play" and isinstance(table[1], PPOAgent)
        assert table[1].name == "snapshot:b" and table[1].deterministic is False
    mix.latest_share = 0.0
    names = Counter(mix.draw(rng, [1])[1][1].name for _ in range(200))
    assert set(names) == {"snapshot:a", "snapshot:b"}
    mix.set_pool([str(a)])
    assert all(key[2] in ("", str(a)) for key in mix._agents)


def test_snapshot_agents_pickle_as_their_file(tmp_path: Path):
    import pickle

    agent = PPOAgent.load(write_net(tmp_path / "a.npz"), seed=1)
    blob = pickle.dumps(agent)
    assert len(blob) < 2000  # the weights stay in the file
    again = pickle.loads(blob)
    assert again.net == agent.net and again.deterministic == agent.deterministic
    in_memory = PPOAgent(PolicyNet(agent.net.weights, agent.net.biases))
    assert len(pickle.dumps(in_memory)) > 4 * 104 * 4


def test_a_solo_table_has_no_opponents():
    assert OpponentMix("icebergs", {"random": 1.0}).draw(np.random.default_rng(0), []) == ("solo", {})


def test_unknown_kinds_and_empty_mixes_are_rejected():
    with pytest.raises(ValueError, match="unknown opponent kinds"):
        OpponentMix("cardiceo", {"expert": 1.0})
    with pytest.raises(ValueError, match="weight > 0"):
        OpponentMix("cardiceo", {"random": 0.0})


def test_pool_keeps_the_newest_snapshots_and_promotes_on_the_lower_bound(tmp_path: Path):
    pool = SelfPlayPool(tmp_path / "pool", pool_size=2, num_players=4)
    assert pool.bound == 0.25 and pool.latest is None
    for step in (0, 100, 200):
        write_net(pool.candidate_path(), step)
        pool.add(pool.candidate_path(), step)
    assert [s.step for s in pool.snapshots] == [100, 200]
    assert [Path(p).name for p in pool.paths()] == ["snap_000000000100.npz", "snap_000000000200.npz"]
    assert not pool.candidate_path().exists()
    assert pool.should_promote(0.26) and not pool.should_promote(0.25)
    check = pool.record_check(300, {"win_rate": 0.4, "win_rate_ci95": (0.3, 0.5), "games": 100}, promoted=True)
    assert check["promoted"] and pool.promotions == 1 and pool.checks == 1
    assert pool.state() == {"pool_size": 2, "promotions": 1, "checks": 1, "latest_step": 200, "oldest_step": 100}
    again = SelfPlayPool(tmp_path / "pool", pool_size=2, num_players=4, promote_lower_bound=0.5)
    again.load_state_dict(pool.state_dict())
    assert again.paths() == pool.paths() and again.last_check == pool.last_check and again.bound == 0.5
