"""Shared fixtures of the training tests: a tiny config and one tiny trained run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def tiny_config_dict(**changes: Any) -> dict[str, Any]:
    """A config that trains in seconds: Cardiceo, 2 players, self-play, evaluations, checkpoints."""
    data: dict[str, Any] = {
        "name": "tiny",
        "game": {"name": "cardiceo", "players": 2, "options": {"hand_size": 5}},
        "opponents": {
            "mix": {"random": 0.5, "self_play": 0.5},
            "self_play": {"check_every": 128, "games": 8, "pool_size": 2},
        },
        "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 2, "net_arch": [16, 16]},
        "n_envs": 2,
        "vec_env": "dummy",
        "total_timesteps": 256,
        "eval": {"every": 128, "games": 8, "against": ["random"], "final_games": 16},
        "checkpoint_every": 128,
        "seed": 3,
        "torch_threads": 1,
        "curves": False,  # drawn by the tests of the pictures (tiny_run), not by every run
    }
    for dotted, value in changes.items():
        node = data
        keys = dotted.split("__")
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = value
    return data


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run directory of one tiny training run (shared by several tests; do not modify it)."""
    from ice_envs.train.config import config_from_dict
    from ice_envs.train.run import train

    run_dir = tmp_path_factory.mktemp("runs") / "tiny-a"
    train(config_from_dict(tiny_config_dict(curves=True)), run_dir, command="pytest tiny", echo=False)
    return run_dir
