"""Icebergs' heuristic (``heuristic.py``: :class:`IcebergsHeuristic`) as numba functions on the state row.

The agent's decisions (hazards, a rolled one, the solo ice table, moving) on the board and turn plans
of :mod:`ice_envs.icebergs.compiled_plans`, each function mirroring the method of ``heuristic.py`` named
in its docstring with the same floating-point operations in the same order.

The agent's memory (``_been_there``: the spaces the ship has sailed through this turn) lives in the
player's memory row: entry 0 holds ``turns + 1`` of the turn it belongs to (0: none yet), entries 1..
a bitset of spaces (:data:`MEMORY_WIDTH` covers the largest map the rules allow).
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.compiled import njit
from ice_envs.core.compiled_players import random_act
from ice_envs.icebergs import compiled as C
from ice_envs.icebergs.compiled_plans import (
    BERGS_FIRST,
    CARGO_TURNS,
    CLEAR_HORIZON,
    FLOE_COST,
    FLOE_PENALTY,
    FLOES_FIRST,
    ICEBERG_COST,
    ICEBERG_PENALTY,
    MU,
    OFF,
    RIVAL_SINK_TURNS,
    SOLO_WIN_CARGO,
    Board,
    Plans,
    board_of,
    clearing_move,
    entries,
    firsts,
    fuel_penalty,
    plan_turn,
    remaining,
    route_of,
    static_cost,
    threats,
)
from ice_envs.icebergs.compiled_routes import sea_neighbour
from ice_envs.icebergs.hexmap import MAX_COLS, MAX_ROWS, NUM_DIRECTIONS

__all__ = ["MEMORY_WIDTH", "heuristic_act"]

#: Memory: the turn's key and a bitset of the spaces of the largest map.
MEMORY_WIDTH = 1 + (MAX_ROWS * MAX_COLS + 63) // 64


# ------------------------------------------------------------------ the agent's pieces
@njit
def _route_set(cfg: np.ndarray, board: Board) -> np.ndarray:
    """``IcebergsHeuristic._route_set``: the spaces of the cheapest route from where the ship is."""
    out = np.zeros(cfg[C.C_SPACES], dtype=np.bool_)
    if not board.active:
        return out
    starts = firsts(cfg, board)
    if starts.shape[0] == 0:
        return out
    best = starts[0]
    best_cost = board.dist[best] + board.side[best]
    for t in starts[1:]:
        c = board.dist[t] + board.side[t]
        if c < best_cost:
            best, best_cost = t, c
    path = np.zeros(cfg[C.C_SPACES] + 2, dtype=np.int64)
    length = route_of(cfg, board, best, path)
    for i in range(length):
        if path[i] != OFF:
            out[path[i]] = True
    return out


@njit
def _dest_bonus(s: np.ndarray, cfg: np.ndarray, board: Board) -> np.ndarray:
    """``IcebergsHeuristic._dest_bonus``: a bonus for cleared ice that lands on a rival's ship."""
    out = np.zeros(cfg[C.C_SPACES], dtype=np.float64)
    threat = threats(s, cfg, board.ship // cfg[C.C_KPS])
    for r in range(cfg[C.C_SHIPS]):
        if threat[r] > 0.0:
            q = s[C.POS + r]
            out[q] = out[q] + 2.0 * threat[r]
    return out


@njit
def _been_there(s: np.ndarray, target: int, memory: np.ndarray) -> bool:
    """``IcebergsHeuristic._been_there``, its set kept in ``memory`` (module docstring)."""
    key = C.get_turns(s) + 1
    if memory[0] != key:
        memory[:] = 0
        memory[0] = key
    here = s[C.POS + s[C.CURRENT]]
    if here >= 0:
        memory[1 + here // 64] |= np.int64(1) << np.int64(here % 64)
    return (memory[1 + target // 64] >> np.int64(target % 64)) & 1 != 0


@njit
def _first_action(
    s: np.ndarray, cfg: np.ndarray, board: Board, plans: Plans, budget: int, mask: np.ndarray, memory: np.ndarray
) -> int:
    """``IcebergsHeuristic._first_action`` for the plan of ``budget`` Moves (-1: None)."""
    route = plans.route[budget]
    path = plans.paths[route, : plans.lengths[route]]
    steps = plans.steps[budget]
    avoid = np.zeros(cfg[C.C_SPACES], dtype=np.bool_)
    for x in path:
        if x != OFF:
            avoid[x] = True
    bonus = _dest_bonus(s, cfg, board)
    n = path.shape[0] - 1
    if steps >= 1:
        if not board.solo:
            a = clearing_move(s, cfg, board, path[1 : min(steps, n) + 1], BERGS_FIRST, avoid, bonus, mask)
            if a >= 0:
                return a
        p0 = path[0]
        if n == 0:
            a = C.TO_HOME if board.goal_east else C.TO_ALASKA
            return a if mask[a] else -1
        p1 = path[1]
        if p0 == OFF:
            a = C.ENTER + p1 // cfg[C.C_COLS]
        else:
            a = -1
            for d in range(NUM_DIRECTIONS):
                if cfg[cfg[C.T_NEIGHBOURS] + NUM_DIRECTIONS * p0 + d] == p1:
                    a = d
                    break
        if a < 0 or not mask[a] or _been_there(s, p1, memory):
            return -1
        return a
    if board.solo:
        return -1
    spots = np.empty(CLEAR_HORIZON + 1, dtype=np.int64)
    count = 0
    if path[0] != OFF:
        spots[0] = path[0]
        count = 1
    for j in range(1, min(CLEAR_HORIZON, n) + 1):
        spots[count] = path[j]
        count += 1
    order = BERGS_FIRST if plans.bergs_first[budget] else FLOES_FIRST
    return clearing_move(s, cfg, board, spots[:count], order, avoid, bonus, mask)


@njit
def _best_block(
    s: np.ndarray, cfg: np.ndarray, seat: int, board: Board, route: np.ndarray, plans: Plans, ml: int,
    mask: np.ndarray,
) -> int:  # fmt: skip
    """``IcebergsHeuristic._best_block``: the most damaging push of ice into a rival's space that costs the
    own plan nothing (-1: None)."""
    own = board.own
    base = plans.value[ml] if plans.has[ml] else 0.0
    best_net = 0.0
    best = -1
    threat = threats(s, cfg, seat)
    for r in range(cfg[C.C_SHIPS]):
        w = threat[r]
        if w <= 0.0:
            continue
        q = s[C.POS + r]
        if route[q] or own[q]:
            continue
        for back in range(NUM_DIRECTIONS):
            x = sea_neighbour(cfg, q, back)
            if x < 0:
                continue
            d = (back + 3) % 6
            if cfg[cfg[C.T_NEIGHBOURS] + NUM_DIRECTIONS * x + d] != q:
                continue
            for is_berg in BERGS_FIRST:
                count = s[cfg[C.S_BERG_COUNT] + x] if is_berg else s[cfg[C.S_FLOES] + x]
                if count <= 0:
                    continue
                cost = ICEBERG_COST if is_berg else FLOE_COST
                if cost > ml:
                    continue
                a = (cfg[C.A_BERG] if is_berg else cfg[C.A_FLOE]) + 7 * x + d
                if not mask[a]:
                    continue
                if is_berg:
                    value = w * (ICEBERG_PENALTY / MU + RIVAL_SINK_TURNS / 18.0)
                else:
                    value = w * FLOE_PENALTY / MU
                after = plans.value[ml - cost] if plans.has[ml - cost] else 0.0
                if after > base + 1e-9:
                    continue
                net = after - value - base
                if net < -1e-6 and (best < 0 or net < best_net):
                    best_net = net
                    best = a
    return best


@njit
def _solo_drift(s: np.ndarray, cfg: np.ndarray, board: Board, steps: int, mask: np.ndarray) -> int:
    """``IcebergsHeuristic._solo_drift`` (-1: None)."""
    if steps >= 1 or s[C.DRIFTED] or board.start == OFF:
        return -1
    fuel = s[C.FUEL + board.ship]
    drift = cfg[C.A_DRIFT]
    for a in (drift + 6, drift + 7):
        if mask[a] and fuel >= 2:
            return a
    if fuel < 3:
        return -1
    here = static_cost(s, cfg, board, board.start, False)
    best_gain = 0.0
    best = -1
    for d in range(NUM_DIRECTIONS):
        if mask[drift + d]:
            t = cfg[cfg[C.T_NEIGHBOURS] + NUM_DIRECTIONS * board.start + d]
            gain = here - static_cost(s, cfg, board, t, True)
            if gain >= 1.0 and (best < 0 or gain > best_gain):
                best_gain = gain
                best = drift + d
    return best


@njit
def _whole_roll_entry(s: np.ndarray, cfg: np.ndarray, board: Board, mask: np.ndarray) -> int:
    """``IcebergsHeuristic._whole_roll_entry`` (-1: None)."""
    best_cost = 0.0
    best = -1
    for t in entries(cfg, board):
        a = C.ENTER + t // cfg[C.C_COLS]
        if mask[a]:
            cost = static_cost(s, cfg, board, t, True)
            if best < 0 or cost < best_cost:
                best_cost = cost
                best = a
    return best


@njit
def _move(s: np.ndarray, cfg: np.ndarray, seat: int, mask: np.ndarray, memory: np.ndarray) -> int:
    """``IcebergsHeuristic.move``."""
    k = s[C.CURRENT]
    ml = s[C.MOVES_LEFT]
    board = board_of(s, cfg, k)
    for a in (C.TO_ALASKA, C.TO_HOME):
        if mask[a]:
            return a
    if cfg[C.C_ALL_MOVES] and board.active and board.start == OFF:
        entry = _whole_roll_entry(s, cfg, board, mask)
        if entry >= 0:
            return entry
    plans = plan_turn(s, cfg, board, ml)
    if plans.has[ml]:
        route = np.zeros(cfg[C.C_SPACES], dtype=np.bool_)
        r = plans.route[ml]
        for i in range(plans.lengths[r]):
            if plans.paths[r, i] != OFF:
                route[plans.paths[r, i]] = True
    else:
        route = _route_set(cfg, board)
    if not board.solo and ml >= 1:
        block = _best_block(s, cfg, seat, board, route, plans, ml, mask)
        if block >= 0:
            return block
    if board.solo and plans.has[ml]:
        drift = _solo_drift(s, cfg, board, plans.steps[ml], mask)
        if drift >= 0:
            return drift
    if not plans.has[ml]:
        return C.END_TURN
    action = _first_action(s, cfg, board, plans, ml, mask, memory)
    return C.END_TURN if action < 0 else action


@njit
def _rolled_one(s: np.ndarray, cfg: np.ndarray, seat: int, mask: np.ndarray) -> int:
    """``IcebergsHeuristic.rolled_one``: drift, place a floe on a rival, or neither."""
    k = s[C.CURRENT]
    drift, place = cfg[C.A_DRIFT], cfg[C.A_PLACE]
    for a in (drift + 6, drift + 7):
        if mask[a]:
            return a
    board = board_of(s, cfg, k)
    best_val = 0.0
    best = cfg[C.A_DECLINE]
    if board.active and board.start != OFF:
        here = static_cost(s, cfg, board, board.start, False)
        for d in range(NUM_DIRECTIONS):
            if mask[drift + d]:
                t = cfg[cfg[C.T_NEIGHBOURS] + NUM_DIRECTIONS * board.start + d]
                gain = (here - static_cost(s, cfg, board, t, True)) / MU
                if gain > best_val + 1e-9:
                    best_val = gain
                    best = drift + d
    can_place = False
    for a in range(place, drift):
        if mask[a]:
            can_place = True
            break
    if can_place:
        route = _route_set(cfg, board)
        own = board.own
        threat = threats(s, cfg, seat)
        for r in range(cfg[C.C_SHIPS]):
            w = threat[r]
            if w <= 0.0:
                continue
            q = s[C.POS + r]
            if route[q] or own[q] or not mask[place + q]:
                continue
            val = w / MU
            if val > best_val + 1e-9:
                best_val = val
                best = place + q
    return best


@njit
def _hazard_choice(s: np.ndarray, cfg: np.ndarray) -> int:
    """``IcebergsHeuristic.hazard_choice``: lose Fuel or Cargo."""
    k = s[cfg[C.S_HAZARDS]]
    fuel, cargo = s[C.FUEL + k], s[C.CARGO + k]
    lose_fuel, lose_cargo = cfg[C.A_LOSE_FUEL], cfg[C.A_LOSE_CARGO]
    if cfg[C.C_SOLO]:
        if fuel <= 1:
            return lose_cargo
        if cargo - 1 < SOLO_WIN_CARGO:
            return lose_fuel
        return lose_cargo if fuel <= 3 else lose_fuel
    if cargo <= 1:
        return lose_fuel
    board = board_of(s, cfg, k)
    need = remaining(cfg, board)
    cost_fuel = fuel_penalty(fuel - 1, need) - fuel_penalty(fuel, need)
    if fuel <= 1:
        cost_fuel += 5.0
    cargo_value = CARGO_TURNS
    if s[C.FIRST_HOME] >= 0:
        cargo_value *= 3.0
    return lose_fuel if cost_fuel <= cargo_value else lose_cargo


@njit
def _hits_one_step(cfg: np.ndarray, space: int, ship: int) -> float:
    """``expected_table_hazards.hits_one_step``."""
    count = 0
    for d in range(NUM_DIRECTIONS):
        if sea_neighbour(cfg, space, d) >= 0:
            count += 1
    total = 0.0
    if count == 0:
        return total  # the only step stays where it is
    for d in range(NUM_DIRECTIONS):
        t = sea_neighbour(cfg, space, d)
        if t >= 0 and t == ship and t != space:
            total += 1.0 / count
    return total


@njit
def _ice_table_choice(s: np.ndarray, cfg: np.ndarray) -> int:
    """``heuristic.ice_table_choice`` with ``expected_table_hazards``: the line with fewer expected hazards."""
    one_berg, two_bergs = cfg[C.A_ICE_ONE], cfg[C.A_ICE_TWO]
    ship = s[C.POS]
    n = 0
    one_sum = 0.0
    two_sum = 0.0
    for i in range(cfg[C.C_BERGS]):
        b = s[cfg[C.S_BERGS] + i]
        if b < 0:
            continue
        n += 1
        count = 0
        for d in range(NUM_DIRECTIONS):
            if sea_neighbour(cfg, b, d) >= 0:
                count += 1
        two_steps = 0.0
        if count == 0:
            two_steps += 1.0 * _hits_one_step(cfg, b, ship)
        else:
            for d in range(NUM_DIRECTIONS):
                t = sea_neighbour(cfg, b, d)
                if t < 0:
                    continue
                p = 1.0 / count
                if t != b and t == ship:
                    two_steps += p
                two_steps += p * _hits_one_step(cfg, t, ship)
        one_sum += two_steps
        two_sum += _hits_one_step(cfg, b, ship)
    if ship < 0 or n == 0:
        return one_berg
    one = one_sum / n
    two = two_sum * min(2, n) / n
    return two_bergs if two < one - 1e-12 else one_berg


@njit
def _decide(s: np.ndarray, cfg: np.ndarray, seat: int, mask: np.ndarray, memory: np.ndarray) -> int:
    """``IcebergsHeuristic.decide`` (-1: None)."""
    phase = s[C.PHASE]
    if phase == C.PHASE_HAZARD:
        return _hazard_choice(s, cfg)
    if phase == C.PHASE_ONE:
        return _rolled_one(s, cfg, seat, mask)
    if phase == C.PHASE_ICE_CHOICE:
        return _ice_table_choice(s, cfg)
    if phase == C.PHASE_MOVE:
        return _move(s, cfg, seat, mask, memory)
    return -1


@njit
def heuristic_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """:meth:`IcebergsHeuristic.act`: its decision, or the first legal of its fallbacks."""
    action = _decide(s, cfg, C.deciding(s, cfg), mask, memory)
    if action >= 0 and mask[action]:
        return action
    for fallback in (C.END_TURN, cfg[C.A_DECLINE], cfg[C.A_LOSE_FUEL]):
        if mask[fallback]:
            return fallback
    return random_act(s, cfg, mask, prng, memory)
