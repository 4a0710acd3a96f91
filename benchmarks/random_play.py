"""The random-legal-action loop and the timed game loop shared by the throughput, peer and memory benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ice_envs.core.masks import sample_legal


def play_aec(env: Any, rng: np.random.Generator, max_decisions: int | None = None) -> int:
    """Play a reset AEC ``env`` with uniformly random legal actions; return the decisions taken.

    Every decision reads the observation and its ``action_mask`` through ``env.last()`` and
    picks from the mask, as an RL agent would; dead agents are stepped with ``None``. Stops
    at the end of the game or after ``max_decisions`` decisions.
    """
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(sample_legal(rng, obs["action_mask"]))
        steps += 1
        if max_decisions is not None and steps >= max_decisions:
            break
    return steps


def timed_games(
    new_game: Callable[[int], Any], play: Callable[[Any], int], seconds: float, min_games: int = 1
) -> dict[str, float]:
    """Play whole games for about ``seconds``: ``new_game(i)`` starts game ``i`` (timed as the reset
    cost), ``play(game)`` plays it and returns its decisions. Returns rates and counts."""
    steps = games = 0
    reset_time = 0.0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        t0 = time.perf_counter()
        game = new_game(games)
        reset_time += time.perf_counter() - t0
        steps += play(game)
        games += 1
        if games >= min_games and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return {
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_game": steps / games,
        "reset_ms": 1000 * reset_time / games,
        "games": games,
        "seconds": elapsed,
    }
