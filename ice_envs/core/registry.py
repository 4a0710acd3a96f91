"""The game registry: what games exist, their player counts and variants.

Every game is listed here once, with the module that builds it. ``ice_envs.make``,
``ice_envs.GAMES``, the CLI, the benchmarks and the env contract suite all read this
table, so a game is tested and benchmarked the moment it is registered.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ice_envs.core.errors import OptionError


@dataclass(frozen=True)
class Variant:
    """A named set of constructor options, optionally with its own player counts."""

    options: dict[str, Any] = field(default_factory=dict)
    players: tuple[int, ...] | None = None


@dataclass(frozen=True)
class GameSpec:
    """One registered game."""

    name: str
    module: str
    players: tuple[int, ...]
    summary: str
    variants: dict[str, Variant] = field(default_factory=lambda: {"default": Variant()})
    #: Documented bound on decisions per game under uniformly random play.
    max_random_decisions: int = 10_000
    #: Options ``ice-envs demo`` uses unless a variant is named (e.g. one hand instead of a whole game).
    demo_options: dict[str, Any] = field(default_factory=dict)

    def load(self) -> ModuleType:
        """The game's PettingZoo-style module (with ``env`` and ``raw_env``)."""
        return importlib.import_module(self.module)

    def cases(self) -> Iterator[tuple[str, int, dict[str, Any]]]:
        """Every (variant name, player count, options) this game supports."""
        for vname, variant in self.variants.items():
            for n in variant.players or self.players:
                yield vname, n, dict(variant.options)


GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    """Add a game to :data:`GAMES` and to PettingZoo's registry where it has one."""
    GAMES[spec.name] = spec
    try:
        from pettingzoo.env_registry.registration import aec_registry
        from pettingzoo.env_registry.registration import register as pz_register
    except ImportError:  # older PettingZoo without a registry
        return
    env_id = f"ice_envs/{spec.name}-v0"
    if env_id not in aec_registry:
        pz_register("aec", env_id, entry_point=f"{spec.module}:env")


def get_spec(name: str) -> GameSpec:
    """The spec of game ``name``; a clear error names the known games."""
    key = name.removesuffix("_v0")
    if key not in GAMES:
        raise OptionError(f"unknown game {name!r}; known games: {sorted(GAMES)}")
    return GAMES[key]


def make(name: str, *, raw: bool = False, **options: Any):
    """Build game ``name`` with ``options`` (``raw=True``: without PettingZoo wrappers)."""
    module = get_spec(name).load()
    return module.raw_env(**options) if raw else module.env(**options)


def all_cases() -> Iterator[tuple[str, str, int, dict[str, Any]]]:
    """(game, variant, players, options) over every registered game."""
    for spec in GAMES.values():
        for vname, n, options in spec.cases():
            yield spec.name, vname, n, options
