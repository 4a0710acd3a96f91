"""RLlib and Ray on a cluster: the same training with more env runners, then a tournament spread over Ray tasks.

    python docs/recipes/rllib_cluster.py --address auto --env-runners 32     # on a node of a running cluster
    python docs/recipes/rllib_cluster.py --smoke                            # a local Ray, 1 env runner, tiny

What changes from one machine to a cluster is two values: the Ray address (``ray.address`` of a
training config; ``auto`` on a cluster node, ``ray://HEAD:10001`` from outside) and the number of env
runners (``ray.num_env_runners``), each a CPU that steps games. Every node needs ice-envs installed.

1. ``ice-envs train`` with ``backend: rllib``: ``train.rllib_backend.train`` on the config, with
   ``ray.address`` and ``ray.num_env_runners`` set from the command line (``--set`` does the same).
2. The run's policy plays a tournament whose games are Ray tasks (``evaluate(..., backend="ray")``,
   ``ice-envs evaluate ... --backend ray --address ADDR``); the results are those of ``--workers 1``.

Prints one JSON line at the end: the run directory, steps/s of training and the win rate vs random.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

from ice_envs.evaluation.tournament import evaluate
from ice_envs.train.config import load_config
from ice_envs.train.rllib_backend import train

CONFIG = Path(__file__).resolve().parents[2] / "train" / "configs"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=None, help="the Ray cluster (auto, ray://HEAD:10001); none: local")
    parser.add_argument("--env-runners", type=int, default=2, help="remote env runners (one CPU each)")
    parser.add_argument("--smoke", action="store_true", help="a tiny budget on a local Ray (CI)")
    parser.add_argument("--out", type=Path, default=Path("runs/recipes/rllib_cluster"))
    args = parser.parse_args(argv)
    smoke = args.smoke or os.environ.get("ICE_ENVS_RECIPE_SMOKE") == "1"
    name, games = ("cardiceo_rllib_smoke_ppo.yaml", 8) if smoke else ("cardiceo_rllib_ppo.yaml", 4000)
    runners = 1 if smoke else args.env_runners
    address = None if smoke else args.address
    overrides = [f"ray.num_env_runners={runners}", "eval.games=0"]
    if address is not None:
        overrides.append(f"ray.address={address}")
    cfg = load_config(CONFIG / name, overrides)
    run_dir = args.out / "run"
    shutil.rmtree(run_dir, ignore_errors=True)  # a recipe's run starts afresh
    report = train(cfg, run_dir, echo=not smoke)
    n = cfg.game.players
    agents = ",".join([f"rllib:{run_dir}"] + ["random"] * (n - 1))
    summary, _ = evaluate(cfg.game.name, n, agents, games, seed=0, progress=False, backend="ray", address=address)
    line = {
        "run_dir": str(run_dir),
        "env_runners": runners,
        "steps": report["timesteps"],
        "steps_per_second": report["steps_per_second"],
        "win_rate_vs_random": summary["per_agent"][0]["win_rate"],
    }
    print(json.dumps(line))
    return line


if __name__ == "__main__":
    main()
