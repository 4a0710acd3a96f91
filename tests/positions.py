"""Decision points of played games, for tests that look at positions: each seat's view where it decides."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.agent import PlayerView, make_view


def decisions(
    game: str, players: int, seed: int, agents: Sequence[Any], **options: Any
) -> Iterator[tuple[Any, int, PlayerView]]:
    """Play one game of ``agents`` (one per seat) from deal ``seed`` and yield ``(env, seat, view)`` at each
    decision, before the seat's agent acts on ``view`` (the env may be read, e.g. for a re-deal of the view)."""
    env = ice_envs.make(game, raw=True, num_players=players, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        view = make_view(env, seat, rng)
        yield env, seat, view
        env.step(agents[seat].act(env.observe(agent), view))
