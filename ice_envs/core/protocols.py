"""The typed interfaces a game provides, one :class:`~typing.Protocol` each (docs/CONTRIBUTING_GAMES.md).

A game is its pure engine (``rules.py``, :class:`Engine`), its AEC adapter (a subclass of
:class:`ice_envs.core.aec.IceAECEnv`, whose "game hook" methods are typed there) and what its
:class:`~ice_envs.core.registry.GameSpec` names as ``"module:attribute"`` strings:

==================  ===============================  ==========================================
spec field          what it names                    protocol
==================  ===============================  ==========================================
``heuristic``       the heuristic agent's class      :class:`HeuristicFactory`
``greedy``          the greedy value function        :class:`GreedyValue` (its module may add
                                                     :class:`ExpectedValues`)
``potentials``      reward-shaping potentials        :class:`ShapingPotential`
``ui``              a module of terminal-UI hooks    :class:`GroupPathHook`, :class:`InSelectionHook`,
                                                     :class:`PublicDescriptionHook`, ``SELECTION_HELP``
==================  ===============================  ==========================================

and an agent of the spec ``python:module:factory`` is made by an :class:`AgentFactory`. Every
protocol is ``runtime_checkable`` (``isinstance`` checks that the members exist, not their types);
the test kit (:mod:`ice_envs.testing`) checks a game's engine and hooks against them.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ice_envs.core.agent import Agent

#: An exact standing of a seat: an ``int`` or a :class:`~fractions.Fraction` (higher is better).
ExactValue = int | Fraction


@runtime_checkable
class Engine(Protocol):
    """A game's pure engine module (``rules.py``): what ``IceAECEnv``'s default hooks call when the
    adapter sets ``engine = rules``. ``state`` is the game's state dataclass; ``rng`` the env's one
    ``np.random.Generator`` (the only source of randomness)."""

    def new_game(self, config: Any, rng: np.random.Generator, **position: Any) -> Any:
        """A fresh state (``position``: the checked ``reset(options=...)`` keys)."""

    def legal_actions(self, state: Any) -> Sequence[int]:
        """The deciding seat's legal action ids (never empty while the game is not over)."""

    def apply(self, state: Any, action: int, rng: np.random.Generator) -> Any:
        """Apply a legal action for the deciding seat (mutates ``state``), then every forced step after it."""

    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    def outcome(self, state: Any) -> Sequence[float]:
        """Terminal reward per seat (+1 for each winner, -1 for the others)."""

    def scores(self, state: Any) -> Sequence[float]:
        """Running score per seat (``reward_mode="score"`` rewards its deltas)."""

    def resample_hidden(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        """A new state ``seat`` cannot tell apart from ``state`` (an equal copy when nothing is hidden)."""


@runtime_checkable
class PositionChecker(Protocol):
    """Optional engine function: the ``reset(options=...)`` position keys checked completely."""

    def check_position(self, config: Any, **options: Any) -> dict[str, Any]: ...


@runtime_checkable
class StateChecker(Protocol):
    """Optional engine function: raise ``ValueError`` naming the problem unless ``state`` is possible."""

    def check_state(self, state: Any, config: Any) -> None: ...


@runtime_checkable
class ConfigOptions(Protocol):
    """Optional method of a game's config dataclass whose fields are not all env options (Icebergs holds its
    map itself): the env options, all but ``num_players``, that make an equal config. Without it a config's
    fields but ``num_players`` are taken as the options (the flat search rebuilds a position's table so)."""

    def env_options(self) -> dict[str, Any]: ...


@runtime_checkable
class HeuristicFactory(Protocol):
    """``GameSpec.heuristic``: a class whose ``cls(seed)`` is an :class:`~ice_envs.core.agent.Agent`.

    Usually a subclass of :class:`~ice_envs.core.agent.SeededAgent` with ``name = "heuristic"``,
    ``needs_view = True`` (its ``act(observation, view)`` reads ``view.state``, the engine state with
    the hidden part re-dealt, see :class:`~ice_envs.core.agent.PlayerView`) and
    ``needs_observation = False`` (it reads only ``observation["action_mask"]`` of the observation).
    """

    def __call__(self, seed: int | None = None) -> Agent: ...


@runtime_checkable
class GreedyValue(Protocol):
    """``GameSpec.greedy``: ``value(state, seat)``, the seat's exact standing in ``state``."""

    def __call__(self, state: Any, seat: int) -> ExactValue: ...


@runtime_checkable
class ExpectedValues(Protocol):
    """Optional, in the greedy value's module: ``{action: exact expected value after it}`` for those of
    ``actions`` whose chance it can take exactly and cheaply."""

    def expected_values(self, state: Any, seat: int, actions: Sequence[int]) -> dict[int, ExactValue]: ...


@runtime_checkable
class ShapingPotential(Protocol):
    """``GameSpec.potentials`` values: ``potential(env, seat)``, a float for potential-based reward shaping."""

    def __call__(self, env: Any, seat: int) -> float: ...


@runtime_checkable
class GroupPathHook(Protocol):
    """UI hook ``group_path(raw, action)``: the menu groups (outermost first) of a legal action."""

    def group_path(self, raw: Any, action: int) -> tuple[str, ...]: ...


@runtime_checkable
class InSelectionHook(Protocol):
    """UI hook ``in_selection(raw)``: whether the acting player is composing a move ``undo`` may take back
    (the module's ``SELECTION_HELP`` string says what ``undo`` takes back)."""

    def in_selection(self, raw: Any) -> bool: ...


@runtime_checkable
class PublicDescriptionHook(Protocol):
    """UI hook ``public_description(raw, action, viewer)``: the action as ``viewer`` may see it (``None``:
    nothing yet)."""

    def public_description(self, raw: Any, action: int, viewer: int) -> str | None: ...


#: The UI hooks a ``ui`` module may define (each optional), by name.
UI_HOOKS: dict[str, type] = {
    "group_path": GroupPathHook,
    "in_selection": InSelectionHook,
    "public_description": PublicDescriptionHook,
}


@runtime_checkable
class AgentFactory(Protocol):
    """The ``factory`` of an agent spec ``python:module:factory``: called with keywords only."""

    def __call__(self, *, game: str, num_players: int, seed: int | None) -> Agent: ...
