"""The shared core: serialisation, registry, floor env, CLI and benchmark harness."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import ice_envs
from ice_envs.cli import main as cli_main
from ice_envs.core import floor
from ice_envs.core.errors import OptionError
from ice_envs.core.serialize import from_jsonable, to_jsonable
from ice_envs.core.testing import ScriptedRng


@dataclasses.dataclass
class _Inner:
    values: np.ndarray
    pair: tuple[int, int]


def test_serialize_round_trips_numpy_tuples_sets_and_dataclasses():
    from ice_envs.cardiceo import rules

    state = rules.new_game(rules.CardiceoConfig(num_players=3), np.random.default_rng(1))
    data = json.loads(json.dumps(to_jsonable(state)))
    back = from_jsonable(data)
    assert type(back) is rules.CardiceoState
    assert back.config == state.config
    assert np.array_equal(back.hands, state.hands) and back.hands.dtype == state.hands.dtype
    assert np.array_equal(back.used, state.used) and back.used.dtype == bool
    mixed = {"t": (1, 2), "s": {3, 1}, "k": {(1, 2): "a"}, "f": np.float32(0.5), "a": np.zeros((2, 3), np.int8)}
    again = from_jsonable(json.loads(json.dumps(to_jsonable(mixed))))
    assert again["t"] == (1, 2) and again["s"] == {1, 3} and again["k"] == {(1, 2): "a"} and again["f"] == 0.5
    assert again["a"].shape == (2, 3) and again["a"].dtype == np.int8


def test_serialize_refuses_classes_outside_the_package():
    data = {"__dataclass__": "os:PathLike", "fields": {}}
    with pytest.raises(ValueError, match="outside ice_envs"):
        from_jsonable(data)
    with pytest.raises(TypeError, match="cannot encode"):
        to_jsonable(object())


def test_registry_errors_and_specs():
    with pytest.raises(OptionError, match="known games"):
        ice_envs.get_spec("chess")
    spec = ice_envs.get_spec("cardiceo_v1")
    assert spec.name == "cardiceo"
    cases = list(spec.cases())
    assert ("default", 2, {}) in cases and ("short", 6, {"hand_size": 5}) in cases


def test_floor_env_has_one_action_and_a_hundred_decisions():
    env = floor.env()
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert obs["action_mask"].tolist() == [1]
        env.step(0)
        steps += 1
    assert steps == 100


def test_max_cycles_truncates():
    env = ice_envs.make("cardiceo", num_players=2, max_cycles=3)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc or term
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps <= 6


def test_scripted_rng_checks_bounds_and_exhaustion():
    rng = ScriptedRng([3])
    assert rng.integers(1, 5) == 3
    with pytest.raises(AssertionError, match="unscripted"):
        rng.integers(1, 5)
    with pytest.raises(AssertionError, match="outside"):
        ScriptedRng([9]).integers(1, 5)


def test_cli_list_and_demo(capsys):
    assert cli_main(["list"]) == 0
    out = capsys.readouterr().out
    assert "cardiceo" in out and "2-6" in out
    assert cli_main(["demo", "cardiceo", "--players", "3", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Game over after" in out and "wins" in out


def test_cli_errors_are_clear(capsys):
    assert cli_main(["demo", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert cli_main(["demo", "cardiceo", "--players", "9"]) == 2
    assert "num_players=9" in capsys.readouterr().err


def test_throughput_benchmark_writes_json_and_markdown(tmp_path):
    from ice_envs.benchmarks import throughput

    assert (
        throughput.main(
            ["--games", "cardiceo", "--seconds", "0.05", "--no-peers", "--no-memory", "--out", str(tmp_path)]
        )
        == 0
    )
    data = json.loads((tmp_path / "throughput.json").read_text())
    rows = {(r["game"], r["players"], r["api"]) for r in data["results"]}
    assert ("floor", 2, "env") in rows and ("cardiceo", 6, "raw_env") in rows
    assert all(r["steps_per_s"] > 0 and r["games"] >= 1 for r in data["results"])
    assert "| cardiceo | default | 4 | env |" in (tmp_path / "throughput.md").read_text()
