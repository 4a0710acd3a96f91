"""Decision-by-decision parity of a compiled player with the game's Python player.

A compiled player (see :mod:`ice_envs.core.compiled_players`) is checked the way a compiled engine
is: games are played by the Python players at every seat through the scalar env, and at every
decision the compiled player is asked too, on the state row of the same position
(``engine.pack_state``), with the deciding seat's own memory row and random stream. The two must
choose the same action. Each Python player draws from a :class:`~ice_envs.core.splitmix.SplitMixRng`
on the stream its compiled twin uses, so a decision that consults the player's randomness (a random
fallback, a re-deal of hidden cards) is compared too, and the two streams must stay in step.

The Python player sees what evaluation shows it: a :class:`~ice_envs.core.agent.PlayerView` whose
hidden cards are re-dealt at random (from a separate generator), so a compiled player that reads
another seat's hidden cards from the true state row disagrees with it sooner or later::

    from ice_envs.core.player_parity import run_player_parity
    from ice_envs.agents.spec import load_agent

    decisions, games = run_player_parity(
        "my_game", "heuristic", num_players=3, games=50, seed=0,
        python_player=lambda seat: load_agent("heuristic", "my_game", seed=0, num_players=3),
    )
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ice_envs.core import vector
from ice_envs.core.agent import make_view
from ice_envs.core.registry import make as make_env
from ice_envs.core.splitmix import SplitMixRng

__all__ = ["player_seed_streams", "run_player_parity"]


def player_seed_streams(seed: int, num_players: int) -> np.ndarray:
    """``(num_players,)`` stream states for the seats' players in the game seeded ``seed`` (distinct per seat)."""
    from ice_envs.core.compiled import seed_streams

    return seed_streams(int(seed) ^ 0x5EA7, num_players)


def run_player_parity(
    game: str,
    player: str,
    *,
    num_players: int,
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
    python_player: Callable[[int], Any],
    max_decisions: int = 100_000,
) -> tuple[int, int]:
    """Play ``games`` games of ``game`` with the Python ``player`` at every seat and check the compiled
    ``player`` at every decision (module docstring); returns (decisions compared, games played).

    ``python_player(seat)`` builds the Python player of ``seat`` (e.g. through ``agents.spec.load_agent``);
    its ``rng`` is replaced by the seat's :class:`SplitMixRng`.
    """
    from ice_envs.core.compiled_players import compiled_player

    options = dict(options or {})
    engine = vector.make(game, 1, num_players, seed=seed, engine="compiled", **options)
    compiled = compiled_player(game, player)
    cfg = engine._cfg
    mask = np.zeros(engine.n_actions, dtype=np.int8)
    decisions = 0
    view_rng = np.random.default_rng([seed, 0xB1E])
    for g in range(games):
        env = make_env(game, raw=True, num_players=num_players, **options)
        env.reset(seed=seed * 100_003 + g)
        streams = player_seed_streams(seed * 100_003 + g, num_players)
        prng = np.zeros((num_players, 2), dtype=np.uint64)
        prng[:, 0] = streams
        memory = np.zeros((num_players, max(compiled.memory_width, 1)), dtype=np.int64)
        players = []
        for seat in range(num_players):
            agent = python_player(seat)
            agent.rng = SplitMixRng(int(streams[seat]))
            players.append(agent)
        steps = 0
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            seat = env.current_seat
            name = env.agent_selection
            observation = env.observe(name)
            agent = players[seat]
            view = make_view(env, seat, view_rng) if agent.needs_view else None
            expected = int(agent.act(observation, view))
            row = np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype)
            mask[:] = observation["action_mask"]
            got = int(compiled.act(row, cfg, mask, prng[seat], memory[seat]))
            where = f"{game} {player} {num_players}p {options} game {g} decision {steps} seat {seat}"
            assert got == expected, f"{where}: compiled player chose {got}, Python player {expected}"
            assert int(prng[seat, 0]) == agent.rng.state, f"{where}: the player's random streams drifted apart"
            env.step(expected)
            decisions += 1
            steps += 1
            if steps >= max_decisions:
                break
    return decisions, games
