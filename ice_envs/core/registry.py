"""The game registry: which games exist, found by discovery, and everything each one brings.

A game is one folder (``ice_envs/<game>/`` for the built-in ones, any package for a plug-in)
whose ``spec.py`` holds one :class:`GameSpec`. Games are found through the entry-point group
``ice_envs.games`` (Gymnasium's plug-in mechanism is the model), the built-in games the same
way as a third-party package's::

    # the plug-in's pyproject.toml
    [project.entry-points."ice_envs.games"]
    dice_race = "dice_race.spec:SPEC"

``ice_envs.make``, ``ice_envs.GAMES``, the CLI, evaluation, play, training, the benchmarks
and the test kit (:mod:`ice_envs.testing`) all read :data:`GAMES`, so a game is evaluated,
playable and checkable the moment its package is installed. A plug-in that fails to load or
claims a taken name is skipped with a :class:`PluginWarning` (:func:`discover`). Everything game-specific — the env, the
heuristic agent, the terminal-UI hooks, shaping potentials, the smoke training config —
is named by the spec as ``"module:attribute"`` strings, imported only when used.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from importlib import resources as importlib_resources
from pathlib import Path
from types import ModuleType
from typing import Any

from ice_envs.core.errors import OptionError, closest_name

#: The entry-point group that games register under.
ENTRY_POINT_GROUP = "ice_envs.games"
#: The package of the built-in games (and the distribution name that declares their entry points).
BUILT_IN_PACKAGE = "ice_envs"
#: The heuristic versions an agent spec may name (``heuristic@v2``); a game's heuristic module lists the ones it has
#: in ``VERSIONS``.
HEURISTIC_VERSIONS = ("v1", "v2")


class PluginWarning(UserWarning):
    """A game plug-in was skipped: it failed to load, is not a :class:`GameSpec`, or claims a taken name."""


@dataclass(frozen=True)
class Variant:
    """A named set of constructor options, optionally with its own player counts."""

    options: dict[str, Any] = field(default_factory=dict)
    players: tuple[int, ...] | None = None


@dataclass(frozen=True)
class HeldOutTable:
    """One table of a plug-in game in the held-out suites: the agent under test in one seat,
    ``opponent`` (an agent spec such as ``"random"``) in every other, ``games`` deals (a multiple
    of ``players``: every deal is played from every seat)."""

    players: int
    opponent: str
    games: int
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GameSpec:
    """One game: its name and version, player counts, variants and the modules that make it up.

    Attributes:
        name: the registry name (``"cardiceo"``), a valid Python identifier.
        version: the env version; the PettingZoo name is ``<name>_v<version>``
            (:attr:`env_name`), its id ``ice_envs/<name>-v<version>`` (:attr:`env_id`).
            This is the one place the version lives.
        env_module: module with PettingZoo-style ``env()`` and ``raw_env()`` factories.
        players: every supported player count.
        summary: one line for ``ice-envs list``.
        variants: named option sets the contract suite covers (``"default"`` first).
        max_random_decisions: documented bound on decisions per game under random play.
        demo_options: options ``ice-envs demo`` uses unless a variant is named.
        quick: a short game (players and options) for tests and examples.
        heuristic: ``"module:Class"`` of the game's heuristic agent, or ``None``.
        greedy: ``"module:function"`` of the game's greedy value, or ``None``:
            ``function(state, seat)`` is the seat's standing in the engine ``state`` by the
            game's own score or progress, an exact number (``int`` or ``fractions.Fraction``;
            higher is better). The ``greedy`` agent plays the action whose expected value
            after it is highest; ``mcts`` evaluates depth-capped rollouts by it (see
            ``docs/agents/greedy.md``). Its module may also define
            ``expected_values(state, seat, actions)``: ``{action: exact expected value after
            it}`` for those of the legal ``actions`` whose chance it can take exactly and
            cheaply (the agent enumerates or samples the engine's draws for the others).
            ``None``: the agents use the game's running score (``scores()``).
        ui: module of terminal-UI hooks (``group_path``, ``in_selection``,
            ``public_description``; each optional), or ``None`` for the plain answers.
        potentials: reward-shaping potential name -> ``"module:function"``
            (``function(env, seat) -> float``).
        batched_potentials: the same potentials on the compiled engine's state rows, by the same
            names: ``"module:function"`` with ``function(state, cfg, seats) -> float64 array``
            (``state``: the engine's ``(n, width)`` rows, ``cfg``: its config row, ``seats``: one
            seat per row), each value the Python potential's to the last bit; what lets
            ``vec_env: batched`` shape its rewards.
        smoke_config: file name of the game's smoke training config in the game's package
            (the package of ``env_module``; ``""``: none).
        vector: ``"module:Class"`` of the game's batched engine (many games per numpy call,
            see :mod:`ice_envs.core.vector`), or ``None``.
        compiled: ``"module:Class"`` of the game's compiled batched engine (the same API and
            transitions, one compiled loop per step, see :mod:`ice_envs.core.compiled`), or ``None``.
        compiled_players: ``"module:NAME"`` of the game's compiled players (a dict of player name ->
            :class:`~ice_envs.core.compiled_players.CompiledPlayer`: the ``greedy`` and ``heuristic``
            players as numba functions on the compiled engine's state row, deciding exactly as the
            Python players do), or ``None``: only the random player runs inside the compiled engine.
        move_features: ``"module:function"`` of the game's own whole-move features for the move-scoring
            learner (:mod:`ice_envs.agents.move_scorer`), or ``None``: ``function(state, seat, moves)``
            returns one row of floats per move (``moves``: ``(actions, state after)`` pairs made by ``seat``
            from ``state``, a re-deal of its view) and the function's ``NAMES`` attribute names the columns.
        hidden_information: whether a seat's observation leaves part of the engine state unseen
            (other hands, a deck order). ``True``: ``resample_hidden`` must re-deal that part (the
            test kit checks that it changes the state at some point of a random game and that the
            seat's observation stays the same); ``False``: ``resample_hidden`` returns an equal copy.
        held_out: the game's tables in the held-out evaluation suites (:class:`HeldOutTable`;
            the built-in games' tables are fixed in :mod:`ice_envs.evaluation.suite`).
    """

    name: str
    env_module: str
    players: tuple[int, ...]
    summary: str
    version: int = 0
    variants: dict[str, Variant] = field(default_factory=lambda: {"default": Variant()})
    max_random_decisions: int = 10_000
    demo_options: dict[str, Any] = field(default_factory=dict)
    quick: Variant = field(default_factory=Variant)
    heuristic: str | None = None
    greedy: str | None = None
    ui: str | None = None
    potentials: dict[str, str] = field(default_factory=dict)
    batched_potentials: dict[str, str] = field(default_factory=dict)
    smoke_config: str = ""
    vector: str | None = None
    compiled: str | None = None
    compiled_players: str | None = None
    move_features: str | None = None
    hidden_information: bool = False
    held_out: tuple[HeldOutTable, ...] = ()

    @property
    def built_in(self) -> bool:
        """Whether the game is one of ice-envs' own (its package lies inside ``ice_envs``).

        Only built-in games have the per-game files of the repository (golden trajectory digests,
        shipped checkpoints, held-out suite v1 tables); the project's tests of those files cover them.
        """
        return self.env_module.startswith(f"{BUILT_IN_PACKAGE}.")

    @property
    def env_name(self) -> str:
        """PettingZoo-style name, ``<name>_v<version>`` (the env's ``metadata["name"]``)."""
        return f"{self.name}_v{self.version}"

    @property
    def env_id(self) -> str:
        """PettingZoo registry id, ``ice_envs/<name>-v<version>``."""
        return f"ice_envs/{self.name}-v{self.version}"

    def load(self) -> ModuleType:
        """The game's PettingZoo-style module (with ``env`` and ``raw_env``)."""
        return importlib.import_module(self.env_module)

    def cases(self) -> Iterator[tuple[str, int, dict[str, Any]]]:
        """Every (variant name, player count, options) this game supports."""
        for vname, variant in self.variants.items():
            for n in variant.players or self.players:
                yield vname, n, dict(variant.options)

    @property
    def quick_players(self) -> int:
        """Player count of the :attr:`quick` game."""
        return (self.quick.players or (min(self.players),))[0]

    def heuristic_class(self, version: str | None = None) -> type | None:
        """The class of the game's heuristic agent (``None`` if it has none); ``version`` (``"v2"``) picks the
        newest of the versions its module lists in ``VERSIONS`` up to that one (``None`` or ``"v1"``: the
        class the spec names)."""
        if self.heuristic is None:
            return None
        cls = load_attribute(self.heuristic)
        resolved = self.heuristic_version(version)
        if resolved == "v1":
            return cls
        return importlib.import_module(cls.__module__).VERSIONS[resolved]

    def heuristic_version(self, version: str | None = None) -> str:
        """The version of the heuristic that ``heuristic@<version>`` plays here: the newest the heuristic's module
        lists in ``VERSIONS`` up to ``version`` (``"v1"`` for a game with one version). Raises
        :class:`OptionError` for a version not in :data:`HEURISTIC_VERSIONS`."""
        if version is None:
            return "v1"
        if version not in HEURISTIC_VERSIONS:
            raise OptionError(
                f"{self.name}: heuristic version {version!r} is not one of {', '.join(HEURISTIC_VERSIONS)}"
            )
        if self.heuristic is None or version == "v1":
            return "v1"
        cls = load_attribute(self.heuristic)
        versions = getattr(importlib.import_module(cls.__module__), "VERSIONS", {})
        known = [v for v in HEURISTIC_VERSIONS[: HEURISTIC_VERSIONS.index(version) + 1] if v in versions]
        return known[-1] if known else "v1"

    def greedy_function(self) -> Callable[[Any, int], Any] | None:
        """The game's greedy value function (``None`` if it has none)."""
        return None if self.greedy is None else load_attribute(self.greedy)

    def ui_module(self) -> ModuleType | None:
        """The module of the game's terminal-UI hooks (``None`` if it has none)."""
        return None if self.ui is None else importlib.import_module(self.ui)

    def potential(self, name: str) -> Callable[[Any, int], float]:
        """Shaping potential ``name`` of this game."""
        if name not in self.potentials:
            raise OptionError(f"{self.name}: unknown shaping potential {name!r}; known: {sorted(self.potentials)}")
        return load_attribute(self.potentials[name])

    def batched_potential(self, name: str) -> Callable[[Any, Any, Any], Any]:
        """Shaping potential ``name`` on the compiled engine's state rows (:attr:`batched_potentials`)."""
        self.potential(name)  # an unknown name fails with the list of the game's potentials
        if name not in self.batched_potentials:
            raise OptionError(f"{self.name}: shaping potential {name!r} has no batched version (vec_env: batched)")
        return load_attribute(self.batched_potentials[name])

    @property
    def package(self) -> str:
        """The game's package (its folder): the package of :attr:`env_module`."""
        return self.env_module.rpartition(".")[0] or self.env_module

    def smoke_config_path(self) -> Path | None:
        """The game's smoke training config (``None`` if it has none)."""
        if not self.smoke_config:
            return None
        return Path(str(importlib_resources.files(self.package) / self.smoke_config))


GAMES: dict[str, GameSpec] = {}
_BY_ENV_NAME: dict[str, str] = {}


def load_attribute(target: str) -> Any:
    """The object that ``"package.module:attribute"`` names."""
    module_name, sep, attribute = target.partition(":")
    if not sep:
        raise ValueError(f"{target!r} is not of the form 'module:attribute'")
    return getattr(importlib.import_module(module_name), attribute)


def register(spec: GameSpec) -> GameSpec:
    """Add ``spec`` to :data:`GAMES` and to PettingZoo's registry; returns the registered spec.

    A name already registered by another spec is an error (two packages claiming one name).
    """
    if not spec.name.isidentifier():
        raise OptionError(f"game name {spec.name!r} is not a valid identifier")
    known = GAMES.get(spec.name)
    if known is not None and known != spec:
        raise OptionError(f"game {spec.name!r} is registered twice ({known.env_module} and {spec.env_module})")
    from pettingzoo.env_registry.registration import aec_registry
    from pettingzoo.env_registry.registration import register as pz_register

    if spec.env_id not in aec_registry:
        pz_register("aec", spec.env_id, entry_point=f"{spec.env_module}:env")
    GAMES[spec.name] = spec
    _BY_ENV_NAME[spec.env_name] = spec.name
    return spec


def discover() -> dict[str, GameSpec]:
    """Register every game of the ``ice_envs.games`` entry-point group (built-in and plug-ins).

    The built-in games come first. An entry point that fails to load, that is not a
    :class:`GameSpec`, whose name is not its spec's ``name``, or whose game name is already taken
    by another spec is reported by a :class:`PluginWarning` naming it and the problem, and skipped:
    one broken plug-in takes neither the others nor ``import ice_envs`` down, and ``ice-envs list``
    shows what was found.
    """
    entries = importlib_metadata.entry_points(group=ENTRY_POINT_GROUP)
    for entry in sorted(entries, key=lambda e: (not _declared_by_ice_envs(e), e.name, e.value)):
        problem = _register_entry(entry)
        if problem is not None:
            warnings.warn(
                f"ice-envs: game plug-in {entry.name!r} ({entry.value}) skipped: {problem}", PluginWarning, stacklevel=2
            )
    return GAMES


def _declared_by_ice_envs(entry: importlib_metadata.EntryPoint) -> bool:
    dist = getattr(entry, "dist", None)
    name = getattr(dist, "name", None) or ""
    return name.replace("-", "_").lower() == BUILT_IN_PACKAGE and entry.value.startswith(f"{BUILT_IN_PACKAGE}.")


def _register_entry(entry: importlib_metadata.EntryPoint) -> str | None:
    """Load and register one entry point; the problem in words, or ``None`` once it is registered."""
    try:
        spec = entry.load()
    except Exception as exc:
        return f"it failed to load: {exc!r}"
    if not isinstance(spec, GameSpec):
        return f"it is a {type(spec).__name__}, not a GameSpec"
    if entry.name != spec.name:
        return f"the entry point's name must be the game's name {spec.name!r}"
    try:
        register(spec)
    except Exception as exc:
        return str(exc)
    return None


def loose_key(name: str) -> str:
    """``name`` without case, spaces, ``_`` and ``-``: ``Iceberg_Rummy``, ``IcebergRummy`` and
    ``iceberg rummy`` all give ``icebergrummy`` (how :func:`resolve_name` matches what a user typed)."""
    return _SEPARATORS.sub("", name).casefold()


_SEPARATORS = re.compile(r"[\s_-]+")


def resolve_name(name: str) -> str:
    """The registry name of game ``name``, typed as users do; a clear error names the known games.

    Accepted: the registry name (``cubemelt``), the env name (``cubemelt_v1``), and either of them
    in any case, with or without ``_``, ``-`` or spaces (``CubeMelt``, ``Iceberg_Rummy``,
    ``IcebergRummy``, ``Tip of the Diceberg``), where only one game matches. The registry's own
    names and ids stay as they are. An unknown name gets the closest known one as a did-you-mean.
    """
    if not isinstance(name, str):
        raise OptionError(f"a game name is a string, got {name!r}")
    exact = _BY_ENV_NAME.get(name, name)
    if exact in GAMES:
        return exact
    key = loose_key(name)
    matches = sorted(
        {game for alias, game in [*((g, g) for g in GAMES), *_BY_ENV_NAME.items()] if loose_key(alias) == key}
    )
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise OptionError(f"game name {name!r} is ambiguous: it matches {matches}; give one of them as it is written")
    hint = "" if GAMES else " (no games found: is ice-envs installed, e.g. `pip install -e .`?)"
    close = closest_name(name, [*GAMES, *_BY_ENV_NAME])
    guess = f" (did you mean {_BY_ENV_NAME.get(close, close)!r}?)" if close else ""
    raise OptionError(f"unknown game {name!r}{guess}; known games: {sorted(GAMES)}{hint}")


def get_spec(name: str) -> GameSpec:
    """The spec of game ``name`` (see :func:`resolve_name` for the names accepted)."""
    return GAMES[resolve_name(name)]


def spec_of(env: Any) -> GameSpec:
    """The spec of the game that ``env`` (wrapped or raw) plays."""
    return get_spec(str(env.unwrapped.metadata["name"]))


def game_name_of(env: Any) -> str:
    """The registry name of the game ``env`` plays, or its ``metadata["name"]`` if it is not registered."""
    name = str(env.unwrapped.metadata["name"])
    return _BY_ENV_NAME.get(name, name)


def make(name: str, *, raw: bool = False, **options: Any):
    """Build game ``name`` with ``options`` (``raw=True``: without PettingZoo wrappers)."""
    module = get_spec(name).load()
    return module.raw_env(**options) if raw else module.env(**options)


def built_in_games() -> dict[str, GameSpec]:
    """The registered games that are ice-envs' own (:attr:`GameSpec.built_in`), by name."""
    return {name: spec for name, spec in GAMES.items() if spec.built_in}


def all_cases(built_in_only: bool = False) -> Iterator[tuple[str, str, int, dict[str, Any]]]:
    """(game, variant, players, options) over every registered game (``built_in_only``: ice-envs' own)."""
    for spec in (built_in_games() if built_in_only else GAMES).values():
        for vname, n, options in spec.cases():
            yield spec.name, vname, n, options
