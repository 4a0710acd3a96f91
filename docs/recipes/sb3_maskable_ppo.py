"""stable-baselines3: sb3-contrib's MaskablePPO on a Gymnasium id, then the model played and evaluated.

    python docs/recipes/sb3_maskable_ppo.py            # 20k steps on Cardiceo, 2 players (a few minutes)
    python docs/recipes/sb3_maskable_ppo.py --smoke    # a tiny budget (also: ICE_ENVS_RECIPE_SMOKE=1)

1. ``gym.make("ice_envs/Cardiceo-v1", ...)`` is the learner's seat of a game; the opponents play
   inside ``step()``. MaskablePPO reads the legal actions from the env's ``action_masks()`` (through
   ``gym.make``'s wrappers and any SB3 ``VecEnv``): nothing to write by hand.
2. The model plays games against the heuristic by itself (``model.predict(obs, action_masks=...)``).
3. The saved ``.zip`` is an ice-envs agent, ``ppo:PATH``: ``ice-envs evaluate`` plays it with every
   seat rotation and reports win rates with intervals (the file is read as JSON and weights, never
   unpickled).

Prints one JSON line at the end: the steps trained, the win rate of the games played here and the
evaluation's file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
from sb3_contrib import MaskablePPO

import ice_envs  # noqa: F401  (registers the ids; or gym.make("ice_envs:ice_envs/Cardiceo-v1"))

GAME, PLAYERS, ENV_ID = "cardiceo", 2, "ice_envs/Cardiceo-v1"


def play(model: MaskablePPO, games: int, opponents: str, seed: int) -> float:
    """The model's win rate in ``games`` games against ``opponents`` (its seat drawn per game)."""
    env = gym.make(ENV_ID, num_players=PLAYERS, opponents=opponents)
    wins = 0
    obs, _ = env.reset(seed=seed)
    for _ in range(games):
        while True:
            masks = env.get_wrapper_attr("action_masks")()
            action, _ = model.predict(obs, action_masks=masks, deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            if terminated or truncated:
                wins += int(info["is_success"])
                obs, _ = env.reset()
                break
    return wins / games


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny budget (CI)")
    parser.add_argument("--out", type=Path, default=Path("runs/recipes/sb3_maskable_ppo"))
    args = parser.parse_args(argv)
    smoke = args.smoke or os.environ.get("ICE_ENVS_RECIPE_SMOKE") == "1"
    steps, games = (256, 10) if smoke else (20_000, 200)
    args.out.mkdir(parents=True, exist_ok=True)

    env = gym.make(ENV_ID, num_players=PLAYERS, opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=128 if smoke else 1024, batch_size=64, seed=0, device="cpu")
    model.learn(total_timesteps=steps)
    path = args.out / "cardiceo_maskable_ppo.zip"
    model.save(path)

    win_rate = play(model, games, "heuristic", seed=1)

    script = Path(sys.executable).with_name("ice-envs")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "ice_envs.cli"]
    agents = f"ppo:{path},random"
    command += ["evaluate", GAME, "--players", str(PLAYERS), "--agents", agents, "--games", str(games)]
    command += ["--seed", "0", "--out", str(args.out / "evaluation")]
    subprocess.run(command, check=True)
    report = json.loads((args.out / "evaluation" / "evaluation.json").read_text())

    summary = {
        "steps": int(model.num_timesteps),
        "win_rate_vs_heuristic": win_rate,
        "games": games,
        "evaluation": str(args.out / "evaluation" / "evaluation.json"),
        "evaluated_win_rate": {row["agent"]: row["win_rate"] for row in report["per_agent"]},
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
