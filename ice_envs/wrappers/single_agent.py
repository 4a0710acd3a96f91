"""The learner's single-agent Gymnasium view of a multi-player ice-envs game.

>>> import gymnasium as gym
>>> import ice_envs  # registers the ids (``gym.make("ice_envs:ice_envs/Cardiceo-v1")`` imports it itself)
>>> env = gym.make("ice_envs/Cardiceo-v1", num_players=3, opponents="heuristic", hand_size=5)
>>> obs, info = env.reset(seed=0)
>>> mask = env.unwrapped.action_masks()          # exact legal actions of the learner

or without the registry: ``SingleAgentEnv("cardiceo", 3, opponents="heuristic", hand_size=5)``.

:class:`SingleAgentEnv` seats the learner at one seat (drawn uniformly per game unless
fixed) and opponents at the others: agent specs (``"heuristic"``, ``"greedy"``,
``"mcts:sims=50"``, ``"ppo:PATH"``...), :class:`~ice_envs.core.agent.Agent` objects, or any
:class:`~ice_envs.wrappers.opponents.OpponentSampler` (see :mod:`ice_envs.wrappers.opponents`).
``step(action)`` plays the learner's action, then lets the opponents act until the learner
must decide again (on or off its turn) or the game ends. The reward returned is the learner's
reward summed over *everything since its previous action*: its own action, every opponent
decision after it and, for the first action of a game, the opponents' decisions before it. So
a loss that happens on an opponent's turn reaches the learner in the same step, and rewards
are never credited to the wrong seat (the AEC trajectory is not interleaved into one stream,
as the PettingZoo SB3 tutorial does).

=====================  ==================================================================
observation space      the game's observation ``Box`` (``float32``; infinite bounds made finite)
action space           ``Discrete(n)``, the game's actions
action mask            ``action_masks()`` and ``info["action_mask"]`` (from ``reset()`` and every
                       ``step()``): the learner's exact legal actions (``bool``); it is not in the
                       observation, which is a plain vector (what SB3 and CleanRL expect)
reward                 the learner's, over everything since its previous action (``reward_mode``
                       of the game: ``"outcome"`` +1/-1 at the end, or ``"score"`` deltas)
episode end            ``terminated`` at the game's end; ``truncated`` at its length cap
                       (``max_decisions``, on by default: every episode ends)
=====================  ==================================================================

``action_masks()`` is what sb3-contrib's MaskablePPO reads through ``VecEnv.env_method``
(DummyVecEnv and SubprocVecEnv alike; through ``gym.make``'s wrappers too); ``info["action_mask"]``
is Gymnasium's own convention (AgileRL and other clients read it). Both are the same array
values; once the game is over every action is marked legal.

At the end of a game ``info`` holds ``episode`` (``r``: the learner's return, ``l``: its
decisions), ``is_success`` (a win; SB3 logs it as ``rollout/success_rate``), ``seat``,
``opponents`` (the table's label), ``scores`` and ``decisions`` (all seats). A game that
ends before the learner ever acts is re-dealt (counted in ``info["skipped_games"]``).

``get_state()`` / ``set_state()`` snapshot the whole env (game, generators, opponents,
pending reward) in memory, so that training resumes from a checkpoint exactly (the training
code turns the snapshot into plain JSON before it reaches a file; bytes from a file are never
given to ``set_state``).

An illegal action of the learner ends the episode with reward ``-1`` by default
(``illegal_action="penalize"``; see :class:`SingleAgentEnv`), so that the env passes
stable-baselines3's and Gymnasium's env checkers, which step actions sampled without a mask.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.agent import make_view
from ice_envs.core.errors import OptionError
from ice_envs.core.registry import game_name_of
from ice_envs.wrappers.opponents import OpponentSampler, OpponentsLike, make_opponents

__all__ = [
    "ILLEGAL_ACTION_POLICIES",
    "ILLEGAL_REWARD",
    "MAX_SKIPPED_GAMES",
    "LazyObservation",
    "Shaping",
    "SingleAgentEnv",
]

#: Consecutive games that may end before the learner acts before the wrapper gives up.
MAX_SKIPPED_GAMES = 1000
#: What ``SingleAgentEnv(illegal_action=...)`` accepts.
ILLEGAL_ACTION_POLICIES = ("penalize", "raise")
#: The learner's reward for an illegal action under ``illegal_action="penalize"``.
ILLEGAL_REWARD = -1.0
#: Observation bounds the wrapper puts in place of infinite ones (every finite float32 lies within).
_FLOAT32_MAX = float(np.finfo(np.float32).max)


class LazyObservation(Mapping):
    """An opponent's observation dict whose ``"observation"`` vector is encoded only if read.

    Random agents read only ``"action_mask"``, so they skip the (comparatively costly)
    encoding of the observation vector.
    """

    __slots__ = ("_raw", "_agent", "_obs")

    def __init__(self, raw: IceAECEnv, agent: str) -> None:
        self._raw = raw
        self._agent = agent
        self._obs: dict[str, np.ndarray] | None = None

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "action_mask" and self._obs is None:
            return self._raw.action_mask()
        if self._obs is None:
            self._obs = self._raw.observe(self._agent)
        return self._obs[key]

    def __iter__(self) -> Iterator[str]:
        return iter(("observation", "action_mask"))

    def __len__(self) -> int:
        return 2


class Shaping(Protocol):
    """Reward shaping added to the learner's rewards (e.g. ``ice_envs.train.shaping.Shaper``)."""

    def start(self, env: IceAECEnv, seat: int) -> None:
        """A new game starts; the learner holds ``seat``."""

    def bonus(self, env: IceAECEnv, seat: int, done: bool) -> float:
        """The shaping reward of the learner's transition that just ended."""


class SingleAgentEnv(gym.Env):
    """One learner seat of an AEC game; opponents act inside ``step()``.

    Args:
        game: a registered game name, or a function returning a raw :class:`IceAECEnv`.
        num_players: seats (with a game name; default: the game's smallest regular count).
        options: constructor options of the game as a dict (with a game name); the same
            options may be given as keywords instead (``**game_options``), not both.
        opponents: who plays the other seats (default: uniformly random agents): an agent spec
            (``"heuristic"``), a comma-separated list or a list of specs and
            :class:`~ice_envs.core.agent.Agent` objects, one for every opponent seat or one per
            seat from the learner's left (:class:`~ice_envs.wrappers.opponents.FixedOpponents`),
            or an :class:`~ice_envs.wrappers.opponents.OpponentSampler` that draws them per game.
        learner_seat: a fixed seat for the learner; ``None`` draws it uniformly per game.
        render_mode: ``None`` (default), ``"ansi"`` (``render()`` returns the table as the
            learner's seat sees it, as text) or ``"rgb_array"`` (the same as a picture);
            anything else is an :class:`~ice_envs.core.errors.OptionError`.
        shaping: reward shaping added to the learner's rewards (a :class:`Shaping`, e.g. the
            training code's potential-based ``ice_envs.train.shaping.Shaper``);
            ``info["episode"]["r"]`` and wins never include it.
        illegal_action: what ``step()`` does with an action in the action space that the
            learner's mask forbids. ``"penalize"`` (default; PettingZoo classic's
            ``TerminateIllegalWrapper`` convention): the episode ends at once,
            ``terminated=True``, reward ``-1`` (rewards pending since the learner's previous
            action and any shaping bonus are dropped), the game is left unplayed, and the
            final ``info`` has ``illegal_action: True`` and ``is_success: False``. MaskablePPO
            never samples a masked action, so training is unchanged; unmasked samplers (the
            env checkers of stable-baselines3 and Gymnasium) get a valid episode end.
            ``"raise"``: the game raises :class:`~ice_envs.core.errors.IllegalActionError`
            (a ``ValueError``). An action outside the action space raises in both modes.
        **game_options: constructor options of the game (``hand_size=5``, ``max_decisions=200``,
            ``reward_mode="score"``, ...), checked by the game: a bad one raises
            :class:`~ice_envs.core.errors.OptionError` naming it.

    Raises:
        OptionError: a bad game name, player count, option, ``learner_seat``, ``render_mode`` or
            ``illegal_action``.
        AgentSpecError: a bad opponent spec, or a number of opponents that does not fit the table.

    The observation space is the game's observation ``Box``; infinite bounds (Iceberg Rummy's
    running scores) are replaced by the largest finite ``float32``, which every observation
    lies within.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str | Callable[[], IceAECEnv],
        num_players: int | None = None,
        options: dict[str, Any] | None = None,
        opponents: OpponentsLike | None = None,
        learner_seat: int | None = None,
        render_mode: str | None = None,
        shaping: Shaping | None = None,
        illegal_action: str = "penalize",
        **game_options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise OptionError(
                f"SingleAgentEnv: render_mode={render_mode!r} is not one of {[None, *self.metadata['render_modes']]}"
            )
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise OptionError(
                f"SingleAgentEnv: illegal_action={illegal_action!r} is not one of {list(ILLEGAL_ACTION_POLICIES)}"
            )
        self.illegal_action = illegal_action
        both = sorted(set(options or {}) & set(game_options))
        if both:
            raise OptionError(f"SingleAgentEnv: option(s) {both} given both in options= and as keywords")
        if callable(game):
            if options or game_options:
                raise OptionError(
                    "SingleAgentEnv: game options go to the factory, not to the wrapper, with game=callable"
                )
            self.raw: IceAECEnv = game()
        else:
            import ice_envs

            if num_players is None:
                num_players = ice_envs.get_spec(game).players[0]
            self.raw = ice_envs.make(game, raw=True, num_players=num_players, **(options or {}), **game_options)
        self.num_players = self.raw.num_players
        self.game = game_name_of(self.raw)
        if learner_seat is not None and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, (int, np.integer))
            or not 0 <= learner_seat < self.num_players
        ):
            raise OptionError(f"learner_seat={learner_seat!r} is not a seat of a {self.num_players}-player game")
        self.learner_seat = None if learner_seat is None else int(learner_seat)
        self.opponents: OpponentSampler = make_opponents(opponents, self.game, self.num_players)
        self.render_mode = render_mode
        self.shaping = shaping
        first = self.raw.possible_agents[0]
        self.observation_space = _finite_box(self.raw.observation_space(first)["observation"])
        self.action_space = spaces.Discrete(int(self.raw.action_space(first).n))
        self.seat = 0
        self.agent = first
        self.table_label = ""
        self._table: dict[int, Any] = {}
        self._view_rng = np.random.default_rng(0)
        self._carry = 0.0
        self._return = 0.0
        self._length = 0
        self._skipped = 0
        self._done = True

    # ---------------------------------------------------------------- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game, seat the learner and the opponents, play until the learner decides."""
        super().reset(seed=seed)
        rng = self.np_random
        skipped = 0
        while True:
            self._new_game(rng)
            self._carry = self._play_opponents()
            if not self._done:
                break
            skipped += 1
            if skipped >= MAX_SKIPPED_GAMES:
                raise RuntimeError(f"{self.game}: {skipped} games in a row ended before the learner could act")
        self._skipped += skipped
        if self.shaping is not None:
            self.shaping.start(self.raw, self.seat)
        info = {"seat": self.seat, "opponents": self.table_label, "skipped_games": skipped}
        return self._observation(), self._with_mask(info)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action`` and the opponents' replies; see the module docstring."""
        if self._done:
            raise RuntimeError("step() called on a finished game; call reset() first")
        action = int(action)
        if self.illegal_action == "penalize" and 0 <= action < self.action_space.n:
            if not self.raw.action_mask()[action]:
                return self._penalize()
        self.raw.step(action)
        self._length += 1
        reward = self._carry + float(self.raw.rewards[self.agent])
        self._carry = 0.0
        self._done = self._game_over()
        if not self._done:
            reward += self._play_opponents()
        self._return += reward
        if self.shaping is not None:
            reward += self.shaping.bonus(self.raw, self.seat, self._done)
        terminated = bool(self.raw.terminations[self.agent])
        truncated = bool(self.raw.truncations[self.agent]) and not terminated
        info: dict[str, Any] = {}
        if self._done:
            info = self._final_info(terminated)
        return self._observation(), reward, terminated, truncated, self._with_mask(info)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all ``True`` once the game is over)."""
        if self._done:
            return np.ones(self.action_space.n, dtype=bool)
        return self.raw.action_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table as the learner's seat sees it, in ``render_mode`` (``None`` without one)."""
        if self.render_mode == "ansi":
            return str(self.raw.render_view(self.seat, "ansi"))
        if self.render_mode == "rgb_array":
            return np.asarray(self.raw.render_view(self.seat, "rgb_array"))
        return None

    # ---------------------------------------------------------------- training hooks
    def set_pool(self, paths: list[str]) -> None:
        """Pass a new self-play pool to the opponent sampler (``VecEnv.env_method``)."""
        set_pool = getattr(self.opponents, "set_pool", None)
        if set_pool is not None:
            set_pool(paths)

    def get_state(self) -> bytes:
        """The whole env as bytes, in memory (for exact resume; never written to a file as they are)."""
        return pickle.dumps(self.__dict__, protocol=pickle.HIGHEST_PROTOCOL)

    def set_state(self, blob: bytes) -> None:
        """Restore :meth:`get_state` (bytes made in memory by this code, never bytes read from a file)."""
        self.__dict__.update(pickle.loads(blob))

    # ---------------------------------------------------------------- internals
    def _new_game(self, rng: np.random.Generator) -> None:
        n = self.num_players
        self.seat = int(rng.integers(n)) if self.learner_seat is None else self.learner_seat
        self.agent = self.raw.possible_agents[self.seat]
        others = [s for s in range(n) if s != self.seat]
        self.table_label, self._table = self.opponents.draw(rng, others)
        seeds = rng.integers(0, 2**63 - 1, size=n + 1)
        self.raw.reset(seed=int(seeds[0]))
        for k, seat in enumerate(others):
            self._table[seat].reset(seed=int(seeds[k + 1]))
        self._view_rng = np.random.default_rng(int(seeds[n]))
        self._return = 0.0
        self._length = 0
        self._done = self._game_over()

    def _game_over(self) -> bool:
        return bool(self.raw.terminations[self.agent] or self.raw.truncations[self.agent])

    def _play_opponents(self) -> float:
        """Opponents act until the learner must decide or the game ends; the learner's reward meanwhile."""
        raw = self.raw
        total = 0.0
        while not self._done and raw.agent_selection != self.agent:
            seat = raw.current_seat
            opponent = self._table[seat]
            obs = LazyObservation(raw, raw.agent_selection)
            view = make_view(raw, seat, self._view_rng) if opponent.needs_view else None
            raw.step(int(opponent.act(obs, view)))
            total += float(raw.rewards[self.agent])
            self._done = self._game_over()
        return total

    def _penalize(self) -> tuple[np.ndarray, float, bool, bool, dict]:
        """End the episode for an illegal action (``illegal_action="penalize"``)."""
        self._length += 1
        self._carry = 0.0
        self._done = True
        reward = ILLEGAL_REWARD
        self._return += reward
        info = self._final_info(terminated=True, illegal=True)
        return self._observation(), reward, True, False, self._with_mask(info)

    def _observation(self) -> np.ndarray:
        return self.raw.observe(self.agent)["observation"]

    def _with_mask(self, info: dict[str, Any]) -> dict[str, Any]:
        """``info`` with the learner's legal actions under ``"action_mask"`` (Gymnasium's convention)."""
        info["action_mask"] = self.action_masks()
        return info

    def _final_info(self, terminated: bool, illegal: bool = False) -> dict[str, Any]:
        scores = self.raw.scores()
        # a win is the game's own outcome, also when the learner trains on scores (a tie at 0 Cargo is no win)
        win = terminated and not illegal and bool(self.raw.win_shares()[self.seat] > 0)
        info = {
            "episode": {"r": self._return, "l": self._length, "t": 0.0},
            "is_success": bool(win),
            "seat": self.seat,
            "opponents": self.table_label,
            "scores": scores.tolist(),
            "decisions": self.raw.num_steps,
        }
        if illegal:
            info["illegal_action"] = True
        return info


def _finite_box(box: spaces.Box) -> spaces.Box:
    """``box`` with infinite bounds replaced by the largest finite float32 (``box`` itself if none)."""
    low, high = np.asarray(box.low), np.asarray(box.high)
    if np.all(np.isfinite(low)) and np.all(np.isfinite(high)):
        return box
    low = np.where(np.isneginf(low), -_FLOAT32_MAX, low).astype(box.dtype)
    high = np.where(np.isposinf(high), _FLOAT32_MAX, high).astype(box.dtype)
    return spaces.Box(low, high, box.shape, box.dtype)
