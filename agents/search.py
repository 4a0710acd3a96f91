"""A small simulator over a game's engine, for the search agents (``greedy``, ``mcts``).

:class:`Simulator` answers what search needs of any registered game, on engine states
that it never shares with an env: copy a state, its legal actions, apply one with a given
generator, the deciding seat, whether the game is over, the win shares and scores, the
game's greedy value, and determinizations (re-deals of the hidden information through the
engine's ``resample_hidden``). It is built on a scratch raw env of the game and drives that
env's game hooks (``_legal_actions``, ``_apply_action``, ``_current_seat``, ...; see
:mod:`ice_envs.core.aec`) on whatever state it is handed, so it works for every game,
plug-ins included, and follows the rules variant that the state's own ``config`` carries.

Exactness. Everything a search agent compares is exact: rewards are integers in units of
``1 / reward_unit(n)`` (every win share ``1/k`` of ``k <= n`` winners is one), values are
``int`` or :class:`fractions.Fraction`, and probabilities of chance outcomes are fractions.
No decision hinges on the last bit of a float.

Information. An agent must see only what its seat sees: every state it searches is a
:meth:`Simulator.determinize` of the :class:`~ice_envs.core.agent.PlayerView` state with the
agent's own generator. A determinization is a function of the seat's information and that
generator alone, as every game's ``resample_hidden`` re-deals from what the seat knows.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.agent import PlayerView
from ice_envs.core.chance import ChanceLimit, ScriptedDraws, next_script
from ice_envs.core.registry import get_spec

__all__ = [
    "ChanceLimit",
    "Exact",
    "Simulator",
    "deep_copy_state",
    "exact",
    "reward_unit",
    "same_state",
    "simulator_for",
]

#: An exact number: what values, means and probabilities are.
Exact = int | Fraction


def exact(value: Any) -> Exact:
    """``value`` as an exact number: ints and fractions as they are, a float as its exact binary value."""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return value
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, np.integer):
        return int(value)
    return Fraction(float(value))


@cache
def reward_unit(num_players: int) -> int:
    """``lcm(1..n)``: a win share ``1/k`` (``k <= n`` winners) is a whole number of these units."""
    unit = 1
    for k in range(2, max(1, num_players) + 1):
        unit = unit * k // math.gcd(unit, k)
    return unit


def same_state(a: Any, b: Any) -> bool:
    """Whether two engine states hold the same values (dataclass fields, lists, dicts, numpy arrays)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return False
        return all(same_state(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return (
            isinstance(b, (list, tuple))
            and len(a) == len(b)
            and all(same_state(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)
    if hasattr(a, "__dict__") and type(a) is type(b) and not isinstance(a, type):
        return same_state(vars(a), vars(b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------- copying states
_PLAIN = (int, float, str, bool, type(None))
_ATOMIC = (*_PLAIN, bytes, complex, np.generic)
#: Per class: ``True`` for a frozen dataclass (shared, never copied), ``False`` for a dataclass whose
#: instance attributes are copied one by one, ``None`` for anything else (``copy.deepcopy``).
_COPY_PLAN: dict[type, bool | None] = {}


def deep_copy_state(value: Any) -> Any:
    """A deep copy of an engine state, about twice as fast as :func:`copy.deepcopy` on these states
    (not :func:`ice_envs.core.state_copy.copy_state`, the field-wise copy the built-in states use).

    Lists, dicts, tuples holding mutable values and numpy arrays are copied; numbers, strings and
    frozen dataclasses (the game's config, catalogs, maps: immutable) are shared; the attributes of a
    dataclass instance are copied one by one; anything else goes through :func:`copy.deepcopy`. The
    simulator's fallback for an engine whose state does not declare ``FAST_COPY`` (every built-in game
    does: :func:`ice_envs.core.state_copy.copy_state`); a plug-in game's state is copied with it unless
    its class declares its own ``copy()`` fast.
    """
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:
        return value[:] if all(type(v) in _PLAIN for v in value) else [deep_copy_state(v) for v in value]
    if kind is tuple:
        return value if all(type(v) in _PLAIN for v in value) else tuple(deep_copy_state(v) for v in value)
    if kind is dict:
        return {k: deep_copy_state(v) for k, v in value.items()}
    if kind is np.ndarray:
        return value.copy()
    if isinstance(value, _ATOMIC):
        return value
    plan = _COPY_PLAN.get(kind, 0)
    if plan == 0:
        plan = _COPY_PLAN[kind] = kind.__dataclass_params__.frozen if dataclasses.is_dataclass(kind) else None
    if plan is True:
        return value
    if plan is False and hasattr(value, "__dict__"):
        new = object.__new__(kind)
        attrs = new.__dict__
        for k, v in value.__dict__.items():
            attrs[k] = deep_copy_state(v)
        return new
    return copy.deepcopy(value)


# ---------------------------------------------------------------------------- the simulator
class Simulator:
    """Engine operations of one game and player count, for search (see the module docstring).

    States are mutated in place by :meth:`apply`; copy them first with :meth:`copy` where the
    original is still needed.
    """

    def __init__(self, game: str, num_players: int) -> None:
        spec = get_spec(game)
        self.game = spec.name
        self.num_players = int(num_players)
        self._env = ice_envs.make(
            spec.name, raw=True, num_players=self.num_players, **_seating_options(spec, num_players)
        )
        self._env.reset(seed=0)
        #: The env's declared maximum length in decisions: no search path goes deeper.
        self.max_decisions = int(self._env.max_game_length)
        self.num_actions = int(self._env.action_space(self._env.possible_agents[0]).n)
        self.unit = reward_unit(self.num_players)
        greedy = spec.greedy_function()
        self._greedy = greedy
        module = None if greedy is None else importlib.import_module(greedy.__module__)
        self._expected_hook = getattr(module, "expected_values", None)
        self._bound: Any = None

    # -- binding a state to the scratch env
    def _bind(self, state: Any, rng: Any = None) -> Any:
        env = self._env
        if self._bound is not state:
            env.game_state = state
            config = getattr(state, "config", None)
            if config is not None:
                env.config = config
            self._bound = state
        if rng is not None:
            env._rng = rng
        return env

    # -- state operations
    @staticmethod
    def copy(state: Any) -> Any:
        """An independent copy of ``state``: the state's own ``copy()`` where the engine declares it fast
        (``FAST_COPY = True`` on the state class: a field-wise copy sharing the frozen config,
        :mod:`ice_envs.core.state_copy`), else :func:`deep_copy_state`."""
        if getattr(type(state), "FAST_COPY", False):
            return state.copy()
        return deep_copy_state(state)

    def determinize(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        """A re-deal of everything ``seat`` cannot see in ``state``, drawn with ``rng`` (a new state).

        Depends only on what ``seat`` knows and on ``rng``."""
        return self._bind(state, rng).resample_hidden(seat, rng)

    def legal_actions(self, state: Any) -> list[int]:
        """The deciding seat's legal actions, ascending."""
        return sorted(map(int, self._bind(state)._legal_actions()))

    def deciding_seat(self, state: Any) -> int:
        """The seat that decides now (may be off-turn)."""
        return int(self._bind(state)._current_seat())

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended, by its rules or at one of its own caps (a cap on hands or turns
        ends a game over, with no winner)."""
        return bool(self._bind(state)._game_over())

    def apply(self, state: Any, action: int, rng: Any) -> None:
        """Apply the legal ``action`` to ``state`` in place, drawing chance from ``rng``."""
        self._bind(state, rng)._apply_action(int(action))

    def scores(self, state: Any) -> np.ndarray:
        """The game's running score per seat."""
        return np.asarray(self._bind(state)._scores(), dtype=np.float64)

    def win_rewards(self, state: Any) -> list[int]:
        """Each seat's win share of a finished game in units of :attr:`unit` (all 0 without a winner)."""
        env = self._bind(state)
        if not env._game_over():
            return [0] * self.num_players
        won = [float(v) > 0 for v in np.asarray(env._outcome(), dtype=np.float64)]
        k = sum(won)
        return [self.unit // k if w else 0 for w in won] if k else [0] * self.num_players

    def value(self, state: Any, seat: int) -> Exact:
        """The game's greedy value of ``state`` for ``seat`` (its spec's ``greedy``; else its score), exact."""
        if self._greedy is not None:
            return exact(self._greedy(state, seat))
        return exact(self.scores(state)[seat])

    def leader_rewards(self, state: Any) -> list[int]:
        """Rewards of an unfinished ``state``: the seats with the highest :meth:`value` share the win."""
        if self.is_over(state):
            return self.win_rewards(state)
        values = [self.value(state, p) for p in range(self.num_players)]
        best = max(values)
        k = sum(1 for v in values if v == best)
        return [self.unit // k if v == best else 0 for v in values]

    def observation(self, state: Any, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` in ``state`` (as the env encodes it)."""
        return self._bind(state)._encode(seat)

    def describe(self, state: Any, action: int) -> str:
        """The game's description of ``action`` in ``state`` (as ``env.describe_action`` words it)."""
        return str(self._bind(state)._describe(int(action)))

    def agent_action(self, agent: Any, state: Any, legal: Sequence[int]) -> int:
        """``agent``'s action for the deciding seat of ``state``, with ``state`` as that seat's view (the only
        legal action at once, without asking the agent)."""
        legal = list(legal)
        if len(legal) == 1:
            return legal[0]
        seat = self.deciding_seat(state)
        view = PlayerView(self.game, seat, self.num_players, state, legal)
        observation = {"action_mask": self.mask(legal)}
        if getattr(agent, "needs_observation", False):
            observation["observation"] = self.observation(state, seat)
        return int(agent.act(observation, view))

    def mask(self, legal: Sequence[int]) -> np.ndarray:
        """An action mask (int8) marking ``legal``."""
        legal = list(legal)
        mask = np.zeros(max(self.num_actions, max(legal, default=-1) + 1), dtype=np.int8)
        mask[legal] = 1
        return mask

    # -- chance
    def expected_values(self, state: Any, seat: int, actions: Sequence[int], limit: int) -> dict[int, Fraction]:
        """``{action: exact expected value for seat after it}`` for the ``actions`` whose chance can be
        taken exactly within ``limit`` outcomes each; the others are left out (the caller samples them).

        The game's own ``expected_values`` hook answers first (see ``GameSpec.greedy``); for the rest
        every sequence of the engine's ``integers(low, high)`` draws is enumerated, each value equally
        likely. An engine that draws in another way (shuffles, permutations) is not enumerated. A
        deterministic action has one outcome of probability 1.
        """
        known: dict[int, Fraction] = {}
        if self._expected_hook is not None:
            known.update({int(a): Fraction(v) for a, v in self._expected_hook(state, seat, list(actions)).items()})
        for action in actions:
            if action not in known:
                value = self._enumerated_value(state, int(action), seat, limit)
                if value is not None:
                    known[int(action)] = value
        return known

    def outcomes(self, state: Any, action: int, limit: int) -> list[tuple[Fraction, Any]] | None:
        """The chance outcomes of ``action`` on ``state`` by enumerating the engine's ``integers`` draws:
        ``(probability, state after)`` pairs, or ``None`` beyond ``limit`` outcomes or other draws."""
        found = [(Fraction(1, den), after) for den, after in self._enumerate(state, action, limit)]
        return found or None

    def _enumerated_value(self, state: Any, action: int, seat: int, limit: int) -> Fraction | None:
        """The exact expected value after ``action`` over the enumerated draws, or ``None`` (see :meth:`outcomes`)."""
        sums: dict[int, Exact] = {}  # probability denominator -> sum of the values of its outcomes
        for den, after in self._enumerate(state, action, limit):
            sums[den] = sums.get(den, 0) + self.value(after, seat)
        if not sums:
            return None
        return sum((Fraction(v) / den for den, v in sums.items()), Fraction(0))

    def _enumerate(self, state: Any, action: int, limit: int) -> list[tuple[int, Any]]:
        """Every outcome of ``action`` as ``(1/probability, state after)``; ``[]`` if not enumerable within ``limit``."""
        found: list[tuple[int, Any]] = []
        script: list[int] = []
        while True:
            rng = ScriptedDraws(script, limit)
            after = self.copy(state)
            try:
                self.apply(after, action, rng)
            except ChanceLimit:
                self._bound = None
                return []
            found.append((math.prod(rng.widths), after))
            if len(found) > limit:
                return []
            if not next_script(script, rng.widths):
                return found


def _seating_options(spec: Any, num_players: int) -> dict[str, Any]:
    """The options of the first of ``spec``'s variants that seats ``num_players`` (none for the default variant):
    the scratch env must accept the player count (solo Icebergs needs ``solo=True``); every state bound to it
    brings its own config."""
    for _, players, options in spec.cases():
        if players == num_players:
            return options
    return {}


_SIMULATORS: dict[tuple[str, int], Simulator] = {}


def simulator_for(game: str, num_players: int) -> Simulator:
    """A :class:`Simulator` of ``game`` at ``num_players`` (one per process and table size, reused)."""
    key = (get_spec(game).name, int(num_players))
    sim = _SIMULATORS.get(key)
    if sim is None:
        sim = _SIMULATORS[key] = Simulator(*key)
    return sim
