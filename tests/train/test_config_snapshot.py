"""Every config in the repository resolves to the values recorded in ``data/resolved_configs.json``.

The fixture holds the resolved config (``cfg.to_dict()``) of every training config the repository ships
(``train/configs/``, the PPO checkpoints' ``config.yaml``, each game's ``smoke.yaml``; the move learners' configs have their own schema, checked in ``tests/agents/test_move_scorer.py``), a few ``--set``
overrides and the tests' tiny config. A change to the schema that changes what any of them means fails
here; regenerate the fixture (``python -m tests.train.test_config_snapshot``) only for a change meant to
alter resolved values, and say so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.train.conftest import tiny_config_dict

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("data") / "resolved_configs.json"

#: Config files with ``--set`` overrides, as a user would run them (paths relative to the repository root).
OVERRIDES: dict[str, tuple[str, list[str]]] = {
    "cardiceo_ppo+numbers": (
        "train/configs/cardiceo_ppo.yaml",
        ["ppo.learning_rate=1e-4", "ppo.net_arch=[128,128]", "seed=7", "eval.seed=9223372036854775809"],
    ),
    "cubemelt_ppo+mappings": (
        "train/configs/cubemelt_ppo.yaml",
        ["backend=sb3", "opponents.mix={random: 1}", "ppo.net_arch={pi: [32], vf: [64, 64]}", "total_timesteps=3e5"],
    ),
    "cardiceo_ppo+imitation": (
        "train/configs/cardiceo_ppo.yaml",
        ["imitation.teacher=heuristic", "imitation.steps=300", "reward_shaping.scale=2"],
    ),
    "cardiceo_rllib_smoke+game": (
        "train/configs/cardiceo_rllib_smoke_ppo.yaml",
        ["model.hidden=[64,64]", "game.players=3", "ppo.grad_clip=null", "total_timesteps=4000"],
    ),
}


def config_files() -> list[str]:
    """Every training config file of the repository, relative to its root."""
    patterns = ("train/configs/*.yaml", "checkpoints/*_ppo/config.yaml", "ice_envs/*/smoke.yaml")
    return sorted(str(p.relative_to(ROOT)) for pattern in patterns for p in ROOT.glob(pattern))


#: Configs given as data (``config_from_dict``), as the tests and the API pass them.
DATA: dict[str, dict[str, Any]] = {
    "tiny": tiny_config_dict(),
    "tiny+dagger": tiny_config_dict(imitation={"teacher": "heuristic", "steps": 300, "dagger_rounds": 1}),
    "tiny+league": tiny_config_dict(opponents={"league": {"fixed": ["random", "greedy"]}}),
}


def cases() -> list[str]:
    """The names of every case: config files, files with overrides, data."""
    return [*config_files(), *OVERRIDES, *DATA]


def resolve(case: str) -> dict[str, Any]:
    """The resolved values of one case: its class name and ``to_dict()``."""
    from ice_envs.train.config import config_from_dict, load_config

    if case in DATA:
        cfg = config_from_dict(DATA[case])
    else:
        path, overrides = OVERRIDES.get(case, (case, []))
        cfg = load_config(ROOT / path, overrides)
    return {"class": type(cfg).__name__, "resolved": cfg.to_dict()}


def _canonical(data: Any) -> str:
    """JSON text that tells ``1`` from ``1.0`` (a comparison of dicts would not)."""
    return json.dumps(data, indent=1, sort_keys=True)


@pytest.mark.parametrize("case", cases())
def test_configs_resolve_as_recorded(case: str):
    recorded = json.loads(FIXTURE.read_text())
    assert case in recorded, f"{case} is not in {FIXTURE.name}: regenerate the fixture"
    now = resolve(case)
    assert now["class"] == recorded[case]["class"]
    assert _canonical(now["resolved"]) == _canonical(recorded[case]["resolved"])


if __name__ == "__main__":  # regenerate the fixture
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(_canonical({case: resolve(case) for case in cases()}) + "\n")
    print(f"wrote {FIXTURE}")
