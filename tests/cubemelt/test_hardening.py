"""Hardening of CubeMelt: strict options, validated reset positions and loaded states; the env is unchanged on failure."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.cubemelt import rules


def make(n: int = 2, **kwargs):
    return ice_envs.make("cubemelt", num_players=n, **kwargs).unwrapped


def snapshot(env) -> str:
    return json.dumps(env.state_dict(), sort_keys=True)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"faces": "heart"}, "faces must be a list"),
        ({"faces": {"heart", "star"}}, "faces must be a list"),
        ({"faces": ()}, "faces must list 1-12 faces"),
        ({"faces": ("heart",) * 13}, "faces must list 1-12 faces"),
        ({"faces": ("heart", "banana")}, r"faces\[1\]='banana' is not one of"),
        ({"faces": ("heart", True)}, r"faces\[1\] must be an integer"),
        ({"faces": ("heart", 1.0)}, r"faces\[1\] must be an integer"),
        ({"faces": ("heart", 4)}, r"faces\[1\] must be in 0..3"),
        ({"expansion": "False"}, "expansion must be True or False"),
        ({"expansion": 1}, "expansion must be True or False"),
        ({"abilities": "cat dragon"}, "abilities must be a list"),
        ({"abilities": ("cat",)}, "abilities must have 2 entries"),
        ({"abilities": ("cat", "cat")}, "abilities must be distinct"),
        ({"abilities": ("cat", "wolf")}, r"abilities\[1\]='wolf' is not one of"),
        ({"abilities": ("cat", 5)}, r"abilities\[1\] must be in 0..4"),
        ({"abilities": ("cat", False)}, r"abilities\[1\] must be an integer"),
        ({"abilities": ("cat", "dragon"), "expansion": False}, "expansion"),
        ({"paid_rerolls": 1.0}, "paid_rerolls must be an integer, got 1.0"),
        ({"paid_rerolls": True}, "paid_rerolls must be an integer"),
        ({"paid_rerolls": -1}, "paid_rerolls must be in 0..20"),
        ({"paid_rerolls": 21}, "paid_rerolls must be in 0..20"),
        ({"reroll_can_melt": "yes"}, "reroll_can_melt must be True or False"),
        ({"per_neighbour": 0}, "per_neighbour must be True or False"),
        ({"ninja_targets": "up"}, "ninja_targets='up' is not one of"),
        ({"ninja_targets": None}, "ninja_targets"),
        ({"cat_trigger": "real"}, "cat_trigger='real' is not one of"),
        ({"cat_trigger": None}, "cat_trigger"),
        ({"max_cycles": True}, "max_cycles"),
    ],
)
def test_bad_constructor_options(kwargs, match):
    with pytest.raises(OptionError, match=match):
        ice_envs.make("cubemelt", **{"num_players": 2, **kwargs})


def test_good_constructor_options():
    env = make(3, faces=["heart", 1, np.int64(2)], abilities=["cat", 1, "ninja"], paid_rerolls=np.int32(2))
    assert env.config.faces == (0, 1, 2) and env.config.abilities == (0, 1, 3)
    assert env.config.expansion is True and env.config.paid_rerolls == 2


def test_reset_option_keys_are_those_read():
    assert set(make().reset_option_keys) == {"abilities", "dice", "love", "adventure", "melt", "start_player"}


@pytest.mark.parametrize(
    "options, match",
    [
        ({"abilities": ["cat", "dragon", "knight"]}, "abilities are given but expansion is off"),
        ({"dice": ["heart"] * 5}, "dice must have 6 entries"),
        ({"dice": "hhhhhh"}, "dice must be a list"),
        ({"dice": ["heart"] * 5 + ["banana"]}, r"dice\[5\]='banana'"),
        ({"dice": [0] * 5 + [4]}, r"dice\[5\] must be in 0..3"),
        ({"dice": [0] * 5 + [True]}, r"dice\[5\] must be an integer"),
        ({"love": [1, 2]}, "love must have 3 entries"),
        ({"love": [1, 2, 20]}, r"love\[2\] must be in 0..19"),
        ({"love": [1, 2, -1]}, r"love\[2\] must be in 0..19"),
        ({"adventure": [1, 2.5, 3]}, r"adventure\[1\] must be an integer"),
        ({"adventure": [1, "2", 3]}, r"adventure\[1\] must be an integer"),
        ({"melt": [0, 20, 20]}, r"melt\[0\] must be in 1..20"),
        ({"melt": [21, 20, 20]}, r"melt\[0\] must be in 1..20"),
        ({"melt": 20}, "melt must be a list"),
        ({"start_player": 3}, "start_player must be in 0..2"),
        ({"start_player": "1"}, "start_player must be an integer"),
        ({"start_player": False}, "start_player must be an integer"),
    ],
)
def test_bad_reset_positions_leave_the_env_unchanged(options, match):
    env = make(3)
    env.reset(seed=3)
    env.step(1)
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.reset(seed=1, options=options)
    assert snapshot(env) == before


@pytest.mark.parametrize(
    "options, match",
    [
        ({"abilities": ["cat", "cat", "knight"]}, "abilities must be distinct"),
        ({"abilities": ["cat", "knight"]}, "abilities must have 3 entries"),
        ({"abilities": ["cat", "knight", 7]}, r"abilities\[2\] must be in 0..4"),
    ],
)
def test_bad_reset_abilities(options, match):
    env = make(3, expansion=True)
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.reset(options=options)
    assert snapshot(env) == before


def test_valid_positions_and_round_trip():
    env = make(3, expansion=True)
    env.reset(
        seed=0,
        options={
            "abilities": ["cat", 1, "ninja"],
            "dice": ["heart", 1, 2, 3, "star", "star"],
            "love": np.array([0, 5, 19]),
            "adventure": (1, 2, 3),
            "melt": [1, 10, 20],
            "start_player": 2,
        },
    )
    assert env.game_state.abilities == [0, 1, 3] and env.game_state.active == 2
    rng = np.random.default_rng(0)
    for _ in range(8):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(env.legal_actions())))
    other = make(3, expansion=True)
    other.load_state_dict(json.loads(json.dumps(env.state_dict())))
    assert snapshot(other) == snapshot(env)


# ------------------------------------------------------------------ load_state_dict
def _saved(n: int = 3, **kwargs):
    env = make(n, **kwargs)
    env.reset(seed=5)
    env.step(1)
    return env, json.loads(json.dumps(env.state_dict()))


def _edit(data: dict, field: str, value) -> dict:
    data = copy.deepcopy(data)
    data["state"]["fields"][field] = value
    return data


BAD_FIELDS = [
    ("love", [1, 2], "love must have 3 entries"),
    ("love", [1, 2, 21], r"love\[2\] must be in 0..20"),
    ("love", [1, 2, -1], r"love\[2\] must be in 0..20"),
    ("love", [1, 2, 20], "a track is at its end but the game is not over"),
    ("adventure", [1, 2.0, 3], r"adventure\[1\] must be an integer"),
    ("melt", [20, 0, 20], "a track is at its end"),
    ("melt", "20", "melt must be a list"),
    ("dice", [0] * 5, "dice must have 6 entries"),
    ("dice", [0] * 5 + [9], r"dice\[5\] must be in 0..3"),
    ("abilities", [0, 1, 2], "the base game has no abilities"),
    ("abilities", [-1, -1], "abilities must have 3 entries"),
    ("active", 3, "active must be in 0..2"),
    ("active", True, "active must be an integer"),
    ("decider", 2, "decider=2 must be the active player"),
    ("decider", -1, "decider=-1 but the game is not over"),
    ("phase", 4, "phase must be in 0..3"),
    ("phase", 1, "Ninja decision needs the active Ninja"),
    ("phase", 2, "has no Love-or-Adventure choice"),
    ("rerolls", 5, "rerolls must be in 0..2"),
    ("rerolls", -1, "rerolls must be in 0..2"),
    ("pending", 9, "pending must be in -1..4"),
    ("pending", 1, "no choice is pending"),
    ("ninja_applied", 1, "ninja_applied must be True or False"),
    ("ninja_applied", True, "ninja_applied is set"),
    ("plan_love", [0, 0], "plan_love must have 3 entries"),
    ("plan_melt", [0, 0, 7], r"plan_melt\[2\] must be in 0..6"),
    ("love_before", [0, 0], "love_before must have 3 entries"),
    ("adventure_before", [0, 0, 1], r"adventure_before\[2\] must be in 0..0"),
    ("queue", [{"__tuple__": [0, 1]}], "has no dragon choice"),
    ("queue", [[0, 1]], r"queue\[0\] must be a \(seat, ability\) pair"),
    ("events", [{"__tuple__": [5, -1, 0, 0, 0]}], r"events\[0\] seat must be in 0..2"),
    ("events", [[0, -1, 0, 0, 0]], r"events\[0\] must be a"),
    ("last_dice", [0, 0], "last_dice must be empty or 6 faces"),
    ("last_active", 7, "last_active must be in -1..2"),
    ("winners", [0], "winners/melted are set but the game is not over"),
    ("winners", [0, 0], "winners names a seat twice"),
    ("melted", [9], r"melted\[0\] must be in 0..2"),
    ("turn", -3, "turn must be in 0..None"),
]


@pytest.mark.parametrize("field, value, match", BAD_FIELDS)
def test_load_state_dict_refuses_edited_states(field, value, match):
    env, data = _saved()
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.load_state_dict(_edit(data, field, value))
    assert snapshot(env) == before
    with pytest.raises(OptionError, match=match):
        env.reset(options={"state": _edit(data, field, value)["state"]})
    assert snapshot(env) == before


def test_load_state_dict_refuses_another_config_garbage_and_missing_fields():
    env, data = _saved()
    other, other_data = _saved(3, paid_rerolls=2)
    before = snapshot(env)
    missing = copy.deepcopy(data)
    del missing["state"]["fields"]["love"]
    for bad, match in [
        (_edit(data, "config", other_data["state"]["fields"]["config"]), "config"),
        (missing, "state"),
        ({**data, "state": [1, 2, 3]}, "'state' must be a CubeMeltState"),
        ({**data, "state": None}, "'state' must be a CubeMeltState"),
        ({**data, "agent_selection": "player_9"}, "agent_selection"),
        (42, "must be a dict"),
    ]:
        with pytest.raises(OptionError, match=match):
            env.load_state_dict(bad)
        assert snapshot(env) == before


def test_expansion_state_checks():
    env = make(3, expansion=True)
    env.reset(seed=0, options={"abilities": ["cat", "dragon", "knight"]})
    data = json.loads(json.dumps(env.state_dict()))
    before = snapshot(env)
    for field, value, match in [
        ("abilities", [0, 0, 2], "one distinct ability per seat"),
        ("abilities", [0, -1, 2], "one distinct ability per seat"),
        ("queue", [{"__tuple__": [0, rules.UNICORN]}], "has no unicorn choice"),
    ]:
        with pytest.raises(OptionError, match=match):
            env.load_state_dict(_edit(data, field, value))
        assert snapshot(env) == before


def test_illegal_actions_leave_the_env_unchanged():
    env = make(2, expansion=True)
    env.reset(seed=0)
    before = snapshot(env)
    for action in (None, False, 1.0, "0", 68, -1, rules.CHOOSE_LOVE):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert snapshot(env) == before


def test_max_game_length_is_the_declared_cap():
    assert make(2).max_game_length == 2_000
    assert make(5, max_cycles=3).max_game_length == 15


def test_no_reroll_ids_are_offered_once_no_reroll_is_allowed():
    """R2.2/R2.3/I6: the limit and the Melt-1 rule are in the mask, not only in ``apply`` (a position built by hand)."""
    env = ice_envs.make("cubemelt", num_players=2, raw=True)
    env.reset(seed=0)
    state = env.game_state.copy()
    assert state.phase == rules.PHASE_REROLL and rules.can_reroll(state)
    assert len(rules.legal_actions(state)) == rules.NUM_SUBSETS
    state.rerolls = state.config.paid_rerolls + 1  # the paid re-rolls are used up
    assert not rules.can_reroll(state)
    assert rules.legal_actions(state) == (rules.STOP,)
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, 1, np.random.default_rng(0))
    state.rerolls = 1
    state.melt[state.active] = 1  # paying would melt the payer (house rule I6)
    assert rules.legal_actions(state) == (rules.STOP,)
