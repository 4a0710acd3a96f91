"""Tip of the Diceberg's greedy and heuristic players as numba functions on the compiled engine's state row.

**greedy** mirrors :class:`ice_envs.agents.greedy.GreedyAgent` (``samples=4``) with the game's value
``greedy.value`` (:func:`greedy_value`). The agent's generator is consulted for its re-deals and its
seeds only, never for the decision's chance, and this player draws the same numbers from its stream in
the same order:

1. two re-deals of the hidden cards (:func:`_redeal` mirrors ``rules.resample_hidden``: the other
   hands and the undealt cards, sorted, dealt after one ``permutation`` of them, i.e. a Fisher-Yates
   shuffle from the end); when they differ (``same_state``), two more;
2. the four sampling seeds (``integers(0, 2**63, size=4)``: four raw 64-bit draws, skipped).

The value after an action does not depend on its chance: a new deal gives 12 cards and no dice
whatever the cards, re-rolled dice and the re-rolled pool are not counted. It depends on the re-deal
only where a pass ends the trick with nobody having played and an empty pool: whether the round then
ends (``rules.deadlocked``) reads the other hands. So an action's mean value over the re-deals is the
sum of :func:`greedy_value` after the engine's own ``apply`` on each re-deal (on one state, four times,
when nothing is hidden), compared exactly as integers; ties go to the lowest action. A seat with one
legal action takes it without drawing, as the agent does. No position differs.

**heuristic** mirrors :class:`ice_envs.tip_of_the_diceberg.heuristic.DicebergHeuristic` function by
function, with the same floating-point operations in the same order (its decisions compare floats):

===========================  ===================================================================
Python                       here
===========================  ===================================================================
``enumerate_melds``          :func:`_melds` (depth-first on the engine's ``_fits`` / ``_complete``;
                             with ``must``, from that die, as there)
``HandPlan.__init__``        :func:`_build_plan` (melds of every slot, identical dice swapped in
                             every way, per item its melds by share then cost, the 8-bit bound
                             tables, the branching order)
``HandPlan.value``/``bound`` :func:`_value` (the same branch and bound and memo) / :func:`_bound`
``turn_cost_of_slots``       :data:`TURN_COST`, the Python function's floats for every count of
                             clear, discard and other slots
``hand`` and its plan cache  :func:`_hand`; the cache (the item sets of the last
                             ``_PLANS_KEPT`` plans, oldest first) lives in the seat's memory row
                             and a cached plan is rebuilt on use, so a smaller hand is searched in
                             the plan of the larger one as there
``value_with_die``           :func:`_with_die`
``_play``/``play_options``   :func:`_h_play` (``round(cost, 9)`` as ``rint(cost * 1e9) / 1e9``)
``_best_die``                :func:`_h_best_die` (draft, take)
``_discard``                 :func:`_h_discard`
``_reroll`` and friends      :func:`_h_reroll` (``reroll_choice``, ``_least_bad_mark``)
random fallback              ``random_act`` (``random_legal``: one ``below(k)``)
===========================  ===================================================================

**heuristic@v2** mirrors :class:`ice_envs.tip_of_the_diceberg.heuristic.DicebergHeuristicV2`: version 1 with
its draft (:func:`_h_draft_v2`, with :func:`_solo_value` for ``solo_value``).

While a meld is composed item by item, the memory row also keeps the meld chosen
(:func:`_remember_meld`): with the same hand and taken slots, the search would choose it again, so the
next items need no search (:func:`_meld_goes_on`). Each decision builds its plans afresh (the
Python agent keeps them with their memos between decisions): a memo filled earlier can only change a
value where a bound and a path tie to the last bit, which the parity tests have not met.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import types
from numba.typed import Dict, List

from ice_envs.core.compiled import njit, shuffle, uniform
from ice_envs.core.compiled_players import CompiledPlayer, only_legal, random_act
from ice_envs.tip_of_the_diceberg import greedy
from ice_envs.tip_of_the_diceberg.catalog import MAX_SLOTS
from ice_envs.tip_of_the_diceberg.compiled import (
    A_COMMIT,
    A_DECLINE,
    A_DISCARD,
    A_DRAFT,
    A_MARK,
    A_PASS,
    A_PASS_TAKE,
    A_REROLL,
    A_TAKE,
    C_NSLOTS,
    C_PATTERN,
    C_PLAYERS,
    C_POWER,
    CARD_LOC,
    CARD_NUM,
    CURRENT,
    DIE_LOC,
    DIE_VAL,
    DISCARD,
    DRAFT,
    F_CMAX,
    F_CMIN,
    F_DMIN,
    F_SMAX,
    F_SMIN,
    ITEM_DIE0,
    ITEM_SUIT,
    MARK_LAST,
    MARK_LEN,
    MAX_HELD,
    NC,
    ND,
    NF,
    NI,
    OVER,
    PHASE,
    PLAY,
    POINTS,
    REROLL,
    ROLL_HIGH,
    SEL,
    SEL_LAST,
    SEL_LEN,
    SLOT_CARD,
    SLOT_PLAYER,
    TAKE,
    UNDEALT,
    WINNER,
    _allowed,
    _complete,
    _fits,
    _held_items,
    apply,
)
from ice_envs.tip_of_the_diceberg.heuristic import (
    _PLANS_KEPT as PLANS_KEPT,
)
from ice_envs.tip_of_the_diceberg.heuristic import (
    DRAFT_TOLERANCE,
    EPS,
    POWER_TURN_COST,
    REROLL_MARGIN,
    STUCK_COST,
    turn_cost_of_slots,
)
from ice_envs.tip_of_the_diceberg.patterns import MAX_NUMBER, NUM_SUITS

__all__ = ["PLAYERS", "greedy_act", "greedy_value"]

#: The greedy agent's re-deals (and sampling seeds) per decision (``agents.greedy.DEFAULT_SAMPLES``).
SAMPLES = 4
WIN, POINT, ITEM = greedy.WIN, greedy.POINT, greedy.ITEM


@njit
def greedy_value(s: np.ndarray, seat: int) -> int:
    """``greedy.value``: the result of a finished game, else points and the items still held."""
    if s[PHASE] == OVER:
        return WIN if s[WINNER + seat] else -WIN
    held = 0
    for c in range(NC):
        if s[CARD_LOC + c] == seat:
            held += 1
    for d in range(ND):
        if s[DIE_LOC + d] == seat:
            held += 1
    if s[CURRENT] == seat:
        held -= s[SEL_LEN]
    return POINT * s[POINTS + seat] - ITEM * held


@njit
def _redeal(s: np.ndarray, cfg: np.ndarray, seat: int, prng: np.ndarray, out: np.ndarray, order: np.ndarray) -> None:
    """``rules.resample_hidden`` of ``seat`` (the deciding seat: its selection stays) into ``out``."""
    n = cfg[C_PLAYERS]
    out[:] = s
    unseen = np.empty(NC, dtype=np.int64)
    u = 0
    for c in range(NC):
        loc = s[CARD_LOC + c]
        if loc == UNDEALT or (0 <= loc < n and loc != seat):
            unseen[u] = c
            u += 1
    for i in range(u):
        order[i] = i
    shuffle(prng, order, u)
    at = 0
    for p in range(n):
        if p == seat:
            continue
        k = 0
        for c in range(NC):
            if s[CARD_LOC + c] == p:
                k += 1
        for j in range(at, at + k):
            out[CARD_LOC + unseen[order[j]]] = p
        at += k
    for j in range(at, u):
        out[CARD_LOC + unseen[order[j]]] = UNDEALT


@njit
def greedy_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``GreedyAgent.act`` (module docstring)."""
    only = only_legal(mask)
    if only >= 0:
        return only
    seat = s[CURRENT]
    deals = np.empty((SAMPLES, s.shape[0]), dtype=s.dtype)
    order = np.empty(NC, dtype=np.int64)
    _redeal(s, cfg, seat, prng, deals[0], order)
    _redeal(s, cfg, seat, prng, deals[1], order)
    hidden = False
    for c in range(NC):
        if deals[0, CARD_LOC + c] != deals[1, CARD_LOC + c]:
            hidden = True
            break
    if hidden:
        for k in range(2, SAMPLES):
            _redeal(s, cfg, seat, prng, deals[k], order)
    for _ in range(SAMPLES):  # the seeds of sampled chance: the value after an action never reads it
        uniform(prng)
    after = np.empty(s.shape[0], dtype=s.dtype)
    chance = np.zeros(2, dtype=np.uint64)
    best = -1
    best_total = 0
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        total = 0
        for k in range(SAMPLES if hidden else 1):
            after[:] = deals[k]
            apply(after, a, chance, cfg)
            total += greedy_value(after, seat)
        if not hidden:
            total *= SAMPLES
        if best < 0 or total > best_total:
            best, best_total = a, total
    return best


# ============================================================================ heuristic
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
CLEAR_COST = POWER_TURN_COST["clear"]
#: ``heuristic.solo_value``'s saving by power category (clear, discard, other): 1 minus the turn cost.
SOLO_SAVING = np.array(
    [1.0 - POWER_TURN_COST["clear"], 1.0 - POWER_TURN_COST["discard"], 1.0 - POWER_TURN_COST[""]], dtype=np.float64
)
#: ``itertools.combinations(group, r)`` as bitmasks over a group's positions: ``COMBOS[g][r]``, ``COMBO_COUNT[g, r]``.
COMBOS = np.zeros((4, 4, 3), dtype=np.int64)
COMBO_COUNT = np.zeros((4, 4), dtype=np.int64)
for _g in range(1, 4):
    for _r in range(1, _g + 1):
        for _c in combinations(range(_g), _r):
            COMBOS[_g, _r, COMBO_COUNT[_g, _r]] = sum(1 << j for j in _c)
            COMBO_COUNT[_g, _r] += 1
#: Words of the plan cache in the memory row: its length, the next serial, then per plan (oldest first)
#: its cards (bit per id), its dice's values (5 bits per die, dice 0..8 and 9..17) and its serial.
MEM_COUNT, MEM_SERIAL, MEM_PLANS, PLAN_WORDS = 0, 1, 2, 4
#: Then the meld being composed (``_h_play``): set, its cards, its dice (bit per die), its slot, the selection's
#: length when it was chosen, the hand's cards and dice (as a plan's words) and the taken slots then.
MEM_MELD = MEM_PLANS + PLAN_WORDS * PLANS_KEPT
HEURISTIC_MEMORY = MEM_MELD + 9
#: Plan numbers in the memo's keys: ``plan << MEMO_SHIFT | mask``.
MEMO_SHIFT = 40
MEMO_START = 1 << 10

_I1, _I2, _F1, _F2 = types.int64[:], types.int64[:, :], types.float64[:], types.float64[:, :]


@njit
def _popcount(x: int) -> int:
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k


@njit
def _grown(a: np.ndarray, need: int) -> np.ndarray:
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _melds(cfg: np.ndarray, card: int, items: np.ndarray, must: int, out: np.ndarray) -> tuple[np.ndarray, int]:
    """``patterns.enumerate_melds`` of catalog card ``card`` from ``items`` (rows ``id, suit, number, die``
    sorted by id) as bitmasks over the rows, depth-first in item order; ``must >= 0``: only the melds with
    that row (it goes first, as there; it has no identical die among the rows). Identical dice go in row
    order (a die only with the identical dice before it)."""
    pat = C_PATTERN + NF * card
    cmin, cmax = cfg[pat + F_CMIN], cfg[pat + F_CMAX]
    n = items.shape[0]
    cand = np.empty(n, dtype=np.int64)
    m = 0
    for j in range(n):
        if j != must and _allowed(cfg, card, items[j, 1], items[j, 2]):
            cand[m] = j
            m += 1
    count = 0
    if cmax < 1:
        return out, count
    prev = np.full(m, -1, dtype=np.int64)
    for a in range(m):
        ja = cand[a]
        if items[ja, 3]:
            for b in range(a - 1, -1, -1):
                jb = cand[b]
                if items[jb, 3] and items[jb, 1] == items[ja, 1] and items[jb, 2] == items[ja, 2]:
                    prev[a] = b
                    break
    # what the candidates from each one on can still add (the bounds ``enumerate_melds`` prunes by)
    smin, smax, dmin = cfg[pat + F_SMIN], cfg[pat + F_SMAX], cfg[pat + F_DMIN]
    suf_max = np.zeros(m + 1, dtype=np.int64)
    suf_min = np.full(m + 1, 1 << 30, dtype=np.int64)
    suf_dice = np.zeros(m + 1, dtype=np.int64)
    for a in range(m - 1, -1, -1):
        v = items[cand[a], 2]
        suf_max[a] = max(suf_max[a + 1], v)
        suf_min[a] = min(suf_min[a + 1], v)
        suf_dice[a] = suf_dice[a + 1] + items[cand[a], 3]
    chosen = np.zeros(m, dtype=np.bool_)
    # per depth (items chosen): pos, took, total, v0, s0, smask, nmask, lo, hi, nd, bits
    w = np.zeros((cmax + 1, 11), dtype=np.int64)
    d0 = 0
    if must >= 0:
        t, v, dd = items[must, 1], items[must, 2], items[must, 3]
        if not _allowed(cfg, card, t, v) or not _fits(cfg, pat, 0, 0, 0, 0, 0, 0, 0, 0, 0, v, t, dd):
            return out, count
        if _complete(cfg, pat, 1, v, v, v, dd):
            out = _grown(out, 1)
            out[0] = 1 << must
            count = 1
        if cmax == 1:
            return out, count
        d0 = 1
        w[1, 2], w[1, 3], w[1, 4], w[1, 5], w[1, 6] = v, v, t, 1 << t, 1 << v
        w[1, 7], w[1, 8], w[1, 9], w[1, 10] = v, v, dd, 1 << must
    d = d0
    while d >= d0:
        i = w[d, 0]
        if i >= m:
            d -= 1
            if d >= d0:
                chosen[w[d, 1]] = False
            continue
        w[d, 0] = i + 1
        if prev[i] >= 0 and not chosen[prev[i]]:
            continue
        j = cand[i]
        t, v, dd = items[j, 1], items[j, 2], items[j, 3]
        tot, lo, hi, nd = w[d, 2], w[d, 7], w[d, 8], w[d, 9]
        if not _fits(cfg, pat, d, tot, w[d, 3], w[d, 4], w[d, 5], w[d, 6], lo, hi, nd, v, t, dd):
            continue
        c2, t2, nd2 = d + 1, tot + v, nd + dd
        lo2 = lo if (d and lo <= v) else v
        hi2 = hi if (d and hi >= v) else v
        bits = w[d, 10] | (1 << j)
        if _complete(cfg, pat, c2, t2, lo2, hi2, nd2):
            out = _grown(out, count + 1)
            out[count] = bits
            count += 1
        room = cmax - c2
        if (
            room > 0
            and m - (i + 1) >= max(1, cmin - c2)
            and t2 + room * suf_max[i + 1] >= smin
            and nd2 + min(room, suf_dice[i + 1]) >= dmin
            and t2 + suf_min[i + 1] <= smax
        ):
            chosen[i] = True
            w[d, 1] = i
            e = d + 1
            w[e, 0], w[e, 2] = i + 1, t2
            w[e, 3] = w[d, 3] if d else v
            w[e, 4] = w[d, 4] if d else t
            w[e, 5], w[e, 6] = w[d, 5] | (1 << t), w[d, 6] | (1 << v)
            w[e, 7], w[e, 8], w[e, 9], w[e, 10] = lo2, hi2, nd2, bits
            d = e
    return out, count


@njit
def _new_store():  # type: ignore[no-untyped-def]
    """The plans of one decision: items, id -> row, per item its melds (start, masks, costs), bound tables,
    branching order, and one memo for all (``plan << MEMO_SHIFT | mask`` -> value)."""
    return (
        List.empty_list(_I2),
        List.empty_list(_I1),
        List.empty_list(_I1),
        List.empty_list(_I1),
        List.empty_list(_F1),
        List.empty_list(_F2),
        List.empty_list(_I1),
        List([np.full(MEMO_START, -1, dtype=np.int64)]),
        List([np.empty(MEMO_START, dtype=np.float64)]),
        np.zeros(1, dtype=np.int64),
    )


@njit
def _memo_at(keys: np.ndarray, key: int) -> int:
    """Where ``key`` is in the open-addressing table ``keys`` (-1: free), or the free entry it would take."""
    h = (key ^ (key >> 29)) * -4658895280553007687
    at = (h ^ (h >> 32)) & (keys.shape[0] - 1)
    while keys[at] != key and keys[at] != -1:
        at = (at + 1) & (keys.shape[0] - 1)
    return at


@njit
def _memo_put(st, key: int, value: float) -> None:  # type: ignore[no-untyped-def]
    keys, vals = st[7][0], st[8][0]
    if 2 * (st[9][0] + 1) > keys.shape[0]:
        bigger = np.full(2 * keys.shape[0], -1, dtype=np.int64)
        bigger_vals = np.empty(2 * keys.shape[0], dtype=np.float64)
        for j in range(keys.shape[0]):
            if keys[j] != -1:
                at = _memo_at(bigger, keys[j])
                bigger[at] = keys[j]
                bigger_vals[at] = vals[j]
        keys, vals = bigger, bigger_vals
        st[7][0], st[8][0] = keys, vals
    at = _memo_at(keys, key)
    if keys[at] != key:
        keys[at] = key
        st[9][0] += 1
    vals[at] = value


@njit
def _find(table: np.ndarray, masks: np.ndarray, key: int) -> int:
    """Where ``key`` is (or would go) in ``table``: an open-addressing index of ``masks`` (entry or -1)."""
    h = (key ^ (key >> 29)) * -4658895280553007687
    at = (h ^ (h >> 32)) & (table.shape[0] - 1)
    while table[at] != -1 and masks[table[at]] != key:
        at = (at + 1) & (table.shape[0] - 1)
    return at


@njit
def _entry(table: np.ndarray, masks: np.ndarray, ne: int, key: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The entry of ``key`` among the ``ne`` of ``masks``, added if new: (table, masks, ne, entry)."""
    at = _find(table, masks, key)
    if table[at] >= 0:
        return table, masks, ne, table[at]
    masks = _grown(masks, ne + 1)
    masks[ne] = key
    table[at] = ne
    ne += 1
    if 2 * ne > table.shape[0]:
        table = np.full(2 * table.shape[0], -1, dtype=np.int64)
        for e in range(ne):
            table[_find(table, masks, masks[e])] = e
    return table, masks, ne, ne - 1


@njit
def _build_plan(st, s: np.ndarray, cfg: np.ndarray, items: np.ndarray) -> int:  # type: ignore[no-untyped-def]
    """``HandPlan(items, per_slot, powers)`` into the store; returns its number."""
    n = items.shape[0]
    index = np.full(NI, -1, dtype=np.int64)
    for i in range(n):
        index[items[i, 0]] = i
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
    table = np.full(256, -1, dtype=np.int64)
    masks = np.empty(64, dtype=np.int64)
    slots = np.empty(64, dtype=np.int64)
    ne = 0
    found = np.empty(64, dtype=np.int64)
    variants = np.empty(32, dtype=np.int64)
    nvar_new = np.empty(32, dtype=np.int64)
    for k in range(cfg[C_NSLOTS]):
        found, nf = _melds(cfg, s[SLOT_CARD + k], items, -1, found)
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
                        nvar_new = _grown(nvar_new, nn + 1)
                        nvar_new[nn] = mm
                        nn += 1
                variants = _grown(variants, nn)
                variants[:nn] = nvar_new[:nn]
                nv = nn
            for a in range(nv):
                before = ne
                table, masks, ne, e = _entry(table, masks, ne, variants[a])
                if ne > before:
                    slots = _grown(slots, ne)
                    slots[e] = 0
                slots[e] |= 1 << k
    cost = np.empty(ne, dtype=np.float64)
    share = np.empty(ne, dtype=np.float64)
    for e in range(ne):
        cnt = np.zeros(3, dtype=np.int64)
        for k in range(cfg[C_NSLOTS]):
            if slots[e] >> k & 1:
                cnt[POWER_CATEGORY[cfg[C_POWER + s[SLOT_CARD + k]]]] += 1
        cost[e] = TURN_COST[cnt[0], cnt[1], cnt[2]]
        share[e] = cost[e] / _popcount(masks[e])
    # per item its melds, cheapest share first (then cost; ties in insertion order)
    start = np.zeros(n + 1, dtype=np.int64)
    for e in range(ne):
        for i in range(n):
            if masks[e] >> i & 1:
                start[i + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    by_mask = np.empty(start[n], dtype=np.int64)
    by_cost = np.empty(start[n], dtype=np.float64)
    item_share = np.empty(n, dtype=np.float64)
    for i in range(n):
        lst = np.empty(start[i + 1] - start[i], dtype=np.int64)
        q = 0
        for e in range(ne):
            if masks[e] >> i & 1:
                lst[q] = e
                q += 1
        lst = lst[np.argsort(cost[lst], kind="mergesort")]
        lst = lst[np.argsort(share[lst], kind="mergesort")]
        for q in range(lst.shape[0]):
            by_mask[start[i] + q] = masks[lst[q]]
            by_cost[start[i] + q] = cost[lst[q]]
        item_share[i] = share[lst[0]] if lst.shape[0] else STUCK_COST
    nt = (n + 7) // 8
    tables = np.zeros((max(nt, 1), 256), dtype=np.float64)
    for t in range(nt):
        for b in range(256):
            acc = 0.0
            for j in range(8):
                if b >> j & 1 and 8 * t + j < n:
                    acc += item_share[8 * t + j]
            tables[t, b] = acc
    order = np.argsort(start[1:] - start[:-1], kind="mergesort")
    p = len(st[0])
    st[0].append(items.copy())
    st[1].append(index)
    st[2].append(start)
    st[3].append(by_mask)
    st[4].append(by_cost)
    st[5].append(tables)
    st[6].append(order)
    _memo_put(st, p << MEMO_SHIFT, 0.0)
    return p


@njit
def _value(st, p: int, mask: int) -> float:  # type: ignore[no-untyped-def]
    """``HandPlan.value``: least total cost of shedding the items of ``mask`` (memoised, branch and bound)."""
    key = (p << MEMO_SHIFT) | mask
    keys, vals = st[7][0], st[8][0]
    at = _memo_at(keys, key)
    if keys[at] == key:
        return vals[at]
    order = st[6][p]
    i = 0
    for q in range(order.shape[0]):
        i = order[q]
        if mask >> i & 1:
            break
    start, by_mask, by_cost, tables = st[2][p], st[3][p], st[4][p], st[5][p]
    best = np.inf
    for e in range(start[i], start[i + 1]):
        m = by_mask[e]
        c = by_cost[e]
        if m & mask != m or c >= best:
            continue
        rest = mask ^ m
        rkey = (p << MEMO_SHIFT) | rest
        at = _memo_at(keys, rkey)
        if keys[at] == rkey:
            v = vals[at]
        else:
            bound = c
            t = 0
            while rest >> (8 * t):
                bound += tables[t, (rest >> (8 * t)) & 255]
                t += 1
            if bound >= best:
                continue
            v = _value(st, p, rest)
            keys, vals = st[7][0], st[8][0]  # the memo may have grown
        v += c
        if v < best:
            best = v
    if best == np.inf:
        best = STUCK_COST + _value(st, p, mask ^ (1 << i))
    _memo_put(st, key, best)
    return best


@njit
def _bound(st, p: int, mask: int) -> float:  # type: ignore[no-untyped-def]
    """``HandPlan.bound``."""
    tables = st[5][p]
    out = 0.0
    t = 0
    while mask >> (8 * t):
        out += tables[t, (mask >> (8 * t)) & 255]
        t += 1
    return out


@njit
def _plan_words(items: np.ndarray) -> tuple[int, int, int]:
    """An item set as the cache's words: cards, dice 0..8 and dice 9..17 (5 bits of value each)."""
    cards = lo = hi = 0
    for i in range(items.shape[0]):
        it = items[i, 0]
        if it < ITEM_DIE0:
            cards |= 1 << it
        elif it - ITEM_DIE0 < 9:
            lo |= items[i, 2] << (5 * (it - ITEM_DIE0))
        else:
            hi |= items[i, 2] << (5 * (it - ITEM_DIE0 - 9))
    return cards, lo, hi


@njit
def _words_items(cards: int, lo: int, hi: int) -> np.ndarray:
    """The items (sorted by id) of a plan's cache words."""
    out = np.empty((NI, 4), dtype=np.int64)
    n = 0
    for c in range(NC):
        if cards >> c & 1:
            out[n, 0], out[n, 1], out[n, 2], out[n, 3] = c, ITEM_SUIT[c], CARD_NUM[c], 0
            n += 1
    for d in range(ND):
        v = (lo >> (5 * d)) & 31 if d < 9 else (hi >> (5 * (d - 9))) & 31
        if v:
            out[n, 0], out[n, 1], out[n, 2], out[n, 3] = ITEM_DIE0 + d, ITEM_SUIT[ITEM_DIE0 + d], v, 1
            n += 1
    return out[:n].copy()


@njit
def _hand(st, built, s: np.ndarray, cfg: np.ndarray, memory: np.ndarray, items: np.ndarray) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic.hand``: (plan, mask) of ``items``, from the latest cached plan that holds them all,
    else a new plan (cached, the oldest of more than ``PLANS_KEPT`` dropped). ``built``: serial -> plan."""
    cards, lo, hi = _plan_words(items)
    count = memory[MEM_COUNT]
    for j in range(count - 1, -1, -1):
        at = MEM_PLANS + PLAN_WORDS * j
        pc, plo, phi = memory[at], memory[at + 1], memory[at + 2]
        if cards & ~pc:
            continue
        ok = True
        for d in range(ND):
            v = (lo >> (5 * d)) & 31 if d < 9 else (hi >> (5 * (d - 9))) & 31
            if v and v != ((plo >> (5 * d)) & 31 if d < 9 else (phi >> (5 * (d - 9))) & 31):
                ok = False
                break
        if not ok:
            continue
        serial = memory[at + 3]
        p = built[serial] if serial in built else -1
        if p < 0:
            p = _build_plan(st, s, cfg, _words_items(pc, plo, phi))
            built[serial] = p
        index = st[1][p]
        mask = 0
        for i in range(items.shape[0]):
            mask |= 1 << index[items[i, 0]]
        return p, mask
    if count == PLANS_KEPT:
        for w in range(MEM_PLANS, MEM_PLANS + PLAN_WORDS * (PLANS_KEPT - 1)):
            memory[w] = memory[w + PLAN_WORDS]
        count -= 1
    at = MEM_PLANS + PLAN_WORDS * count
    serial = memory[MEM_SERIAL]
    memory[at], memory[at + 1], memory[at + 2], memory[at + 3] = cards, lo, hi, serial
    memory[MEM_SERIAL] = serial + 1
    memory[MEM_COUNT] = count + 1
    p = _build_plan(st, s, cfg, items)
    built[serial] = p
    return p, (1 << items.shape[0]) - 1


@njit
def _held(s: np.ndarray, seat: int) -> np.ndarray:
    """``rules.items_of``: rows ``id, suit, number, die`` sorted by id."""
    buf = np.empty((4, MAX_HELD), dtype=np.int64)
    n = _held_items(s, seat, buf[0], buf[1], buf[2], buf[3])
    out = np.empty((n, 4), dtype=np.int64)
    for i in range(n):
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = buf[0, i], buf[1, i], buf[2, i], buf[3, i]
    return out


@njit
def _with_die(st, built, s, cfg, memory, p: int, hmask: int, d: int, value: int) -> float:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic.value_with_die``: cost of the hand ``(p, hmask)`` plus die ``d`` showing ``value``."""
    pitems = st[0][p]
    index = st[1][p]
    xid = ITEM_DIE0 + d
    xs = ITEM_SUIT[xid]
    n = _popcount(hmask)
    new = np.empty((n + 1, 4), dtype=np.int64)
    q = 0
    twin = False
    placed = False
    for i in range(pitems.shape[0]):
        if not hmask >> i & 1:
            continue
        if pitems[i, 3] and pitems[i, 1] == xs and pitems[i, 2] == value:
            twin = True
        if not placed and pitems[i, 0] > xid:
            new[q, 0], new[q, 1], new[q, 2], new[q, 3] = xid, xs, value, 1
            q += 1
            placed = True
        new[q, :] = pitems[i, :]
        q += 1
    if not placed:
        new[q, 0], new[q, 1], new[q, 2], new[q, 3] = xid, xs, value, 1
    if twin:
        p2, m2 = _hand(st, built, s, cfg, memory, new)
        return _value(st, p2, m2)
    must = 0
    for i in range(n + 1):
        if new[i, 0] == xid:
            must = i
    # the new row's melds by mask of the hand's plan: how many clear / discard / other slots take each
    table = np.full(256, -1, dtype=np.int64)
    masks = np.empty(64, dtype=np.int64)
    counts = np.zeros((64, 3), dtype=np.int64)
    ne = 0
    found = np.empty(64, dtype=np.int64)
    for k in range(cfg[C_NSLOTS]):
        card = s[SLOT_CARD + k]
        if not _allowed(cfg, card, xs, value):
            continue
        cat = POWER_CATEGORY[cfg[C_POWER + card]]
        found, nf = _melds(cfg, card, new, must, found)
        for f in range(nf):
            mm = 0
            for i in range(n + 1):
                if found[f] >> i & 1 and i != must:
                    mm |= 1 << index[new[i, 0]]
            table, masks, ne, e = _entry(table, masks, ne, mm)
            if ne > counts.shape[0]:
                bigger = np.zeros((2 * counts.shape[0], 3), dtype=np.int64)
                bigger[: ne - 1] = counts[: ne - 1]
                counts = bigger
            counts[e, cat] += 1
    best = STUCK_COST + _value(st, p, hmask)
    for e in range(ne):
        c = TURN_COST[counts[e, 0], counts[e, 1], counts[e, 2]]
        rest = hmask ^ masks[e]
        if c + _bound(st, p, rest) < best:
            v = c + _value(st, p, rest)
            if v < best:
                best = v
    return best


@njit
def _round9(x: float) -> float:
    """``round(x, 9)`` (the sort key of the plays)."""
    return np.rint(x * 1e9) / 1e9


@njit
def _h_play(st, built, s, cfg, mask, memory, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._play`` with ``play_options``: the best meld consistent with the selection, or a
    pass (with the pool die that helps most) when no play beats it; -1: nothing (random fallback)."""
    held = _held(s, seat)
    n = held.shape[0]
    sel_len = s[SEL_LEN]
    if sel_len:
        go_on = _meld_goes_on(s, memory, held)
        if go_on >= 0:
            return go_on
    memory[MEM_MELD] = 0
    p, hmask = _hand(st, built, s, cfg, memory, held)
    index = st[1][p]
    pitems = st[0][p]
    sel_bits = 0
    sel_last = s[SEL_LAST]
    for i in range(n):
        if s[SEL + held[i, 0]]:
            sel_bits |= 1 << i
    has = False
    b_key = 0.0
    b_len = b_flex = b_k = b_meld = 0
    found = np.empty(64, dtype=np.int64)
    for k in range(cfg[C_NSLOTS]):
        if s[SLOT_PLAYER + k] >= 0:
            continue
        card = s[SLOT_CARD + k]
        cat = POWER_CATEGORY[cfg[C_POWER + card]]
        found, flex = _melds(cfg, card, held, -1, found)
        for f in range(flex):
            meld = found[f]
            if meld & sel_bits != sel_bits:
                continue
            ok = True
            for i in range(n):
                if meld >> i & 1 and not sel_bits >> i & 1 and held[i, 0] < sel_last:
                    ok = False
                    break
            if not ok:
                continue
            pm = 0
            size = 0
            for i in range(n):
                if meld >> i & 1:
                    pm |= 1 << index[held[i, 0]]
                    size += 1
            rest = hmask ^ pm
            if not rest:
                cost = 0.0
            else:
                v = _value(st, p, rest)
                if cat == 0:
                    cost = CLEAR_COST + v
                elif cat == 1:
                    low = v
                    for i in range(pitems.shape[0]):
                        if rest >> i & 1 and not pitems[i, 3]:
                            w = _value(st, p, rest ^ (1 << i))
                            if w < low:
                                low = w
                    cost = 1.0 + low
                else:
                    cost = 1.0 + v
            key = _round9(cost)
            better = not has
            if has:
                if key != b_key:
                    better = key < b_key
                elif size != b_len:
                    better = size > b_len
                elif flex != b_flex:
                    better = flex < b_flex
                elif k != b_k:
                    better = k < b_k
                else:
                    diff = meld ^ b_meld
                    better = (meld & diff & -diff) != 0
            if better:
                has = True
                b_key, b_len, b_flex, b_k, b_meld = key, size, flex, k, meld
    if not sel_len:
        pass_cost = 1.0 + _value(st, p, hmask)
        best_play = b_key if has else np.inf
        if best_play >= pass_cost - EPS:
            action, best = A_PASS, pass_cost
            for a in range(A_PASS_TAKE, A_PASS_TAKE + ND):
                if mask[a]:
                    d = a - A_PASS_TAKE
                    v = 1.0 + _with_die(st, built, s, cfg, memory, p, hmask, d, s[DIE_VAL + d])
                    if v < best - EPS:
                        best, action = v, a
            if best < best_play - EPS:
                return action
    if not has:
        return -1
    if b_len == sel_len:
        return A_COMMIT + b_k
    for i in range(n):
        if b_meld >> i & 1 and not sel_bits >> i & 1:
            _remember_meld(s, cfg, memory, held, b_meld, b_k)
            return held[i, 0]
    return -1


@njit
def _hand_words(s: np.ndarray, cfg: np.ndarray, held: np.ndarray) -> tuple[int, int, int, int]:
    """The hand's words (as a plan's) and the taken slots as bits."""
    cards, lo, hi = _plan_words(held)
    taken = 0
    for k in range(cfg[C_NSLOTS]):
        if s[SLOT_PLAYER + k] >= 0:
            taken |= 1 << k
    return cards, lo, hi, taken


@njit
def _remember_meld(s: np.ndarray, cfg: np.ndarray, memory: np.ndarray, held: np.ndarray, meld: int, k: int) -> None:
    """Keep the meld being composed (rows of ``held``) for the next decisions of the composition."""
    cards = dice = 0
    for i in range(held.shape[0]):
        if meld >> i & 1:
            if held[i, 3]:
                dice |= 1 << (held[i, 0] - ITEM_DIE0)
            else:
                cards |= 1 << held[i, 0]
    hc, hlo, hhi, taken = _hand_words(s, cfg, held)
    at = MEM_MELD
    memory[at], memory[at + 1], memory[at + 2], memory[at + 3], memory[at + 4] = 1, cards, dice, k, s[SEL_LEN]
    memory[at + 5], memory[at + 6], memory[at + 7], memory[at + 8] = hc, hlo, hhi, taken


@njit
def _meld_goes_on(s: np.ndarray, memory: np.ndarray, held: np.ndarray) -> int:
    """The next action of the meld kept by :func:`_remember_meld` (its next item, or its commit), or -1.

    While a meld is composed nothing but the selection changes: the plays are ranked as before and the
    kept meld, the best of those that start with a shorter selection, is the best of those that start with
    this one. So when the hand and the taken slots are as then and the selection (no shorter than then)
    starts the meld, the full search would choose the meld again (with the same plan cache: looking a
    plan up changes nothing)."""
    at = MEM_MELD
    if not memory[at] or s[SEL_LEN] < memory[at + 4]:
        return -1
    taken = 0
    for k in range(MAX_SLOTS):
        if s[SLOT_PLAYER + k] >= 0:
            taken |= 1 << k
    cards, lo, hi = _plan_words(held)
    if (cards, lo, hi, taken) != (memory[at + 5], memory[at + 6], memory[at + 7], memory[at + 8]):
        return -1
    size = 0
    nxt = -1
    for i in range(held.shape[0]):
        it = held[i, 0]
        inside = (memory[at + 2] >> (it - ITEM_DIE0)) & 1 if held[i, 3] else (memory[at + 1] >> it) & 1
        if inside:
            size += 1
            if not s[SEL + it] and nxt < 0:
                nxt = it
        elif s[SEL + it]:
            return -1  # the selection is not in the meld
        if inside and s[SEL + it] and nxt >= 0:
            return -1  # a selected item after an unselected one: not a start of the meld
    if nxt < 0:
        return A_COMMIT + memory[at + 3]
    return nxt


@njit
def _h_best_die(st, built, s, cfg, mask, memory, seat: int, base: int, decline: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._best_die``: the pool die (``base + die``) leaving the cheapest hand; ``decline``
    (-1: none) unless one helps."""
    p, hmask = _hand(st, built, s, cfg, memory, _held(s, seat))
    action = decline
    best = _value(st, p, hmask) - EPS if decline >= 0 else np.inf
    for d in range(ND):
        if mask[base + d]:
            v = _with_die(st, built, s, cfg, memory, p, hmask, d, s[DIE_VAL + d])
            if v < best:
                best, action = v, base + d
    return action


@njit
def _h_discard(st, built, s, cfg, mask, memory, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._discard``: the card whose loss leaves the cheapest hand (if that helps)."""
    p, hmask = _hand(st, built, s, cfg, memory, _held(s, seat))
    pitems = st[0][p]
    if mask[A_DECLINE]:
        best, action = _value(st, p, hmask) - EPS, A_DECLINE
    else:
        best, action = np.inf, -1
    for i in range(pitems.shape[0]):
        if hmask >> i & 1 and not pitems[i, 3]:
            v = _value(st, p, hmask ^ (1 << i))
            if v < best:
                best, action = v, A_DISCARD + pitems[i, 0]
    return action


@njit
def _reroll_mean(st, built, s, cfg, memory, p: int, hmask: int, i: int) -> float:  # type: ignore[no-untyped-def]
    """Expected cost of the hand with the die of plan row ``i`` re-rolled."""
    d = st[0][p][i, 0] - ITEM_DIE0
    faces = ROLL_HIGH[d] - 1
    total = 0.0
    for v in range(1, faces + 1):
        total += _with_die(st, built, s, cfg, memory, p, hmask & ~(1 << i), d, v)
    return total / faces


@njit
def _h_reroll(st, built, s, cfg, mask, memory, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._reroll`` with ``reroll_choice`` and ``_least_bad_mark``."""
    p, hmask = _hand(st, built, s, cfg, memory, _held(s, seat))
    pitems = st[0][p]
    now = _value(st, p, hmask)
    chosen = np.full(ND, -1, dtype=np.int64)
    nc = 0
    seen = np.zeros(NUM_SUITS * (MAX_NUMBER + 1), dtype=np.bool_)  # (suit, number) of the dice judged
    for i in range(pitems.shape[0]):
        if not (hmask >> i & 1 and pitems[i, 3]):
            continue
        key = pitems[i, 1] * (MAX_NUMBER + 1) + pitems[i, 2]
        if seen[key]:
            continue
        seen[key] = True
        if _reroll_mean(st, built, s, cfg, memory, p, hmask, i) < now - REROLL_MARGIN:
            chosen[nc] = pitems[i, 0] - ITEM_DIE0
            nc += 1
    last = s[MARK_LAST] if s[MARK_LEN] else -1
    for j in range(nc):
        d = chosen[j]
        if d > last and mask[A_MARK + d]:
            return A_MARK + d
    if s[MARK_LEN]:
        return A_REROLL
    if mask[A_DECLINE]:
        return A_DECLINE
    p, hmask = _hand(st, built, s, cfg, memory, _held(s, seat))
    pitems = st[0][p]
    best, action = np.inf, -1
    for i in range(pitems.shape[0]):
        d = pitems[i, 0] - ITEM_DIE0
        if not (hmask >> i & 1 and pitems[i, 3]) or not mask[A_MARK + d]:
            continue
        v = _reroll_mean(st, built, s, cfg, memory, p, hmask, i)
        if v < best:
            best, action = v, A_MARK + d
    return action


@njit
def _solo_value(s: np.ndarray, cfg: np.ndarray, d: int) -> float:
    """``heuristic.solo_value``: the turn pool die ``d`` saves as a one-item meld on a clear or discard card."""
    xid = ITEM_DIE0 + d
    xs = ITEM_SUIT[xid]
    value = s[DIE_VAL + d]
    item = np.empty((1, 4), dtype=np.int64)
    item[0, 0], item[0, 1], item[0, 2], item[0, 3] = xid, xs, value, 1
    found = np.empty(4, dtype=np.int64)
    best = 0.0
    for k in range(cfg[C_NSLOTS]):
        card = s[SLOT_CARD + k]
        if cfg[C_PATTERN + NF * card + F_CMIN] > 1 or not _allowed(cfg, card, xs, value):
            continue
        found, nf = _melds(cfg, card, item, 0, found)
        if nf:
            best = max(best, SOLO_SAVING[POWER_CATEGORY[cfg[C_POWER + card]]])
    return best


@njit
def _h_draft_v2(st, built, s, cfg, mask, memory, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristicV2.draft_pick``: among the dice within ``DRAFT_TOLERANCE`` of the cheapest hand, the
    highest solo value, then the most faces, then the highest number, then the lowest die."""
    p, hmask = _hand(st, built, s, cfg, memory, _held(s, seat))
    own = np.full(ND, np.inf)
    best_own = np.inf
    for d in range(ND):
        if mask[A_DRAFT + d]:
            own[d] = _with_die(st, built, s, cfg, memory, p, hmask, d, s[DIE_VAL + d])
            if own[d] < best_own:
                best_own = own[d]
    action = -1
    best_solo, best_faces, best_number = -1.0, -1, -1
    for d in range(ND):
        if not mask[A_DRAFT + d] or not own[d] <= best_own + DRAFT_TOLERANCE:
            continue
        solo, faces, number = _solo_value(s, cfg, d), ROLL_HIGH[d] - 1, s[DIE_VAL + d]
        better = solo > best_solo or (
            solo == best_solo and (faces > best_faces or (faces == best_faces and number > best_number))
        )
        if action < 0 or better:
            action = A_DRAFT + d
            best_solo, best_faces, best_number = solo, faces, number
    return action


@njit
def _heuristic(
    s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray, version: int
) -> int:
    """``DicebergHeuristic.act`` (``version`` 1) or ``DicebergHeuristicV2.act`` (2: its draft)."""
    only = only_legal(mask)
    if only >= 0:
        return only
    seat = s[CURRENT]
    phase = s[PHASE]
    st = _new_store()
    built = Dict.empty(key_type=types.int64, value_type=types.int64)
    action = -1
    if phase == PLAY:
        action = _h_play(st, built, s, cfg, mask, memory, seat)
    elif phase == DRAFT and version == 2:
        action = _h_draft_v2(st, built, s, cfg, mask, memory, seat)
    elif phase == DRAFT:
        action = _h_best_die(st, built, s, cfg, mask, memory, seat, A_DRAFT, -1)
    elif phase == TAKE:
        action = _h_best_die(st, built, s, cfg, mask, memory, seat, A_TAKE, A_DECLINE if mask[A_DECLINE] else -1)
    elif phase == DISCARD:
        action = _h_discard(st, built, s, cfg, mask, memory, seat)
    elif phase == REROLL:
        action = _h_reroll(st, built, s, cfg, mask, memory, seat)
    if action < 0 or not mask[action]:
        return random_act(s, cfg, mask, prng, memory)
    return action


@njit
def heuristic_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``DicebergHeuristic.act`` (module docstring); its plan cache is kept in ``memory``."""
    return _heuristic(s, cfg, mask, prng, memory, 1)


@njit
def heuristic_v2_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``DicebergHeuristicV2.act``: version 1 with its draft (:func:`_h_draft_v2`)."""
    return _heuristic(s, cfg, mask, prng, memory, 2)


#: The compiled players of Tip of the Diceberg, by agent spec.
PLAYERS: dict[str, CompiledPlayer] = {
    "greedy": CompiledPlayer("greedy", greedy_act),
    "heuristic": CompiledPlayer("heuristic", heuristic_act, HEURISTIC_MEMORY),
    "heuristic@v2": CompiledPlayer("heuristic@v2", heuristic_v2_act, HEURISTIC_MEMORY),
}
