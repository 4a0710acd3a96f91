"""Hardening of Icebergs: strict options, complete position / state checks, maps that cannot lock a game."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.icebergs import rules
from ice_envs.icebergs.env import IcebergsEnv
from ice_envs.icebergs.hexmap import MAX_COLS, MAX_ROWS, HexMap, MapError, parse_map

GAME = "icebergs"


def snapshot(env) -> str:
    return json.dumps(env.state_dict(), sort_keys=True)


def fresh(**kw):
    env = IcebergsEnv(**{"num_players": 2, **kw})
    env.reset(seed=0)
    return env


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"fleet": "yes"}, "fleet"),
        ({"fleet": 1}, "fleet"),
        ({"solo": None}, "solo"),
        ({"restart_on_sink": "no"}, "restart_on_sink"),
        ({"exit_penalties": 0}, "exit_penalties"),
        ({"max_turns": 4.0}, "max_turns"),
        ({"max_turns": True}, "max_turns"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": 10_001}, "max_turns"),
        ({"ships_per_player": True}, "ships_per_player"),
        ({"ships_per_player": 2.0}, "ships_per_player"),
        ({"ships_per_player": 4}, "ships_per_player"),
        ({"max_turns_end": "stop"}, "max_turns_end"),
        ({"fleet_end": 1}, "fleet_end"),
        ({"map": 5}, "map"),
        ({"map": "nowhere"}, "nowhere"),
        ({"map_text": b". .\n"}, "map_text"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_constructor_options(kwargs, match):
    with pytest.raises(OptionError, match=match):
        ice_envs.make(GAME, num_players=2, **kwargs)


def test_numpy_integers_and_bools_are_accepted():
    env = IcebergsEnv(
        num_players=np.int64(2), fleet=np.bool_(True), ships_per_player=np.int64(2), max_turns=np.int32(7)
    )
    env.reset(seed=0)
    assert env.config.max_turns == 7 and env.config.ships_per_player == 2


SEA = [3, 4]  # a sea space of the default map as [row, col]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"start_player": 1.0}, "start_player"),
        ({"start_player": True}, "start_player"),
        ({"start_player": 2}, "start_player"),
        ({"icebergs": 5}, "icebergs"),
        ({"icebergs": [3.0]}, "icebergs"),
        ({"icebergs": [True]}, "icebergs"),
        ({"icebergs": [9999]}, "icebergs"),
        ({"icebergs": [[0, 3]]}, "ice island"),
        ({"icebergs": [[7, 0]]}, "not on the 7x13 map"),
        ({"icebergs": [[1, 2, 3]]}, "icebergs"),
        ({"icebergs": [SEA] * 7}, "7 icebergs; the map has 6"),
        ({"floes": [SEA] * 37}, "floes"),
        ({"floes": [[0, 3]]}, "ice island"),
        ({"floes": [SEA], "spare_floes": 36}, "spare_floes"),
        ({"spare_floes": -1}, "spare_floes"),
        ({"spare_floes": 1.5}, "spare_floes"),
        ({"ships": [{}]}, "ships"),
        ({"ships": "x"}, "ships"),
        ({"ships": [{}, 3]}, r"'ships'\[1\]"),
        ({"ships": [{"status": "flying"}, {}]}, "status"),
        ({"ships": [{"status": True}, {}]}, "status"),
        ({"ships": [{"fuel": -5}, {}]}, "fuel"),
        ({"ships": [{"fuel": 9}, {}]}, "fuel"),
        ({"ships": [{"fuel": 5.0}, {}]}, "fuel"),
        ({"ships": [{"status": "home", "cargo": 99}, {}]}, "cargo"),
        ({"ships": [{"status": "home", "cargo": "8"}, {}]}, "cargo"),
        ({"ships": [{"status": "at_sea", "space": SEA, "loaded": "yes"}, {}]}, "loaded"),
        ({"ships": [{"status": "at_sea"}, {}]}, "space"),
        ({"ships": [{"status": "at_sea", "space": [0, 3]}, {}]}, "ice island"),
        ({"ships": [{"status": "at_sea", "space": 9999}, {}]}, "space"),
        ({"ships": [{"status": "start", "space": SEA}, {}]}, "only a ship at sea"),
        ({"ships": [{"status": "start", "cargo": 3}, {}]}, "cargo"),
        ({"ships": [{"status": "start", "loaded": True}, {}]}, "not loaded"),
        ({"ships": [{"status": "home", "loaded": False}, {}]}, "loaded"),
        ({"ships": [{"stauts": "home"}, {}]}, "stauts"),
        ({"ship": []}, "ship"),
    ],
)
def test_bad_reset_options_leave_the_env_unchanged(options, match):
    env = fresh()
    before = snapshot(env)
    with pytest.raises(OptionError, match=match):
        env.reset(seed=1, options=options)
    assert snapshot(env) == before


def test_good_positions_still_work():
    env = fresh(num_players=3)
    env.reset(
        seed=0,
        options={
            "start_player": 0,
            "ships": [
                {"status": "at_sea", "space": [5, 0]},
                {"status": "at_sea", "space": 5 * 13 + 1, "fuel": 5, "cargo": 5, "loaded": True},
                {"status": "start"},
            ],
            "icebergs": [[5, 2]],
            "floes": [],
            "spare_floes": 3,
        },
    )
    st = env.game_state
    assert st.pos[:2] == [65, 66] and st.spare_floes == 3 and st.bergs == [67]


def _edit(data, path, value):
    data = copy.deepcopy(data)
    target = data["state"]["fields"]
    *head, last = path
    for key in head:
        target = target[key]
    target[last] = value(target[last]) if callable(value) else value
    return data


EDITS = [
    (("fuel",), lambda v: [-5] + v[1:], "fuel"),
    (("cargo",), lambda v: [99] + v[1:], "cargo"),
    (("fuel",), lambda v: [5.0] + v[1:], "fuel"),
    (("status",), lambda v: [7] + v[1:], "status"),
    (("status",), lambda v: [rules.AT_SEA] + v[1:], "at sea"),
    (("pos",), lambda v: [3] + v[1:], "on a space exactly when it is at sea"),
    (("pos",), lambda v: v[:1], "pos"),
    (("floes",), lambda v: [1] * len(v), "floes"),
    (("floes",), lambda v: v[:-1], "floes"),
    (("bergs",), lambda v: v + [0], "icebergs"),
    (("bergs",), lambda v: [3] + v[1:], "ice island"),
    (("berg_count",), lambda v: [1] + v[1:], "berg_count"),
    (("spare_floes",), 999, "spare_floes"),
    (("phase",), 7, "phase"),
    (("over",), 1, "over"),
    (("current",), 9, "current"),
    (("order",), lambda v: v[::-1] + v[:0] if len(v) > 2 else [v[0], v[0]], "order"),
    (("loaded",), lambda v: [1] + v[1:], "loaded"),
    (("home_rank",), lambda v: [0] + v[1:], "rank"),
    (("hazards",), [[0, 99]], "iceberg"),
    (("result",), [1.0, 1.0], "result"),
    (("die",), 7, "die"),
    (("moves_left",), -1, "moves_left"),
    (("log",), ["x" * 1000], "log"),
]


@pytest.mark.parametrize(("path", "value", "match"), EDITS)
def test_load_state_dict_refuses_edited_states(path, value, match):
    env = fresh()
    good = env.state_dict()
    before = snapshot(env)
    bad = _edit(good, path, value)
    with pytest.raises(OptionError, match=match):
        env.load_state_dict(bad)
    assert snapshot(env) == before
    with pytest.raises(OptionError, match=match):
        env.reset(options={"state": bad["state"]})
    assert snapshot(env) == before
    env.load_state_dict(good)
    assert snapshot(env) == before


def test_load_state_dict_refuses_a_state_of_another_config():
    env = fresh()
    other = fresh(max_turns=5)
    before = snapshot(env)
    with pytest.raises(OptionError, match="config"):
        env.load_state_dict(other.state_dict())
    assert snapshot(env) == before


@pytest.mark.parametrize("kw", [{}, {"fleet": True, "num_players": 3}, {"solo": True, "num_players": 1}])
def test_states_of_played_games_are_accepted(kw):
    rng = np.random.default_rng(0)
    env = fresh(**kw)
    for i in range(600):
        if not env.legal_actions():
            break
        env.step(int(rng.choice(env.legal_actions())))
        if i % 41 == 0:
            data = env.state_dict()
            env.load_state_dict(json.loads(json.dumps(data)))
            assert env.state_dict() == data


# ---------------------------------------------------------------------------- maps that cannot lock a game
@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("grid:\n. # .\n. # .\n", "no sea route"),
        ("grid:\n. . #\n. . #\n", "east edge"),
        ("grid:\n# . .\n# . .\n", "west edge"),
        ("spare_floes: 5000\ngrid:\n. .\n", "spare_floes"),
        ("grid:\n" + "FFFFFFFFFF .\n", "pieces"),
        ("grid:\n" + ". " * (MAX_COLS + 1) + "\n", "limit is 40 columns"),
        ("grid:\n" + ". .\n" * (MAX_ROWS + 1), "more than 15 rows"),
        ("grid:\n" + (". " * 400 + "\n") * 400, "limit is 40 columns"),
    ],
)
def test_bad_maps_are_refused(text, match, tmp_path):
    with pytest.raises(MapError, match=match):
        parse_map(text)
    with pytest.raises(OptionError, match=match):
        ice_envs.make(GAME, num_players=2, map_text=text)
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(OptionError, match=f"bad.txt, line .*{match}"):
        ice_envs.make(GAME, num_players=2, map=str(path))


def test_a_route_around_islands_is_fine_and_hexmap_checks_itself():
    parse_map("grid:\n. # .\n. . .\n")
    with pytest.raises(MapError, match="no sea route"):
        HexMap(rows=1, cols=3, terrain=(0, 1, 0), iceberg_starts=(), floe_starts=())
    with pytest.raises(MapError, match="larger than the limit"):
        HexMap(rows=400, cols=400, terrain=(0,) * 160000, iceberg_starts=(), floe_starts=())
    with pytest.raises(MapError, match="not a sea space"):
        HexMap(rows=1, cols=3, terrain=(0, 1, 0), iceberg_starts=(1,), floe_starts=())


def test_map_file_attacks(tmp_path):
    good = "name: mine\nspare_floes: 3\ngrid:\n. . B .\n. F . .\n"
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + good.encode())
    assert IcebergsEnv(num_players=2, map=str(bom)).hexmap.name == "mine"  # a byte-order mark is fine
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"grid:\n. .\n\x00\xff\xfe")
    big = tmp_path / "big.txt"
    big.write_bytes(b"#" * (2 << 20))
    for path, match in [
        (binary, "binary.txt, line 3"),
        ("/dev/zero", "/dev/zero: not a regular file"),
        (tmp_path, "not a regular file"),
        (big, "big.txt.*larger than the limit"),
        (tmp_path / "missing.txt", "missing.txt: no such file"),
    ]:
        with pytest.raises(OptionError, match=match):
            ice_envs.make(GAME, num_players=2, map=str(path))
