"""Iceberg Rummy's end-of-hand play-out (:func:`.melds.best_playout`) as numba code, for the compiled engine.

:func:`best_playout` is an exact memoised search (the one the reference used before it gained an integer
program for the largest hands): the plays of the hand listed in
:func:`.melds.enumerate_plays`' order, the same independent components, the same shares, choices
sorted by the same loss (ties in play order), the same memo, and a state budget of
:data:`BUDGET`. A hand's state multiset is a bit set over the positions
of its component's cards in rank-major order (a card removed is always its first copy left, so
the set is canonical). Where it would pass its budget (or meets more plays than :data:`MAX_PLAYS`),
:func:`best_playout` returns ``NOT_SOLVED`` and the caller asks the reference.

The table is read from the compiled engine's meld slots (:data:`SLOT` entries each, layout below).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from ice_envs.core.compiled import njit
from ice_envs.iceberg_rummy import melds as M

NC, NR = M.NUM_CARDS, M.NUM_RANKS
#: The most cards of one meld: a run from 2 to K.
MAX_MELD_CARDS = 12
#: Entries of a table meld slot: kind, owner, size, two index entries, the sorted card ids.
SLOT = 5 + MAX_MELD_CARDS
#: Offsets in a slot; K_INFO1, K_INFO2: a pair/set's rank and suit code (base 3 per suit), a run's lowest
#: and highest rank.
K_KIND, K_OWNER, K_SIZE, K_INFO1, K_INFO2, K_CARDS = range(6)

GROUP, RUN = M.GROUP, M.RUN
GROUP_OK = M._GROUP_OK.astype(np.int8)
SPECIAL_VALUES = np.array([M.SPECIAL_VALUES.get(kind, 0) for kind in range(M.NUM_KINDS)], dtype=np.int64)
ODD_LOW, EVEN_LOW = M.ODD_RANKS[0], M.EVEN_RANKS[0]
CARD_SLOTS = M._CARD_SLOTS
SHARE_SCALE = M._SHARE_SCALE
#: States the search may visit before the engine asks the reference (which then solves an integer program).
BUDGET = 100_000
#: Plays listed at most (far beyond any hand of play); past it the reference is asked.
MAX_PLAYS = 4096
#: :func:`best_playout`'s answer when the reference must decide (budget exceeded or too many plays).
NOT_SOLVED = -1
_TOO_BIG = -2
_MEMO_KEY = types.UniTuple(types.int64, 3)

assert M.ODD_RANKS == tuple(range(ODD_LOW, NR, 2)) and M.EVEN_RANKS == tuple(range(EVEN_LOW, NR - 1, 2))


@njit
def size_value(n: int) -> int:
    """``melds.size_value``."""
    if n < 2:
        return 0
    if n == 2:
        return 10
    return 5 * n * (n + 1) - 30


@njit
def _rank_major(card: int) -> int:
    return (card % NR) * 4 + card // NR


@njit
def _add(cards, length, target, value, n, out_cards, out_len, out_target, out_value) -> int:
    """Append a play (``cards[:length]``) to the play arrays at row ``n``; the new count (-1: full)."""
    if n < 0 or n >= MAX_PLAYS:
        return -1
    out_cards[n, :length] = cards[:length]
    out_len[n] = length
    out_target[n] = target
    out_value[n] = value
    return n + 1


@njit
def enumerate_plays(hand, table, melds_at, num_melds, out_cards, out_len, out_target, out_value) -> int:
    """``melds.enumerate_plays`` (the table: ``num_melds`` slots of ``table`` from ``melds_at``) in its order: pairs and sets by rank, runs by suit, the special melds;
    returns the number of plays (-1: more than :data:`MAX_PLAYS`)."""
    bits = np.zeros(4, dtype=np.int64)
    dups = np.zeros(4, dtype=np.int64)
    for suit in range(4):
        for r in range(1, NR):
            count = hand[suit * NR + r]
            if count > 0:
                bits[suit] |= 1 << r
            if count > 1:
                dups[suit] |= 1 << r
    b0, b1, b2, b3 = bits[0], bits[1], bits[2], bits[3]
    any_rank = b0 | b1 | b2 | b3
    two = b0 & b1 | b0 & b2 | b0 & b3 | b1 & b2 | b1 & b3 | b2 & b3 | dups[0] | dups[1] | dups[2] | dups[3]
    group_ranks = 0
    for t in range(num_melds):
        if table[melds_at + t * SLOT + K_KIND] == GROUP:
            group_ranks |= 1 << table[melds_at + t * SLOT + K_INFO1]
    cards = np.empty(MAX_MELD_CARDS, dtype=np.int64)
    n = 0
    todo = any_rank & (two | group_ranks)
    for r in range(1, NR):
        if not (todo >> r) & 1:
            continue
        h0, h1, h2, h3 = hand[r], hand[NR + r], hand[2 * NR + r], hand[3 * NR + r]
        for a0 in range(h0 + 1):
            for a1 in range(h1 + 1):
                for a2 in range(h2 + 1):
                    for a3 in range(h3 + 1):
                        m = a0 + a1 + a2 + a3
                        if m == 0:
                            continue
                        a = (a0, a1, a2, a3)
                        at = 0
                        for suit in range(4):
                            for _ in range(a[suit]):
                                cards[at] = suit * NR + r
                                at += 1
                        code = a0 + 3 * a1 + 9 * a2 + 27 * a3
                        if m >= 2 and GROUP_OK[code]:
                            n = _add(cards, m, -1, size_value(m), n, out_cards, out_len, out_target, out_value)
                        for t in range(num_melds):
                            if (
                                table[melds_at + t * SLOT + K_KIND] == GROUP
                                and table[melds_at + t * SLOT + K_INFO1] == r
                                and GROUP_OK[table[melds_at + t * SLOT + K_INFO2] + code]
                            ):
                                size = table[melds_at + t * SLOT + K_SIZE]
                                value = size_value(size + m) - size_value(size)
                                n = _add(cards, m, t, value, n, out_cards, out_len, out_target, out_value)
    for suit in range(4):
        base = suit * NR
        m = bits[suit]
        if m & (m >> 1) & (m >> 2):
            r = 1
            while r < NR:
                if not (m >> r) & 1:
                    r += 1
                    continue
                start = r
                while r < NR and (m >> r) & 1:
                    r += 1
                end = r - 1
                for lo in range(start, end - 1):
                    for hi in range(lo + 2, end + 1):
                        for i in range(hi - lo + 1):
                            cards[i] = base + lo + i
                        length = hi - lo + 1
                        n = _add(cards, length, -1, size_value(length), n, out_cards, out_len, out_target, out_value)
        for t in range(num_melds):
            if table[melds_at + t * SLOT + K_KIND] != RUN or table[melds_at + t * SLOT + K_CARDS] // NR != suit:
                continue
            lo, hi, size = (
                table[melds_at + t * SLOT + K_INFO1],
                table[melds_at + t * SLOT + K_INFO2],
                table[melds_at + t * SLOT + K_SIZE],
            )
            down = 0
            while lo - down - 1 >= 1 and (m >> (lo - down - 1)) & 1:
                down += 1
            up = 0
            while hi + up + 1 < NR and (m >> (hi + up + 1)) & 1:
                up += 1
            for d in range(down + 1):
                for u in range(up + 1):
                    if d == 0 and u == 0:
                        continue
                    for i in range(d):
                        cards[i] = base + lo - d + i
                    for i in range(u):
                        cards[d + i] = base + hi + 1 + i
                    value = size_value(size + d + u) - size_value(size)
                    n = _add(cards, d + u, t, value, n, out_cards, out_len, out_target, out_value)
    for kind_pair in range(2):
        low = ODD_LOW if kind_pair == 0 else EVEN_LOW
        suit_kind = M.ODDS_SUIT if kind_pair == 0 else M.EVENS_SUIT
        colour_kind = M.ODDS_COLOUR if kind_pair == 0 else M.EVENS_COLOUR
        need = 0
        for i in range(6):
            need |= 1 << (low + 2 * i)
        if any_rank & need != need:
            continue
        for suit in range(4):
            if bits[suit] & need == need:
                for i in range(6):
                    cards[i] = suit * NR + low + 2 * i
                n = _add(cards, 6, -1, SPECIAL_VALUES[suit_kind], n, out_cards, out_len, out_target, out_value)
        for pair in range(2):
            a, b = (0, 3) if pair == 0 else (1, 2)
            if (bits[a] | bits[b]) & need != need:
                continue
            for x in range(64):  # itertools.product order: rank i's choice is bit 5 - i, suit a before b
                if x == 0 or x == 63:
                    continue  # all one suit: the suit meld
                ok = True
                for i in range(6):
                    suit = b if (x >> (5 - i)) & 1 else a
                    if not (bits[suit] >> (low + 2 * i)) & 1:
                        ok = False
                if not ok:
                    continue
                at = 0
                for part in range(2):  # sorted by id: suit a's cards, then suit b's
                    for i in range(6):
                        if (x >> (5 - i)) & 1 == part:
                            cards[at] = (b if part else a) * NR + low + 2 * i
                            at += 1
                n = _add(cards, 6, -1, SPECIAL_VALUES[colour_kind], n, out_cards, out_len, out_target, out_value)
    return n


@njit
def _find(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit
def _lowest(lo: int, hi: int) -> int:
    """The lowest set position of the 128-bit set ``(lo, hi)`` (-1: empty)."""
    word = lo
    offset = 0
    if word == 0:
        word = hi
        offset = 64
        if word == 0:
            return -1
    j = 0
    while not (word >> j) & 1:
        j += 1
    return offset + j


@njit
def _without(lo: int, hi: int, j: int) -> tuple[int, int]:
    if j < 64:
        return lo & ~(1 << j), hi
    return lo, hi & ~(1 << (j - 64))


@njit
def _has(lo: int, hi: int, j: int) -> bool:
    return ((lo >> j) & 1) != 0 if j < 64 else ((hi >> (j - 64)) & 1) != 0


@njit
def _solve(lo0, hi0, bound0, depth_max, comp, pos_of, count_of, relevant, opt_start, opt_count, opt_loss, opt_play,
           opt_bit, opt_score, play_cards, play_len, budget):  # fmt: skip
    """``melds._search.rec`` from the whole component ``(lo0, hi0)``, with an explicit stack: the best score
    of the cards left with the table targets ``used`` taken, memoised on ``(cards left, used)``."""
    memo = Dict.empty(key_type=_MEMO_KEY, value_type=types.int64)
    f_lo = np.empty(depth_max, dtype=np.int64)
    f_hi = np.empty(depth_max, dtype=np.int64)
    f_used = np.empty(depth_max, dtype=np.int64)
    f_bound = np.empty(depth_max, dtype=np.int64)
    f_c = np.empty(depth_max, dtype=np.int64)
    f_j = np.empty(depth_max, dtype=np.int64)
    f_o = np.empty(depth_max, dtype=np.int64)
    f_best = np.empty(depth_max, dtype=np.int64)
    f_add = np.empty(depth_max, dtype=np.int64)
    depth = 0
    lo, hi, used, bound = lo0, hi0, 0, bound0
    entering = True
    ret = 0
    while True:
        if entering:  # a call of rec(h, used, bound)
            pushed = False
            j = _lowest(lo, hi)
            if j < 0:
                ret = 0
            else:
                c = comp[j]
                used &= relevant[c]
                known = memo.get((lo, hi, used), -1)
                if known >= 0:
                    ret = known
                else:
                    budget[0] -= 1
                    if budget[0] < 0:
                        return _TOO_BIG
                    f_lo[depth], f_hi[depth], f_used[depth], f_bound[depth] = lo, hi, used, bound
                    f_c[depth], f_j[depth], f_o[depth], f_best[depth], f_add[depth] = c, j, opt_start[c], -1, 0
                    depth += 1
                    pushed = True
            if not pushed:  # answered at once: ``ret`` goes back to the caller
                entering = False
                continue
        else:  # ``ret`` is the value of the call just made
            if depth == 0:
                return ret
            top = depth - 1
            got = f_add[top] + ret
            if got > f_best[top]:
                f_best[top] = got
        # try the next choice of the top frame (``melds._search.rec``'s loop)
        top = depth - 1
        c = f_c[top]
        end = opt_start[c] + opt_count[c]
        called = False
        while f_o[top] < end:
            o = f_o[top]
            f_o[top] += 1
            loss = opt_loss[o]
            if f_bound[top] - loss <= f_best[top] * SHARE_SCALE:
                f_o[top] = end  # this choice, and every later one, cannot beat the best found
                break
            play = opt_play[o]
            if play < 0:
                lo, hi = _without(f_lo[top], f_hi[top], f_j[top])
                used, bound = f_used[top], f_bound[top] - loss
                f_add[top] = 0
            else:
                bit = opt_bit[o]
                if f_used[top] & bit:
                    continue
                lo, hi = f_lo[top], f_hi[top]
                missing = False
                for i in range(play_len[play]):
                    x = play_cards[play, i]
                    found = False
                    for q in range(pos_of[x], pos_of[x] + count_of[x]):
                        if _has(lo, hi, q):
                            lo, hi = _without(lo, hi, q)
                            found = True
                            break
                    if not found:
                        missing = True
                        break
                if missing:
                    continue
                score = opt_score[o]
                used, bound = f_used[top] | bit, f_bound[top] - loss - score * SHARE_SCALE
                f_add[top] = score
            called = True
            break
        if called:
            entering = True
            continue
        memo[(f_lo[top], f_hi[top], f_used[top])] = f_best[top]
        ret = f_best[top]
        depth -= 1
        entering = False


@njit
def _search(comp, size, by_start, by_count, by_play, play_cards, play_len, play_target, play_value, budget) -> int:
    """``melds._search`` of one component (``comp[:size]``, rank-major); its best score or ``_TOO_BIG``."""
    share = np.zeros(NC, dtype=np.int64)
    last = np.full(M.NUM_CARDS, -1, dtype=np.int64)  # by table target (at most 48)
    pos_of = np.zeros(NC, dtype=np.int64)
    count_of = np.zeros(NC, dtype=np.int64)
    firsts = np.empty(size, dtype=np.int64)
    num_firsts = 0
    for j in range(size):
        c = comp[j]
        if count_of[c] == 0:
            pos_of[c] = j
            firsts[num_firsts] = c
            num_firsts += 1
        count_of[c] += 1
    for f in range(num_firsts):
        c = firsts[f]
        for b in range(by_start[c], by_start[c] + by_count[c]):
            play = by_play[b]
            length = play_len[play]
            per_card = (play_value[play] * CARD_SLOTS + length) * SHARE_SCALE // length
            for i in range(length):
                x = play_cards[play, i]
                if share[x] < per_card:
                    share[x] = per_card
            t = play_target[play]
            if t >= 0:
                last[t] = max(last[t], _rank_major(c))
    total_options = num_firsts
    for f in range(num_firsts):
        total_options += by_count[firsts[f]]
    opt_start = np.zeros(NC, dtype=np.int64)
    opt_count = np.zeros(NC, dtype=np.int64)
    opt_loss = np.empty(total_options, dtype=np.int64)
    opt_play = np.empty(total_options, dtype=np.int64)
    opt_bit = np.empty(total_options, dtype=np.int64)
    opt_score = np.empty(total_options, dtype=np.int64)
    relevant = np.zeros(NC, dtype=np.int64)
    at = 0
    for f in range(num_firsts):
        c = firsts[f]
        opt_start[c] = at
        opt_loss[at], opt_play[at], opt_bit[at], opt_score[at] = share[c], -1, 0, 0
        count = 1
        for b in range(by_start[c], by_start[c] + by_count[c]):
            play = by_play[b]
            length = play_len[play]
            score = play_value[play] * CARD_SLOTS + length
            loss = -score * SHARE_SCALE
            for i in range(length):
                loss += share[play_cards[play, i]]
            t = play_target[play]
            # stable insertion by loss (``list.sort``: ties keep their order)
            w = at + count
            while w > at and opt_loss[w - 1] > loss:
                opt_loss[w], opt_play[w], opt_bit[w], opt_score[w] = (
                    opt_loss[w - 1],
                    opt_play[w - 1],
                    opt_bit[w - 1],
                    opt_score[w - 1],
                )
                w -= 1
            opt_loss[w], opt_play[w], opt_bit[w], opt_score[w] = loss, play, (1 << t) if t >= 0 else 0, score
            count += 1
        opt_count[c] = count
        at += count
        p = _rank_major(c)
        mask = 0
        for t in range(M.NUM_CARDS):
            if last[t] >= p:
                mask |= 1 << t
        relevant[c] = mask
    bound = 0
    lo = hi = 0
    for j in range(size):
        bound += share[comp[j]]
        if j < 64:
            lo |= 1 << j
        else:
            hi |= 1 << (j - 64)
    return _solve(lo, hi, bound, size + 2, comp, pos_of, count_of, relevant, opt_start, opt_count, opt_loss,
                  opt_play, opt_bit, opt_score, play_cards, play_len, budget)  # fmt: skip


@njit
def best_playout(hand: np.ndarray, table: np.ndarray, melds_at: int, num_melds: int) -> tuple[int, int]:
    """``melds.best_playout`` of ``hand`` (52 counts, no aces) against the ``num_melds`` meld slots of
    ``table`` from ``melds_at``:
    ``(points, cards played)``, or ``(NOT_SOLVED, 0)`` where it would pass its state budget."""
    play_cards = np.empty((MAX_PLAYS, MAX_MELD_CARDS), dtype=np.int8)
    play_len = np.empty(MAX_PLAYS, dtype=np.int64)
    play_target = np.empty(MAX_PLAYS, dtype=np.int64)
    play_value = np.empty(MAX_PLAYS, dtype=np.int64)
    n = enumerate_plays(hand, table, melds_at, num_melds, play_cards, play_len, play_target, play_value)
    if n < 0:
        return NOT_SOLVED, 0
    if n == 0:
        return 0, 0
    parent = np.arange(NC + num_melds)
    usable = np.zeros(NC, dtype=np.bool_)
    by_count = np.zeros(NC, dtype=np.int64)
    for play in range(n):
        first = play_cards[play, 0]
        root = _find(parent, first)
        low = first
        for i in range(play_len[play]):
            x = play_cards[play, i]
            usable[x] = True
            if i:
                parent[_find(parent, x)] = root
            if _rank_major(x) < _rank_major(low):
                low = x
        t = play_target[play]
        if t >= 0:
            parent[_find(parent, NC + t)] = root
        by_count[low] += 1
    by_start = np.zeros(NC, dtype=np.int64)
    for c in range(1, NC):
        by_start[c] = by_start[c - 1] + by_count[c - 1]
    by_play = np.empty(n, dtype=np.int64)
    filled = np.zeros(NC, dtype=np.int64)
    for play in range(n):
        low = play_cards[play, 0]
        for i in range(1, play_len[play]):
            if _rank_major(play_cards[play, i]) < _rank_major(low):
                low = play_cards[play, i]
        by_play[by_start[low] + filled[low]] = play
        filled[low] += 1
    # components in the order of their first card, rank-major; each card list rank-major
    order = np.empty(NC, dtype=np.int64)  # component roots in order of appearance
    num_components = 0
    comp_of = np.full(NC + num_melds, -1, dtype=np.int64)
    cards_in = np.zeros(NC, dtype=np.int64)
    for key in range(NC):
        c = (key % 4) * NR + key // 4
        if hand[c] > 0 and usable[c]:
            root = _find(parent, c)
            if comp_of[root] < 0:
                comp_of[root] = num_components
                order[num_components] = root
                num_components += 1
            cards_in[comp_of[root]] += hand[c]
    budget = np.full(1, BUDGET, dtype=np.int64)
    total = 0
    for k in range(num_components):
        comp = np.empty(cards_in[k], dtype=np.int64)
        size = 0
        for key in range(NC):
            c = (key % 4) * NR + key // 4
            if hand[c] > 0 and usable[c] and comp_of[_find(parent, c)] == k:
                for _ in range(hand[c]):
                    comp[size] = c
                    size += 1
        if size > 128:
            return NOT_SOLVED, 0
        got = _search(comp, size, by_start, by_count, by_play, play_cards, play_len, play_target, play_value, budget)
        if got == _TOO_BIG:
            return NOT_SOLVED, 0
        total += got
    return total // CARD_SLOTS, total % CARD_SLOTS
