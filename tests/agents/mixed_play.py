"""A game where a heuristic takes most decisions and random moves fill the rest."""

from __future__ import annotations

import numpy as np

from ice_envs.core.agent import make_view


def play_mixed_game(env, heuristic, rng: np.random.Generator, share: float = 0.7) -> None:
    """Play ``env`` (already reset) to the end: each decision goes to ``heuristic`` with
    probability ``share``, otherwise to a random legal move; every heuristic move must be legal."""
    raw = env.unwrapped
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = raw.possible_agents.index(agent)
        if rng.random() < share:
            action = heuristic.act(obs, make_view(env, seat, rng))
            assert obs["action_mask"][action] == 1, (raw.game_state, action)
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
