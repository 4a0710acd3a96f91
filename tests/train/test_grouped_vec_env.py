"""Several envs per worker process (``env_processes``): the same envs, steps and weights as a DummyVecEnv."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ice_envs.train.config import ConfigError, config_from_dict
from ice_envs.train.run import env_factory, resume, train
from tests.train.conftest import tiny_config_dict
from tests.train.test_training import assert_same_params, evaluations, final_results, metrics

pytest.importorskip("sb3_contrib")


def _venvs(n_envs: int, processes: int):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ice_envs.train.grouped_vec_env import GroupedSubprocVecEnv

    cfg = config_from_dict(tiny_config_dict(opponents__mix={"random": 0.5, "heuristic": 0.5}))
    factory = env_factory(cfg, [])
    return DummyVecEnv([factory] * n_envs), GroupedSubprocVecEnv([factory] * n_envs, processes)


def _same_infos(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.keys() == y.keys()
        for key in x:
            if isinstance(x[key], np.ndarray):
                np.testing.assert_array_equal(x[key], y[key])
            else:
                assert x[key] == y[key], key


def test_split_envs_is_contiguous_and_balanced():
    from ice_envs.train.grouped_vec_env import split_envs

    assert split_envs(5, 2) == [[0, 1, 2], [3, 4]]
    assert split_envs(4, 4) == [[0], [1], [2], [3]]
    assert split_envs(3, 1) == [[0, 1, 2]]
    for bad in (0, 6):
        with pytest.raises(ValueError, match="processes must be between 1 and n_envs = 5"):
            split_envs(5, bad)


@pytest.mark.parametrize("n_envs, processes", [(5, 2), (3, 3), (2, 1)])
def test_steps_resets_and_masks_are_those_of_a_dummy_vec_env(n_envs: int, processes: int):
    """Every observation, reward, done, info (terminal observations included), reset info and mask."""
    dummy, grouped = _venvs(n_envs, processes)
    try:
        for venv in (dummy, grouped):
            venv.seed(11)
        np.testing.assert_array_equal(dummy.reset(), grouped.reset())
        _same_infos(dummy.reset_infos, grouped.reset_infos)
        rng = np.random.default_rng(0)
        episodes_ended = 0
        for _ in range(120):
            masks = np.stack(dummy.env_method("action_masks"))
            np.testing.assert_array_equal(masks, np.stack(grouped.env_method("action_masks")))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            d_obs, d_rew, d_done, d_info = dummy.step(actions)
            g_obs, g_rew, g_done, g_info = grouped.step(actions)
            np.testing.assert_array_equal(d_obs, g_obs)
            np.testing.assert_array_equal(d_rew, g_rew)
            np.testing.assert_array_equal(d_done, g_done)
            _same_infos(d_info, g_info)
            episodes_ended += int(d_done.sum())
        assert episodes_ended > 0  # the auto-reset path was exercised
        # attributes and methods go to the right envs, in the order asked for
        assert grouped.get_attr("seat", indices=[n_envs - 1, 0]) == dummy.get_attr("seat", indices=[n_envs - 1, 0])
        blobs = grouped.env_method("get_state", indices=[n_envs - 1])
        assert blobs == dummy.env_method("get_state", indices=[n_envs - 1])
    finally:
        dummy.close()
        grouped.close()


def test_a_changed_env_is_asked_for_its_mask_again():
    """The masks sent with a step stand only until another call may have changed an env."""
    dummy, grouped = _venvs(3, 2)
    try:
        for venv in (dummy, grouped):
            venv.seed(4)
            venv.reset()
        blob = dummy.env_method("get_state", indices=[0])[0]
        rng = np.random.default_rng(1)
        for _ in range(7):  # move env 1 on, then put env 1 back where env 0 is
            masks = np.stack(dummy.env_method("action_masks"))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            dummy.step(actions)
            grouped.step(actions)
        assert grouped._masks is not None
        dummy.env_method("set_state", blob, indices=[1])
        grouped.env_method("set_state", blob, indices=[1])
        assert grouped._masks is None
        np.testing.assert_array_equal(
            np.stack(dummy.env_method("action_masks")), np.stack(grouped.env_method("action_masks"))
        )
    finally:
        dummy.close()
        grouped.close()


def test_grouped_workers_train_the_same_weights_as_dummy(tmp_path: Path):
    """Three envs in two processes (self-play snapshots pushed to the envs, heuristic seats): the same
    weights, metrics and evaluations as in this process; and a resumed run continues exactly."""
    config = tiny_config_dict(n_envs=3, opponents__mix={"random": 0.4, "heuristic": 0.2, "self_play": 0.4})
    dummy = train(config_from_dict(config), tmp_path / "dummy", echo=False).run_dir
    grouped_config = {**config, "vec_env": "subproc", "env_processes": 2}
    from ice_envs.train.grouped_vec_env import GroupedSubprocVecEnv
    from ice_envs.train.run import make_vec_env

    venv = make_vec_env(config_from_dict(grouped_config), [])
    try:  # not vacuous: the config builds the grouped workers
        assert isinstance(venv, GroupedSubprocVecEnv) and venv.groups == [[0, 1], [2]]
    finally:
        venv.close()
    grouped = train(config_from_dict(grouped_config), tmp_path / "grouped", echo=False).run_dir
    assert_same_params(dummy / "final.zip", grouped / "final.zip")
    assert metrics(dummy) == metrics(grouped)
    assert evaluations(dummy) == evaluations(grouped)
    assert final_results(dummy) == final_results(grouped)
    half = train(config_from_dict({**grouped_config, "total_timesteps": 128}), tmp_path / "half", echo=False).run_dir
    resume(half, ["total_timesteps=256"], command="resume", echo=False)
    assert_same_params(dummy / "final.zip", half / "final.zip")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"vec_env": "subproc", "env_processes": 0}, r"env_processes: must be in 1..n_envs \(2\), got 0"),
        ({"vec_env": "subproc", "env_processes": 3}, r"env_processes: must be in 1..n_envs \(2\), got 3"),
        ({"vec_env": "dummy", "env_processes": 1}, "env_processes: needs vec_env: subproc, got 'dummy'"),
    ],
)
def test_bad_env_processes_are_refused(changes: dict, message: str):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(tiny_config_dict(**changes))
