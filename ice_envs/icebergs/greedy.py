"""Icebergs' greedy value: Cargo home first, then the Moves each own ship still needs for its voyage.

:func:`value` ranks a seat's position by the game's own score (Cargo brought home, R5) and the
progress of its ships towards it:

1. **the result**: a game decided by the rules is worth ``WIN`` to each winner and ``-WIN`` to
   the others (a game stopped undecided at ``max_turns`` has no result term);
2. **Cargo home** (the score): ``CARGO_HOME`` per point;
3. **the voyage**: ``-MOVE`` per Move each own ship still needs to finish it on the board as it is
   now (:func:`moves_to_go`): to Alaska off the west edge, then back off the east edge, every step
   priced like a real one (1 + the penalties of the spaces left and entered: ice floe 1, iceberg 3,
   other ship 1, R3.5). A step along the cheapest route gains exactly its cost; pushing an ice floe or
   an iceberg off the route gains what it saves; a move that gains nothing is not worth its Fuel;
4. **what it carries**: ``CARGO`` per point of Cargo aboard a loaded ship and ``FUEL`` per point of
   Fuel, so a hazard takes Fuel before Cargo.

Everything is an integer: the route costs are a Dijkstra search in whole Moves (cached per board).
Icebergs has no hidden information; the greedy agent takes the expectation over the die exactly.

Speed: :func:`expected_values` is the agent's hook. It enumerates the engine's draws after
each action as the agent itself would (every sequence of draws, each with its probability), but on
:meth:`~ice_envs.icebergs.rules.IcebergsState.copy` (a few microseconds) instead of the agent's
generic field-by-field copy, and it gives the same exact fractions, so every decision is the same.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from fractions import Fraction
from itertools import repeat
from operator import add, mul

from ice_envs.core.chance import ChanceLimit, ScriptedDraws, next_script
from ice_envs.icebergs import rules
from ice_envs.icebergs.hexmap import OFF_GRID, SEA, HexMap

#: Weights (see the module docstring): the result, a Cargo point home, a Move still needed, a Cargo
#: point aboard and a Fuel point.
WIN = 10**9
CARGO_HOME = 10**5
MOVE = 10
CARGO = 5
FUEL = 1
#: Moves charged for a route that is blocked on the board as it is (far more than any real route).
BLOCKED = 1000


def value(state: rules.IcebergsState, seat: int) -> int:
    """The greedy value of ``state`` for ``seat`` (higher is better; see the module docstring)."""
    cfg = state.config
    total = 0
    if state.over and not state.truncated:
        total += WIN if float(state.result[seat]) > 0 else -WIN
    total += CARGO_HOME * rules.cargo_home(state)[seat]
    k0 = seat * cfg.ships_per_player
    for k in range(k0, k0 + cfg.ships_per_player):
        total -= MOVE * moves_to_go(state, k)
        if state.status[k] != rules.SUNK:
            if state.loaded[k] and state.status[k] != rules.HOME:
                total += CARGO * int(state.cargo[k])
            total += FUEL * int(state.fuel[k])
    return total


def moves_to_go(state: rules.IcebergsState, ship: int) -> int:
    """Moves ``ship`` still needs to finish its voyage (to Alaska and home) on the board as it is now.

    At sea: the cheapest route off the goal edge (west before loading, east after), plus, before
    loading, the cheapest way back from the west edge; waiting at an edge: the cheapest entry (1 + the
    penalties of the space entered) and route from there; home: 0; sunk: a whole voyage.
    """
    status = state.status[ship]
    if status == rules.HOME:
        return 0
    tables = _tables(state.config.hexmap)
    pens = _penalties(state, ship)
    exit_pen = bool(state.config.exit_penalties)
    east = _to_edge(tables, pens, True, exit_pen)
    back = _entry(tables.west, pens, east)
    if status in (rules.ALASKA_LOADING, rules.ALASKA_READY):
        return back
    if status == rules.AT_SEA and state.loaded[ship]:
        return min(BLOCKED, east[state.pos[ship]])
    west = _to_edge(tables, pens, False, exit_pen)
    if status == rules.AT_SEA:
        return min(BLOCKED, west[state.pos[ship]]) + back
    return _entry(tables.east, pens, west) + back  # START, SUNK


def _entry(edge: Sequence[int], pens: tuple[int, ...], dist: tuple[int, ...]) -> int:
    """The cheapest entry at one of the ``edge`` spaces and route from it (at most ``BLOCKED``)."""
    return min([BLOCKED] + [1 + pens[x] + dist[x] for x in edge])


def _penalties(state: rules.IcebergsState, ship: int) -> tuple[int, ...]:
    """Every space's movement penalty for ``ship`` (its own presence left out), as :func:`rules.penalty`."""
    floes = map(mul, state.floes, repeat(rules.FLOE_PENALTY))
    pens = list(map(add, floes, map(mul, state.berg_count, repeat(rules.ICEBERG_PENALTY))))
    n = len(pens)
    for k, p in enumerate(state.pos):
        if k != ship and 0 <= p < n:
            pens[p] += rules.SHIP_PENALTY
    return tuple(pens)


class _MapTables:
    """What the route search reads of a map (built once per map), and its cache of searches."""

    #: Searches kept per map; the cache is emptied when it is full (at most a few MB).
    CACHE_SIZE = 4096

    def __init__(self, m: HexMap) -> None:
        self.num_spaces = m.num_spaces
        #: per space: its neighbouring sea spaces (in direction order)
        self.nbrs = tuple(
            tuple(x for x in m.neighbours[t] if x != OFF_GRID and m.terrain[x] == SEA) for t in range(m.num_spaces)
        )
        self.east = tuple(m.east_edge())
        self.west = tuple(m.west_edge())
        #: ``(pens, east, exit_pen)`` -> the distances of :func:`_to_edge`
        self.cache: dict[tuple[tuple[int, ...], bool, bool], tuple[int, ...]] = {}


_TABLES: dict[HexMap, _MapTables] = {}


def _tables(m: HexMap) -> _MapTables:
    """The (cached) :class:`_MapTables` of a map."""
    tables = _TABLES.get(m)
    if tables is None:
        tables = _TABLES[m] = _MapTables(m)
    return tables


def _to_edge(tables: _MapTables, pens: tuple[int, ...], east: bool, exit_pen: bool) -> tuple[int, ...]:
    """Moves from every sea space to off the east (or west) edge: Dijkstra backwards from the edge (cached).

    A step from ``x`` to ``t`` costs ``1 + pens[x] + pens[t]``; leaving from an edge space ``x`` costs 1
    (``+ pens[x]`` with ``exit_penalties``). Islands and unreachable spaces get ``BLOCKED`` (so does any
    space whose route costs ``BLOCKED`` or more). The distances of a shortest-path search do not depend
    on the order in which it relaxes the steps.
    """
    key = (pens, east, exit_pen)
    cache = tables.cache
    dist = cache.get(key)
    if dist is None:
        if len(cache) >= tables.CACHE_SIZE:
            cache.clear()
        dist = cache[key] = _dijkstra(tables, pens, tables.east if east else tables.west, exit_pen)
    return dist


def _dijkstra(tables: _MapTables, pens: tuple[int, ...], edge: tuple[int, ...], exit_pen: bool) -> tuple[int, ...]:
    """:func:`_to_edge` without the cache: the search from the ``edge`` spaces."""
    nbrs = tables.nbrs
    dist = [BLOCKED] * tables.num_spaces
    heap: list[tuple[int, int]] = []
    for x in edge:
        d0 = 1 + (pens[x] if exit_pen else 0)
        if d0 < dist[x]:
            dist[x] = d0
            heap.append((d0, x))
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        d, t = pop(heap)
        if d > dist[t]:
            continue
        base = d + 1 + pens[t]
        for x in nbrs[t]:
            nd = base + pens[x]
            if nd < dist[x]:
                dist[x] = nd
                push(heap, (nd, x))
    return tuple(dist)


# ------------------------------------------------------------------------------ the agent's hook
#: Most chance outcomes (sequences of draws) :func:`expected_values` enumerates for one action: two dice.
#: An action with more is left to the agent, which enumerates up to its own ``OUTCOME_LIMIT`` (256) or
#: samples; so this must not exceed that limit (a test checks it).
HOOK_OUTCOMES = 36


def expected_values(state: rules.IcebergsState, seat: int, actions: Sequence[int]) -> dict[int, Fraction]:
    """``{action: exact expected value for seat after it}`` for each of ``actions`` with at most
    :data:`HOOK_OUTCOMES` chance outcomes (the greedy agent's hook, ``GameSpec.greedy``).

    Every sequence of the engine's draws is played on a copy of the state (:meth:`rules.IcebergsState.copy`),
    each with the probability of its draws, as the agent's own enumeration does: the same outcomes and
    the same exact sum. Most actions draw nothing (one outcome); one that ends the turn draws the next
    roll, an iceberg moved onto ships their hazard rolls. An action with more outcomes is left out.
    """
    out: dict[int, Fraction] = {}
    memo: dict[tuple, int] = {}
    for action in actions:
        total = _expected_value(state, int(action), seat, memo)
        if total is not None:
            out[int(action)] = total
    return out


def _expected_value(state: rules.IcebergsState, action: int, seat: int, memo: dict[tuple, int]) -> Fraction | None:
    """The exact expected :func:`value` for ``seat`` after ``action``; ``None`` past :data:`HOOK_OUTCOMES`.

    ``memo`` holds the values of positions already valued for ``seat`` (by :func:`_value_key`): the
    rolls after an action often leave the same board (a roll of the next ship changes nothing valued).
    """
    sums: dict[int, int] = {}  # 1 / probability of an outcome -> the sum of the values of such outcomes
    script: list[int] = []
    while True:
        rng = ScriptedDraws(script, HOOK_OUTCOMES)
        after = state.copy()
        try:
            rules.apply(after, action, rng, check=False)
        except ChanceLimit:
            return None
        key = _value_key(after)
        v = memo.get(key)
        if v is None:
            v = memo[key] = value(after, seat)
        den = rng.paths
        sums[den] = sums.get(den, 0) + v
        if not next_script(script, rng.widths):
            return sum((Fraction(v, den) for den, v in sums.items()), Fraction(0))


def _value_key(state: rules.IcebergsState) -> tuple:
    """Every field of the state that :func:`value` reads (the config aside): equal keys, equal values."""
    return (
        state.over,
        state.truncated,
        tuple(state.result),
        tuple(state.status),
        tuple(state.pos),
        tuple(state.fuel),
        tuple(state.cargo),
        tuple(state.loaded),
        tuple(state.floes),
        tuple(state.berg_count),
    )
