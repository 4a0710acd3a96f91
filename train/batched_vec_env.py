"""A stable-baselines3 ``VecEnv`` over a batched engine: one learner seat per game, batched opponents.

:class:`BatchedVecEnv` runs ``num_envs`` games in one batched engine (:mod:`ice_envs.core.vector`,
Cardiceo and CubeMelt) in the training process — no worker processes, no Python object per
game. In every game the learner holds one seat (drawn uniformly at each game start, or fixed
by ``learner_seat``); the other seats are played by vectorised opponents: ``"random"`` (uniform
legal actions) or ``"greedy"`` (:func:`greedy_actions`), drawn per game from ``opponents``
(a weight per kind) at each game start.

The semantics are :class:`train.single_agent.SingleAgentEnv`'s, per game:

* ``step_wait()`` plays the learner's action in every game, then the opponents (batched: each
  round steps only the games whose deciding seat is not the learner's) until the learner must
  decide again (on or off its turn) or the game ends;
* the reward is the learner's reward summed over everything since its previous decision (its
  action, the opponents' decisions after it and, for a game's first action, the opponents'
  decisions before it);
* a game that ends before the learner ever acts is re-dealt (``skipped_games`` counts them);
* at a game end: ``done``, ``info["terminal_observation"]`` (the learner's final observation),
  ``info["episode"]`` (``r``: return, ``l``: learner decisions), ``is_success`` (a win),
  ``seat``, ``scores``, ``TimeLimit.truncated``; the returned observation is the next game's;
* ``action_masks()`` (``(num_envs, n_actions)`` bool) is what MaskablePPO reads (through
  ``env_method("action_masks")``, as with ``SubprocVecEnv``);
* an illegal learner action ends that game with reward ``-1`` (``illegal_action="penalize"``,
  ``info["illegal_action"]``) or raises (``"raise"``).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.vector import BatchedEngine, random_actions
from ice_envs.core.vector import make as make_batched
from ice_envs.train.training_env import generator_from_state, generator_state

OPPONENT_KINDS = ("random", "greedy")
ILLEGAL_REWARD = -1.0
#: Opponent rounds per step before giving up (a game always reaches the learner or its end long before).
MAX_OPPONENT_ROUNDS = 100_000


# ---------------------------------------------------------------------------- arrays as plain JSON
def array_to_json(value: np.ndarray) -> dict[str, Any]:
    """``value`` as ``{"dtype", "shape", "base64"}`` (its little-endian bytes: exact, NaN included)."""
    array = np.ascontiguousarray(value)
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return {
        "dtype": little.dtype.str,
        "shape": list(array.shape),
        "base64": base64.b64encode(little.tobytes()).decode("ascii"),
    }


def array_from_json(data: Any) -> np.ndarray:
    """The array :func:`array_to_json` wrote (bool, integer and float dtypes only).

    Raises:
        ValueError: ``data`` is not such an array.
    """
    if not isinstance(data, dict) or set(data) != {"dtype", "shape", "base64"}:
        raise ValueError("an array must be an object with dtype, shape and base64")
    dtype, shape, text = data["dtype"], data["shape"], data["base64"]
    if (
        not isinstance(dtype, str)
        or dtype not in ("|b1", "|i1", "|u1")
        and not (len(dtype) == 3 and dtype[0] == "<" and dtype[1] in "iuf" and dtype[2] in "248")
    ):
        raise ValueError(f"an array's dtype must be a little-endian bool, integer or float, got {dtype!r}")
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape) or len(shape) > 8:
        raise ValueError(f"an array's shape must be a list of sizes, got {shape!r}")
    if not isinstance(text, str):
        raise ValueError("an array's data must be base64 text")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise ValueError("an array's data is not valid base64") from None
    kind = np.dtype(dtype)
    if len(raw) != kind.itemsize * int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"an array's data must hold {shape} values of {dtype}")
    return np.frombuffer(raw, dtype=kind).reshape(shape).astype(kind.newbyteorder("="))


# ---------------------------------------------------------------------------- vectorised opponents
def greedy_actions(engine: BatchedEngine, idx: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A one-rule greedy action for each game of ``idx`` (``mask``: their masks), vectorised.

    Cardiceo ("shed the most cards"): a discard with as few dice as possible (single dice first,
    which leaves dice for more discards this turn), never ending the turn while a discard is
    possible; at the "No play" choice, keep the middle dice if they make a card in hand, else
    re-roll. CubeMelt: re-roll (once, for free) the dice showing Sad or Drooping when the dice
    would cost the active player Melt, else resolve; take the lower of Love and Adventure at a
    choice; a Ninja applies its face when it is Heart or Star. Ties are broken at random.
    """
    keys = rng.random(mask.shape, dtype=np.float32)  # random tie-break, below any preference step
    if engine.game == "cardiceo":
        pref = np.zeros(mask.shape[1], dtype=np.float32)
        pref[:7] = (3, 3, 3, 2, 2, 2, 1)  # discards: fewer dice first; END_TURN (7) last
        score = (pref + keys) * mask + mask
        choice = mask[:, 8].astype(bool)
        if choice.any():
            rows = idx[choice]
            dice = engine.dice[rows].astype(np.int64)
            totals = dice @ np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]]).T
            hand = engine.hands[rows, engine.current[rows]]
            has = (np.take_along_axis(hand, np.minimum(totals, 15) - 1, axis=1) > 0) & (totals <= 15)
            keep = has.any(axis=1)
            score[np.flatnonzero(choice), 8] = np.where(keep, 10.0, 1.0)
            score[np.flatnonzero(choice), 9] = np.where(keep, 1.0, 10.0)
        return score.argmax(axis=1)
    if engine.game == "cubemelt":
        from ice_envs.cubemelt import rules

        out = random_actions(mask, rng)
        phase = engine.phase[idx]
        active = engine.active[idx].astype(np.int64)
        rr = np.flatnonzero(phase == rules.PHASE_REROLL)
        if rr.size:
            g = idx[rr]
            dice = engine.dice[g]
            bad = (dice == rules.SAD) | (dice == rules.DROOPING)
            bits = (bad * (1 << np.arange(rules.NUM_DICE))).sum(axis=1)
            engine._plan(g)  # the plan of resolving now (recomputed when the dice are resolved anyway)
            loses = engine.plan[g, active[rr], 2] > 0
            out[rr] = np.where(loses & (engine.rerolls[g] == 0) & (bits > 0), bits, rules.STOP)
        ch = np.flatnonzero(phase == rules.PHASE_CHOOSE)
        if ch.size:
            g = idx[ch]
            seat = engine.decider[g].astype(np.int64)
            lower_love = engine.love[g, seat] <= engine.adventure[g, seat]
            out[ch] = np.where(lower_love, rules.CHOOSE_LOVE, rules.CHOOSE_ADVENTURE)
        nj = np.flatnonzero(phase == rules.PHASE_NINJA)
        if nj.size:
            main = engine.counts[idx[nj]].argmax(axis=1)
            out[nj] = np.where(main <= rules.STAR, rules.NINJA_APPLY, rules.NINJA_DECLINE)
        return out
    raise OptionError(f"{engine.game}: no greedy opponent")


# ---------------------------------------------------------------------------- the VecEnv
class BatchedVecEnv(VecEnv):
    """``num_envs`` games of one batched engine, the learner at one seat of each (module docstring).

    Args:
        game: ``"cardiceo"`` or ``"cubemelt"`` (a game whose spec names a batched engine).
        num_envs: games (= SB3 envs).
        num_players: seats per game.
        options: the game's options.
        opponents: weight per opponent kind (``random``, ``greedy``), drawn per game start.
        learner_seat: a fixed learner seat; ``None`` draws it uniformly per game.
        seed: seeds the engine and the wrapper's generator.
        illegal_action: ``"penalize"`` (default) or ``"raise"``.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int = 2,
        options: dict[str, Any] | None = None,
        opponents: dict[str, float] | None = None,
        learner_seat: int | None = None,
        seed: int | None = 0,
        illegal_action: str = "penalize",
    ) -> None:
        options = dict(options or {})
        if options.get("illegal_action", "raise") != "raise":
            raise OptionError("BatchedVecEnv: the learner's illegal actions are handled by illegal_action=")
        if illegal_action not in ("penalize", "raise"):
            raise OptionError(f"BatchedVecEnv: illegal_action={illegal_action!r} is not 'penalize' or 'raise'")
        self.engine = self._build_engine(game, num_envs, num_players, seed, options)
        self.game = game
        self.num_players = self.engine.num_players
        if learner_seat is not None and not 0 <= learner_seat < self.num_players:
            raise OptionError(f"BatchedVecEnv: learner_seat={learner_seat} is not a seat")
        mix = dict(opponents or {"random": 1.0})
        unknown = set(mix) - set(self.opponent_kinds)
        if unknown or not any(w > 0 for w in mix.values()):
            name = type(self).__name__
            raise OptionError(f"{name}: opponents must weigh {list(self.opponent_kinds)}, got {mix!r}")
        self.kinds = [k for k in self.opponent_kinds if mix.get(k, 0) > 0]
        weights = np.array([mix[k] for k in self.kinds], dtype=np.float64)
        self.kind_probs = weights / weights.sum()
        self.learner_seat = learner_seat
        self.illegal_action = illegal_action
        self.rng = np.random.default_rng(seed)
        self._seed = seed
        n = num_envs
        self.seat = np.zeros(n, dtype=np.int64)
        self.kind = np.zeros(n, dtype=np.int64)
        self.carry = np.zeros(n)
        self.returns = np.zeros(n)
        self.lengths = np.zeros(n, dtype=np.int64)
        self.skipped_games = 0
        self._actions = np.zeros(n, dtype=np.int64)
        observation_space = spaces.Box(
            self.engine.observation_space.low, self.engine.observation_space.high, dtype=np.float32
        )
        self.render_mode = None
        super().__init__(n, observation_space, spaces.Discrete(self.engine.n_actions))

    #: The opponent kinds this env plays.
    opponent_kinds: tuple[str, ...] = OPPONENT_KINDS

    def _build_engine(
        self, game: str, num_envs: int, num_players: int, seed: int | None, options: dict[str, Any]
    ) -> BatchedEngine:
        """The numpy engine: the vectorised greedy opponents read its arrays."""
        return make_batched(game, num_envs, num_players, seed=seed, copy=False, engine="numpy", **options)

    def _engine_arrays(self) -> dict[str, np.ndarray]:
        """The engine's arrays a checkpoint saves (its state arrays and observation buffer)."""
        return {**self.engine.state_arrays(), "obs": self.engine.obs}

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if getattr(self, "_seeds", None) and self._seeds[0] is not None else None
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.engine.reset(seed=int(self.rng.integers(2**31)))
        self._new_episodes(np.arange(self.num_envs))
        # every game is new: what the opponents do before the learner's first decision is carried to it
        self._play_opponents(np.zeros(self.num_envs), np.ones(self.num_envs, dtype=bool), [{}] * self.num_envs)
        self._reset_seeds()
        self._shape(None, np.ones(self.num_envs, dtype=bool), np.zeros(self.num_envs, dtype=bool))
        return self._learner_obs()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        n = self.num_envs
        engine = self.engine
        actions = self._actions
        if ((actions < 0) | (actions >= engine.n_actions)).any():
            raise IllegalActionError(f"BatchedVecEnv: actions outside 0..{engine.n_actions - 1}: {actions}")
        legal = engine.mask[np.arange(n), actions].astype(bool)
        if not legal.all() and self.illegal_action == "raise":
            i = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(f"BatchedVecEnv: game {i}: action {int(actions[i])} is illegal for the learner")
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        rewards = self.carry.copy()
        self.carry[:] = 0.0
        dones = np.zeros(n, dtype=bool)
        self.lengths += 1
        if not legal.all():
            bad = ~legal
            rewards[bad] = ILLEGAL_REWARD
            final_obs = engine.obs[bad].copy()
            for k, i in enumerate(np.flatnonzero(bad)):
                self.returns[i] += ILLEGAL_REWARD
                infos[i] = self._final_info(i, final_obs[k], won=False, truncated=False, scores=engine.scores()[i])
                infos[i]["illegal_action"] = True
            dones |= bad
            engine.restart(bad)
            self._new_episodes(np.flatnonzero(bad))
        _, _, _, step_rewards, terminated, truncated, info = engine.step(actions, where=legal)
        stepped = np.flatnonzero(legal)
        rewards[stepped] += step_rewards[stepped, self.seat[stepped]]
        self._finish(info, terminated, truncated, rewards, dones, infos, np.ones(n, dtype=bool))
        self._play_opponents(rewards, dones, infos)
        self.returns[~dones] += rewards[~dones]
        self._shape(rewards, dones, ~legal)
        return self._learner_obs(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool: the learner's legal actions in each game."""
        return self.engine.mask.astype(bool)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[rows])
        # any other method (get_state, set_state, set_pool, ...) concerns the whole batch: one call
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def set_pool(self, paths: Sequence[str]) -> None:
        """Self-play opponents are not batched: only an empty pool is accepted."""
        if list(paths):
            raise OptionError("BatchedVecEnv: self-play opponents are not supported (opponents: random, greedy)")

    #: Checkpoints save and restore the whole batch with one training_state / load_training_state call.
    one_state = True

    def training_state(self) -> dict[str, Any]:
        """The whole batch as plain JSON, for exact resume: the engine's declared state arrays
        (``state_arrays()``, and the observation buffer) and generator, the seats, opponent kinds,
        pending rewards, returns and lengths of every game, and this env's generator."""
        engine = self.engine
        arrays = self._engine_arrays()
        return {
            "engine": {name: array_to_json(value) for name, value in arrays.items()},
            "engine_rng": generator_state(engine.rng),
            "engine_stage": int(engine._stage),
            "engine_started": bool(engine._started),
            "rng": generator_state(self.rng),
            "games": {name: array_to_json(getattr(self, name)) for name in self._GAME_ARRAYS},
            "skipped_games": int(self.skipped_games),
        }

    def load_training_state(self, data: dict[str, Any]) -> None:
        """Restore :meth:`training_state`: every array is copied into this env's own (same names, dtypes
        and shapes), so views of them stay views.

        Raises:
            ValueError: ``data`` is not the state of a batch like this one (nothing is changed then).
        """
        keys = {"engine", "engine_rng", "engine_stage", "engine_started", "rng", "games", "skipped_games"}
        if not isinstance(data, dict) or set(data) != keys:
            raise ValueError(f"a batched env state must be an object with exactly {sorted(keys)}")
        engine = self.engine
        targets = self._engine_arrays()
        mine = {name: getattr(self, name) for name in self._GAME_ARRAYS}
        copies = []
        for part, expected in (("engine", targets), ("games", mine)):
            saved = data[part]
            if not isinstance(saved, dict) or set(saved) != set(expected):
                raise ValueError(f"'{part}' must hold exactly the arrays {sorted(expected)}")
            for name, target in expected.items():
                try:
                    value = array_from_json(saved[name])
                except ValueError as exc:
                    raise ValueError(f"'{part}.{name}': {exc}") from None
                if value.dtype != target.dtype or value.shape != target.shape:
                    raise ValueError(f"'{part}.{name}' must be a {target.dtype} array of shape {target.shape}")
                copies.append((target, value))
        engine_rng, rng = generator_from_state(data["engine_rng"]), generator_from_state(data["rng"])
        if data["engine_stage"] not in (0, 1) or type(data["engine_started"]) is not bool:
            raise ValueError("'engine_stage' must be 0 or 1 and 'engine_started' a flag")
        if type(data["skipped_games"]) is not int or data["skipped_games"] < 0:
            raise ValueError("'skipped_games' must be a count")
        for target, value in copies:
            np.copyto(target, value)
        engine.rng, self.rng = engine_rng, rng
        engine._stage, engine._started = data["engine_stage"], data["engine_started"]
        self.skipped_games = data["skipped_games"]

    #: The per-game arrays of this env (besides the engine's) that a checkpoint saves.
    _GAME_ARRAYS = ("seat", "kind", "carry", "returns", "lengths", "_actions")

    # ---------------------------------------------------------------- internals
    def _shape(self, rewards: np.ndarray | None, dones: np.ndarray, illegal: np.ndarray) -> None:
        """Reward shaping's hook, called once every game waits on the learner: add the shaping bonus to
        ``rewards`` (after ``returns`` took the game's own reward; none for the games ended by an ``illegal``
        learner action). ``rewards is None``: every game is new (``reset``). This engine has no shaping."""

    def _learner_obs(self) -> np.ndarray:
        return self.engine.obs.copy()

    def _new_episodes(self, idx: np.ndarray) -> None:
        """Seat the learner and draw the opponents of the new games ``idx``."""
        if not idx.size:
            return
        if self.learner_seat is None:
            self.seat[idx] = self.rng.integers(0, self.num_players, size=idx.size)
        else:
            self.seat[idx] = self.learner_seat
        self.kind[idx] = self.rng.choice(len(self.kinds), size=idx.size, p=self.kind_probs)
        self.returns[idx] = 0.0
        self.lengths[idx] = 0
        self.carry[idx] = 0.0

    def _finish(
        self,
        info: dict[str, Any],
        terminated: np.ndarray,
        truncated: np.ndarray,
        rewards: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
        acted: np.ndarray,
    ) -> None:
        """Games that ended in the last engine step: report those the learner played, re-deal the others."""
        fin = info["final_index"]
        if not fin.size:
            return
        reported = acted[fin] & ~dones[fin]
        for k in np.flatnonzero(reported):
            i = int(fin[k])
            seat = int(self.seat[i])
            self.returns[i] += rewards[i]
            won = bool(terminated[i]) and bool(info["final_outcome"][k, seat] > 0)
            infos[i] = self._final_info(i, info["final_obs"][k, seat], won, bool(truncated[i]), info["final_scores"][k])
            dones[i] = True
        self.skipped_games += int((~acted[fin]).sum())
        self._new_episodes(fin)

    def _final_info(
        self, i: int, final_obs: np.ndarray, won: bool, truncated: bool, scores: np.ndarray
    ) -> dict[str, Any]:
        return {
            "terminal_observation": np.asarray(final_obs, dtype=np.float32).copy(),
            "episode": {"r": float(self.returns[i]), "l": int(self.lengths[i]), "t": 0.0},
            "is_success": won,
            "seat": int(self.seat[i]),
            "scores": np.asarray(scores).tolist(),
            "TimeLimit.truncated": truncated,
        }

    def _play_opponents(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """Opponents act until the learner decides in every game; their effect on the learner accrues to
        ``rewards`` (games of the learner's current episode) or to ``carry`` (games re-dealt this step)."""
        engine = self.engine
        for _ in range(MAX_OPPONENT_ROUNDS):
            need = engine.seat != self.seat
            if not need.any():
                return
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for k, kind in enumerate(self.kinds):
                rows = np.flatnonzero(need & (self.kind == k))
                if not rows.size:
                    continue
                mask = engine.mask[rows]
                pick = (
                    greedy_actions(engine, rows, mask, self.rng) if kind == "greedy" else random_actions(mask, self.rng)
                )
                actions[rows] = pick
            _, _, _, step_rewards, terminated, truncated, info = engine.step(actions, where=need)
            rows = np.flatnonzero(need)
            learner_reward = step_rewards[rows, self.seat[rows]]
            ongoing = ~dones[rows]
            rewards[rows[ongoing]] += learner_reward[ongoing]
            self.carry[rows[~ongoing]] += learner_reward[~ongoing]
            # an episode the learner has acted in ends here: reported now; a re-dealt game ending before
            # the learner's first action is skipped
            acted = ~dones & (self.lengths > 0)
            self._finish(info, terminated, truncated, rewards, dones, infos, acted)
        raise RuntimeError(f"{self.game}: opponents did not reach the learner's turn in {MAX_OPPONENT_ROUNDS} rounds")


def make_batched_vec_env(
    game: str,
    num_envs: int,
    num_players: int,
    options: dict[str, Any] | None = None,
    opponents: dict[str, float] | None = None,
    learner_seat: int | None = None,
    seed: int | None = 0,
) -> BatchedVecEnv:
    """The :class:`BatchedVecEnv` that ``train/run.py`` builds for ``vec_env: batched`` (see docs/performance.md)."""
    return BatchedVecEnv(game, num_envs, num_players, options, opponents, learner_seat, seed)


__all__: Sequence[str] = (
    "BatchedVecEnv",
    "array_from_json",
    "array_to_json",
    "greedy_actions",
    "make_batched_vec_env",
    "OPPONENT_KINDS",
)
