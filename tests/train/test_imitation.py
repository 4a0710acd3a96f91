"""The imitation warm start: collecting the teacher's decisions, cloning them, a whole run with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ice_envs.evaluation.suite import TRAINING_SEEDS, VALIDATION_SEEDS
from ice_envs.train import imitation
from ice_envs.train.config import ConfigError, config_from_dict
from ice_envs.train.imitation import (
    Demonstrations,
    collect,
    collect_parallel,
    collection_factory,
    discounted,
    fit,
    score,
    warm_start,
)
from ice_envs.train.run import EnvFactory, build_model, env_factory, make_vec_env, train
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


def test_a_run_with_imitation_records_it_and_is_reproducible_with_or_without_a_held_out_set(tmp_path: Path):
    """The same config and seed, once without and once with held-out decisions: the same run."""
    data = tiny_config_dict(imitation={"teacher": "heuristic", "steps": 200, "epochs": 2})
    run = train(config_from_dict(data), tmp_path / "a", command="pytest imitation", echo=False).run_dir
    meta = json.loads((run / "meta.json").read_text())
    im = meta["imitation"]
    assert im["teacher"] == "heuristic" and im["decisions"] >= 200 and im["games"] >= 1
    assert [row["epoch"] for row in im["epochs"]] == [1, 2]
    assert "holdout" not in im and "holdout_accuracy" not in im["epochs"][0]
    assert list((run / "tb" / "imitation").glob("events.out.tfevents.*"))
    from ice_envs.train.plot_curves import read_scalars

    scalars = read_scalars(run / "tb" / "imitation")
    assert "imitation/accuracy" in scalars and "imitation/holdout_accuracy" not in scalars
    assert json.loads((run / "evaluation.json").read_text())["imitation"]["decisions"] == im["decisions"]
    assert "Imitation warm start" in (run / "evaluation.md").read_text()

    data["imitation"]["holdout_steps"] = 150
    again = train(config_from_dict(data), tmp_path / "b", echo=False).run_dir
    # the held-out set changes nothing of the training: the weights, PPO's metrics, the cloning figures
    assert_same_params(run / "final.zip", again / "final.zip")
    held_out_tags = {"imitation/holdout_accuracy", "imitation/holdout_loss"}
    again_metrics = metrics(again)
    assert held_out_tags <= set(again_metrics)
    assert metrics(run) == {tag: v for tag, v in again_metrics.items() if tag not in held_out_tags}
    im_again = json.loads((again / "meta.json").read_text())["imitation"]
    cloning = [{k: v for k, v in row.items() if not k.startswith("holdout_")} for row in im_again["epochs"]]
    assert cloning == im["epochs"]
    assert im_again["decisions"] == im["decisions"] and im_again["games"] == im["games"]
    # and the held-out figures are there, per epoch, in range
    held = im_again["holdout"]
    assert held["decisions"] >= 150 and held["games"] >= 1 and 0 <= held["teacher_wins"] <= held["games"]
    for row in im_again["epochs"]:
        assert 0.0 <= row["holdout_accuracy"] <= 1.0
        assert 0.0 <= row["holdout_loss"] < float("inf")
    assert [v for _, v in again_metrics["imitation/holdout_accuracy"]] == pytest.approx(
        [row["holdout_accuracy"] for row in im_again["epochs"]]
    )


def tiny_warm_start(tmp_path: Path, **imitation_keys: Any) -> tuple[Any, dict[str, Any], tuple[Any, Any, Any]]:
    """A fresh tiny model warm-started with ``imitation_keys``: the policy, the report and the RNG states after."""
    import random

    import torch

    cfg = config_from_dict(
        tiny_config_dict(imitation={"teacher": "heuristic", "steps": 200, "epochs": 2, **imitation_keys})
    )
    venv = make_vec_env(cfg, [])
    try:
        model = build_model(cfg, venv, tmp_path)
        report = warm_start(model, cfg, env_factory(cfg, []), tmp_path, echo=False)
    finally:
        venv.close()
    states = (random.getstate(), np.random.get_state(), torch.random.get_rng_state())
    return model.policy, report, states


def test_a_held_out_set_leaves_the_weights_and_the_generators_bit_identical(tmp_path: Path):
    import torch

    policy_a, report_a, states_a = tiny_warm_start(tmp_path / "a")
    policy_b, report_b, states_b = tiny_warm_start(tmp_path / "b", holdout_steps=120)
    a, b = policy_a.state_dict(), policy_b.state_dict()
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    # what PPO draws from next (python, numpy, torch global generators) is where it was without it
    assert states_a[0] == states_b[0]
    assert all(np.array_equal(x, y) for x, y in zip(states_a[1], states_b[1]))
    assert torch.equal(states_a[2], states_b[2])
    assert "holdout" not in report_a and report_b["holdout"]["decisions"] >= 120


def test_held_out_decisions_come_from_seeds_apart_from_the_training_collection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    calls: list[tuple[int, int, int, Demonstrations]] = []
    real = imitation.collect_parallel

    def recording(factory: Any, teacher: str, steps: int, gamma: float, seed: int, workers: int) -> Demonstrations:
        demos = real(factory, teacher, steps, gamma, seed, workers)
        calls.append((steps, seed, workers, demos))
        return demos

    monkeypatch.setattr(imitation, "collect_parallel", recording)
    _, report, _ = tiny_warm_start(tmp_path, holdout_steps=100)
    cfg = config_from_dict(tiny_config_dict())
    (train_steps, train_seed, train_workers, train_demos), (held_steps, held_seed, held_workers, held) = calls
    assert (train_steps, train_seed, held_steps) == (200, cfg.seed, 100)
    train_seeds = {train_seed + i for i in range(train_workers)}
    held_seeds = {held_seed + i for i in range(held_workers)}
    assert held_seeds == set(report["holdout"]["worker_seeds"]) == {cfg.eval.seed + i for i in range(cfg.n_envs)}
    assert train_seeds.isdisjoint(held_seeds)
    assert all(s in TRAINING_SEEDS for s in train_seeds) and all(s in VALIDATION_SEEDS for s in held_seeds)
    # other games: the held-out set is no copy of (a part of) the training decisions
    assert not np.array_equal(held.observations[:20], train_demos.observations[:20])
    assert report["holdout"]["decisions"] == len(held.actions) and report["holdout"]["games"] == held.games


def test_score_is_the_greedy_accuracy_and_masked_cross_entropy_and_changes_nothing():
    import torch

    cfg = config_from_dict(tiny_config_dict(ppo__net_arch=[16, 16]))
    venv = make_vec_env(cfg, [])
    try:
        model = build_model(cfg, venv, Path("/nonexistent"))
    finally:
        venv.close()
    demos = collect(cardiceo_factory(), "heuristic", 60, cfg.ppo.gamma, seed=4)
    policy = model.policy
    policy.set_training_mode(True)
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    figures = score(policy, demos)
    assert policy.training, "the training mode is restored"
    assert all(torch.equal(before[k], v) for k, v in policy.state_dict().items())
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(demos.observations), action_masks=torch.as_tensor(demos.masks))
        probs = dist.distribution.probs.numpy()
    assert (probs[~demos.masks] < 1e-6).all(), "illegal actions carry no probability"
    expected_accuracy = float(np.mean(probs.argmax(axis=1) == demos.actions))
    expected_loss = float(-np.mean(np.log(probs[np.arange(len(demos.actions)), demos.actions])))
    assert figures["holdout_accuracy"] == pytest.approx(expected_accuracy)
    assert figures["holdout_loss"] == pytest.approx(expected_loss, rel=1e-4)


@pytest.mark.parametrize(
    ("imitation", "key"),
    [
        ({"teacher": "random"}, "imitation.teacher"),
        ({"teacher": "heuristic", "steps": 0}, "imitation.steps"),
        ({"teacher": "heuristic", "epochs": 0}, "imitation.epochs"),
        ({"teacher": "heuristic", "learning_rate": -1}, "imitation.learning_rate"),
        ({"teacher": "heuristic", "value_coef": -0.5}, "imitation.value_coef"),
        ({"teacher": "heuristic", "step": 10}, "imitation.step"),
        ({"teacher": "heuristic", "holdout_steps": -1}, "imitation.holdout_steps"),
        ({"teacher": "heuristic", "holdout_steps": 2.5}, "imitation.holdout_steps"),
        ({"teacher": "heuristic", "holdout_steps": "many"}, "imitation.holdout_steps"),
        ({"teacher": "heuristic", "holdout_steps": True}, "imitation.holdout_steps"),
    ],
)
def test_bad_imitation_settings_name_the_key(imitation: dict, key: str):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        config_from_dict(tiny_config_dict(imitation=imitation))


def test_holdout_steps_default_and_seed_range_checks():
    assert config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic"})).imitation.holdout_steps == 0
    ok = config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic", "holdout_steps": 100}))
    assert ok.imitation.holdout_steps == 100
    held_out = {"teacher": "heuristic", "holdout_steps": 100}
    # (seeds near 2**63 are multiples of 2048 here: the config reads integers through a float)
    many = {"n_envs": 4096, "vec_env": "subproc"}
    # held-out worker 4095 (eval.seed + 4095) would leave the validation seeds
    near_end = {"seed": VALIDATION_SEEDS.stop - 2048, "games": 1, "final_games": 0}
    with pytest.raises(ConfigError, match=r"imitation\.holdout_steps: .*validation seeds"):
        config_from_dict(tiny_config_dict(imitation=held_out, eval=near_end, **many))
    # training worker 2048 (seed + 2048 = 2**63) would be held-out worker 0's seed (eval.seed = 2**63)
    with pytest.raises(ConfigError, match=r"imitation\.holdout_steps: .*apart from the training"):
        config_from_dict(tiny_config_dict(imitation=held_out, seed=TRAINING_SEEDS.stop - 2048, **many))
    # without a held-out set those seeds are fine
    config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic"}, seed=TRAINING_SEEDS.stop - 2048, **many))
    config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic"}, eval=near_end, **many))


def test_a_dagger_round_plays_the_learner_and_records_the_teachers_labels():
    """``collect`` with a learner network: the learner's actions are played, the teacher's are recorded."""
    from ice_envs.agents.ppo_agent import PolicyNet
    from ice_envs.agents.spec import load_agent
    from ice_envs.core.agent import make_view

    factory = cardiceo_factory()
    env = factory()
    n_obs, n_actions = env.observation_space.shape[0], env.action_space.n
    # a learner that plays the lowest legal action (a bias falling by 60 per id: the rest has p < e**-60)
    lowest = PolicyNet(
        (np.zeros((n_actions, n_obs), dtype=np.float32),),
        (np.arange(n_actions, dtype=np.float32) * -60.0,),
    )
    demos = collect(factory, "heuristic", 120, 0.99, seed=6, learner=lowest)
    again = collect(factory, "heuristic", 120, 0.99, seed=6, learner=lowest)
    np.testing.assert_array_equal(demos.observations, again.observations)
    np.testing.assert_array_equal(demos.actions, again.actions)
    # replay: the env follows the lowest legal action, and each row's label is the teacher's choice there
    teacher = load_agent("heuristic", env.game, seed=6, num_players=env.num_players)
    rng = np.random.default_rng(6)
    obs, _ = env.reset(seed=6)
    row = differs = 0
    while row < len(demos.actions):
        teacher.reset(int(rng.integers(2**63 - 1)))
        done = False
        while not done:
            mask = env.action_masks()
            np.testing.assert_array_equal(demos.observations[row], obs)
            np.testing.assert_array_equal(demos.masks[row], mask)
            view = make_view(env.raw, env.seat, rng)
            label = int(teacher.act({"observation": obs, "action_mask": mask.astype(np.int8)}, view))
            assert demos.actions[row] == label
            played = int(np.flatnonzero(mask)[0])
            differs += played != label
            obs, _, terminated, truncated, _ = env.step(played)
            done = terminated or truncated
            row += 1
        if row < len(demos.actions):
            obs, _ = env.reset()
    assert row == len(demos.actions) and differs > 0


def test_dagger_rounds_aggregate_and_refit_reproducibly(tmp_path: Path):
    import torch

    keys = {"dagger_rounds": 2, "dagger_steps": 120, "dagger_epochs": 2, "holdout_steps": 80}
    policy_a, report_a, _ = tiny_warm_start(tmp_path / "a", **keys)
    policy_b, report_b, _ = tiny_warm_start(tmp_path / "b", **keys)
    a, b = policy_a.state_dict(), policy_b.state_dict()
    assert all(torch.equal(a[key], b[key]) for key in a), "the same config and seed give the same weights"
    cfg = config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic", "steps": 200, "epochs": 2, **keys}))
    rounds = report_a["dagger"]
    assert [r["round"] for r in rounds] == [1, 2]
    total = report_a["decisions"]
    seeds = {cfg.seed + i for i in range(cfg.n_envs)}
    for r, r_b in zip(rounds, report_b["dagger"], strict=True):
        assert r["decisions"] >= 120 and 0 <= r["learner_wins"] <= r["games"]
        assert 0.0 <= r["on_policy_accuracy"] <= 1.0 and r["on_policy_loss"] >= 0.0
        total += r["decisions"]
        assert r["aggregate_decisions"] == total
        assert len(r["epochs"]) == 2 and all("holdout_accuracy" in e for e in r["epochs"])
        round_seeds = set(r["worker_seeds"])
        assert round_seeds == {cfg.seed + r["round"] * cfg.n_envs + i for i in range(cfg.n_envs)}
        assert round_seeds.isdisjoint(seeds) and all(s in TRAINING_SEEDS for s in round_seeds)
        seeds |= round_seeds
        assert {k: v for k, v in r.items() if not k.endswith("_seconds")} == {
            k: v for k, v in r_b.items() if not k.endswith("_seconds")
        }
    # without rounds the report has no DAgger entry
    _, plain, _ = tiny_warm_start(tmp_path / "c")
    assert "dagger" not in plain


def test_dagger_settings_resolve_and_are_checked():
    im = config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic", "steps": 300, "epochs": 4})).imitation
    assert (im.dagger_rounds, im.dagger_steps, im.dagger_epochs) == (0, 300, 4)
    for bad, key in (
        ({"dagger_rounds": -1}, "imitation.dagger_rounds"),
        ({"dagger_rounds": 1.5}, "imitation.dagger_rounds"),
        ({"dagger_steps": 0}, "imitation.dagger_steps"),
        ({"dagger_epochs": 0}, "imitation.dagger_epochs"),
    ):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic", **bad}))
    # round 1's workers (seed + 4096 + i) would leave the training seeds; without rounds the same seeds are fine
    many = {"n_envs": 4096, "vec_env": "subproc", "seed": TRAINING_SEEDS.stop - 6144}
    with pytest.raises(ConfigError, match=r"imitation\.dagger_rounds: .*training seeds"):
        config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic", "dagger_rounds": 1}, **many))
    config_from_dict(tiny_config_dict(imitation={"teacher": "heuristic"}, **many))


def test_a_run_with_dagger_rounds_records_them(tmp_path: Path):
    from ice_envs.train.plot_curves import read_scalars

    keys = {"teacher": "heuristic", "steps": 200, "epochs": 2, "dagger_rounds": 2, "dagger_steps": 100}
    run = train(config_from_dict(tiny_config_dict(imitation=keys)), tmp_path, echo=False).run_dir
    im = json.loads((run / "meta.json").read_text())["imitation"]
    assert [r["round"] for r in im["dagger"]] == [1, 2] and all(len(r["epochs"]) == 2 for r in im["dagger"])
    scalars = read_scalars(run / "tb" / "imitation")
    agreement = [v for _, v in scalars["imitation/dagger_on_policy_accuracy"]]
    assert agreement == pytest.approx([r["on_policy_accuracy"] for r in im["dagger"]])
    assert [step for step, _ in scalars["imitation/accuracy"]] == [1, 2, 3, 4, 5, 6], "the rounds' epochs continue"
    assert "2 DAgger rounds" in (run / "evaluation.md").read_text()
