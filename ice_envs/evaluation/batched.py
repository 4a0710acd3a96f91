"""A tournament's games on the compiled engine: many games at once, the very games of the scalar path.

    ice-envs evaluate GAME --players N --agents random,heuristic,ppo:PATH --engine batched
    ice-envs league CONFIG.yaml --engine batched

With ``Match.chance == "splitmix"`` (:mod:`ice_envs.evaluation.matches`) a game's chance is the
compiled engine's: game ``g`` is the compiled engine's deal from the stream of its deal seed
(``seed_streams(deal_seed, 1)``), and every chance draw after the deal continues that stream. Each agent
entry draws from a :class:`~ice_envs.core.splitmix.SplitMixRng` on the stream of its own seed, and each
seat re-deals its views from its own generator. The scalar path plays such a game in the AEC env started
from the dealt state (:func:`start_dealt`); this module plays the same games in one compiled engine
(:func:`play_games_batched`), with the same results game by game:

* every game of a batch of the table is a row of one engine, its stream set from its deal seed and dealt
  (:func:`deal_rows`);
* a seat whose agent has a compiled twin (``random``; ``greedy`` and ``heuristic`` where the game's
  ``compiled_players`` has them, :func:`compiled_twin`) is played inside the engine by
  :class:`~ice_envs.core.compiled_opponents.SeatPlayers`, on the stream its Python agent would draw from;
* every other agent (``ppo``, ``mcts``, ``python:``, an Agent object) is called from Python for its game,
  with the engine's observation and mask and, if it wants one, a view re-dealt from the engine's state;
  the engine then steps the games whose Python seats decided. Agents that decide in batches
  (:func:`batch_key`: the ``ppo`` agents of one checkpoint) decide for every waiting game in one call,
  one forward pass per checkpoint and step, over waves of :data:`BATCH_WAVE` games.

A batch whose every seat plays inside the engine advances from deal to end in one compiled call.
Score rewards (``reward_mode="score"``) are left to the scalar path
(:func:`~ice_envs.evaluation.tournament.batched_plays`): their totals are float sums grouped by each seat's
turns, a grouping the engine's in-engine turns do not keep.
The engine's compiled loops are built once per process (tens of seconds per game on first use);
:func:`prepare` builds them before worker processes are forked so that they inherit them.

Helpers on the compiled engine's attributes (no API of its own yet): :func:`deal_rows` sets the streams
of chosen rows (``engine._rng[:, 0]``) from seeds and deals them (``engine.restart``, then marks the
engine started); :func:`start_dealt`
makes a scalar env continue a compiled deal (its generator ``_rng`` replaced, its score rewards counted
from ``_opening_scores`` as after a fresh deal).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

import ice_envs
from ice_envs.agents.spec import AgentSpec, load_agent
from ice_envs.core.agent import Agent, PlayerView
from ice_envs.core.compiled import CompiledEngine
from ice_envs.core.compiled_opponents import EXTERNAL, SeatPlayers
from ice_envs.core.compiled_players import compiled_player_names
from ice_envs.core.splitmix import SplitMixRng, stream_state
from ice_envs.core.threads import one_blas_thread
from ice_envs.core.vector import make as make_engine
from ice_envs.evaluation.matches import (
    Match,
    ViewGenerators,
    agent_seed,
    env_options,
    game_result,
    reset_agent,
    seat_of,
)

__all__ = ["batch_key", "compiled_engine", "compiled_twin", "deal_rows", "play_games_batched", "prepare", "start_dealt"]

#: Games played at once when some seats are played from Python: few, so that the agents' caches of
#: positions (e.g. Cardiceo's heuristic's lattices) serve a few games rather than thrash among hundreds.
PYTHON_WAVE = 8
#: Games played at once when every Python-side seat decides in batches (:func:`batch_key`, e.g. PPO
#: checkpoints): one forward pass per checkpoint and step serves them all.
BATCH_WAVE = 256
#: One single-game engine per configuration and process, for the scalar path's deals.
_DEALERS: dict[str, CompiledEngine] = {}


def compiled_engine(match: Match, num_games: int) -> CompiledEngine:
    """A compiled engine of ``num_games`` games of ``match``'s game, players and options (``OptionError`` if none)."""
    engine = make_engine(match.game, num_games, match.num_players, engine="compiled", seed=0, **env_options(match))
    assert isinstance(engine, CompiledEngine)
    return engine


def deal_rows(engine: CompiledEngine, rows: np.ndarray, deal_seeds: Sequence[int]) -> None:
    """Deal games ``rows`` of ``engine`` anew, game ``rows[j]`` from the stream of ``deal_seeds[j]``: the deal
    a one-game engine seeded ``deal_seeds[j]`` makes (``seed_streams(seed, 1)``)."""
    rows = np.asarray(rows, dtype=np.int64)
    engine._rng[rows, 0] = np.array([stream_state(int(s)) for s in deal_seeds], dtype=np.uint64)
    where = np.zeros(engine.num_envs, dtype=bool)
    where[rows] = True
    engine.restart(where)
    engine._started = True  # dealt as by reset(): step() may follow


def start_dealt(env: Any, match: Match, deal_seed: int) -> None:
    """Start the scalar ``env`` on the compiled engine's deal for ``deal_seed``, its chance continuing the stream.

    The env starts from the dealt state (``reset(options={"state": ...})``), its generator is the
    :class:`SplitMixRng` in the stream's state after the deal, and its score rewards count from the
    game's opening scores, as after a fresh deal: the env then plays the game the engine plays.
    """
    key = json.dumps([match.game, match.num_players, env_options(match)], sort_keys=True, default=repr)
    dealer = _DEALERS.get(key)
    if dealer is None:
        _DEALERS.clear()
        dealer = _DEALERS[key] = compiled_engine(match, 1)
    deal_rows(dealer, np.zeros(1, dtype=np.int64), [deal_seed])
    env.reset(options={"state": dealer.state_of(0)})
    raw = env.unwrapped
    raw._rng = SplitMixRng(int(dealer._rng[0, 0]))
    raw._last_scores = np.asarray(raw._opening_scores(), dtype=np.float64).copy()


def compiled_twin(entry: AgentSpec | Agent, game: str) -> str | None:
    """The compiled player that plays as agent entry ``entry`` in ``game``, or ``None`` (played from Python).

    ``random``, plain ``greedy`` (no options), ``heuristic`` / ``heuristic@v1`` and ``heuristic@v2`` have
    twins where the game's ``compiled_players`` lists them (:func:`compiled_player_names`).
    """
    if not isinstance(entry, AgentSpec) or entry.options:
        return None
    if entry.kind == "random":
        name = "random"
    elif entry.kind == "greedy":
        name = "greedy"
    elif entry.kind == "heuristic":
        name = "heuristic@v2" if entry.version == "v2" else "heuristic"
    else:
        return None
    return name if name in compiled_player_names(game) else None


def prepare(match: Match) -> None:
    """Build the compiled loops ``match`` plays with in this process (before forking workers that inherit them)."""
    engine = compiled_engine(match, 1)
    seats = SeatPlayers(engine, compiled_player_names(match.game))
    deal_rows(engine, np.zeros(1, dtype=np.int64), [match.seed])
    seats.seat_player[:] = seats.index("random")
    seats.advance()  # numba compiles a loop on its first call: one game played in the engine
    engine.step(np.array([int(np.flatnonzero(engine.mask[0])[0])]))  # and one step from outside


def batch_key(agent: Any) -> Any:
    """The key under which ``agent`` decides together with others (its class's ``act_batch``), or ``None``.

    An agent that reads only its observation and mask and has ``batch_key()`` and a static
    ``act_batch(agents, observations, masks)`` (as :class:`~ice_envs.agents.ppo_agent.PPOAgent` has)
    decides, with every agent of its key waiting at the same step, in one call.
    """
    if getattr(agent, "needs_view", True) or not callable(getattr(agent, "act_batch", None)):
        return None
    key = getattr(agent, "batch_key", None)
    return key() if callable(key) else None


class _Table:
    """The games of one batch of a table: the engine, its in-engine seats and the Python-side agents."""

    def __init__(self, match: Match, indices: list[int], templates: list[Any]) -> None:
        n = match.num_players
        self.match, self.indices = match, indices
        self.engine = compiled_engine(match, len(indices))
        self.engine.copy = False
        self.cap = int(self.engine.max_game_length)
        self.seats = SeatPlayers(self.engine, compiled_player_names(match.game))
        twins = [compiled_twin(entry, match.game) for entry in match.agents]
        self.python: list[dict[int, Any]] = [{} for _ in indices]  # row -> seat -> Python-side agent
        self.views = [ViewGenerators(match, g) for g in indices]
        for row, g in enumerate(indices):
            for k, twin in enumerate(twins):
                seat = seat_of(k, g, n)
                if twin is not None:
                    self.seats.seat_player[row, seat] = self.seats.index(twin)
                    self.seats.prng[row, seat, 0] = stream_state(agent_seed(match.seed, g, k))
                else:
                    self.seats.seat_player[row, seat] = EXTERNAL
                    agent = copy.deepcopy(templates[k])
                    reset_agent(agent, match, g, k)
                    self.python[row][seat] = agent
        self.seats.memory[:] = 0
        deal_rows(self.engine, np.arange(len(indices)), [match.seed + g // n for g in indices])
        self.totals = np.zeros((len(indices), n))
        self.results: list[dict[str, Any] | None] = [None] * len(indices)
        self.live = np.ones(len(indices), dtype=bool)
        self._viewer: Any = None

    def play(self) -> list[dict[str, Any]]:
        """Play every game of the batch to its end; the results in the order of ``indices``."""
        engine = self.engine
        actions = np.zeros(engine.num_envs, dtype=np.int64)
        while self.live.any():
            rewards, ended, info = self.seats.advance(where=self.live)
            self.totals += rewards
            for row in np.flatnonzero(ended >= 0).tolist():
                self._finish(row, info, int(ended[row]), bool(info["truncated"][row]))
            waiting = self.live.copy()
            if not waiting.any():
                break
            self._python_actions(np.flatnonzero(waiting).tolist(), actions)
            _, _, _, rewards, _, truncated, info = engine.step(actions, where=waiting)
            self.totals[waiting] += rewards[waiting]
            for k, row in enumerate(info["final_index"].tolist()):
                self._finish(row, info, k, bool(truncated[row]))
        return [r for r in self.results if r is not None]

    def _python_actions(self, rows: list[int], actions: np.ndarray) -> None:
        """Write the actions of games ``rows``' deciding seats (agents played from Python) into ``actions``:
        agents of one :func:`batch_key` in one call, every other one game by game."""
        engine = self.engine
        groups: dict[Any, list[int]] = {}
        for row in rows:
            key = batch_key(self.python[row][int(engine.seat[row])])
            if key is None:
                actions[row] = self._python_action(row)
            else:
                groups.setdefault(key, []).append(row)
        for members in groups.values():
            agents = [self.python[row][int(engine.seat[row])] for row in members]
            chosen = type(agents[0]).act_batch(agents, engine.obs[members], engine.mask[members])
            actions[members] = np.asarray(chosen, dtype=np.int64)

    def _python_action(self, row: int) -> int:
        """The action of game ``row``'s deciding seat, an agent played from Python."""
        engine = self.engine
        seat = int(engine.seat[row])
        agent = self.python[row][seat]
        mask = engine.mask[row].copy()
        if getattr(agent, "needs_observation", True):
            obs = {"observation": engine.obs[row].copy(), "action_mask": mask}
        else:
            obs = {"action_mask": mask}
        view = None
        if agent.needs_view:
            if self._viewer is None:
                self._viewer = ice_envs.make(
                    self.match.game, raw=True, num_players=self.match.num_players, **env_options(self.match)
                )
            # the env's re-deal hook on the engine's state (a fresh object): the view make_view builds, without a reset
            self._viewer.game_state = engine.state_of(row)
            view = PlayerView(
                game=self.engine.game,
                seat=seat,
                num_players=self.match.num_players,
                state=self._viewer.resample_hidden(seat, self.views[row].of(seat)),
                legal_actions=np.flatnonzero(mask).tolist(),
            )
        return int(agent.act(obs, view))

    def _finish(self, row: int, info: dict[str, Any], k: int, truncated: bool) -> None:
        """Game ``row`` ended: its results from row ``k`` of ``info``'s final arrays."""
        outcome = info["final_outcome"][k]
        won = outcome > 0
        share = np.zeros(self.match.num_players)
        if won.any():
            share[won] = 1.0 / int(won.sum())
        decisions = int(info["final_length"][k])
        self.results[row] = game_result(
            self.match,
            self.indices[row],
            decisions,
            truncated,
            self.cap,
            self.totals[row],
            info["final_scores"][k],
            share,
        )
        self.live[row] = False
        self.python[row] = {}  # the game's Python-side agents are done


def play_games_batched(match: Match, indices: Sequence[int], agents: list[Any] | None = None) -> list[dict[str, Any]]:
    """Games ``indices`` of ``match`` (``chance="splitmix"``) on the compiled engine, all at once; results in
    the order of ``indices``, equal to :func:`~ice_envs.evaluation.tournament.play_game`'s for each game.

    ``agents``: the agent entries loaded (one per entry); each game plays with its own copies of the
    Python-side ones.
    """
    if not indices:
        return []
    indices = list(indices)
    with one_blas_thread():  # Python-side agents' one-observation products (ice_envs.core.threads)
        if agents is None:
            agents = [load_agent(spec, match.game, num_players=match.num_players) for spec in match.agents]
        if all(compiled_twin(entry, match.game) is not None for entry in match.agents):
            return _Table(match, indices, agents).play()
        # Python-side agents decide game after game as on the scalar path (their caches stay warm), or
        # in large waves where every one of them decides in batches
        python_side = [a for entry, a in zip(match.agents, agents) if compiled_twin(entry, match.game) is None]
        wave = BATCH_WAVE if all(batch_key(a) is not None for a in python_side) else PYTHON_WAVE
        results: list[dict[str, Any]] = []
        for start in range(0, len(indices), wave):
            results += _Table(match, indices[start : start + wave], agents).play()
        return results
