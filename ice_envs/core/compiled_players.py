"""Players that run inside a compiled engine: the random, greedy and heuristic players as numba functions.

A compiled player decides for the deciding seat of one game from the compiled engine's state row, in
machine code, so a batch of games can be advanced through every opponent's turn without a Python call
per decision (:mod:`ice_envs.core.compiled_opponents`) and a search can play its rollouts with the
heuristic. It makes exactly the decision of the game's Python player (``agents/greedy.py``, the game's
``heuristic.py``) at every position: :mod:`ice_envs.core.player_parity` checks that decision by decision.

A player is one ``numba.njit`` function and the width of its memory::

    act(s, cfg, mask, prng, memory) -> int

========  =============================================================================================
``s``     the game's state row (read it, never write it), as the compiled engine keeps it
``cfg``   the engine's ``int64`` config row
``mask``  the deciding seat's legal actions (``int8``, written by the engine's ``legal`` kernel)
``prng``  the player's own SplitMix64 stream (``uint64`` row; draw with ``compiled.below``,
          ``compiled.shuffle``, ``compiled.uniform`` only): a Python player given
          :class:`~ice_envs.core.splitmix.SplitMixRng` on the same state draws the same numbers
``memory`` an ``int64`` row of ``memory_width`` entries kept per game and seat between the seat's
          decisions and zeroed when a game is dealt (a plan spanning several decisions)
========  =============================================================================================

A game may also give its greedy player's action values to the flat search, which ranks its candidates by
them (``width=K``): a function ``greedy_values(s, cfg, mask, out, sampled)`` that writes every legal
action's exact greedy value for the deciding seat into ``out`` as integers over ``GREEDY_VALUES_UNIT`` (both
in the ``compiled_players`` module), and sets ``sampled[a] = 1`` where the Python agent samples the action
instead (the search asks the Python agent for those). Only a game whose greedy values do not depend on
what the seat cannot see (Icebergs hides nothing) may give one: it values the true state, not re-deals.

The player must read only what the deciding seat may see (its own hand, the public table), as the
Python player does from its :class:`~ice_envs.core.agent.PlayerView`. A game lists its players in a
dict ``PLAYERS`` (name -> :class:`CompiledPlayer`) named by its spec's ``compiled_players``; the names
are the agent specs they stand for (``greedy``, ``heuristic``, ``heuristic@v2``). ``random`` is shared
by every game and draws as :meth:`~ice_envs.core.agent.SeededAgent.random_legal` does.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ice_envs.core.compiled_cache import njit
from ice_envs.core.compiled_streams import below
from ice_envs.core.errors import OptionError
from ice_envs.core.registry import get_spec

__all__ = [
    "CompiledPlayer",
    "RANDOM",
    "compiled_greedy_values",
    "compiled_player",
    "compiled_player_names",
    "only_legal",
    "random_act",
]


@dataclass(frozen=True)
class CompiledPlayer:
    """A player as a numba function on the state row (see the module docstring)."""

    name: str
    act: Any
    memory_width: int = 0


@njit
def random_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """A uniformly random legal action: the ``below(k)``-th of the ``k`` legal ones (``random_legal``)."""
    k = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            k += 1
    pick = below(prng, k)
    for a in range(mask.shape[0]):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit
def only_legal(mask: np.ndarray) -> int:
    """The one legal action of ``mask``, or ``-1`` when there are several (or none): a player facing a single
    legal action takes it without deciding (and without drawing, as the Python agents do)."""
    only = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            if only >= 0:
                return -1
            only = a
    return only


#: The random player, shared by every game.
RANDOM = CompiledPlayer("random", random_act)


def _players_module(game: str) -> tuple[Any, str] | None:
    """The module named by ``game``'s spec ``compiled_players`` and the name of its players' table (``None``
    when the spec names none or the module is not installed; an import error inside the module is raised)."""
    spec = get_spec(game)
    if spec.compiled_players is None:
        return None
    module, _, name = spec.compiled_players.partition(":")
    try:
        return importlib.import_module(module), name
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        return None


def _players_of(game: str) -> dict[str, CompiledPlayer]:
    found = _players_module(game)
    return {} if found is None else dict(getattr(*found))


def compiled_greedy_values(game: str) -> tuple[Any, int] | None:
    """``(greedy_values, GREEDY_VALUES_UNIT)`` of ``game``'s compiled players module (module docstring), or
    ``None`` where it gives none."""
    found = _players_module(game)
    values = None if found is None else getattr(found[0], "greedy_values", None)
    return None if values is None else (values, int(found[0].GREEDY_VALUES_UNIT))


def compiled_player_names(game: str) -> tuple[str, ...]:
    """The agent specs that have a compiled player in ``game`` (``random`` always)."""
    return ("random", *sorted(_players_of(game)))


def compiled_player(game: str, name: str) -> CompiledPlayer:
    """The compiled player standing for agent spec ``name`` in ``game`` (``heuristic@v1`` is ``heuristic``).

    Raises :class:`OptionError` naming the players there are when ``game`` has none by that name.
    """
    key = name.strip().lower()
    if key == "random":
        return RANDOM
    if key == "heuristic@v1":
        key = "heuristic"
    players = _players_of(game)
    if key not in players:
        have = ", ".join(compiled_player_names(game))
        raise OptionError(f"{get_spec(game).name}: no compiled player {name!r}; compiled players: {have}")
    return players[key]
