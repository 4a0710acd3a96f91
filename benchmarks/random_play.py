"""The random-legal-action loop shared by the throughput and memory benchmarks."""

from __future__ import annotations

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
