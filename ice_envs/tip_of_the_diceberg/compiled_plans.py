"""The Tip of the Diceberg heuristic's hand plans in numba: melds, plans and their search.

The compiled heuristic (:mod:`ice_envs.tip_of_the_diceberg.compiled_players`) judges hands as
:class:`ice_envs.tip_of_the_diceberg.heuristic.HandPlan` does, with the same floating-point operations in
the same order (its decisions compare floats). This module holds the pieces that take the time:

======================================  ==============================================================
Python                                  here
======================================  ==============================================================
``patterns.enumerate_melds``            :func:`melds` (depth-first on the engine's ``_fits`` /
                                        ``_complete``; with ``must``, from that item, as there)
``HandPlan.__init__``                   :func:`build_plan`: :func:`plan_melds` (the melds of every
                                        slot, identical dice swapped in every way, sorted by share
                                        then cost) and :func:`plan_of` (per item its melds in that
                                        order, the 8-bit bound tables, the branching order)
``HandPlan.value``                      :func:`value`, :func:`evaluate` (the same branch and bound,
                                        without recursion; many masks in one call)
``HandPlan.bound``                      :func:`bound`
``turn_cost_of_slots``                  :data:`TURN_COST`, the Python function's floats for every
                                        count of clear, discard and other slots
======================================  ==============================================================

A plan is a tuple of arrays (:data:`PLAN_TYPE`, fields ``P_*``): its items (rows ``id, suit, number,
die`` sorted by id), the row of each item id, per item the start of its melds in the flat lists of meld
masks and costs, the bound tables, the branching order, its memo and the search's stack and frames. The memo is an array of
``2 ** n`` values indexed by the mask (``-1``: not searched yet) for a plan of up to :data:`DENSE_BITS`
items, else an open-addressing table of :data:`HASHED_SLOTS` entries (a fuller table stops memoising:
the values are the same, only searched again).

Nothing here allocates per meld or per search step: the meld search works in one scratch table
(:func:`new_scratch`) made once per decision. The search is not recursive: numba's disk cache cannot reload a
self-recursive function that another cached function calls.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import types

from ice_envs.core.compiled import njit
from ice_envs.tip_of_the_diceberg.catalog import MAX_SLOTS
from ice_envs.tip_of_the_diceberg.compiled import (
    C_NSLOTS,
    C_PATTERN,
    C_POWER,
    F_CMAX,
    F_CMIN,
    F_DMIN,
    F_SMAX,
    F_SMIN,
    MAX_HELD,
    NF,
    NI,
    SLOT_CARD,
    _allowed,
    _complete,
    _fits,
)
from ice_envs.tip_of_the_diceberg.heuristic import POWER_TURN_COST, STUCK_COST, turn_cost_of_slots
from ice_envs.tip_of_the_diceberg.patterns import MAX_MELD

__all__ = ["PLAN_TYPE", "TURN_COST", "bound", "build_plan", "melds", "new_scratch", "value"]

#: Power category of a card by its power code (``compiled.POWER_*``): 0 clear, 1 discard, 2 anything else.
POWER_CATEGORY = np.array([2, 2, 1, 2, 0], dtype=np.int64)


def _turn_cost_table() -> np.ndarray:
    """``heuristic.turn_cost_of_slots`` of every multiset of slots: ``[clear, discard, other]`` counts."""
    size = MAX_SLOTS + 1
    table = np.full((size, size, size), np.inf)
    for a in range(size):
        for b in range(size - a):
            for c in range(size - a - b):
                if a + b + c:
                    table[a, b, c] = turn_cost_of_slots(["clear"] * a + ["discard"] * b + [""] * c)
    return table


#: The turn cost of a meld by how many clear, discard and other slots take it (exactly the Python floats).
TURN_COST = _turn_cost_table()
#: The same by :func:`cost_code`.
COST_OF_CODE = TURN_COST.reshape(-1).copy()
CLEAR_COST = POWER_TURN_COST["clear"]
#: ``itertools.combinations(group, r)`` as bitmasks over a group's positions: ``COMBOS[g][r]``, ``COMBO_COUNT[g, r]``.
COMBOS = np.zeros((4, 4, 3), dtype=np.int64)
COMBO_COUNT = np.zeros((4, 4), dtype=np.int64)
for _g in range(1, 4):
    for _r in range(1, _g + 1):
        for _c in combinations(range(_g), _r):
            COMBOS[_g, _r, COMBO_COUNT[_g, _r]] = sum(1 << j for j in _c)
            COMBO_COUNT[_g, _r] += 1

#: A plan's memo is indexed by the mask itself up to this many items (``2 ** 16`` values), else hashed.
DENSE_BITS = 16
#: Entries of a hashed memo (plans of more items); it memoises up to three quarters of them.
HASHED_SLOTS = 1 << 18

_I1, _I2, _F1, _F2 = types.int64[:], types.int64[:, :], types.float64[:], types.float64[:, :]
#: A plan: items, row of each item id, meld starts per item, meld masks, meld costs, bound tables, branching
#: order, memo keys (empty: the memo is dense), memo values.
PLAN_TYPE = types.Tuple((_I2, _I1, _I1, _I1, _F1, _F2, _I1, _I1, _F1, _I1, _I2, _F2))
P_ITEMS, P_INDEX, P_START, P_MASKS, P_COSTS, P_TABLES, P_ORDER, P_KEYS, P_VALUES, P_STACK, P_FRAMES, P_BESTS = range(12)
#: Columns of a plan's search frames (:func:`_search`).
F_MASK, F_ITEM, F_NEXT, F_END, F_STUCK = range(5)

# The scratch table of one decision: rows of the meld search (candidates of a card), then its depth rows
# (columns ``W_*``), then the dedup table of a plan's melds.
R_CAND, R_PREV, R_SUF_MAX, R_SUF_MIN, R_SUF_DICE, R_CHOSEN = range(6)
R_DEPTH = 6
W_POS, W_TOOK, W_TOTAL, W_V0, W_S0, W_SMASK, W_NMASK, W_LO, W_HI, W_ND, W_BITS = range(11)
SCRATCH_WIDTH = 32
SCRATCH_ROWS = R_DEPTH + MAX_MELD + 2
assert MAX_HELD + 1 <= SCRATCH_WIDTH and W_BITS < SCRATCH_WIDTH
#: Slots of the hash table that finds a meld mask's entry while a plan (or a die's melds) is listed.
ENTRY_SLOTS = 1 << 11
#: Entries the table indexes (at most half full); any more are found by a linear search.
HASHED_ENTRIES = ENTRY_SLOTS // 2


@njit
def new_scratch() -> np.ndarray:
    """The meld search's scratch table (one per decision)."""
    return np.zeros((SCRATCH_ROWS, SCRATCH_WIDTH), dtype=np.int64)


@njit(inline="always")
def popcount(x: int) -> int:
    """Set bits of ``x``."""
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k


@njit(inline="always")
def _low_bit(m: int) -> int:
    """The index of the lowest set bit of ``m > 0``."""
    i = 0
    while not m >> i & 1:
        i += 1
    return i


@njit
def grown(a: np.ndarray, need: int) -> np.ndarray:
    """``a``, or a copy at least twice as long when it holds fewer than ``need`` entries."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def melds(
    cfg: np.ndarray, card: int, items: np.ndarray, n: int, must: int, out: np.ndarray, scr: np.ndarray
) -> tuple[np.ndarray, int]:
    """``patterns.enumerate_melds`` of catalog card ``card`` from the first ``n`` rows of ``items`` (``id, suit,
    number, die``, sorted by id) as bitmasks over the rows into ``out`` (grown if needed): ``(out, count)``.

    Depth-first in item order; ``must >= 0``: only the melds with that row (it goes first, as there; it has no
    identical die among the rows). Identical dice go in row order (a die only with the identical dice before
    it)."""
    pat = C_PATTERN + NF * card
    cmin, cmax = cfg[pat + F_CMIN], cfg[pat + F_CMAX]
    count = 0
    if cmax < 1:
        return out, count
    # the scratch is indexed in place (no row views, whose reference counts cost more than the search)
    m = 0
    for j in range(n):
        if j != must and _allowed(cfg, card, items[j, 1], items[j, 2]):
            scr[R_CAND, m] = j
            scr[R_PREV, m] = -1
            scr[R_CHOSEN, m] = 0
            if items[j, 3]:
                for b in range(m - 1, -1, -1):
                    jb = scr[R_CAND, b]
                    if items[jb, 3] and items[jb, 1] == items[j, 1] and items[jb, 2] == items[j, 2]:
                        scr[R_PREV, m] = b
                        break
            m += 1
    # what the candidates from each one on can still add (the bounds ``enumerate_melds`` prunes by)
    smin, smax, dmin = cfg[pat + F_SMIN], cfg[pat + F_SMAX], cfg[pat + F_DMIN]
    scr[R_SUF_MAX, m], scr[R_SUF_MIN, m], scr[R_SUF_DICE, m] = 0, 1 << 30, 0
    for a in range(m - 1, -1, -1):
        v = items[scr[R_CAND, a], 2]
        scr[R_SUF_MAX, a] = max(scr[R_SUF_MAX, a + 1], v)
        scr[R_SUF_MIN, a] = min(scr[R_SUF_MIN, a + 1], v)
        scr[R_SUF_DICE, a] = scr[R_SUF_DICE, a + 1] + items[scr[R_CAND, a], 3]
    # depth row d (items chosen): pos, took, total, v0, s0, smask, nmask, lo, hi, nd, bits
    d0 = 0
    w = R_DEPTH
    scr[w, W_POS] = 0
    for c in range(W_TOTAL, W_BITS + 1):
        scr[w, c] = 0
    if must >= 0:
        t, v, dd = items[must, 1], items[must, 2], items[must, 3]
        if not _allowed(cfg, card, t, v) or not _fits(cfg, pat, 0, 0, 0, 0, 0, 0, 0, 0, 0, v, t, dd):
            return out, count
        if _complete(cfg, pat, 1, v, v, v, dd):
            out = grown(out, 1)
            out[0] = 1 << must
            count = 1
        if cmax == 1:
            return out, count
        d0 = 1
        w = R_DEPTH + 1
        scr[w, W_POS], scr[w, W_TOTAL], scr[w, W_V0], scr[w, W_S0] = 0, v, v, t
        scr[w, W_SMASK], scr[w, W_NMASK], scr[w, W_LO], scr[w, W_HI] = 1 << t, 1 << v, v, v
        scr[w, W_ND], scr[w, W_BITS] = dd, 1 << must
    d = d0
    while d >= d0:
        w = R_DEPTH + d
        i = scr[w, W_POS]
        if i >= m:
            d -= 1
            if d >= d0:
                scr[R_CHOSEN, scr[w - 1, W_TOOK]] = 0
            continue
        scr[w, W_POS] = i + 1
        if scr[R_PREV, i] >= 0 and not scr[R_CHOSEN, scr[R_PREV, i]]:
            continue
        j = scr[R_CAND, i]
        t, v, dd = items[j, 1], items[j, 2], items[j, 3]
        tot, lo, hi, nd = scr[w, W_TOTAL], scr[w, W_LO], scr[w, W_HI], scr[w, W_ND]
        if not _fits(
            cfg, pat, d, tot, scr[w, W_V0], scr[w, W_S0], scr[w, W_SMASK], scr[w, W_NMASK], lo, hi, nd, v, t, dd
        ):
            continue
        c2, t2, nd2 = d + 1, tot + v, nd + dd
        lo2 = lo if (d and lo <= v) else v
        hi2 = hi if (d and hi >= v) else v
        bits = scr[w, W_BITS] | (1 << j)
        if _complete(cfg, pat, c2, t2, lo2, hi2, nd2):
            out = grown(out, count + 1)
            out[count] = bits
            count += 1
        room = cmax - c2
        if (
            room > 0
            and m - (i + 1) >= max(1, cmin - c2)
            and t2 + room * scr[R_SUF_MAX, i + 1] >= smin
            and nd2 + min(room, scr[R_SUF_DICE, i + 1]) >= dmin
            and t2 + scr[R_SUF_MIN, i + 1] <= smax
        ):
            scr[R_CHOSEN, i] = 1
            scr[w, W_TOOK] = i
            e = w + 1
            scr[e, W_POS], scr[e, W_TOTAL] = i + 1, t2
            scr[e, W_V0] = scr[w, W_V0] if d else v
            scr[e, W_S0] = scr[w, W_S0] if d else t
            scr[e, W_SMASK], scr[e, W_NMASK] = scr[w, W_SMASK] | (1 << t), scr[w, W_NMASK] | (1 << v)
            scr[e, W_LO], scr[e, W_HI], scr[e, W_ND], scr[e, W_BITS] = lo2, hi2, nd2, bits
            d += 1
    return out, count


@njit
def entry_of(table: np.ndarray, masks: np.ndarray, ne: int, key: int) -> tuple[np.ndarray, int, int]:
    """The entry of meld mask ``key`` among the ``ne`` of ``masks``, added if new: ``(masks, ne, entry)``.

    ``table`` (:data:`ENTRY_SLOTS` slots, ``-1`` free) is an open-addressing index of ``masks``; the caller
    frees the slots of its entries afterwards (:func:`free_entries`)."""
    if ne >= HASHED_ENTRIES:  # more than the table indexes: the rest by a linear search
        for e in range(ne):
            if masks[e] == key:
                return masks, ne, e
        masks = grown(masks, ne + 1)
        masks[ne] = key
        return masks, ne + 1, ne
    h = (key ^ (key >> 29)) * -4658895280553007687
    at = (h ^ (h >> 32)) & (ENTRY_SLOTS - 1)
    while table[at] != -1:
        if masks[table[at]] == key:
            return masks, ne, table[at]
        at = (at + 1) & (ENTRY_SLOTS - 1)
    masks = grown(masks, ne + 1)
    masks[ne] = key
    table[at] = ne
    return masks, ne + 1, ne


@njit
def free_entries(table: np.ndarray, masks: np.ndarray, ne: int) -> None:
    """Free the slots of ``table`` that the ``ne`` entries of ``masks`` took (each frees the run of taken slots
    from its home slot on: together they free every slot taken)."""
    for e in range(min(ne, HASHED_ENTRIES)):
        key = masks[e]
        h = (key ^ (key >> 29)) * -4658895280553007687
        at = (h ^ (h >> 32)) & (ENTRY_SLOTS - 1)
        while table[at] != -1:
            table[at] = -1
            at = (at + 1) & (ENTRY_SLOTS - 1)


@njit
def new_entry_table() -> np.ndarray:
    """An empty entry table for :func:`entry_of`."""
    return np.full(ENTRY_SLOTS, -1, dtype=np.int64)


@njit
def plan_melds(s: np.ndarray, cfg: np.ndarray, items: np.ndarray, scr: np.ndarray, table: np.ndarray):  # type: ignore[no-untyped-def]
    """The melds of ``HandPlan(items, per_slot, powers)`` under the slots of state row ``s``: their masks over
    the rows of ``items`` and their cost codes (:func:`cost_code`), in the order each item's list keeps them
    (cheapest share first, then cost, then the order in which ``HandPlan`` meets them)."""
    n = items.shape[0]
    # groups of identical dice (twins), in the order of their first die
    gid = np.full(n, -1, dtype=np.int64)
    gmem = np.zeros((n, 3), dtype=np.int64)
    gsize = np.zeros(n, dtype=np.int64)
    ng = 0
    for i in range(n):
        if not items[i, 3]:
            continue
        for g in range(ng):
            f = gmem[g, 0]
            if items[f, 1] == items[i, 1] and items[f, 2] == items[i, 2]:
                gid[i] = g
                break
        if gid[i] < 0:
            gid[i] = ng
            ng += 1
        g = gid[i]
        gmem[g, gsize[g]] = i
        gsize[g] += 1
    masks = np.empty(128, dtype=np.int64)
    slots = np.zeros(128, dtype=np.int64)
    ne = 0
    found = np.empty(64, dtype=np.int64)
    variants = np.empty(32, dtype=np.int64)
    fresh = np.empty(32, dtype=np.int64)
    for k in range(cfg[C_NSLOTS]):
        found, nf = melds(cfg, s[SLOT_CARD + k], items, n, -1, found, scr)
        for f in range(nf):
            mask = found[f]
            variants[0] = mask
            nv = 1
            for g in range(ng):
                size = gsize[g]
                if size < 2:
                    continue
                used = 0
                gbits = 0
                for q in range(size):
                    b = 1 << gmem[g, q]
                    gbits |= b
                    if mask & b:
                        used += 1
                if used == 0 or used == size:
                    continue
                nn = 0
                for a in range(nv):
                    base = variants[a] & ~(mask & gbits)
                    for c in range(COMBO_COUNT[size, used]):
                        combo = COMBOS[size, used, c]
                        mm = base
                        for q in range(size):
                            if combo >> q & 1:
                                mm |= 1 << gmem[g, q]
                        fresh = grown(fresh, nn + 1)
                        fresh[nn] = mm
                        nn += 1
                variants = grown(variants, nn)
                variants[:nn] = fresh[:nn]
                nv = nn
            for a in range(nv):
                masks, ne, e = entry_of(table, masks, ne, variants[a])
                if e >= slots.shape[0]:
                    more = np.zeros(2 * slots.shape[0], dtype=np.int64)
                    more[: slots.shape[0]] = slots
                    slots = more
                slots[e] |= 1 << k
    free_entries(table, masks, ne)
    codes = np.empty(ne, dtype=np.int64)
    cnt = np.zeros(3, dtype=np.int64)
    for e in range(ne):
        cnt[:] = 0
        for k in range(cfg[C_NSLOTS]):
            if slots[e] >> k & 1:
                cnt[POWER_CATEGORY[cfg[C_POWER + s[SLOT_CARD + k]]]] += 1
        codes[e] = cost_code(cnt[0], cnt[1], cnt[2])
    # cheapest share first, then cost, ties in insertion order (each item's list keeps this order)
    cost = COST_OF_CODE[codes[:ne]]
    share = np.empty(ne, dtype=np.float64)
    for e in range(ne):
        share[e] = cost[e] / popcount(masks[e])
    by = np.argsort(cost, kind="mergesort")
    by = by[np.argsort(share[by], kind="mergesort")]
    return masks[by], codes[by]


@njit
def cost_code(clear: int, discard: int, other: int) -> int:
    """The code of a meld's cost by how many clear, discard and other slots take it (:data:`COST_OF_CODE`)."""
    return (clear * (MAX_SLOTS + 1) + discard) * (MAX_SLOTS + 1) + other


@njit
def plan_of(items: np.ndarray, masks: np.ndarray, codes: np.ndarray):  # type: ignore[no-untyped-def]
    """The plan of ``items`` with the melds of :func:`plan_melds` (a :data:`PLAN_TYPE` tuple)."""
    n = items.shape[0]
    ne = masks.shape[0]
    index = np.full(NI, -1, dtype=np.int64)
    for i in range(n):
        index[items[i, 0]] = i
    # per item its melds, in the order of the melds
    start = np.zeros(n + 1, dtype=np.int64)
    for e in range(ne):
        m = masks[e]
        while m:
            start[_low_bit(m) + 1] += 1
            m &= m - 1
    for i in range(n):
        start[i + 1] += start[i]
    by_mask = np.empty(start[n], dtype=np.int64)
    by_cost = np.empty(start[n], dtype=np.float64)
    fill = start[:n].copy()
    for e in range(ne):
        c = COST_OF_CODE[codes[e]]
        m = masks[e]
        while m:
            i = _low_bit(m)
            by_mask[fill[i]] = masks[e]
            by_cost[fill[i]] = c
            fill[i] += 1
            m &= m - 1
    # a lower bound of a mask's cost: each item at its cheapest share of a meld, summed by tables of 8 bits
    # (in item order: the entry of a byte is the entry without its highest bit plus that item's share)
    nt = (n + 7) // 8
    tables = np.zeros((max(nt, 1), 256), dtype=np.float64)
    for t in range(nt):
        for b in range(1, 256):
            j = 7
            while not b >> j & 1:
                j -= 1
            i = 8 * t + j
            if i >= n:
                tables[t, b] = tables[t, b ^ (1 << j)]
                continue
            lo = start[i]
            share = by_cost[lo] / popcount(by_mask[lo]) if start[i + 1] > lo else STUCK_COST
            tables[t, b] = tables[t, b ^ (1 << j)] + share
    # the awkward items (fewest melds) first, ties by row: a stable insertion sort by meld count
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = i
        while r > 0 and start[order[r - 1] + 1] - start[order[r - 1]] > start[i + 1] - start[i]:
            order[r] = order[r - 1]
            r -= 1
        order[r] = i
    if n <= DENSE_BITS:
        keys = np.empty(0, dtype=np.int64)
        values = np.full(1 << n, -1.0)
        values[0] = 0.0
    else:
        keys = np.full(HASHED_SLOTS + 1, -1, dtype=np.int64)  # the last one counts the entries
        values = np.empty(HASHED_SLOTS, dtype=np.float64)
        keys[HASHED_SLOTS] = 0
        _hashed_put(keys, values, 0, 0.0)
    # the search's frames (each deeper one holds an item fewer) and the melds each lists
    longest = 0
    for i in range(n):
        longest = max(longest, start[i + 1] - start[i])
    stack = np.empty((n + 1) * longest + 1, dtype=np.int64)
    frames = np.empty((n + 2, 5), dtype=np.int64)
    bests = np.empty((n + 2, 2), dtype=np.float64)
    return items.copy(), index, start, by_mask, by_cost, tables, order, keys, values, stack, frames, bests


@njit
def build_plan(s: np.ndarray, cfg: np.ndarray, items: np.ndarray, scr: np.ndarray, table: np.ndarray):  # type: ignore[no-untyped-def]
    """``HandPlan(items, per_slot, powers)`` under the slots of state row ``s`` (a :data:`PLAN_TYPE` tuple)."""
    masks, codes = plan_melds(s, cfg, items, scr, table)
    return plan_of(items, masks, codes)


@njit(inline="always")
def _hashed_at(keys: np.ndarray, key: int) -> int:
    """Where ``key`` is in a hashed memo, or the free entry it would take."""
    h = (key ^ (key >> 29)) * -4658895280553007687
    at = (h ^ (h >> 32)) & (HASHED_SLOTS - 1)
    while keys[at] != key and keys[at] != -1:
        at = (at + 1) & (HASHED_SLOTS - 1)
    return at


@njit
def _hashed_put(keys: np.ndarray, values: np.ndarray, mask: int, v: float) -> None:
    """Memoise ``v`` for ``mask`` in a hashed memo (unless three quarters full: then it is searched again when
    asked again, and gives the same value)."""
    at = _hashed_at(keys, mask)
    if keys[at] != mask:
        if 4 * (keys[HASHED_SLOTS] + 1) > 3 * HASHED_SLOTS:
            return
        keys[at] = mask
        keys[HASHED_SLOTS] += 1
    values[at] = v


@njit
def _hashed_get(keys: np.ndarray, values: np.ndarray, mask: int) -> float:
    """The value memoised for ``mask`` in a hashed memo, or -1."""
    at = _hashed_at(keys, mask)
    return values[at] if keys[at] == mask else -1.0


@njit
def evaluate(plan, queries: np.ndarray, nq: int, out: np.ndarray, costs: np.ndarray, best: float) -> float:  # type: ignore[no-untyped-def]
    """``HandPlan.value`` of the masks ``queries[:nq]``, asked one after the other (so the memo fills as it
    does when the Python plan is asked them in this order).

    ``costs`` empty: each value goes to ``out``; returns ``best``. Else, as ``value_with_die`` finishes: from
    ``best`` on, query ``j`` competes with its meld's cost ``costs[j]`` plus its value, asked only when that
    cost plus the rest's bound (:func:`bound`) is below the best so far; returns the best.

    The search is ``HandPlan.value``'s branch and bound, its recursion kept in the plan's frames (per depth:
    mask, branching item, next listed meld, end of the list, waiting for the mask without a stuck item; and
    the best so far, the cost of the meld whose rest is searched deeper). A mask's branching item is the
    first of the plan's order in it; its melds that fit in the mask are listed into the plan's stack without
    a branch (most do not fit, unpredictably) and tried in their order (cheapest share first): one costing
    no less than the best so far is skipped, a rest whose lower bound reaches the best too; else the meld's
    cost plus the rest's value competes. With no meld, the item is stuck (``STUCK_COST``). Everything is
    written out in this one function: a call with arrays costs their reference counts, more than a step."""
    order, start, by_mask, by_cost, tables = plan[P_ORDER], plan[P_START], plan[P_MASKS], plan[P_COSTS], plan[P_TABLES]
    keys, values, stack, frames, bests = plan[P_KEYS], plan[P_VALUES], plan[P_STACK], plan[P_FRAMES], plan[P_BESTS]
    dense = keys.shape[0] == 0
    nt = tables.shape[0]
    pruned = costs.shape[0] > 0
    for j in range(nq):
        mask = queries[j]
        if pruned:
            low = 0.0
            for t in range(nt):
                low += tables[t, (mask >> (8 * t)) & 255]
            if not costs[j] + low < best:
                continue
        v = values[mask] if dense else _hashed_get(keys, values, mask)
        if v < 0.0:
            d = 0
            opening = mask
            top = 0
            while True:
                if opening >= 0:  # a new frame at depth d: its branching item and the melds of it that fit
                    i = 0
                    for q in range(order.shape[0]):
                        i = order[q]
                        if opening >> i & 1:
                            break
                    end = top
                    for e in range(start[i], start[i + 1]):
                        m = by_mask[e]
                        stack[end] = e
                        end += (m & opening) == m
                    frames[d, F_MASK], frames[d, F_ITEM], frames[d, F_NEXT] = opening, i, top
                    frames[d, F_END], frames[d, F_STUCK] = end, 0
                    bests[d, 0] = np.inf
                    opening = -1
                here = frames[d, F_MASK]
                q, end = frames[d, F_NEXT], frames[d, F_END]
                low = bests[d, 0]
                while q < end:
                    e = stack[q]
                    q += 1
                    c = by_cost[e]
                    if c >= low:
                        continue
                    rest = here ^ by_mask[e]
                    w = values[rest] if dense else _hashed_get(keys, values, rest)
                    if w < 0.0:
                        bound = c
                        for t in range(nt):
                            bound += tables[t, (rest >> (8 * t)) & 255]
                        if bound >= low:
                            continue
                        frames[d, F_NEXT], bests[d, 0], bests[d, 1] = q, low, c
                        opening, top = rest, end
                        break
                    w += c
                    if w < low:
                        low = w
                if opening >= 0:
                    d += 1
                    continue
                if low == np.inf and not frames[d, F_STUCK]:
                    rest = here ^ (1 << frames[d, F_ITEM])
                    w = values[rest] if dense else _hashed_get(keys, values, rest)
                    if w < 0.0:
                        frames[d, F_NEXT], frames[d, F_STUCK], bests[d, 0] = q, 1, low
                        opening, top = rest, end
                        d += 1
                        continue
                    low = STUCK_COST + w
                if dense:
                    values[here] = low
                else:
                    _hashed_put(keys, values, here, low)
                if d == 0:
                    v = low
                    break
                d -= 1
                if frames[d, F_STUCK]:
                    bests[d, 0] = STUCK_COST + low
                else:
                    w = low + bests[d, 1]
                    if w < bests[d, 0]:
                        bests[d, 0] = w
        if pruned:
            v = costs[j] + v
            if v < best:
                best = v
        else:
            out[j] = v
    return best


#: ``costs`` of :func:`evaluate` when each value is wanted.
NO_COSTS = np.empty(0, dtype=np.float64)


@njit
def value(plan, mask: int) -> float:  # type: ignore[no-untyped-def]
    """``HandPlan.value``: least total cost of shedding the items of ``mask`` (memoised, branch and bound)."""
    values = plan[P_VALUES]
    if plan[P_KEYS].shape[0] == 0 and values[mask] >= 0.0:
        return values[mask]
    one = np.empty(1, dtype=np.int64)
    one[0] = mask
    out = np.empty(1, dtype=np.float64)
    evaluate(plan, one, 1, out, NO_COSTS, 0.0)
    return out[0]


@njit
def bound(plan, mask: int) -> float:  # type: ignore[no-untyped-def]
    """``HandPlan.bound``: every item of ``mask`` at its cheapest share of a meld."""
    tables = plan[P_TABLES]
    out = 0.0
    for t in range(tables.shape[0]):
        out += tables[t, (mask >> (8 * t)) & 255]
    return out
