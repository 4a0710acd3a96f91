"""Whole runs: determinism, exact resume, the run directory, the smoke configs and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import ice_envs
from ice_envs.train.config import ConfigError, config_from_dict, load_config
from ice_envs.train.run import resume, train
from tests.train.conftest import tiny_config_dict

pytest.importorskip("sb3_contrib")

CONFIGS = Path(__file__).resolve().parents[2] / "train" / "configs"


def policy_params(path: Path) -> dict:
    from stable_baselines3.common.save_util import load_from_zip_file

    _, params, _ = load_from_zip_file(path, device="cpu")
    return {**{f"policy.{k}": v for k, v in params["policy"].items()}, "optimizer": params["policy.optimizer"]}


def assert_same_params(a: Path, b: Path) -> None:
    import torch

    pa, pb = policy_params(a), policy_params(b)
    for key in pa:
        if key == "optimizer":
            for s in pa[key]["state"]:
                for name, value in pa[key]["state"][s].items():
                    assert torch.equal(value, pb[key]["state"][s][name]), (key, s, name)
        else:
            assert torch.equal(pa[key], pb[key]), key


def metrics(run_dir: Path) -> dict:
    from ice_envs.train.plot_curves import read_scalars

    return {tag: v for tag, v in read_scalars(run_dir).items() if not tag.startswith("time/")}


def evaluations(run_dir: Path) -> list[dict]:
    rows = [json.loads(line) for line in (run_dir / "evaluations.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("checkpoint")
        for r in row["results"].values():
            r.pop("command")
    return rows


def final_results(run_dir: Path) -> dict:
    report = json.loads((run_dir / "evaluation.json").read_text())
    return {k: {kk: vv for kk, vv in v.items() if kk != "command"} for k, v in report["results"].items()}


def test_run_directory(tiny_run: Path):
    cfg = load_config(tiny_run / "config.yaml")
    assert cfg == config_from_dict(tiny_config_dict(curves=True))
    meta = json.loads((tiny_run / "meta.json").read_text())
    assert meta["seed"] == 3 and meta["torch_threads"] == 1
    assert {"torch", "stable-baselines3", "sb3-contrib", "ice-envs", "numpy"} <= set(meta["versions"])
    assert "commit" in meta["git"]
    session = meta["sessions"][0]
    assert session["command"] == "pytest tiny" and session["timesteps"] == 256 and session["steps_per_second"] > 0
    assert list((tiny_run / "tb").rglob("events.out.tfevents.*"))
    assert sorted(p.name for p in (tiny_run / "checkpoints").iterdir()) == [
        "step_000000000128.state.json",
        "step_000000000128.zip",
        "step_000000000256.state.json",
        "step_000000000256.zip",
    ]
    assert (tiny_run / "final.zip").is_file() and (tiny_run / "final.npz").is_file()
    assert [p.name for p in sorted((tiny_run / "pool").glob("snap_*.npz"))][0] == "snap_000000000000.npz"
    report = json.loads((tiny_run / "evaluation.json").read_text())
    vs_random = report["results"]["random"]
    assert vs_random["games"] == 16 and 0 <= vs_random["win_rate_ci95"][0] <= vs_random["win_rate"]
    assert vs_random["command"].startswith("ice-envs evaluate cardiceo --players 2 --agents ppo:")
    assert "--option hand_size=5" in vs_random["command"]
    assert report["timesteps"] == 256 and report["self_play"]["checks"] == 1
    assert [row["step"] for row in evaluations(tiny_run)] == [0, 128]
    assert (tiny_run / "evaluation.md").read_text().startswith("# cardiceo, 2 players")
    assert (tiny_run / "curves.png").stat().st_size > 10_000


def test_tensorboard_scalars(tiny_run: Path):
    m = metrics(tiny_run)
    for tag in (
        "eval/win_rate_vs_random",
        "eval/win_rate_vs_random_ci_low",
        "eval/win_rate_vs_random_ci_high",
        "eval/mean_score_vs_random",
        "eval/game_length_vs_random",
        "eval/random_baseline",
        "selfplay/pool_size",
        "selfplay/promotions",
        "selfplay/win_rate_vs_latest",
        "games/win_rate",
        "rollout/ep_rew_mean",
        "rollout/ep_len_mean",
        "rollout/success_rate",
        "train/entropy_loss",
        "final/win_rate_vs_random",
    ):
        assert tag in m, tag
    assert [step for step, _ in m["eval/win_rate_vs_random"]] == [0, 128, 256]
    for (_, lo), (_, mid), (_, hi) in zip(
        m["eval/win_rate_vs_random_ci_low"], m["eval/win_rate_vs_random"], m["eval/win_rate_vs_random_ci_high"]
    ):
        assert lo <= mid <= hi


def test_same_config_and_seed_give_identical_weights_and_metrics(tiny_run: Path, tmp_path: Path):
    again = train(config_from_dict(tiny_config_dict()), tmp_path / "tiny-b", echo=False).run_dir
    # tiny_run drew its curves, this one did not (curves: false): a picture and nothing else between them
    assert (tiny_run / "curves.png").is_file() and not (again / "curves.png").exists()
    assert_same_params(tiny_run / "final.zip", again / "final.zip")
    assert metrics(tiny_run) == metrics(again)
    assert evaluations(tiny_run) == evaluations(again)
    assert final_results(tiny_run) == final_results(again)
    # not vacuous: training moved the weights, and another seed trains differently
    with pytest.raises(AssertionError):
        assert_same_params(tiny_run / "checkpoints" / "step_000000000128.zip", tiny_run / "final.zip")
    other = train(config_from_dict(tiny_config_dict(seed=4)), tmp_path / "tiny-seed4", echo=False).run_dir
    with pytest.raises(AssertionError):
        assert_same_params(tiny_run / "final.zip", other / "final.zip")


def test_torch_distribution_checks_change_nothing_but_the_time(tiny_run: Path, tmp_path: Path, monkeypatch):
    """A run trains without torch.distributions' argument checks (train.run.unchecked_distributions);
    with them it trains the same weights, metrics and evaluations, and the checks are back afterwards."""
    import contextlib

    import torch

    from ice_envs.train import run as run_module

    unchecked = run_module.unchecked_distributions
    assert torch.distributions.Distribution._validate_args  # checked outside a run (torch's default)
    monkeypatch.setattr(run_module, "unchecked_distributions", contextlib.nullcontext)
    checked = train(config_from_dict(tiny_config_dict()), tmp_path / "checked", echo=False).run_dir
    assert_same_params(tiny_run / "final.zip", checked / "final.zip")
    assert metrics(tiny_run) == metrics(checked)
    assert evaluations(tiny_run) == evaluations(checked)
    with unchecked():
        assert not torch.distributions.Distribution._validate_args
    assert torch.distributions.Distribution._validate_args


def test_subproc_workers_train_the_same_weights_as_dummy(tiny_run: Path, tmp_path: Path):
    """Two SubprocVecEnv workers: the same weights, metrics and evaluations run after run, and as the
    in-process DummyVecEnv with the same config (so a config may pick either for speed)."""
    config = tiny_config_dict(vec_env="subproc", opponents__mix={"random": 0.4, "heuristic": 0.2, "self_play": 0.4})
    first = train(config_from_dict(config), tmp_path / "subproc-a", echo=False).run_dir
    second = train(config_from_dict(config), tmp_path / "subproc-b", echo=False).run_dir
    dummy = train(config_from_dict({**config, "vec_env": "dummy"}), tmp_path / "dummy", echo=False).run_dir
    for other in (second, dummy):
        assert_same_params(first / "final.zip", other / "final.zip")
        assert metrics(first) == metrics(other)
        assert evaluations(first) == evaluations(other)
        assert final_results(first) == final_results(other)
    with pytest.raises(AssertionError):  # not vacuous: the heuristic seats changed the training
        assert_same_params(tiny_run / "final.zip", first / "final.zip")


def test_resume_continues_exactly(tiny_run: Path, tmp_path: Path):
    half = train(config_from_dict(tiny_config_dict(total_timesteps=128)), tmp_path / "half", echo=False).run_dir
    with pytest.raises(ConfigError, match="is at 128 steps, total_timesteps is 128"):
        resume(half, echo=False)
    with pytest.raises(ConfigError, match="--set ppo.n_epochs: cannot be changed when resuming"):
        resume(half, ["ppo.n_epochs=3"], echo=False)
    resume(half, ["total_timesteps=256"], command="resume", echo=False)
    assert_same_params(tiny_run / "final.zip", half / "final.zip")
    assert final_results(tiny_run) == final_results(half)
    assert evaluations(tiny_run) == evaluations(half)[:1] + evaluations(half)[1:]
    full, resumed = metrics(tiny_run), metrics(half)
    for tag in ("rollout/ep_rew_mean", "games/win_rate", "train/value_loss", "eval/win_rate_vs_random"):
        assert full[tag] == resumed[tag], tag
    meta = json.loads((half / "meta.json").read_text())
    assert [s["command"] for s in meta["sessions"]] == [meta["sessions"][0]["command"], "resume"]
    assert meta["sessions"][1]["resumed_from"].endswith("step_000000000128.zip")
    # a specific checkpoint resumes too (its run directory is found from it)
    with pytest.raises(ConfigError, match="neither a run directory nor a checkpoint"):
        resume(tmp_path / "nowhere", echo=False)


def test_a_resumed_run_reports_the_training_time_of_every_session(tiny_run: Path, tmp_path: Path):
    """A session stopped after a checkpoint counts to that checkpoint; the final report adds it to the last one's."""
    import shutil

    meta = json.loads((tiny_run / "meta.json").read_text())
    first = meta["sessions"][0]
    assert first["last_checkpoint"]["timesteps"] == 128  # recorded when the scheduled checkpoint was written
    assert 0 < first["last_checkpoint"]["wall_seconds"] < first["wall_seconds"]
    run = Path(shutil.copytree(tiny_run, tmp_path / "run"))
    # make the session look stopped after its checkpoint at 128 steps
    for key in ("finished", "timesteps", "wall_seconds", "eval_seconds", "steps_per_second"):
        del first[key]
    (run / "meta.json").write_text(json.dumps(meta))
    resume(run / "checkpoints" / "step_000000000128.zip", command="resume", echo=False)
    report = json.loads((run / "evaluation.json").read_text())
    earlier = report["earlier_sessions"]
    assert earlier["sessions"] == earlier["counted"] == 1 and earlier["unknown"] == 0
    assert earlier["wall_seconds"] == first["last_checkpoint"]["wall_seconds"]
    total = report["train_seconds"] + earlier["wall_seconds"] - earlier["eval_seconds"]
    assert f"with the 1 before it, {total:.0f} s of training in all." in (run / "evaluation.md").read_text()
    # a session that recorded nothing is named as unknown
    from ice_envs.train.run import earlier_sessions

    assert earlier_sessions([{"command": "x"}])["unknown"] == 1
    # and so does an entry edited into something else, instead of failing the end of the run
    bad = [
        3,
        {"finished": "x", "wall_seconds": "long"},
        {"last_checkpoint": [1]},
        {"finished": "x", "wall_seconds": 2.0},
    ]
    assert earlier_sessions(bad) == {
        "sessions": 4,
        "counted": 1,
        "unknown": 3,
        "wall_seconds": 2.0,
        "eval_seconds": 0.0,
    }
    # a run of one session says nothing of the kind
    assert json.loads((tiny_run / "evaluation.json").read_text())["earlier_sessions"] is None
    assert "A resumed run" not in (tiny_run / "evaluation.md").read_text()


def test_final_evaluation_command_reproduces_the_report(tiny_run: Path, tmp_path: Path, capsys):
    import shlex

    from ice_envs.cli import main as ice_main

    report = json.loads((tiny_run / "evaluation.json").read_text())["results"]["random"]
    argv = shlex.split(report["command"])
    assert argv[0] == "ice-envs"
    assert ice_main([*argv[1:], "--out", str(tmp_path / "eval"), "--no-progress"]) == 0
    capsys.readouterr()
    again = json.loads((tmp_path / "eval" / "evaluation.json").read_text())["per_agent"][0]
    assert again["win_rate"] == report["win_rate"] and again["win_rate_ci95"] == report["win_rate_ci95"]


def test_run_directory_is_never_overwritten(tiny_run: Path):
    with pytest.raises(ConfigError, match="is not empty; resume it with --resume"):
        train(config_from_dict(tiny_config_dict()), tiny_run, echo=False)


def test_linear_learning_rate_schedule(tmp_path: Path):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ice_envs.train.run import build_model
    from ice_envs.wrappers.single_agent import SingleAgentEnv

    cfg = config_from_dict(tiny_config_dict(ppo__lr_schedule="linear", ppo__activation="relu"))
    model = build_model(cfg, DummyVecEnv([lambda: SingleAgentEnv("cardiceo", 2)]), tmp_path)
    assert model.lr_schedule(1.0) == pytest.approx(3e-4) and model.lr_schedule(0.5) == pytest.approx(1.5e-4)
    assert model.policy.activation_fn.__name__ == "ReLU"


def test_plot_curves(tiny_run: Path, tmp_path: Path):
    from ice_envs.train.plot_curves import main

    out = tmp_path / "curves.png"
    assert main([str(tiny_run), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_seeds_draws_several_runs_with_a_band(tiny_run: Path, tmp_path: Path):
    from ice_envs.train.plot_curves import main, seed_band

    mean, lo, hi = seed_band([0.3, 0.4, 0.5])  # t(0.975, 2) = 4.3027 (tables)
    assert mean == pytest.approx(0.4) and hi - mean == pytest.approx(4.3027 * 0.1 / 3**0.5, rel=1e-4)
    assert lo == pytest.approx(2 * mean - hi)
    _, _, hi12 = seed_band([0.3, 0.5] * 6)  # 11 degrees of freedom: 2.2010, not the normal 1.96
    assert hi12 - 0.4 == pytest.approx(2.2010 * (0.12 / 11) ** 0.5 / 12**0.5, rel=1e-4)
    other = train(config_from_dict(tiny_config_dict(seed=4)), tmp_path / "tiny-seed4", echo=False).run_dir
    out = tmp_path / "seeds.png"
    assert main([str(tiny_run), str(other), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit):  # several runs need --out
        main([str(tiny_run), str(other)])


def smoke_configs() -> list:
    """The smoke config of every discovered game that has one (named by its spec)."""
    out = []
    for name, spec in ice_envs.GAMES.items():
        path = spec.smoke_config_path()
        if path is not None:
            assert yaml.safe_load(path.read_text())["game"]["name"] == name, path
            out.append(pytest.param(path, id=f"{name}_smoke"))
    return out


@pytest.mark.parametrize("config", smoke_configs())
def test_smoke_config_runs_end_to_end(config: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    """CI runs every shipped smoke config through the command line (each well under a minute)."""
    from ice_envs.train.cli import main

    run_dir = tmp_path / "smoke"
    assert main([str(config), "--run-dir", str(run_dir), "--set", f"out_dir={tmp_path}"]) == 0
    assert "[train] done" in capsys.readouterr().out
    report = json.loads((run_dir / "evaluation.json").read_text())
    assert report["results"]["random"]["games"] == load_config(config).eval.final_games
    assert "heuristic" in report["results"] or any("heuristic" in n for n in report["notes"])
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["sessions"][0]["command"].startswith(f"python -m ice_envs.train {config}")


def test_command_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture):
    from ice_envs.cli import build_parser
    from ice_envs.cli import main as ice_main
    from ice_envs.train.cli import main

    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(tiny_config_dict(ppo__learning_rate=0)))
    assert main([str(bad)]) == 2
    assert "ppo.learning_rate: must be > 0" in capsys.readouterr().err
    assert ice_main(["train", str(bad), "--set", "ppo.learning_rat=0.1"]) == 2
    assert "ppo.learning_rat: unknown key (did you mean 'learning_rate'?)" in capsys.readouterr().err
    assert main([]) == 2
    assert "a config file is required" in capsys.readouterr().err
    assert main([str(bad), "--resume", str(tmp_path)]) == 2
    assert "not both" in capsys.readouterr().err
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(tiny_config_dict()))
    assert main([str(good), "--print-config", "--set", "seed=9"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["seed"] == 9
    args = build_parser().parse_args(["train", "cfg.yaml", "--set", "seed=1", "--set", "n_envs=2"])
    assert args.config == "cfg.yaml" and args.overrides == ["seed=1", "n_envs=2"]


def test_plot_curves_of_a_league_run_draws_fixed_opponents_and_the_league(tmp_path: Path):
    """A league run logs a win rate per seat combination and per snapshot (hundreds of tags): the training-games
    panel keeps all games and each fixed opponent, and the fourth panel shows the league's members."""
    from torch.utils.tensorboard import SummaryWriter

    from ice_envs.train.plot_curves import _fixed_opponent, main

    assert _fixed_opponent("games/win_rate") and _fixed_opponent("games/win_rate_vs_greedy")
    assert not _fixed_opponent("games/win_rate_vs_greedy|random|snap_000000014336")
    assert not _fixed_opponent("games/win_rate_vs_snap_000000014336")
    writer = SummaryWriter(str(tmp_path / "run" / "tb"))
    for step in (0, 1000, 2000):
        writer.add_scalar("games/win_rate", 0.3, step)
        writer.add_scalar("games/win_rate_vs_greedy", 0.2, step)
        writer.add_scalar("games/win_rate_vs_greedy|random|snap_000000001000", 0.5, step)
        writer.add_scalar("league/size", 3 + step // 1000, step)
        writer.add_scalar("league/gate_promotions", step // 1000, step)
        writer.add_scalar("league/greedy/win_rate", 0.25, step)
        writer.add_scalar("league/snap_000000001000/win_rate", 0.5, step)
    writer.close()
    out = tmp_path / "curves.png"
    assert main([str(tmp_path / "run"), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_recorded_torch_kernels_follow_aten_cpu_capability() -> None:
    """``meta.json`` names the kernels torch really uses: forced to the portable ones, it says so."""
    import os
    import subprocess
    import sys

    code = "from ice_envs.train.run import torch_cpu_kernels; print(torch_cpu_kernels())"
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "DEFAULT"
