"""Shared set-up of the play tests: one short game per registered game, and agent-played records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.play.record import GameRecorder, is_over

#: (players, extra CLI arguments, env options) keeping each game short.
SHORT_GAMES: dict[str, tuple[int, list[str], dict[str, Any]]] = {
    "cardiceo": (2, ["--option", "hand_size=5"], {"hand_size": 5}),
    "cubemelt": (2, [], {}),
    "tip_of_the_diceberg": (3, ["--option", "num_rounds=1"], {"num_rounds": 1}),
    "iceberg_rummy": (2, ["--variant", "single_hand"], {"single_hand": True}),
    "icebergs": (2, ["--option", "max_turns=4"], {"max_turns": 4}),
}


def short_game(game: str) -> tuple[int, list[str], dict[str, Any]]:
    """Players, CLI arguments and options of a short game of ``game`` (any game: defaults)."""
    spec = ice_envs.get_spec(game)
    return SHORT_GAMES.get(game, (min(spec.players), [], {}))


def random_game(game: str, seed: int, path: Path | None = None, limit: int = 5000) -> tuple[Any, GameRecorder]:
    """Play a short game of ``game`` with random moves, recorded; returns (env, recorder)."""
    n, _, options = short_game(game)
    env = ice_envs.make(game, num_players=n, raw=True, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rec = GameRecorder(game, n, options, seed, ["random"] * n)
    while not is_over(env) and env.num_steps < limit:
        legal = env.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        rec.step(env, action)
        env.step(action)
        rec.observe_rewards(env)
    rec.finish(env)
    if path is not None:
        rec.save(path)
    return env, rec
