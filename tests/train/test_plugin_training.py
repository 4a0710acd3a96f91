"""A plug-in game trains and resumes exactly: the toy game ``dice_race`` (``tests/data/plugin_game``,
which declares no observation layout), registered in a training process of its own, killed after
its first checkpoint and resumed, ends with the weights and evaluations of an uninterrupted run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.train.crash_campaign import Runner, campaign

pytest.importorskip("sb3_contrib")

PLUGIN = Path(__file__).resolve().parents[1] / "data" / "plugin_game"
#: A training process with the plug-in registered, as its installed entry point would register it.
LAUNCH = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from ice_envs.core.registry import register; from dice_race.spec import SPEC; register(SPEC); "
    "from ice_envs.train.cli import main; sys.exit(main(sys.argv[1:]))"
)
CONFIG = {
    "name": "dice-race",
    "game": {"name": "dice_race", "players": 2, "variant": "short"},
    "opponents": {"mix": {"random": 0.5, "self_play": 0.5}, "self_play": {"check_every": 128, "games": 6}},
    "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 2, "net_arch": [16, 16]},
    "n_envs": 2,
    "vec_env": "dummy",  # a worker process would not have the plug-in registered (it is not installed here)
    "total_timesteps": 320,
    "eval": {"every": 128, "games": 6, "against": ["random"], "final_games": 6},
    "checkpoint_every": 64,
    "seed": 2,
    "torch_threads": 1,
}


def test_a_plugin_game_trains_and_resumes_exactly(tmp_path: Path):
    runner = Runner(prefix=[sys.executable, "-c", LAUNCH, str(PLUGIN)])
    counts = campaign(1, tmp_path, seed=0, config=CONFIG, runner=runner, kinds=("checkpoint",), log=lambda _: None)
    assert counts["failed"] == [] and counts["kills"] >= 1, counts
    run = tmp_path / "reference"
    state = next((run / "checkpoints").glob("*.state.json")).read_text()
    assert "dice_race" in state and '"$object"' not in state
    with np.load(run / "final.npz", allow_pickle=False) as npz:
        meta = json.loads(str(npz["meta"]))
        obs_size = npz["w0"].shape[1]
    assert meta["game"] == "dice_race"
    assert sum(size for _, size in meta["observation_pieces"]) == obs_size  # one piece, without a layout
