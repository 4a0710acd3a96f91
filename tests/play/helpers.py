"""Shared set-up of the play tests: one short game per registered game, and agent-played records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.evaluation.record import GameRecorder, is_over


def short_game(game: str) -> tuple[int, list[str], dict[str, Any]]:
    """Players, CLI arguments and options of the game's short game (its spec's ``quick`` variant)."""
    spec = ice_envs.get_spec(game)
    options = dict(spec.quick.options)
    args = [part for key, value in options.items() for part in ("--option", f"{key}={value}")]
    return spec.quick_players, args, options


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
