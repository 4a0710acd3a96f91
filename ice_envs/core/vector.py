"""Batched engines: thousands of games of one configuration advanced by one numpy call.

A batched engine holds the state of ``num_envs`` games of one game, one player count and one
set of options as a few numpy arrays (structure of arrays: no Python object per game), and
advances every game, or a chosen subset, by one decision per :meth:`BatchedEngine.step`.
Its transitions are the scalar env's (``ice_envs.make(game, raw=True, ...)``), exactly: the
same rules, the same observation vectors (``observe(deciding agent)["observation"]``), masks,
deciding seat (off-turn decisions included), rewards of the step (``reward_mode`` outcome or
score), truncation at the game's ``max_game_length`` and ``illegal_action`` policy. A game's
engine is named by its spec (``GameSpec.vector = "module:Class"``) and built by :func:`make`::

    from ice_envs import vector
    engine = vector.make("cardiceo", num_envs=1024, num_players=3, seed=0, hand_size=5)
    obs, mask, seat = engine.reset()
    obs, mask, seat, rewards, terminated, truncated, info = engine.step(actions)

Arrays (``N = num_envs``, ``P = num_players``):

* ``obs`` ``(N, obs_dim)`` float32: the deciding seat's observation (layout ``engine.obs_layout``);
* ``mask`` ``(N, n_actions)`` int8: the deciding seat's legal actions;
* ``seat`` ``(N,)`` int64: the seat that must decide (may be off-turn);
* ``rewards`` ``(N, P)`` float64: the AEC env's ``rewards`` of that step, per seat;
* ``terminated`` / ``truncated`` ``(N,)`` bool.

Finished games are reset at once (same-step auto-reset, as stable-baselines3's ``VecEnv``):
the returned ``obs``/``mask``/``seat`` of such a game are its new game's, and ``info`` keeps
what the finished game ended with, in compact arrays aligned with ``info["final_index"]``
(the finished games' indices, ascending; ``info["_final"]`` is the same as a ``(N,)`` mask,
Gymnasium's convention): ``final_obs`` ``(k, P, obs_dim)`` (every seat's terminal observation),
``final_rewards``, ``final_scores`` and ``final_outcome`` ``(k, P)`` (outcome rewards whatever
``reward_mode``; zero for a truncated or penalised game) and ``final_length`` ``(k,)`` (decisions).
``info["illegal"]`` ``(N,)`` marks games ended by a penalised illegal action.

Randomness: one :class:`numpy.random.Generator` per batch (``seed``); the same seed and actions
give the same batch trajectory. Every chance outcome that the scalar engine draws with
``rng.integers`` (dice) goes through :meth:`BatchedEngine._integers`; with ``draw_log`` set to a
list, each draw is recorded as ``(stage, games, values)`` — exactly the values the scalar
engine's ``integers`` calls would return, in the order it makes them per game — which is how
``tests/core/test_vector_parity.py`` replays them into the scalar env.

A game's engine subclasses :class:`BatchedEngine` and implements the hooks marked "game hook",
each on an ``idx`` array of game indices; steps with per-game variable work group the games by
case and process each group with array operations.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.registry import get_spec, load_attribute

__all__ = [
    "BatchedEngine",
    "ENGINES",
    "STAGE_RESET",
    "STAGE_STEP",
    "compiled_available",
    "engine_class",
    "make",
    "random_actions",
    "sample_legal",
]

#: ``draw_log`` stage of a draw made while applying an action.
STAGE_STEP = 0
#: ``draw_log`` stage of a draw made while dealing a new game (reset or auto-reset).
STAGE_RESET = 1


class BatchedEngine:
    """Many games of one configuration as numpy arrays; see the module docstring.

    Args:
        num_envs: games in the batch (at least 1).
        num_players: seats (default: the game's smallest player count).
        seed: seed of the batch's generator (``None``: fresh entropy).
        copy: return copies of the observation, mask and seat buffers (default); ``False``
            returns the engine's own buffers, overwritten by the next call.
        **options: the scalar env's options (validated by building one scalar env).
    """

    #: Registry name of the game (game hook).
    game: ClassVar[str] = ""
    #: Names of the state arrays (game hook): ``state_arrays()`` and the memory figure use them.
    state_names: ClassVar[tuple[str, ...]] = ()
    #: Fields of the scalar state dataclass the engine does not keep (game hook; e.g. text for rendering).
    unkept_state_fields: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        num_envs: int,
        num_players: int | None = None,
        *,
        seed: int | None = None,
        copy: bool = True,
        **options: Any,
    ) -> None:
        import ice_envs

        spec = get_spec(self.game)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise OptionError(f"{self.game}: num_envs must be an integer >= 1, got {num_envs!r}")
        if num_players is None:
            num_players = spec.players[0]
        render_mode = options.get("render_mode")
        if render_mode is not None:
            raise OptionError(f"{self.game}: a batched engine does not render (render_mode={render_mode!r})")
        #: One scalar env, built to validate the options and to read the configuration.
        self.scalar = ice_envs.make(self.game, raw=True, num_players=num_players, **options)
        if self.scalar.skip_forced:
            raise OptionError(
                f"{self.game}: skip_forced=True is not supported by the batched engine "
                "(every step is a decision there; use the AEC env for forced-step skipping)"
            )
        self.options = dict(options)
        self.num_envs = int(num_envs)
        self.num_players = int(self.scalar.num_players)
        self.config = self.scalar.config
        self.obs_layout = self.scalar.obs_layout
        self.obs_dim = int(self.obs_layout.size)
        self.n_actions = int(self.scalar.action_space(self.scalar.possible_agents[0]).n)
        self.max_game_length = int(self.scalar.max_game_length)
        self.reward_mode = self.scalar.reward_mode
        self.illegal_action = self.scalar.illegal_action
        self.illegal_reward = float(self.scalar.illegal_reward)
        self.observation_space = self.obs_layout.box()
        self.copy = bool(copy)
        self.rng = np.random.default_rng(seed)
        #: ``None``, or a list that every chance draw is appended to as ``(stage, games, values)``.
        self.draw_log: list[tuple[int, np.ndarray, np.ndarray]] | None = None
        self._stage = STAGE_RESET
        n, p = self.num_envs, self.num_players
        self._all = np.arange(n)
        self.mask = np.zeros((n, self.n_actions), dtype=np.int8)
        self.seat = np.zeros(n, dtype=np.int64)
        self.obs = np.zeros((n, self.obs_dim), dtype=np.float32)
        self.num_steps = np.zeros(n, dtype=np.int64)
        self.last_scores = np.zeros((n, p), dtype=np.float64)
        self._setup()
        self._started = False

    # ------------------------------------------------------------------ game hooks
    def _setup(self) -> None:  # game hook
        """Allocate the state arrays (``num_envs`` rows each)."""
        raise NotImplementedError

    def _new_games(self, idx: np.ndarray) -> None:  # game hook
        """Deal fresh games at rows ``idx`` (randomness from :meth:`_integers` and ``self.rng``)."""
        raise NotImplementedError

    def _legal(self, idx: np.ndarray) -> np.ndarray:  # game hook
        """``(len(idx), n_actions)`` bool: the deciding seat's legal actions (none once over)."""
        raise NotImplementedError

    def _apply(self, idx: np.ndarray, actions: np.ndarray) -> None:  # game hook
        """Apply one legal action per game of ``idx``."""
        raise NotImplementedError

    def _deciding(self, idx: np.ndarray) -> np.ndarray:  # game hook
        """The seat that must decide in each game of ``idx`` (the scalar env's ``current_seat``)."""
        raise NotImplementedError

    def _is_over(self, idx: np.ndarray) -> np.ndarray:  # game hook
        raise NotImplementedError

    def _outcome(self, idx: np.ndarray) -> np.ndarray:  # game hook
        """``(len(idx), P)`` outcome rewards (zero while a game goes on)."""
        raise NotImplementedError

    def _scores(self, idx: np.ndarray) -> np.ndarray:  # game hook
        """``(len(idx), P)`` running scores (float64)."""
        raise NotImplementedError

    def _encode(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:  # game hook
        """``(len(idx), obs_dim)`` float32: the observation of ``seats[j]`` in game ``idx[j]``."""
        raise NotImplementedError

    def state_of(self, i: int) -> Any:  # game hook
        """Game ``i`` as the scalar engine's state dataclass (for tests and inspection)."""
        raise NotImplementedError

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:  # game hook
        """How a scalar env starts game ``i`` as dealt (:mod:`ice_envs.core.engine_parity`): its reset
        options, and whether the draws this engine made while dealing are replayed into the scalar deal.

        The default starts from the whole state as dealt (nothing replayed); a game whose scalar env
        can deal given cards (and then roll its dice itself) overrides it, so that the deal's own
        chance and its consequences are compared as well.
        """
        return {"state": self.state_of(i)}, False

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every game anew (``seed`` reseeds the batch's generator); returns ``(obs, mask, seat)``."""
        if self._checked_seed(seed) is not None:
            self.rng = np.random.default_rng(int(seed))
        idx = self._all
        self._restart(idx)
        self._refresh(idx)
        self._started = True
        return self._out()

    def step(
        self, actions: np.ndarray, where: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game (or in the games where ``where`` (``(N,)`` bool) is true).

        ``actions`` ``(N,)``: an action id per game (entries of games not stepped are ignored).
        Returns ``(obs, mask, seat, rewards, terminated, truncated, info)``; see the module docstring.
        An action outside ``0..n_actions-1`` raises :class:`IllegalActionError`; one that the mask
        forbids raises too (``illegal_action="raise"``, nothing is changed) or ends that game with
        ``illegal_reward`` for the deciding seat (``"penalize"``).
        """
        n, p = self.num_envs, self.num_players
        actions = self._checked_actions(actions)
        where = self._checked_where(where)
        idx = self._all if where is None else np.flatnonzero(where)
        act = actions[idx].astype(np.int64)
        out_of_space = (act < 0) | (act >= self.n_actions)
        if out_of_space.any():
            j = int(np.flatnonzero(out_of_space)[0])
            raise self._outside_space(int(idx[j]), int(act[j]))
        legal = self.mask[idx, act].astype(bool)
        bad = idx[~legal]
        if bad.size and self.illegal_action == "raise":
            raise self._illegal_here(int(bad[0]), int(actions[bad[0]]))
        ok = idx[legal] if bad.size else idx
        act_ok = act[legal] if bad.size else act
        self._stage = STAGE_STEP
        self._apply(ok, act_ok)
        self.num_steps[ok] += 1
        rewards = np.zeros((n, p), dtype=np.float64)
        if self.reward_mode == "score":
            scores = self._scores(ok)
            rewards[ok] = scores - self.last_scores[ok]
            self.last_scores[ok] = scores
        over = self._is_over(ok)
        ended = ok[over]
        if self.reward_mode == "outcome" and ended.size:
            rewards[ended] += self._outcome(ended)
        going = ok[~over]
        cut = going[self.num_steps[going] >= self.max_game_length]
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        terminated[ended] = True
        truncated[cut] = True
        illegal = np.zeros(n, dtype=bool)
        if bad.size:
            rewards[bad] = 0.0
            rewards[bad, self.seat[bad]] = self.illegal_reward
            terminated[bad] = True
            illegal[bad] = True
        final = terminated | truncated
        fin = np.flatnonzero(final)
        info: dict[str, Any] = {"_final": final, "final_index": fin, "illegal": illegal}
        info["final_obs"] = self._all_seats_obs(fin)
        info["final_rewards"] = rewards[fin]
        info["final_scores"] = self._scores(fin)
        info["final_outcome"] = self._outcome(fin)
        info["final_length"] = self.num_steps[fin].copy()
        if fin.size:
            self._restart(fin)
        self._refresh(idx)
        obs, mask, seat = self._out()
        return obs, mask, seat, rewards, terminated, truncated, info

    def restart(self, where: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal new games in the games where ``where`` (``(N,)`` bool) is true, whatever their state
        (a wrapper ending an episode on its own, e.g. for an illegal action); returns ``(obs, mask, seat)``."""
        idx = np.flatnonzero(np.asarray(where, dtype=bool))
        if idx.size:
            self._restart(idx)
            self._refresh(idx)
        return self._out()

    def observe(self, seats: np.ndarray | int) -> np.ndarray:
        """``(N, obs_dim)``: each game's observation from ``seats`` (an int, or one seat per game)."""
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), (self.num_envs,))
        if (seats < 0).any() or (seats >= self.num_players).any():
            raise ValueError(f"{self.game}: seats must lie in 0..{self.num_players - 1}")
        return self._encode(self._all, seats)

    def scores(self) -> np.ndarray:
        """``(N, P)``: the running score of every seat of every game."""
        return self._scores(self._all)

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The arrays holding the state of every game (name -> array, ``num_envs`` rows each), the
        engine's bookkeeping (decision counts, last scores, masks) included."""
        arrays = {name: getattr(self, name) for name in self.state_names}
        arrays.update(num_steps=self.num_steps, last_scores=self.last_scores, mask=self.mask, seat=self.seat)
        return arrays

    @property
    def state_nbytes(self) -> int:
        """Bytes of :meth:`state_arrays`."""
        return int(sum(a.nbytes for a in self.state_arrays().values()))

    @property
    def bytes_per_game(self) -> float:
        """:attr:`state_nbytes` / ``num_envs`` (the observation buffer not counted)."""
        return self.state_nbytes / self.num_envs

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_envs={self.num_envs}, num_players={self.num_players}, {self.config})"

    # ------------------------------------------------------------------ argument checks (shared by every engine)
    def _checked_seed(self, seed: int | None) -> int | None:
        """``seed`` if it is ``None`` or an integer >= 0, else :class:`OptionError`."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise OptionError(f"{self.game}: seed must be an integer >= 0, got {seed!r}")
        return seed

    def _checked_actions(self, actions: np.ndarray) -> np.ndarray:
        """``actions`` as an integer array of shape ``(N,)`` (the engine must have been reset), else an error."""
        if not self._started:
            raise RuntimeError(f"{self.game}: call reset() before step()")
        actions = np.asarray(actions)
        n = self.num_envs
        if actions.shape != (n,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"{self.game}: actions must be an integer array of shape ({n},), got {actions.dtype} {actions.shape}"
            )
        return actions

    def _checked_where(self, where: np.ndarray | None) -> np.ndarray | None:
        """``where`` as an ``(N,)`` bool array (``None`` stays ``None``: every game), else :class:`ValueError`."""
        if where is None:
            return None
        where = np.asarray(where, dtype=bool)
        if where.shape != (self.num_envs,):
            raise ValueError(f"{self.game}: where must have shape ({self.num_envs},), got {where.shape}")
        return where

    def _outside_space(self, game: int, action: int) -> IllegalActionError:
        """The error of an action id outside ``0..n_actions-1`` in game ``game``."""
        return IllegalActionError(
            f"{self.game}: game {game}: action {action} is outside the action space 0..{self.n_actions - 1}"
        )

    def _illegal_here(self, game: int, action: int) -> IllegalActionError:
        """The error of an action the mask of game ``game`` forbids (``illegal_action="raise"``)."""
        return IllegalActionError(
            f"{self.game}: game {game}: action {action} is illegal for player_{int(self.seat[game])}; "
            f"legal actions: {np.flatnonzero(self.mask[game]).tolist()}"
        )

    # ------------------------------------------------------------------ internals
    def _integers(self, games: np.ndarray, low: int | np.ndarray, high: int | np.ndarray) -> np.ndarray:
        """One draw of ``rng.integers(low, high)`` per game of ``games`` (int64; logged if ``draw_log``)."""
        values = self.rng.integers(low, high, size=len(games))
        if self.draw_log is not None and len(games):
            self.draw_log.append((self._stage, np.asarray(games).copy(), values.copy()))
        return values

    def _log_draws(self, games: np.ndarray, values: np.ndarray) -> None:
        """Record draws made in bulk (``games[j]`` drew ``values[j]``, in this order per game)."""
        if self.draw_log is not None and len(games):
            self.draw_log.append((self._stage, np.asarray(games).copy(), np.asarray(values, dtype=np.int64).copy()))

    def _restart(self, idx: np.ndarray) -> None:
        self._stage = STAGE_RESET
        self._new_games(idx)
        self.num_steps[idx] = 0
        self.last_scores[idx] = self._scores(idx)
        self._stage = STAGE_STEP

    def _refresh(self, idx: np.ndarray) -> None:
        """Recompute mask, deciding seat and observation of the games of ``idx``."""
        if not idx.size:
            return
        self.mask[idx] = self._legal(idx)
        seats = self._deciding(idx)
        self.seat[idx] = seats
        self.obs[idx] = self._encode(idx, seats)

    def _all_seats_obs(self, idx: np.ndarray) -> np.ndarray:
        out = np.zeros((idx.size, self.num_players, self.obs_dim), dtype=np.float32)
        if idx.size:
            for s in range(self.num_players):
                out[:, s] = self._encode(idx, np.full(idx.size, s, dtype=np.int64))
        return out

    def _out(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.copy:
            return self.obs.copy(), self.mask.copy(), self.seat.copy()
        return self.obs, self.mask, self.seat


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``(N, A)``; rows without a legal action get 0).

    Each legal entry gets an independent uniform key in [1, 2) (illegal ones 0) and the largest key wins.
    """
    mask = np.asarray(mask)
    keys = rng.random(mask.shape, dtype=np.float32)
    keys += 1.0
    keys *= mask
    return keys.argmax(axis=1)


#: The kinds of batched engine :func:`make` builds.
ENGINES = ("auto", "compiled", "numpy")


def compiled_available() -> bool:
    """Whether numba (the compiled engines' compiler, the ``fast`` extra) can be imported."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``(N, A)``; rows without a legal action get 0).

    One uniform draw ``u`` per row (``rng.random(N)``) picks the ``floor(u * k)``-th of the row's ``k``
    legal actions: ``N`` draws instead of :func:`random_actions`' ``N * A``, and compiled where numba is
    installed (the same actions either way). The random play of the batched benchmark uses it.
    """
    mask = np.ascontiguousarray(mask)
    u = rng.random(mask.shape[0])
    if compiled_available():
        from ice_envs.core.compiled_sampling import sample_legal_rows

        out = np.zeros(mask.shape[0], dtype=np.int64)
        sample_legal_rows(mask, u, out)
        return out
    counts = mask.sum(axis=1, dtype=np.int64)
    pick = np.floor(u * counts).astype(np.int64)
    cumulative = np.cumsum(mask, axis=1, dtype=np.int64)
    return np.where(counts > 0, (cumulative > pick[:, None]).argmax(axis=1), 0)


def engine_class(game: str, engine: str = "auto") -> type[BatchedEngine]:
    """The batched engine class of ``game``.

    ``engine``: ``"compiled"`` (the spec's ``compiled`` engine: one machine-code loop per step),
    ``"numpy"`` (the spec's ``vector`` engine: numpy array operations), or ``"auto"`` (compiled when
    the game has one and numba is installed, else numpy). :class:`OptionError` if the game has no
    engine of that kind.
    """
    if engine not in ENGINES:
        raise OptionError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    spec = get_spec(game)
    if engine == "compiled" or (engine == "auto" and spec.compiled and compiled_available()):
        if not spec.compiled:
            raise OptionError(f"{spec.name}: this game has no compiled engine (GameSpec.compiled is not set)")
        if not compiled_available():
            raise OptionError(
                f"{spec.name}: the compiled engine needs numba: pip install 'ice-envs[fast]' (or engine='numpy')"
            )
        return load_attribute(spec.compiled)
    if not spec.vector:
        if spec.compiled:
            raise OptionError(f"{spec.name}: this game has only a compiled engine: pip install 'ice-envs[fast]'")
        raise OptionError(f"{spec.name}: this game has no batched engine (GameSpec.vector is not set)")
    return load_attribute(spec.vector)


def make(
    game: str, num_envs: int, num_players: int | None = None, *, engine: str = "auto", **options: Any
) -> BatchedEngine:
    """The batched engine of ``game`` with ``num_envs`` games.

    ``engine``: ``"auto"`` (default: the compiled engine where the game has one and numba is
    installed, else the numpy one), ``"compiled"`` or ``"numpy"`` (:func:`engine_class`);
    ``options``: ``seed``, ``copy`` and the env's options. Every kind makes the scalar env's
    transitions; the kinds differ in speed and in how a batch seed becomes each game's chance
    (the compiled engines give each game its own stream, so a game does not depend on the batch size).
    """
    return engine_class(game, engine)(num_envs, num_players, **options)
