"""Hardening of Tip of the Diceberg: strict options, complete position / state checks, catalogs that cannot lock a game."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import example_catalog_path, load_catalog, parse_catalog
from ice_envs.tip_of_the_diceberg.env import TipOfTheDicebergEnv

GAME = "tip_of_the_diceberg"


def snapshot(env) -> str:
    return json.dumps(env.state_dict(), sort_keys=True)


def fresh(n=3, **kw):
    env = TipOfTheDicebergEnv(num_players=n, **kw)
    env.reset(seed=0)
    return env


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_rounds": 2.0}, "num_rounds"),
        ({"num_rounds": True}, "num_rounds"),
        ({"num_rounds": "3"}, "num_rounds"),
        ({"num_rounds": 0}, "num_rounds"),
        ({"num_rounds": 101}, "num_rounds"),
        ({"start_player": 1.0}, "start_player"),
        ({"start_player": False}, "start_player"),
        ({"start_player": 3}, "start_player"),
        ({"main_cards": "R1"}, "main_cards"),
        ({"main_cards": [1]}, "main_cards"),
        ({"main_cards": ["ZZ"]}, "main_cards"),
        ({"main_cards": ["S1"]}, "main_cards"),
        ({"catalog": 5}, "catalog"),
        ({"catalog": {"cards": "x"}}, "catalog"),
        ({"compulsory_powers": "yes"}, "compulsory_powers must be True or False"),
        ({"compulsory_powers": 1}, "compulsory_powers must be True or False"),
        ({"compulsory_powers": None}, "compulsory_powers must be True or False"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_constructor_options(kwargs, match):
    with pytest.raises(OptionError, match=match):
        ice_envs.make(GAME, num_players=3, **kwargs)


def test_numpy_integers_are_integers():
    env = TipOfTheDicebergEnv(num_players=np.int64(3), num_rounds=np.int32(2), start_player=np.int64(1))
    env.reset(seed=0)
    assert env.config.num_rounds == 2 and type(env.config.num_rounds) is int


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"start_player": 1.0}, "start_player"),
        ({"start_player": True}, "start_player"),
        ({"start_player": 7}, "start_player"),
        ({"hands": "d4:1"}, "hands"),
        ({"hands": [[], []]}, "hands"),
        ({"hands": [["d4:1"], "x", []]}, "hands"),
        ({"hands": [[True], [], []]}, r"hands\[0\]"),
        ({"hands": [[1.0], [], []]}, r"hands\[0\]"),
        ({"hands": [[60], [], []]}, r"hands\[0\]"),
        ({"hands": [["d7:1"], [], []]}, r"hands\[0\]"),
        ({"hands": [["d10:9"], [], []]}, "not in the 3-player deck"),
        ({"hands": [["d8:1"], [0 + 10], []]}, "dealt twice"),
        ({"hands": [[c for c in rules.deck_cards(3)[:13]], [], []]}, "at most 12"),
        ({"dice": [["d6:4"], []]}, "dice"),
        ({"dice": [["d6:7"], [], []]}, r"dice\[0\]"),
        ({"dice": [["d6:x"], [], []]}, r"dice\[0\]"),
        ({"dice": [[("d6", 4.0)], [], []]}, r"dice\[0\]"),
        ({"dice": [[(9, 1)], [], []]}, r"dice\[0\]"),
        ({"dice": [[4], [], []]}, r"dice\[0\]"),
        ({"dice": [["d4:1", "d4:2", "d4:3"], [], []]}, "3 d4 dice"),
        ({"pool": "d4:1"}, "pool"),
        ({"pool": ["d4:1"] * 3}, "pool"),
        ({"pool": ["d4:1", "d4:2", "d6:1", "d6:2", "d8:1"]}, "the draft takes 6 dice"),
        ({"pool": [True]}, "pool"),
        ({"hand": []}, "hand"),
    ],
)
def test_bad_reset_options_leave_the_env_unchanged(options, match):
    env = fresh()
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.reset(seed=1, options=options)
    assert snapshot(env) == before


def test_good_positions_still_work():
    env = fresh()
    env.reset(seed=0, options={"hands": [["d4:1", 11], ["d8:8"], []], "dice": [[("d6", 3)], ["d4=2"], [(5, 20)]]})
    s = env.game_state
    assert s.hands[0] == [0, 11] and s.phase == rules.PHASE_PLAY
    env.reset(seed=0, options={"pool": ["d4:1", "d4:2", "d6:1", "d6:2", "d8:1", "d8:2"], "start_player": 2})
    assert env.game_state.phase == rules.PHASE_DRAFT and env.game_state.current == 2


def _edit(state_dict, path, value):
    data = copy.deepcopy(state_dict)
    fields = data["state"]["fields"]
    *head, last = path
    target = fields
    for key in head:
        target = target[key]
    target[last] = value(target[last]) if callable(value) else value
    return data


EDITS = [
    (("phase",), 9, "phase"),
    (("phase",), "1", "phase"),
    (("current",), 5, "current"),
    (("round",), 3, "round"),
    (("points",), [0, -1, 0], "points"),
    (("points",), [0, 99, 0], "points"),
    (("hands", 0), lambda h: h + h[:1], "hands"),
    (("hands", 0), lambda h: [99] + h, "hands"),
    (("hands", 0), lambda h: list(reversed(h)), "increasing"),
    (("undealt",), lambda u: u[1:], "deck"),
    (("die_value",), lambda v: [25] + v[1:], "die_value"),
    (("die_value",), lambda v: [5] + v[1:], "d4"),
    (("die_loc",), lambda v: v[:-1], "die_loc"),
    (("die_loc",), lambda v: [7] + v[1:], "die_loc"),
    (("slots",), lambda v: v[::-1], "slots"),
    (("slots",), lambda v: [99] + v[1:], "slots"),
    (("slot_player",), lambda v: [0] + v[1:], "slot 0"),
    (("draft_order",), [], "draft"),
    (("selection",), [3], "meld"),
    (("marks",), [0], "marks"),
    (("winners",), [0], "winners"),
    (("tricks",), -1, "tricks"),
    (("passes",), 2.0, "passes"),
]


@pytest.mark.parametrize(("path", "value", "match"), EDITS)
def test_load_state_dict_refuses_edited_states(path, value, match):
    env = fresh()
    for a in env.legal_actions()[:1]:
        env.step(a)
    good = env.state_dict()
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.load_state_dict(_edit(good, path, value))
    assert snapshot(env) == before
    with pytest.raises(OptionError, match=match):
        env.reset(options={"state": _edit(good, path, value)["state"]})
    assert snapshot(env) == before
    env.load_state_dict(good)
    assert snapshot(env) == before


def test_load_state_dict_refuses_a_state_of_another_config():
    env = fresh()
    other = TipOfTheDicebergEnv(num_players=3, num_rounds=2)
    other.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(OptionError, match="config"):
        env.load_state_dict(other.state_dict())
    assert snapshot(env) == before


def test_compulsory_powers_round_trips_and_is_part_of_the_config():
    """The option is stored in the config: saved and restored with the state, refused by an env without it."""
    env = fresh(compulsory_powers=True)
    data = env.state_dict()
    assert data["state"]["fields"]["config"]["fields"]["compulsory_powers"] is True
    again = fresh(compulsory_powers=True)
    again.load_state_dict(json.loads(json.dumps(data)))
    assert again.game_state.config.compulsory_powers is True and again.state_dict() == data
    plain = fresh()
    before = snapshot(plain)
    with pytest.raises(OptionError, match="config"):
        plain.load_state_dict(data)
    assert snapshot(plain) == before


def test_power_phase_that_cannot_act_is_refused():
    """R2.9: a power phase only exists while its power can act (the engine skips it otherwise)."""
    env = fresh(compulsory_powers=True)
    good = env.state_dict()
    seat = good["state"]["fields"]["current"]
    for phase, match in (
        (rules.PHASE_DISCARD, "discard power"),
        (rules.PHASE_REROLL, "reroll power"),
        (rules.PHASE_TAKE, "take power"),
    ):
        bad = _edit(good, ("phase",), phase)
        fields = bad["state"]["fields"]
        fields["draft_order"] = []
        if phase == rules.PHASE_TAKE:  # empty the pool
            fields["die_loc"] = [rules.UNUSED if d == rules.POOL else d for d in fields["die_loc"]]
        else:  # no card (nor die: nobody holds a die before the draft)
            fields["undealt"] = sorted(fields["undealt"] + fields["hands"][seat])
            fields["hands"][seat] = []
        with pytest.raises(OptionError, match=match):
            env.load_state_dict(bad)
    assert env.state_dict() == good


def test_states_of_played_games_are_accepted():
    rng = np.random.default_rng(0)
    for n in (3, 4, 5):
        env = fresh(n)
        for i in range(400):
            if not env.legal_actions():
                break
            env.step(int(rng.choice(env.legal_actions())))
            if i % 37 == 0:
                data = env.state_dict()
                env.load_state_dict(json.loads(json.dumps(data)))
                assert env.state_dict() == data


# ---------------------------------------------------------------------------- catalogs that cannot lock a game
S1 = {"id": "S1", "deck": "starter", "pattern": {"count": 1}}


@pytest.mark.parametrize(
    ("pattern", "match"),
    [
        ({"count": 7, "distinct": "suit"}, "can never be filled"),
        ({"count": 2, "sum": 50}, "can never be filled"),
        ({"count": 8, "run": True, "suits": ["d4"]}, "can never be filled"),
        ({"count": 5, "same": "number", "values": [15, 20]}, "can never be filled"),
        ({"count": 4, "dice": 4, "same": "suit"}, "can never be filled"),
        ({"count": 8, "parity": "odd", "sum": 101}, "can never be filled"),
    ],
)
def test_unfillable_patterns_are_refused(pattern, match):
    data = {"cards": [S1, {"id": "X9", "deck": "main", "power": "take", "pattern": pattern}]}
    with pytest.raises(ValueError, match=f"X9.*{match}"):
        parse_catalog(data, "bad")
    with pytest.raises(OptionError, match="X9"):
        TipOfTheDicebergEnv(num_players=4, catalog=data)


def test_a_catalog_that_leaves_items_unplayable_is_refused_at_construction():
    low = {"id": "S1", "deck": "starter", "pattern": {"count": 1, "values": [1, 12]}}
    data = {
        "cards": [
            low,
            {"id": "C1", "deck": "main", "power": "clear", "pattern": {"count": 2, "same": "number", "cards": 1}},
        ]
    }
    parse_catalog(data, "ok")  # every pattern can be filled
    with pytest.raises(OptionError, match="a d20 die showing 13 .*can never be played with 3 players"):
        TipOfTheDicebergEnv(num_players=3, catalog=data)
    # with 5 players the deck has d20 13-20 cards too
    with pytest.raises(OptionError, match="card d12:.*|card d20:13"):
        TipOfTheDicebergEnv(num_players=5, catalog={"cards": [low]})
    # an item that only one card of a power deck takes can still be stranded
    two = [
        {"id": "D1", "deck": "main", "power": "discard", "pattern": {"count": 1}},
        {"id": "D2", "deck": "main", "power": "discard", "pattern": {"count": 2, "same": "number", "cards": 1}},
    ]
    with pytest.raises(OptionError, match="can never be played"):
        TipOfTheDicebergEnv(num_players=3, catalog={"cards": [low, *two]})
    TipOfTheDicebergEnv(num_players=3, catalog={"cards": [low, *two]}, main_cards=["D1"])  # D1 is always revealed


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_shipped_catalogs_are_accepted(n):
    for cat in (None, example_catalog_path()):
        TipOfTheDicebergEnv(num_players=n, catalog=cat).reset(seed=0)


# ---------------------------------------------------------------------------- catalog files
def test_catalog_file_attacks(tmp_path):
    good = json.loads(open(example_catalog_path(), encoding="utf-8").read())
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\x00\x01\xff\xfe" * 10)
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(good).encode())
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (2 << 20) + b"{}")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100 + "]" * 100)
    bad_line = tmp_path / "line.json"
    bad_line.write_text('{\n"cards": [\n oops ]}\n')
    TipOfTheDicebergEnv(num_players=3, catalog=str(bom)).reset(seed=0)  # a byte-order mark is fine
    for path, match in [
        (binary, "binary.json.*(not UTF-8|binary)"),
        ("/dev/zero", "/dev/zero: not a regular file"),
        (tmp_path, "not a regular file"),
        (big, "big.json.*larger than the limit"),
        (deep, "deep.json.*nested deeper"),
        (bad_line, "line.json, line 3"),
        (tmp_path / "missing.json", "does not exist"),
    ]:
        with pytest.raises(OptionError, match=match):
            ice_envs.make(GAME, num_players=3, catalog=str(path))
    assert load_catalog(str(bom)).name == "example_custom"
