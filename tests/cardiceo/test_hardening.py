"""Hardening of Cardiceo: strict options, validated reset positions and loaded states; the env is unchanged on failure."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError


def make(n: int = 2, **kwargs):
    return ice_envs.make("cardiceo", num_players=n, **kwargs).unwrapped


def snapshot(env) -> str:
    return json.dumps(env.state_dict(), sort_keys=True)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"hand_size": 10.0}, "hand_size must be an integer, got 10.0"),
        ({"hand_size": True}, "hand_size must be an integer"),
        ({"hand_size": "10"}, "hand_size must be an integer"),
        ({"hand_size": 7}, "hand_size"),
        ({"hand_size": -5}, "hand_size"),
        ({"forced_discard": "no"}, "forced_discard must be True or False"),
        ({"forced_discard": 1}, "forced_discard"),
        ({"forced_discard": None}, "forced_discard"),
        ({"num_players": 2.0}, "num_players"),
        ({"max_decisions": 0}, "max_decisions"),
        ({"max_cycles": 1.5}, "max_cycles"),
        ({"illegal_reward": float("nan")}, "illegal_reward"),
    ],
)
def test_bad_constructor_options(kwargs, match):
    with pytest.raises(OptionError, match=match):
        ice_envs.make("cardiceo", **{"num_players": 2, **kwargs})


def test_good_constructor_options():
    env = make(3, hand_size=np.int64(5), forced_discard=np.bool_(True))
    assert env.config.hand_size == 5 and type(env.config.hand_size) is int
    assert env.config.forced_discard is True


def test_reset_option_keys_are_those_read():
    env = make(2)
    assert set(env.reset_option_keys) == {"hands", "dice", "start_player"}
    env.reset(seed=0)
    with pytest.raises(OptionError, match="unknown reset option 'hand'"):
        env.reset(options={"hand": [[1], [2]]})


@pytest.mark.parametrize(
    "options, match",
    [
        ({"hands": "1 2 3"}, "hands must be a list"),
        ({"hands": [[1, 2]]}, "1 hands given for 2 players"),
        ({"hands": [[1, 2], [3], [4]]}, "3 hands given"),
        ({"hands": [[1, 2], 3]}, r"hands\[1\] must be a list"),
        ({"hands": [[1, 2.0], [3]]}, r"hands\[0\]\[1\] must be an integer"),
        ({"hands": [[1, True], [3]]}, r"hands\[0\]\[1\] must be an integer"),
        ({"hands": [[1, "2"], [3]]}, r"hands\[0\]\[1\] must be an integer"),
        ({"hands": [[0, 2], [3]]}, r"hands\[0\]\[0\]: card value 0 is not in 1..15"),
        ({"hands": [[16], [3]]}, r"not in 1..15"),
        ({"hands": [[1, 2], []]}, r"hands\[1\] is empty"),
        ({"hands": [list(range(1, 12)), [3]]}, r"hands\[0\] holds 11 cards, more than hand_size=10"),
        ({"hands": [[1, 1, 1], [1, 1]]}, "more than four cards of value"),
        ({"dice": [1, 1]}, "dice must have 3 entries"),
        ({"dice": "123"}, "dice must be a list"),
        ({"dice": [5, 1, 1]}, r"dice\[0\] \(d4\) must be in 1..4"),
        ({"dice": [1, 9, 1]}, r"dice\[1\] \(d8\)"),
        ({"dice": [1, 1, 0]}, r"dice\[2\] \(d12\)"),
        ({"dice": [1, 1, 1.0]}, r"dice\[2\] \(d12\) must be an integer"),
        ({"start_player": 2}, "start_player must be in 0..1"),
        ({"start_player": -1}, "start_player"),
        ({"start_player": True}, "start_player must be an integer"),
        ({"start_player": 1.0}, "start_player must be an integer"),
    ],
)
def test_bad_reset_positions_leave_the_env_unchanged(options, match):
    env = make(2)
    env.reset(seed=3)
    env.step(env.legal_actions()[0])
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.reset(seed=1, options=options)
    assert snapshot(env) == before


def test_short_game_hand_size_bounds_given_hands():
    env = make(2, hand_size=5)
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(OptionError, match="more than hand_size=5"):
        env.reset(options={"hands": [[1, 2, 3, 4, 5, 6], [7, 8]], "dice": [1, 1, 1]})
    assert snapshot(env) == before


def test_valid_positions_and_round_trip():
    env = make(3)
    env.reset(seed=0, options={"hands": [[1, 2, 3], [4, 5], [6]], "dice": [1, 2, 3], "start_player": np.int64(1)})
    assert env.game_state.current in range(3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(env.legal_actions())))
    data = env.state_dict()
    other = make(3)
    other.load_state_dict(json.loads(json.dumps(data)))
    assert snapshot(other) == snapshot(env)


# ------------------------------------------------------------------ load_state_dict
def _saved(n: int = 2, **kwargs) -> tuple:
    env = make(n, **kwargs)
    env.reset(seed=5)
    env.step(env.legal_actions()[0])
    return env, json.loads(json.dumps(env.state_dict()))


def _edit(data: dict, field: str, value) -> dict:
    data = copy.deepcopy(data)
    data["state"]["fields"][field] = value
    return data


def _ndarray(values, dtype="int64"):
    arr = np.asarray(values)
    return {"__ndarray__": arr.tolist(), "dtype": dtype, "shape": list(arr.shape)}


BAD_FIELDS = [
    ("hands", _ndarray([[99, 99, 99]]), "hands"),
    ("hands", _ndarray(np.full((2, 15), -1)), "hands holds a negative count"),
    ("hands", _ndarray(np.full((2, 15), 1), "float64"), "hands must be a int64 array"),
    ("hands", [[1, 2, 3]], "hands must be a int64 array"),
    ("hands", _ndarray(np.full((2, 15), 2)), "more than the four cards"),
    ("hands", _ndarray(np.eye(2, 15, dtype=int) * 11), "hands"),
    ("hands", _ndarray(np.zeros((2, 15), dtype=int)), "no cards but the game is not over"),
    ("discarded", _ndarray(np.full(15, 5)), "more than the four cards"),
    ("discarded", _ndarray(np.full(14, 0)), "discarded must be a int64 array of shape"),
    ("discarded", _ndarray(np.full(15, -1)), "discarded holds a negative count"),
    ("dice", _ndarray([5, 1, 1]), r"dice\[0\] \(d4\) must be in 1..4"),
    ("dice", _ndarray([1, 1]), "dice must be a int64 array"),
    ("used", _ndarray([0, 0, 0]), "used must be a bool array"),
    ("locked", _ndarray([True, False], "bool"), "locked must be a bool array"),
    ("current", 2, "current must be in 0..1"),
    ("current", True, "current must be an integer"),
    ("current", "0", "current must be an integer"),
    ("phase", 7, "phase must be in 0..2"),
    ("phase", 1.0, "phase must be an integer"),
    ("winner", 0, "winner=0 but the game is not over"),
    ("winner", 5, "winner must be in -1..1"),
    ("turn", -1, "turn must be in 0..None"),
    ("stuck_dice", _ndarray(np.zeros((2, 3)), "float64"), "stuck_dice must be a int64 array"),
    ("stuck_dice", _ndarray(np.zeros((3, 3), dtype=int)), "stuck_dice must be a int64 array of shape"),
    ("stuck_dice", _ndarray([[5, 1, 1], [0, 0, 0]]), r"stuck_dice\[0\]\[0\] \(d4\) must be in 1..4"),
    ("stuck_dice", _ndarray([[0, 0, 0], [1, 0, 2]]), r"stuck_dice\[1\]\[1\] \(d8\) must be in 1..8"),
    ("stuck_dice", _ndarray([[0, 0, 0], [1, 2, 3]]), r"known_missing\[1\]: seat 1 was stuck with dice \[1, 2, 3\]"),
    ("known_missing", _ndarray(np.zeros((2, 15), dtype=int)), "known_missing must be a bool array"),
    ("known_missing", _ndarray(np.zeros((2, 14), dtype=bool), "bool"), "known_missing must be a bool array of shape"),
    (
        "config",
        {
            "__dataclass__": "ice_envs.cardiceo.rules:CardiceoConfig",
            "fields": {"num_players": 2, "hand_size": 5, "forced_discard": False},
        },
        "config",
    ),
    (
        "config",
        {
            "__dataclass__": "ice_envs.cardiceo.rules:CardiceoConfig",
            "fields": {"num_players": 2, "hand_size": 10.0, "forced_discard": False},
        },
        "config",
    ),
]


@pytest.mark.parametrize("field, value, match", BAD_FIELDS)
def test_load_state_dict_refuses_edited_states(field, value, match):
    env, data = _saved()
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.load_state_dict(_edit(data, field, value))
    assert snapshot(env) == before
    # the same engine state given to reset is refused the same way
    with pytest.raises(OptionError, match=match):
        env.reset(options={"state": _edit(data, field, value)["state"]})
    assert snapshot(env) == before


def test_load_state_dict_refuses_garbage_and_missing_fields():
    env, data = _saved()
    before = snapshot(env)
    missing = copy.deepcopy(data)
    del missing["state"]["fields"]["hands"]
    for bad, match in [
        (missing, "state"),
        ({**data, "state": "garbage"}, "'state' must be a CardiceoState"),
        ({**data, "state": {"__dataclass__": "os:path", "fields": {}}}, "not an engine state"),
        ({**data, "num_steps": -1}, "num_steps"),
        ({**data, "rng": {"bit_generator": "nope"}}, "rng"),
        ("garbage", "must be a dict"),
        ({k: v for k, v in data.items() if k != "rewards"}, "lacks"),
    ]:
        with pytest.raises(OptionError, match=match):
            env.load_state_dict(bad)
        assert snapshot(env) == before


def test_the_public_record_must_agree_with_the_hands():
    """R7.6: a hand never holds a value its seat is known to lack; an accepted record loads as saved."""
    env, data = _saved(3)
    before = snapshot(env)
    hands = env.game_state.hands
    p, v = (int(x) for x in np.argwhere(hands > 0)[0])
    missing = np.zeros((3, 15), dtype=bool)
    missing[p, v] = True
    with pytest.raises(OptionError, match=rf"known_missing\[{p}\]: seat {p} holds a {v + 1}"):
        env.load_state_dict(_edit(data, "known_missing", _ndarray(missing, "bool")))
    assert snapshot(env) == before
    lacking = (hands == 0) & ~env.game_state.known_missing
    q, w = (int(x) for x in np.argwhere(lacking)[0])
    missing[:] = env.game_state.known_missing
    missing[q, w] = True
    env.load_state_dict(_edit(data, "known_missing", _ndarray(missing, "bool")))
    assert env.game_state.known_missing.tolist() == missing.tolist()


def test_a_state_saved_before_the_record_loads_with_an_empty_record():
    """v0 states have no ``stuck_dice`` / ``known_missing``: they load as "nothing learnt yet"."""
    env, data = _saved(3)
    old = copy.deepcopy(data)
    del old["state"]["fields"]["stuck_dice"], old["state"]["fields"]["known_missing"]
    other = make(3)
    other.load_state_dict(old)
    state = other.game_state
    assert state.stuck_dice.shape == (3, 3) and not state.stuck_dice.any()
    assert state.known_missing.shape == (3, 15) and not state.known_missing.any()
    assert np.array_equal(state.hands, env.game_state.hands)


def test_phase_consistency_is_checked():
    env, data = _saved(3)
    before = snapshot(env)
    over = _edit(_edit(data, "phase", 2), "winner", 0)  # a winner whose hand is not empty
    with pytest.raises(OptionError, match="winner"):
        env.load_state_dict(over)
    no_play = _edit(data, "phase", 0)
    no_play = _edit(no_play, "locked", _ndarray([False, False, False], "bool"))
    with pytest.raises(OptionError, match="No play"):
        env.load_state_dict(no_play)
    assert snapshot(env) == before


def test_illegal_actions_leave_the_env_unchanged():
    env = make(2)
    env.reset(seed=0)
    before = snapshot(env)
    for action in (None, True, 3.0, "1", 10, -1):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert snapshot(env) == before
    illegal = next(a for a in range(10) if a not in env.legal_actions())
    with pytest.raises(IllegalActionError, match=f"action {illegal}"):
        env.step(illegal)
    assert snapshot(env) == before


def test_max_game_length_is_the_declared_cap():
    assert make(2).max_game_length == 5_000
    assert make(2, max_cycles=10).max_game_length == 20
