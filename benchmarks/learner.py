"""Learner steps per CPU-second of each shipped training config: the scalar path beside the batched one, in one run.

    python -m ice_envs.benchmarks.learner [--games cardiceo ...] [--steps 16384] [--batched-envs 256]
                                          [--out DIR]

For each game's shipped config (``train/configs/<game>_ppo.yaml``) it builds the training envs and a
fresh MaskablePPO model as ``ice-envs train`` does and times ``model.learn`` (rollouts, the policy's
forward passes, the opponents, and the PPO updates) in CPU seconds of this process:

* **scalar**: the config's opponents, network and PPO settings with ``vec_env: dummy`` (every env
  in this process, so every CPU-second is counted) and the config's ``n_envs``;
* **batched**: the same with ``vec_env: batched`` and ``--batched-envs`` games in one compiled engine,
  its opponents played inside the batch (``n_steps`` scaled so an update holds as many steps).

Both run from one snapshot in the self-play pool (the fresh model's), as a run starts. The one-time
imitation warm start and the reward-shaping potential (not available on the batched path) are left
out of both. Figures are learner steps per CPU-second; a warm-up ``learn`` call first (numba compiles
on first use). It is a benchmark, not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

GAMES = ("cardiceo", "cubemelt", "iceberg_rummy", "tip_of_the_diceberg", "icebergs")
CONFIGS = Path(__file__).resolve().parent.parent / "train" / "configs"


def _config(game: str, vec_env: str, n_envs: int | None) -> Any:
    from ice_envs.train.config import load_config

    overrides = ["imitation.teacher=null", "reward_shaping.potential=null", "env_processes=null", f"vec_env={vec_env}"]
    if n_envs is not None:
        overrides.append(f"n_envs={n_envs}")
    return load_config(CONFIGS / f"{game}_ppo.yaml", overrides)


def measure(game: str, vec_env: str, steps: int, n_envs: int | None = None) -> dict[str, Any]:
    """Learner steps per CPU-second of ``model.learn(steps)`` for ``game``'s shipped config on ``vec_env``."""
    import torch

    from ice_envs.train.callbacks import policy_net
    from ice_envs.train.run import build_model, make_vec_env

    cfg = _config(game, vec_env, n_envs)
    if n_envs is not None:  # as many steps per update as the shipped config
        base = _config(game, "dummy", None)
        cfg.ppo.n_steps = max(1, base.ppo.n_steps * base.n_envs // cfg.n_envs)
        cfg.ppo.batch_size = base.ppo.batch_size
    torch.set_num_threads(cfg.torch_threads)
    with tempfile.TemporaryDirectory() as tmp:
        venv = make_vec_env(cfg, [])
        model = build_model(cfg, venv, Path(tmp))
        model.tensorboard_log = None
        if cfg.opponents.mix.get("self_play", 0) > 0:
            path = Path(tmp) / "snap.npz"
            policy_net(model, cfg).save_npz(path)
            venv.env_method("set_pool", [str(path)])
        per_update = cfg.ppo.n_steps * cfg.n_envs
        model.learn(per_update)  # warm-up: compiles, fills caches
        total = max(per_update, steps // per_update * per_update)
        start_steps = model.num_timesteps
        cpu = time.process_time()
        model.learn(total, reset_num_timesteps=False)
        cpu = time.process_time() - cpu
        done = model.num_timesteps - start_steps
        venv.close()
    mix = {k: v for k, v in cfg.opponents.mix.items() if v > 0}
    return {
        "game": game,
        "vec_env": vec_env,
        "n_envs": cfg.n_envs,
        "n_steps": cfg.ppo.n_steps,
        "opponents": mix,
        "steps": done,
        "cpu_seconds": round(cpu, 3),
        "steps_per_cpu_second": round(done / cpu, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--steps", type=int, default=16384, help="learner steps timed per path (default: 16384)")
    parser.add_argument("--batched-envs", type=int, default=256, help="games of the batched path (default: 256)")
    parser.add_argument("--out", type=Path, default=None, help="write learner.json here")
    args = parser.parse_args(argv)
    rows = []
    load = os.getloadavg()[0]
    for game in args.games:
        scalar = measure(game, "dummy", args.steps)
        batched = measure(game, "batched", args.steps, n_envs=args.batched_envs)
        ratio = batched["steps_per_cpu_second"] / scalar["steps_per_cpu_second"]
        rows += [scalar, {**batched, "ratio": round(ratio, 2)}]
        print(
            f"{game:22s} scalar {scalar['steps_per_cpu_second']:>9,.0f}  batched {batched['steps_per_cpu_second']:>9,.0f}"
            f"  x{ratio:.1f}   opponents {scalar['opponents']}",
            flush=True,
        )
    result = {"rows": rows, "load_before": load, "load_after": os.getloadavg()[0]}
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        from ice_envs.core.files import write_atomic

        write_atomic(args.out / "learner.json", json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
