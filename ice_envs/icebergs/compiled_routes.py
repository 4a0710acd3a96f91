"""Route searches of Icebergs' compiled players: shortest Moves to a map edge, on the compiled state row.

Both players search the hex map backwards from a goal edge with Dijkstra. The greedy value
(``greedy.py``: ``_dijkstra``) prices in whole Moves (integers, capped at ``BLOCKED``), settled bucket
by bucket (Dial's queue); the heuristic (``heuristic.py``: ``distances``) in float Moves (whole and
half Moves, so every sum is exact in binary floating point), settled bucket by bucket of half Moves
(a binary heap for any other prices). The distances of a shortest-path search do not depend on the order
in which it settles spaces, so both give the very numbers of Python's ``heapq`` searches. The greedy's
bounds also search outward from a ship or an edge (:func:`whole_move_spread`).

Small functions called in the searches' loops are inlined (``inline="always"``): a call that passes the
board's tuple of arrays costs more than their bodies.

The map is read from the engine's config row (``compiled.py``): terrain, neighbours and the sea
directions of each space.
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.compiled import njit
from ice_envs.icebergs import compiled as C
from ice_envs.icebergs.hexmap import NUM_DIRECTIONS, SEA

#: Moves charged for a route that is blocked on the board as it is (``greedy.BLOCKED``).
BLOCKED = 1000


@njit(inline="always")
def is_sea(cfg: np.ndarray, space: int) -> bool:
    """``space`` is a sea space of the map."""
    return cfg[cfg[C.T_TERRAIN] + space] == SEA


@njit(inline="always")
def edge_space(cfg: np.ndarray, row: int, east: bool) -> int:
    """The space of ``row`` on the east (or west) edge, or -1 when it is not sea."""
    cols = cfg[C.C_COLS]
    t = row * cols + (cols - 1 if east else 0)
    return t if is_sea(cfg, t) else -1


@njit(inline="always")
def sea_neighbour(cfg: np.ndarray, space: int, d: int) -> int:
    """The sea space next to ``space`` in direction ``d``, or -1 (off the grid or an island)."""
    if cfg[cfg[C.T_SEA_DIRS] + space] >> d & 1:
        return cfg[cfg[C.T_NEIGHBOURS] + NUM_DIRECTIONS * space + d]
    return -1


@njit(inline="always")
def sea_tables(cfg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The map's tables as slices of the config row: each space's sea directions (a bit per direction)
    and its neighbours (``NUM_DIRECTIONS`` per space). A loop indexes a slice several times faster than
    the row at an offset (numba checks a computed index for wrap-around, not a loop's own)."""
    spaces = cfg[C.C_SPACES]
    sea_at, nbr_at = cfg[C.T_SEA_DIRS], cfg[C.T_NEIGHBOURS]
    return cfg[sea_at : sea_at + spaces], cfg[nbr_at : nbr_at + NUM_DIRECTIONS * spaces]


# ------------------------------------------------------------------ a binary heap in two arrays
@njit(inline="always")
def heap_push(keys: np.ndarray, items: np.ndarray, size: int, key, item: int) -> int:
    """Push ``(key, item)``; returns the new size."""
    i = size
    keys[i] = key
    items[i] = item
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] < keys[i] or (keys[parent] == keys[i] and items[parent] <= items[i]):
            break
        keys[i], keys[parent] = keys[parent], keys[i]
        items[i], items[parent] = items[parent], items[i]
        i = parent
    return size + 1


@njit(inline="always")
def heap_pop(keys: np.ndarray, items: np.ndarray, size: int) -> int:
    """Remove the smallest entry (it is at index 0 before the call: read it first); returns the new size."""
    size -= 1
    keys[0] = keys[size]
    items[0] = items[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        right = left + 1
        if right < size and (keys[right] < keys[left] or (keys[right] == keys[left] and items[right] < items[left])):
            child = right
        if keys[i] < keys[child] or (keys[i] == keys[child] and items[i] <= items[child]):
            break
        keys[i], keys[child] = keys[child], keys[i]
        items[i], items[child] = items[child], items[i]
        i = child
    return size


# ------------------------------------------------------------------ the greedy value's whole Moves
def whole_move_scratch(spaces: int) -> np.ndarray:
    """The scratch rows of :func:`whole_move_distances` for a map of ``spaces`` spaces (every bucket empty)."""
    work = np.zeros((3, max(BLOCKED, 8 * spaces + 16)), dtype=np.int64)
    work[0] = -1
    return work


@njit
def whole_move_distances(
    cfg: np.ndarray, pens: np.ndarray, east: bool, exit_pen: bool, dist: np.ndarray, work: np.ndarray
) -> None:
    """``greedy._dijkstra`` into ``dist``: Moves from every space to off the east (or west) edge.

    A step from ``x`` to ``t`` costs ``1 + pens[x] + pens[t]``; leaving from an edge space ``x``
    costs 1 (``+ pens[x]`` with ``exit_pen``); ``BLOCKED`` for what is that dear or unreachable.
    The whole-Move distances below ``BLOCKED`` are settled bucket by bucket (Dial's queue):
    ``work[0]`` holds each distance's first entry (-1: none; all empty again on return),
    ``work[1]`` and ``work[2]`` each entry's next entry and space (:func:`whole_move_scratch`)."""
    for x in range(cfg[C.C_SPACES]):
        dist[x] = BLOCKED
    for r in range(cfg[C.C_ROWS]):
        x = edge_space(cfg, r, east)
        if x >= 0:
            dist[x] = min(dist[x], 1 + (pens[x] if exit_pen else 0))
    whole_move_spread(cfg, pens, dist, work)


# ------------------------------------------------------------------ the heuristic's float Moves
#: Most buckets :func:`half_move_distances` keeps (a dearer step leaves the search to the heap).
MAX_BUCKETS = 1 << 16


@njit
def half_move_distances(
    cfg: np.ndarray, side: np.ndarray, enter: np.ndarray, goal_east: bool, exit_side: float, cap_limit: float,
    cap_price: float, dist: np.ndarray, node: np.ndarray,
) -> bool:  # fmt: skip
    """:func:`float_distances` by buckets of half Moves (Dial's queue, circular), when every price is a
    whole number of half Moves (the heuristic's always are: False, nothing written, otherwise).

    Every step's price and every sum is then exact in floating point, so the distances are the very
    numbers of the binary heap's search (a shortest distance does not depend on the order spaces are
    settled in); they are computed with the same operations. ``node``: a scratch row of ``8 * spaces + 16``."""
    spaces = cfg[C.C_SPACES]
    most_side = 0.0
    most_enter = 0.0
    for x in range(spaces):
        a, b = 2.0 * side[x], 2.0 * enter[x]
        if a != np.floor(a) or b != np.floor(b) or a < 0.0 or b < 0.0:
            return False
        most_side = max(most_side, side[x])
        most_enter = max(most_enter, enter[x])
    if 2.0 * cap_price != np.floor(2.0 * cap_price) or cap_price < 0.0 or (exit_side != 0.0 and exit_side != 1.0):
        return False
    widest = max(1.0 + 2.0 * most_side + most_enter, 1.0 + most_side, cap_price)  # a step, an exit, the cap
    if 2.0 * widest + 2.0 > MAX_BUCKETS:
        return False
    width = int(2.0 * widest) + 2
    head = np.full(width, -1, dtype=np.int64)
    nxt = np.empty(node.shape[0], dtype=np.int64)
    halves = np.empty(node.shape[0], dtype=np.int64)
    sea_dirs, nbrs = sea_tables(cfg)
    for x in range(spaces):
        dist[x] = np.inf
    entries = 0
    pending = 0
    low = -1
    for r in range(cfg[C.C_ROWS]):
        x = edge_space(cfg, r, goal_east)
        if x < 0:
            continue
        d0 = 1.0 + exit_side * side[x]
        if d0 < dist[x]:
            dist[x] = d0
            h = int(2.0 * d0)
            node[entries] = x
            halves[entries] = h
            nxt[entries] = head[h % width]
            head[h % width] = entries
            entries += 1
            pending += 1
            low = h if low < 0 else min(low, h)
    now = low
    while pending > 0:
        b = now % width
        e = head[b]
        while e >= 0 and halves[e] != now:  # an entry a whole turn of the buckets later waits
            e = nxt[e]
        if e < 0:
            now += 1
            continue
        _unlink(head, nxt, b, e)
        pending -= 1
        t = node[e]
        d = dist[t]
        if 2.0 * d < now:
            continue
        into_t = side[t] + enter[t]
        dirs = sea_dirs[t]
        for dd in range(NUM_DIRECTIONS):
            if not dirs >> dd & 1:
                continue
            x = nbrs[NUM_DIRECTIONS * t + dd]
            w = 1.0 + side[x] + into_t
            if cap_limit >= 0.0 and w > cap_limit:
                w = cap_price
            nd = d + w
            if nd < dist[x]:
                dist[x] = nd
                h = int(2.0 * nd)
                node[entries] = x
                halves[entries] = h
                nxt[entries] = head[h % width]
                head[h % width] = entries
                entries += 1
                pending += 1
    return True


@njit(inline="always")
def _unlink(head: np.ndarray, nxt: np.ndarray, bucket: int, entry: int) -> None:
    """Take ``entry`` out of ``bucket``'s list."""
    if head[bucket] == entry:
        head[bucket] = nxt[entry]
        return
    e = head[bucket]
    while nxt[e] != entry:
        e = nxt[e]
    nxt[e] = nxt[entry]


@njit
def float_distances(
    cfg: np.ndarray, side: np.ndarray, enter: np.ndarray, goal_east: bool, exit_side: float, cap_limit: float,
    cap_price: float, dist: np.ndarray, items: np.ndarray,
) -> None:  # fmt: skip
    """``heuristic.distances`` into ``dist`` (``inf`` where unreachable); ``cap_limit < 0``: no cap.

    By :func:`half_move_distances` when it can, else with a binary heap (``items``: a scratch row of
    ``8 * spaces + 16``).

    A step from ``x`` to ``t`` costs ``1 + side[x] + side[t] + enter[t]`` (``cap_price`` instead when
    dearer than ``cap_limit``); leaving from an edge space ``x`` costs ``1 + exit_side * side[x]``."""
    if half_move_distances(cfg, side, enter, goal_east, exit_side, cap_limit, cap_price, dist, items):
        return
    keys = np.empty(items.shape[0], dtype=np.float64)
    sea_dirs, nbrs = sea_tables(cfg)
    spaces = cfg[C.C_SPACES]
    for x in range(spaces):
        dist[x] = np.inf
    size = 0
    for r in range(cfg[C.C_ROWS]):
        x = edge_space(cfg, r, goal_east)
        if x < 0:
            continue
        d0 = 1.0 + exit_side * side[x]
        if d0 < dist[x]:
            dist[x] = d0
            size = heap_push(keys, items, size, d0, x)
    while size > 0:
        d = keys[0]
        t = items[0]
        size = heap_pop(keys, items, size)
        if d > dist[t]:
            continue
        into_t = side[t] + enter[t]
        dirs = sea_dirs[t]
        for dd in range(NUM_DIRECTIONS):
            if not dirs >> dd & 1:
                continue
            x = nbrs[NUM_DIRECTIONS * t + dd]
            w = 1.0 + side[x] + into_t
            if cap_limit >= 0.0 and w > cap_limit:
                w = cap_price
            nd = d + w
            if nd < dist[x]:
                dist[x] = nd
                size = heap_push(keys, items, size, nd, x)


@njit
def whole_move_spread(cfg: np.ndarray, pens: np.ndarray, dist: np.ndarray, work: np.ndarray) -> None:
    """Whole Moves from the sources already in ``dist`` to every space, settled in place.

    ``dist`` holds each source's starting Moves and ``BLOCKED`` elsewhere; a step between neighbouring sea
    spaces ``x`` and ``t`` costs ``1 + pens[x] + pens[t]`` either way, as in :func:`whole_move_distances`
    (which searches from an edge). Distances of ``BLOCKED`` or more stay ``BLOCKED``; ``work`` as there."""
    head, nxt, node = work[0], work[1], work[2]
    sea_dirs, nbrs = sea_tables(cfg)
    entries = 0
    lo = BLOCKED
    hi = -1
    for x in range(cfg[C.C_SPACES]):
        d0 = dist[x]
        if d0 < BLOCKED:
            node[entries] = x
            nxt[entries] = head[d0]
            head[d0] = entries
            entries += 1
            lo = min(lo, d0)
            hi = max(hi, d0)
    b = lo
    while b <= hi:
        e = head[b]
        if e < 0:
            b += 1
            continue
        head[b] = nxt[e]
        t = node[e]
        if b > dist[t]:
            continue
        base = b + 1 + pens[t]
        dirs = sea_dirs[t]
        for dd in range(NUM_DIRECTIONS):
            if not dirs >> dd & 1:
                continue
            x = nbrs[NUM_DIRECTIONS * t + dd]
            nd = base + pens[x]
            if nd < dist[x]:
                dist[x] = nd
                node[entries] = x
                nxt[entries] = head[nd]
                head[nd] = entries
                entries += 1
                hi = max(hi, nd)
