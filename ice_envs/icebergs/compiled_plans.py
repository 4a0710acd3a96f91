"""The board and turn plans of Icebergs' compiled heuristic (``heuristic.py``: ``Board``, ``TurnPlanner``).

Every function mirrors the function or method of ``heuristic.py`` named in its docstring, with the same
floating-point operations in the same order (numba keeps IEEE semantics: no fast-math), so every value,
comparison and tie comes out as in Python. The per-ship :class:`Board` is a named tuple of arrays over
the map's spaces (other ships, penalties, the ``side``/``enter`` prices and the Dijkstra distances of
:func:`~ice_envs.icebergs.compiled_routes.float_distances`); the turn plans (:class:`Plans`) are arrays
per budget of Moves (value, route, steps, icebergs first) with the routes in a table. Sets of spaces
(the route, the own ships' spaces) are boolean arrays; dicts keyed by ship or space (the rivals'
threats, the bonus of a destination) are arrays in key order.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ice_envs.core.compiled import njit
from ice_envs.icebergs import compiled as C
from ice_envs.icebergs import heuristic as H
from ice_envs.icebergs import rules
from ice_envs.icebergs.compiled_routes import edge_space, float_distances, sea_neighbour
from ice_envs.icebergs.hexmap import NUM_DIRECTIONS

__all__ = ["Board", "Plans", "board_of", "plan_turn"]

MU, MU_FUEL, SAFE_SLACK, FUEL_WEIGHT = H.MU, H.MU_FUEL, H.SAFE_SLACK, H.FUEL_WEIGHT
HAZARD_MOVES, RIVAL_SINK_TURNS, CLEAR_HORIZON = H.HAZARD_MOVES, H.RIVAL_SINK_TURNS, H.CLEAR_HORIZON
CARGO_TURNS, SOLO_STUCK_MOVES = H.CARGO_TURNS, H.SOLO_STUCK_MOVES
ICEBERG_COST, FLOE_COST, ICEBERG_PENALTY, FLOE_PENALTY = (
    rules.ICEBERG_COST,
    rules.FLOE_COST,
    rules.ICEBERG_PENALTY,
    rules.FLOE_PENALTY,
)
SOLO_MOVES, SOLO_WIN_CARGO = rules.SOLO_MOVES, rules.SOLO_WIN_CARGO
INF = np.inf
OFF = -1
#: The kinds of ice :func:`clearing_move` tries, in order (True: icebergs).
BERGS_FIRST = np.array([True, False])
FLOES_FIRST = np.array([False, True])

Board = namedtuple(
    "Board",
    [
        "ship", "active", "goal_east", "start", "solo", "exit_side", "cap_limit", "ships", "pen", "side", "enter", "dist",
        "own", "zero", "seen", "avoid",
    ],
)  # fmt: skip
"""``own``: the spaces of the owner's ships; ``zero``: no bonus anywhere; ``seen``, ``avoid``: scratch sets."""


# ------------------------------------------------------------------ small sets and tables
@njit
def own_spaces(s: np.ndarray, cfg: np.ndarray, ship: int) -> np.ndarray:
    """``heuristic._own_ship_spaces`` as a mask over the spaces."""
    out = np.zeros(cfg[C.C_SPACES], dtype=np.bool_)
    kps = cfg[C.C_KPS]
    owner = ship // kps
    for k in range(owner * kps, owner * kps + kps):
        if s[C.POS + k] >= 0:
            out[s[C.POS + k]] = True
    return out


@njit(inline="always")
def _race_length(s: np.ndarray, cfg: np.ndarray, ship: int) -> float:
    """``heuristic.race_length``."""
    cols = cfg[C.C_COLS]
    st = s[C.STATUS + ship]
    if st == C.AT_SEA:
        col = s[C.POS + ship] % cols
        return float(cols - col) if s[C.LOADED + ship] else float(col + 2 + cols)
    if st == C.START:
        return float(2 * cols + 2)
    if st == C.ALASKA_LOADING or st == C.ALASKA_READY:
        return float(cols + 1)
    return INF


@njit
def threats(s: np.ndarray, cfg: np.ndarray, seat: int) -> np.ndarray:
    """``heuristic.threats``: per ship, the worth of delaying it (0: not a threat), in ship order."""
    per = cfg[C.C_KPS]
    ours = INF
    for k in range(seat * per, seat * per + per):
        x = _race_length(s, cfg, k)
        if x < ours:
            ours = x
    out = np.zeros(cfg[C.C_SHIPS], dtype=np.float64)
    for k in range(cfg[C.C_SHIPS]):
        if k // per == seat or s[C.STATUS + k] != C.AT_SEA:
            continue
        ahead = _race_length(s, cfg, k) <= ours + 0.5
        if ahead and (s[C.LOADED + k] or ours == INF):
            out[k] = 1.0
        else:
            out[k] = 0.6 if ahead else 0.25
    return out


@njit(inline="always")
def fuel_penalty(fuel: float, moves_needed: float) -> float:
    """``heuristic.fuel_penalty``."""
    if moves_needed <= 0:
        return 0.0
    slack = fuel - moves_needed / MU_FUEL
    short = SAFE_SLACK - slack
    return FUEL_WEIGHT * short * short if short > 0 else 0.0


# ------------------------------------------------------------------ the board
@njit
def board_of(s: np.ndarray, cfg: np.ndarray, ship: int) -> Board:
    """``heuristic.Board``: what ``ship`` sees of the map now."""
    n = cfg[C.C_SPACES]
    floes, bergs = cfg[C.S_FLOES], cfg[C.S_BERG_COUNT]
    counts = np.zeros((2, n), dtype=np.int64)  # one allocation per kind: ships and penalties
    ships, pen = counts[0], counts[1]
    for k in range(cfg[C.C_SHIPS]):
        p = s[C.POS + k]
        if p >= 0 and k != ship:
            ships[p] += 1
    prices = np.zeros((3, n), dtype=np.float64)
    side, enter, zero = prices[0], prices[1], prices[2]
    solo = cfg[C.C_SOLO] != 0
    floe_count, berg_count = s[floes : floes + n], s[bergs : bergs + n]  # slices: a loop indexes them faster
    for x in range(n):
        pen[x] = floe_count[x] + ICEBERG_PENALTY * berg_count[x] + ships[x]
        if solo:
            side[x] = float(pen[x])
            enter[x] = HAZARD_MOVES * berg_count[x]
        else:
            side[x] = 0.5 * floe_count[x] + 1.5 * berg_count[x] + ships[x]
    st = s[C.STATUS + ship]
    active = st == C.START or st == C.AT_SEA or st == C.ALASKA_LOADING or st == C.ALASKA_READY
    goal_east = s[C.LOADED + ship] != 0 or st == C.ALASKA_LOADING or st == C.ALASKA_READY
    start = s[C.POS + ship] if st == C.AT_SEA else OFF
    exit_side = 1.0 if cfg[C.C_EXIT_PENALTIES] else 0.0
    cap_limit = float(SOLO_MOVES) if solo else -1.0
    dist = np.zeros(n if active else 0, dtype=np.float64)
    if active:
        items = np.empty(8 * n + 16, dtype=np.int64)
        float_distances(cfg, side, enter, goal_east, exit_side, cap_limit, SOLO_STUCK_MOVES, dist, items)
    own = own_spaces(s, cfg, ship)
    marks = np.empty((2, n), dtype=np.bool_)  # scratch sets: cleared by each user
    seen, avoid = marks[0], marks[1]
    return Board(
        ship,
        active,
        goal_east,
        start,
        solo,
        exit_side,
        cap_limit,
        ships,
        pen,
        side,
        enter,
        dist,
        own,
        zero,
        seen,
        avoid,
    )


@njit(inline="always")
def entries(cfg: np.ndarray, board: Board) -> np.ndarray:
    """``Board.entries``: the entry spaces when off the map (east from Newfoundland, west from Alaska)."""
    out = np.empty(cfg[C.C_ROWS], dtype=np.int64)
    count = 0
    if board.start == OFF and board.active:
        for r in range(cfg[C.C_ROWS]):
            x = edge_space(cfg, r, not board.goal_east)
            if x >= 0:
                out[count] = x
                count += 1
    return out[:count]


@njit(inline="always")
def firsts(cfg: np.ndarray, board: Board) -> np.ndarray:
    """The first spaces of a route: the entries off the map, else the sea neighbours (direction order)."""
    if board.start == OFF:
        return entries(cfg, board)
    out = np.empty(NUM_DIRECTIONS, dtype=np.int64)
    count = 0
    for d in range(NUM_DIRECTIONS):
        t = sea_neighbour(cfg, board.start, d)
        if t >= 0:
            out[count] = t
            count += 1
    return out[:count]


@njit(inline="always")
def _on_goal_edge(cfg: np.ndarray, board: Board, space: int) -> bool:
    col = space % cfg[C.C_COLS]
    return col == (cfg[C.C_COLS] - 1 if board.goal_east else 0)


@njit(inline="always")
def remaining(cfg: np.ndarray, board: Board) -> float:
    """``Board.remaining``."""
    if not board.active:
        return 0.0
    if board.start == OFF:
        best = INF
        first = True
        for t in entries(cfg, board):
            c = 1.0 + board.side[t] + board.enter[t] + board.dist[t]
            if first or c < best:
                best = c
                first = False
        return best
    p = board.start
    return board.dist[p] + board.pen[p] - board.side[p]


@njit(inline="always")
def static_cost(s: np.ndarray, cfg: np.ndarray, board: Board, space: int, entering: bool) -> float:
    """``Board.static_cost``."""
    hazard = HAZARD_MOVES * s[cfg[C.S_BERG_COUNT] + space] if entering else 0.0
    return board.dist[space] + board.pen[space] - board.side[space] + hazard


@njit(inline="always")
def route_of(cfg: np.ndarray, board: Board, first: int, out: np.ndarray) -> int:
    """``Board.route`` into ``out`` (start, first, ...); its length, or 0 for a dead end (None)."""
    seen, side, enter, dist = board.seen, board.side, board.enter, board.dist
    exit_side, cap_limit = board.exit_side, board.cap_limit
    cols = cfg[C.C_COLS]
    goal_col = cols - 1 if board.goal_east else 0
    sea_dirs, neighbours = cfg[C.T_SEA_DIRS], cfg[C.T_NEIGHBOURS]
    seen[:] = False
    out[0] = board.start
    out[1] = first
    length = 2
    if board.start >= 0:
        seen[board.start] = True
    seen[first] = True
    x = first
    while True:
        best = 1.0 + exit_side * side[x] if x % cols == goal_col else INF
        nxt = -1
        dirs = cfg[sea_dirs + x]
        for d in range(NUM_DIRECTIONS):
            if not dirs >> d & 1:
                continue
            t = cfg[neighbours + NUM_DIRECTIONS * x + d]
            w = 1.0 + side[x] + side[t] + enter[t]  # Board.route's step (cap: the solo drift)
            if cap_limit >= 0.0 and w > cap_limit:
                w = SOLO_STUCK_MOVES
            c = w + dist[t]
            if c < best - 1e-9 and not seen[t]:
                best = c
                nxt = t
        if nxt < 0:
            return length if best < INF else 0
        out[length] = nxt
        length += 1
        seen[nxt] = True
        x = nxt


# ------------------------------------------------------------------ moving ice off the route
@njit(inline="always")
def _choose_ice_dest(
    s: np.ndarray, cfg: np.ndarray, board: Board, space: int, avoid: np.ndarray, bonus: np.ndarray
) -> int:
    """``heuristic.choose_ice_dest``: the direction to move an ice piece off the own route, or -1."""
    own = board.own
    best_score = 0.0
    best = -1
    dirs = cfg[cfg[C.T_SEA_DIRS] + space]
    for d in range(NUM_DIRECTIONS + 1):
        if not dirs >> d & 1:
            continue
        if d == rules.OFF_MAP_DIR:
            score = 100.0
        else:
            t = cfg[cfg[C.T_NEIGHBOURS] + NUM_DIRECTIONS * space + d]
            if avoid[t] or own[t]:
                continue
            dist = board.dist[t] if board.dist.shape[0] > 0 else 0.0
            score = min(dist, 40.0) / 4.0 + bonus[t]
        if best < 0 or score > best_score:
            best_score = score
            best = d
    return best


@njit
def clearing_move(
    s: np.ndarray, cfg: np.ndarray, board: Board, spaces: np.ndarray, kinds: np.ndarray, avoid: np.ndarray,
    bonus: np.ndarray, mask: np.ndarray,
) -> int:  # fmt: skip
    """``heuristic.clearing_move``: the first legal move of ice out of ``spaces`` (kinds: 1 iceberg, 0 floe)."""
    for want_berg in kinds:
        if want_berg and s[C.MOVES_LEFT] < ICEBERG_COST:
            continue
        for sp in spaces:
            count = s[cfg[C.S_BERG_COUNT] + sp] if want_berg else s[cfg[C.S_FLOES] + sp]
            if count <= 0:
                continue
            d = _choose_ice_dest(s, cfg, board, sp, avoid, bonus)
            if d < 0:
                continue
            a = (cfg[C.A_BERG] if want_berg else cfg[C.A_FLOE]) + 7 * sp + d
            if mask[a]:
                return a
    return -1


@njit(inline="always")
def _spare_savings(spare: float, floes: int, bergs: int) -> tuple[float, bool]:
    """``heuristic.spare_savings``."""
    s = int(spare + 1e-9)
    if s <= 0 or (floes == 0 and bergs == 0):
        return 0.0, False
    a = min(s, floes)
    first = a + ICEBERG_COST * min((s - a) // ICEBERG_COST, bergs)
    b = min(s // ICEBERG_COST, bergs)
    second = ICEBERG_COST * b + min(s - ICEBERG_COST * b, floes)
    if second > first:
        return float(second), True
    return float(first), False


# ------------------------------------------------------------------ turn plans (TurnPlanner)
Plans = namedtuple("Plans", ["value", "has", "route", "steps", "bergs_first", "paths", "lengths", "fwork", "iwork"])
"""Per budget of Moves: the best plan's value, whether there is one, its route (a row of ``paths``, its
length in ``lengths``), steps and whether icebergs go first; ``fwork``/``iwork``: :func:`_score_path`'s rows."""


@njit
def _new_plans(cfg: np.ndarray, moves: int) -> Plans:
    rows = max(cfg[C.C_ROWS], NUM_DIRECTIONS) + 2
    return Plans(
        np.zeros(moves + 1, dtype=np.float64),
        np.zeros(moves + 1, dtype=np.bool_),
        np.zeros(moves + 1, dtype=np.int64),
        np.zeros(moves + 1, dtype=np.int64),
        np.zeros(moves + 1, dtype=np.bool_),
        np.empty((rows, cfg[C.C_SPACES] + 2), dtype=np.int64),  # a route's entries are written before read
        np.zeros(rows, dtype=np.int64),
        np.empty((5, cfg[C.C_SPACES] + 2), dtype=np.float64),  # _score_path's rows, likewise
        np.empty((2, cfg[C.C_SPACES] + 2), dtype=np.int64),
    )


@njit(inline="always")
def _offer(
    plans: Plans, board: Board, moves: int, needed: float, rest: float, route: int, steps: int, haz: float,
    done: bool, af: int, ab: int, fuel_after: float,
) -> None:  # fmt: skip
    """``TurnPlanner._offer``: the plan for every budget that affords ``needed`` Moves."""
    if needed > moves + 1e-9:
        return
    lo = int(np.ceil(needed - 1e-9))
    for budget in range(max(lo, 0), moves + 1):
        spare = budget - needed
        saving, bergs_first = _spare_savings(spare, af, ab)
        if done:
            value = haz / MU - 100.0 + 1e-3 * needed
        else:
            left = max(rest - saving, 0.0)
            value = left / MU + haz / MU
            if not board.solo:
                value += fuel_penalty(fuel_after, left)
            value -= 1e-4 * steps
        if not plans.has[budget] or value < plans.value[budget] - 1e-12:
            plans.has[budget] = True
            plans.value[budget] = value
            plans.route[budget] = route
            plans.steps[budget] = steps
            plans.bergs_first[budget] = bergs_first


@njit
def _score_path(
    s: np.ndarray, cfg: np.ndarray, board: Board, plans: Plans, route: int, exit_now: bool, moves: int,
    fuel: int, can_sail: bool, pays_fuel: bool,
) -> None:  # fmt: skip
    """``TurnPlanner._score_path``: every stopping point along the route ``plans.paths[route]``."""
    path = plans.paths[route, : plans.lengths[route]]
    floes, bergs = cfg[C.S_FLOES], cfg[C.S_BERG_COUNT]
    exit_side = board.exit_side
    n = path.shape[0] - 1
    avoid = board.avoid
    avoid[:] = False
    for x in path:
        if x != OFF:
            avoid[x] = True
    no_bonus = board.zero
    clear, after, half, hazard, suffix = plans.fwork[0], plans.fwork[1], plans.fwork[2], plans.fwork[3], plans.fwork[4]
    cl_floes, cl_bergs = plans.iwork[0], plans.iwork[1]
    for row in plans.fwork:  # entry 0 is never set by a route space (as in the Python lists)
        row[0] = 0.0
    for j in range(1, n + 1):
        sp = path[j]
        f, b, sh = s[floes + sp], s[bergs + sp], board.ships[sp]
        # whether the ice of ``sp`` has somewhere to go: one question for floes and icebergs alike
        movable = (f > 0 or (b > 0 and moves >= ICEBERG_COST)) and not board.solo
        movable = movable and _choose_ice_dest(s, cfg, board, sp, avoid, no_bonus) >= 0
        cf = f > 0 and movable
        cb = b > 0 and moves >= ICEBERG_COST and movable
        cl_floes[j] = f if cf else 0
        cl_bergs[j] = b if cb else 0
        clear[j] = (f if cf else 0) + (ICEBERG_COST * b if cb else 0)
        after[j] = sh + (0 if cf else f) + (0 if cb else ICEBERG_PENALTY * b)
        hazard[j] = 0.0 if cb else HAZARD_MOVES * b
        if board.solo:
            half[j] = board.side[sp] + board.enter[sp]
        else:
            half[j] = (
                (0.5 * f if cf else float(f)) + (1.5 * b if cb else ICEBERG_PENALTY * b + 0.5 * HAZARD_MOVES * b) + sh
            )
    if n >= 1:
        suffix[n] = 1.0 + exit_side * half[n]
        for j in range(n - 1, 0, -1):
            suffix[j] = 1.0 + half[j] + half[j + 1] + suffix[j + 1]
    p0 = path[0]
    lead0 = 0.0 if p0 == OFF else float(board.pen[p0])
    if exit_now:
        if not can_sail:
            return
        cost = 1.0 + exit_side * lead0
        _offer(plans, board, moves, cost, 0.0, route, 1, 0.0, True, 0, 0, fuel - (1 if pays_fuel else 0))
        return
    needed = 0.0
    haz_sum = 0.0
    for k in range(0, n + 2):
        if k >= 1:
            if not can_sail:
                break
            if k == 1:
                needed += 1.0 + lead0
            else:
                needed += 1.0 + after[k - 1]
            if k <= n:
                needed += clear[k] + after[k]
                haz_sum += hazard[k]
            elif exit_side == 0.0:
                needed -= after[n]
        if needed > moves + 1e-9:
            break
        if k == n + 1:
            rest = 0.0
        elif k == 0:
            rest = 1.0 + lead0 + half[1] + suffix[1]
        else:
            lside = exit_side if k == n else 1.0
            rest = suffix[k] + lside * (after[k] - half[k])
        af = 0
        ab = 0
        if k <= n and not board.solo:
            if k == 0 and p0 != OFF:
                af += s[floes + p0]
                ab += s[bergs + p0] if moves >= ICEBERG_COST else 0
            for j in range(k + 1, min(n, k + CLEAR_HORIZON) + 1):
                af += cl_floes[j]
                ab += cl_bergs[j]
        used_fuel = 1 if k >= 1 and pays_fuel else 0
        _offer(plans, board, moves, needed, rest, route, k, haz_sum, k == n + 1, af, ab, fuel - used_fuel)


@njit
def plan_turn(s: np.ndarray, cfg: np.ndarray, board: Board, moves: int) -> Plans:
    """``TurnPlanner.run``: the best plan per budget of Moves up to ``moves``."""
    plans = _new_plans(cfg, moves)
    if not board.active:
        return plans
    k = board.ship
    st = s[C.STATUS + k]
    can_sail = (
        (st == C.START or st == C.AT_SEA or st == C.ALASKA_READY)
        and s[C.CURRENT] == k
        and (board.solo or s[C.FUEL_PAID] != 0 or s[C.FUEL + k] > 0)
    )
    pays_fuel = not board.solo and not s[C.FUEL_PAID]
    fuel = s[C.FUEL + k]
    count = 0
    for t in firsts(cfg, board):
        if board.dist[t] < INF:
            length = route_of(cfg, board, t, plans.paths[count])
            if length > 0:
                plans.lengths[count] = length
                _score_path(s, cfg, board, plans, count, False, moves, fuel, can_sail, pays_fuel)
                count += 1
    if board.start != OFF and _on_goal_edge(cfg, board, board.start):
        plans.paths[count, 0] = board.start
        plans.lengths[count] = 1
        _score_path(s, cfg, board, plans, count, True, moves, fuel, can_sail, pays_fuel)
    return plans
