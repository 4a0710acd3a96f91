"""Iceberg Rummy's re-deal of the hidden cards (``rules.resample_hidden``) on a compiled state row, draw for draw.

The compiled players (:mod:`.compiled_players`) re-deal what their seat cannot see exactly as the Python
players do through :class:`~ice_envs.core.splitmix.SplitMixRng`: :func:`redeal` makes the same generator
calls in the same order as :func:`.rules.resample_hidden` (``choice(replace=False)`` is the first ``k`` of
a permutation, a permutation a Fisher-Yates pass from the end: :func:`ice_envs.core.compiled.shuffle`),
so the hands, the face-down card and the stock it writes are the ones the Python re-deal holds, and the
two streams stay in step.

The stock is written where the row keeps the stock still to draw (from ``STOCK_POS``): the same cards in
the same order as the Python re-deal's fresh stock. The other seats' private memories are left as they
are (no player here reads them).
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.compiled import njit, shuffle
from ice_envs.iceberg_rummy.compiled import (
    C_CLEAR,
    C_DECKS,
    C_PLAYERS,
    C_STOCK_LEN,
    CURRENT,
    HANDS,
    NC,
    NR,
    PASSED,
    PENDING,
    PENDING_TO,
    SEL,
    SEL_LEN,
    SIZES,
    STILL_LEFT,
    STOCK,
    STOCK_POS,
    TABLE,
    TABLE_ACES,
    TURNS_TAKEN,
)

__all__ = ["redeal", "same_redeal"]

#: Attempts at placing the required cards before the deterministic fallback (``rules.resample_hidden``).
_ATTEMPTS = 64


@njit
def _permute(rng: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """``SplitMixRng.permutation(values[:n])``: a shuffled copy."""
    out = values[:n].copy()
    shuffle(rng, out, n)
    return out


@njit
def redeal(s: np.ndarray, seat: int, cfg: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """``rules.resample_hidden(state, seat, rng)`` of the state row ``s`` into ``out`` (a row of the same
    width): the other hands, a face-down card ``seat`` did not pass and the stock re-dealt (module docstring)."""
    out[:] = s
    n, decks = cfg[C_PLAYERS], cfg[C_DECKS]
    left = (seat + 1) % n
    own = HANDS + seat * NC
    pool = np.empty(NC, dtype=np.int64)
    req = np.empty(NC, dtype=np.int64)
    for c in range(NC):
        table = s[TABLE + c]
        if c % NR == 0:
            table += s[TABLE_ACES + c // NR]
        pool[c] = decks - s[own + c] - table
        passed = s[PASSED + seat * NC + c]
        if decks > 1:
            passed = min(passed, 1)
        req[c] = max(0, passed - table - s[own + c])
    fixed = np.full((n, 2 * NR), -1, dtype=np.int64)
    fixed_len = np.zeros(n, dtype=np.int64)
    current = s[CURRENT]
    if current != seat and s[SEL_LEN] > 0 and not cfg[C_CLEAR]:
        for i in range(s[SEL_LEN]):
            c = s[SEL + i]
            fixed[current, fixed_len[current]] = c
            fixed_len[current] += 1
            req[c] = max(0, req[c] - 1)
    x = s[STILL_LEFT + seat]
    if x >= 0 and left != seat:
        seen = False
        for i in range(fixed_len[left]):
            if fixed[left, i] == x:
                seen = True
        if not seen:
            fixed[left, fixed_len[left]] = x
            fixed_len[left] += 1
            req[x] = max(0, req[x] - 1)
    pending = s[PENDING]
    pending_fixed = pending >= 0 and (s[PENDING_TO] - 1 + n) % n == seat
    if pending_fixed:
        pool[pending] -= 1
        req[pending] = max(0, req[pending] - 1)
    for q in range(n):
        for i in range(fixed_len[q]):
            pool[fixed[q, i]] -= 1
    # slots to fill: the owner of each (a seat, -2 the face-down card, -1 the stock), as the Python list
    stock_size = cfg[C_STOCK_LEN] - s[STOCK_POS]
    owner = np.empty(2 * NC + 1, dtype=np.int64)
    slots = 0
    for q in range(n):
        if q != seat:
            for _ in range(s[SIZES + q] - fixed_len[q]):
                owner[slots] = q
                slots += 1
    if pending >= 0 and not pending_fixed:
        owner[slots] = -2
        slots += 1
    for _ in range(stock_size):
        owner[slots] = -1
        slots += 1
    ace_ok = np.zeros(slots, dtype=np.bool_)
    for i in range(slots):
        q = owner[i]
        ace_ok[i] = q == -1 or (q >= 0 and s[TURNS_TAKEN + q] == 0 and q != seat)
    aces = np.empty(2 * 4, dtype=np.int64)
    num_aces = 0
    for suit in range(4):
        for _ in range(pool[suit * NR]):
            aces[num_aces] = suit * NR
            num_aces += 1
    req_cards = np.empty(slots, dtype=np.int64)
    num_req = 0
    free = np.empty(slots, dtype=np.int64)
    num_free = 0
    for c in range(NC):
        rest = 0 if c % NR == 0 else pool[c]
        k = min(req[c], rest)
        for _ in range(k):
            req_cards[num_req] = c
            num_req += 1
        for _ in range(rest - k):
            free[num_free] = c
            num_free += 1
    ns = np.empty(slots, dtype=np.int64)
    num_ns = 0
    for i in range(slots):
        if owner[i] != -1:
            ns[num_ns] = i
            num_ns += 1
    assign = np.full(slots, -1, dtype=np.int64)
    ace_slots = np.empty(slots, dtype=np.int64)
    num_ace_slots = 0
    for attempt in range(_ATTEMPTS):
        assign[:] = -1
        if attempt == _ATTEMPTS - 1:  # the deterministic fallback: slots where aces cannot go first
            order = np.empty(num_ns, dtype=np.int64)
            m = 0
            for j in range(num_ns):
                if not ace_ok[ns[j]]:
                    order[m] = ns[j]
                    m += 1
            ok_slots = np.empty(num_ns - m, dtype=np.int64)
            k = 0
            for j in range(num_ns):
                if ace_ok[ns[j]]:
                    ok_slots[k] = ns[j]
                    k += 1
            shuffle(rng, ok_slots, k)
            order[m:] = ok_slots
            pos = order
        elif num_req:
            pos = _permute(rng, ns, num_ns)
        else:
            pos = ns
        for j in range(num_req):
            assign[pos[j]] = req_cards[j]
        num_ace_slots = 0
        for i in range(slots):
            if ace_ok[i] and assign[i] < 0:
                ace_slots[num_ace_slots] = i
                num_ace_slots += 1
        if num_ace_slots >= num_aces:
            break
    if num_aces:
        chosen = _permute(rng, ace_slots, num_ace_slots)
        for j in range(num_aces):
            assign[chosen[j]] = aces[j]
    dealt = _permute(rng, free, num_free)
    j = 0
    for i in range(slots):
        if assign[i] < 0:
            assign[i] = dealt[j]
            j += 1
    for q in range(n):
        if q == seat:
            continue
        hand = HANDS + q * NC
        out[hand : hand + NC] = 0
        for i in range(fixed_len[q]):
            out[hand + fixed[q, i]] += 1
    at = STOCK + s[STOCK_POS]
    for i in range(slots):
        q = owner[i]
        if q >= 0:
            out[HANDS + q * NC + assign[i]] += 1
        elif q == -2:
            out[PENDING] = assign[i]
        else:
            out[at] = assign[i]
            at += 1


@njit
def same_redeal(a: np.ndarray, b: np.ndarray, seat: int, cfg: np.ndarray) -> bool:
    """Whether two re-deals of one row for ``seat`` (:func:`redeal`) hold the same cards everywhere
    (``search.same_state`` of the two Python re-deals)."""
    n = cfg[C_PLAYERS]
    for q in range(n):
        if q != seat:
            for c in range(NC):
                if a[HANDS + q * NC + c] != b[HANDS + q * NC + c]:
                    return False
    if a[PENDING] != b[PENDING]:
        return False
    for i in range(a[STOCK_POS], cfg[C_STOCK_LEN]):
        if a[STOCK + i] != b[STOCK + i]:
            return False
    return True
