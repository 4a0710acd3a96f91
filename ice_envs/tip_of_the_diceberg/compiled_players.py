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
``enumerate_melds``,         :mod:`ice_envs.tip_of_the_diceberg.compiled_plans` (:func:`melds`,
``HandPlan``,                :func:`plan_melds` and :func:`plan_of`, :func:`value` and
``turn_cost_of_slots``       :func:`evaluate`, :data:`TURN_COST`: see there)
``hand`` and its plan cache  :func:`_hand`; the cache (the item sets of the last
                             ``_PLANS_KEPT`` plans, oldest first) lives in the seat's memory row
                             and a cached plan is rebuilt on use, so a smaller hand is searched in
                             the plan of the larger one as there (:func:`_plan_for`)
``value_with_die``           :func:`_with_die`
``_play``/``play_options``   :func:`_h_play` (``round(cost, 9)`` as ``rint(cost * 1e9) / 1e9``)
``_best_die``                :func:`_h_best_die` (draft, take)
``_discard``                 :func:`_h_discard`
``_reroll`` and friends      :func:`_h_reroll` (``reroll_choice``, ``_least_bad_mark``)
random fallback              ``random_act`` (``random_legal``: one ``below(k)``)
===========================  ===================================================================

**heuristic@v2** mirrors :class:`ice_envs.tip_of_the_diceberg.heuristic.DicebergHeuristicV2`: version 1 that
plays unless a pass is ``PLAY_MARGIN`` turns better (:func:`_h_play`'s ``margin``), with its draft
(:func:`_h_draft_v2`, with :func:`_solo_value` for ``solo_value``).

Kept in the seat's memory row between decisions (:data:`HEURISTIC_MEMORY` words), besides the plan cache:

* the meld being composed item by item (:func:`_remember_meld`): with the same hand and taken slots, the
  search would choose it again, so the next items need no search (:func:`_meld_goes_on`);
* the melds of the plan of the seat's latest hand (:data:`MEM_KEPT`): its next decisions rebuild that plan's
  search tables from them instead of listing every slot's melds again (the same plan).

Each decision searches with empty memos (the Python agent keeps its plans' memos between decisions): a memo
filled earlier can only change a value where a bound and a path tie to the last bit, which the parity tests
have not met. A decision's plans, scratch tables and meld buffer are made once per decision
(:func:`_new_work`); the values a play decision asks are listed first and asked in one call, in the Python
order (:func:`compiled_plans.evaluate`: a numba call costs every array argument's reference count).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import List

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
    F_CMIN,
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
    _held_items,
    apply,
)
from ice_envs.tip_of_the_diceberg.compiled_plans import (
    CLEAR_COST,
    NO_COSTS,
    P_INDEX,
    P_ITEMS,
    PLAN_TYPE,
    POWER_CATEGORY,
    TURN_COST,
    entry_of,
    evaluate,
    free_entries,
    grown,
    melds,
    new_entry_table,
    new_scratch,
    plan_melds,
    plan_of,
    popcount,
    value,
)
from ice_envs.tip_of_the_diceberg.heuristic import (
    _PLANS_KEPT as PLANS_KEPT,
)
from ice_envs.tip_of_the_diceberg.heuristic import (
    DRAFT_TOLERANCE,
    EPS,
    PLAY_MARGIN,
    POWER_TURN_COST,
    REROLL_MARGIN,
    STUCK_COST,
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
#: ``heuristic.solo_value``'s saving by power category (clear, discard, other): 1 minus the turn cost.
SOLO_SAVING = np.array(
    [1.0 - POWER_TURN_COST["clear"], 1.0 - POWER_TURN_COST["discard"], 1.0 - POWER_TURN_COST[""]], dtype=np.float64
)
#: Words of the plan cache in the memory row: its length, the next serial, then per plan (oldest first)
#: its cards (bit per id), its dice's values (5 bits per die, dice 0..8 and 9..17) and its serial.
MEM_COUNT, MEM_SERIAL, MEM_PLANS, PLAN_WORDS = 0, 1, 2, 4
#: Then the meld being composed (``_h_play``): set, its cards, its dice (bit per die), its slot, the selection's
#: length when it was chosen, the hand's cards and dice (as a plan's words) and the taken slots then.
MEM_MELD = MEM_PLANS + PLAN_WORDS * PLANS_KEPT
#: Then the plan of the seat's latest hand, kept between decisions so that it is not listed again: its serial
#: plus one (0: none), how many melds it has, then its melds (:func:`compiled_plans.plan_melds`: the mask
#: over the plan's items, and the cost code above bit 32), for a plan of at most :data:`KEPT_MELDS` melds.
MEM_KEPT = MEM_MELD + 9
KEPT_MELDS = 256
HEURISTIC_MEMORY = MEM_KEPT + 2 + KEPT_MELDS


@njit
def _new_work():  # type: ignore[no-untyped-def]
    """The workspace of one decision: the plans built (:data:`compiled_plans.PLAN_TYPE`), the cache serial of
    each, the meld search's scratch table, the meld-entry table and a buffer of melds (in a list: it grows)."""
    return (
        List.empty_list(PLAN_TYPE),
        List.empty_list(types.int64),
        new_scratch(),
        new_entry_table(),
        List([np.empty(64, dtype=np.int64)]),
    )


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
def _plan_for(work, s: np.ndarray, cfg: np.ndarray, memory: np.ndarray, items: np.ndarray, serial: int, keep: bool):  # type: ignore[no-untyped-def]
    """The plan of ``items`` with cache serial ``serial`` (its number in the decision's ``work``): built once
    per decision, from the melds kept in ``memory`` when they are this plan's, else listed; ``keep``: keep
    this plan's melds there (the plan of the seat's hand, asked for again in its next decisions)."""
    plans, serials = work[0], work[1]
    for q in range(len(serials)):
        if serials[q] == serial:
            return q
    if memory[MEM_KEPT] == serial + 1:
        ne = memory[MEM_KEPT + 1]
        masks = np.empty(ne, dtype=np.int64)
        codes = np.empty(ne, dtype=np.int64)
        for e in range(ne):
            word = memory[MEM_KEPT + 2 + e]
            masks[e], codes[e] = word & 0xFFFFFFFF, word >> 32
    else:
        masks, codes = plan_melds(s, cfg, items, work[2], work[3])
        if keep and masks.shape[0] <= KEPT_MELDS:
            memory[MEM_KEPT], memory[MEM_KEPT + 1] = serial + 1, masks.shape[0]
            for e in range(masks.shape[0]):
                memory[MEM_KEPT + 2 + e] = masks[e] | (codes[e] << 32)
    plans.append(plan_of(items, masks, codes))
    serials.append(serial)
    return len(plans) - 1


@njit
def _hand(
    work, s: np.ndarray, cfg: np.ndarray, memory: np.ndarray, items: np.ndarray, keep: bool = True
) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic.hand``: (plan, mask) of ``items``, from the latest cached plan that holds them all,
    else a new plan (cached, the oldest of more than ``PLANS_KEPT`` dropped); ``keep``: the seat's hand (its
    plan's melds are kept in ``memory``, :func:`_plan_for`)."""
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
        p = _plan_for(work, s, cfg, memory, _words_items(pc, plo, phi), memory[at + 3], keep)
        index = work[0][p][P_INDEX]
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
    return _plan_for(work, s, cfg, memory, items, serial, keep), (1 << items.shape[0]) - 1


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
def _value(work, p: int, mask: int) -> float:  # type: ignore[no-untyped-def]
    """``HandPlan.value`` of plan ``p`` of the decision."""
    return value(work[0][p], mask)


@njit
def _with_die(work, s, cfg, memory, p: int, hmask: int, d: int, number: int) -> float:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic.value_with_die``: cost of the hand ``(p, hmask)`` plus die ``d`` showing ``number``."""
    plan = work[0][p]
    pitems, index = plan[P_ITEMS], plan[P_INDEX]
    xid = ITEM_DIE0 + d
    xs = ITEM_SUIT[xid]
    n = popcount(hmask)
    new = np.empty((n + 1, 4), dtype=np.int64)
    q = 0
    twin = False
    placed = False
    for i in range(pitems.shape[0]):
        if not hmask >> i & 1:
            continue
        if pitems[i, 3] and pitems[i, 1] == xs and pitems[i, 2] == number:
            twin = True
        if not placed and pitems[i, 0] > xid:
            new[q, 0], new[q, 1], new[q, 2], new[q, 3] = xid, xs, number, 1
            q += 1
            placed = True
        new[q, 0], new[q, 1], new[q, 2], new[q, 3] = pitems[i, 0], pitems[i, 1], pitems[i, 2], pitems[i, 3]
        q += 1
    if not placed:
        new[q, 0], new[q, 1], new[q, 2], new[q, 3] = xid, xs, number, 1
    if twin:
        p2, m2 = _hand(work, s, cfg, memory, new, False)
        return _value(work, p2, m2)
    must = 0
    for i in range(n + 1):
        if new[i, 0] == xid:
            must = i
    # the new row's melds by mask of the hand's plan: how many clear / discard / other slots take each
    scr, table, found = work[2], work[3], work[4][0]
    masks = np.empty(64, dtype=np.int64)
    counts = np.zeros((64, 3), dtype=np.int64)
    ne = 0
    for k in range(cfg[C_NSLOTS]):
        card = s[SLOT_CARD + k]
        if not _allowed(cfg, card, xs, number):
            continue
        cat = POWER_CATEGORY[cfg[C_POWER + card]]
        found, nf = melds(cfg, card, new, n + 1, must, found, scr)
        for f in range(nf):
            mm = 0
            for i in range(n + 1):
                if found[f] >> i & 1 and i != must:
                    mm |= 1 << index[new[i, 0]]
            masks, ne, e = entry_of(table, masks, ne, mm)
            if ne > counts.shape[0]:
                bigger = np.zeros((2 * counts.shape[0], 3), dtype=np.int64)
                bigger[: ne - 1] = counts[: ne - 1]
                counts = bigger
            counts[e, cat] += 1
    work[4][0] = found
    free_entries(table, masks, ne)
    rests = np.empty(ne, dtype=np.int64)
    costs = np.empty(ne, dtype=np.float64)
    for e in range(ne):
        rests[e] = hmask ^ masks[e]
        costs[e] = TURN_COST[counts[e, 0], counts[e, 1], counts[e, 2]]
    return evaluate(plan, rests, ne, costs, costs, STUCK_COST + value(plan, hmask))


@njit
def _round9(x: float) -> float:
    """``round(x, 9)`` (the sort key of the plays)."""
    return np.rint(x * 1e9) / 1e9


@njit
def _h_play(work, s, cfg, mask, memory, seat: int, margin: float = 0.0) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._play`` with ``play_options``: the best meld consistent with the selection, or a
    pass (with the pool die that helps most) when no play beats it, its cost less ``margin`` (``play_margin``:
    0 in version 1, ``PLAY_MARGIN`` in version 2); -1: nothing (random fallback)."""
    held = _held(s, seat)
    n = held.shape[0]
    sel_len = s[SEL_LEN]
    if sel_len:
        go_on = _meld_goes_on(s, memory, held)
        if go_on >= 0:
            return go_on
    memory[MEM_MELD] = 0
    p, hmask = _hand(work, s, cfg, memory, held)
    plan = work[0][p]
    index, pitems = plan[P_INDEX], plan[P_ITEMS]
    sel_bits = 0
    sel_last = s[SEL_LAST]
    for i in range(n):
        if s[SEL + held[i, 0]]:
            sel_bits |= 1 << i
    # the plays consistent with the selection, and the hands their values are asked of, in the Python order
    scr, found = work[2], work[4][0]
    no = nq = 0
    plays = np.empty((16, 6), dtype=np.int64)  # slot, meld (rows of held), size, flex, category, rest
    queries = np.empty(64, dtype=np.int64)
    for k in range(cfg[C_NSLOTS]):
        if s[SLOT_PLAYER + k] >= 0:
            continue
        card = s[SLOT_CARD + k]
        cat = POWER_CATEGORY[cfg[C_POWER + card]]
        found, flex = melds(cfg, card, held, n, -1, found, scr)
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
            if no == plays.shape[0]:
                more = np.empty((2 * no, 6), dtype=np.int64)
                more[:no] = plays
                plays = more
            plays[no, 0], plays[no, 1], plays[no, 2], plays[no, 3], plays[no, 4], plays[no, 5] = (
                k, meld, size, flex, cat, rest
            )  # fmt: skip
            no += 1
            if rest:
                queries = grown(queries, nq + 1 + pitems.shape[0])
                queries[nq] = rest
                nq += 1
                if cat == 1:
                    for i in range(pitems.shape[0]):
                        if rest >> i & 1 and not pitems[i, 3]:
                            queries[nq] = rest ^ (1 << i)
                            nq += 1
    work[4][0] = found
    values = np.empty(nq, dtype=np.float64)
    evaluate(plan, queries, nq, values, NO_COSTS, 0.0)
    # each play's cost (this turn and the rest), the best first: least cost (to 9 digits), then bigger melds,
    # then the slot hardest to fill, then the lowest slot, then the meld first in item order
    has = False
    b_key = 0.0
    b_len = b_flex = b_k = b_meld = 0
    at = 0
    for o in range(no):
        k, meld, size, flex, cat, rest = plays[o, 0], plays[o, 1], plays[o, 2], plays[o, 3], plays[o, 4], plays[o, 5]
        if not rest:
            cost = 0.0
        else:
            v = values[at]
            at += 1
            if cat == 0:
                cost = CLEAR_COST + v
            elif cat == 1:
                low = v
                for i in range(pitems.shape[0]):
                    if rest >> i & 1 and not pitems[i, 3]:
                        if values[at] < low:
                            low = values[at]
                        at += 1
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
        pass_cost = 1.0 + value(plan, hmask)
        best_play = (b_key if has else np.inf) - margin
        if best_play >= pass_cost - EPS:
            action, best = A_PASS, pass_cost
            for a in range(A_PASS_TAKE, A_PASS_TAKE + ND):
                if mask[a]:
                    d = a - A_PASS_TAKE
                    v = 1.0 + _with_die(work, s, cfg, memory, p, hmask, d, s[DIE_VAL + d])
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
def _h_best_die(work, s, cfg, mask, memory, seat: int, base: int, decline: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._best_die``: the pool die (``base + die``) leaving the cheapest hand; ``decline``
    (-1: none) unless one helps."""
    p, hmask = _hand(work, s, cfg, memory, _held(s, seat))
    action = decline
    best = _value(work, p, hmask) - EPS if decline >= 0 else np.inf
    for d in range(ND):
        if mask[base + d]:
            v = _with_die(work, s, cfg, memory, p, hmask, d, s[DIE_VAL + d])
            if v < best:
                best, action = v, base + d
    return action


@njit
def _h_discard(work, s, cfg, mask, memory, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._discard``: the card whose loss leaves the cheapest hand (if that helps)."""
    p, hmask = _hand(work, s, cfg, memory, _held(s, seat))
    plan = work[0][p]
    pitems = plan[P_ITEMS]
    if mask[A_DECLINE]:
        best, action = value(plan, hmask) - EPS, A_DECLINE
    else:
        best, action = np.inf, -1
    for i in range(pitems.shape[0]):
        if hmask >> i & 1 and not pitems[i, 3]:
            v = value(plan, hmask ^ (1 << i))
            if v < best:
                best, action = v, A_DISCARD + pitems[i, 0]
    return action


@njit
def _reroll_mean(work, s, cfg, memory, p: int, hmask: int, i: int) -> float:  # type: ignore[no-untyped-def]
    """Expected cost of the hand with the die of plan row ``i`` re-rolled."""
    d = work[0][p][P_ITEMS][i, 0] - ITEM_DIE0
    faces = ROLL_HIGH[d] - 1
    total = 0.0
    for v in range(1, faces + 1):
        total += _with_die(work, s, cfg, memory, p, hmask & ~(1 << i), d, v)
    return total / faces


@njit
def _h_reroll(work, s, cfg, mask, memory, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristic._reroll`` with ``reroll_choice`` and ``_least_bad_mark``."""
    p, hmask = _hand(work, s, cfg, memory, _held(s, seat))
    pitems = work[0][p][P_ITEMS]
    now = _value(work, p, hmask)
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
        if _reroll_mean(work, s, cfg, memory, p, hmask, i) < now - REROLL_MARGIN:
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
    p, hmask = _hand(work, s, cfg, memory, _held(s, seat))
    pitems = work[0][p][P_ITEMS]
    best, action = np.inf, -1
    for i in range(pitems.shape[0]):
        d = pitems[i, 0] - ITEM_DIE0
        if not (hmask >> i & 1 and pitems[i, 3]) or not mask[A_MARK + d]:
            continue
        v = _reroll_mean(work, s, cfg, memory, p, hmask, i)
        if v < best:
            best, action = v, A_MARK + d
    return action


@njit
def _solo_value(s: np.ndarray, cfg: np.ndarray, d: int, scr: np.ndarray) -> float:
    """``heuristic.solo_value``: the turn pool die ``d`` saves as a one-item meld on a clear or discard card."""
    xid = ITEM_DIE0 + d
    xs = ITEM_SUIT[xid]
    number = s[DIE_VAL + d]
    item = np.empty((1, 4), dtype=np.int64)
    item[0, 0], item[0, 1], item[0, 2], item[0, 3] = xid, xs, number, 1
    found = np.empty(4, dtype=np.int64)
    best = 0.0
    for k in range(cfg[C_NSLOTS]):
        card = s[SLOT_CARD + k]
        if cfg[C_PATTERN + NF * card + F_CMIN] > 1 or not _allowed(cfg, card, xs, number):
            continue
        found, nf = melds(cfg, card, item, 1, 0, found, scr)
        if nf:
            best = max(best, SOLO_SAVING[POWER_CATEGORY[cfg[C_POWER + card]]])
    return best


@njit
def _h_draft_v2(work, s, cfg, mask, memory, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``DicebergHeuristicV2.draft_pick``: among the dice within ``DRAFT_TOLERANCE`` of the cheapest hand, the
    highest solo value, then the most faces, then the highest number, then the lowest die."""
    p, hmask = _hand(work, s, cfg, memory, _held(s, seat))
    own = np.full(ND, np.inf)
    best_own = np.inf
    for d in range(ND):
        if mask[A_DRAFT + d]:
            own[d] = _with_die(work, s, cfg, memory, p, hmask, d, s[DIE_VAL + d])
            if own[d] < best_own:
                best_own = own[d]
    action = -1
    best_solo, best_faces, best_number = -1.0, -1, -1
    for d in range(ND):
        if not mask[A_DRAFT + d] or not own[d] <= best_own + DRAFT_TOLERANCE:
            continue
        solo, faces, number = _solo_value(s, cfg, d, work[2]), ROLL_HIGH[d] - 1, s[DIE_VAL + d]
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
    """``DicebergHeuristic.act`` (``version`` 1) or ``DicebergHeuristicV2.act`` (2: its play margin and draft)."""
    only = only_legal(mask)
    if only >= 0:
        return only
    seat = s[CURRENT]
    phase = s[PHASE]
    work = _new_work()
    action = -1
    if phase == PLAY:
        action = _h_play(work, s, cfg, mask, memory, seat, PLAY_MARGIN if version == 2 else 0.0)
    elif phase == DRAFT and version == 2:
        action = _h_draft_v2(work, s, cfg, mask, memory, seat)
    elif phase == DRAFT:
        action = _h_best_die(work, s, cfg, mask, memory, seat, A_DRAFT, -1)
    elif phase == TAKE:
        action = _h_best_die(work, s, cfg, mask, memory, seat, A_TAKE, A_DECLINE if mask[A_DECLINE] else -1)
    elif phase == DISCARD:
        action = _h_discard(work, s, cfg, mask, memory, seat)
    elif phase == REROLL:
        action = _h_reroll(work, s, cfg, mask, memory, seat)
    if action < 0 or not mask[action]:
        return random_act(s, cfg, mask, prng, memory)
    return action


@njit
def heuristic_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``DicebergHeuristic.act`` (module docstring); its plan cache is kept in ``memory``."""
    return _heuristic(s, cfg, mask, prng, memory, 1)


@njit
def heuristic_v2_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``DicebergHeuristicV2.act``: version 1 with its play margin (:func:`_h_play`) and draft (:func:`_h_draft_v2`)."""
    return _heuristic(s, cfg, mask, prng, memory, 2)


#: The compiled players of Tip of the Diceberg, by agent spec.
PLAYERS: dict[str, CompiledPlayer] = {
    "greedy": CompiledPlayer("greedy", greedy_act),
    "heuristic": CompiledPlayer("heuristic", heuristic_act, HEURISTIC_MEMORY),
    "heuristic@v2": CompiledPlayer("heuristic@v2", heuristic_v2_act, HEURISTIC_MEMORY),
}
