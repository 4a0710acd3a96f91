"""What a training checkpoint saves of an env: its state without its caches, restored as pickle would."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ice_envs import tip_of_the_diceberg_v1
from ice_envs.core import vector
from ice_envs.train.checkpoints import decode_state, encode_state

TIP_CACHES = ("_mask_cache", "_slot_cache", "_base_cache", "_misc_cache", "_removed_cache", "_past_cache", "_play_memo")


def _tip_mid_game(steps: int = 400, seed: int = 3):
    """A Tip of the Diceberg raw env after ``steps`` random decisions (its caches filled)."""
    env = tip_of_the_diceberg_v1.raw_env(num_players=4)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs = env.observe(env.agent_selection)  # fills the encoder's caches, as training does
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    return env


def _round_trip(value):
    return decode_state(json.loads(json.dumps(encode_state(value))), source="test.state.json", where="envs[0]")


def _continue_alike(a, b, steps: int = 300, seed: int = 11) -> int:
    """Play ``a`` and ``b`` on with the same actions; assert equal observations and rewards. Returns the steps."""
    rng = np.random.default_rng(seed)
    done = 0
    for _ in range(steps):
        if any(a.terminations.values()) or any(a.truncations.values()):
            break
        for agent in a.agents:
            oa, ob = a.observe(agent), b.observe(agent)
            assert np.array_equal(oa["observation"], ob["observation"])
            assert np.array_equal(oa["action_mask"], ob["action_mask"])
        legal = np.flatnonzero(a.action_mask())
        action = int(legal[rng.integers(legal.size)])
        a.step(action)
        b.step(action)
        assert a.rewards == b.rewards and a.agent_selection == b.agent_selection
        done += 1
    return done


def test_an_env_in_a_checkpoint_leaves_out_its_caches():
    env = _tip_mid_game()
    assert env._base_cache and env._slot_cache  # filled by play
    attrs = encode_state(env)["attrs"]
    assert not set(TIP_CACHES) & set(attrs)
    assert "game_state" in attrs and "_num_steps" in attrs


def test_meld_patterns_are_saved_without_their_cached_tables():
    """A pattern's companion tables and other cached values (about 400 KB of JSON per env after some play)
    follow from its fields: a checkpoint and a pickle hold the fields only, and a restored pattern is equal."""
    import pickle

    env = _tip_mid_game()
    patterns = [card.pattern for card in env.game_state.config.catalog.cards]
    assert any("_companion_tables" in p.__dict__ for p in patterns)  # filled by play
    cards = encode_state(env)["attrs"]["config"]["attrs"]["catalog"]["attrs"]["cards"]["$tuple"]
    for card in cards:
        assert set(card["attrs"]["pattern"]["attrs"]) == set(type(patterns[0]).__dataclass_fields__)
    for p in patterns:
        q = pickle.loads(pickle.dumps(p))
        assert q == p and hash(q) == hash(p) and q.allowed == p.allowed and q.search_bounds == p.search_bounds
    assert len(json.dumps(encode_state(env))) < 200_000


def test_a_restored_env_starts_with_empty_caches_and_plays_on_exactly_alike():
    env = _tip_mid_game()
    back = _round_trip(env)
    assert type(back) is type(env)
    assert back._base_cache == {} and back._slot_cache == {} and back._play_memo is None
    assert back._mask_cache is env._mask_cache  # the masks shared by every env with this action count
    assert _continue_alike(env, back) == 300


def test_a_checkpoint_with_an_older_cache_layout_still_resumes():
    """Checkpoints written before caches were left out hold them as that code laid them out: a
    ``_play_memo`` of (state, step, seat, observation), as before commit ea06d2b, made the resumed
    run fail at its first select. They are dropped on restore."""
    env = _tip_mid_game()
    state = encode_state(env)
    attrs = state["attrs"]
    game_state_ref = {"$ref": state["attrs"]["game_state"]["id"]}
    attrs["_play_memo"] = {"$tuple": [game_state_ref, env._num_steps, 2, encode_state(np.zeros(4, np.float32))]}
    attrs["_misc_cache"] = {"$dict": [[{"$tuple": [1, 2]}, encode_state(np.ones(3, np.float32))]]}
    back = decode_state(json.loads(json.dumps(state)), source="old.state.json", where="envs[0]")
    assert back._play_memo is None and back._misc_cache == {}
    assert _continue_alike(env, back) == 300


def test_a_checkpoint_with_other_encoder_tables_is_encoded_by_this_code():
    """The encoder's index tables are laid out again on restore: a checkpoint written by code whose
    tables differ (here: the per-seat places of the counts and values, reversed) observes as this code does."""
    env = _tip_mid_game()
    state = encode_state(env)
    for name in ("_misc_at", "_count_at"):
        state["attrs"][name] = encode_state([a[::-1].copy() for a in getattr(env, name)])
    back = decode_state(json.loads(json.dumps(state)), source="old.state.json", where="envs[0]")
    assert _continue_alike(env, back) == 300


def test_a_batched_engine_keeps_its_track_views_through_a_checkpoint():
    """CubeMelt's batched engine rebuilds its love / adventure / melt views of ``tracks`` on restore
    (its ``__setstate__``): saved as arrays of their own, they would stop following the tracks."""
    engine = vector.make("cubemelt", 4, num_players=3)
    engine.reset(seed=0)
    back = _round_trip(engine)
    for name in ("love", "adventure", "melt"):
        assert np.shares_memory(getattr(back, name), back.tracks)
    assert np.array_equal(back.tracks, engine.tracks)


class _OddState:
    """An object of a package class whose ``__getstate__`` is not an attribute dict."""

    __module__ = "ice_envs.fake"

    def __getstate__(self):
        return ("not", "a", "dict")


def test_an_object_whose_getstate_gives_no_dict_is_refused():
    with pytest.raises(TypeError, match="__getstate__"):
        encode_state(_OddState())
