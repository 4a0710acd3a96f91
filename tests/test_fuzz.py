"""Fuzzing the edges (hypothesis, derandomised and bounded so CI stays quick).

For every game: random option dicts, random actions of every type, random edits of a mid-game ``state_dict``;
for every file a user can hand over — maps, catalogs, training configs, game records, checkpoints — random bytes
and random edits of a valid file. Each call either works or raises the documented error type with a message,
and a failed call leaves the env exactly as it was.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ice_envs
from ice_envs.core.errors import AgentSpecError, IllegalActionError, OptionError
from ice_envs.core.wrapping import constructor_options

REPO = Path(__file__).resolve().parent.parent
GAMES = sorted(ice_envs.GAMES)
FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)

#: Any value a careless or hostile caller might pass.
ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(
        [0, 1, 2, 3, 5, 10, -1, 1.5, "3", "True", "no", math.nan, np.int64(3), np.uint64(3), np.float32(2)]
    ),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _snapshot(env) -> str:
    return json.dumps(env.unwrapped.state_dict(), sort_keys=True)


def _midgame(game: str, seed: int, steps: int):
    spec = ice_envs.get_spec(game)
    env = ice_envs.make(game, num_players=spec.quick_players, **spec.quick.options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.unwrapped.legal_actions():
            break
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    return env


def _usable(env) -> None:
    """A loaded or built env must observe and step without surprises."""
    raw = env.unwrapped
    for agent in raw.agents:
        space = raw.observation_space(agent)
        assert space.contains(raw.observe(agent))
    legal = raw.legal_actions()
    if legal:
        raw.step(legal[0])


@pytest.mark.parametrize("game", GAMES)
def test_random_options_build_or_raise_option_error(game: str):
    spec = ice_envs.get_spec(game)
    names = [*constructor_options(type(spec.load().raw_env(num_players=spec.quick_players))), "no_such_option"]

    @FUZZ
    @given(st.dictionaries(st.sampled_from(names), ANY_VALUE, max_size=3))
    def check(options):
        options = {"num_players": spec.quick_players, **options}
        try:
            env = ice_envs.make(game, **options)
        except OptionError as exc:
            assert str(exc)
            return
        try:
            env.reset(seed=0)
        except OptionError as exc:
            assert str(exc)
            return
        _usable(env)

    check()


@pytest.mark.parametrize("game", GAMES)
def test_random_actions_work_or_raise_and_change_nothing(game: str):
    @FUZZ
    @given(st.integers(0, 3), st.integers(0, 30), st.lists(ANY_VALUE, min_size=1, max_size=4))
    def check(seed, steps, actions):
        env = _midgame(game, seed, steps)
        for action in actions:
            before = _snapshot(env)
            try:
                env.step(action)
            except IllegalActionError as exc:
                assert str(exc) and _snapshot(env) == before, f"a refused {action!r} changed the env"
            except ValueError as exc:  # PettingZoo's dead-step rule: only None once an agent is done
                assert "None" in str(exc) and _snapshot(env) == before

    check()


def _paths(value, prefix=()):
    """Every (path, leaf-or-node) of a JSON-like value."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _edit(data, path, value, delete: bool):
    data = copy.deepcopy(data)
    if not path:
        return value
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


@pytest.mark.parametrize("game", GAMES)
def test_random_state_dict_edits_load_or_raise_and_change_nothing(game: str):
    @FUZZ
    @given(st.integers(0, 3), st.integers(0, 40), st.data())
    def check(seed, steps, data):
        source = _midgame(game, seed, steps)
        saved = json.loads(json.dumps(source.unwrapped.state_dict()))
        paths = list(_paths(saved))
        path, _ = data.draw(st.sampled_from(paths), label="path")
        delete = bool(path) and data.draw(st.booleans(), label="delete")
        value = data.draw(ANY_VALUE, label="value")
        edited = _edit(saved, path, value, delete)
        target = _midgame(game, seed + 1, 3)
        before = _snapshot(target)
        try:
            target.unwrapped.load_state_dict(edited)
        except OptionError as exc:
            assert str(exc) and _snapshot(target) == before, "a refused state dict changed the env"
            return
        _usable(target)

    check()


# ---------------------------------------------------------------------------- files
def _valid_files(tmp: Path) -> dict[str, Path]:
    """One valid file of each kind a user can hand over."""
    from ice_envs.evaluation.record import GameRecorder

    files = {
        "map": REPO / "ice_envs/icebergs/maps/strait.txt",
        "catalog": REPO / "ice_envs/tip_of_the_diceberg/data/example_custom_catalog.json",
        "config": REPO / "ice_envs/cardiceo/smoke.yaml",
        "checkpoint": REPO / "checkpoints/cardiceo_ppo/final.npz",
    }
    env = ice_envs.make("cardiceo", num_players=2, hand_size=5, raw=True)
    env.reset(seed=3)
    rec = GameRecorder("cardiceo", 2, {"hand_size": 5}, 3, ["random", "random"])
    rng = np.random.default_rng(0)
    while env.legal_actions():
        rec.take(env, int(rng.choice(env.legal_actions())))
    rec.finish(env)
    files["record"] = rec.save(tmp / "game.jsonl")
    return files


def _load(kind: str, path: Path) -> None:
    """Load ``path`` as a file of ``kind`` the way ice-envs does; only the documented errors may come out."""
    if kind == "map":
        ice_envs.make("icebergs", num_players=2, map=str(path)).reset(seed=0)
    elif kind == "catalog":
        ice_envs.make("tip_of_the_diceberg", num_players=3, catalog=str(path)).reset(seed=0)
    elif kind == "config":
        from ice_envs.train.config import load_config

        load_config(path)
    elif kind == "record":
        from ice_envs.evaluation.replay import replay

        replay(path)
    else:
        from ice_envs.agents import load_agent

        load_agent(f"ppo:{path}", "cardiceo", num_players=4)


def _documented_errors(kind: str) -> tuple[type[Exception], ...]:
    if kind == "record":
        from ice_envs.evaluation.record import RecordError

        return (RecordError,)
    if kind == "config":
        from ice_envs.train.config import ConfigError

        return (ConfigError,)
    if kind == "checkpoint":
        return (AgentSpecError,)
    return (OptionError,)


KINDS = ("map", "catalog", "config", "record", "checkpoint")


@pytest.mark.parametrize("kind", KINDS)
def test_random_bytes_and_edits_of_files_load_or_raise_the_documented_error(kind: str, tmp_path: Path):
    valid = _valid_files(tmp_path)[kind].read_bytes()
    errors = _documented_errors(kind)
    target = tmp_path / f"fuzzed{Path(str(_valid_files(tmp_path)[kind])).suffix}"

    @FUZZ
    @given(
        st.one_of(
            st.binary(max_size=400),
            st.tuples(st.integers(0, len(valid)), st.integers(0, len(valid))).map(
                lambda ab: valid[: min(ab)] + valid[max(ab) :]
            ),
            st.tuples(st.integers(0, len(valid)), st.binary(min_size=1, max_size=8)).map(
                lambda ib: valid[: ib[0]] + ib[1] + valid[ib[0] :]
            ),
            st.tuples(st.integers(0, max(0, len(valid) - 1)), st.integers(0, 255)).map(
                lambda ib: valid[: ib[0]] + bytes([ib[1]]) + valid[ib[0] + 1 :]
            ),
        )
    )
    def check(content: bytes):
        target.write_bytes(content)
        try:
            _load(kind, target)
        except errors as exc:
            assert str(exc)

    check()
    target.write_bytes(valid)
    _load(kind, target)  # the valid file itself loads
