"""The imitation warm start: collecting the teacher's decisions, cloning them, a whole run with it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ice_envs.train.config import ConfigError, config_from_dict
from ice_envs.train.imitation import collect, collect_parallel, collection_factory, discounted, fit
from ice_envs.train.run import EnvFactory, build_model, make_vec_env, train
from tests.train.conftest import tiny_config_dict
from tests.train.test_training import assert_same_params, metrics

pytest.importorskip("sb3_contrib")


def cardiceo_factory(mix: dict[str, float] | None = None) -> EnvFactory:
    return EnvFactory("cardiceo", 2, {"hand_size": 5}, mix or {"random": 1.0}, True, (), 0.5, False, None)


def test_discounted_returns():
    np.testing.assert_allclose(discounted(np.array([1.0, 0.0, 2.0]), 0.5), [1.5, 1.0, 2.0])
    np.testing.assert_allclose(discounted(np.array([0.0, 0.0, -1.0]), 1.0), [-1.0, -1.0, -1.0])
    assert discounted(np.zeros(0), 0.9).shape == (0,)


def test_collect_records_legal_teacher_decisions_of_whole_games():
    demos = collect(cardiceo_factory(), "heuristic", 150, 0.99, seed=1)
    n = len(demos.actions)
    assert n >= 150 and demos.games >= 1 and 0 <= demos.wins <= demos.games
    assert demos.observations.shape[0] == demos.masks.shape[0] == demos.returns.shape[0] == n
    assert demos.observations.dtype == np.float32 and demos.masks.dtype == bool
    assert demos.masks[np.arange(n), demos.actions].all(), "every recorded action is legal under its mask"
    assert len(demos.game_returns) == demos.games
    # the observations are copies, not views of a buffer the env reuses
    assert len({row.tobytes() for row in demos.observations}) > n // 2
    # Cardiceo outcome rewards are +-1 at the end of a game: every discounted return lies in [-1, 1]
    assert np.abs(demos.returns).max() <= 1.0 + 1e-6 and np.abs(demos.returns).max() > 0


def test_collect_is_reproducible_and_split_over_workers_by_seed():
    a = collect(cardiceo_factory(), "heuristic", 80, 0.99, seed=5)
    b = collect(cardiceo_factory(), "heuristic", 80, 0.99, seed=5)
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.observations, b.observations)
    both = collect_parallel(cardiceo_factory(), "heuristic", 160, 0.99, seed=5, workers=2)
    second = collect(cardiceo_factory(), "heuristic", 80, 0.99, seed=6)
    np.testing.assert_array_equal(both.actions, np.concatenate([a.actions, second.actions]))
    assert both.games == a.games + second.games


def test_self_play_seats_are_filled_by_the_teacher_while_the_pool_is_empty():
    factory = collection_factory(cardiceo_factory({"random": 0.5, "self_play": 0.3, "heuristic": 0.2}), "heuristic")
    assert factory.mix == {"random": 0.5, "heuristic": 0.5} and factory.pool == ()
    assert collection_factory(cardiceo_factory(), "heuristic").mix == {"random": 1.0}


def test_fit_clones_the_teacher():
    cfg = config_from_dict(tiny_config_dict(ppo__net_arch=[64, 64]))
    venv = make_vec_env(cfg, [])
    try:
        model = build_model(cfg, venv, Path("/nonexistent"))
        demos = collect(cardiceo_factory(), "heuristic", 1500, cfg.ppo.gamma, seed=2)
        history = fit(model.policy, demos, epochs=8, batch_size=64, learning_rate=1e-3, value_coef=0.5, seed=0)
    finally:
        venv.close()
    assert [row["epoch"] for row in history] == list(range(1, 9))
    first, last = history[0], history[-1]
    assert last["policy_loss"] < 0.7 * first["policy_loss"]
    assert last["value_loss"] < first["value_loss"]
    assert last["accuracy"] > first["accuracy"] and last["accuracy"] > 0.5


def test_a_run_with_imitation_records_it_and_is_reproducible(tmp_path: Path):
    data = tiny_config_dict(imitation={"teacher": "heuristic", "steps": 200, "epochs": 2})
    run = train(config_from_dict(data), tmp_path / "a", command="pytest imitation", echo=False).run_dir
    meta = json.loads((run / "meta.json").read_text())
    im = meta["imitation"]
    assert im["teacher"] == "heuristic" and im["decisions"] >= 200 and im["games"] >= 1
    assert [row["epoch"] for row in im["epochs"]] == [1, 2]
    assert list((run / "tb" / "imitation").glob("events.out.tfevents.*"))
    from ice_envs.train.plot_curves import read_scalars

    assert "imitation/accuracy" in read_scalars(run / "tb" / "imitation")
    assert json.loads((run / "evaluation.json").read_text())["imitation"]["decisions"] == im["decisions"]
    assert "Imitation warm start" in (run / "evaluation.md").read_text()
    again = train(config_from_dict(data), tmp_path / "b", echo=False).run_dir
    assert_same_params(run / "final.zip", again / "final.zip")
    assert metrics(run) == metrics(again)
    assert json.loads((again / "meta.json").read_text())["imitation"]["epochs"] == im["epochs"]


@pytest.mark.parametrize(
    ("imitation", "key"),
    [
        ({"teacher": "random"}, "imitation.teacher"),
        ({"teacher": "heuristic", "steps": 0}, "imitation.steps"),
        ({"teacher": "heuristic", "epochs": 0}, "imitation.epochs"),
        ({"teacher": "heuristic", "learning_rate": -1}, "imitation.learning_rate"),
        ({"teacher": "heuristic", "value_coef": -0.5}, "imitation.value_coef"),
        ({"teacher": "heuristic", "step": 10}, "imitation.step"),
    ],
)
def test_bad_imitation_settings_name_the_key(imitation: dict, key: str):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        config_from_dict(tiny_config_dict(imitation=imitation))
