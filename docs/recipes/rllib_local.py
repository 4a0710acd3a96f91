"""RLlib on one machine: multi-agent PPO with action masking, every seat one shared policy, your own RLlib code.

    python docs/recipes/rllib_local.py            # 10 iterations on Cardiceo, 2 players, a local Ray (2 CPUs)
    python docs/recipes/rllib_local.py --smoke    # a tiny budget (also: ICE_ENVS_RECIPE_SMOKE=1)

1. :class:`ice_envs.wrappers.rllib.IceMultiAgentEnv` is the game as an RLlib ``MultiAgentEnv``: the
   observation under the keys RLlib's ``ActionMaskingTorchRLModule`` reads (``observations``,
   ``action_mask``), the game's own length cap, optional fixed opponents (``env_config["opponents"]``).
2. ``PPOConfig`` with the env check off (it steps unmasked random actions, which ice-envs rejects),
   one policy ``shared`` and a ``policy_mapping_fn`` sending every seat to it: self-play.
3. The trained actor is exported as a policy ``.npz`` (``train.rllib_backend.export_policy``; RLlib's
   own checkpoints are pickles, which ice-envs never loads) and played by ``ice-envs evaluate`` as
   ``rllib:PATH`` against random seats.

``ice-envs train train/configs/cardiceo_rllib_ppo.yaml`` does all of this from a YAML file (docs/rllib.md).
Prints one JSON line at the end: iterations, steps, steps/s, and the evaluation's win rate.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from ice_envs.evaluation.tournament import evaluate
from ice_envs.train.config import load_config
from ice_envs.train.rllib_backend import export_policy
from ice_envs.wrappers.rllib import rllib_env_name

GAME, PLAYERS = "cardiceo", 2
CONFIG = Path(__file__).resolve().parents[2] / "train" / "configs" / "cardiceo_rllib_smoke_ppo.yaml"


def build(env_config: dict, batch: int, hidden: list[int], num_env_runners: int, seed: int) -> PPOConfig:
    """The RLlib config: masked PPO, one shared policy for every seat."""
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": hidden})
    return (
        PPOConfig()
        .environment(rllib_env_name(), env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .env_runners(num_env_runners=num_env_runners, sample_timeout_s=None)
        .training(train_batch_size_per_learner=batch, minibatch_size=batch // 4, num_epochs=2)
        .debugging(seed=seed)
    )


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny budget (CI)")
    parser.add_argument("--out", type=Path, default=Path("runs/recipes/rllib_local"))
    args = parser.parse_args(argv)
    smoke = args.smoke or os.environ.get("ICE_ENVS_RECIPE_SMOKE") == "1"
    iterations, batch, games = (1, 400, 20) if smoke else (10, 4000, 400)
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    env_config = {"game": GAME, "num_players": PLAYERS}
    algo = build(env_config, batch, [64, 64], num_env_runners=0, seed=0).build_algo()
    start = time.perf_counter()
    for _ in range(iterations):
        result = algo.train()
    seconds = time.perf_counter() - start
    steps = int(result["num_env_steps_sampled_lifetime"])
    # the export reads the model size and game from a config of the training backend
    cfg = load_config(CONFIG, [f"game.name={GAME}", f"game.players={PLAYERS}", "model.hidden=[64,64]"])
    args.out.mkdir(parents=True, exist_ok=True)
    policy = export_policy(algo, cfg, args.out / "final.npz", iterations, steps)
    algo.stop()
    summary, _ = evaluate(GAME, PLAYERS, f"rllib:{policy},random", games, seed=0, progress=False)
    line = {
        "iterations": iterations,
        "steps": steps,
        "steps_per_second": steps / seconds,
        "policy": str(policy),
        "win_rate_vs_random": summary["per_agent"][0]["win_rate"],
    }
    print(json.dumps(line))
    return line


if __name__ == "__main__":
    main()
