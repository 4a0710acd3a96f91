"""SuperSuit: the wrappers that apply to an ice-envs AEC game, each passing PettingZoo's ``api_test``.

    python docs/recipes/supersuit_wrappers.py            # every game
    python docs/recipes/supersuit_wrappers.py --smoke    # one game (also: ICE_ENVS_RECIPE_SMOKE=1)

What applies, and why the rest does not:

* **reward wrappers** (``clip_reward_v0``, ``reward_lambda_v0``): as they are.
* **observation transforms** go through ``observation_lambda_v0`` on the ``"observation"`` entry of
  the dict, keeping ``"action_mask"`` as it is; SuperSuit's Box-only observation wrappers
  (``frame_stack``, ``dtype``, ``flatten``, ``normalize_obs``, ``agent_indicator``,
  ``pad_observations``, ``max_observation``) refuse the ``Dict(observation, action_mask)`` space.
* ``nan_random_v0`` replaces a NaN action by a random *legal* one (it reads the mask).
* not at all: ``sticky_actions`` and ``delay_observations`` replay an earlier action without
  looking at the mask, so the game refuses it (``IllegalActionError``); the vector-env converters
  (``pettingzoo_env_to_vec_env_v1``) need a parallel env, which turn-based games do not have (use
  the single-agent Gymnasium ids, ``ice_envs/Cardiceo-v1``, for vectorised single-agent training);
  ``pad_action_space_v0`` changes nothing (every seat has the same action space).

Prints one JSON line: the wrappers that passed ``api_test`` on each game.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import warnings

import gymnasium
import numpy as np
import supersuit as ss
from pettingzoo.test import api_test

import ice_envs

# api_test's two notes on every Dict observation space (the action mask), as for PettingZoo's own classic envs
warnings.filterwarnings("ignore", "Observation space for each agent probably should be")
warnings.filterwarnings("ignore", "Observation is not a NumPy array")


def doubled_observation(env):
    """``observation_lambda_v0`` on the observation vector only: scaled by 2, the mask kept."""

    def obs_fn(obs, space):
        return {"observation": (2.0 * obs["observation"]).astype(np.float32), "action_mask": obs["action_mask"]}

    def space_fn(space):
        box = space["observation"]
        scaled = gymnasium.spaces.Box(2.0 * box.low, 2.0 * box.high, box.shape, np.float32)
        return gymnasium.spaces.Dict({"observation": scaled, "action_mask": space["action_mask"]})

    return ss.observation_lambda_v0(env, obs_fn, space_fn)


WRAPPERS = {
    "clip_reward_v0": lambda env: ss.clip_reward_v0(env, lower_bound=-0.5, upper_bound=0.5),
    "reward_lambda_v0": lambda env: ss.reward_lambda_v0(env, lambda r: 10.0 * r),
    "observation_lambda_v0": doubled_observation,
    "nan_random_v0": lambda env: ss.nan_random_v0(env),
}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="one game, few cycles (CI)")
    args = parser.parse_args(argv)
    smoke = args.smoke or os.environ.get("ICE_ENVS_RECIPE_SMOKE") == "1"
    games = ["cardiceo"] if smoke else sorted(ice_envs.GAMES)
    passed: dict[str, list[str]] = {}
    for game in games:
        spec = ice_envs.get_spec(game)
        for name, wrap in WRAPPERS.items():
            env = wrap(ice_envs.make(game, num_players=min(spec.players), **dict(spec.quick.options)))
            with contextlib.redirect_stdout(io.StringIO()):
                api_test(env, num_cycles=100 if smoke else 500)
            passed.setdefault(game, []).append(name)

    # the rewards really are transformed: a clipped game's final rewards lie within the bounds
    env = WRAPPERS["clip_reward_v0"](ice_envs.make("cardiceo", num_players=2, hand_size=5))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = []
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seen.append(reward)
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert max(seen) <= 0.5 and min(seen) >= -0.5 and 0.5 in seen
    print(json.dumps({"passed": passed, "clipped_final_rewards": sorted(set(seen))}))
    return passed


if __name__ == "__main__":
    main()
