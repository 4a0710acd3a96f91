"""The engines' state copies (ice_envs.core.state_copy.copy_state): equal to a deep copy, sharing nothing
mutable but the frozen config, and playing on exactly like the original."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.search import same_state, simulator_for
from ice_envs.core.masks import sample_legal
from ice_envs.core.state_copy import shares_mutable

#: The games whose state's ``copy()`` is ``copy_state`` (Icebergs and Tip of the Diceberg copy their own way).
GAMES = [("cardiceo", 4), ("cubemelt", 3), ("iceberg_rummy", 4), ("cubemelt", 5)]


def positions(game: str, n: int, seed: int, every: int = 7, limit: int = 400):
    env = ice_envs.make(game, raw=True, num_players=n)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for step in range(limit):
        if not env.agents or any(env.terminations.values()) or any(env.truncations.values()):
            return
        if step % every == 0:
            yield env.game_state
        env.step(sample_legal(rng, env.action_mask()))


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_copy_equals_a_deep_copy_and_shares_nothing_mutable(game: str, n: int) -> None:
    seen = 0
    for seed in range(4):
        for state in positions(game, n, seed, every=3):
            dup = state.copy()
            assert type(dup) is type(state)
            assert same_state(dup, copy.deepcopy(state))
            assert dup.config is state.config
            assert shares_mutable(state, dup, keep=(state.config,)) == []
            seen += 1
    assert seen > 20


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_a_copy_plays_on_exactly_like_the_original(game: str, n: int) -> None:
    sim = simulator_for(game, n)
    for state in positions(game, n, seed=11, every=13):
        original, dup, deep = copy.deepcopy(state), state.copy(), copy.deepcopy(state)
        for k in range(40):
            if sim.is_over(deep):
                break
            action = sim.legal_actions(deep)[k % len(sim.legal_actions(deep))]
            sim.apply(deep, action, np.random.default_rng(k))
            sim.apply(dup, action, np.random.default_rng(k))
            assert same_state(dup, deep)
        assert same_state(state, original), "playing on the copy changed the original"


def test_shares_mutable_finds_a_shared_list() -> None:
    state = next(positions("cubemelt", 3, 0))
    shallow = copy.copy(state)
    assert "state.love" in shares_mutable(state, shallow, keep=(state.config,))
