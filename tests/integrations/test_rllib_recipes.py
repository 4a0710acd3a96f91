"""The RLlib recipes of docs/rllib.md run (smoke budgets, one local Ray for the module)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

RECIPES = Path(__file__).resolve().parents[2] / "docs" / "recipes"


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def recipe(name: str):
    spec = importlib.util.spec_from_file_location(f"recipe_{name}", RECIPES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["rllib_local", "rllib_cluster"])
def test_recipe_runs(local_ray, tmp_path, name):
    line = recipe(name).main(["--smoke", "--out", str(tmp_path)])
    assert line["steps"] >= 400 and line["steps_per_second"] > 0
    assert 0.0 <= line["win_rate_vs_random"] <= 1.0
