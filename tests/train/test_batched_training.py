"""``vec_env: batched``: a training run through the batched engine, from the config, resumable exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ice_envs.train.config import ConfigError, config_from_dict
from tests.train.conftest import tiny_config_dict

BATCHED = {
    "vec_env": "batched",
    "n_envs": 32,
    "ppo__n_steps": 16,
    "ppo__batch_size": 128,
    "opponents__mix": {"random": 1.0},
    "eval__every": 1024,
}


def _cfg(tmp_path: Path, **changes):
    data = tiny_config_dict(**{**BATCHED, "out_dir": str(tmp_path), **changes})
    return config_from_dict(data)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"imitation__teacher": "heuristic"}, r"imitation.workers: must be set with vec_env: batched"),
        ({"opponents__mix": {"random": 0.5, "mcts": 0.5}}, r"opponents.mix"),
    ],
)
def test_what_the_batched_path_cannot_do_is_refused(tmp_path: Path, changes: dict, message: str):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"game__name": "icebergs", "game__players": 2, "game__options": {}},
            r"vec_env: batched needs numba for this game",
        ),
        (
            {"opponents__mix": {"random": 0.5, "heuristic": 0.5}},
            r"opponents.mix: without numba the batched opponents are random only",
        ),
    ],
)
def test_without_numba_the_numpy_engine_plays_random_opponents_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changes: dict, message: str
):
    import ice_envs.core.vector as vector

    monkeypatch.setattr(vector, "compiled_available", lambda: False)
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **changes)


def test_a_batched_run_trains_evaluates_and_resumes_exactly(tmp_path: Path):
    from ice_envs.agents import load_agent
    from ice_envs.train.run import resume, train

    straight = _cfg(tmp_path, name="batched", total_timesteps=2048, checkpoint_every=1024)
    train(straight, tmp_path / "straight", command="test", echo=False)
    first = _cfg(tmp_path, name="batched", total_timesteps=1024, checkpoint_every=1024)
    train(first, tmp_path / "split", command="test", echo=False)
    resume(tmp_path / "split", ["total_timesteps=2048"], command="test", echo=False)
    a, b = ((tmp_path / run / "final.npz").read_bytes() for run in ("straight", "split"))
    assert a == b, "a resumed batched run must give the uninterrupted run's weights"
    report = json.loads((tmp_path / "straight" / "evaluation.json").read_text())
    assert report["results"]["random"]["games"] > 0
    # the agent plays the ordinary (scalar) game: the two engines are the same game
    agent = load_agent(f"ppo:{tmp_path / 'straight' / 'final.npz'}", "cardiceo", num_players=straight.game.players)
    assert agent is not None


def test_a_batched_league_run_draws_members_records_win_rates_and_resumes_exactly(tmp_path: Path):
    from ice_envs.train.run import resume, train

    league = {"fixed": ["random"], "snapshot_every": 512, "max_snapshots": 2}
    changes = {"opponents": {"league": league}, "name": "league", "checkpoint_every": 1024}
    straight = _cfg(tmp_path, **changes, total_timesteps=2048)
    result = train(straight, tmp_path / "straight", command="test", echo=False)
    history = result.report["league"]["history"]
    assert [h["reason"] for h in history][:2] == ["initial", "schedule"]
    stats = result.report["league"]["stats"]  # member -> (wins, games, raw count), from info["opponents"]
    assert stats["random"][2] > 0 and any(v[2] > 0 for k, v in stats.items() if k.startswith("snap_")), stats
    train(_cfg(tmp_path, **changes, total_timesteps=1024), tmp_path / "split", command="test", echo=False)
    resume(tmp_path / "split", ["total_timesteps=2048"], command="test", echo=False)
    a, b = ((tmp_path / run / "final.npz").read_bytes() for run in ("straight", "split"))
    assert a == b, "a resumed batched league run must give the uninterrupted run's weights"


def test_a_batched_run_clones_the_teacher_first(tmp_path: Path):
    from ice_envs.train.run import train

    imitation = {"teacher": "heuristic", "steps": 400, "epochs": 2, "workers": 2}
    cfg = _cfg(tmp_path, name="clone", imitation=imitation, total_timesteps=1024, checkpoint_every=0)
    train(cfg, tmp_path / "clone", command="test", echo=False)
    meta = json.loads((tmp_path / "clone" / "meta.json").read_text())
    assert meta["imitation"]["decisions"] >= 400 and len(meta["imitation"]["epochs"]) == 2


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ppo__learning_rate": float("inf")}, r"ppo.learning_rate: must be a finite number"),
        ({"ppo__clip_range": float("nan")}, r"ppo.clip_range: must be a finite number"),
        ({"opponents__mix": {"random": float("inf")}}, r"opponents.mix.random: must be a finite number"),
        ({"eval__background": True, "eval__workers": 2}, r"eval.background: .* needs eval.workers: 1"),
    ],
)
def test_non_finite_numbers_and_a_background_evaluation_with_workers_are_refused(
    tmp_path: Path, changes: dict, message: str
):
    with pytest.raises(ConfigError, match=message):
        _cfg(tmp_path, **changes)
