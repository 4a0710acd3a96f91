"""PettingZoo: every game from PettingZoo's registry, through PettingZoo's own test utilities.

    python docs/recipes/pettingzoo_registry.py            # every game, 2 player counts each
    python docs/recipes/pettingzoo_registry.py --smoke    # one game (also: ICE_ENVS_RECIPE_SMOKE=1)

``import ice_envs`` registers the AEC envs as ``ice_envs/<game>-v<version>`` (PettingZoo's registry
has no plug-in entry points: without the import, ``pettingzoo.make`` raises ``NamespaceNotFound``).
``pettingzoo.make("aec", id, **options)`` passes the options to the game, and PettingZoo's
``cardiceo_v1`` spelling of the id works too. Then ``api_test`` (the AEC API, spaces, masks),
``seed_test`` (the same seed gives the same games) and ``render_test`` (every render mode) on each
env. ``max_cycles_test`` and ``parallel_api_test`` need a parallel env, which turn-based games with
off-turn decisions do not have. Prints one JSON line: the ids checked and the tests passed on each.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import warnings
from functools import partial

import pettingzoo
from pettingzoo.test import api_test, render_test, seed_test

import ice_envs  # registers ice_envs/<game>-v<version> in PettingZoo's registry

# api_test's two notes on every Dict observation space (the action mask), as for PettingZoo's own classic envs
warnings.filterwarnings("ignore", "Observation space for each agent probably should be")
warnings.filterwarnings("ignore", "Observation is not a NumPy array")


def check(env_id: str, num_players: int, cycles: int) -> list[str]:
    """PettingZoo's tests on ``env_id`` at ``num_players`` seats; the names of those passed."""
    make = partial(pettingzoo.make, "aec", env_id, num_players=num_players)
    with contextlib.redirect_stdout(io.StringIO()):  # the tests print progress; render_mode="human" prints tables
        api_test(make(), num_cycles=cycles)
        seed_test(make, num_cycles=cycles)
        render_test(make)
    return ["api_test", "seed_test", "render_test"]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="one game, few cycles (CI)")
    args = parser.parse_args(argv)
    smoke = args.smoke or os.environ.get("ICE_ENVS_RECIPE_SMOKE") == "1"
    games = ["cardiceo"] if smoke else sorted(ice_envs.GAMES)
    cycles = 100 if smoke else 500

    passed: dict[str, list[str]] = {}
    for game in games:
        spec = ice_envs.get_spec(game)
        underscored = f"ice_envs/{spec.env_name}"  # ice_envs/cardiceo_v1, PettingZoo's own spelling
        assert pettingzoo.make("aec", underscored).unwrapped.metadata["name"] == spec.env_name
        for n in sorted({min(spec.players), max(spec.players)})[: 1 if smoke else 2]:
            passed[f"{spec.env_id} {n}p"] = check(spec.env_id, n, cycles)
    print(json.dumps({"passed": passed}))
    return passed


if __name__ == "__main__":
    main()
