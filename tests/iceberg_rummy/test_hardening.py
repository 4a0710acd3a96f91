"""Hardening of Iceberg Rummy: strict options, validated reset positions and loaded states; the env is unchanged on failure."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError


def make(n: int = 2, **kwargs):
    return ice_envs.make("iceberg_rummy", num_players=n, **kwargs).unwrapped


def snapshot(env) -> str:
    return json.dumps(env.state_dict(), sort_keys=True)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"single_hand": 1}, "single_hand must be True or False, got 1"),
        ({"single_hand": "True"}, "single_hand must be True or False"),
        ({"ace_holder_finishes": None}, "ace_holder_finishes must be True or False"),
        ({"allow_clear": "no"}, "allow_clear must be True or False"),
        ({"target_score": 5000.0}, "target_score must be an integer"),
        ({"target_score": 0}, "target_score must be at least 1"),
        ({"target_score": True}, "target_score must be an integer"),
        ({"ace_scoring": "nope"}, "ace_scoring='nope' is not one of"),
        ({"ace_scoring": 1}, "ace_scoring"),
        ({"ace_value": 30.0}, "ace_value must be an integer"),
        ({"ace_value": 19}, "ace_value must be in 20..50"),
        ({"ace_value": 51}, "ace_value must be in 20..50"),
        ({"max_hands": 0}, "max_hands must be at least 1"),
        ({"max_hands": 10.0}, "max_hands must be an integer"),
        ({"max_hands_end": "stop"}, r"max_hands_end='stop' is not one of \['truncate', 'decide'\]"),
        ({"max_hands_end": None}, "max_hands_end=None is not one of"),
        ({"num_decks": 3}, "num_decks=3 is not one of"),
        ({"num_decks": 1.0}, "num_decks must be an integer"),
        ({"num_decks": True}, "num_decks must be an integer"),
        ({"score_scale": 0}, "score_scale must be a positive number"),
        ({"score_scale": -1.0}, "score_scale must be a positive number"),
        ({"score_scale": float("inf")}, "score_scale must be finite"),
        ({"score_scale": "100"}, "score_scale must be a number"),
        ({"score_scale": True}, "score_scale must be a number"),
    ],
)
def test_bad_constructor_options(kwargs, match):
    with pytest.raises(OptionError, match=match):
        ice_envs.make("iceberg_rummy", **{"num_players": 2, **kwargs})


def test_good_constructor_options():
    env = make(2, single_hand=np.bool_(True), max_hands=None, num_decks=np.int64(2), ace_value=np.int32(40))
    assert env.config.single_hand is True and env.config.decks == 2 and env.config.max_hands is None
    assert make(2, single_hand=True).max_game_length == 4_000 and make(2).max_game_length == 40_000


def test_reset_option_keys_are_those_read():
    assert set(make().reset_option_keys) == {"dealer", "hands", "stock", "melds"}


HANDS = ["5S 6S 9H", "3D 5C 7H"]


@pytest.mark.parametrize(
    "options, match",
    [
        ({"dealer": 2}, "dealer must be in 0..1"),
        ({"dealer": 1.0}, "dealer must be an integer"),
        ({"dealer": True}, "dealer must be an integer"),
        ({"hands": "5S 6S"}, "hands must be a list"),
        ({"hands": ["5S"]}, "1 hands given for 2 players"),
        ({"hands": ["5S", 7]}, r"hands\[1\] must be a list"),
        ({"hands": ["5S", ["7S", True]]}, r"hands\[1\]\[1\] must be an integer"),
        ({"hands": ["5S", ["7S", 7.0]]}, r"hands\[1\]\[1\] must be an integer"),
        ({"hands": ["5S", ["7S", 52]]}, r"hands\[1\]\[1\] must be in 0..51"),
        ({"hands": ["5S", "7X"]}, r"hands\[1\]\[0\]: .*is not a card"),
        ({"hands": ["5S", ""]}, r"hands\[1\] is empty"),
        ({"hands": ["5S 5S", "6S"]}, "more copies of 5S than the 1 deck"),
        ({"hands": HANDS, "stock": ["5S"]}, "more copies of 5S"),
        ({"stock": "ZZ"}, r"stock\[0\]"),
        ({"stock": 5}, "stock must be a list"),
        ({"melds": [(0, "5S 6S")]}, r"melds\[0\]: 5S 6S is not a valid meld"),
        ({"melds": [(0, "AS 2S 3S")]}, "is not a valid meld"),
        ({"melds": [(2, "5S 6S 7S")]}, r"melds\[0\] owner must be in 0..1"),
        ({"melds": [(0.0, "5S 6S 7S")]}, r"melds\[0\] owner must be an integer"),
        ({"melds": [(0, "5S 6S 7S", 1)]}, r"melds\[0\] must have 2 entries"),
        ({"melds": (0, "5S 6S 7S")}, r"melds\[0\] must be a list"),
        ({"melds": [(0, "5S 6S 7S")], "hands": ["5S", "8S"]}, "more copies of 5S"),
        ({"melds": [(0, "KC KD")] * 2}, "more copies of KC"),
    ],
)
def test_bad_reset_positions_leave_the_env_unchanged(options, match):
    env = make(2)
    env.reset(seed=3)
    env.step(env.legal_actions()[-1])
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.reset(seed=1, options=options)
    assert snapshot(env) == before
    assert np.array_equal(env.observe(env.agent_selection)["observation"], _fresh_obs(before))


def _fresh_obs(saved: str) -> np.ndarray:
    other = make(2)
    other.load_state_dict(json.loads(saved))
    return other.observe(other.agent_selection)["observation"]


def test_too_many_melds_and_not_enough_cards_to_deal():
    env = make(2, num_decks=2)
    env.reset(seed=0)
    before = snapshot(env)
    pairs = [
        (0, [r + 13 * a, r + 13 * b]) for r in range(1, 13) for a, b in ((0, 1), (2, 3))
    ] * 2  # every non-ace card twice
    with pytest.raises(OptionError, match="not enough cards left to deal"):
        env.reset(options={"melds": pairs})
    with pytest.raises(OptionError, match="at most 48 melds"):
        env.reset(options={"melds": pairs + [(1, "KC KD")]})
    assert snapshot(env) == before


def test_valid_positions_and_round_trip():
    env = make(3)
    env.reset(seed=0, options={"dealer": np.int64(2), "hands": [["5S", 32], "3D 5C", "3S 4S"], "stock": ["7S"],
                               "melds": [[1, ["9S", "10S", "JS"]], (2, "KC KD")]})  # fmt: skip
    rng = np.random.default_rng(0)
    for _ in range(10):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(env.legal_actions())))
    other = make(3)
    other.load_state_dict(json.loads(json.dumps(env.state_dict())))
    assert snapshot(other) == snapshot(env)
    for agent in env.agents:
        assert np.array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])


# ------------------------------------------------------------------ load_state_dict
def _saved(n: int = 2, **kwargs):
    env = make(n, **kwargs)
    env.reset(seed=5)
    env.step(env.legal_actions()[-1])
    return env, json.loads(json.dumps(env.state_dict()))


def _edit(data: dict, field: str, value) -> dict:
    data = copy.deepcopy(data)
    data["state"]["fields"][field] = value
    return data


def _field(data: dict, field: str):
    return copy.deepcopy(data["state"]["fields"][field])


def _arr(values, dtype="int64"):
    arr = np.asarray(values)
    return {"__ndarray__": arr.tolist(), "dtype": dtype, "shape": list(arr.shape)}


def _hand_edit(data, seat, card, delta):
    hands = np.array(data["state"]["fields"]["hands"]["__ndarray__"])
    hands[seat, card] += delta
    return _arr(hands, "int8")


def test_load_state_dict_refuses_edited_states():
    env, data = _saved()
    before = snapshot(env)
    cur = data["state"]["fields"]["current"]
    held = int(np.flatnonzero(np.array(data["state"]["fields"]["hands"]["__ndarray__"])[cur])[0])
    cases = [
        ("hands", _arr([[99, 99, 99]], "int8"), "hands must be a int8 array"),
        ("hands", _arr(np.zeros((2, 52)), "float64"), "hands must be a int8 array"),
        ("hands", _hand_edit(data, cur, held, -1), "do not match"),
        ("hands", _hand_edit(data, cur, held, 5), r"hands must hold values in 0..1"),
        ("hands", _hand_edit(data, cur, 0, 1), "do not match|ace"),
        ("stock", _arr([[1, 2]]), "stock must be a int64 array"),
        ("stock", _arr([60]), "stock must hold values in 0..51"),
        ("stock_pos", -1, "stock_pos must be in 0.."),
        ("stock_pos", 1.0, "stock_pos must be an integer"),
        ("melds", [{"__tuple__": [0, 0, {"__tuple__": [5, 6]}]}], r"melds\[0\]: .* is not a sorted set"),
        ("melds", [[0, 0, [5, 18]]], r"melds\[0\] must be a \(kind, owner, cards\) tuple"),
        ("melds", [{"__tuple__": [0, 7, {"__tuple__": [5, 18]}]}], r"melds\[0\] owner must be in 0..1"),
        ("aces", _arr([9, 0]), "aces must hold values in 0..4"),
        ("aces", _arr([1, 0]), "aces placed by the players"),
        ("table_aces", _arr([0, 0, 0]), "table_aces must be a int64 array of shape"),
        ("hand_points", _arr([-5, 0]), "hand_points must hold values in 0.."),
        ("ace_bonus", _arr([30, 0]), r"ace_bonus\[0\]=30 is not the bonus of"),
        ("totals", _arr([1, 2, 3]), "totals must be a int64 array"),
        ("dealer", 2, "dealer must be in 0..1"),
        ("current", -1, "current must be in 0..1"),
        ("current", True, "current must be an integer"),
        ("phase", 2, "phase must be in 0..1"),
        ("phase", 1, "winners"),
        ("selection", [51, 0], "selection"),
        ("selection", [1.0], r"selection\[0\] must be an integer"),
        ("pending", 60, "pending must be in -1..51"),
        ("pending", 5, "a face-down card needs a receiver"),
        ("pending_to", 4, "pending_to must be in -1..1"),
        ("turns_taken", _arr([0, 0]), "has begun no turn"),
        ("passed", _arr(np.zeros((2, 52)), "int64"), "passed must be a int8 array"),
        ("last_passed", _arr([-2, -1]), "last_passed must hold values in -1..51"),
        ("known_left", _arr([99, -1]), "known_left must hold values in -1..51"),
        ("still_left", _arr([99, -1]), "still_left must hold values in -1..51"),
        ("still_left", _arr([-1, -1, -1]), "still_left must be a int64 array"),
        ("truncated", 1, "truncated must be True or False"),
        ("truncated", True, "truncated=True: only a full game over after max_hands"),
        ("end_after_turn", 0, "end_after_turn must be True or False"),
        ("end_after_turn", True, "end_after_turn is set"),
        ("hand_no", 100, "hand_no=100: the game ends after max_hands=100"),
        ("hand_no", -1, "hand_no must be in 0..100"),
        ("turn", "1", "turn must be an integer"),
        ("last_hand", [], "last_hand must be a dict"),
        ("winners", [0], "winners=.0. but the game is not over"),
        ("winners", [3], r"winners\[0\] must be in 0..1"),
    ]
    for field, value, match in cases:
        with pytest.raises(OptionError, match=match):
            env.load_state_dict(_edit(data, field, value))
        assert snapshot(env) == before, field
        with pytest.raises(OptionError, match=match):
            env.reset(options={"state": _edit(data, field, value)["state"]})
        assert snapshot(env) == before, field
    assert np.array_equal(env.observe(env.agent_selection)["observation"], _fresh_obs(before))


def test_load_state_dict_refuses_another_config_garbage_and_missing_fields():
    env, data = _saved()
    _, other = _saved(2, single_hand=True)
    before = snapshot(env)
    missing = copy.deepcopy(data)
    del missing["state"]["fields"]["stock"]
    bad_config = copy.deepcopy(data)
    bad_config["state"]["fields"]["config"]["fields"]["target_score"] = 5000.0
    for bad, match in [
        (_edit(data, "config", _field(other, "config")), "config"),
        (bad_config, "target_score"),
        (missing, "state"),
        ({**data, "state": {"garbage": 1}}, "'state' must be a IcebergRummyState"),
        ({**data, "last_scores": [0.0]}, "last_scores"),
        ([], "must be a dict"),
    ]:
        with pytest.raises(OptionError, match=match):
            env.load_state_dict(bad)
        assert snapshot(env) == before


def test_illegal_actions_leave_the_env_unchanged():
    env = make(2)
    env.reset(seed=0)
    before = snapshot(env)
    for action in (None, True, 52.0, "52", 154, -1, 153):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert snapshot(env) == before
