"""The one AEC base class that every ice-envs game adapter derives from.

:class:`IceAECEnv` does all PettingZoo bookkeeping — agent selection (including
off-turn decisions: whoever the engine says must decide is selected), rewards and
``_cumulative_rewards``, terminations, truncations, dead steps, ``max_cycles``
truncation, infos and seeding through one :class:`numpy.random.Generator` — plus the
ice-envs extras of the env contract: ``state_dict()`` / ``load_state_dict()``,
``reset(options=...)`` from a given position, ``describe_action()``, the two render
modes and the illegal-action policy.

The engine state of the game in progress is ``game_state`` (the pure engine's dataclass;
:meth:`IceAECEnv.state_dict` gives it as plain data). PettingZoo's ``state()`` is left as the
inherited method (it raises ``NotImplementedError``: these games offer no global-state array),
so PettingZoo's wrappers, conversions and state tests see the standard API.

A game adapter (``ice_envs/<game>/env.py``) only says how its pure engine
(``rules.py``) is encoded. It implements the hooks marked "game hook" below.
"""

from __future__ import annotations

import contextlib
import copy
import struct
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.layout import ObservationLayout, whole_vector_layout
from ice_envs.core.options import check_choice, check_flag, check_int, check_keys, check_number
from ice_envs.core.serialize import from_jsonable, to_jsonable

RENDER_MODES = ("ansi", "rgb_array", "human")
#: The reset option PettingZoo's ``api_test`` passes (``options={"options": 1}``) to probe ``reset``'s signature.
API_TEST_PROBE = "options"
#: The keys of :meth:`IceAECEnv.state_dict`.
STATE_DICT_KEYS = frozenset(
    {
        "game",
        "num_players",
        "state",
        "rng",
        "num_steps",
        "agents",
        "agent_selection",
        "rewards",
        "cumulative_rewards",
        "terminations",
        "truncations",
        "last_scores",
    }
)
#: Action masks of games with at most this many actions are cached by legal-action set
#: (shared by every instance with the same action count; read-only arrays).
MASK_CACHE_MAX_ACTIONS = 128
#: Legal-action sets kept per action count before that cache is emptied and refilled.
MASK_CACHE_MAX_ENTRIES = 2048
_MASK_CACHES: dict[int, dict[tuple[Any, ...], np.ndarray]] = {}
ILLEGAL_ACTION_POLICIES = ("raise", "penalize")
REWARD_MODES = ("outcome", "score")


def agent_name(seat: int) -> str:
    """The PettingZoo agent name of a seat: ``player_<seat>``."""
    return f"player_{seat}"


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers a plain in-range ``int`` at once.

    Every answer is the same as :class:`gymnasium.spaces.Discrete`'s (start 0, int64); wrappers that
    check each action against the space (PettingZoo's ``AssertOutOfBoundsWrapper``, if a user adds it)
    ask it at every step.
    """

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self._n_int = int(n)

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return 0 <= x < self._n_int
        return super().contains(x)


class IceAECEnv(AECEnv):
    """Shared PettingZoo AEC bookkeeping for the ice-envs games.

    Args (common to every game, keyword-only in each game's constructor):
        num_players: seats at the table; agents are ``player_0`` ... ``player_{n-1}``.
        render_mode: ``"ansi"`` (text), ``"rgb_array"`` (a picture) or ``"human"``
            (prints the text view) or ``None``. :meth:`render_view` also draws the picture
            as SVG (``mode="svg"``), from the same drawing code as ``"rgb_array"``.
        illegal_action: ``"raise"`` (default) raises :class:`IllegalActionError`
            (a ``ValueError``) naming the action and the legal ones; ``"penalize"``
            ends the game with ``illegal_reward`` for the offender and 0 for the others, for
            every illegal action: an illegal id, an id out of range, a non-integer (string,
            float, bool) or ``None`` while the agent must act.
        illegal_reward: reward for the offender under ``"penalize"`` (default -1).
        reward_mode: ``"outcome"`` (default; terminal win/loss rewards, see the game's
            docstring) or ``"score"`` (per-step deltas of the game's score).
        max_cycles: if given, the episode is truncated once ``max_cycles * num_players``
            decisions have been taken (a cycle is one decision per seat on average).
        max_decisions: the episode is truncated after this many decisions; default: the
            game's declared maximum length (:attr:`max_game_length`, on by default, so
            that every episode ends whatever the policy; see the game's rules page).
            Forced steps applied by ``skip_forced`` count as decisions here.
        skip_forced: ``True`` applies every step with exactly one legal action at once
            (after ``reset`` and after each ``step``), so agents are only asked real
            decisions; default ``False`` (every step is an agent's turn). Rewards of the
            skipped steps accumulate into ``_cumulative_rewards`` and reach each agent at its
            next turn (or at the end), as they would have; :attr:`num_forced_steps` counts them.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "ice_env",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    #: Inclusive range of supported player counts (game hook: set on the subclass).
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    #: The game's pure engine module (``ice_envs/<game>/rules.py``). When set, the hooks
    #: ``_legal_actions``, ``_apply_action``, ``_game_over``, ``_outcome``, ``_scores`` and
    #: ``_resample_hidden`` default to its functions of the same names (``is_over`` for
    #: ``_game_over``); a game overrides only the ones that differ.
    engine: ClassVar[Any] = None
    #: The keys ``reset(options=...)`` accepts besides ``"state"`` (game hook); others are refused.
    reset_option_keys: ClassVar[tuple[str, ...]] = ()
    #: Default maximum episode length in decisions (game hook; or override :meth:`_default_max_decisions`).
    default_max_decisions: ClassVar[int] = 100_000
    #: The named pieces of the observation vector (:mod:`ice_envs.core.layout`). A game sets it in its
    #: ``__init__`` before calling ``super().__init__``; a game that declares none gets one piece,
    #: ``"observation"``, covering the whole vector (:func:`~ice_envs.core.layout.whole_vector_layout`).
    obs_layout: ObservationLayout
    #: The masks shared by every env with this many actions (a cache, :meth:`_caches`).
    _mask_cache: dict[tuple[Any, ...], np.ndarray] | None

    def __init__(
        self,
        num_players: int,
        *,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        reward_mode: str = "outcome",
        max_cycles: int | None = None,
        max_decisions: int | None = None,
        skip_forced: bool = False,
    ) -> None:
        super().__init__()
        name = self.metadata["name"]
        self.check_num_players(num_players)
        check_choice(name, "render_mode", render_mode, (None, *RENDER_MODES))
        check_choice(name, "illegal_action", illegal_action, ILLEGAL_ACTION_POLICIES)
        check_choice(name, "reward_mode", reward_mode, REWARD_MODES)
        self.num_players = int(num_players)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = check_number(name, "illegal_reward", illegal_reward)
        self.reward_mode = reward_mode
        self.max_cycles = check_int(name, "max_cycles", max_cycles, low=1, allow_none=True)
        self.max_decisions = check_int(name, "max_decisions", max_decisions, low=1, allow_none=True)
        self.skip_forced = check_flag(name, "skip_forced", skip_forced)
        limit = self.max_decisions if self.max_decisions is not None else int(self._default_max_decisions())
        if self.max_cycles is not None:
            limit = min(limit, self.max_cycles * self.num_players)
        #: Decisions after which the episode is truncated (every episode ends).
        self.max_game_length: int = limit

        self.possible_agents = [agent_name(i) for i in range(self.num_players)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = self._num_actions()
        obs_box = self._observation_box()
        if getattr(self, "obs_layout", None) is None:
            self.obs_layout = whole_vector_layout(obs_box)
        mask_box = spaces.Box(0, 1, (n_actions,), np.int8)
        self._action_spaces = {a: ActionSpace(n_actions) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box}) for a in self.possible_agents
        }
        self._zero_mask = np.zeros(n_actions, dtype=np.int8)
        self._n_actions = n_actions
        self.__dict__.update(self._caches())  # every cache the env keeps, empty (a game adds its own)
        self._rng: np.random.Generator | None = None
        self.game_state: Any = None
        self._mask: np.ndarray | None = None
        self._num_steps = 0
        self._rewards_zero = True
        self._last_scores = np.zeros(self.num_players, dtype=np.float64)
        #: Steps applied automatically by ``skip_forced`` since the last reset.
        self.num_forced_steps = 0

    @classmethod
    def check_num_players(cls, num_players: Any) -> int:
        """Raise :class:`OptionError` unless ``num_players`` is a supported count."""
        name = cls.metadata["name"]
        if not isinstance(num_players, (int, np.integer)) or isinstance(num_players, bool):
            raise OptionError(f"{name}: num_players must be an integer, got {num_players!r}")
        if not cls.min_players <= num_players <= cls.max_players:
            raise OptionError(
                f"{name}: num_players={num_players} is out of range; "
                f"this game takes {cls.min_players}-{cls.max_players} players"
            )
        return int(num_players)

    # ------------------------------------------------------------------ game hooks
    def _default_max_decisions(self) -> int:  # game hook (may read the game's config)
        """The game's declared maximum episode length in decisions (see its rules page)."""
        return self.default_max_decisions

    def _check_state(self, state: Any) -> None:  # game hook
        """Raise ``ValueError`` naming the problem unless ``state`` is a possible position of this env's game.

        Called on every loaded or given position (``load_state_dict``, ``reset(options={"state": ...})``)
        before it is used; the base class has already checked the state's type, and afterwards checks
        that every seat's observation lies in the observation space and the deciding seat can act.
        Default: the engine's ``check_state(state, config)``, where it has one.
        """
        check = getattr(self.engine, "check_state", None)
        if check is not None:
            check(state, self.config)

    def _position(self, options: dict[str, Any]) -> dict[str, Any]:  # game hook
        """The ``reset(options=...)`` position keys checked completely, as keyword arguments of the
        engine's ``new_game`` (raise ``ValueError`` or :class:`OptionError` naming the key).
        Default: the engine's ``check_position(config, **options)``, where it has one."""
        check = getattr(self.engine, "check_position", None)
        return dict(check(self.config, **options)) if check is not None else dict(options)

    def _num_actions(self) -> int:  # game hook
        raise NotImplementedError

    def _observation_box(self) -> spaces.Box:  # game hook
        raise NotImplementedError

    def _new_state(self, rng: np.random.Generator, options: dict[str, Any]) -> Any:  # game hook
        """A fresh engine state; ``options`` are the game's ``reset(options=...)`` keys.

        Default: the engine's ``new_game(config, rng, **position)`` with the position of :meth:`_position`;
        a ``ValueError`` of either becomes an :class:`OptionError` naming the env.
        """
        name = self.metadata["name"]
        try:
            return self.engine.new_game(self.config, rng, **self._position(options))
        except OptionError:
            raise
        except ValueError as exc:
            raise OptionError(f"{name}: {exc}") from None

    def _current_seat(self) -> int:  # game hook
        """Seat that must decide now (may be off-turn). Only called while not over."""
        raise NotImplementedError

    def _game_over(self) -> bool:  # game hook
        return bool(self.engine.is_over(self.game_state))

    def _undecided_stop(self) -> str | None:  # game hook
        """Once the game is over: the name of the game's own cap if it stopped there without a result
        (Iceberg Rummy's ``max_hands``, Icebergs' ``max_turns``), which makes the end a truncation;
        ``None`` (default) for a decided game."""
        return None

    def _legal_actions(self) -> Sequence[int]:  # game hook
        """The engine's legal action ids for the deciding seat."""
        return self.engine.legal_actions(self.game_state)

    def _apply_action(self, action: int) -> None:  # game hook
        """Apply a legal action to ``self.game_state`` (randomness from ``self._rng``)."""
        self.engine.apply(self.game_state, action, self.np_random)

    def _encode(self, seat: int) -> np.ndarray:  # game hook
        """The observation vector of ``seat`` (its own view only)."""
        raise NotImplementedError

    def _outcome(self) -> np.ndarray:  # game hook
        """Terminal rewards per seat (``reward_mode="outcome"``)."""
        return np.asarray(self.engine.outcome(self.game_state), dtype=np.float64)

    def _scores(self) -> np.ndarray:  # game hook
        """Running score per seat; ``reward_mode="score"`` rewards its deltas."""
        return np.asarray(self.engine.scores(self.game_state), dtype=np.float64)

    def _opening_scores(self) -> np.ndarray:  # game hook
        """The running scores a freshly dealt game's score rewards count from (default: its scores now).

        A game whose automatic start scores points before the first decision returns the scores before
        them, so that the first decision's reward pays them and the rewards sum to the final scores. A
        game started from a saved state counts from that state's scores.
        """
        return self._scores()

    def _describe(self, action: int) -> str:  # game hook
        raise NotImplementedError

    def _render_text(self, viewer: int | None) -> str:  # game hook
        """Text view of the table; ``viewer`` hides what that seat may not see."""
        raise NotImplementedError

    def _render_rgb(self, viewer: int | None) -> np.ndarray:  # game hook (optional)
        from ice_envs.core.render import text_to_rgb

        return text_to_rgb(self._render_text(viewer), title=self.metadata["name"])

    def _render_svg(self, viewer: int | None) -> str:  # game hook (optional; pairs with _render_rgb)
        """The ``_render_rgb`` picture as a standalone SVG document (the same drawing code)."""
        from ice_envs.core.render import text_to_svg

        return text_to_svg(self._render_text(viewer), title=self.metadata["name"])

    def _action_target(self, action: int) -> str | None:  # game hook (optional)
        """The ``data-target`` key of the SVG element legal ``action`` belongs to (``None``: none)."""
        return None

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> Any:  # game hook
        """A new engine state that ``seat`` cannot tell apart from the current one.

        Re-deals everything ``seat`` cannot see (other hands, deck order, future
        rolls) consistently with what it has seen. Used by the leak tests and by
        agents that sample a determinisation of the hidden information.
        """
        return self.engine.resample_hidden(self.game_state, seat, rng)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ core API
    @property
    def np_random(self) -> np.random.Generator:
        """The env's one random generator (seeded by ``reset(seed=...)``)."""
        if self._rng is None:
            self._rng = np.random.default_rng()
        return self._rng

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        ``seed`` reseeds the env's generator (same seed, same actions ⇒ same game).
        ``options`` may hold ``{"state": <state_dict()["state"]>}`` to start from a saved
        engine state, or the game's own position keys (:attr:`reset_option_keys`, see its
        docstring). A bad seed, an unknown key or an impossible position raises
        :class:`OptionError` and leaves the env exactly as it was. (The one key
        ``"options"``, which PettingZoo's ``api_test`` passes to probe the signature, is ignored.)
        """
        name = self.metadata["name"]
        check_int(name, "seed", seed, low=0, allow_none=True)
        if options is not None and not isinstance(options, dict):
            raise OptionError(f"{name}: reset options must be a dict, got {type(options).__name__}")
        options = dict(options or {})
        options.pop(API_TEST_PROBE, None)
        check_keys(name, "reset option", options, ("state", *self.reset_option_keys))
        if "state" in options and len(options) > 1:
            raise OptionError(
                f"{name}: reset option 'state' cannot be combined with {sorted(set(options) - {'state'})}"
            )
        with self._all_or_nothing("reset options do not give a valid position"):
            self._reset(seed, options)

    def _reset(self, seed: int | None, options: dict[str, Any]) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        if "state" in options:
            raw = options["state"]
            state = self._checked_state(copy.deepcopy(raw)) if not isinstance(raw, dict) else self._decode_state(raw)
            self.game_state = state
            self._check_position(state)
        else:
            self.game_state = self._new_state(self._rng, options)
            if options:
                self._check_position(self.game_state)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._num_steps = 0
        self._rewards_zero = True
        self._mask = None
        start = self._scores() if "state" in options else self._opening_scores()
        self._last_scores = np.asarray(start, dtype=np.float64).copy()
        self.num_forced_steps = 0
        if self._game_over():
            self.agent_selection = self.agents[0]
            rewards = np.zeros(self.num_players)
            if self.reward_mode == "score":  # a game over at once pays what its automatic start scored
                scores = np.asarray(self._scores(), dtype=np.float64)
                rewards, self._last_scores = scores - self._last_scores, scores.copy()
            self._finish(rewards)
            return
        self.agent_selection = self.possible_agents[self._current_seat()]
        if self.skip_forced:
            step_rewards = self._skip_forced_steps(None)
            if self.num_forced_steps:
                self._settle(step_rewards)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < self._n_actions:
            try:
                action = self._checked_action(action)
            except IllegalActionError:
                if self.illegal_action == "raise":
                    raise
                self._penalize(agent)  # out of range, not an integer, or None: illegal all the same
                return
        mask = self._mask
        if mask is None:
            mask = self._legal_mask()
        if not mask[action]:
            self._handle_illegal(agent, action, mask)
            return
        self._cumulative_rewards[agent] = 0.0
        step_rewards = self._advance(action)
        if self.skip_forced:
            step_rewards = self._skip_forced_steps(step_rewards)
        self._settle(step_rewards)

    def _advance(self, action: int) -> np.ndarray | None:
        """Apply one legal action; its score rewards per seat (``None``: all zero, outcome mode)."""
        self._apply_action(action)
        self._mask = None
        self._num_steps += 1
        if self.reward_mode != "score":
            return None  # all zero until the end (outcome rewards)
        scores = np.asarray(self._scores(), dtype=np.float64)
        step_rewards = scores - self._last_scores
        self._last_scores = scores.copy()
        return step_rewards

    def _stopped(self) -> bool:
        """Whether the game is over or must be truncated now."""
        return self._game_over() or self._num_steps >= self.max_game_length

    def _forced_action(self) -> int | None:
        """The deciding seat's one legal action, or ``None`` if it has a real choice (or the game stopped)."""
        if self._stopped():
            return None
        mask = self._legal_mask()
        legal = np.flatnonzero(mask)
        return int(legal[0]) if legal.size == 1 else None

    def _skip_forced_steps(self, step_rewards: np.ndarray | None) -> np.ndarray | None:
        """Apply every forced step from here on; the rewards of all steps taken, summed."""
        while (forced := self._forced_action()) is not None:
            more = self._advance(forced)
            self.num_forced_steps += 1
            if more is not None:
                step_rewards = more if step_rewards is None else step_rewards + more
        return step_rewards

    def _settle(self, step_rewards: np.ndarray | None) -> None:
        """After the steps of one call: end or truncate the game, or hand the turn on; pay the rewards."""
        if self._game_over():
            self._finish(np.zeros(self.num_players) if step_rewards is None else step_rewards)
            return
        if self._num_steps >= self.max_game_length:
            self._set_rewards(np.zeros(self.num_players) if step_rewards is None else step_rewards)
            for a in self.agents:
                self.truncations[a] = True
            self._accumulate_rewards()
            return
        if step_rewards is not None:
            self._set_rewards(step_rewards)
        elif not self._rewards_zero:  # what _set_rewards does with all-zero rewards
            self._rewards_zero = True
            rewards = self.rewards
            for a in self.agents:
                rewards[a] = 0.0
        self.agent_selection = self.possible_agents[self._current_seat()]
        if not self._rewards_zero:
            self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self._encode(self._seat_of[agent])
        if agent == self.agent_selection and self._can_act(agent):
            mask = self._mask
            if mask is None:
                mask = self._legal_mask()
            mask = mask.copy()
        else:
            mask = self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def _can_act(self, agent: str) -> bool:
        """Whether ``agent`` is still in the game and neither terminated nor truncated."""
        return agent in self.terminations and not (self.terminations[agent] or self.truncations[agent])

    def action_mask(self) -> np.ndarray:
        """Mask of the selected agent (all zero once the game is over or truncated)."""
        if self.game_state is None or not self._can_act(self.agent_selection):
            return self._zero_mask.copy()
        return self._legal_mask().copy()

    def legal_actions(self) -> list[int]:
        """The legal action ids of the selected agent: exactly the ones its mask marks (``[]`` when it is all zero)."""
        return np.flatnonzero(self.action_mask()).tolist()

    def describe_action(self, action: int) -> str:
        """A readable description of ``action`` for the selected agent."""
        return self._describe(self._checked_action(action, with_legal=False))

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return self._render_rgb(None)
        text = self._render_text(None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_view(self, viewer: int | None = None, mode: str = "ansi") -> str | np.ndarray:
        """Render as seen from seat ``viewer`` (``None``: everything), in ``mode``: ``"ansi"``
        (text), ``"rgb_array"`` (an ``(H, W, 3)`` uint8 picture) or ``"svg"`` (the same picture
        as a standalone SVG document, with nothing in it that ``viewer`` may not see)."""
        check_choice(str(self), "mode", mode, ("ansi", "rgb_array", "svg"))
        if mode == "rgb_array":
            return self._render_rgb(viewer)
        if mode == "svg":
            return self._render_svg(viewer)
        return self._render_text(viewer)

    def action_target(self, action: int) -> str | None:
        """The ``data-target`` key of the element of the SVG picture (:meth:`render_view` with
        ``mode="svg"``, drawn for the deciding seat or ``None``) that legal ``action`` belongs to:
        the card it plays, the die it keeps, the slot it melds into. ``None`` where the move has no
        place on the table (pass, end the turn). Several moves may name the same element."""
        return self._action_target(int(action))

    def close(self) -> None:
        pass

    @property
    def current_seat(self) -> int:
        """Seat index of ``agent_selection``."""
        return self._seat_of[self.agent_selection]

    @property
    def num_steps(self) -> int:
        """Decisions taken since the last reset (with ``skip_forced``, the forced steps applied included)."""
        return self._num_steps

    def scores(self) -> np.ndarray:
        """The game's running score per seat (public)."""
        return np.asarray(self._scores(), dtype=np.float64).copy()

    def outcome(self) -> np.ndarray:
        """The outcome rewards per seat of a finished game (what ``reward_mode="outcome"`` pays),
        whatever ``reward_mode`` this env was built with; meaningless before the game ends."""
        return np.asarray(self._outcome(), dtype=np.float64).copy()

    def win_shares(self) -> np.ndarray:
        """Who won: each seat's share of the win, by the game's own rules, whatever ``reward_mode``.

        Each of the ``k`` winners of a finished game gets ``1/k`` (a shared win is shared),
        every other seat 0; the shares sum to 1. A game that is not over by its rules
        (still going, truncated, or ended by a penalised illegal action) has no winner:
        all zero. Evaluation, training, play and game records all ask this one method.
        """
        shares = np.zeros(self.num_players, dtype=np.float64)
        if self.game_state is None or not self._game_over():
            return shares
        won = np.asarray(self._outcome(), dtype=np.float64) > 0
        if won.any():
            shares[won] = 1.0 / int(won.sum())
        return shares

    def winners(self) -> list[int]:
        """The seats that won the finished game (``[]`` if it is not over or nobody won)."""
        return np.flatnonzero(self.win_shares() > 0).tolist()

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> Any:
        """See :meth:`_resample_hidden`; returns a new engine state."""
        return self._resample_hidden(seat, rng)

    # ------------------------------------------------------------------ save / load
    def state_dict(self) -> dict[str, Any]:
        """The whole env state as plain JSON-able data (see :meth:`load_state_dict`)."""
        return {
            "game": self.metadata["name"],
            "num_players": self.num_players,
            "state": to_jsonable(self.game_state),
            "rng": to_jsonable(self.np_random.bit_generator.state),
            "num_steps": self._num_steps,
            "agents": list(self.agents),
            "agent_selection": self.agent_selection,
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "last_scores": self._last_scores.tolist(),
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict`; the game then continues identically.

        Everything is checked before it is used — the keys, the game and player count, the
        engine state's type and contents, agent names, the generator state, rewards and
        flags — and a bad ``data`` raises :class:`OptionError` naming the problem, leaving
        the env exactly as it was.
        """
        name = self.metadata["name"]
        if not isinstance(data, dict):
            raise OptionError(f"{name}: a state dict must be a dict, got {type(data).__name__}")
        missing = sorted(STATE_DICT_KEYS - set(data))
        if missing:
            raise OptionError(f"{name}: state dict lacks {missing}")
        check_keys(name, "state dict key", data, STATE_DICT_KEYS)
        if data["game"] != name or data["num_players"] != self.num_players:
            raise OptionError(
                f"{name}: state is for game {data.get('game')!r} with {data.get('num_players')!r} players, "
                f"this env is {name!r} with {self.num_players}"
            )
        with self._all_or_nothing("state dict is not valid"):
            self._load(data)

    @contextlib.contextmanager
    def _all_or_nothing(self, problem: str) -> Iterator[None]:
        """Run the block; if it raises, put the env back exactly as it was (its generator's state included)
        and raise an :class:`OptionError` (another error becomes one, ``problem`` naming what failed)."""
        saved = dict(self.__dict__)
        rng = self._rng
        rng_state = rng.bit_generator.state if rng is not None else None
        try:
            yield
        except BaseException as exc:
            self.__dict__.clear()
            self.__dict__.update(saved)
            if rng is not None:
                rng.bit_generator.state = rng_state
            if isinstance(exc, (OptionError, KeyboardInterrupt, SystemExit)):
                raise
            raise OptionError(f"{self.metadata['name']}: {problem}: {exc}") from exc

    def _load(self, data: dict[str, Any]) -> None:
        name = self.metadata["name"]
        state = self._decode_state(data["state"])
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = from_jsonable(data["rng"])
        except (TypeError, ValueError, KeyError) as exc:
            raise OptionError(f"{name}: state dict 'rng' is not a generator state: {exc}") from None
        num_steps = check_int(name, "state dict 'num_steps'", data["num_steps"], low=0)
        agents = data["agents"]
        if (
            not isinstance(agents, list)
            or len(set(agents)) != len(agents)
            or not set(agents) <= set(self.possible_agents)
        ):
            raise OptionError(
                f"{name}: state dict 'agents' must be distinct names of {self.possible_agents}, got {agents!r}"
            )
        selection = data["agent_selection"]
        if selection not in (agents or self.possible_agents):
            raise OptionError(f"{name}: state dict 'agent_selection' {selection!r} is not one of {agents}")
        tables = {}
        for key, kind in (
            ("rewards", "number"),
            ("cumulative_rewards", "number"),
            ("terminations", "flag"),
            ("truncations", "flag"),
        ):
            table = data[key]
            if not isinstance(table, dict) or set(table) != set(agents):
                raise OptionError(f"{name}: state dict {key!r} must have one entry per agent of {agents}")
            check = check_number if kind == "number" else check_flag
            tables[key] = {a: check(name, f"state dict {key}[{a!r}]", v) for a, v in table.items()}
        last_scores = data["last_scores"]
        if not isinstance(last_scores, list) or len(last_scores) != self.num_players:
            raise OptionError(f"{name}: state dict 'last_scores' must be a list of {self.num_players} numbers")
        last = [check_number(name, "state dict 'last_scores'", v) for v in last_scores]
        self.game_state = state
        self._rng = rng
        self._num_steps = num_steps
        self.agents = list(agents)
        self.agent_selection = selection
        self.rewards = tables["rewards"]
        self._cumulative_rewards = tables["cumulative_rewards"]
        self.terminations = tables["terminations"]
        self.truncations = tables["truncations"]
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._last_scores = np.asarray(last, dtype=np.float64)
        self._rewards_zero = not any(self.rewards.values())
        self._mask = None
        self._check_position(state)
        if self.agents and self._can_act(selection):
            if self._game_over():
                raise OptionError(f"{name}: the game of this state is over but {selection} is still to act")
            seat = self._current_seat()
            if self.possible_agents[seat] != selection:
                raise OptionError(
                    f"{name}: state dict 'agent_selection' is {selection!r} but player_{seat} must decide"
                )

    def _decode_state(self, data: Any) -> Any:
        """The engine state of ``data`` (``state_dict()["state"]``), of this game's state type, checked by the game."""
        name = self.metadata["name"]
        try:
            state = from_jsonable(data)
        except (TypeError, ValueError, KeyError, AttributeError, ImportError) as exc:
            raise OptionError(f"{name}: 'state' is not an engine state: {exc}") from None
        return self._checked_state(state)

    def _checked_state(self, state: Any) -> Any:
        """``state`` if it is of this game's state type and the game's :meth:`_check_state` accepts it."""
        name = self.metadata["name"]
        expected = self._state_type()
        if type(state) is not expected:
            raise OptionError(f"{name}: 'state' must be a {expected.__name__}, got {type(state).__name__}")
        own = getattr(self, "config", None)
        if own is not None and hasattr(state, "config"):
            try:
                same = to_jsonable(state.config) == to_jsonable(own)
            except TypeError:
                same = False
            if not same:  # every field, derived ones included (a map's neighbour table...)
                raise OptionError(f"{name}: 'state' is for another configuration of the game than this env's")
        try:
            self._check_state(state)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise OptionError(f"{name}: 'state' is not a possible position: {exc}") from None
        return state

    def _state_type(self) -> type:
        """The type of this game's engine states (of a fresh game's, measured once per env)."""
        if getattr(self, "_state_type_cache", None) is None:
            fresh = self.game_state if self.game_state is not None else self._new_state(np.random.default_rng(0), {})
            self._state_type_cache = type(fresh)
        return self._state_type_cache

    def _check_position(self, state: Any) -> None:
        """A given or loaded position must encode inside the observation space for every seat, and the
        deciding seat (if the game is not over) must have a legal action."""
        name = self.metadata["name"]
        box = self._observation_spaces[self.possible_agents[0]]["observation"]
        try:
            for seat in range(self.num_players):
                obs = self._encode(seat)
                if obs.shape != box.shape or not np.all(np.isfinite(obs)) or not box.contains(obs.astype(box.dtype)):
                    raise OptionError(f"{name}: the position does not fit the observation space (seat {seat}'s view)")
            if not self._game_over():
                seat = self._current_seat()
                if not 0 <= seat < self.num_players:
                    raise OptionError(f"{name}: the position has no deciding seat (got {seat!r})")
                legal = list(self._legal_actions())
                if not legal or not all(0 <= int(a) < self._n_actions for a in legal):
                    raise OptionError(f"{name}: the deciding seat of the position has no legal action")
        except OptionError:
            raise
        except Exception as exc:
            raise OptionError(f"{name}: not a possible position: {exc!r}") from None

    # ------------------------------------------------------------------ pickling and checkpoints
    def _caches(self) -> dict[str, Any]:
        """``{attribute: its value in a fresh env}`` for every cache this env keeps: what it rebuilds on
        demand from its state and configuration. A game with caches of its own adds them to these.

        Caches are left out of the env's saved state (pickle, ``copy.deepcopy`` and training
        checkpoints, see :meth:`__getstate__`): a checkpoint then holds no data laid out by one
        version of the code for another to misread, and stays small."""
        return {"_mask_cache": self._shared_mask_cache()}

    def _shared_mask_cache(self) -> dict[tuple[Any, ...], np.ndarray] | None:
        """The masks shared by every env with this many actions (None when there are too many to cache)."""
        n = self._n_actions
        return _MASK_CACHES.setdefault(n, {}) if n <= MASK_CACHE_MAX_ACTIONS else None

    def __getstate__(self) -> dict[str, Any]:
        """The env's attributes without its caches (:meth:`_caches`)."""
        state = dict(self.__dict__)
        for name in self._caches():
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore the attributes of :meth:`__getstate__`; the caches start as in a fresh env (any that
        ``state`` holds, as an older checkpoint may, are dropped)."""
        self.__dict__.update(state)
        self.__dict__.update(self._caches())

    # ------------------------------------------------------------------ internals
    def _legal_mask(self) -> np.ndarray:
        """The selected seat's mask (kept until the next action; never modify it in place)."""
        if self._mask is None:
            legal = self._legal_actions()
            cache = self._mask_cache
            if cache is None:
                self._mask = self._build_mask(legal)
                return self._mask
            if type(legal) is not tuple:
                legal = tuple(legal)
            try:
                mask = cache.get(legal)
            except TypeError:  # unhashable action ids: no caching
                self._mask = self._build_mask(legal)
                return self._mask
            if mask is None:
                mask = self._build_mask(legal)
                mask.flags.writeable = False  # shared by every instance with this action count
                if len(cache) >= MASK_CACHE_MAX_ENTRIES:
                    cache.clear()
                cache[legal] = mask
            self._mask = mask
        return self._mask

    def _build_mask(self, legal: Sequence[int]) -> np.ndarray:
        ids = list(legal)
        mask = self._zero_mask.copy()
        mask[np.asarray(ids, dtype=np.intp)] = 1
        if not ids:  # a non-empty id list always sets a 1 (or raises IndexError above)
            raise RuntimeError(f"{self}: engine gave the deciding seat no legal action")
        return mask

    def _set_rewards(self, per_seat: np.ndarray) -> None:
        if not per_seat.any():
            if self._rewards_zero:
                return
            self._rewards_zero = True
        else:
            self._rewards_zero = False
        for a in self.agents:
            self.rewards[a] = float(per_seat[self._seat_of[a]])

    def _finish(self, step_rewards: np.ndarray) -> None:
        """The game is over: decided (terminations, outcome rewards) or stopped at a cap of its own
        (:meth:`_undecided_stop`: truncations, no outcome reward, the cap named in the infos)."""
        cap = self._undecided_stop()
        if cap is None and self.reward_mode == "outcome":
            step_rewards = step_rewards + np.asarray(self._outcome(), dtype=np.float64)
        self._set_rewards(step_rewards)
        ends = self.terminations if cap is None else self.truncations
        scores = self.scores().tolist()
        for a in self.agents:
            ends[a] = True
            self.infos[a] = {"scores": scores} if cap is None else {"scores": scores, cap: True}
        self._accumulate_rewards()

    def _handle_illegal(self, agent: str, action: int, mask: np.ndarray) -> None:
        legal = np.flatnonzero(mask).tolist()
        if self.illegal_action == "raise":
            raise IllegalActionError(
                f"{self}: action {action} ({self._describe_safely(action)}) is illegal for {agent}; "
                f"legal actions: {legal}"
            )
        self._penalize(agent)

    def _penalize(self, agent: str) -> None:
        """``illegal_action="penalize"``: end the game, ``illegal_reward`` for ``agent`` and 0 for the others."""
        self._cumulative_rewards[agent] = 0.0
        rewards = np.zeros(self.num_players)
        rewards[self._seat_of[agent]] = self.illegal_reward
        self._set_rewards(rewards)
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {"illegal_action": a == agent}
        self._accumulate_rewards()

    def _checked_action(self, action: Any, with_legal: bool = True) -> int:
        """``action`` as an ``int`` action id, or :class:`IllegalActionError` naming it (and the legal ones).

        Integers (``int`` and numpy integers) in ``0 .. n-1`` are accepted; ``None``, ``bool``,
        floats (even ``3.0``), strings and anything else are refused, never converted.
        """
        n = self._n_actions
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            if 0 <= action < n:
                return int(action)
            problem = f"is outside the action space 0..{n - 1}"
        elif action is None:
            problem = "is None, but the agent must act"
        else:
            problem = f"is a {type(action).__name__}, not an integer action id"
        legal = f"; legal actions: {self.legal_actions()}" if with_legal else ""
        raise IllegalActionError(f"{self}: action {action!r} of {self.agent_selection} {problem}{legal}")

    def _describe_safely(self, action: int) -> str:
        try:
            return self._describe(action)
        except Exception:
            return "no description"


def float32_vector(values: Sequence[float]) -> np.ndarray:
    """``np.array(values, dtype=np.float32)`` for a list of Python numbers, built faster.

    The values are packed as C floats (the same rounding as numpy's cast) straight into the
    new array's buffer instead of being converted one by one by numpy.
    """
    n = len(values)
    packer = _FLOAT32_PACKERS.get(n)
    if packer is None:
        packer = _FLOAT32_PACKERS[n] = struct.Struct(f"={n}f").pack_into
    out = np.empty(n, dtype=np.float32)
    try:
        packer(out, 0, *values)
    except (OverflowError, TypeError, struct.error):  # beyond float32 or not plain numbers: numpy's own cast
        return np.array(values, dtype=np.float32)
    return out


_FLOAT32_PACKERS: dict[int, Any] = {}
