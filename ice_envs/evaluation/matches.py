"""One game of a tournament: what a worker needs to play it (:class:`Match`), its seats and seeds, its results.

Shared by the scalar path (:mod:`ice_envs.evaluation.tournament`) and the batched one
(:mod:`ice_envs.evaluation.batched`), so that both seat, seed and score a game alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ice_envs.agents.spec import AgentSpec
from ice_envs.core.agent import Agent

__all__ = [
    "CHANCES",
    "ENGINES",
    "Match",
    "PACK_KINDS",
    "ViewGenerators",
    "agent_seed",
    "batched_blocker",
    "env_options",
    "game_result",
    "reset_agent",
    "seat_of",
]


@dataclass(frozen=True)
class Match:
    """What one worker needs to play a batch of games."""

    game: str
    num_players: int
    options: dict[str, Any]
    #: One entry per seat: a parsed spec, or an :class:`~ice_envs.core.agent.Agent` object used as it is.
    agents: tuple[AgentSpec | Agent, ...]
    seed: int
    #: Passed to the env as its ``max_decisions`` option (``None``: the game's own cap).
    max_decisions: int | None = None
    #: Games ``0 .. record_games - 1`` are written as game records to ``record_dir``.
    record_games: int = 0
    record_dir: str | None = None
    #: Where chance comes from: ``numpy`` (the env's own generator) or ``splitmix`` (the compiled engines'
    #: deals and streams, so that the batched engine plays the very same games; :mod:`ice_envs.evaluation.batched`).
    chance: str = "numpy"
    #: How the games are played: ``scalar`` (one env per game), ``batched`` (the compiled engine,
    #: :mod:`ice_envs.evaluation.batched`; needs ``chance="splitmix"``) or ``auto`` (batched where that plays
    #: the scalar path's games and every agent is one of the pack's, :data:`PACK_KINDS`; scalar otherwise).
    #: The results are the same (:func:`~ice_envs.evaluation.tournament.engine_for`).
    engine: str = "scalar"


#: The chance modes of :class:`Match`.
CHANCES = ("numpy", "splitmix")
#: The engines of :class:`Match`.
ENGINES = ("scalar", "batched", "auto")
#: The agent kinds that ``engine="auto"`` plays on the batched engine: the pack's own agents, whose every
#: decision is fixed by the game's seeds (a compiled twin inside the engine, or a fresh copy per game called
#: from Python). ``python:`` and ``rllib:`` agents and Agent objects may keep state from game to game, as the
#: scalar path's one object per entry does, so ``auto`` plays their tables on the scalar path.
PACK_KINDS = ("random", "heuristic", "greedy", "mcts", "flat", "ppo", "moves")


def batched_blocker(entries: tuple[AgentSpec | Agent, ...]) -> AgentSpec | Agent | None:
    """The first agent entry that keeps ``engine="auto"`` on the scalar path (not of :data:`PACK_KINDS`), or ``None``."""
    return next((e for e in entries if not (isinstance(e, AgentSpec) and e.kind in PACK_KINDS)), None)


def seat_of(agent_index: int, game_index: int, num_players: int) -> int:
    """The seat that agent entry ``agent_index`` takes in game ``game_index``."""
    return (agent_index + game_index) % num_players


def game_result(
    match: Match,
    game_index: int,
    decisions: int,
    truncated: bool,
    cap: int,
    totals: np.ndarray,
    scores: np.ndarray,
    share: np.ndarray,
) -> dict[str, Any]:
    """One game's results per agent entry from its seats' reward totals, scores and win shares."""
    n = match.num_players
    winners = share > 0
    keys = np.stack([share, scores], axis=1)
    ranks = [1 + int(sum(tuple(keys[j]) > tuple(keys[i]) for j in range(n))) for i in range(n)]
    seats = [seat_of(k, game_index, n) for k in range(n)]
    return {
        "game_index": game_index,
        "deal_seed": match.seed + game_index // n,
        "decisions": decisions,
        "truncated": truncated,
        "max_decisions": cap,
        "seat": seats,
        "reward": [float(totals[s]) for s in seats],
        "score": [float(scores[s]) for s in seats],
        "rank": [ranks[s] for s in seats],
        "win": [bool(winners[s]) for s in seats],
        "win_share": [float(share[s]) for s in seats],
    }


def reset_agent(agent: Any, match: Match, game_index: int, k: int) -> None:
    """Reset agent entry ``k`` for game ``game_index``: seeded from ``(seed, game, k)``; with splitmix chance
    its own generator is then the :class:`~ice_envs.core.splitmix.SplitMixRng` on that seed's stream (the
    stream its compiled twin draws from in the batched engine)."""
    seed = agent_seed(match.seed, game_index, k)
    agent.reset(seed=seed)
    if match.chance == "splitmix":
        from ice_envs.core.splitmix import SplitMixRng, stream_state

        agent.rng = SplitMixRng(stream_state(seed))


class ViewGenerators:
    """The generators that re-deal hidden information for the agents' views in one game.

    ``numpy`` chance: one generator shared by every seat (seeded from ``(seed, game, N)``). ``splitmix``
    chance: one per seat (seeded from ``(seed, game, N, seat)``), so a seat decided inside the batched
    engine, which builds no view, shifts nobody else's views.
    """

    def __init__(self, match: Match, game_index: int) -> None:
        self._key = (match.seed, game_index, match.num_players)
        self._per_seat = match.chance == "splitmix"
        self._made: dict[int, np.random.Generator] = {}

    def of(self, seat: int) -> np.random.Generator:
        """The generator of ``seat``'s views."""
        slot = seat if self._per_seat else -1
        if slot not in self._made:
            seed, game_index, n = self._key
            key = [seed, game_index, n, seat] if self._per_seat else [seed, game_index, n]
            self._made[slot] = np.random.default_rng(int(np.random.SeedSequence(key).generate_state(1)[0]))
        return self._made[slot]


def env_options(match: Match) -> dict[str, Any]:
    """The env's constructor options of ``match``: its game options and, if given, ``max_decisions``."""
    if match.max_decisions is None:
        return dict(match.options)
    return {**match.options, "max_decisions": match.max_decisions}


def agent_seed(seed: int, game_index: int, k: int) -> int:
    """The seed of agent entry ``k``'s own generator in game ``game_index`` of a tournament seeded ``seed``."""
    return int(np.random.SeedSequence([seed, game_index, k]).generate_state(1)[0])
