"""The batched-engine API (:mod:`ice_envs.core.vector`): construction, arrays, seeding, auto-reset, partial steps."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs import vector
from ice_envs.core.compiled import CompiledEngine
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.vector import BatchedEngine

GAMES = ("cardiceo", "cubemelt")
#: (game, engine kind) of every batched engine: the compiled and the numpy engines keep one API.
KINDS = [("cardiceo", "compiled"), ("cardiceo", "numpy"), ("cubemelt", "compiled"), ("cubemelt", "numpy")]
KIND_IDS = [f"{g}-{k}" for g, k in KINDS]


def test_specs_name_their_batched_engines_and_ice_envs_vector_re_exports():
    for game, kind in KINDS:
        cls = vector.engine_class(game, kind)
        assert issubclass(cls, BatchedEngine) and cls.game == game
        assert issubclass(cls, CompiledEngine) == (kind == "compiled")
    assert vector.engine_class("cardiceo") is vector.engine_class("cardiceo", "compiled")  # auto: compiled first
    with pytest.raises(OptionError, match="engine must be one of"):
        vector.make("cardiceo", 4, engine="cuda")
    assert vector.make is ice_envs.core.vector.make
    with pytest.raises(OptionError, match="only a compiled engine"):
        vector.make("icebergs", 4, engine="numpy")


@pytest.mark.parametrize(("game", "kind"), KINDS, ids=KIND_IDS)
def test_arrays_have_the_documented_shapes_and_match_the_scalar_spaces(game, kind):
    engine = vector.make(game, 8, 3, seed=0, engine=kind)
    scalar = ice_envs.make(game, raw=True, num_players=3)
    obs, mask, seat = engine.reset()
    box = scalar.observation_space("player_0")["observation"]
    assert obs.shape == (8, box.shape[0]) and obs.dtype == np.float32
    assert mask.shape == (8, scalar.action_space("player_0").n) and mask.dtype == np.int8
    assert seat.shape == (8,) and ((seat >= 0) & (seat < 3)).all()
    assert all(box.contains(o) for o in obs)
    assert mask.any(axis=1).all()
    assert engine.max_game_length == scalar.max_game_length
    actions = vector.random_actions(mask, np.random.default_rng(0))
    obs, mask, seat, rewards, terminated, truncated, info = engine.step(actions)
    assert rewards.shape == (8, 3) and rewards.dtype == np.float64
    assert terminated.shape == truncated.shape == (8,) and terminated.dtype == bool
    assert info["final_obs"].shape[1:] == (3, box.shape[0])


@pytest.mark.parametrize(("game", "kind"), KINDS, ids=KIND_IDS)
def test_options_are_validated_as_the_scalar_env_does(game, kind):
    with pytest.raises(OptionError):
        vector.make(game, 4, 9, engine=kind)
    with pytest.raises(OptionError):
        vector.make(game, 4, 2, no_such_option=1, engine=kind)
    with pytest.raises(OptionError):
        vector.make(game, 0, 2, engine=kind)
    with pytest.raises(OptionError):
        vector.make(game, 4, 2, reward_mode="points", engine=kind)
    with pytest.raises(OptionError, match="render"):
        vector.make(game, 4, 2, render_mode="ansi", engine=kind)
    engine = vector.make(game, 4, 2, max_decisions=7, engine=kind)
    assert engine.max_game_length == 7


def _play(engine: BatchedEngine, steps: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    obs, mask, seat = engine.reset(seed=seed)
    trace = [obs, seat]
    for _ in range(steps):
        obs, mask, seat, rewards, terminated, truncated, _ = engine.step(vector.random_actions(mask, rng))
        trace += [obs, seat, rewards, terminated]
    return trace


@pytest.mark.parametrize(("game", "kind"), KINDS, ids=KIND_IDS)
def test_same_seed_and_actions_give_the_same_batch_trajectory(game, kind):
    a = _play(vector.make(game, 16, 4, engine=kind), 60, seed=5)
    b = _play(vector.make(game, 16, 4, engine=kind), 60, seed=5)
    c = _play(vector.make(game, 16, 4, engine=kind), 60, seed=6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


@pytest.mark.parametrize(("game", "kind"), KINDS, ids=KIND_IDS)
def test_finished_games_restart_and_keep_their_final_info(game, kind):
    engine = vector.make(game, 32, 2, seed=1, engine=kind)
    rng = np.random.default_rng(1)
    _, mask, _ = engine.reset()
    finished = 0
    for _ in range(400):
        _, mask, seat, rewards, terminated, truncated, info = engine.step(vector.random_actions(mask, rng))
        fin = info["final_index"]
        assert np.array_equal(np.flatnonzero(info["_final"]), fin)
        assert np.array_equal(fin, np.flatnonzero(terminated | truncated))
        if fin.size:
            finished += fin.size
            # outcome rewards: exactly one +1 in Cardiceo; +1 winners, -1 the others in CubeMelt
            won = info["final_outcome"] > 0
            assert np.all(np.abs(info["final_outcome"][terminated[fin]]) == 1)
            assert np.array_equal(info["final_rewards"], rewards[fin])
            if game == "cardiceo":
                assert (won.sum(axis=1)[terminated[fin]] == 1).all()
            assert (engine.num_steps[fin] == 0).all() and mask[fin].any(axis=1).all()
            assert (info["final_length"] > 0).all()
    assert finished >= 32


@pytest.mark.parametrize(
    ("game", "kind", "options"),
    [
        ("cubemelt", "numpy", {"expansion": True}),
        ("cubemelt", "compiled", {"expansion": True}),
        ("cardiceo", "compiled", {}),
    ],
)
def test_where_steps_only_the_chosen_games(game, kind, options):
    engine = vector.make(game, 6, 3, seed=2, engine=kind, **options)
    obs, mask, seat = engine.reset()
    before = {name: a.copy() for name, a in engine.state_arrays().items()}
    where = np.array([True, False, True, False, False, False])
    actions = vector.random_actions(mask, np.random.default_rng(0))
    obs2, _, _, rewards, _, _, _ = engine.step(actions, where=where)
    for name, array in engine.state_arrays().items():
        assert np.array_equal(array[~where], before[name][~where]), name
    assert np.array_equal(obs2[~where], obs[~where])
    assert not rewards[~where].any()


@pytest.mark.parametrize("kind", ["compiled", "numpy"])
def test_an_illegal_action_raises_and_changes_nothing_or_is_penalized(kind):
    engine = vector.make("cardiceo", 4, 2, seed=3, engine=kind)
    _, mask, seat = engine.reset()
    actions = vector.random_actions(mask, np.random.default_rng(0))
    illegal = int(np.flatnonzero(mask[1] == 0)[0])
    bad = actions.copy()
    bad[1] = illegal
    before = {name: a.copy() for name, a in engine.state_arrays().items()}
    with pytest.raises(IllegalActionError, match="game 1"):
        engine.step(bad)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        engine.step(np.full(4, 10))
    with pytest.raises(IllegalActionError):
        engine.step(actions.astype(float))
    assert all(np.array_equal(a, before[n]) for n, a in engine.state_arrays().items())

    engine = vector.make("cardiceo", 4, 2, seed=3, illegal_action="penalize", illegal_reward=-3.0, engine=kind)
    _, mask, seat = engine.reset()
    _, _, _, rewards, terminated, _, info = engine.step(bad)
    assert terminated[1] and info["illegal"][1] and not info["illegal"][[0, 2, 3]].any()
    expected = np.zeros(2)
    expected[seat[1]] = -3.0
    assert np.array_equal(rewards[1], expected)


@pytest.mark.parametrize(("game", "kind"), KINDS, ids=KIND_IDS)
def test_observe_any_seat_and_state_of_are_the_scalar_views(game, kind):
    engine = vector.make(game, 5, 3, seed=4, engine=kind)
    engine.reset()
    scalar = ice_envs.make(game, raw=True, num_players=3)
    for seat in range(3):
        obs = engine.observe(seat)
        for i in range(5):
            scalar.reset(options={"state": engine.state_of(i)})
            assert np.array_equal(obs[i], scalar.observe(f"player_{seat}")["observation"])


@pytest.mark.parametrize(("game", "kind"), KINDS, ids=KIND_IDS)
def test_memory_is_a_few_hundred_bytes_per_game(game, kind):
    engine = vector.make(game, 1000, 4, engine=kind)
    assert engine.state_nbytes == sum(a.nbytes for a in engine.state_arrays().values())
    assert 50 <= engine.bytes_per_game <= 400
    assert all(a.shape[0] == 1000 for a in engine.state_arrays().values())


def test_random_actions_are_legal_and_uniform():
    mask = np.zeros((20000, 5), dtype=np.int8)
    mask[:, [1, 3, 4]] = 1
    mask[0] = 0
    mask[0, 2] = 1
    actions = vector.random_actions(mask, np.random.default_rng(0))
    assert actions[0] == 2 and mask[np.arange(20000), actions].all()
    share = np.bincount(actions[1:], minlength=5)[[1, 3, 4]] / 19999
    assert np.allclose(share, 1 / 3, atol=0.02)


@pytest.mark.parametrize("kind", ["compiled", "numpy"])
def test_step_before_reset_and_bad_shapes_are_refused(kind):
    engine = vector.make("cardiceo", 3, 2, engine=kind)
    with pytest.raises(RuntimeError, match="reset"):
        engine.step(np.zeros(3, dtype=np.int64))
    engine.reset(seed=0)
    with pytest.raises(IllegalActionError, match="shape"):
        engine.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(OptionError):
        engine.reset(seed=-1)


def test_a_compiled_game_does_not_depend_on_the_batch_size_or_the_other_games():
    """Each compiled game has its own stream: game i of a batch of 4 plays as game i of a batch of 16."""
    small = vector.make("cardiceo", 4, 3, seed=9, engine="compiled")
    large = vector.make("cardiceo", 16, 3, seed=9, engine="compiled")
    _, mask_s, _ = small.reset()
    _, mask_l, _ = large.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        assert np.array_equal(small.state, large.state[:4]) and np.array_equal(mask_s, mask_l[:4])
        actions = vector.random_actions(mask_l, rng)
        _, mask_s, _, rewards_s, *_ = small.step(actions[:4])
        _, mask_l, _, rewards_l, *_ = large.step(actions)
        assert np.array_equal(rewards_s, rewards_l[:4])


def test_the_compiled_engine_without_numba_is_one_clear_error(monkeypatch):
    monkeypatch.setattr(ice_envs.core.vector, "compiled_available", lambda: False)
    assert vector.engine_class("cardiceo") is vector.engine_class("cardiceo", "numpy")
    with pytest.raises(OptionError, match=r"pip install 'ice-envs\[fast\]'"):
        vector.make("cardiceo", 4, engine="compiled")


def test_sample_legal_is_uniform_over_legal_actions_and_the_same_compiled_or_not(monkeypatch):
    mask = np.zeros((20000, 6), dtype=np.int8)
    mask[:, [1, 3, 4]] = 1
    mask[0] = 0
    mask[0, 5] = 1
    mask[1] = 0  # no legal action: 0
    compiled = vector.sample_legal(mask, np.random.default_rng(3))
    monkeypatch.setattr(ice_envs.core.vector, "compiled_available", lambda: False)
    plain = vector.sample_legal(mask, np.random.default_rng(3))
    assert np.array_equal(compiled, plain)
    assert compiled[0] == 5 and compiled[1] == 0 and mask[np.arange(2, 20000), compiled[2:]].all()
    share = np.bincount(compiled[2:], minlength=6)[[1, 3, 4]] / 19998
    assert np.allclose(share, 1 / 3, atol=0.02)
