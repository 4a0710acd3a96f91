"""The house: one import name, subcommands that a user's own files cannot shadow, one line for a missing extra."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import ice_envs
from ice_envs.cli import build_parser, main
from ice_envs.core.errors import MissingExtraError, require_extra
from ice_envs.core.registry import built_in_games
from ice_envs.evaluation.tournament import evaluate

ROOT = Path(__file__).resolve().parents[1]
SUBCOMMANDS = ("list", "demo", "evaluate", "replay", "play", "train")


def _run(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_the_wheel_installs_one_top_level_name(tmp_path: Path):
    """``top_level.txt`` of the built wheel names only ``ice_envs``; every folder is inside it."""
    source = tmp_path / "src"  # a copy, so that the build leaves nothing in the checkout
    shutil.copytree(
        ROOT, source, ignore=shutil.ignore_patterns(".*", "build", "runs", "*.egg-info", "__pycache__", "*venv*")
    )
    out = _run(
        [
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-v",  # the build backend's own output (pip hides it otherwise), where setuptools warns
            "-w",
            str(tmp_path),
            str(source),
        ],
        cwd=tmp_path,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    # no setuptools warning caused by the project's packaging (license table, undeclared data folders)
    log = out.stdout + out.stderr
    assert "running bdist_wheel" in log  # the backend's output is there to check
    for sign in ("Warning", "deprecated", "would be ignored", "!!"):
        assert sign not in log, [line for line in log.splitlines() if sign in line]
    (wheel,) = tmp_path.glob("ice_envs-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        assert archive.read(top_level).decode().split() == ["ice_envs"]
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        declared = archive.read(entry_points).decode()
    roots = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert roots == {"ice_envs"}, roots
    for module in ("ice_envs/agents/spec.py", "ice_envs/train/run.py", "ice_envs/benchmarks/throughput.py"):
        assert module in names
    assert "ice_envs/train/configs/cardiceo_ppo.yaml" in names and "ice_envs/cardiceo/smoke.yaml" in names
    assert "ice_envs/icebergs/maps/default.txt" in names and "ice_envs/tip_of_the_diceberg/data/catalog.json" in names
    assert "ice_envs/benchmarks/configs/baselines.yaml" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "[ice_envs.games]" in declared and all(f"{g} = ice_envs.{g}.spec:SPEC" in declared for g in built_in_games())


def test_a_users_own_train_agents_and_benchmarks_files_shadow_nothing(tmp_path: Path):
    """From a folder holding ``train.py``, ``agents.py`` and ``benchmarks.py`` of a user's own, every subcommand works."""
    for name in ("train", "agents", "benchmarks"):
        (tmp_path / f"{name}.py").write_text("raise SystemExit('the user file was imported')\n")
    out = _run(["-m", "ice_envs.cli", "--help"], tmp_path)
    assert out.returncode == 0, out.stderr
    for command in SUBCOMMANDS:
        assert command in out.stdout
        sub = _run(["-m", "ice_envs.cli", command, "--help"], tmp_path)
        assert sub.returncode == 0 and "usage:" in sub.stdout, (command, sub.stderr)
    config = ice_envs.get_spec("cardiceo").smoke_config_path()
    printed = _run(["-m", "ice_envs.cli", "train", str(config), "--print-config"], tmp_path)
    assert printed.returncode == 0 and "cardiceo" in printed.stdout, printed.stderr
    report = tmp_path / "eval"
    args = ["evaluate", "cardiceo", "--players", "2", "--agents", "heuristic,random", "--games", "4", "--no-progress"]
    played = _run(["-m", "ice_envs.cli", *args, "--out", str(report)], tmp_path)
    assert played.returncode == 0, played.stderr
    assert json.loads((report / "evaluation.json").read_text())["games"] == 4


def test_the_parser_has_every_subcommand():
    actions = [a for a in build_parser()._subparsers._group_actions if a.choices]  # type: ignore[union-attr]
    assert set(SUBCOMMANDS) <= set(actions[0].choices)


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` look uninstalled to :func:`importlib.util.find_spec`."""
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name: str, *args, **kwargs):
        return None if name in modules else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_require_extra_names_the_pip_install(monkeypatch: pytest.MonkeyPatch):
    require_extra("eval", "x", "numpy")  # installed: nothing happens
    _hide(monkeypatch, "openskill")
    with pytest.raises(
        MissingExtraError,
        match=r"needs the 'eval' extra \(openskill is not installed\): pip install 'ice-envs\[eval\]'",
    ):
        require_extra("eval", "ice-envs evaluate", "numpy", "openskill")


@pytest.mark.parametrize(
    ("hidden", "argv", "extra"),
    [
        ("openskill", ["evaluate", "cardiceo", "--players", "2", "--agents", "random,random", "--games", "2"], "eval"),
        ("torch", ["train", "CONFIG"], "train"),
        ("yaml", ["train", "CONFIG", "--print-config"], "train"),
    ],
)
def test_a_missing_extra_is_one_line_before_any_work(
    hidden: str,
    argv: list[str],
    extra: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    tmp_path: Path,
):
    import ice_envs.evaluation.tournament as tournament

    def no_games(*args, **kwargs):
        raise AssertionError("games were played before the missing extra was reported")

    monkeypatch.setattr(tournament, "run_games", no_games)
    _hide(monkeypatch, hidden)
    argv = [str(ice_envs.get_spec("cardiceo").smoke_config_path()) if a == "CONFIG" else a for a in argv]
    if argv[0] == "evaluate":
        argv += ["--out", str(tmp_path / "eval")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"pip install 'ice-envs[{extra}]'" in err[0] and hidden in err[0], err


def test_win_rates_are_the_games_outcome_in_score_mode_too():
    """One outcome: evaluate's win rates are the same with score rewards as with outcome rewards."""
    by_mode = {}
    for mode in ("outcome", "score"):
        summary, results = evaluate(
            "cardiceo", 2, "heuristic,random", games=20, seed=3, options={"reward_mode": mode}, progress=False
        )
        shares = np.array([r["win_share"] for r in results])
        assert np.allclose(shares.sum(axis=1), 1.0)  # cardiceo always has one winner
        by_mode[mode] = [(row["wins"], row["win_rate"]) for row in summary["per_agent"]]
    assert by_mode["score"] == by_mode["outcome"]
