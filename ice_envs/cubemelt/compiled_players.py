"""CubeMelt's greedy and heuristic players, compiled: the same decisions as the Python players, on the state row.

Everything in CubeMelt is public, so both read the compiled engine's row (:mod:`ice_envs.cubemelt.compiled`)
as it is, and play out what they look ahead on with the engine's own kernels (``apply``, ``_plan``) on a
scratch copy of the row.

**heuristic** mirrors :class:`~ice_envs.cubemelt.heuristic.CubeMeltHeuristic` function by function:
:func:`_reroll_action` (``reroll_action``, with ``_levels`` and ``_best_over_keeps``),
:func:`_choice_action` (``choice_action``: the engine's ``apply`` of Love and of Adventure on a scratch
row; what that draws is the next turn's first roll, which the value does not read, so the scratch stream
is arbitrary), :func:`_ninja_action` (``ninja_action``), :func:`_terminal_values` (``terminal_values``
and ``_plan_values``: the face counts' plans from the engine's ``_plan``, the Knight, the Cat, the Dragon,
the Unicorn; the plans depend only on the config, the active seat and the Ninja flag, so the seat's memory
row keeps them (:func:`_kept_plans`), and a count whose plans equal an earlier count's takes its value,
:func:`_same_plans`) and :func:`_values` (``values``: the softmaxes, the race-or-melt weighting, the finished games).
The tables ``COUNTS``, ``KEEPS`` and ``KEEP_OK`` are the heuristic's. The look-ahead over re-rolls is the
heuristic's integer arithmetic: values in quanta (``int64``), the transition as whole numbers of the ``F**r``
outcomes of a re-roll (``heuristic.transition_weights``, whole numbers held as float64; precomputed for the
faces of the built-in variants, computed per decision for other faces) and each expectation rounded to the
nearest quantum, a tie to the even one (:func:`_expectations`, ``heuristic.expectations``: ``np.dot`` adds whole
numbers below ``2**53``, so no rounding and no summation order enters it). The position values are rounded to ``VALUE_QUANTUM`` where the Python heuristic rounds them. ``exp`` is libm's
here and numpy's SIMD one there: they may differ in the last bit, which changes a decision only if a value
falls within that bit of a rounding boundary of the quantum (about one value in ``2**30``).

**greedy** mirrors ``agents/greedy.py``'s ``GreedyAgent`` on CubeMelt's value (:func:`ice_envs.cubemelt.greedy.value`,
:func:`_greedy_value` here) through the game's ``expected_values`` hook, which takes every action exactly:
a re-roll over the face counts its dice can show, each played through the engine's ``apply`` once with the
first draw forced to the hook's code (:func:`_forced_stream` sets a scratch stream whose first ``below``
is that code; the draws after it are the next turn's roll, which the value does not read), any other
action played once. The values times ``F**6`` (``F`` faces) are compared exactly, ties to the lowest
action. Nothing is hidden, so the agent's re-deals are copies that draw nothing; it draws only its four
sampling seeds (one 64-bit draw each) whenever more than one action is legal, and so does this player.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np

from ice_envs.core.compiled import njit, uniform
from ice_envs.core.compiled_players import CompiledPlayer, only_legal, random_act
from ice_envs.cubemelt import greedy, heuristic, rules
from ice_envs.cubemelt.compiled import (
    ABILITIES,
    ACTIVE,
    ADVENTURE,
    C_CAT_ACTUAL,
    C_EXPANSION,
    C_FACES,
    C_NUM_FACES,
    C_PAID,
    C_PER_NEIGHBOUR,
    C_PLAYERS,
    CAT,
    CHOOSE,
    DECIDER,
    DICE,
    DRAGON,
    GOAL,
    KNIGHT,
    LOVE,
    MAX_SEATS,
    MELT,
    ND,
    NINJA,
    NINJA_APPLIED,
    NINJA_PHASE,
    OVER,
    PENDING,
    PHASE,
    PLAN,
    REROLL,
    REROLLS,
    START_MELT,
    UNICORN,
    WINNERS,
    _neighbours,
    _plan,
    apply,
)

__all__ = ["GREEDY_SAMPLES", "PLAYERS"]

#: Sampling seeds the greedy agent draws per decision (``agents.greedy.DEFAULT_SAMPLES``).
GREEDY_SAMPLES = 4
KINDS = rules.NUM_KINDS
COUNTS = np.array(heuristic.COUNTS, dtype=np.int64)
KEEPS = np.array(heuristic.KEEPS, dtype=np.int64)
KEEP_OK = heuristic._KEEP_OK.astype(np.int8)
N_COUNTS, N_KEEPS = COUNTS.shape[0], KEEPS.shape[0]
#: ``OK_KEEPS[OK_START[c]:OK_START[c + 1]]``: the keeps ``KEEP_OK`` allows from count ``c``, ascending.
OK_START = np.concatenate([[0], np.cumsum(KEEP_OK.sum(axis=1))]).astype(np.int64)
OK_KEEPS = np.concatenate([np.flatnonzero(row) for row in KEEP_OK]).astype(np.int64)
#: ``EVERY_KIND[c]``: face count ``c`` shows every kind (the Unicorn's condition).
EVERY_KIND = (COUNTS > 0).all(axis=1).astype(np.int64)
#: Entries of :func:`_same_plans`' hash table (a power of two above twice the 84 counts).
PLAN_TABLE_BITS = 8
PLAN_TABLE = 1 << PLAN_TABLE_BITS
#: ``COUNT_INDEX[code]``: the row of ``COUNTS`` of the face counts ``sum(c[k] * 7**k)`` (-1: not six dice).
COUNT_INDEX = np.full(7**KINDS, -1, dtype=np.int64)
for _i, _c in enumerate(heuristic.COUNTS):
    COUNT_INDEX[sum(c * 7**k for k, c in enumerate(_c))] = _i
#: The heuristic's weights (class attributes of ``CubeMeltHeuristic``).
H = heuristic.CubeMeltHeuristic
BETA_RACE, BETA_MIN, GAMMA_MELT = H.beta_race, H.beta_min, H.gamma_melt
RACE_RATE, MELT_RATE, KAPPA, MELT_COST, SHARED_WIN = H.race_rate, H.melt_rate, H.kappa, H.melt_cost, H.shared_win
QUANTUM_SCALE = 1.0 / heuristic.VALUE_QUANTUM
MAX_LOOKAHEAD = heuristic._MAX_LOOKAHEAD
MAX_LEVELS = MAX_LOOKAHEAD + 1
WIN = greedy.WIN
STOP, CHOOSE_LOVE, CHOOSE_ADVENTURE = rules.STOP, rules.CHOOSE_LOVE, rules.CHOOSE_ADVENTURE
NINJA_APPLY, NINJA_DECLINE, NUM_SUBSETS = rules.NINJA_APPLY, rules.NINJA_DECLINE, rules.NUM_SUBSETS
#: Terminal values asked for: the best of applying the Ninja or not (re-rolls), applied, declined.
BEST, APPLY, DECLINE = 0, 1, 2


# ---------------------------------------------------------------------------- the transition, sparse
def _compositions(r: int) -> list[tuple[int, ...]]:
    """Every face count of ``r`` dice, in ``itertools.product`` order (as ``heuristic.transition_weights`` visits them)."""
    return [c for c in product(range(r + 1), repeat=KINDS) if sum(c) == r]


def _transition_layout() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(start, final, roll, dice)``: entries ``start[k]:start[k + 1]`` are keep ``k``'s re-rolls ``roll``
    (face counts of the ``dice`` re-rolled dice), in ascending order of the ``final`` counts they reach."""
    starts, finals, rolls, dice = [0], [], [], []
    index = {c: i for i, c in enumerate(heuristic.COUNTS)}
    for keep in heuristic.KEEPS:
        r = ND - sum(keep)
        reached = sorted(
            (index[tuple(k + x for k, x in zip(keep, roll, strict=True))], roll) for roll in _compositions(r)
        )
        for final, roll in reached:
            finals.append(final)
            rolls.append(roll)
            dice.append(r)
        starts.append(len(finals))
    return (
        np.array(starts, dtype=np.int64),
        np.array(finals, dtype=np.int64),
        np.array(rolls, dtype=np.int64),
        np.array(dice, dtype=np.int64),
    )


T_START, T_FINAL, T_ROLL, T_DICE = _transition_layout()
FACTORIAL = np.array([math.factorial(k) for k in range(ND + 1)], dtype=np.int64)
#: ``T_WAYS[e]``: the orders of entry ``e``'s re-rolled dice, ``r! / prod(x!)``.
T_WAYS = np.array(
    [math.factorial(int(r)) // math.prod(math.factorial(int(x)) for x in roll) for roll, r in zip(T_ROLL, T_DICE)],
    dtype=np.int64,
)
#: ``KEEP_DICE[k]``: the dice keep ``k`` re-rolls.
KEEP_DICE = np.array([ND - sum(keep) for keep in heuristic.KEEPS], dtype=np.int64)


@njit
def _transition_of(kind_faces: np.ndarray, num_faces: int) -> tuple[np.ndarray, np.ndarray]:
    """``heuristic.transition_weights``: ``(weights, outcomes)``, ``weights[k, c]`` the rolls that end on count ``c``
    among the ``outcomes[k] = num_faces ** r`` of keep ``k`` (``kind_faces[j]``: the faces of kind ``j``). The
    weights are whole numbers held as float64 (exact, below ``12**6``), for :func:`_expectations`' ``np.dot``."""
    weights = np.zeros((N_KEEPS, N_COUNTS))
    outcomes = np.empty(N_KEEPS, dtype=np.int64)
    for keep in range(N_KEEPS):
        outcomes[keep] = num_faces ** KEEP_DICE[keep]
        for e in range(T_START[keep], T_START[keep + 1]):
            w = T_WAYS[e]
            for k in range(KINDS):
                w *= kind_faces[k] ** T_ROLL[e, k]
            weights[keep, T_FINAL[e]] += w
    return weights, outcomes


def _faces_key(faces: tuple[int, ...]) -> int:
    kinds = [faces.count(k) for k in range(KINDS)]
    return len(faces) * 13**KINDS + sum(c * 13**k for k, c in enumerate(kinds))


def _precomputed() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The transitions of the faces of the built-in variants (keys by :func:`_faces_key`)."""
    from ice_envs.cubemelt.spec import SPEC

    found = {tuple(rules.DEFAULT_FACES)}
    for variant in SPEC.variants.values():
        if "faces" in variant.options:
            found.add(tuple(variant.options["faces"]))
    keys, weights, outcomes = [], [], []
    for names in sorted(found):
        faces = tuple(rules.FACE_NAMES.index(f) for f in names)
        kinds = np.array([faces.count(k) for k in range(KINDS)], dtype=np.int64)
        keys.append(_faces_key(faces))
        w, o = _transition_of(kinds, len(faces))
        weights.append(w)
        outcomes.append(o)
    return np.array(keys, dtype=np.int64), np.stack(weights), np.stack(outcomes)


TRANS_KEYS, TRANS_WEIGHTS, TRANS_OUTCOMES = _precomputed()


@njit
def _transition(cfg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The transition of the config's faces (precomputed for the built-in variants, else computed now)."""
    nf = cfg[C_NUM_FACES]
    kinds = np.zeros(KINDS, dtype=np.int64)
    for i in range(nf):
        kinds[cfg[C_FACES + i]] += 1
    key = nf * 13**KINDS
    for k in range(KINDS):
        key += kinds[k] * 13**k
    for t in range(TRANS_KEYS.shape[0]):
        if TRANS_KEYS[t] == key:
            return TRANS_WEIGHTS[t], TRANS_OUTCOMES[t]
    return _transition_of(kinds, nf)


@njit
def _quantised(x: float) -> float:
    """``heuristic.quantised``: the nearest multiple of ``VALUE_QUANTUM``, ties to even."""
    return np.rint(x * QUANTUM_SCALE) / QUANTUM_SCALE


@njit
def _expectations(
    weights: np.ndarray, outcomes: np.ndarray, values: np.ndarray, scratch: np.ndarray, out: np.ndarray
) -> None:
    """``heuristic.expectations``: each keep's ``sum(w * V) / F**r`` rounded to the nearest quantum, a tie to the
    even one (``values`` and ``out`` in quanta, int64; ``scratch``: ``N_COUNTS`` floats). ``np.dot`` (BLAS) adds
    whole numbers within ``2**42`` of zero, exactly in any order (the heuristic's bound)."""
    for c in range(N_COUNTS):
        scratch[c] = values[c]
    sums = np.dot(weights, scratch)
    for k in range(N_KEEPS):
        total = np.int64(sums[k])
        d = outcomes[k]
        whole = total // d
        twice = 2 * (total - whole * d)
        if twice > d or (twice == d and whole % 2 == 1):
            whole += 1
        out[k] = whole


# ---------------------------------------------------------------------------- position values
@njit
def _softmax_into(z: np.ndarray, n: int, out: np.ndarray) -> float:
    """``exp(z - max(z))`` of the first ``n`` entries into ``out``; returns their sum (added in seat order)."""
    top = -np.inf
    for p in range(n):
        if z[p] > top:
            top = z[p]
    total = 0.0
    for p in range(n):
        out[p] = math.exp(z[p] - top)
        total += out[p]
    return total


@njit
def _values(love: np.ndarray, adv: np.ndarray, melt: np.ndarray, n: int, me: int, work: np.ndarray) -> float:
    """``CubeMeltHeuristic.values`` of one row of tracks (``work``: scratch, ``4 * n`` floats).

    The softmaxes' terms ``exp(z - max(z))`` and the weight ``q`` are read from tables of every track value,
    made by the very same float operations (:func:`_exp_tables`); the softmax without seat ``m`` (``-inf``
    there) has the maximum of the others, and its own term adds 0.0 to the sum, so leaving it out is bit
    for bit the same.
    """
    any_goal = False
    any_melt = False
    goals = 0
    top_best = 0
    low_melt = melt[0]
    melt_top = melt[0]
    for p in range(n):
        melt_top = max(melt_top, melt[p])
        best = max(love[p], adv[p])
        if best >= GOAL:
            any_goal = True
            goals += 1
        if melt[p] <= 0:
            any_melt = True
        top_best = max(top_best, best)
        low_melt = min(low_melt, melt[p])
    if any_goal:
        if max(love[me], adv[me]) < GOAL:
            return 0.0
        return _quantised(SHARED_WIN if goals > 1 else 1.0)
    if any_melt:
        top = -1
        for p in range(n):
            score = -1 if melt[p] <= 0 else min(love[p], adv[p])
            top = max(top, score)
        winners = 0
        for p in range(n):
            if melt[p] > 0 and min(love[p], adv[p]) == top:
                winners += 1
        if melt[me] <= 0 or min(love[me], adv[me]) != top:
            return 0.0
        return _quantised(SHARED_WIN if winners > 1 else 1.0)
    if top_best > GOAL or low_melt < 1 or melt_top > START_MELT:  # off the tables (never in play)
        return _estimate(love, adv, melt, n, me, work)
    total = 0.0
    for p in range(n):
        total += RACE_EXP[max(love[p], adv[p]), top_best]
    race = RACE_EXP[max(love[me], adv[me]), top_best] / total
    melter = work[0:n]
    total = 0.0
    for p in range(n):
        melter[p] = MELT_EXP[melt[p], low_melt]
        total += melter[p]
    for p in range(n):
        melter[p] = melter[p] / total
    low_top = 0
    for p in range(n):
        low_top = max(low_top, min(love[p], adv[p]))
    by_melt = 0.0
    for m in range(n):
        if m == me:
            continue
        top_m = 0
        for p in range(n):
            if p != m:
                top_m = max(top_m, min(love[p], adv[p]))
        total = 0.0  # the softmax without m: its maximum is top_m (the full one's unless m held the only one)
        for p in range(n):
            if p != m:
                total += LOW_EXP[min(love[p], adv[p]), top_m]
        by_melt += melter[m] * (LOW_EXP[min(love[me], adv[me]), top_m] / total)
    q = RACE_OR_MELT[top_best, low_melt]
    estimate = ((1.0 - q) * race + q * by_melt) * (1.0 - MELT_COST * (START_MELT - melt[me]))
    return _quantised(estimate)


@njit
def _estimate(love: np.ndarray, adv: np.ndarray, melt: np.ndarray, n: int, me: int, work: np.ndarray) -> float:
    """The estimate of :func:`_values` (no goal, no melt) computed term by term, for tracks off its tables."""
    z = work[0:n]
    e = work[n : 2 * n]
    melter = work[2 * n : 3 * n]
    own = work[3 * n : 4 * n]
    top_best = 0
    low_melt = melt[0]
    for p in range(n):
        top_best = max(top_best, max(love[p], adv[p]))
        low_melt = min(low_melt, melt[p])
        z[p] = BETA_RACE * max(love[p], adv[p])
    total = _softmax_into(z, n, e)
    race = e[me] / total
    for p in range(n):
        z[p] = -GAMMA_MELT * float(melt[p])
    total = _softmax_into(z, n, melter)
    for p in range(n):
        melter[p] = melter[p] / total
    for p in range(n):
        z[p] = BETA_MIN * float(min(love[p], adv[p]))
    _softmax_into(z, n, e)
    top = -np.inf
    for p in range(n):
        top = max(top, z[p])
    by_melt = 0.0
    for m in range(n):
        if m == me:
            continue
        top_m = -np.inf
        for p in range(n):
            if p != m and z[p] > top_m:
                top_m = z[p]
        terms = e
        if top_m != top:  # m held the only maximum: the terms of this softmax are its own
            for p in range(n):
                own[p] = 0.0 if p == m else math.exp(z[p] - top_m)
            terms = own
        total = 0.0
        for p in range(n):
            if p != m:
                total += terms[p]
        by_melt += melter[m] * (terms[me] / total)
    t_race = (GOAL - top_best) / RACE_RATE
    t_melt = low_melt / MELT_RATE
    q = 1.0 / (1.0 + math.exp(-KAPPA * (t_race - t_melt)))
    estimate = ((1.0 - q) * race + q * by_melt) * (1.0 - MELT_COST * (START_MELT - melt[me]))
    return _quantised(estimate)


@njit
def _exp_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The terms of :func:`_estimate`'s softmaxes and its race-or-melt weight ``q`` for every track value
    0..20, computed by the very same float operations (so :func:`_values` reads what it would compute):
    ``RACE_EXP[b, top]``, ``MELT_EXP[m, lowest]``, ``LOW_EXP[x, top]`` and ``RACE_OR_MELT[top, lowest]``."""
    span = GOAL + 1
    race = np.empty((span, span))
    melt = np.empty((span, span))
    low = np.empty((span, span))
    q = np.empty((span, span))
    for a in range(span):
        for b in range(span):
            race[a, b] = math.exp(BETA_RACE * a - BETA_RACE * b)
            melt[a, b] = math.exp(-GAMMA_MELT * float(a) - -GAMMA_MELT * float(b))
            low[a, b] = math.exp(BETA_MIN * float(a) - BETA_MIN * float(b))
            q[a, b] = 1.0 / (1.0 + math.exp(-KAPPA * ((GOAL - a) / RACE_RATE - b / MELT_RATE)))
    return race, melt, low, q


RACE_EXP, MELT_EXP, LOW_EXP, RACE_OR_MELT = _exp_tables()


@njit
def _tracks(s: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    love = np.empty(n, dtype=np.int64)
    adv = np.empty(n, dtype=np.int64)
    melt = np.empty(n, dtype=np.int64)
    for p in range(n):
        love[p], adv[p], melt[p] = s[LOVE + p], s[ADVENTURE + p], s[MELT + p]
    return love, adv, melt


@njit
def _state_value(s: np.ndarray, cfg: np.ndarray, me: int) -> float:
    """``CubeMeltHeuristic.state_value``: the exact outcome once over, else :func:`_values`."""
    n = cfg[C_PLAYERS]
    if s[PHASE] == OVER:
        if not s[WINNERS + me]:
            return 0.0
        winners = 0
        for p in range(n):
            winners += s[WINNERS + p] != 0
        return 1.0 if winners == 1 else SHARED_WIN
    love, adv, melt = _tracks(s, n)
    return _values(love, adv, melt, n, me, np.empty(4 * n))


@njit
def _seat_of(s: np.ndarray, cfg: np.ndarray, ability: int) -> int:
    """The seat holding ``ability`` (``abilities.index``), -1 without the expansion or that ability."""
    if not cfg[C_EXPANSION]:
        return -1
    for p in range(cfg[C_PLAYERS]):
        if s[ABILITIES + p] == ability:
            return p
    return -1


@njit
def _count_plans(s: np.ndarray, cfg: np.ndarray, ninja: bool, plans: np.ndarray) -> None:
    """``heuristic.dice_plans``: the engine's ``_plan`` of every face count, ``plans[c, seat, track]``."""
    n = cfg[C_PLAYERS]
    row = s.copy()
    row[NINJA_APPLIED] = 1 if ninja else 0
    for c in range(N_COUNTS):
        at = 0
        for k in range(KINDS):
            for _ in range(COUNTS[c, k]):
                row[DICE + at] = k
                at += 1
        _plan(row, cfg)
        for p in range(n):
            for t in range(3):
                plans[c, p, t] = row[PLAN + 3 * p + t]


@njit
def _same_plans(cfg: np.ndarray, plans: np.ndarray, first: np.ndarray) -> None:
    """``first[c]``: the first face count whose plans (every seat's) are count ``c``'s and that shows every kind
    exactly when ``c`` does (the Unicorn's condition), so that :func:`_plan_values` gives both the same value.
    Found by a hash of the plans in an open-addressed table, checked entry by entry."""
    n = cfg[C_PLAYERS]
    table = np.full(PLAN_TABLE, -1, dtype=np.int64)
    for c in range(N_COUNTS):
        h = np.uint64(EVERY_KIND[c])
        for p in range(n):
            for t in range(3):
                h = h * np.uint64(0x100000001B3) + np.uint64(plans[c, p, t] + 1)
        at = np.int64(h >> np.uint64(64 - PLAN_TABLE_BITS))  # the hash's top bits
        first[c] = c
        while table[at] >= 0:
            o = table[at]
            same = EVERY_KIND[o] == EVERY_KIND[c]
            for p in range(n):
                for t in range(3):
                    if plans[o, p, t] != plans[c, p, t]:
                        same = False
            if same:
                first[c] = o
                break
            at = (at + 1) & (PLAN_TABLE - 1)
        if first[c] == c:
            table[at] = c


@njit
def _kept_plans(s: np.ndarray, cfg: np.ndarray, ninja: bool, memory: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(plans, first)``: :func:`_count_plans` and :func:`_same_plans`, kept in ``memory`` (one slot per Ninja
    flag, keyed by the active seat: the plans depend on nothing else of the row) when it has room for them."""
    n = cfg[C_PLAYERS]
    plans = np.empty((N_COUNTS, n, 3), dtype=np.int64)
    first = np.empty(N_COUNTS, dtype=np.int64)
    key = 1 + int(s[ACTIVE])
    at = PLANS_AT + (1 if ninja else 0) * PLAN_SLOT_WIDTH
    if memory.shape[0] >= MEMORY_WIDTH and memory[at] == key:
        for c in range(N_COUNTS):
            first[c] = memory[at + 1 + c]
            for p in range(n):
                packed = memory[at + 1 + N_COUNTS + c * MAX_SEATS + p]
                for t in range(3):
                    plans[c, p, t] = (packed >> (16 * t)) & 0xFFFF
        return plans, first
    _count_plans(s, cfg, ninja, plans)
    _same_plans(cfg, plans, first)
    if memory.shape[0] >= MEMORY_WIDTH:
        memory[at] = key
        for c in range(N_COUNTS):
            memory[at + 1 + c] = first[c]
            for p in range(n):
                memory[at + 1 + N_COUNTS + c * MAX_SEATS + p] = (
                    plans[c, p, 0] | plans[c, p, 1] << 16 | plans[c, p, 2] << 32
                )
    return plans, first


@njit
def _plan_values(
    s: np.ndarray, cfg: np.ndarray, me: int, paid: int, plans: np.ndarray, first: np.ndarray, out: np.ndarray
) -> None:
    """``CubeMeltHeuristic._plan_values``: every face count's plan applied to the tracks, valued (a count whose
    plans are an earlier one's, ``first[c] < c``, has its value: the same function of the same numbers)."""
    n, active = cfg[C_PLAYERS], int(s[ACTIVE])
    start_love, start_adv, melt0 = _tracks(s, n)
    melt0[active] -= paid
    knight, cat = _seat_of(s, cfg, KNIGHT), _seat_of(s, cfg, CAT)
    own = int(s[ABILITIES + active]) if cfg[C_EXPANSION] and active == me else -1
    left, right = _neighbours(active, n)
    love = np.empty(n, dtype=np.int64)
    adv = np.empty(n, dtype=np.int64)
    melt = np.empty(n, dtype=np.int64)
    lost = np.empty(n, dtype=np.int64)
    work = np.empty(4 * n)
    for c in range(N_COUNTS):
        if first[c] != c:
            out[c] = out[first[c]]
            continue
        mine = 0
        for p in range(n):
            love[p], adv[p], lost[p] = start_love[p], start_adv[p], plans[c, p, 2]
        if knight >= 0:
            conv = 1 if lost[knight] >= 2 else 0
            lost[knight] -= conv
            if knight == me:
                mine += conv
            elif start_love[knight] >= start_adv[knight]:
                love[knight] += conv
            else:
                adv[knight] += conv
        for p in range(n):
            love[p] = min(GOAL, love[p] + plans[c, p, 0])
            adv[p] = min(GOAL, adv[p] + plans[c, p, 1])
            melt[p] = max(0, melt0[p] - lost[p])
        if cat >= 0:
            cat_left, cat_right = _neighbours(cat, n)
            for t in range(2):
                track = love if t == 0 else adv
                start = start_love if t == 0 else start_adv
                hits = 0
                for i in range(2):
                    q = cat_left if i == 0 else cat_right
                    if i == 1 and cat_right == cat_left:
                        continue
                    gain = track[q] - start[q] if cfg[C_CAT_ACTUAL] else plans[c, q, t]
                    hits += 1 if gain >= 3 else 0
                gain = hits if cfg[C_PER_NEIGHBOUR] else min(hits, 1)
                track[cat] = min(GOAL, track[cat] + gain)
        if own == DRAGON:
            hits = (1 if lost[left] > 0 else 0) + (1 if right != left and lost[right] > 0 else 0)
            mine += 2 * (hits if cfg[C_PER_NEIGHBOUR] else min(hits, 1))
        elif own == UNICORN:
            every = True
            for k in range(KINDS):
                if COUNTS[c, k] == 0:
                    every = False
            mine += 2 if every else 0
        if mine == 0:
            out[c] = _values(love, adv, melt, n, me, work)
        else:
            kept_love, kept_adv = love[me], adv[me]
            love[me] = min(GOAL, kept_love + mine)
            by_love = _values(love, adv, melt, n, me, work)
            love[me] = kept_love
            adv[me] = min(GOAL, kept_adv + mine)
            by_adv = _values(love, adv, melt, n, me, work)
            adv[me] = kept_adv
            out[c] = max(by_love, by_adv)


@njit
def _terminal_values(s: np.ndarray, cfg: np.ndarray, me: int, paid: int, ninja: int, out: np.ndarray) -> None:
    """``CubeMeltHeuristic._terminal_values``: each face count resolved on ``me``'s turn after paying ``paid``."""
    _terminal_values_kept(s, cfg, me, paid, ninja, out, np.zeros(0, dtype=np.int64))


@njit
def _terminal_values_kept(
    s: np.ndarray, cfg: np.ndarray, me: int, paid: int, ninja: int, out: np.ndarray, memory: np.ndarray
) -> None:
    """:func:`_terminal_values` with the face counts' plans kept in ``memory`` (:func:`_kept_plans`)."""
    is_ninja = cfg[C_EXPANSION] and s[ABILITIES + s[ACTIVE]] == NINJA
    plans, first = _kept_plans(s, cfg, is_ninja and ninja != DECLINE, memory)
    _plan_values(s, cfg, me, paid, plans, first, out)
    if not is_ninja or ninja != BEST:
        return
    declined = np.empty(N_COUNTS)
    plans, first = _kept_plans(s, cfg, False, memory)
    _plan_values(s, cfg, me, paid, plans, first, declined)
    for c in range(N_COUNTS):
        eligible = False
        for k in range(KINDS):
            if COUNTS[c, k] >= 5:
                eligible = True
        out[c] = max(out[c], declined[c]) if eligible else declined[c]


# ---------------------------------------------------------------------------- terminal values kept in memory
#: Terminal value vectors a seat keeps (``CubeMeltHeuristic.terminal_values``' cache, in its memory row).
SLOTS = 8
#: A slot: in use, active seat, ``me``, Ninja mode, Love, Adventure, Melt (after the paid Melt) and ability
#: per seat (the key of the Python cache, less the config: one engine's).
KEY_WIDTH = 4 + 4 * MAX_SEATS
SLOT_WIDTH = KEY_WIDTH + 84
#: The face counts' plans kept, one slot per Ninja flag: the active seat plus one (0: empty), then
#: :func:`_same_plans`' ``first`` per count, then per count and seat its three plan entries (16 bits each).
PLAN_SLOT_WIDTH = 1 + N_COUNTS + N_COUNTS * MAX_SEATS
#: Memory row: the next slot to replace, the slots (values as integers in units of ``VALUE_QUANTUM``), then
#: the two slots of plans.
PLANS_AT = 1 + SLOTS * SLOT_WIDTH
MEMORY_WIDTH = PLANS_AT + 2 * PLAN_SLOT_WIDTH


@njit
def _cached_terminal_values(
    s: np.ndarray, cfg: np.ndarray, me: int, paid: int, ninja: int, out: np.ndarray, memory: np.ndarray
) -> None:
    """:func:`_terminal_values`, kept in ``memory`` by what they depend on (the config is the engine's).
    The values are multiples of the quantum, so an integer keeps each exactly."""
    if memory.shape[0] < MEMORY_WIDTH:
        _terminal_values(s, cfg, me, paid, ninja, out)
        return
    n, active = cfg[C_PLAYERS], int(s[ACTIVE])
    key = np.zeros(KEY_WIDTH, dtype=np.int64)
    key[0], key[1], key[2], key[3] = 1, active, me, ninja
    for p in range(n):
        key[4 + p] = s[LOVE + p]
        key[4 + MAX_SEATS + p] = s[ADVENTURE + p]
        key[4 + 2 * MAX_SEATS + p] = s[MELT + p] - (paid if p == active else 0)
        key[4 + 3 * MAX_SEATS + p] = s[ABILITIES + p]
    for slot in range(SLOTS):
        at = 1 + slot * SLOT_WIDTH
        same = True
        for i in range(KEY_WIDTH):
            if memory[at + i] != key[i]:
                same = False
                break
        if same:
            for c in range(N_COUNTS):
                out[c] = memory[at + KEY_WIDTH + c] / QUANTUM_SCALE
            return
    _terminal_values_kept(s, cfg, me, paid, ninja, out, memory)
    at = 1 + (memory[0] % SLOTS) * SLOT_WIDTH
    memory[0] += 1
    for i in range(KEY_WIDTH):
        memory[at + i] = key[i]
    for c in range(N_COUNTS):
        memory[at + KEY_WIDTH + c] = int(out[c] * QUANTUM_SCALE)


# ---------------------------------------------------------------------------- the heuristic's decisions
@njit
def _count_index(s: np.ndarray) -> int:
    code = 0
    for i in range(ND):
        code += 7 ** int(s[DICE + i])
    return COUNT_INDEX[code]


@njit
def _reroll_action(s: np.ndarray, cfg: np.ndarray, me: int, memory: np.ndarray) -> int:
    """``CubeMeltHeuristic.reroll_action``: stop, or the dice to re-roll, by expectimax over the levels."""
    done = int(s[REROLLS])
    paid_now = max(0, done - 1)
    paid = np.zeros(MAX_LEVELS, dtype=np.int64)
    allowed = np.zeros(MAX_LEVELS, dtype=np.bool_)
    levels = 0
    for level in range(done, done + MAX_LOOKAHEAD + 1):  # heuristic._levels
        paid[levels] = max(0, level - 1) - paid_now
        ok = level == 0 or (level <= cfg[C_PAID] and s[MELT + me] - paid[levels] > 1)
        if level == done + MAX_LOOKAHEAD:
            ok = False
        allowed[levels] = ok
        levels += 1
        if not ok:
            break
    if not allowed[0] or levels < 2:
        return STOP
    c = _count_index(s)
    weights, outcomes = _transition(cfg)
    terminal = np.empty((levels, N_COUNTS), dtype=np.int64)  # in quanta
    found = np.empty(N_COUNTS)
    for j in range(levels):
        _cached_terminal_values(s, cfg, me, paid[j], BEST, found, memory)
        for row in range(N_COUNTS):
            terminal[j, row] = np.int64(np.rint(found[row] * QUANTUM_SCALE))
    values = terminal[levels - 1].copy()
    ev = np.empty(N_KEEPS, dtype=np.int64)
    scratch = np.empty(N_COUNTS)
    for j in range(levels - 2, 0, -1):
        _expectations(weights, outcomes, values, scratch, ev)
        for row in range(N_COUNTS):  # heuristic._best_over_keeps
            best = terminal[j, row]
            if allowed[j]:
                for at in range(OK_START[row], OK_START[row + 1]):
                    if ev[OK_KEEPS[at]] > best:
                        best = ev[OK_KEEPS[at]]
            values[row] = best
    _expectations(weights, outcomes, values, scratch, ev)
    pick = -1
    for at in range(OK_START[c], OK_START[c + 1]):  # the first keep of the best value
        k = OK_KEEPS[at]
        if pick < 0 or ev[k] > ev[pick]:
            pick = k
    if ev[pick] <= terminal[0, c]:
        return STOP
    left = KEEPS[pick].copy()  # heuristic._reroll_mask
    mask = 0
    for i in range(ND):
        d = s[DICE + i]
        if left[d] > 0:
            left[d] -= 1
        else:
            mask |= 1 << i
    return mask


@njit
def _choice_action(s: np.ndarray, cfg: np.ndarray, me: int) -> int:
    """``CubeMeltHeuristic.choice_action``: Love or Adventure, by the value of the position after it."""
    best, best_value = CHOOSE_LOVE, -np.inf
    scratch_rng = np.zeros(2, dtype=np.uint64)
    for action in (CHOOSE_LOVE, CHOOSE_ADVENTURE):
        after = s.copy()
        apply(after, action, scratch_rng, cfg)
        value = _state_value(after, cfg, me)
        if value > best_value:
            best, best_value = action, value
    return best


@njit
def _ninja_action(s: np.ndarray, cfg: np.ndarray, me: int, memory: np.ndarray) -> int:
    """``CubeMeltHeuristic.ninja_action``: apply when the resolution is worth more so; a tie declines."""
    c = _count_index(s)
    applied = np.empty(N_COUNTS)
    declined = np.empty(N_COUNTS)
    _cached_terminal_values(s, cfg, me, 0, APPLY, applied, memory)
    _cached_terminal_values(s, cfg, me, 0, DECLINE, declined, memory)
    return NINJA_APPLY if applied[c] > declined[c] else NINJA_DECLINE


@njit
def heuristic_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``CubeMeltHeuristic.act`` (module docstring)."""
    me = int(s[DECIDER])
    phase = s[PHASE]
    if phase == REROLL:
        action = _reroll_action(s, cfg, me, memory)
    elif phase == CHOOSE:
        action = _choice_action(s, cfg, me)
    elif phase == NINJA_PHASE:
        action = _ninja_action(s, cfg, me, memory)
    else:
        action = -1
    if 0 <= action < mask.shape[0] and mask[action]:
        return action
    return random_act(s, cfg, mask, prng, memory)


# ---------------------------------------------------------------------------- the greedy player
_MASK64 = (1 << 64) - 1
INV_MIX1 = np.uint64(pow(0xBF58476D1CE4E5B9, -1, 1 << 64))
INV_MIX2 = np.uint64(pow(0x94D049BB133111EB, -1, 1 << 64))
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit
def _forced_stream(code: int, bound: int, rng: np.ndarray) -> None:
    """Set ``rng[0]`` so that the next ``below(rng, bound)`` is ``code``: the SplitMix64 output whose top 32
    bits are the middle of ``code``'s share of them, run back through the (invertible) output function."""
    top = ((2 * code + 1) << 32) // (2 * bound)
    z = np.uint64(top) << np.uint64(32)
    z = z ^ (z >> np.uint64(31)) ^ (z >> np.uint64(62))
    z = z * INV_MIX2
    z = z ^ (z >> np.uint64(27)) ^ (z >> np.uint64(54))
    z = z * INV_MIX1
    z = z ^ (z >> np.uint64(30)) ^ (z >> np.uint64(60))
    rng[0] = z - GOLDEN


@njit
def _greedy_value(s: np.ndarray, cfg: np.ndarray, seat: int) -> int:
    """``greedy.value``: the score difference with the dice not yet applied counted as resolved (``pending_plan``)."""
    n = cfg[C_PLAYERS]
    phase = s[PHASE]
    if phase == OVER:
        return WIN if s[WINNERS + seat] else -WIN
    row = s
    if phase == REROLL and s[ACTIVE] == seat and s[REROLLS] > 0:
        row = s.copy()
        row[NINJA_APPLIED] = 0
        _plan(row, cfg)
        pending = True
    else:
        pending = phase == NINJA_PHASE or (phase == CHOOSE and s[PENDING] == KNIGHT)
    total = 0
    mine = 0
    for p in range(n):
        gain_love = row[PLAN + 3 * p] if pending else 0
        gain_adv = row[PLAN + 3 * p + 1] if pending else 0
        lost = row[PLAN + 3 * p + 2] if pending else 0
        score = (
            min(GOAL, int(s[LOVE + p]) + gain_love)
            + min(GOAL, int(s[ADVENTURE + p]) + gain_adv)
            + max(0, int(s[MELT + p]) - lost)
            - START_MELT
        )
        total += score
        if p == seat:
            mine = score
    return (n - 1) * mine - (total - mine)


@njit
def _after_value(s: np.ndarray, cfg: np.ndarray, action: int, code: int, bound: int, seat: int) -> int:
    """:func:`_greedy_value` after ``action`` played on a scratch row, its first draw forced to ``code``."""
    after = s.copy()
    rng = np.zeros(2, dtype=np.uint64)
    _forced_stream(code, bound, rng)
    apply(after, action, rng, cfg)
    return _greedy_value(after, cfg, seat)


@njit
def greedy_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``GreedyAgent.act`` on CubeMelt's value through its ``expected_values`` hook (module docstring)."""
    only = only_legal(mask)
    if only >= 0:
        return only
    for _ in range(GREEDY_SAMPLES):  # the sampling seeds (integers(0, 2**63): one 64-bit draw each)
        uniform(prng)
    seat = int(s[DECIDER])
    nf = cfg[C_NUM_FACES]
    face_of_kind = np.full(KINDS, -1, dtype=np.int64)
    kind_faces = np.zeros(KINDS, dtype=np.int64)
    for i in range(nf - 1, -1, -1):
        face_of_kind[cfg[C_FACES + i]] = i
        kind_faces[cfg[C_FACES + i]] += 1
    final_value = np.zeros(N_COUNTS, dtype=np.int64)
    known = np.zeros(N_COUNTS, dtype=np.bool_)
    full = nf**ND
    kept = np.zeros(KINDS, dtype=np.int64)
    kept_value = np.zeros(
        7**KINDS, dtype=np.int64
    )  # by the kept faces' counts: re-rolls keeping them are worth the same
    kept_known = np.zeros(7**KINDS, dtype=np.bool_)
    best, best_value = -1, 0
    for action in range(mask.shape[0]):
        if not mask[action]:
            continue
        if s[PHASE] != REROLL or not 1 <= action < NUM_SUBSETS:
            value = full * _after_value(s, cfg, action, 0, full, seat)
        else:
            kept[:] = 0
            r = 0
            for i in range(ND):
                if action >> i & 1:
                    r += 1
                else:
                    kept[s[DICE + i]] += 1
            key = kept[0] + 7 * kept[1] + 49 * kept[2] + 343 * kept[3]
            if kept_known[key]:
                value = kept_value[key]
                if best < 0 or value > best_value:
                    best, best_value = action, value
                continue
            total = 0
            for c in range(N_COUNTS):  # the re-rolled dice's counts: final counts minus the kept ones
                fits = True
                for kind in range(KINDS):
                    x = COUNTS[c, kind] - kept[kind]
                    if x < 0:
                        fits = False
                if not fits:
                    continue
                weight = FACTORIAL[r]
                for kind in range(KINDS):
                    x = COUNTS[c, kind] - kept[kind]
                    weight //= FACTORIAL[x]
                for kind in range(KINDS):
                    weight *= kind_faces[kind] ** (COUNTS[c, kind] - kept[kind])
                if weight == 0:
                    continue
                if not known[c]:
                    code = 0
                    place = 1
                    for kind in range(KINDS):
                        for _ in range(COUNTS[c, kind] - kept[kind]):
                            code += face_of_kind[kind] * place
                            place *= nf
                    final_value[c] = _after_value(s, cfg, action, code, nf**r, seat)
                    known[c] = True
                total += weight * final_value[c]
            value = total * nf ** (ND - r)
            kept_value[key], kept_known[key] = value, True
        if best < 0 or value > best_value:
            best, best_value = action, value
    return best


PLAYERS: dict[str, CompiledPlayer] = {
    "greedy": CompiledPlayer("greedy", greedy_act),
    "heuristic": CompiledPlayer("heuristic", heuristic_act, MEMORY_WIDTH),
}
