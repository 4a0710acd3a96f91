"""The peers of the side-by-side benchmark, played by the same random-legal-action loops.

* PettingZoo classic ``connect_four_v3`` and ``texas_holdem_v4`` (``pip install "ice-envs[bench]"``,
  which pulls ``pettingzoo[classic]``): AEC envs, so they go through exactly the loop that
  measures the ice-envs games (:func:`benchmarks.throughput.measure`), ``env()`` and ``raw_env()``.
* OpenSpiel ``gin_rummy`` (``open-spiel``, where a wheel installs): a C++ engine. Its loop
  builds what an RL agent needs at every decision, as the AEC loop does: the observation
  tensor of the player to move as a float32 array and the legal-action mask, then picks a
  uniformly random legal action from the mask. Chance nodes (the deal, the draws) are
  sampled from their outcome distribution and are not counted as decision steps.

Each peer is skipped, with the reason, when its package is missing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from ice_envs.benchmarks.random_play import timed_games
from ice_envs.core.masks import sample_legal

#: PettingZoo classic peers: label -> module path.
PETTINGZOO_PEERS = {
    "connect_four_v3": "pettingzoo.classic.connect_four_v3",
    "texas_holdem_v4": "pettingzoo.classic.texas_holdem_v4",
}

OPENSPIEL_GAME = "gin_rummy"


def pettingzoo_peer(label: str) -> tuple[Any | None, str]:
    """The module of a PettingZoo classic peer, or ``None`` and why it is unavailable."""
    try:
        return importlib.import_module(PETTINGZOO_PEERS[label]), ""
    except ImportError as err:  # rlcard / pygame missing
        return None, f"{label} unavailable ({err}); pip install 'ice-envs[bench]'"


class OpenSpielRandomPlay:
    """Random legal play of an OpenSpiel game with observation tensor and mask built each decision."""

    def __init__(self, game_name: str = OPENSPIEL_GAME) -> None:
        import pyspiel

        self.game = pyspiel.load_game(game_name)
        self.num_actions = self.game.num_distinct_actions()

    def new_game(self) -> Any:
        return self.game.new_initial_state()

    def play(self, state: Any, rng: np.random.Generator, max_decisions: int | None = None) -> int:
        """Play ``state`` to its end (or ``max_decisions``); return the decisions taken."""
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                continue
            player = state.current_player()
            _observation = np.asarray(state.observation_tensor(player), dtype=np.float32)
            mask = np.asarray(state.legal_actions_mask(player), dtype=np.int8)
            state.apply_action(sample_legal(rng, mask))
            steps += 1
            if max_decisions is not None and steps >= max_decisions:
                break
        return steps


def openspiel_peer() -> tuple[OpenSpielRandomPlay | None, str]:
    """The OpenSpiel gin_rummy player, or ``None`` and why it is unavailable."""
    try:
        return OpenSpielRandomPlay(), ""
    except ImportError as err:
        return None, f"OpenSpiel unavailable ({err}); pip install open-spiel"


def measure_openspiel(player: OpenSpielRandomPlay, seconds: float, seed: int = 0) -> dict[str, float]:
    """The rates of :func:`benchmarks.throughput.measure` for an OpenSpiel game."""
    rng = np.random.default_rng(seed)
    return timed_games(lambda _i: player.new_game(), lambda state: player.play(state, rng), seconds)


def openspiel_instance(player: OpenSpielRandomPlay) -> Callable[[np.random.Generator, int], Any]:
    """A factory for :func:`benchmarks.memory.memory_per_instance`: a game state after some decisions."""

    def make(rng: np.random.Generator, decisions: int) -> Any:
        state = player.new_game()
        player.play(state, rng, max_decisions=decisions)
        return state

    return make
