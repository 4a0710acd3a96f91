"""Tip of the Diceberg as a compiled batched engine: ``rules.py``'s transitions as numba functions on one state row.

The catalog (any catalog the scalar env accepts: the default one, a custom file, inline data) is
encoded into the ``int64`` config row at construction: the starter slots of the player count, the
power decks (or the ``main_cards`` fixed in their place), every card's power, its pattern as 17
integers (:data:`PATTERN_FIELDS`), the items the pattern allows as a bitmask and the pattern's
observation features as float32 bits. The kernels read the catalog from there, so one compiled
engine serves every catalog.

One game is one ``int32`` row (offsets below): where each card is (a seat, undealt, out of the
round, on slot ``k``), each die's value and place, the slots' cards and takers, points, this
round's out-order, the phase and seats of the trick, the draft picks left, the meld being composed
and the dice marked for a re-roll, the winners, and at the end one packed entry per finished round
(so the row is ``BASE_WIDTH + num_rounds`` wide).

Legal items while composing a meld (``rules.compose_options``): the scalar engine enumerates every
meld of every open slot's pattern (with a cache) and walks a prefix tree; here an item is legal when
the selection plus that item can still be completed to a meld of some open slot, decided by a
depth-first search for one completion (pruned by the same bounds as ``patterns.enumerate_melds``),
with the same canonical choice of identical dice. Both give exactly the melds of ``patterns.matches``.

Chance: every shuffle (a power deck's revealed card, the start player, each round's deal) is a
Fisher-Yates shuffle from the last position down, one :func:`draw` ``(0, i + 1)`` per position, as
``rng.permutation(n)`` is asked by ``rules.py``; dice are one :func:`draw` ``(1, faces + 1)`` each in
``rules._roll``'s order. The parity tests replay these draws into the scalar engine with a scripted
generator whose ``permutation`` makes the same shuffle from the scripted integers (a numpy generator
shuffles with its own internal draws, so the streams of the two engines differ, as they do for
every compiled engine; the distribution is the same).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ice_envs.core.compiled import CompiledEngine, GameKernels, draw, njit
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import MAX_CATALOG, MAX_SLOTS, POWERS
from ice_envs.tip_of_the_diceberg.env import (
    DIE_LOC_SIZE,
    MAX_SEATS,
    MELD_WIDTH,
    PAST_PLACES,
    PAST_ROUNDS,
    PATTERN_FEATURES,
    SEAT_SIZE,
    SLOT_SIZE,
    layout_for,
    pattern_features,
)
from ice_envs.tip_of_the_diceberg.patterns import (
    CARD_NUMBER,
    CARD_SUIT,
    DICE_PER_TYPE,
    DIE_TYPE,
    ITEM_DIE0,
    MAX_MELD,
    MAX_NUMBER,
    NUM_CARDS,
    NUM_DICE,
    PARITY_SAME,
    SUIT_FACES,
    Pattern,
)

#: For the small predicates the meld search calls most: compiled into each caller (a call costs more than they do).
inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

NC, ND = NUM_CARDS, NUM_DICE
NI = NC + ND  # items
MAXP = MAX_SEATS
#: Card places besides a seat (0..4); a card on slot ``k`` is at ``ON_SLOT - k``.
UNDEALT, REMOVED, NOT_IN_DECK, ON_SLOT = -1, -2, -3, -10
#: Die places besides a seat: ``rules.POOL`` and ``rules.UNUSED``; a die on slot ``k`` is at ``ON_SLOT - k``.
POOL, UNUSED = rules.POOL, rules.UNUSED

# ---------------------------------------------------------------------------- state row
CARD_LOC = 0
DIE_VAL = CARD_LOC + NC
DIE_LOC = DIE_VAL + ND
SLOT_CARD = DIE_LOC + ND
SLOT_PLAYER = SLOT_CARD + MAX_SLOTS
POINTS = SLOT_PLAYER + MAX_SLOTS
#: 1-based place of each seat in this round's out-order (0: still in).
OUT_RANK = POINTS + MAXP
OUT_LEN = OUT_RANK + MAXP
PHASE = OUT_LEN + 1
CURRENT = PHASE + 1
ROUND = CURRENT + 1
START = ROUND + 1
LEADER = START + 1
LAST = LEADER + 1
PASSES = LAST + 1
TRICKS = PASSES + 1
DRAFT_LEFT = TRICKS + 1
SEL = DRAFT_LEFT + 1
SEL_LEN = SEL + NI
SEL_LAST = SEL_LEN + 1
MARK = SEL_LAST + 1
MARK_LEN = MARK + ND
MARK_LAST = MARK_LEN + 1
WINNER = MARK_LAST + 1
#: Then one entry per finished round: its out-order packed as ``len | s0 << 2 | s1 << 5 | s2 << 8``.
HISTORY = WINNER + MAXP
BASE_WIDTH = HISTORY

# ---------------------------------------------------------------------------- config row
#: Pattern fields per catalog card, in this order.
PATTERN_FIELDS = (
    "count_min",
    "count_max",
    "same_number",
    "same_suit",
    "distinct_numbers",
    "distinct_suits",
    "run",
    "sum_min",
    "sum_max",
    "value_min",
    "value_max",
    "parity",
    "suits",
    "dice_min",
    "dice_max",
    "cards_min",
    "cards_max",
)
(
    F_CMIN,
    F_CMAX,
    F_SAME_N,
    F_SAME_S,
    F_DIST_N,
    F_DIST_S,
    F_RUN,
    F_SMIN,
    F_SMAX,
    F_VMIN,
    F_VMAX,
    F_PARITY,
    F_SUITS,
    F_DMIN,
    F_DMAX,
    F_KMIN,
    F_KMAX,
) = range(len(PATTERN_FIELDS))
NF = len(PATTERN_FIELDS)
NUM_DECKS = len(POWERS)
C_PLAYERS, C_ROUNDS, C_COMPULSORY, C_START_PLAYER, C_NSTART, C_NDECKS, C_NSLOTS = range(7)
C_STARTERS = 7
C_DECK_FIXED = C_STARTERS + MAX_SLOTS
C_DECK_START = C_DECK_FIXED + NUM_DECKS
C_DECK_LEN = C_DECK_START + NUM_DECKS
C_DECK_CARDS = C_DECK_LEN + NUM_DECKS
C_POWER = C_DECK_CARDS + MAX_CATALOG
C_PATTERN = C_POWER + MAX_CATALOG
#: Per card two words: bit ``suit * 21 + number`` set when the pattern allows such an item (``Pattern.allowed``).
C_ALLOWED = C_PATTERN + NF * MAX_CATALOG
#: Per card its :data:`PATTERN_FEATURES` observation features (``env.pattern_features``), each a float32's bits
#: in both halves of a word (read through a float32 view of the row: entry ``2 * word``).
C_FEATURES = C_ALLOWED + 2 * MAX_CATALOG
#: Per card the float32 entries its slot's observation row holds from ``SLOT_POWER_AT`` to ``SLOT_CARD_AT`` (the
#: power one-hot, then the pattern features), packed two to a word in this machine's order (a float32 view of the
#: row reads them contiguously: one copy per slot instead of one write per entry).
C_SLOT_IMAGE = C_FEATURES + PATTERN_FEATURES * MAX_CATALOG
SLOT_IMAGE_FLOATS = 1 + len(POWERS) + PATTERN_FEATURES
SLOT_IMAGE_WORDS = (SLOT_IMAGE_FLOATS + 1) // 2
CONFIG_WIDTH = C_SLOT_IMAGE + SLOT_IMAGE_WORDS * MAX_CATALOG

# ---------------------------------------------------------------------------- observation offsets (one layout)
_LAY = layout_for(None)  # type: ignore[arg-type]  # the layout is the same for every configuration
O_HAND, O_TABLE, O_REMOVED, O_VALUES, O_LOCS, O_SLOTS, O_SEATS = (
    _LAY.offset(name) for name in ("hand", "table", "removed", "die_values", "die_locations", "slots", "seats")
)
O_ROUND, O_LAST_ROUND, O_PHASE, O_SELECTION, O_MARKS, O_PASSES, O_POOL, O_DRAFT = (
    _LAY.offset(name) for name in ("round", "last_round", "phase", "selection", "marks", "passes", "pool", "draft_left")
)
O_SLOT_MELDS, O_PAST = _LAY.offset("slot_melds"), _LAY.offset("past_out_orders")
SLOT_POWER_AT = 2 + MAX_SEATS
SLOT_FEATURES_AT = SLOT_POWER_AT + 1 + len(POWERS)
SLOT_CARD_AT = SLOT_FEATURES_AT + PATTERN_FEATURES

# ---------------------------------------------------------------------------- constant tables
ITEM_SUIT = np.array(list(CARD_SUIT) + list(DIE_TYPE), dtype=np.int64)
CARD_NUM = np.array(CARD_NUMBER, dtype=np.int64)
ROLL_HIGH = np.array([SUIT_FACES[DIE_TYPE[d]] + 1 for d in range(ND)], dtype=np.int64)
DECK_MAX = np.array([0, 0, 0, 8, 12, 20], dtype=np.int64)
DICE_PER_TYPE_FOR = np.array([0, 0, 0, 2, 3, 3], dtype=np.int64)
POINTS_FOR = np.array([3, 2, 1], dtype=np.int64)

PLAY, DRAFT, TAKE, DISCARD, REROLL, OVER = (
    rules.PHASE_PLAY,
    rules.PHASE_DRAFT,
    rules.PHASE_TAKE,
    rules.PHASE_DISCARD,
    rules.PHASE_REROLL,
    rules.PHASE_OVER,
)
POWER_NONE, POWER_REROLL, POWER_DISCARD, POWER_TAKE, POWER_CLEAR = 0, 1, 2, 3, 4
A_COMMIT, A_PASS, A_PASS_TAKE, A_DRAFT = rules.COMMIT, rules.PASS, rules.PASS_TAKE, rules.DRAFT
A_TAKE, A_DISCARD, A_MARK, A_REROLL, A_DECLINE = rules.TAKE, rules.DISCARD, rules.MARK, rules.REROLL, rules.DECLINE
#: Most items one seat can hold (12 cards and every die).
MAX_HELD = rules.HAND_SIZE + ND


# ============================================================================ helpers
@njit
def _shuffle(rng: np.ndarray, order: np.ndarray, n: int) -> None:
    """``order[:n] = rng.permutation(n)`` as the parity tests script it (Fisher-Yates, last position first)."""
    for i in range(n):
        order[i] = i
    for i in range(n - 1, 0, -1):
        j = draw(rng, 0, i + 1)
        order[i], order[j] = order[j], order[i]


@njit
def _is_out(s: np.ndarray, p: int) -> bool:
    return s[OUT_RANK + p] != 0


@njit
def _next_active(s: np.ndarray, seat: int, n: int) -> int:
    """``rules.next_active``."""
    for i in range(1, n + 1):
        q = (seat + i) % n
        if s[OUT_RANK + q] == 0:
            return q
    return seat


@njit
def _holds_nothing(s: np.ndarray, seat: int) -> bool:
    for c in range(NC):
        if s[CARD_LOC + c] == seat:
            return False
    for d in range(ND):
        if s[DIE_LOC + d] == seat:
            return False
    return True


@njit
def _holds_die(s: np.ndarray, seat: int) -> bool:
    for d in range(ND):
        if s[DIE_LOC + d] == seat:
            return True
    return False


@njit
def _holds_card(s: np.ndarray, seat: int) -> bool:
    for c in range(NC):
        if s[CARD_LOC + c] == seat:
            return True
    return False


@njit
def _pool_has_die(s: np.ndarray) -> bool:
    for d in range(ND):
        if s[DIE_LOC + d] == POOL:
            return True
    return False


@njit
def _roll_pool(s: np.ndarray, rng: np.ndarray) -> None:
    for d in range(ND):
        if s[DIE_LOC + d] == POOL:
            s[DIE_VAL + d] = draw(rng, 1, ROLL_HIGH[d])


@njit
def _clear_choices(s: np.ndarray) -> None:
    """``selection = []`` and ``marks = []``."""
    if s[SEL_LEN]:
        for i in range(NI):
            s[SEL + i] = 0
    s[SEL_LEN] = 0
    s[SEL_LAST] = -1
    if s[MARK_LEN]:
        for d in range(ND):
            s[MARK + d] = 0
    s[MARK_LEN] = 0
    s[MARK_LAST] = -1


@njit
def _begin_play(s: np.ndarray, leader: int) -> None:
    s[PHASE] = PLAY
    s[LEADER] = leader
    s[CURRENT] = leader
    s[LAST] = -1
    s[PASSES] = 0


@njit
def _snake_seat(start: int, n: int, pick: int) -> int:
    """Seat of pick ``pick`` (0-based) of ``rules.snake_order(start, n)``."""
    return (start + pick) % n if pick < n else (start + 2 * n - 1 - pick) % n


# ============================================================================ patterns
@inline
def _item_key(suit: int, number: int) -> int:
    """An item's bit in a pattern's two allowed words (:func:`allowed_words`: ``suit * 21 + number``)."""
    return suit * (MAX_NUMBER + 1) + number


@inline
def _allowed(cfg: np.ndarray, card: int, suit: int, number: int) -> bool:
    """``Pattern.allows_item`` of catalog card ``card`` (from the config row's bitmask)."""
    key = _item_key(suit, number)
    return (cfg[C_ALLOWED + 2 * card + (key >> 6)] >> (key & 63)) & 1 == 1


@inline
def _pattern_of(cfg: np.ndarray, pat: int) -> tuple:
    """The :data:`PATTERN_FIELDS` of the pattern at ``pat`` as a tuple (read once per slot: in a search they stay
    in registers, where reads of the config row would be repeated after every store into the search's table)."""
    return (
        cfg[pat + F_CMIN],
        cfg[pat + F_CMAX],
        cfg[pat + F_SAME_N],
        cfg[pat + F_SAME_S],
        cfg[pat + F_DIST_N],
        cfg[pat + F_DIST_S],
        cfg[pat + F_RUN],
        cfg[pat + F_SMIN],
        cfg[pat + F_SMAX],
        cfg[pat + F_VMIN],
        cfg[pat + F_VMAX],
        cfg[pat + F_PARITY],
        cfg[pat + F_SUITS],
        cfg[pat + F_DMIN],
        cfg[pat + F_DMAX],
        cfg[pat + F_KMIN],
        cfg[pat + F_KMAX],
    )


@inline
def _complete_in(f: tuple, cnt: int, total: int, lo: int, hi: int, nd: int) -> bool:
    """:func:`_complete` on the pattern fields ``f`` (:func:`_pattern_of`)."""
    return (
        cnt >= 1
        and cnt >= f[F_CMIN]
        and total >= f[F_SMIN]
        and nd >= f[F_DMIN]
        and cnt - nd >= f[F_KMIN]
        and (not f[F_RUN] or hi - lo == cnt - 1)
    )


@inline
def _complete(cfg: np.ndarray, pat: int, cnt: int, total: int, lo: int, hi: int, nd: int) -> bool:
    """A partial meld that passed every check of :func:`_fits` is a meld of the pattern (``patterns.matches``)."""
    return _complete_in(_pattern_of(cfg, pat), cnt, total, lo, hi, nd)


@inline
def _fits_in(f: tuple, cnt: int, total: int, v0: int, s0: int, smask: int, nmask: int, lo: int, hi: int, nd: int,
             v: int, t: int, d: int) -> bool:  # fmt: skip
    """:func:`_fits` on the pattern fields ``f`` (:func:`_pattern_of`)."""
    cmax = f[F_CMAX]
    if cnt + 1 > cmax or total + v > f[F_SMAX]:
        return False
    if cnt:
        if f[F_PARITY] == PARITY_SAME and (v ^ v0) & 1:
            return False
        if f[F_SAME_N] and v != v0:
            return False
        if f[F_SAME_S] and t != s0:
            return False
    if f[F_DIST_S] and (smask >> t) & 1:
        return False
    run = f[F_RUN]
    if (f[F_DIST_N] or run) and (nmask >> v) & 1:
        return False
    if run and cnt:
        nlo = v if v < lo else lo
        nhi = v if v > hi else hi
        if nhi - nlo >= cmax:
            return False
    if d:
        if nd + 1 > min(f[F_DMAX], cmax - f[F_KMIN]):
            return False
    elif cnt + 1 - nd > min(f[F_KMAX], cmax - f[F_DMIN]):
        return False
    return True


@inline
def _fits(cfg: np.ndarray, pat: int, cnt: int, total: int, v0: int, s0: int, smask: int, nmask: int, lo: int,
          hi: int, nd: int, v: int, t: int, d: int) -> bool:  # fmt: skip
    """Whether an allowed item (number ``v``, suit ``t``, a die if ``d``) may join a partial meld of ``cnt`` items."""
    return _fits_in(_pattern_of(cfg, pat), cnt, total, v0, s0, smask, nmask, lo, hi, nd, v, t, d)


#: Rows of the one scratch table of :func:`_slot_options` (indexed in place: no row views, whose reference counts
#: would cost more than the search). The held items, by their index ``j`` in item id order: item id, suit, number,
#: is a die, the index of the previous identical held die (-1: none), the item's bit in a pattern's two allowed
#: words (``suit * 21 + number``). Identical dice are allowed by the same patterns, so a slot's candidates are
#: the held items its pattern allows: one bitmask over ``j``, no copy.
H_ID, H_SUIT, H_NUM, H_DIE, H_PREV, H_KEY = range(6)
#: For the current slot, from held index ``j`` on: the candidates left, their largest number, their dice.
S_LEFT, S_MAX, S_DICE = range(6, 9)
#: The row of depth 0 of the search of :func:`_completable` (depth ``k`` at ``WORK + k``), and its columns: the
#: partial meld (count, total, first number and suit, suits and numbers seen as bitmasks, lowest and highest
#: number, dice), the next held index to try and the held items chosen (a bitmask).
WORK = S_DICE + 1
W_CNT, W_TOTAL, W_V0, W_S0, W_SMASK, W_NMASK, W_LO, W_HI, W_ND, W_POS, W_CHOSEN = range(11)
TABLE_ROWS = WORK + MAX_MELD + 1


@inline
def _completable(f: tuple, b: np.ndarray, n: int, allowed: int, start: int, chosen: int, cnt: int, total: int,
                 v0: int, s0: int, smask: int, nmask: int, lo: int, hi: int, nd: int) -> bool:  # fmt: skip
    """Whether a partial meld (the held items ``chosen``) can be completed with the candidates ``allowed`` from
    held index ``start`` on (pattern fields ``f``): a depth-first search for one meld, identical dice in held order, pruned as
    ``enumerate_melds`` (the rows ``S_*`` of table ``b`` hold the current slot's bounds)."""
    if _complete_in(f, cnt, total, lo, hi, nd):
        return True
    cmin, cmax, smin, dmin = f[F_CMIN], f[F_CMAX], f[F_SMIN], f[F_DMIN]
    if cnt >= cmax:
        return False
    w = WORK
    b[w, W_CNT], b[w, W_TOTAL], b[w, W_V0], b[w, W_S0], b[w, W_SMASK] = cnt, total, v0, s0, smask
    b[w, W_NMASK], b[w, W_LO], b[w, W_HI], b[w, W_ND], b[w, W_POS], b[w, W_CHOSEN] = nmask, lo, hi, nd, start, chosen
    while w >= WORK:
        i = b[w, W_POS]
        c, tot, nd_ = b[w, W_CNT], b[w, W_TOTAL], b[w, W_ND]
        room = cmax - c
        if (
            i >= n
            or b[S_LEFT, i] < cmin - c
            or (smin and tot + room * b[S_MAX, i] < smin)
            or (dmin and nd_ + min(room, b[S_DICE, i]) < dmin)
        ):
            w -= 1
            continue
        b[w, W_POS] = i + 1
        if not (allowed >> i) & 1:
            continue
        took = b[w, W_CHOSEN]
        prev = b[H_PREV, i]
        if prev >= 0 and not (took >> prev) & 1:
            continue
        v, t, d = b[H_NUM, i], b[H_SUIT, i], b[H_DIE, i]
        lo_, hi_ = b[w, W_LO], b[w, W_HI]
        if not _fits_in(f, c, tot, b[w, W_V0], b[w, W_S0], b[w, W_SMASK], b[w, W_NMASK], lo_, hi_, nd_, v, t, d):
            continue
        c2, t2, nd2 = c + 1, tot + v, nd_ + d
        lo2 = lo_ if (c and lo_ <= v) else v
        hi2 = hi_ if (c and hi_ >= v) else v
        if _complete_in(f, c2, t2, lo2, hi2, nd2):
            return True
        if c2 >= cmax:
            continue
        x = w + 1
        b[x, W_CNT], b[x, W_TOTAL] = c2, t2
        b[x, W_V0] = b[w, W_V0] if c else v
        b[x, W_S0] = b[w, W_S0] if c else t
        b[x, W_SMASK] = b[w, W_SMASK] | (1 << t)
        b[x, W_NMASK] = b[w, W_NMASK] | (1 << v)
        b[x, W_LO], b[x, W_HI], b[x, W_ND], b[x, W_POS], b[x, W_CHOSEN] = lo2, hi2, nd2, i + 1, took | (1 << i)
        w = x
    return False


@njit
def _held_items(s: np.ndarray, seat: int, ids: np.ndarray, suit: np.ndarray, num: np.ndarray, die: np.ndarray) -> int:
    """``rules.items_of``: the items ``seat`` holds, by item id; returns how many."""
    n = 0
    for c in range(NC):
        if s[CARD_LOC + c] == seat:
            ids[n] = c
            suit[n] = ITEM_SUIT[c]
            num[n] = CARD_NUM[c]
            die[n] = 0
            n += 1
    for d in range(ND):
        if s[DIE_LOC + d] == seat:
            ids[n] = ITEM_DIE0 + d
            suit[n] = ITEM_SUIT[ITEM_DIE0 + d]
            num[n] = s[DIE_VAL + d]
            die[n] = 1
            n += 1
    return n


@njit
def _held_table(s: np.ndarray, seat: int, b: np.ndarray) -> int:
    """:func:`_held_items` into the rows ``H_*`` of table ``b``, each die with its previous identical held die."""
    n = 0
    for c in range(NC):
        if s[CARD_LOC + c] == seat:
            b[H_ID, n], b[H_SUIT, n], b[H_NUM, n], b[H_DIE, n], b[H_PREV, n] = c, ITEM_SUIT[c], CARD_NUM[c], 0, -1
            b[H_KEY, n] = _item_key(ITEM_SUIT[c], CARD_NUM[c])
            n += 1
    cards = n
    for d in range(ND):
        if s[DIE_LOC + d] == seat:
            t, v = ITEM_SUIT[ITEM_DIE0 + d], s[DIE_VAL + d]
            b[H_ID, n], b[H_SUIT, n], b[H_NUM, n], b[H_DIE, n], b[H_PREV, n] = ITEM_DIE0 + d, t, v, 1, -1
            b[H_KEY, n] = _item_key(t, v)
            for q in range(n - 1, cards - 1, -1):  # identical dice are allowed by the same patterns
                if b[H_SUIT, q] == t and b[H_NUM, q] == v:
                    b[H_PREV, n] = q
                    break
            n += 1
    return n


@njit
def _slot_options(s: np.ndarray, cfg: np.ndarray, seat: int, mask: np.ndarray, use_selection: bool,
                  open_only: bool) -> bool:  # fmt: skip
    """``rules.compose_options`` into ``mask`` (items at their action ids, completed slots at ``COMMIT + k``);
    with ``mask`` of length 0, only whether some slot has some meld of ``seat``'s items (``rules.deadlocked``)."""
    b = np.empty((TABLE_ROWS, MAX_HELD + 1), dtype=np.int64)  # one allocation: held items, bounds, search
    n = _held_table(s, seat, b)
    probe = mask.shape[0] == 0
    sel_len = s[SEL_LEN] if use_selection else 0
    sel_last = s[SEL_LAST] if use_selection else -1
    # held items that may still be found legal (after the selection's last item, not found yet), one bit each
    open_bits = 0
    for j in range(n):
        if b[H_ID, j] > sel_last:
            open_bits |= 1 << j
    # the held items of the selection, one bit each
    sel_bits = 0
    if sel_len:
        for j in range(n):
            if s[SEL + b[H_ID, j]]:
                sel_bits |= 1 << j
    any_meld = False
    # the slots in their order (the mask is a union: any order gives it; sorting them cost more than it saved)
    for k in range(cfg[C_NSLOTS]):
        if open_only and s[SLOT_PLAYER + k] >= 0:
            continue
        if not sel_len and not open_bits and not probe:
            break  # every item is legal already and no selection completes a slot
        card = s[SLOT_CARD + k]
        f = _pattern_of(cfg, C_PATTERN + NF * card)
        # the candidates: the held items this pattern allows, one bit each; searched only if one may turn legal
        allowed = 0
        m = 0
        low, high = cfg[C_ALLOWED + 2 * card], cfg[C_ALLOWED + 2 * card + 1]  # as _allowed: bit ``key`` of the two
        for j in range(n):
            key = b[H_KEY, j]
            bit = ((high if key >= 64 else low) >> (key & 63)) & 1
            allowed |= bit << j
            m += bit
        if m < f[F_CMIN] or not (allowed & open_bits or sel_len) or sel_bits & ~allowed:
            continue
        # the selection as a partial meld of this slot
        cnt = total = v0 = s0 = smask = nmask = lo = hi = nd = 0
        if sel_len:
            ok = True
            for j in range(n):
                if (sel_bits >> j) & 1:
                    v, t, d = b[H_NUM, j], b[H_SUIT, j], b[H_DIE, j]
                    if not _fits_in(f, cnt, total, v0, s0, smask, nmask, lo, hi, nd, v, t, d):
                        ok = False
                        break
                    if cnt == 0:
                        v0, s0, lo, hi = v, t, v, v
                    else:
                        lo = min(lo, v)
                        hi = max(hi, v)
                    cnt += 1
                    total += v
                    smask |= 1 << t
                    nmask |= 1 << v
                    nd += d
            if not ok:
                continue
            if _complete_in(f, cnt, total, lo, hi, nd):
                mask[A_COMMIT + k] = 1
        if not allowed & open_bits:
            continue  # nothing left to add here: only whether the selection completes the slot
        # the search's bounds from each held index on: candidates left, and (read only then) largest number, dice
        b[S_LEFT, n] = b[S_MAX, n] = b[S_DICE, n] = 0
        bounds = f[F_SMIN] or f[F_DMIN]
        for q in range(n - 1, -1, -1):
            here = (allowed >> q) & 1
            b[S_LEFT, q] = b[S_LEFT, q + 1] + here
            if bounds:
                b[S_MAX, q] = max(b[S_MAX, q + 1], b[H_NUM, q]) if here else b[S_MAX, q + 1]
                b[S_DICE, q] = b[S_DICE, q + 1] + (b[H_DIE, q] if here else 0)
        for q in range(n):
            if not ((allowed & open_bits) >> q) & 1:
                continue
            prev = b[H_PREV, q]
            if prev >= 0 and not (sel_bits >> prev) & 1:
                continue
            v, t, d = b[H_NUM, q], b[H_SUIT, q], b[H_DIE, q]
            if not _fits_in(f, cnt, total, v0, s0, smask, nmask, lo, hi, nd, v, t, d):
                continue
            nlo = v if (cnt == 0 or v < lo) else lo
            nhi = v if (cnt == 0 or v > hi) else hi
            good = _completable(
                f,
                b,
                n,
                allowed,
                q + 1,
                sel_bits | (1 << q),
                cnt + 1,
                total + v,
                v0 if cnt else v,
                s0 if cnt else t,
                smask | (1 << t),
                nmask | (1 << v),
                nlo,
                nhi,
                nd + d,
            )
            if good:
                if probe:
                    return True
                mask[b[H_ID, q]] = 1
                any_meld = True
                open_bits &= ~(1 << q)
    return any_meld


@njit
def _deadlocked(s: np.ndarray, cfg: np.ndarray, n: int) -> bool:
    """``rules.deadlocked``: no die in the pool and no seat still in has a meld for any slot."""
    if _pool_has_die(s):
        return False
    probe = np.zeros(0, dtype=np.int8)
    for p in range(n):
        if s[OUT_RANK + p] == 0 and _slot_options(s, cfg, p, probe, False, False):
            return False
    return True


# ============================================================================ setup
@njit
def _setup_round(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray, start: int) -> None:
    """``rules._setup_round``: deal, roll the pool, start the draft."""
    n = cfg[C_PLAYERS]
    limit = DECK_MAX[n]
    deck = np.empty(NC, dtype=np.int64)
    size = 0
    for c in range(NC):
        if CARD_NUM[c] <= limit:
            deck[size] = c
            size += 1
        s[CARD_LOC + c] = NOT_IN_DECK
    order = np.empty(NC, dtype=np.int64)
    _shuffle(rng, order, size)
    for i in range(size):
        c = deck[order[i]]
        p = i // rules.HAND_SIZE
        s[CARD_LOC + c] = p if p < n else UNDEALT
    per_type = DICE_PER_TYPE_FOR[n]
    for d in range(ND):
        s[DIE_LOC + d] = POOL if d % 3 < per_type else UNUSED
        s[DIE_VAL + d] = 1
    _roll_pool(s, rng)
    for k in range(MAX_SLOTS):
        s[SLOT_PLAYER + k] = -1
    for p in range(MAXP):
        s[OUT_RANK + p] = 0
    s[OUT_LEN] = 0
    s[START] = start
    s[LEADER] = start
    s[LAST] = -1
    s[PASSES] = 0
    _clear_choices(s)
    s[TRICKS] = 0
    s[DRAFT_LEFT] = 2 * n
    s[PHASE] = DRAFT
    s[CURRENT] = start


@njit
def new_game(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.new_game``: reveal the meld cards, draw the start player, set up the first round."""
    n = cfg[C_PLAYERS]
    s[:] = 0
    k = 0
    for j in range(cfg[C_NSTART]):
        s[SLOT_CARD + k] = cfg[C_STARTERS + j]
        k += 1
    order = np.empty(NC, dtype=np.int64)
    for j in range(cfg[C_NDECKS]):
        if cfg[C_DECK_FIXED + j] >= 0:
            s[SLOT_CARD + k] = cfg[C_DECK_FIXED + j]
        else:
            size = cfg[C_DECK_LEN + j]
            _shuffle(rng, order, size)
            s[SLOT_CARD + k] = cfg[C_DECK_CARDS + cfg[C_DECK_START + j] + order[0]]
        k += 1
    start = cfg[C_START_PLAYER]
    if start < 0:
        _shuffle(rng, order, n)
        start = order[0]
    for d in range(ND):
        s[DIE_VAL + d] = 1
    s[WINNER : WINNER + MAXP] = 0
    s[ROUND] = 0
    _setup_round(s, rng, cfg, start)


# ============================================================================ legal actions
@njit
def _distinct_pool(s: np.ndarray, mask: np.ndarray, base: int) -> None:
    """``rules._distinct_pool``: the lowest-slot pool die of each (type, value), at ``base + die``.

    Identical dice share a type, and a type's dice are three consecutive slots: each die is compared with the
    lower slots of its type, without branches (the pool changes every trick: branches would mispredict)."""
    for t in range(ND // DICE_PER_TYPE):
        d = DICE_PER_TYPE * t
        in0, in1, in2 = s[DIE_LOC + d] == POOL, s[DIE_LOC + d + 1] == POOL, s[DIE_LOC + d + 2] == POOL
        v0, v1, v2 = s[DIE_VAL + d], s[DIE_VAL + d + 1], s[DIE_VAL + d + 2]
        mask[base + d] = in0
        mask[base + d + 1] = in1 & (not (in0 & (v0 == v1)))
        mask[base + d + 2] = in2 & (not (in0 & (v0 == v2))) & (not (in1 & (v1 == v2)))


@njit
def legal(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray) -> None:
    """``rules.legal_actions`` as a mask."""
    mask[:] = 0
    phase = s[PHASE]
    seat = s[CURRENT]
    if phase == PLAY:
        _slot_options(s, cfg, seat, mask, True, True)
        if not s[SEL_LEN]:
            mask[A_PASS] = 1
            _distinct_pool(s, mask, A_PASS_TAKE)
    elif phase == DRAFT:
        _distinct_pool(s, mask, A_DRAFT)
    elif phase == OVER:
        return
    else:
        decline = not cfg[C_COMPULSORY]
        if phase == TAKE:
            _distinct_pool(s, mask, A_TAKE)
        elif phase == DISCARD:
            for c in range(NC):
                if s[CARD_LOC + c] == seat:
                    mask[A_DISCARD + c] = 1
        else:  # reroll: rules._markable
            for d in range(s[MARK_LAST] + 1, ND):
                if s[DIE_LOC + d] != seat:
                    continue
                t, v = ITEM_SUIT[ITEM_DIE0 + d], s[DIE_VAL + d]
                blocked = False
                for e in range(d):
                    if (
                        s[DIE_LOC + e] == seat
                        and ITEM_SUIT[ITEM_DIE0 + e] == t
                        and s[DIE_VAL + e] == v
                        and not s[MARK + e]
                    ):
                        blocked = True
                        break
                if not blocked:
                    mask[A_MARK + d] = 1
            if s[MARK_LEN]:
                mask[A_REROLL] = 1
                decline = False
        if decline:
            mask[A_DECLINE] = 1


# ============================================================================ apply
@njit
def _finish_rank(s: np.ndarray, p: int, n: int) -> int:
    r = s[OUT_RANK + p]
    return r - 1 if r else n


@njit
def _next_start_player(s: np.ndarray, n: int) -> int:
    """``rules.next_start_player`` (R5.3, I21)."""
    low = s[POINTS]
    for p in range(1, n):
        low = min(low, s[POINTS + p])
    latest = -1
    for p in range(n):
        if s[POINTS + p] == low:
            latest = max(latest, _finish_rank(s, p, n))
    count, first = 0, -1
    for p in range(n):
        if s[POINTS + p] == low and _finish_rank(s, p, n) == latest:
            count += 1
            if first < 0:
                first = p
    if count == 1:
        return first
    ref = s[START]
    if s[OUT_LEN]:
        for p in range(n):
            if s[OUT_RANK + p] == s[OUT_LEN]:
                ref = p
    for i in range(1, n + 1):
        q = (ref + i) % n
        if s[POINTS + q] == low and _finish_rank(s, q, n) == latest:
            return q
    return first


@njit
def _end_round(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._end_round``: the round's out-order into the history, then the next round or the end (R5.2-R5.6)."""
    n = cfg[C_PLAYERS]
    packed = s[OUT_LEN]
    for p in range(n):
        r = s[OUT_RANK + p]
        if r:
            packed |= p << (2 + 3 * (r - 1))
    s[HISTORY + s[ROUND]] = packed
    _clear_choices(s)
    if s[ROUND] + 1 >= cfg[C_ROUNDS]:
        s[PHASE] = OVER
        best = s[POINTS]
        for p in range(1, n):
            best = max(best, s[POINTS + p])
        first = n
        for p in range(n):
            if s[POINTS + p] == best:
                first = min(first, _finish_rank(s, p, n))
        for p in range(n):
            s[WINNER + p] = 1 if s[POINTS + p] == best and _finish_rank(s, p, n) == first else 0
        return
    start = _next_start_player(s, n)
    s[ROUND] += 1
    _setup_round(s, rng, cfg, start)


@njit
def _went_out(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray, seat: int) -> bool:
    """``rules._went_out`` (R4.1, R4.2, R5.1); True if that ended the round."""
    n = cfg[C_PLAYERS]
    k = s[OUT_LEN]
    s[OUT_LEN] = k + 1
    s[OUT_RANK + seat] = k + 1
    if k < 3:
        s[POINTS + seat] += POINTS_FOR[k]
    if n - (k + 1) <= (2 if n == 5 else 1):
        _end_round(s, rng, cfg)
        return True
    return False


@njit
def _clear_trick(s: np.ndarray, rng: np.ndarray, leader: int) -> None:
    """``rules._clear_trick`` (R2.5)."""
    for c in range(NC):
        if s[CARD_LOC + c] <= ON_SLOT:
            s[CARD_LOC + c] = REMOVED
    for d in range(ND):
        if s[DIE_LOC + d] <= ON_SLOT:
            s[DIE_LOC + d] = POOL
    for k in range(MAX_SLOTS):
        s[SLOT_PLAYER + k] = -1
    _roll_pool(s, rng)
    s[TRICKS] += 1
    _clear_choices(s)
    _begin_play(s, leader)


@njit
def _advance(s: np.ndarray, seat: int, n: int) -> None:
    s[PHASE] = PLAY
    s[CURRENT] = _next_active(s, seat, n)


@njit
def _pass(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._pass`` (R2.5-R2.8)."""
    n = cfg[C_PLAYERS]
    seat = s[CURRENT]
    s[PASSES] += 1
    n_active = n - s[OUT_LEN]
    last = s[LAST]
    if last >= 0:
        need = n_active if _is_out(s, last) else n_active - 1
    else:
        need = n_active
    if s[PASSES] < need:
        s[CURRENT] = _next_active(s, seat, n)
        return
    if last >= 0:
        leader = _next_active(s, last, n) if _is_out(s, last) else last
    else:
        if _deadlocked(s, cfg, n):
            _end_round(s, rng, cfg)
            return
        leader = _next_active(s, s[LEADER], n)
    _clear_trick(s, rng, leader)


@njit
def _play(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray, k: int) -> None:
    """``rules._play`` (R3.2, R4.1, R2.9)."""
    n = cfg[C_PLAYERS]
    seat = s[CURRENT]
    where = ON_SLOT - k
    for c in range(NC):
        if s[SEL + c]:
            s[CARD_LOC + c] = where
    for d in range(ND):
        if s[SEL + ITEM_DIE0 + d]:
            s[DIE_LOC + d] = where
    _clear_choices(s)
    s[SLOT_PLAYER + k] = seat
    s[LAST] = seat
    s[PASSES] = 0
    power = cfg[C_POWER + s[SLOT_CARD + k]]
    out = _holds_nothing(s, seat)
    if out and _went_out(s, rng, cfg, seat):
        return
    if power == POWER_CLEAR:
        _clear_trick(s, rng, _next_active(s, seat, n) if out else seat)
        return
    if not out and power != POWER_NONE:
        if (
            (power == POWER_REROLL and _holds_die(s, seat))
            or (power == POWER_DISCARD and _holds_card(s, seat))
            or (power == POWER_TAKE and _pool_has_die(s))
        ):
            s[PHASE] = REROLL if power == POWER_REROLL else (DISCARD if power == POWER_DISCARD else TAKE)
            return
    _advance(s, seat, n)


@njit
def apply(s: np.ndarray, action: int, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.apply_legal`` (the action is legal)."""
    n = cfg[C_PLAYERS]
    phase = s[PHASE]
    seat = s[CURRENT]
    if phase == PLAY:
        if action < A_COMMIT:
            s[SEL + action] = 1
            s[SEL_LEN] += 1
            s[SEL_LAST] = action
        elif action < A_PASS:
            _play(s, rng, cfg, action - A_COMMIT)
        else:
            if action >= A_PASS_TAKE:
                s[DIE_LOC + action - A_PASS_TAKE] = seat
            _pass(s, rng, cfg)
    elif phase == DRAFT:
        s[DIE_LOC + action - A_DRAFT] = seat
        s[DRAFT_LEFT] -= 1
        left = s[DRAFT_LEFT]
        if left:
            s[CURRENT] = _snake_seat(s[START], n, 2 * n - left)
        else:
            _begin_play(s, s[START])
    elif phase == TAKE:
        if action != A_DECLINE:
            s[DIE_LOC + action - A_TAKE] = seat
        _advance(s, seat, n)
    elif phase == DISCARD:
        if action != A_DECLINE:
            s[CARD_LOC + action - A_DISCARD] = REMOVED
            if _holds_nothing(s, seat) and _went_out(s, rng, cfg, seat):
                return
        _advance(s, seat, n)
    elif phase == REROLL:
        if A_MARK <= action < A_REROLL:
            d = action - A_MARK
            s[MARK + d] = 1
            s[MARK_LEN] += 1
            s[MARK_LAST] = d
            return
        if action == A_REROLL:
            for d in range(ND):
                if s[MARK + d]:
                    s[DIE_VAL + d] = draw(rng, 1, ROLL_HIGH[d])
        _clear_choices(s)
        _advance(s, seat, n)


@njit
def deciding(s: np.ndarray, cfg: np.ndarray) -> int:
    return s[CURRENT]


@njit
def is_over(s: np.ndarray, cfg: np.ndarray) -> bool:
    return s[PHASE] == OVER


@njit
def scores(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """Points so far (``rules.scores``)."""
    for p in range(cfg[C_PLAYERS]):
        out[p] = float(s[POINTS + p])


@njit
def outcome(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """+1 for each winner, -1 for the others; zeros while the game goes on (``rules.outcome``)."""
    over = s[PHASE] == OVER
    for p in range(cfg[C_PLAYERS]):
        out[p] = 0.0 if not over else (1.0 if s[WINNER + p] else -1.0)


# ============================================================================ observation
@inline
def _rel(p: int, seat: int, n: int) -> int:
    """``(p - seat) % n`` for seats ``p`` and ``seat`` (a compare instead of an integer division)."""
    r = p - seat
    return r + n if r < 0 else r


@njit
def encode(s: np.ndarray, seat: int, cfg: np.ndarray, obs: np.ndarray) -> None:
    """The env's observation of ``seat`` (``env._encode_fresh``; the caller zeroes ``obs``)."""
    n = cfg[C_PLAYERS]
    over = s[PHASE] == OVER
    phase = s[PHASE]
    image = cfg.view(np.float32)
    # static slot block and the seats present
    for k in range(cfg[C_NSLOTS]):
        row = O_SLOTS + SLOT_SIZE * k
        idx = s[SLOT_CARD + k]
        obs[row] = 1.0
        at = 2 * (C_SLOT_IMAGE + SLOT_IMAGE_WORDS * idx)
        to = row + SLOT_POWER_AT
        for f in range(SLOT_IMAGE_FLOATS):  # the power one-hot and the pattern features
            obs[to + f] = image[at + f]
        obs[row + SLOT_CARD_AT + idx] = 1.0
        taker = s[SLOT_PLAYER + k]
        if taker >= 0:
            obs[row + 1] = 1.0
            obs[row + 2 + _rel(taker, seat, n)] = 1.0
    for q in range(n):
        obs[O_SEATS + SEAT_SIZE * q] = 1.0
    # dice: each die's value and location columns, without a branch per die
    held = 0  # dice per seat and in the pool: 6 bits each (seat p at bit 6p, the pool at bit 30)
    for d in range(ND):
        loc = s[DIE_LOC + d]
        obs[O_VALUES + MAX_NUMBER * d + s[DIE_VAL + d] - 1] = loc != UNUSED
        at_seat = 0 if loc == seat else 2 + _rel(loc, seat, n)
        code = at_seat if loc >= 0 else (1 if loc == POOL else (7 if loc == UNUSED else 2))
        obs[O_LOCS + DIE_LOC_SIZE * d + code] = 1.0
        held += np.int64(loc >= 0) << (6 * max(loc, 0))
        held += np.int64(loc == POOL) << (6 * MAXP)
    for d in range(ND):
        loc = s[DIE_LOC + d]
        if loc <= ON_SLOT:
            obs[O_SLOT_MELDS + MELD_WIDTH * (ON_SLOT - loc) + ITEM_DIE0 + d] = 1.0
    # cards: the hand, table and removed entries written for every card (zeros included: no branch per card)
    cards = 0  # cards per seat: 6 bits each
    for c in range(NC):
        loc = s[CARD_LOC + c]
        obs[O_HAND + c] = loc == seat
        obs[O_REMOVED + c] = loc == REMOVED
        obs[O_TABLE + c] = loc <= ON_SLOT
        cards += np.int64(loc >= 0) << (6 * max(loc, 0))
    for c in range(NC):
        loc = s[CARD_LOC + c]
        if loc <= ON_SLOT:
            obs[O_SLOT_MELDS + MELD_WIDTH * (ON_SLOT - loc) + c] = 1.0
    # past rounds (latest first)
    r_now = s[ROUND] + (1 if over else 0)
    for r in range(min(PAST_ROUNDS, r_now)):
        packed = s[HISTORY + r_now - 1 - r]
        length = packed & 3
        row = O_PAST + r * MAX_SEATS * PAST_PLACES
        for p in range(n):
            place = PAST_PLACES - 1
            for j in range(length):
                if (packed >> (2 + 3 * j)) & 7 == p:
                    place = j
            obs[row + _rel(p, seat, n) * PAST_PLACES + place] = 1.0
    # seats
    top = 3.0 * cfg[C_ROUNDS]
    for p in range(n):
        row = O_SEATS + SEAT_SIZE * _rel(p, seat, n)
        r = s[OUT_RANK + p]
        if r:
            obs[row + 4] = 1.0
            if r <= 3:
                obs[row + 4 + r] = 1.0
        obs[row + 1] = ((cards >> (6 * p)) & 63) / rules.HAND_SIZE
        obs[row + 2] = ((held >> (6 * p)) & 63) / ND
        obs[row + 3] = min(1.0, s[POINTS + p] / top)
    if not over:
        obs[O_SEATS + SEAT_SIZE * _rel(s[CURRENT], seat, n) + 8] = 1.0
    if s[LAST] >= 0:
        obs[O_SEATS + SEAT_SIZE * _rel(s[LAST], seat, n) + 9] = 1.0
    passes = s[PASSES]
    if passes and phase == PLAY:
        cur = s[CURRENT]
        p = cur
        got = 0
        while got < passes:
            p = p - 1 if p else n - 1
            if s[OUT_RANK + p] == 0:
                row = O_SEATS + SEAT_SIZE * _rel(p, seat, n) + 10
                if obs[row] == 0.0:
                    obs[row] = 1.0
                    got += 1
            if p == cur:
                break
    obs[O_ROUND] = (s[ROUND] + 1) / cfg[C_ROUNDS]
    if s[ROUND] + 1 == cfg[C_ROUNDS]:
        obs[O_LAST_ROUND] = 1.0
    obs[O_PASSES] = passes / n
    obs[O_POOL] = ((held >> (6 * MAXP)) & 63) / ND
    obs[O_DRAFT] = s[DRAFT_LEFT] / (2 * MAX_SEATS)
    if not over:
        if phase == PLAY:
            if s[SEL_LEN] and seat == s[CURRENT]:
                obs[O_PHASE + 3] = 1.0
                for it in range(NI):
                    obs[O_SELECTION + it] = s[SEL + it] != 0
            else:
                obs[O_PHASE + (1 if s[LAST] < 0 else 2)] = 1.0
        elif phase == DRAFT:
            obs[O_PHASE] = 1.0
        else:
            obs[O_PHASE + 4 + (phase - TAKE)] = 1.0
            if seat == s[CURRENT] and s[MARK_LEN]:
                for d in range(ND):
                    if s[MARK + d]:
                        obs[O_MARKS + d] = 1.0


KERNELS = GameKernels(new_game, legal, apply, deciding, is_over, scores, outcome, encode)


# ============================================================================ Python side
def pattern_row(p: Pattern) -> list[int]:
    """A pattern as the :data:`PATTERN_FIELDS` integers of the config row."""
    return [int(getattr(p, name)) for name in PATTERN_FIELDS]


def allowed_words(p: Pattern) -> list[int]:
    """``p.allowed`` as two 64-bit words (bit ``suit * 21 + number``), as signed integers."""
    words = [0, 0]
    for key, ok in enumerate(p.allowed):
        if ok:
            words[key >> 6] |= 1 << (key & 63)
    return [w - (1 << 64) if w >= 1 << 63 else w for w in words]


class TipOfTheDicebergCompiled(CompiledEngine):
    """Compiled Tip of the Diceberg (see the module docstring and :mod:`ice_envs.core.compiled`)."""

    game = "tip_of_the_diceberg"
    state_width = BASE_WIDTH + 3
    state_dtype = np.int32
    kernels = KERNELS

    def _setup(self) -> None:
        # one history entry per round: the row's width follows ``num_rounds``
        self.state_width = BASE_WIDTH + int(self.config.num_rounds)
        super()._setup()

    def config_row(self) -> np.ndarray:
        config = self.config
        cat = config.catalog
        n = self.num_players
        row = np.zeros(CONFIG_WIDTH, dtype=np.int64)
        starters = cat.starters(n)
        decks = cat.power_decks()
        row[C_PLAYERS] = n
        row[C_ROUNDS] = config.num_rounds
        row[C_COMPULSORY] = int(config.compulsory_powers)
        row[C_START_PLAYER] = -1 if config.start_player is None else int(config.start_player)
        row[C_NSTART] = len(starters)
        row[C_NDECKS] = len(decks)
        row[C_NSLOTS] = len(starters) + len(decks)
        row[C_STARTERS : C_STARTERS + len(starters)] = starters
        fixed = {cat.cards[cat.index(cid)].power: cat.index(cid) for cid in config.main_cards}
        at = 0
        for j, power in enumerate(decks):
            cards = cat.power_deck(power)
            row[C_DECK_FIXED + j] = fixed.get(power, -1)
            row[C_DECK_START + j] = at
            row[C_DECK_LEN + j] = len(cards)
            row[C_DECK_CARDS + at : C_DECK_CARDS + at + len(cards)] = cards
            at += len(cards)
        for i, card in enumerate(cat.cards):
            row[C_POWER + i] = POWERS.index(card.power) + 1 if card.power else POWER_NONE
            row[C_PATTERN + NF * i : C_PATTERN + NF * (i + 1)] = pattern_row(card.pattern)
            row[C_ALLOWED + 2 * i : C_ALLOWED + 2 * i + 2] = allowed_words(card.pattern)
            bits = pattern_features(card.pattern).view(np.uint32).astype(np.uint64)
            bits = (bits | bits << np.uint64(32)).view(np.int64)  # both halves: any byte order reads it
            row[C_FEATURES + PATTERN_FEATURES * i : C_FEATURES + PATTERN_FEATURES * (i + 1)] = bits
        images = np.zeros((MAX_CATALOG, 2 * SLOT_IMAGE_WORDS), dtype=np.float32)
        for i, card in enumerate(cat.cards):
            images[i, row[C_POWER + i]] = 1.0
            images[i, 1 + len(POWERS) : SLOT_IMAGE_FLOATS] = pattern_features(card.pattern)
        row[C_SLOT_IMAGE:] = images.view(np.int64).reshape(-1)
        return row

    def state_of(self, i: int) -> rules.DicebergState:
        s = self.state[i].astype(np.int64).tolist()
        n = self.num_players
        config = self.config
        nslots = int(self._cfg[C_NSLOTS])
        card_loc = s[CARD_LOC : CARD_LOC + NC]
        die_loc = s[DIE_LOC : DIE_LOC + ND]
        slot_meld: list[list[int]] = [[] for _ in range(nslots)]
        for c, loc in enumerate(card_loc):
            if loc <= ON_SLOT:
                slot_meld[ON_SLOT - loc].append(c)
        for d, loc in enumerate(die_loc):
            if loc <= ON_SLOT:
                slot_meld[ON_SLOT - loc].append(ITEM_DIE0 + d)
        ranks = s[OUT_RANK : OUT_RANK + n]
        out_order = sorted((p for p in range(n) if ranks[p]), key=lambda p: ranks[p])
        over = s[PHASE] == OVER
        history = []
        for r in range(s[ROUND] + (1 if over else 0)):
            packed = s[HISTORY + r]
            history.append([(packed >> (2 + 3 * j)) & 7 for j in range(packed & 3)])
        left = s[DRAFT_LEFT]
        start = s[START]
        return rules.DicebergState(
            config=config,
            slots=s[SLOT_CARD : SLOT_CARD + nslots],
            hands=[[c for c in range(NC) if card_loc[c] == p] for p in range(n)],
            undealt=[c for c in range(NC) if card_loc[c] == UNDEALT],
            removed=[c for c in range(NC) if card_loc[c] == REMOVED],
            die_value=s[DIE_VAL : DIE_VAL + ND],
            die_loc=[rules.PLAYED if loc <= ON_SLOT else loc for loc in die_loc],
            slot_player=s[SLOT_PLAYER : SLOT_PLAYER + nslots],
            slot_meld=slot_meld,
            points=s[POINTS : POINTS + n],
            out_order=out_order,
            history=history,
            phase=s[PHASE],
            current=s[CURRENT],
            round=s[ROUND],
            start_player=start,
            leader=s[LEADER],
            last_player=s[LAST],
            passes=s[PASSES],
            draft_order=rules.snake_order(start, n)[2 * n - left :] if left else [],
            selection=[it for it in range(NI) if s[SEL + it]],
            marks=[d for d in range(ND) if s[MARK + d]],
            tricks=s[TRICKS],
            winners=[p for p in range(n) if s[WINNER + p]] if over else [],
        )

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:
        """A plain reset that replays this game's shuffles and rolls (see the module docstring)."""
        return {}, True

    def pack_state(self, state: rules.DicebergState) -> np.ndarray:
        """The state row of ``state`` (the inverse of :meth:`state_of`)."""
        n = self.num_players
        row = np.zeros(self.state_width, dtype=np.int64)
        row[CARD_LOC : CARD_LOC + NC] = NOT_IN_DECK
        for p, hand in enumerate(state.hands):
            row[CARD_LOC + np.asarray(hand, dtype=np.int64)] = p
        row[CARD_LOC + np.asarray(state.undealt, dtype=np.int64)] = UNDEALT
        row[CARD_LOC + np.asarray(state.removed, dtype=np.int64)] = REMOVED
        row[DIE_VAL : DIE_VAL + ND] = state.die_value
        row[DIE_LOC : DIE_LOC + ND] = state.die_loc
        for k, meld in enumerate(state.slot_meld):
            for it in meld:
                if it < ITEM_DIE0:
                    row[CARD_LOC + it] = ON_SLOT - k
                else:
                    row[DIE_LOC + it - ITEM_DIE0] = ON_SLOT - k
        nslots = len(state.slots)
        row[SLOT_CARD : SLOT_CARD + nslots] = state.slots
        row[SLOT_PLAYER : SLOT_PLAYER + MAX_SLOTS] = -1
        row[SLOT_PLAYER : SLOT_PLAYER + nslots] = state.slot_player
        row[POINTS : POINTS + n] = state.points
        for r, p in enumerate(state.out_order):
            row[OUT_RANK + p] = r + 1
        row[OUT_LEN] = len(state.out_order)
        row[PHASE], row[CURRENT], row[ROUND], row[START] = state.phase, state.current, state.round, state.start_player
        row[LEADER], row[LAST], row[PASSES], row[TRICKS] = state.leader, state.last_player, state.passes, state.tricks
        row[DRAFT_LEFT] = len(state.draft_order)
        row[SEL + np.asarray(state.selection, dtype=np.int64)] = 1
        row[SEL_LEN] = len(state.selection)
        row[SEL_LAST] = state.selection[-1] if state.selection else -1
        row[MARK + np.asarray(state.marks, dtype=np.int64)] = 1
        row[MARK_LEN] = len(state.marks)
        row[MARK_LAST] = state.marks[-1] if state.marks else -1
        row[WINNER + np.asarray(state.winners, dtype=np.int64)] = 1
        for r, order in enumerate(state.history):
            row[HISTORY + r] = _packed_out_order(order)
        return row.astype(self.state_dtype)


def _packed_out_order(order: list[int]) -> int:
    """A round's out-order as one history entry: ``len | s0 << 2 | s1 << 5 | s2 << 8`` (see :data:`HISTORY`)."""
    packed = len(order)
    for j, p in enumerate(order):
        packed |= int(p) << (2 + 3 * j)
    return packed
