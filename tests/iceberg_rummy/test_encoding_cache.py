"""The env's cached table encoding never goes stale: it always equals a fresh env's encoding."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs import iceberg_rummy_v1
from ice_envs.core.masks import sample_legal


@pytest.mark.parametrize(("n", "options"), [(2, {}), (4, {}), (3, {"allow_clear": True})])
def test_cached_table_encoding_equals_a_fresh_encoding(n: int, options: dict) -> None:
    env = iceberg_rummy_v1.raw_env(num_players=n, **options)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    saved = []
    for i, _agent in enumerate(env.agent_iter(max_iter=3000)):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if i % 10 == 0:
            saved.append(env.game_state.copy())
        env.step(sample_legal(rng, obs["action_mask"]))
    assert any(len(s.melds) > 3 for s in saved)
    # jump between saved states in a scrambled order: tables grow, shrink and change melds
    order = np.random.default_rng(0).permutation(len(saved))
    for k in order[:150]:
        env.game_state = saved[k]
        fresh = iceberg_rummy_v1.raw_env(num_players=n, **options)
        fresh.game_state = saved[k]
        for seat in range(n):
            assert np.array_equal(env._encode(seat), fresh._encode(seat))


def test_returned_observations_are_not_changed_later() -> None:
    env = iceberg_rummy_v1.raw_env(num_players=2)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    kept = []
    for _agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        kept.append((obs["observation"], obs["observation"].copy()))
        if term or trunc:
            env.step(None)
            continue
        env.step(sample_legal(rng, obs["action_mask"]))
    assert all(np.array_equal(a, b) for a, b in kept)
