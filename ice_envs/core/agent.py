"""The Agent protocol and the player's view that agents may read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ice_envs.core.masks import sample_legal
from ice_envs.core.registry import spec_of


@dataclass
class PlayerView:
    """What a seat may know, as an engine state.

    ``state`` is the engine state with everything the seat cannot see (other hands,
    deck order) re-dealt at random consistently with what it has seen
    (``env.resample_hidden``). A heuristic may read its own hand and the public table
    from it through the game's rules API; the hidden parts are a guess, never the truth.
    """

    game: str
    seat: int
    num_players: int
    state: Any
    legal_actions: list[int]


@runtime_checkable
class Agent(Protocol):
    """An agent: ``act`` returns a legal action for the observation it is given.

    ``needs_view`` says whether ``act`` wants a :class:`PlayerView` (heuristics do;
    the random and PPO agents only read the observation and its action mask).
    ``needs_observation`` says whether it reads ``observation["observation"]``; when it
    does not (random, heuristics), evaluation passes only the action mask and skips
    encoding the observation.
    """

    name: str
    needs_view: bool
    needs_observation: bool

    def reset(self, seed: int | None = None) -> None:
        """Start a new game (reseeds the agent's own random generator)."""

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        """Choose an action; ``observation["action_mask"]`` marks the legal ones."""


def make_view(env: Any, seat: int, rng: np.random.Generator) -> PlayerView:
    """The :class:`PlayerView` of ``seat`` in ``env`` (wrapped or raw)."""
    raw = env.unwrapped
    return PlayerView(
        game=spec_of(raw).name,
        seat=seat,
        num_players=raw.num_players,
        state=raw.resample_hidden(seat, rng),
        legal_actions=raw.legal_actions(),
    )


class SeededAgent:
    """Base for agents with their own seeded generator."""

    name = "agent"
    needs_view = False
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def random_legal(self, mask: np.ndarray) -> int:
        return sample_legal(self.rng, mask)
