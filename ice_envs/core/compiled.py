"""Compiled batched engines: a game's rules as numba functions on one game's state row, batched by one shared loop.

A compiled engine is a :class:`~ice_envs.core.vector.BatchedEngine` (same API, same transitions as the
scalar env, same auto-reset and ``info``) whose whole step runs as machine code: one call of a
numba-compiled loop advances every game of the batch by one decision, applies the action, settles
the chance that follows, pays the rewards, ends and re-deals finished games, and writes the next
mask, deciding seat and observation. No Python runs per game.

A game provides eight small ``numba.njit`` functions on **one game's state row** (a 1-D integer
array of :attr:`CompiledEngine.state_width` entries of :attr:`CompiledEngine.state_dtype`, laid out
by the game) and one ``int64`` config
row ``cfg`` (player count, options and observation offsets, laid out by the game):

========================================  ====================================================================
``new_game(s, rng, cfg)``                 deal a fresh game into ``s`` (shuffles with :func:`below`, dice with :func:`draw`)
``legal(s, cfg, mask)``                   write the deciding seat's legal actions into ``mask`` (int8, every entry)
``apply(s, action, rng, cfg)``            apply one legal action, chance included
``deciding(s, cfg) -> int``               the seat that must decide (the scalar env's ``current_seat``)
``is_over(s, cfg) -> bool``               the game has ended (decided, or stopped by a cap of its own)
``scores(s, cfg, out)``                   running scores of every seat into ``out`` (float64)
``outcome(s, cfg, out)``                  outcome rewards into ``out`` (float64; zeros while the game goes on)
``encode(s, seat, cfg, obs)``             ``seat``'s observation into ``obs`` (float32, zeroed by the caller)
========================================  ====================================================================

and optionally ``undecided(s, cfg) -> bool``: the game is over but stopped undecided at a cap of its
own (the scalar env's ``_undecided_stop``, e.g. Iceberg Rummy's ``max_hands``), which ends it as a
truncation with no outcome reward; without it every end is decided. And optionally
``opening_scores(s, cfg, out)``: the scores a freshly dealt game's score rewards count from (the
scalar env's ``_opening_scores``: before an automatic opening move that scores); without it, the
scores of the deal.

The kernels are named by a :class:`GameKernels` and must be defined at a module's top level: the
shared batch loops (:mod:`ice_envs.core.compiled_loops`) import them into one generated module per
game (:mod:`ice_envs.core.compiled_cache`), which numba caches on disk like the kernels themselves, so
only the first process compiles. The Python side is a :class:`CompiledEngine` subclass that names the
kernels, the state width and the config row, and turns a state row back into the scalar engine's state
(``state_of``, for tests and inspection). Because the rules are plain Python in numba's subset,
``NUMBA_DISABLE_JIT=1`` runs the very same code as Python (breakpoints and tracebacks work), and a
plug-in game can ship a compiled engine with no compiler of its own: numba (from PyPI) compiles it on
first use and caches the machine code beside the module (``python -m ice_envs.core.compiled_warmup``
compiles every game's ahead of use).

Randomness: each game has its own SplitMix64 stream (``rng[i, 0]``), seeded from the batch seed and
the game's index, so a game's deals and dice do not depend on the batch size or on the other
games. :func:`draw` returns ``low + uniform(high - low)`` as the scalar engine's
``rng.integers(low, high)`` would be asked (dice); with a draw log (``engine.draw_log = []``) every
such draw is recorded in order, which is how the parity tests replay them into the scalar env.
:func:`below` draws without logging (a deal's shuffle, which the parity tests pass as a position).
Integers only: results are bit-identical on every CPU.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ice_envs.core import compiled_cache
from ice_envs.core.compiled_streams import below, draw, read_u32, seed63, seed_streams, shuffle, uniform, write_u32
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.vector import STAGE_RESET, STAGE_STEP, BatchedEngine

__all__ = [
    "CompiledEngine",
    "GameKernels",
    "below",
    "draw",
    "read_u32",
    "seed63",
    "seed_streams",
    "shuffle",
    "uniform",
    "write_u32",
]

#: A game's numba functions: cached on disk beside each module (``__pycache__``), reused across processes, and
#: recompiled when a file their machine code comes from changes (:func:`ice_envs.core.compiled_cache.njit`).
njit = compiled_cache.njit

#: Log slots per game and step (a step that plays many automatic turns, e.g. solo Icebergs on a tiny map, draws many).
LOG_CAPACITY = 1024


@dataclass(frozen=True)
class GameKernels:
    """A game's compiled rules (see the module docstring): module-level numba functions."""

    new_game: Any
    legal: Any
    apply: Any
    deciding: Any
    is_over: Any
    scores: Any
    outcome: Any
    encode: Any
    #: optional ``undecided(s, cfg) -> bool`` (see the module docstring); ``None``: every end is decided
    undecided: Any = None
    #: optional ``opening_scores(s, cfg, out)`` (see the module docstring); ``None``: ``scores``
    opening_scores: Any = None


class CompiledEngine(BatchedEngine):
    """A batched engine whose step is one compiled loop (see the module docstring).

    A game's subclass sets :attr:`game`, :attr:`state_width` and :attr:`kernels` (its
    :class:`GameKernels`; its loops are compiled, or loaded from numba's cache, on first use) and implements
    :meth:`config_row` and :meth:`state_of`.
    """

    #: Entries of one game's state row (game hook).
    state_width: ClassVar[int] = 0
    #: Integer type of the state row (game hook): the smallest that holds every value keeps a batch in cache.
    state_dtype: ClassVar[type] = np.int32
    #: The game's compiled rules (game hook).
    kernels: ClassVar[GameKernels]
    #: The module of compiled loops per engine class (:func:`~ice_envs.core.compiled_cache.game_loops`, on first use).
    _built: ClassVar[dict[type, Any]] = {}
    state_names = ("state",)
    #: Draws a game may log between two collections (a step, or a whole :meth:`playout`).
    log_capacity: int = LOG_CAPACITY

    def config_row(self) -> np.ndarray:  # game hook
        """The ``int64`` config row the kernels read (player count, options, observation offsets)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ set-up
    def _setup(self) -> None:
        cls = type(self)
        if cls not in CompiledEngine._built:
            from ice_envs.core.compiled_players import compiled_player, compiled_player_names

            players = [compiled_player(self.game, name) for name in compiled_player_names(self.game)]
            CompiledEngine._built[cls] = compiled_cache.game_loops(
                self.game, cls.kernels, players, inspect.getfile(cls)
            )
        self._loops = CompiledEngine._built[cls]
        n, p = self.num_envs, self.num_players
        self.state = np.zeros((n, self.state_width), dtype=self.state_dtype)
        self._cfg = np.ascontiguousarray(self.config_row(), dtype=np.int64)
        self._streams = seed_streams(self._seed, n)
        self._rng = np.zeros((n, 2), dtype=np.uint64)
        self._rng[:, 0] = self._streams
        self._mark = np.full(n, -1, dtype=np.int64)
        self._rewards = np.zeros((n, p), dtype=np.float64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._illegal = np.zeros(n, dtype=bool)
        self._fin_index = np.zeros(n, dtype=np.int64)
        self._fin_obs = np.zeros((n, p, self.obs_dim), dtype=np.float32)
        self._fin_rewards = np.zeros((n, p), dtype=np.float64)
        self._fin_scores = np.zeros((n, p), dtype=np.float64)
        self._fin_outcome = np.zeros((n, p), dtype=np.float64)
        self._fin_length = np.zeros(n, dtype=np.int64)
        self._scratch = np.zeros(p, dtype=np.float64)
        self._everywhere = np.ones(n, dtype=bool)
        self._score_mode = self.reward_mode == "score"
        self._draw_log: list[tuple[int, np.ndarray, np.ndarray]] | None = None

    def __init__(self, num_envs: int, num_players: int | None = None, *, seed: int | None = None, **options: Any):
        self._seed = self._checked_seed(seed)
        super().__init__(num_envs, num_players, seed=seed, **options)

    # ------------------------------------------------------------------ draw log
    @property
    def draw_log(self) -> list[tuple[int, np.ndarray, np.ndarray]] | None:
        """``None``, or a list every chance draw is appended to as ``(stage, games, values)`` (slower)."""
        return self._draw_log

    @draw_log.setter
    def draw_log(self, log: list[tuple[int, np.ndarray, np.ndarray]] | None) -> None:
        self._draw_log = log
        if not hasattr(self, "_rng"):
            return
        width = 2 + self.log_capacity if log is not None else 2
        if self._rng.shape[1] != width:
            rng = np.zeros((self.num_envs, width), dtype=np.uint64)
            rng[:, 0] = self._rng[:, 0]
            self._rng = rng

    def _collect_draws(self, games: np.ndarray, restarted_only: bool) -> None:
        if self._draw_log is None:
            return
        for i in games.tolist():
            count = int(self._rng[i, 1])
            values = self._rng[i, 2 : 2 + count].astype(np.int64)
            mark = int(self._mark[i])
            cut = 0 if restarted_only else (mark if mark >= 0 else count)
            if cut:
                self._draw_log.append((STAGE_STEP, np.full(cut, i), values[:cut]))
            if count > cut:
                self._draw_log.append((STAGE_RESET, np.full(count - cut, i), values[cut:]))

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every game anew (``seed`` re-seeds every game's stream); returns ``(obs, mask, seat)``."""
        if self._checked_seed(seed) is not None:
            self._rng[:, 0] = seed_streams(int(seed), self.num_envs)
        self._deal(self._all)
        self._started = True
        return self._out()

    def _deal(self, idx: np.ndarray) -> None:
        rows = np.ascontiguousarray(idx, dtype=np.int64)
        self._loops.restart(
            rows,
            self.state,
            self._rng,
            self._cfg,
            self._mark,
            self.num_steps,
            self.last_scores,
            self.mask,
            self.seat,
            self.obs,
        )
        self._collect_draws(rows, restarted_only=True)

    def restart(self, where: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        idx = np.flatnonzero(np.asarray(where, dtype=bool))
        if idx.size:
            self._deal(idx)
        return self._out()

    def step(
        self, actions: np.ndarray, where: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game (or where ``where`` is true); see :meth:`BatchedEngine.step`."""
        actions = self._checked_actions(actions)
        where = self._checked_where(where)
        active = self._everywhere if where is None else where
        act = actions if actions.dtype == np.int64 else actions.astype(np.int64)
        bad = self._loops.first_bad(act, active, self.mask, self.n_actions, self.illegal_action == "raise")
        if bad <= -2:
            raise self._outside_space(-2 - bad, int(act[-2 - bad]))
        if bad >= 0:
            raise self._illegal_here(bad, int(act[bad]))
        k = self._run_step(act, active)
        if self._draw_log is not None:
            self._collect_draws(np.flatnonzero(active), restarted_only=False)
        final = self._terminated | self._truncated
        info: dict[str, Any] = {
            "_final": final,
            "final_index": self._fin_index[:k].copy(),
            "illegal": self._illegal.copy(),
            "final_obs": self._fin_obs[:k].copy(),
            "final_rewards": self._fin_rewards[:k].copy(),
            "final_scores": self._fin_scores[:k].copy(),
            "final_outcome": self._fin_outcome[:k].copy(),
            "final_length": self._fin_length[:k].copy(),
        }
        obs, mask, seat = self._out()
        return obs, mask, seat, self._rewards.copy(), self._terminated.copy(), self._truncated.copy(), info

    def _run_step(self, actions: np.ndarray, active: np.ndarray) -> int:
        """The compiled step loop on the engine's buffers (``actions`` int64, checked); the games that ended."""
        return self._loops.step(
            actions, active, self.state, self._rng, self._cfg, self._score_mode, self.max_game_length,
            self.illegal_reward, self._mark, self.num_steps, self.last_scores, self.mask, self.seat, self.obs,
            self._rewards, self._terminated, self._truncated, self._illegal, self._fin_index, self._fin_obs,
            self._fin_rewards, self._fin_scores, self._fin_outcome, self._fin_length, self._scratch,
        )  # fmt: skip

    # ------------------------------------------------------------------ branching (search)
    def pack_state(self, state: Any) -> np.ndarray:  # game hook
        """The state row of the scalar engine's ``state`` (the inverse of :meth:`state_of`)."""
        raise NotImplementedError(f"{self.game}: this compiled engine cannot load positions")

    def load(
        self,
        states: list[Any],
        seeds: np.ndarray | list[int] | None = None,
        *,
        streams: np.ndarray | None = None,
    ) -> tuple[np.ndarray, ...]:
        """Put one scalar engine state per game into the batch (``len(states) == num_envs``), e.g. copies of
        one position with the hidden information re-dealt (``resample_hidden``) for search.

        ``seeds``: one per game, seeding its stream (the same seeds give the same chance afterwards: common
        random numbers across the candidates of a search); or ``streams``: the raw ``uint64`` stream states
        themselves (no seeding cost: for thousands of rows); neither keeps the streams. A position given
        several times (the same object) is packed once. Returns ``(obs, mask, seat)``; :meth:`step` and
        :meth:`playout` go on from there.
        """
        if len(states) != self.num_envs:
            raise OptionError(f"{self.game}: load() takes one state per game ({self.num_envs}), got {len(states)}")
        if seeds is not None and streams is not None:
            raise OptionError(f"{self.game}: load() takes seeds or streams, not both")
        if streams is not None:
            streams = np.asarray(streams, dtype=np.uint64).reshape(-1)
            if streams.shape != (self.num_envs,):
                raise OptionError(f"{self.game}: load() takes one stream per game ({self.num_envs})")
        if seeds is not None:
            seeds = np.asarray(seeds, dtype=np.uint64).reshape(-1)
            if seeds.shape != (self.num_envs,):
                raise OptionError(f"{self.game}: load() takes one seed per game ({self.num_envs})")
        slot: dict[int, int] = {}
        packed: list[np.ndarray] = []
        which = np.empty(self.num_envs, dtype=np.int64)
        for i, state in enumerate(states):
            key = id(state)
            if key not in slot:
                slot[key] = len(packed)
                packed.append(np.asarray(self.pack_state(state), dtype=self.state_dtype))
            which[i] = slot[key]
        self.state[:] = np.stack(packed)[which]
        if seeds is not None:
            self._rng[:, 0] = np.array([seed_streams(int(x), 1)[0] for x in seeds], dtype=np.uint64)
        elif streams is not None:
            self._rng[:, 0] = streams
        self._loops.loaded(self.state, self._cfg, self.num_steps, self.last_scores, self.mask, self.seat, self.obs)
        self._started = True
        return self._out()

    def checked_first_actions(self, first_actions: np.ndarray | None) -> np.ndarray:
        """A playout's first actions as ``int64`` (``-1``: none; ``None``: none anywhere), each legal in its game.

        Raises:
            IllegalActionError: a wrong shape, or the first game whose first action is not legal there.
        """
        n = self.num_envs
        first = np.full(n, -1, dtype=np.int64) if first_actions is None else np.asarray(first_actions, dtype=np.int64)
        if first.shape != (n,):
            raise IllegalActionError(f"{self.game}: first_actions must have shape ({n},), got {first.shape}")
        bad = self._loops.first_bad(first, first >= 0, self.mask, self.n_actions, True)
        if bad != -1:
            game = bad if bad >= 0 else -2 - bad
            raise IllegalActionError(f"{self.game}: game {game}: first action {int(first[game])} is not legal")
        return first

    def playout(
        self, first_actions: np.ndarray | None = None, *, max_decisions: int | None = None, record: int = 0
    ) -> dict[str, np.ndarray]:
        """Play every game of the batch to its end in one compiled call: ``first_actions[i]`` first (legal;
        ``-1``: none) and then uniformly random legal actions from each game's own stream.

        Returns ``scores`` and ``outcome`` ``(N, P)`` at the end (outcome zero for a game cut at
        ``max_decisions``, default the game's maximum length), ``length`` ``(N,)`` (decisions played) and,
        with ``record=K``, ``actions`` ``(N, K)``: the first K actions of each game (-1 past its end).
        The rows hold the finished games afterwards: :meth:`load` or :meth:`reset` before stepping again.
        """
        n, p = self.num_envs, self.num_players
        first = self.checked_first_actions(first_actions)
        out = {
            "scores": np.zeros((n, p), dtype=np.float64),
            "outcome": np.zeros((n, p), dtype=np.float64),
            "length": np.zeros(n, dtype=np.int64),
            "actions": np.full((n, record), -1, dtype=np.int64),
        }
        limit = self.max_game_length if max_decisions is None else int(max_decisions)
        self._loops.playout(
            self.state, self._rng, self._cfg, self.mask, first, limit,
            out["scores"], out["outcome"], out["length"], out["actions"],
        )  # fmt: skip
        if not record:
            del out["actions"]
        if self._draw_log is not None:
            self._mark[:] = -1
            self._collect_draws(self._all, restarted_only=False)
        self._started = False
        return out

    def observe(self, seats: np.ndarray | int) -> np.ndarray:
        seats = np.ascontiguousarray(np.broadcast_to(np.asarray(seats, dtype=np.int64), (self.num_envs,)))
        if (seats < 0).any() or (seats >= self.num_players).any():
            raise ValueError(f"{self.game}: seats must lie in 0..{self.num_players - 1}")
        out = np.zeros((self.num_envs, self.obs_dim), dtype=np.float32)
        self._loops.observe(self.state, self._cfg, seats, out)
        return out

    def scores(self) -> np.ndarray:
        out = np.zeros((self.num_envs, self.num_players), dtype=np.float64)
        self._loops.all_scores(self.state, self._cfg, out)
        return out
