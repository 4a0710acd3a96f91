"""Every recipe of ``docs/integrations.md`` runs, with its tiny budget, as a user runs it.

Each recipe is a script in ``docs/recipes/``; it runs here in a subprocess (``--smoke``, in a
temporary folder) and must print its JSON summary as its last line. A recipe is skipped only when
the library it shows is not installed (the ``integrations`` extra); RLlib's recipes
(``rllib_*.py``) have tests of their own. A test also checks that every recipe file has a test
here and a section in ``docs/integrations.md``, so the docs cannot name a recipe nobody runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RECIPES = REPO / "docs" / "recipes"
TIMEOUT = 600
#: recipe -> the modules it needs beyond the core install
NEEDS = {
    "sb3_maskable_ppo.py": ("torch", "stable_baselines3", "sb3_contrib"),
    "cleanrl_masked_ppo.py": ("torch",),
    "tianshou_dqn.py": ("torch", "tianshou"),
    "pettingzoo_registry.py": (),
    "supersuit_wrappers.py": ("supersuit",),
}


def run_recipe(name: str, tmp_path: Path) -> dict:
    missing = [m for m in NEEDS[name] if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{name} needs {', '.join(missing)} (pip install 'ice-envs[integrations]')")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["ICE_ENVS_RECIPE_SMOKE"] = "1"
    proc = subprocess.run(
        [sys.executable, str(RECIPES / name), "--smoke"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, f"{name} failed\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_recipe_has_a_test_and_a_section():
    mine = sorted(p.name for p in RECIPES.glob("*.py") if not p.name.startswith("rllib_"))
    assert mine == sorted(NEEDS)
    doc = (REPO / "docs" / "integrations.md").read_text()
    for name in [*NEEDS, "rllib_local.py", "rllib_cluster.py"]:
        assert f"docs/recipes/{name}" in doc, name


def test_stable_baselines3_maskable_ppo(tmp_path):
    out = run_recipe("sb3_maskable_ppo.py", tmp_path)
    assert out["steps"] >= 256 and 0.0 <= out["win_rate_vs_heuristic"] <= 1.0
    evaluation = tmp_path / out["evaluation"]
    report = json.loads(evaluation.read_text())
    assert report["game"] == "cardiceo" and report["games"] == out["games"]
    assert set(out["evaluated_win_rate"]) == {"ppo:cardiceo_maskable_ppo.zip", "random"}


def test_cleanrl_masked_ppo(tmp_path):
    out = run_recipe("cleanrl_masked_ppo.py", tmp_path)
    assert out["steps"] >= 256 and out["updates"] >= 2 and 0.0 <= out["win_rate_vs_random"] <= 1.0


def test_tianshou_dqn(tmp_path):
    out = run_recipe("tianshou_dqn.py", tmp_path)
    assert out["env_steps"] >= 200 and out["test_episodes"] == 10 and 0.0 <= out["win_rate_vs_random"] <= 1.0


def test_pettingzoo_registry_and_test_utilities(tmp_path):
    out = run_recipe("pettingzoo_registry.py", tmp_path)
    assert out["passed"] == {"ice_envs/cardiceo-v1 2p": ["api_test", "seed_test", "render_test"]}


def test_supersuit_wrappers(tmp_path):
    out = run_recipe("supersuit_wrappers.py", tmp_path)
    assert out["passed"] == {
        "cardiceo": ["clip_reward_v0", "reward_lambda_v0", "observation_lambda_v0", "nan_random_v0"]
    }
    assert out["clipped_final_rewards"] == [-0.5, 0.0, 0.5]
