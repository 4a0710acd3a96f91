"""The engines' state copies (ice_envs.core.state_copy.copy_state): equal to a deep copy, sharing nothing
mutable but the frozen config, and playing on exactly like the original."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.search import same_state, simulator_for
from ice_envs.core.masks import sample_legal

#: The games whose state's ``copy()`` is ``copy_state`` (every game).
GAMES = [
    ("cardiceo", 4),
    ("cubemelt", 3),
    ("iceberg_rummy", 4),
    ("cubemelt", 5),
    ("icebergs", 4),
    ("tip_of_the_diceberg", 4),
    ("tip_of_the_diceberg", 5),
]


#: Values that are immutable, so a copy may share them.
IMMUTABLE = (int, float, bool, str, bytes, tuple, frozenset, type(None))


def shares_mutable(original: object, duplicate: object, keep: tuple[object, ...] = ()) -> list[str]:
    """The paths of the mutable objects that ``duplicate`` shares with ``original``.

    Walks both objects' fields, lists, tuples, dicts and sets in step; an object reached at the same path in
    both that is the same object and is mutable (not a number, string, tuple, frozenset or an object in
    ``keep``, e.g. the shared config) is reported.
    """
    found: list[str] = []

    def walk(a: object, b: object, path: str) -> None:
        if any(a is k for k in keep):
            return
        if isinstance(a, IMMUTABLE) and not isinstance(a, tuple):
            return
        if a is b and not isinstance(a, tuple):
            found.append(path)
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            for i, (x, y) in enumerate(zip(a, b, strict=False)):
                walk(x, y, f"{path}[{i}]")
        elif isinstance(a, dict) and isinstance(b, dict):
            for key in a:
                if key in b:
                    walk(a[key], b[key], f"{path}[{key!r}]")
        elif hasattr(a, "__dict__") and hasattr(b, "__dict__") and not isinstance(a, np.ndarray):
            for key, value in vars(a).items():
                walk(value, vars(b).get(key), f"{path}.{key}")

    walk(original, duplicate, "state")
    return found


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
