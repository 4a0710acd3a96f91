"""Gymnasium ids of every game: ``ice_envs/<GameName>-v<version>`` for the single-agent view.

>>> import gymnasium as gym
>>> import ice_envs
>>> env = gym.make("ice_envs/Cardiceo-v1", num_players=3, opponents="heuristic", hand_size=5)

Every game in :data:`ice_envs.GAMES` (built-in and plug-in games alike, see
:mod:`ice_envs.core.registry`) gets one id, made by :func:`gym_id`:

* namespace ``ice_envs`` (the package, as PettingZoo's ids of the same games);
* the game's registry name in CamelCase, as Gymnasium names its envs (``CartPole``,
  ``ALE/Pong``): ``cardiceo`` -> ``Cardiceo``, ``iceberg_rummy`` -> ``IcebergRummy``,
  ``tip_of_the_diceberg`` -> ``TipOfTheDiceberg``; a plug-in's ``dice_race`` -> ``DiceRace``;
* the game's env version (``GameSpec.version``, the ``1`` of ``cardiceo_v1``), so a change of the
  observation that bumps the PettingZoo env bumps the Gymnasium id too.

The CamelCase name keeps the two registries apart: ``ice_envs/cardiceo-v1`` is PettingZoo's AEC env
(``pettingzoo.make("aec", "ice_envs/cardiceo-v1")``), ``ice_envs/Cardiceo-v1`` Gymnasium's
single-agent view of it. The entry point is
:class:`~ice_envs.wrappers.single_agent.SingleAgentEnv` with ``game=`` set; ``gym.make``'s keyword
arguments are its arguments (``num_players``, ``opponents``, ``learner_seat``, ``illegal_action``,
``render_mode``) and the game's options (``hand_size=5``...), which the game checks
(:class:`~ice_envs.core.errors.OptionError`). No ``max_episode_steps`` is set: each game ends at
its own length cap (``max_decisions``), as a truncation.

The ids are registered when ``ice_envs`` is imported (this module imports only the core and
Gymnasium, and names the entry point as a string, so nothing else is loaded until an env is
made). Gymnasium 1.x has no plug-in entry points of its own, so without that import
``gym.make("ice_envs/Cardiceo-v1")`` is ``NamespaceNotFound``; Gymnasium's module syntax
``gym.make("ice_envs:ice_envs/Cardiceo-v1")`` imports ``ice_envs`` itself first. A game registered
after the import (``ice_envs.core.registry.register``) gets its id from :func:`register_envs`.
"""

from __future__ import annotations

import warnings

from ice_envs.core.registry import GAMES, GameSpec, get_spec

__all__ = ["ENTRY_POINT", "NAMESPACE", "gym_id", "gym_ids", "register_envs"]

#: The Gymnasium namespace of the ids.
NAMESPACE = "ice_envs"
#: What every id makes (with ``game=`` the game's registry name).
ENTRY_POINT = "ice_envs.wrappers.single_agent:SingleAgentEnv"


def gym_id(game: str | GameSpec) -> str:
    """The Gymnasium id of ``game`` (a registry name, env name or spec): ``ice_envs/Cardiceo-v1``."""
    spec = game if isinstance(game, GameSpec) else get_spec(game)
    camel = "".join(part[:1].upper() + part[1:] for part in spec.name.split("_") if part)
    return f"{NAMESPACE}/{camel}-v{spec.version}"


def gym_ids() -> dict[str, str]:
    """Game registry name -> its Gymnasium id, for every game found."""
    return {name: gym_id(spec) for name, spec in sorted(GAMES.items())}


def register_envs() -> list[str]:
    """Register the Gymnasium id of every game in :data:`ice_envs.GAMES` (again: a no-op); the ids.

    An id already registered for another entry point or game (two games whose CamelCase names
    collide) is left as it is, with a warning naming both; the other games are registered.
    """
    import gymnasium

    ids = []
    for name, spec in sorted(GAMES.items()):
        env_id = gym_id(spec)
        known = gymnasium.registry.get(env_id)
        if known is None:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"game": name})
        elif known.entry_point != ENTRY_POINT or known.kwargs.get("game") != name:
            warnings.warn(
                f"ice-envs: Gymnasium id {env_id!r} of game {name!r} is already registered "
                f"({known.entry_point}, {known.kwargs}); it is left as it is",
                stacklevel=2,
            )
            continue
        ids.append(env_id)
    return ids
