"""Iceberg Rummy as a compiled batched engine: ``rules.py``'s transitions as numba functions on one state row.

The state of one game is one ``int16`` row (offsets below, laid out for the largest table of five
seats and two decks): ``hands`` (seat x card counts) and the hand sizes, the ``stock`` in drawing
order and ``stock_pos``, the table melds in the order laid (48 slots of :data:`SLOT` entries: kind,
owner, size, two index entries, up to 12 sorted card ids) and the cards on the table, the aces,
points, bonuses and game totals (each total, and the hand counter, as four 16-bit words: :func:`get_wide`), dealer,
current seat, phase, the selection, the face-down card, the turn counts and private pass memories,
and the hand and turn counters. Each function mirrors the function of ``rules.py`` named in its
docstring; where ``rules.py`` recurses (a hand that ends at the start of a turn deals the next one,
whose first turn may end it again) this module loops (:func:`_hand_over`). Legal plays are not
listed as in :mod:`.melds`: :func:`legal` marks, family by family (pairs and sets, new runs, run
lay-offs, the four special melds), the cards that extend the selection towards some legal play and
the targets it can be committed to, which is the set the scalar env's ``Analysis`` gives.

**The end-of-hand play-out** (R4.6, I12: what the cards left in hand could still score) is an exact
memoised search in numba (:mod:`.compiled_playout`); where it would pass its state budget,
:func:`_playout` asks the reference :func:`.melds.best_playout` (exact for any hand) through
``numba.objmode``. Both are exact, so they agree with the scalar engine on every hand.

**Randomness.** ``rules.py`` draws the first dealer with ``rng.integers(n)`` and shuffles each deal
with ``rng.permutation``. Here the dealer is ``draw(rng, 0, n)`` and a shuffle is a Fisher-Yates
pass from the last card down, each swap partner ``draw(rng, 0, i + 1)``: every draw is logged, and
the parity test replays them into a scalar env whose ``permutation`` makes the same pass from
scripted ``integers`` (the scalar env's own numpy shuffle is another, equally uniform, permutation).

**A deal that ends the game at once** (one deck: the first player's eight cards hold all four aces,
which ends the hand, and under ``single_hand`` the game, before anyone decides; about one deal in
3,900) cannot be a batched game, which always starts with a decision: it is dealt again. The scalar
shadow of such a game starts from its state (:meth:`IcebergRummyCompiled.scalar_start`).

The observation is the env's (``env.py``, ``layout_for``), written from the offsets in the config row.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ice_envs.core.compiled import CompiledEngine, GameKernels, draw, njit
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules
from ice_envs.iceberg_rummy.compiled_playout import (  # the layout of a table meld slot
    K_CARDS,
    K_INFO1,
    K_INFO2,
    K_KIND,
    K_OWNER,
    K_SIZE,
    MAX_MELD_CARDS,
    NOT_SOLVED,
    SLOT,
    best_playout,
    size_value,
)

MAX_SEATS = 5
NC = M.NUM_CARDS
NR = M.NUM_RANKS
HAND_SIZE = rules.HAND_SIZE
MAX_MELDS = rules.MAX_MELDS
MAX_STOCK = 2 * NC
#: 16-bit words of a game total and of the hand counter (unbounded in principle: ``max_hands=None``).
WIDE = 4

#: Offsets of the state row.
HANDS = 0
SIZES = HANDS + MAX_SEATS * NC
STOCK = SIZES + MAX_SEATS
STOCK_POS = STOCK + MAX_STOCK
NUM_MELDS = STOCK_POS + 1
MELDS = NUM_MELDS + 1
TABLE = MELDS + MAX_MELDS * SLOT
ACES = TABLE + NC
TABLE_ACES = ACES + MAX_SEATS
HAND_POINTS = TABLE_ACES + M.NUM_SUITS
ACE_BONUS = HAND_POINTS + MAX_SEATS
TOTALS = ACE_BONUS + MAX_SEATS  # WIDE words per seat
DEALER = TOTALS + WIDE * MAX_SEATS
CURRENT = DEALER + 1
PHASE = CURRENT + 1
SEL_LEN = PHASE + 1
SEL = SEL_LEN + 1
PENDING = SEL + MAX_MELD_CARDS
PENDING_TO = PENDING + 1
TURNS_TAKEN = PENDING_TO + 1
PASSED = TURNS_TAKEN + MAX_SEATS
LAST_PASSED = PASSED + MAX_SEATS * NC
LAST_RECEIVED = LAST_PASSED + MAX_SEATS
KNOWN_LEFT = LAST_RECEIVED + MAX_SEATS
STILL_LEFT = KNOWN_LEFT + MAX_SEATS
END_AFTER_TURN = STILL_LEFT + MAX_SEATS
HAND_NO = END_AFTER_TURN + 1  # WIDE words
TURN = HAND_NO + WIDE
TRUNCATED = TURN + 1
WINNERS = TRUNCATED + 1  # one flag per seat
REDEALT = WINNERS + MAX_SEATS  # the game was dealt again because its first deal ended it (module docstring)
WIDTH = REDEALT + 1

#: Config row: options, then the observation offsets.
(
    C_PLAYERS,
    C_DECKS,
    C_SINGLE,
    C_TARGET,
    C_ACE_SCORING,
    C_ACE_VALUE,
    C_HOLDER,
    C_MAX_HANDS,
    C_DECIDE,
    C_CLEAR,
    C_STOCK_LEN,
    C_SCALE,
) = range(12)
OBS_PIECES = (
    "hand",
    "selection",
    "table_cards",
    "passed",
    "received",
    "hand_sizes",
    "aces",
    "hand_points",
    "totals",
    "begun",
    "seated",
    "dealer",
    "acting",
    "stock",
    "aces_hidden",
    "two_decks",
    "passed_known",
    "composing",
    "last_turn",
    "melds",
    "hands_played",
    "hands_left",
    "passed_cards",
    "passed_held",
)
(
    O_HAND,
    O_SEL,
    O_TABLE,
    O_PASSED,
    O_RECEIVED,
    O_SIZES,
    O_ACES,
    O_POINTS,
    O_TOTALS,
    O_BEGUN,
    O_SEATED,
    O_DEALER,
    O_ACTING,
    O_STOCK,
    O_ACES_HIDDEN,
    O_DECKS,
    O_KNOWN,
    O_COMPOSING,
    O_LAST,
    O_MELDS,
    O_PLAYED,
    O_LEFT,
    O_PASSED_CARDS,
    O_HELD,
) = range(12, 12 + len(OBS_PIECES))
SLOT_SIZE = 30  # env.SLOT_SIZE: a meld slot of the observation

MELD_PHASE, OVER = rules.PHASE_MELD, rules.PHASE_OVER
DISCARD_BASE, COMMIT_NEW, LAYOFF_BASE, CLEAR = (
    rules.DISCARD_BASE,
    rules.COMMIT_NEW,
    rules.LAYOFF_BASE,
    rules.CLEAR_SELECTION,
)
GROUP, RUN = M.GROUP, M.RUN
ODDS_SUIT, EVENS_SUIT, ODDS_COLOUR, EVENS_COLOUR = M.ODDS_SUIT, M.EVENS_SUIT, M.ODDS_COLOUR, M.EVENS_COLOUR
MULTIPLIER, FIXED, DOUBLING, CATS = range(4)  # rules.ACE_SCORINGS
#: ``GROUP_OK[code]``: cards of one rank with these per-suit counts (base 3) form a pair or a set.
GROUP_OK = M._GROUP_OK.astype(np.int8)
#: The lowest rank of the odd-rank (3 5 7 9 J K) and even-rank (2 4 6 8 10 Q) special melds.
ODD_LOW, EVEN_LOW = M.ODD_RANKS[0], M.EVEN_RANKS[0]
#: ``SPECIAL_VALUES[kind]``: the points of a special meld (``melds.SPECIAL_VALUES``; 0 for the other kinds).
SPECIAL_VALUES = np.array([M.SPECIAL_VALUES.get(kind, 0) for kind in range(M.NUM_KINDS)], dtype=np.int64)
#: A card's weight in a suit code (base 3 per suit).
POW3 = (1, 3, 9, 27)

assert [rules.ACE_SCORINGS.index(x) for x in ("multiplier", "fixed", "doubling", "cats")] == [0, 1, 2, 3]
assert M.ODD_RANKS == tuple(range(ODD_LOW, NR, 2)) and M.EVEN_RANKS == tuple(range(EVEN_LOW, NR - 1, 2))


# ---------------------------------------------------------------------------- small helpers
@njit
def get_wide(s: np.ndarray, at: int) -> int:
    """The 64-bit integer kept in the :data:`WIDE` 16-bit words from ``at`` (least significant first)."""
    value = 0
    for w in range(WIDE - 1, -1, -1):
        value = (value << 16) | (int(s[at + w]) & 0xFFFF)
    return value


@njit
def _set_wide(s: np.ndarray, at: int, value: int) -> None:
    for w in range(WIDE):
        word = (value >> (16 * w)) & 0xFFFF
        s[at + w] = word - 0x10000 if word >= 0x8000 else word


@njit
def get_total(s: np.ndarray, p: int) -> int:
    """Seat ``p``'s game total."""
    return get_wide(s, TOTALS + WIDE * p)


@njit
def _set_total(s: np.ndarray, p: int, value: int) -> None:
    _set_wide(s, TOTALS + WIDE * p, value)


@njit
def _ace_bonus_total(cfg: np.ndarray, n: int) -> int:
    """``rules.ace_bonus_total``."""
    scoring = cfg[C_ACE_SCORING]
    if scoring == FIXED:
        return cfg[C_ACE_VALUE] * n
    if scoring == DOUBLING:
        return 20 * ((1 << n) - 1)
    if scoring == CATS:
        return 10 * n * n
    return 0


@njit
def _score_scale(cfg: np.ndarray) -> float:
    """The env's ``score_scale`` (a float64 stored bit for bit in the int64 config row)."""
    return cfg[C_SCALE : C_SCALE + 1].view(np.float64)[0]


# ---------------------------------------------------------------------------- deal and turns
@njit
def _deal(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._deal`` (no given position): shuffle, seven cards each from the dealer's left, the rest is stock."""
    n, decks = cfg[C_PLAYERS], cfg[C_DECKS]
    size = NC * decks
    for c in range(NC):  # np.repeat(np.arange(52), decks)
        for d in range(decks):
            s[STOCK + c * decks + d] = c
    for i in range(size - 1, 0, -1):  # the scripted permutation of the parity test (module docstring)
        j = draw(rng, 0, i + 1)
        s[STOCK + i], s[STOCK + j] = s[STOCK + j], s[STOCK + i]
    s[HANDS : HANDS + MAX_SEATS * NC] = 0
    dealer = s[DEALER]
    for i in range(n):
        p = (dealer + 1 + i) % n
        for j in range(i, HAND_SIZE * n, n):
            s[HANDS + p * NC + s[STOCK + j]] += 1
        s[SIZES + p] = HAND_SIZE
    dealt = HAND_SIZE * n
    for j in range(size - dealt):
        s[STOCK + j] = s[STOCK + dealt + j]
    s[STOCK + size - dealt : STOCK + MAX_STOCK] = 0
    s[STOCK_POS] = 0
    s[NUM_MELDS] = 0
    s[MELDS : MELDS + MAX_MELDS * SLOT] = 0
    s[TABLE : TABLE + NC] = 0
    s[ACES : ACES + MAX_SEATS] = 0
    s[TABLE_ACES : TABLE_ACES + M.NUM_SUITS] = 0
    s[HAND_POINTS : HAND_POINTS + MAX_SEATS] = 0
    s[ACE_BONUS : ACE_BONUS + MAX_SEATS] = 0
    s[TURNS_TAKEN : TURNS_TAKEN + MAX_SEATS] = 0
    s[PASSED : PASSED + MAX_SEATS * NC] = 0
    s[LAST_PASSED : STILL_LEFT + MAX_SEATS] = -1  # last_passed, last_received, known_left, still_left
    s[SEL_LEN] = 0
    s[PENDING] = -1
    s[PENDING_TO] = -1
    s[END_AFTER_TURN] = 0
    s[TURN] = 0
    s[CURRENT] = (dealer + 1) % n
    s[PHASE] = MELD_PHASE


@njit
def _place_aces(s: np.ndarray, p: int, cfg: np.ndarray) -> None:
    """``rules._place_aces``: every ace in hand face up; the variants' bonuses at once (R7.1)."""
    hand = HANDS + p * NC
    k = 0
    for suit in range(M.NUM_SUITS):
        k += s[hand + suit * NR]
    if k == 0:
        return
    before = s[ACES + p]
    s[ACES + p] += k
    for suit in range(M.NUM_SUITS):
        s[TABLE_ACES + suit] += s[hand + suit * NR]
        s[hand + suit * NR] = 0
    s[SIZES + p] -= k
    s[ACE_BONUS + p] += _ace_bonus_total(cfg, before + k) - _ace_bonus_total(cfg, before)


@njit
def _begin_turn(s: np.ndarray, cfg: np.ndarray) -> bool:
    """``rules._begin_turn`` up to its end of the hand: pick up, draw, place aces; ``True`` if the hand ends."""
    p = s[CURRENT]
    s[SEL_LEN] = 0
    if s[PENDING] >= 0 and s[PENDING_TO] == p:
        card = s[PENDING]
        s[HANDS + p * NC + card] += 1
        s[SIZES + p] += 1
        s[LAST_RECEIVED + p] = card
        s[PENDING] = -1
        s[PENDING_TO] = -1
    if s[STOCK_POS] >= cfg[C_STOCK_LEN]:
        return True  # the stock ran out
    s[HANDS + p * NC + s[STOCK + s[STOCK_POS]]] += 1
    s[SIZES + p] += 1
    s[STOCK_POS] += 1
    s[TURNS_TAKEN + p] += 1
    _place_aces(s, p, cfg)
    placed = s[TABLE_ACES] + s[TABLE_ACES + 1] + s[TABLE_ACES + 2] + s[TABLE_ACES + 3]
    if placed >= 4 * cfg[C_DECKS]:
        if not cfg[C_HOLDER]:
            return True  # the last ace was placed
        s[END_AFTER_TURN] = 1
    if s[SIZES + p] == 0:
        return True  # went out
    s[PHASE] = MELD_PHASE
    return False


@njit
def _start_turn(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._begin_turn`` whole: the turn begins, or the hand ends and play goes on (:func:`_hand_over`)."""
    if _begin_turn(s, cfg):
        _hand_over(s, rng, cfg)


@njit
def _hand_over(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._end_hand`` and what follows: settle, then deal and begin hands until one has a decision
    or the game is over (``rules.py`` recurses here)."""
    while _end_hand(s, rng, cfg):
        if not _begin_turn(s, cfg):
            return


# ---------------------------------------------------------------------------- end of a hand
def _playout_reference(row: np.ndarray, p: int) -> tuple[int, int]:
    """Python, called from :func:`_playout_objmode`: ``melds.best_playout`` (exact for any hand) of seat ``p``'s
    hand without its aces against the table of state row ``row``; ``(points, cards played)``."""
    hand = row[HANDS + p * NC : HANDS + (p + 1) * NC].astype(np.int8)
    hand[list(M.ACE_IDS)] = 0
    table = []
    for k in range(int(row[NUM_MELDS])):
        at = MELDS + k * SLOT
        table.append(tuple(row[at + K_CARDS : at + K_CARDS + int(row[at + K_SIZE])].tolist()))
    points, played = M.best_playout(hand, tuple(table))
    return int(points), int(played)


@numba.njit(cache=True, error_model="numpy")
def _playout_objmode(s: np.ndarray, p: int) -> tuple[int, int]:
    """:func:`_playout_reference` through ``numba.objmode``."""
    with numba.objmode(points="int64", played="int64"):
        points, played = _playout_reference(s, p)
    return points, played


@njit
def _playout(s: np.ndarray, p: int) -> tuple[int, int]:
    """The end-of-hand play-out of seat ``p`` (R4.6.1, I12): the most points, then cards, its hand (aces
    aside) could still score against the table: :func:`.compiled_playout.best_playout`, an exact search in
    numba; past its state budget, the reference :func:`.melds.best_playout` (exact for any hand)."""
    hand = np.zeros(NC, dtype=np.int64)
    at = HANDS + p * NC
    for c in range(NC):
        if c % NR != 0:
            hand[c] = s[at + c]
    points, played = best_playout(hand, s, MELDS, s[NUM_MELDS])
    if points == NOT_SOLVED:
        return _playout_objmode(s, p)
    return points, played


@njit
def _hand_penalty(s: np.ndarray, p: int, cfg: np.ndarray) -> int:
    """``rules.hand_penalty`` (R4.6, I12, I13): what the cards left cost; an unplaced ace 10 or its bonus."""
    hand = HANDS + p * NC
    aces = s[hand] + s[hand + NR] + s[hand + 2 * NR] + s[hand + 3 * NR]
    left = s[SIZES + p] - aces
    points = played = 0
    if left > 0:
        points, played = _playout(s, p)
    dead = left - played
    if cfg[C_ACE_SCORING] == MULTIPLIER:
        ace_penalty = 10 * aces
    else:
        ace_penalty = _ace_bonus_total(cfg, s[ACES + p] + aces) - _ace_bonus_total(cfg, s[ACES + p])
    return points + 10 * dead + ace_penalty


@njit
def _end_hand(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> bool:
    """``rules._end_hand``: settle the hand (R4.6-R4.8), then end the game or deal the next hand
    (``True``: dealt, its first turn is still to begin)."""
    n = cfg[C_PLAYERS]
    multiplier = cfg[C_ACE_SCORING] == MULTIPLIER
    best = -(1 << 62)
    for p in range(n):  # a seat's penalty reads no total: each total is settled at once
        raw = s[HAND_POINTS + p] - _hand_penalty(s, p, cfg)
        score = raw * (1 + s[ACES + p]) if multiplier else raw + s[ACE_BONUS + p]
        total = get_total(s, p) + score
        _set_total(s, p, total)
        best = max(best, total)
    s[HAND_POINTS : HAND_POINTS + MAX_SEATS] = 0
    s[ACE_BONUS : ACE_BONUS + MAX_SEATS] = 0
    s[SEL_LEN] = 0
    hand_no = get_wide(s, HAND_NO) + 1
    _set_wide(s, HAND_NO, hand_no)
    decided = cfg[C_SINGLE] != 0 or best >= cfg[C_TARGET]
    capped = cfg[C_MAX_HANDS] >= 0 and hand_no >= cfg[C_MAX_HANDS]
    if decided or capped:
        s[PHASE] = OVER
        if decided or cfg[C_DECIDE]:
            for p in range(n):
                s[WINNERS + p] = 1 if get_total(s, p) == best else 0
        else:  # R7.4, I17: the cap stops the game undecided
            s[TRUNCATED] = 1
        return False
    s[DEALER] = (s[DEALER] + 1) % n
    _deal(s, rng, cfg)
    return True


# ---------------------------------------------------------------------------- plays
@njit
def _mark_groups(s: np.ndarray, mask: np.ndarray, hand: int, k: int, rank: int) -> None:
    """Pairs and sets of ``rank`` (``melds._rank_plays``), new or laid off onto a table group of that rank:
    the cards extending the selection (all of ``rank``, or empty), and its commits."""
    h0, h1, h2, h3 = s[hand + rank], s[hand + NR + rank], s[hand + 2 * NR + rank], s[hand + 3 * NR + rank]
    q0 = q1 = q2 = q3 = 0
    top = -1  # the selection's highest suit
    for i in range(k):
        suit = s[SEL + i] // NR
        if suit == 0:
            q0 += 1
        elif suit == 1:
            q1 += 1
        elif suit == 2:
            q2 += 1
        else:
            q3 += 1
        top = suit
    q = (q0, q1, q2, q3)
    nm = s[NUM_MELDS]
    for a0 in range(h0 + 1):
        for a1 in range(h1 + 1):
            for a2 in range(h2 + 1):
                for a3 in range(h3 + 1):
                    size = a0 + a1 + a2 + a3
                    if size == 0:
                        continue
                    a = (a0, a1, a2, a3)
                    fits = True  # the selection is the start of these cards in id (suit) order
                    exact = True
                    for suit in range(4):
                        if suit < top and a[suit] != q[suit]:
                            fits = False
                        if suit == top and a[suit] < q[suit]:
                            fits = False
                        if a[suit] != q[suit]:
                            exact = False
                    if not fits:
                        continue
                    code = a0 + 3 * a1 + 9 * a2 + 27 * a3
                    new_ok = size >= 2 and GROUP_OK[code] != 0
                    if exact:
                        if new_ok:
                            mask[COMMIT_NEW] = 1
                        for t in range(nm):
                            at = MELDS + t * SLOT
                            if s[at + K_KIND] == GROUP and s[at + K_INFO1] == rank and GROUP_OK[s[at + K_INFO2] + code]:
                                mask[LAYOFF_BASE + t] = 1
                        continue
                    ok = new_ok
                    t = 0
                    while not ok and t < nm:
                        at = MELDS + t * SLOT
                        if s[at + K_KIND] == GROUP and s[at + K_INFO1] == rank and GROUP_OK[s[at + K_INFO2] + code]:
                            ok = True
                        t += 1
                    if ok:
                        for suit in range(max(top, 0), 4):
                            if a[suit] > q[suit]:
                                mask[suit * NR + rank] = 1
                                break


@njit
def _mark_run_layoffs(s: np.ndarray, mask: np.ndarray, hand: int, k: int, t: int) -> None:
    """Lay-offs onto the table run in slot ``t`` (``melds._suit_run_plays``): ``d`` cards below it and ``u``
    above, ``(lo-d .. lo-1) + (hi+1 .. hi+u)`` in id order."""
    at = MELDS + t * SLOT
    base = (s[at + K_CARDS] // NR) * NR
    lo, hi = s[at + K_INFO1], s[at + K_INFO2]
    down = 0
    while lo - down - 1 >= 1 and s[hand + base + lo - down - 1] > 0:
        down += 1
    up = 0
    while hi + up + 1 < NR and s[hand + base + hi + up + 1] > 0:
        up += 1
    if k == 0:
        for d in range(1, down + 1):
            mask[base + lo - d] = 1
        if up:
            mask[base + hi + 1] = 1
        return
    first = s[SEL]
    if base + 1 <= first < base + lo:
        d = base + lo - first
        if d > down:
            return
    elif first == base + hi + 1:
        d = 0
    else:
        return
    for i in range(k):
        expected = base + lo - d + i if i < d else base + hi + 1 + i - d
        if s[SEL + i] != expected:
            return
    if k < d:
        mask[base + lo - d + k] = 1
        return
    u = k - d
    if u <= up:
        mask[LAYOFF_BASE + t] = 1
        if u < up:
            mask[base + hi + 1 + u] = 1


@njit
def _mark_special(s: np.ndarray, mask: np.ndarray, k: int, a: int, b: int, combo: int, low: int) -> None:
    """One special meld of six ranks ``low, low+2, ...``: rank ``i`` from suit ``b`` if bit ``i`` of ``combo``
    is set, else from suit ``a`` (``a <= b``); its cards in id order are checked against the selection."""
    idx = 0
    for part in range(2):
        if part == 1 and b == a:
            break
        suit = a if part == 0 else b
        for i in range(6):
            if (combo >> i) & 1 != part:
                continue
            card = suit * NR + low + 2 * i
            if idx < k:
                if s[SEL + idx] != card:
                    return
            else:
                mask[card] = 1
                return
            idx += 1
    mask[COMMIT_NEW] = 1


@njit
def _held(s: np.ndarray, hand: int, suit: int, low: int) -> int:
    """Bit ``i`` set if the hand holds rank ``low + 2 i`` of ``suit``."""
    bits = 0
    for i in range(6):
        if s[hand + suit * NR + low + 2 * i] > 0:
            bits |= 1 << i
    return bits


@njit
def _mark_specials(s: np.ndarray, mask: np.ndarray, hand: int, k: int) -> None:
    """The four special melds (R3.4.4, ``melds.enumerate_plays``): six odd or even ranks in one suit or in
    one colour (not one suit)."""
    if k > 6:
        return
    for low in (ODD_LOW, EVEN_LOW):
        # per suit: bit i if the hand holds rank low + 2 i
        held = (_held(s, hand, 0, low), _held(s, hand, 1, low), _held(s, hand, 2, low), _held(s, hand, 3, low))
        if (held[0] | held[1] | held[2] | held[3]) != 63:
            continue
        for suit in range(4):
            if held[suit] == 63:
                _mark_special(s, mask, k, suit, suit, 0, low)
        for a, b in ((0, 3), (1, 2)):  # black: clubs, spades; red: diamonds, hearts
            if (held[a] | held[b]) != 63:
                continue
            for combo in range(1, 63):  # not all of one suit
                if (combo & ~held[b]) == 0 and (~combo & 63 & ~held[a]) == 0:
                    _mark_special(s, mask, k, a, b, combo, low)


@njit
def legal(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray) -> None:
    """``rules.legal_actions`` as a mask: the cards that keep the selection the start of a legal play
    (``Analysis.nexts``), its commits (``Analysis.commits``), discards with an empty selection, clear."""
    mask[:] = 0
    if s[PHASE] != MELD_PHASE:
        return
    hand = HANDS + s[CURRENT] * NC
    k = s[SEL_LEN]
    nm = s[NUM_MELDS]
    # what the selection can still be: one rank (pairs, sets), one suit in a row (new runs), one suit (lay-offs)
    same_rank = same_suit = consecutive = True
    first = s[SEL]
    for i in range(1, k):
        c = s[SEL + i]
        if c % NR != first % NR:
            same_rank = False
        if c // NR != first // NR:
            same_suit = False
        if c != first + i:
            consecutive = False
    # pairs and sets (``melds._rank_plays``): ranks with two cards in hand or a table group
    if k == 0:
        group_ranks = 0
        for t in range(nm):
            at = MELDS + t * SLOT
            if s[at + K_KIND] == GROUP:
                group_ranks |= 1 << s[at + K_INFO1]
        for rank in range(1, NR):
            count = s[hand + rank] + s[hand + NR + rank] + s[hand + 2 * NR + rank] + s[hand + 3 * NR + rank]
            if count >= 2 or (count == 1 and (group_ranks >> rank) & 1):
                _mark_groups(s, mask, hand, 0, rank)
    elif same_rank and first % NR != 0:
        _mark_groups(s, mask, hand, k, first % NR)
    # new runs
    if k == 0:
        for suit in range(4):
            base = hand + suit * NR
            for rank in range(1, NR - 2):
                if s[base + rank] > 0 and s[base + rank + 1] > 0 and s[base + rank + 2] > 0:
                    mask[suit * NR + rank] = 1
    elif same_suit and consecutive and first % NR != 0:
        if k >= 3:
            mask[COMMIT_NEW] = 1
        nxt = first % NR + k
        if nxt < NR and s[hand + first + k] > 0 and (k >= 2 or (nxt + 1 < NR and s[hand + first + k + 1] > 0)):
            mask[first + k] = 1
    # lay-offs onto table runs
    if k == 0 or same_suit:
        for t in range(nm):
            if s[MELDS + t * SLOT + K_KIND] == RUN:
                _mark_run_layoffs(s, mask, hand, k, t)
    _mark_specials(s, mask, hand, k)
    if k == 0:
        for c in range(NC):
            if s[hand + c] > 0:
                mask[DISCARD_BASE + c] = 1
    elif cfg[C_CLEAR]:
        mask[CLEAR] = 1


# ---------------------------------------------------------------------------- actions
@njit
def _new_meld_kind(s: np.ndarray, k: int) -> int:
    """``melds.meld_kind`` of the selection, a legal new meld."""
    first = s[SEL]
    same_rank = same_suit = True
    for i in range(1, k):
        c = s[SEL + i]
        same_rank = same_rank and c % NR == first % NR
        same_suit = same_suit and c // NR == first // NR
    if same_rank:
        return GROUP
    if same_suit and s[SEL + k - 1] == first + k - 1:
        return RUN
    odd = (first % NR) % 2 == ODD_LOW % 2
    if same_suit:
        return ODDS_SUIT if odd else EVENS_SUIT
    return ODDS_COLOUR if odd else EVENS_COLOUR


@njit
def _commit(s: np.ndarray, target: int, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._commit``: lay the selection as a new meld (R3.4) or lay it off (R3.5); it scores at once."""
    n = cfg[C_PLAYERS]
    p = s[CURRENT]
    k = s[SEL_LEN]
    hand = HANDS + p * NC
    right = (p - 1 + n) % n
    for i in range(k):
        c = s[SEL + i]
        s[hand + c] -= 1
        s[TABLE + c] += 1
        if s[KNOWN_LEFT + right] == c:
            s[KNOWN_LEFT + right] = -1
        if s[STILL_LEFT + right] == c:
            s[STILL_LEFT + right] = -1
    s[SIZES + p] -= k
    if target < 0:
        kind = _new_meld_kind(s, k)
        at = MELDS + s[NUM_MELDS] * SLOT
        s[NUM_MELDS] += 1
        s[at + K_KIND] = kind
        s[at + K_OWNER] = p
        s[at + K_SIZE] = k
        for i in range(k):
            s[at + K_CARDS + i] = s[SEL + i]
        if kind == GROUP:
            s[at + K_INFO1] = s[SEL] % NR
            code = 0
            for i in range(k):
                code += POW3[s[SEL + i] // NR]
            s[at + K_INFO2] = code
        elif kind == RUN:
            s[at + K_INFO1] = s[SEL] % NR
            s[at + K_INFO2] = s[SEL + k - 1] % NR
        value = size_value(k) if kind == GROUP or kind == RUN else SPECIAL_VALUES[kind]
    else:
        at = MELDS + target * SLOT
        size = s[at + K_SIZE]
        value = size_value(size + k) - size_value(size)
        # merge the sorted selection into the sorted cards, from the top
        i, j = size - 1, k - 1
        for w in range(size + k - 1, -1, -1):
            if j < 0:
                break
            if i >= 0 and s[at + K_CARDS + i] > s[SEL + j]:
                s[at + K_CARDS + w] = s[at + K_CARDS + i]
                i -= 1
            else:
                s[at + K_CARDS + w] = s[SEL + j]
                j -= 1
        s[at + K_SIZE] = size + k
        if s[at + K_KIND] == GROUP:
            for i in range(k):
                s[at + K_INFO2] += POW3[s[SEL + i] // NR]
        else:
            s[at + K_INFO1] = s[at + K_CARDS] % NR
            s[at + K_INFO2] = s[at + K_CARDS + size + k - 1] % NR
    s[HAND_POINTS + p] += value
    s[SEL_LEN] = 0
    if s[SIZES + p] == 0:
        _hand_over(s, rng, cfg)


@njit
def _note_pass(s: np.ndarray, p: int, left: int, card: int) -> None:
    """``rules._discard`` after the card has left the hand: it lies face down for ``left``, and seat ``p``
    knows it is there (``known_left``, ``still_left``)."""
    s[PENDING] = card
    s[PENDING_TO] = left
    s[KNOWN_LEFT + p] = card
    s[STILL_LEFT + p] = card


@njit
def _discard(s: np.ndarray, card: int, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._discard``: pass ``card`` face down to the left (R3.6); the last card goes out (R5.1, I9), and so
    does the discard that ends the ace holder's turn (R7.2, I21): nobody picks it up or knows where it is (I23)."""
    n = cfg[C_PLAYERS]
    p = s[CURRENT]
    right = (p - 1 + n) % n
    s[HANDS + p * NC + card] -= 1
    s[SIZES + p] -= 1
    s[PASSED + p * NC + card] += 1
    s[LAST_PASSED + p] = card
    s[KNOWN_LEFT + right] = -1
    goes_on = s[SIZES + p] > 0 and not s[END_AFTER_TURN]
    if not (n == 2 and goes_on and card != s[STILL_LEFT + right]):
        s[STILL_LEFT + right] = -1
    if not goes_on:  # the hand ends with this discard: the card goes to nobody (I9, I21, I23)
        s[KNOWN_LEFT + p] = -1
        s[STILL_LEFT + p] = -1
        _hand_over(s, rng, cfg)
        return
    left = (p + 1) % n
    _note_pass(s, p, left, card)
    s[CURRENT] = left
    s[TURN] += 1
    _start_turn(s, rng, cfg)


@njit
def apply(s: np.ndarray, action: int, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.apply`` (the action is legal)."""
    if action < DISCARD_BASE:
        s[SEL + s[SEL_LEN]] = action
        s[SEL_LEN] += 1
    elif action < COMMIT_NEW:
        _discard(s, action - DISCARD_BASE, rng, cfg)
    elif action < CLEAR:
        _commit(s, -1 if action == COMMIT_NEW else action - LAYOFF_BASE, rng, cfg)
    else:
        s[SEL_LEN] = 0


@njit
def new_game(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.new_game``: a random dealer deals, the first turn begins (dealt again if that ends the game)."""
    redealt = 0
    while True:
        s[:] = 0
        s[DEALER] = draw(rng, 0, cfg[C_PLAYERS])
        _deal(s, rng, cfg)
        _start_turn(s, rng, cfg)
        if s[PHASE] != OVER:
            break
        redealt = 1
    s[REDEALT] = redealt


# ---------------------------------------------------------------------------- queries
@njit
def deciding(s: np.ndarray, cfg: np.ndarray) -> int:
    return s[CURRENT]


@njit
def is_over(s: np.ndarray, cfg: np.ndarray) -> bool:
    return s[PHASE] == OVER


@njit
def undecided(s: np.ndarray, cfg: np.ndarray) -> bool:
    """The game stopped at ``max_hands`` undecided (``rules.is_truncated``): a truncation."""
    return s[PHASE] == OVER and s[TRUNCATED] != 0


@njit
def scores(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """``rules.scores`` / ``score_scale`` (the env's scores): totals, plus this hand's points while it goes on."""
    scale = _score_scale(cfg)
    live = s[PHASE] != OVER
    for p in range(cfg[C_PLAYERS]):
        points = get_total(s, p)
        if live:
            points += s[HAND_POINTS + p] + s[ACE_BONUS + p]
        out[p] = float(points) / scale


@njit
def outcome(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """``rules.outcome``: +1 for each winner, -1 for the others; zeros while going on or undecided."""
    n = cfg[C_PLAYERS]
    decided = False
    if s[PHASE] == OVER:
        for p in range(n):
            if s[WINNERS + p]:
                decided = True
    for p in range(n):
        out[p] = 0.0 if not decided else (1.0 if s[WINNERS + p] else -1.0)


@njit
def encode(s: np.ndarray, seat: int, cfg: np.ndarray, obs: np.ndarray) -> None:
    """The env's observation of ``seat`` (``env.py`` ``_encode``; the caller zeroes ``obs``)."""
    n, decks = cfg[C_PLAYERS], cfg[C_DECKS]
    half = np.float32(0.5)
    hand = HANDS + seat * NC
    passed = PASSED + seat * NC
    o_hand, o_table, o_passed_cards = cfg[O_HAND], cfg[O_TABLE], cfg[O_PASSED_CARDS]
    for c in range(NC):
        obs[o_hand + c] = s[hand + c] * half
        obs[o_table + c] = s[TABLE + c] * half
        obs[o_passed_cards + c] = min(s[passed + c], decks) * half
    o_melds = cfg[O_MELDS]
    for t in range(s[NUM_MELDS]):
        at = MELDS + t * SLOT
        row = o_melds + t * SLOT_SIZE
        size = s[at + K_SIZE]
        obs[row] = 1.0
        obs[row + 1 + s[at + K_KIND]] = 1.0
        obs[row + 7 + (s[at + K_OWNER] - seat) % n] = 1.0
        in_suit = 0  # cards per suit, 4 bits each
        for i in range(size):
            c = s[at + K_CARDS + i]
            obs[row + 12 + c % NR] = 1.0
            in_suit += 1 << (4 * (c // NR))
        for suit in range(4):
            obs[row + 25 + suit] = min((in_suit >> (4 * suit)) & 15, 2) * half
        obs[row + 29] = size / 12.0
    composing = s[SEL_LEN] > 0 and (not cfg[C_CLEAR] or seat == s[CURRENT])
    if composing:
        for i in range(s[SEL_LEN]):
            obs[cfg[O_SEL] + s[SEL + i]] += half
        obs[cfg[O_COMPOSING]] = 1.0
    if s[LAST_PASSED + seat] >= 0:
        obs[cfg[O_PASSED] + s[LAST_PASSED + seat]] = 1.0
    if s[LAST_RECEIVED + seat] >= 0:
        obs[cfg[O_RECEIVED] + s[LAST_RECEIVED + seat]] = 1.0
    for i in range(n):
        q = (seat + i) % n
        obs[cfg[O_SIZES] + i] = s[SIZES + q] * 0.1
        obs[cfg[O_ACES] + i] = s[ACES + q] * 0.125
        obs[cfg[O_POINTS] + i] = (s[HAND_POINTS + q] + s[ACE_BONUS + q]) * 0.001
        obs[cfg[O_TOTALS] + i] = get_total(s, q) * 0.001
        if s[TURNS_TAKEN + q]:
            obs[cfg[O_BEGUN] + i] = 1.0
        obs[cfg[O_SEATED] + i] = 1.0
    obs[cfg[O_DEALER] + (s[DEALER] - seat) % n] = 1.0
    if s[PHASE] != OVER:
        obs[cfg[O_ACTING] + (s[CURRENT] - seat) % n] = 1.0
    obs[cfg[O_STOCK]] = (cfg[C_STOCK_LEN] - s[STOCK_POS]) / (52 * decks)
    placed = s[TABLE_ACES] + s[TABLE_ACES + 1] + s[TABLE_ACES + 2] + s[TABLE_ACES + 3]
    obs[cfg[O_ACES_HIDDEN]] = 1.0 - placed / (4 * decks)
    if decks == 2:
        obs[cfg[O_DECKS]] = 1.0
    if s[KNOWN_LEFT + seat] >= 0:
        obs[cfg[O_KNOWN]] = 1.0
    if s[END_AFTER_TURN]:
        obs[cfg[O_LAST]] = 1.0
    hand_no = get_wide(s, HAND_NO)
    obs[cfg[O_PLAYED]] = hand_no * 0.01
    cap = cfg[C_MAX_HANDS]
    if cap >= 0 and not cfg[C_SINGLE]:
        obs[cfg[O_LEFT]] = max(0, cap - hand_no) / cap
    if s[STILL_LEFT + seat] >= 0:
        obs[cfg[O_HELD]] = 1.0


@njit
def opening_scores(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """A new game starts from 0 points (the env's ``_opening_scores``): an ace placed in the automatic start
    of the first turn scores its bonus at once, paid with the first decision's reward."""
    for p in range(cfg[C_PLAYERS]):
        out[p] = 0.0


KERNELS = GameKernels(
    new_game, legal, apply, deciding, is_over, scores, outcome, encode, undecided, opening_scores=opening_scores
)


class IcebergRummyCompiled(CompiledEngine):
    """Compiled Iceberg Rummy (see the module docstring and :mod:`ice_envs.core.compiled`)."""

    game = "iceberg_rummy"
    state_width = WIDTH
    state_dtype = np.int16
    kernels = KERNELS
    #: the text record of the last hand (for rendering) is not kept
    unkept_state_fields = frozenset({"last_hand"})

    def config_row(self) -> np.ndarray:
        cfg = self.config
        scale = np.array([self.scalar.score_scale], dtype=np.float64).view(np.int64)[0]
        head = [
            self.num_players,
            cfg.decks,
            int(cfg.single_hand),
            cfg.target_score,
            rules.ACE_SCORINGS.index(cfg.ace_scoring),
            cfg.ace_value,
            int(cfg.ace_holder_finishes),
            -1 if cfg.max_hands is None else cfg.max_hands,
            int(cfg.max_hands_end == "decide"),
            int(cfg.allow_clear),
            NC * cfg.decks - HAND_SIZE * self.num_players,
            int(scale),
        ]
        return np.array(head + [self.obs_layout.offset(name) for name in OBS_PIECES], dtype=np.int64)

    def state_of(self, i: int) -> rules.IcebergRummyState:
        row = self.state[i]
        s = row.astype(np.int64)
        n = self.num_players
        stock_len = NC * self.config.decks - HAND_SIZE * n
        melds = []
        for k in range(int(s[NUM_MELDS])):
            at = MELDS + k * SLOT
            cards = tuple(int(c) for c in s[at + K_CARDS : at + K_CARDS + int(s[at + K_SIZE])])
            melds.append((int(s[at + K_KIND]), int(s[at + K_OWNER]), cards))
        over = int(s[PHASE]) == OVER
        return rules.IcebergRummyState(
            config=self.config,
            hands=s[HANDS : HANDS + n * NC].reshape(n, NC).astype(np.int8),
            stock=s[STOCK : STOCK + stock_len].copy(),
            stock_pos=int(s[STOCK_POS]),
            melds=melds,
            aces=s[ACES : ACES + n].copy(),
            table_aces=s[TABLE_ACES : TABLE_ACES + M.NUM_SUITS].copy(),
            hand_points=s[HAND_POINTS : HAND_POINTS + n].copy(),
            ace_bonus=s[ACE_BONUS : ACE_BONUS + n].copy(),
            totals=np.array([get_total(row, p) for p in range(n)], dtype=np.int64),
            dealer=int(s[DEALER]),
            current=int(s[CURRENT]),
            phase=int(s[PHASE]),
            selection=[int(c) for c in s[SEL : SEL + int(s[SEL_LEN])]],
            pending=int(s[PENDING]),
            pending_to=int(s[PENDING_TO]),
            turns_taken=s[TURNS_TAKEN : TURNS_TAKEN + n].copy(),
            passed=s[PASSED : PASSED + n * NC].reshape(n, NC).astype(np.int8),
            last_passed=s[LAST_PASSED : LAST_PASSED + n].copy(),
            last_received=s[LAST_RECEIVED : LAST_RECEIVED + n].copy(),
            known_left=s[KNOWN_LEFT : KNOWN_LEFT + n].copy(),
            still_left=s[STILL_LEFT : STILL_LEFT + n].copy(),
            end_after_turn=bool(s[END_AFTER_TURN]),
            hand_no=int(get_wide(row, HAND_NO)),
            turn=int(s[TURN]),
            truncated=bool(s[TRUNCATED]),
            last_hand={},
            winners=[p for p in range(n) if over and s[WINNERS + p]],
        )

    def pack_state(self, state: rules.IcebergRummyState) -> np.ndarray:
        """The state row of the scalar engine's ``state`` (the inverse of :meth:`state_of`: ``state_of`` of
        the row is ``state``, the text record ``last_hand`` aside)."""
        n = self.num_players
        row = np.zeros(WIDTH, dtype=self.state_dtype)
        hands = np.asarray(state.hands, dtype=np.int64)
        row[HANDS : HANDS + n * NC] = hands.reshape(-1)
        row[SIZES : SIZES + n] = hands.sum(axis=1)
        # A re-deal's stock holds only the cards still in it (``resample_hidden``): it goes to the end of the
        # row's fixed-length stock, as if the cards before it had been drawn.
        stock = np.asarray(state.stock, dtype=np.int64)
        drawn = NC * state.config.decks - HAND_SIZE * n - stock.size
        row[STOCK + drawn : STOCK + drawn + stock.size] = stock
        row[STOCK_POS] = state.stock_pos + drawn
        row[NUM_MELDS] = len(state.melds)
        for k, (kind, owner, cards) in enumerate(state.melds):
            at = MELDS + k * SLOT
            row[at + K_KIND], row[at + K_OWNER], row[at + K_SIZE] = kind, owner, len(cards)
            row[at + K_CARDS : at + K_CARDS + len(cards)] = cards
            if kind == GROUP:
                row[at + K_INFO1], row[at + K_INFO2] = cards[0] % NR, sum(POW3[c // NR] for c in cards)
            elif kind == RUN:
                row[at + K_INFO1], row[at + K_INFO2] = cards[0] % NR, cards[-1] % NR
            for c in cards:
                row[TABLE + c] += 1
        row[ACES : ACES + n] = state.aces
        row[TABLE_ACES : TABLE_ACES + M.NUM_SUITS] = state.table_aces
        row[HAND_POINTS : HAND_POINTS + n] = state.hand_points
        row[ACE_BONUS : ACE_BONUS + n] = state.ace_bonus
        for p in range(n):
            _set_total(row, p, int(state.totals[p]))
        row[DEALER], row[CURRENT], row[PHASE] = state.dealer, state.current, state.phase
        row[SEL_LEN] = len(state.selection)
        row[SEL : SEL + len(state.selection)] = state.selection
        row[PENDING], row[PENDING_TO] = state.pending, state.pending_to
        row[TURNS_TAKEN : TURNS_TAKEN + n] = state.turns_taken
        row[PASSED : PASSED + n * NC] = np.asarray(state.passed, dtype=np.int64).reshape(-1)
        row[LAST_PASSED : STILL_LEFT + MAX_SEATS] = -1
        for at, memory in (
            (LAST_PASSED, state.last_passed),
            (LAST_RECEIVED, state.last_received),
            (KNOWN_LEFT, state.known_left),
            (STILL_LEFT, state.still_left),
        ):
            row[at : at + n] = memory
        row[END_AFTER_TURN] = int(state.end_after_turn)
        _set_wide(row, HAND_NO, int(state.hand_no))
        row[TURN] = state.turn
        row[TRUNCATED] = int(state.truncated)
        for p in state.winners:
            row[WINNERS + p] = 1
        return row

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:
        """The scalar env deals game ``i`` itself from the draws replayed (dealer, then each shuffle);
        a game dealt again because its first deal ended it starts from its state."""
        if self.state[i, REDEALT]:
            return {"state": self.state_of(i)}, False
        return {}, True
