"""Every shipped training config writes to a run directory of its own, named after its game."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted([*ROOT.glob("ice_envs/*/smoke.yaml"), *ROOT.glob("train/configs/*.yaml")])


def test_every_shipped_config_has_its_own_run_directory_named_after_its_game(tmp_path, monkeypatch):
    pytest.importorskip("yaml")
    from ice_envs.train.config import load_config
    from ice_envs.train.run import new_run_dir

    monkeypatch.chdir(tmp_path)  # no run directory exists yet: each config's first choice
    assert len(CONFIGS) >= 10
    run_dirs = {}
    for path in CONFIGS:
        cfg = load_config(path)
        run_dir = new_run_dir(cfg)
        assert cfg.game.name in run_dir.name, (path, run_dir)
        assert run_dir not in run_dirs, f"{path} and {run_dirs.get(run_dir)} both write to {run_dir}"
        run_dirs[run_dir] = path
    smoke = {new_run_dir(load_config(p)).name for p in CONFIGS if p.name == "smoke.yaml"}
    assert "cubemelt_smoke-seed0" in smoke and len(smoke) == 5
