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
"""

from __future__ import annotations

import heapq
from functools import lru_cache

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
    m = state.config.hexmap
    pens = _penalties(state, ship)
    exit_pen = bool(state.config.exit_penalties)
    east = _to_edge(m, pens, True, exit_pen)
    back = _entry(m.west_edge(), pens, east)
    if status in (rules.ALASKA_LOADING, rules.ALASKA_READY):
        return back
    if status == rules.AT_SEA and state.loaded[ship]:
        return min(BLOCKED, east[state.pos[ship]])
    west = _to_edge(m, pens, False, exit_pen)
    if status == rules.AT_SEA:
        return min(BLOCKED, west[state.pos[ship]]) + back
    return _entry(m.east_edge(), pens, west) + back  # START, SUNK


def _entry(edge: list[int], pens: tuple[int, ...], dist: tuple[int, ...]) -> int:
    """The cheapest entry at one of the ``edge`` spaces and route from it (at most ``BLOCKED``)."""
    return min([BLOCKED] + [1 + pens[x] + dist[x] for x in edge])


def _penalties(state: rules.IcebergsState, ship: int) -> tuple[int, ...]:
    """Every space's movement penalty for ``ship`` (its own presence left out), as :func:`rules.penalty`."""
    pens = [
        f * rules.FLOE_PENALTY + b * rules.ICEBERG_PENALTY for f, b in zip(state.floes, state.berg_count, strict=True)
    ]
    for k, p in enumerate(state.pos):
        if k != ship and 0 <= p < len(pens):
            pens[p] += rules.SHIP_PENALTY
    return tuple(pens)


@lru_cache(maxsize=4096)
def _to_edge(m: HexMap, pens: tuple[int, ...], east: bool, exit_pen: bool) -> tuple[int, ...]:
    """Moves from every sea space to off the east (or west) edge: Dijkstra backwards from the edge.

    A step from ``x`` to ``t`` costs ``1 + pens[x] + pens[t]``; leaving from an edge space ``x`` costs 1
    (``+ pens[x]`` with ``exit_penalties``). Islands and unreachable spaces get ``BLOCKED``.
    """
    dist = [BLOCKED] * m.num_spaces
    heap: list[tuple[int, int]] = []
    for x in m.east_edge() if east else m.west_edge():
        d0 = 1 + (pens[x] if exit_pen else 0)
        if d0 < dist[x]:
            dist[x] = d0
            heap.append((d0, x))
    heapq.heapify(heap)
    while heap:
        d, t = heapq.heappop(heap)
        if d > dist[t]:
            continue
        for x in m.neighbours[t]:
            if x == OFF_GRID or m.terrain[x] != SEA:
                continue
            nd = d + 1 + pens[x] + pens[t]
            if nd < dist[x]:
                dist[x] = nd
                heapq.heappush(heap, (nd, x))
    return tuple(dist)
