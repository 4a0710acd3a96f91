"""Hands on Iceberg Rummy's compiled state row, for the compiled players (:mod:`.compiled_players`).

* the legal plays of a hand against a table: :func:`.compiled_playout.enumerate_plays` into scratch play
  arrays (:func:`_new_plays`, :func:`_plays_of`; the order of :func:`.melds.enumerate_plays`);
* its best play-out (:func:`_playout`, ``melds.best_playout``, exact): a hand of few plays by a plain
  exhaustive search of each independent component (:func:`_small_playout`), the others by the engine's
  search :func:`.compiled_playout.best_playout`, and past its budget by the reference through
  ``numba.objmode`` (as the engine does);
* the best play-out of the hand less each card in turn (:func:`playouts_without`, the heuristic's card values):
  one search of each component (:func:`_search_components`), which also finds its best score without each of
  its cards;
* the end-of-hand penalty of a seat (:func:`_penalty`, ``rules.hand_penalty``) with that play-out, and the part
  of it no play-out changes (:func:`_ace_penalty`, a lower bound);
* a table with one more play laid (:func:`_table_after`, the heuristic's ``_after``): a copy of the row's
  meld slots with the play written in.
"""

from __future__ import annotations

import numba
import numpy as np

from ice_envs.core.compiled import njit
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules
from ice_envs.iceberg_rummy.compiled import (
    ACES,
    C_ACE_SCORING,
    HANDS,
    MELDS,
    MULTIPLIER,
    NC,
    NR,
    NUM_MELDS,
    POW3,
    SIZES,
    _ace_bonus_total,
)
from ice_envs.iceberg_rummy.compiled_playout import (
    CARD_SLOTS,
    K_CARDS,
    K_INFO1,
    K_INFO2,
    K_KIND,
    K_SIZE,
    MAX_MELD_CARDS,
    MAX_PLAYS,
    NOT_SOLVED,
    SLOT,
    _find,
    best_playout,
    enumerate_plays,
)

GROUP, RUN = M.GROUP, M.RUN
#: The kind written for a special meld laid in a scratch table (any kind but GROUP and RUN takes no lay-offs).
_SPECIAL = M.ODDS_SUIT
#: Meld slots of a scratch table: the row's, and one more.
MAX_TABLE = rules.MAX_MELDS + 1


#: How often the compiled players have asked the Python rules (per process; for measurements): ``playout``
#: a play-out past the numba search's budget, ``dealt_value`` a greedy outcome that deals a new hand.
PYTHON_CALLS = {"playout": 0, "dealt_value": 0}


def _playout_reference(hand: np.ndarray, table: np.ndarray, num_melds: int) -> tuple[int, int]:
    """Python, through :func:`_playout_objmode`: ``melds.best_playout`` of ``hand`` against the meld slots."""
    PYTHON_CALLS["playout"] += 1
    melds = tuple(
        tuple(int(c) for c in table[k * SLOT + K_CARDS : k * SLOT + K_CARDS + int(table[k * SLOT + K_SIZE])])
        for k in range(num_melds)
    )
    points, played = M.best_playout(np.asarray(hand, dtype=np.int8), melds)
    return int(points), int(played)


@numba.njit(cache=True, error_model="numpy")
def _playout_objmode(hand: np.ndarray, table: np.ndarray, num_melds: int) -> tuple[int, int]:
    with numba.objmode(points="int64", played="int64"):
        points, played = _playout_reference(hand, table, num_melds)
    return points, played


#: Plays and search nodes up to which :func:`_small_playout` answers (beyond: the engine's search).
SMALL_PLAYS = 64
SMALL_NODES = 2048


@njit
def _small_search(
    counts, order, m, cards, length, target, score, by_first, first_start, first_count, nodes, without
) -> int:
    """The best score (``points * 128 + cards``) of one component: the cards ``counts`` at the positions
    ``order[:m]``, no table target taken. At each step the lowest card left is either not played (one
    copy) or played by one play whose lowest card it is (the recurrence of :func:`.melds.best_playout`),
    searched exhaustively with an explicit stack; -1: past the node budget ``nodes``.

    ``without``: ``None``, or one entry per card (set to -1 for the component's cards by the caller)
    that gets, for each card ``x`` of the component, the best score of the plays that leave a copy of ``x``
    unplayed: the best score of the component with one copy of ``x`` fewer. Every set of plays the cards allow
    is a leaf of the search, so the maxima over the leaves that leave ``x`` a copy are exact."""
    if without is not None:  # (``None``: numba compiles the search without the bookkeeping)
        played = np.zeros(NC, dtype=np.int64)  # copies of each card in the path's plays
        start = counts.copy()  # the copies of each card to begin with
    else:
        played = start = counts
    path = 0  # the score of the plays on the path
    depth_max = 2 * NC + 2
    f_at = np.empty(depth_max, dtype=np.int64)
    f_used = np.empty(depth_max, dtype=np.int64)
    f_opt = np.empty(depth_max, dtype=np.int64)
    f_best = np.empty(depth_max, dtype=np.int64)
    f_play = np.empty(depth_max, dtype=np.int64)
    depth = 0
    at, used = 0, 0
    entering = True
    ret = 0
    while True:
        if entering:  # a call on (cards left, used) from position ``at``
            nodes[0] -= 1
            if nodes[0] < 0:
                return -1
            while at < m and counts[order[at]] == 0:
                at += 1
            if at == m:  # nothing left to play: 0 goes back to the caller
                if without is not None:
                    for i in range(m):
                        x = order[i]
                        if played[x] < start[x] and path > without[x]:
                            without[x] = path
                if depth == 0:
                    return 0
                ret = 0
                entering = False
                continue
            else:
                f_at[depth], f_used[depth], f_opt[depth], f_best[depth], f_play[depth] = at, used, -1, -1, -1
                depth += 1
        else:  # ``ret``: the value of the call the top frame made; undo its choice
            top = depth - 1
            c = order[f_at[top]]
            p = f_play[top]
            if p < 0:
                counts[c] += 1
                got = ret
            else:
                for i in range(length[p]):
                    counts[cards[p, i]] += 1
                got = ret + score[p]
                if without is not None:
                    path -= score[p]
                    for i in range(length[p]):
                        played[cards[p, i]] -= 1
            if got > f_best[top]:
                f_best[top] = got
        top = depth - 1
        c = order[f_at[top]]
        called = False
        while not called:
            o = f_opt[top]
            if o == -1:  # leave one copy of c unplayed
                f_opt[top] = 0
                counts[c] -= 1
                f_play[top] = -1
                at, used = f_at[top], f_used[top]
                called = True
            elif o < first_count[c]:
                f_opt[top] = o + 1
                p = by_first[first_start[c] + o]
                bit = (1 << target[p]) if target[p] >= 0 else 0
                if f_used[top] & bit:
                    continue
                fits = True
                for i in range(length[p]):
                    counts[cards[p, i]] -= 1
                    fits = fits and counts[cards[p, i]] >= 0
                if not fits:
                    for i in range(length[p]):
                        counts[cards[p, i]] += 1
                    continue
                f_play[top] = p
                if without is not None:
                    path += score[p]
                    for i in range(length[p]):
                        played[cards[p, i]] += 1
                at, used = f_at[top], f_used[top] | bit
                called = True
            else:
                break
        if called:
            entering = True
            continue
        ret = f_best[top]
        depth -= 1
        if depth == 0:
            return ret
        entering = False


@njit
def _components(plays, n: int):
    """The independent components of the ``n`` plays ``plays`` (cards linked by a play or a table target) and
    the tables :func:`_small_search` reads: ``(score, by_first, first_start, first_count, root_of)``, where
    ``root_of[c]`` names the component of card ``c`` (-1: ``c`` is in no play)."""
    cards, length, target, value = plays
    parent = np.arange(NC + MAX_TABLE)
    first_count = np.zeros(NC, dtype=np.int64)
    score = np.empty(n, dtype=np.int64)
    in_play = np.zeros(NC, dtype=np.bool_)
    for p in range(n):
        c = cards[p, 0]  # the lowest card id (a play's cards are sorted)
        first_count[c] += 1
        score[p] = value[p] * CARD_SLOTS + length[p]
        root = _find(parent, c)
        for i in range(length[p]):
            x = cards[p, i]
            in_play[x] = True
            parent[_find(parent, x)] = root
        if target[p] >= 0:
            parent[_find(parent, NC + target[p])] = root
    first_start = np.empty(NC, dtype=np.int64)
    at = 0
    for c in range(NC):
        first_start[c] = at
        at += first_count[c]
    by_first = np.empty(n, dtype=np.int64)  # plays by their lowest card, in play order
    filled = np.zeros(NC, dtype=np.int64)
    for p in range(n):
        c = cards[p, 0]
        by_first[first_start[c] + filled[c]] = p
        filled[c] += 1
    root_of = np.full(NC, -1, dtype=np.int64)
    for c in range(NC):
        if in_play[c]:
            root_of[c] = _find(parent, c)
    return score, by_first, first_start, first_count, root_of


@njit
def _search_components(hand: np.ndarray, plays, n: int, without, value_of) -> int:
    """The best score (``points * 128 + cards``) of ``hand`` with its ``n`` legal plays ``plays``: each independent
    component searched exhaustively by :func:`_small_search`, within :data:`SMALL_NODES` nodes in all; -1: not
    settled. ``without``: as :func:`_small_search`'s; ``value_of``: ``None``, or one entry per card that gets the
    best score of the card's component (cards in no play are left alone)."""
    cards, length, target, _ = plays
    score, by_first, first_start, first_count, root_of = _components(plays, n)
    counts = np.zeros(NC, dtype=np.int64)
    order = np.empty(NC, dtype=np.int64)
    nodes = np.full(1, SMALL_NODES, dtype=np.int64)
    total = 0
    for c in range(NC):
        root = root_of[c]
        if root < 0:
            continue
        m = 0
        for x in range(c, NC):  # the component's cards in id order
            if root_of[x] == root:
                root_of[x] = -1
                counts[x] = hand[x]
                order[m] = x
                m += 1
        got = _small_search(
            counts, order, m, cards, length, target, score, by_first, first_start, first_count, nodes, without
        )
        if got < 0:
            return -1
        if value_of is not None:
            for i in range(m):
                value_of[order[i]] = got
        total += got
    return total


@njit
def _in_plays(plays, n: int) -> np.ndarray:
    """Which cards are in at least one of the ``n`` plays ``plays``."""
    cards, length, _, _ = plays
    in_play = np.zeros(NC, dtype=np.bool_)
    for p in range(n):
        for i in range(length[p]):
            in_play[cards[p, i]] = True
    return in_play


@njit
def _small_playout(hand: np.ndarray, table: np.ndarray, num_melds: int, plays) -> tuple[int, int]:
    """``melds.best_playout`` by a plain exhaustive search of each independent component (cards linked by a
    play or a table target), for hands with at most :data:`SMALL_PLAYS` plays that it settles within
    :data:`SMALL_NODES` nodes; ``(-1, 0)``: not settled. Exhaustive, hence exact: the best score
    (points, then cards) is unique, so it is the reference's. ``plays``: scratch play arrays (:func:`_new_plays`)."""
    cards, length, target, value = plays
    n = _plays_of(hand, table, num_melds, cards, length, target, value)
    if n == 0:
        return 0, 0
    if n < 0 or n > SMALL_PLAYS:
        return -1, 0
    total = _search_components(hand, plays, n, None, None)
    if total < 0:
        return -1, 0
    return total // CARD_SLOTS, total % CARD_SLOTS


@njit
def playouts_without(hand: np.ndarray, table: np.ndarray, num_melds: int, plays, n: int, out: np.ndarray) -> None:
    """``out[c] = _playout(hand less one c)[0]`` (the points of the best play-out without one copy of ``c``) for
    every card ``c`` in one of the ``n`` legal plays ``plays`` of ``hand`` (:func:`_plays_of`; other entries
    untouched). A card's removal changes only its own component's play-out, and one search of a component
    yields its best score without each of its cards (:func:`_small_search`'s ``without``); where the small
    search does not settle the hand (:func:`_small_playout`'s limits), each smaller hand's whole play-out by the
    engine's search (:func:`_large_playout`)."""
    if n <= 0:
        return
    if n <= SMALL_PLAYS:
        without = np.full(NC, -1, dtype=np.int64)
        value_of = np.full(NC, -1, dtype=np.int64)
        total = _search_components(hand, plays, n, without, value_of)
        if total >= 0:
            for c in range(NC):
                if value_of[c] >= 0 and hand[c] > 0:
                    out[c] = (total - value_of[c] + without[c]) // CARD_SLOTS
            return
    in_play = _in_plays(plays, n)
    rest = hand.copy()
    for c in range(NC):  # the smaller hands are as large: straight to the engine's search
        if in_play[c] and hand[c] > 0:
            rest[c] -= 1
            out[c] = _large_playout(rest, table, num_melds)[0]
            rest[c] += 1


@njit
def _playout(hand: np.ndarray, table: np.ndarray, num_melds: int) -> tuple[int, int]:
    """``melds.best_playout`` of ``hand`` (no aces) against ``num_melds`` meld slots of ``table`` from 0: small
    hands by :func:`_small_playout`, the others by the engine's search."""
    return _playout_with(hand, table, num_melds, _new_plays())


@njit
def _playout_with(hand: np.ndarray, table: np.ndarray, num_melds: int, plays) -> tuple[int, int]:
    """:func:`_playout` with scratch play arrays (:func:`_new_plays`, reused in loops)."""
    points, played = _small_playout(hand, table, num_melds, plays)
    if points >= 0:
        return points, played
    return _large_playout(hand, table, num_melds)


@njit
def _large_playout(hand: np.ndarray, table: np.ndarray, num_melds: int) -> tuple[int, int]:
    """:func:`_playout` of a hand the small search does not settle: the engine's search, past its budget the
    reference."""
    points, played = best_playout(hand, table, 0, num_melds)
    if points == NOT_SOLVED:
        return _playout_objmode(hand, table, num_melds)
    return points, played


@njit
def _hand_of(s: np.ndarray, seat: int) -> np.ndarray:
    hand = np.empty(NC, dtype=np.int64)
    for c in range(NC):
        hand[c] = s[HANDS + seat * NC + c]
    return hand


@njit
def _table_of(s: np.ndarray) -> np.ndarray:
    """The row's meld slots, with room for one more meld."""
    table = np.zeros(MAX_TABLE * SLOT, dtype=np.int64)
    for i in range(s[NUM_MELDS] * SLOT):
        table[i] = s[MELDS + i]
    return table


@njit
def _new_plays():
    return (
        np.empty((MAX_PLAYS, MAX_MELD_CARDS), dtype=np.int8),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(MAX_PLAYS, dtype=np.int64),
    )


@njit
def _plays_of(hand: np.ndarray, table: np.ndarray, num_melds: int, cards, length, target, value) -> int:
    """``melds.analyse(hand, table).plays`` into the play arrays; their number (more than
    :data:`MAX_PLAYS` cannot happen with 52 cards of two decks in hand)."""
    return enumerate_plays(hand, table, 0, num_melds, cards, length, target, value)


@njit
def _table_after(table: np.ndarray, num_melds: int, cards: np.ndarray, length: int, target: int) -> np.ndarray:
    """``heuristic._after``: a copy of ``table`` with the play laid (a new slot, or the target slot grown)."""
    out = table.copy()
    if target < 0:
        at = num_melds * SLOT
        first = cards[0]
        same_rank = same_suit = True
        for i in range(1, length):
            same_rank = same_rank and cards[i] % NR == first % NR
            same_suit = same_suit and cards[i] // NR == first // NR
        if same_rank:
            kind = GROUP
            code = 0
            for i in range(length):
                code += POW3[cards[i] // NR]
            out[at + K_INFO1], out[at + K_INFO2] = first % NR, code
        elif same_suit and cards[length - 1] == first + length - 1:
            kind = RUN
            out[at + K_INFO1], out[at + K_INFO2] = first % NR, cards[length - 1] % NR
        else:
            kind = _SPECIAL
        out[at + K_KIND] = kind
        out[at + K_SIZE] = length
        for i in range(length):
            out[at + K_CARDS + i] = cards[i]
        return out
    at = target * SLOT
    size = out[at + K_SIZE]
    merged = np.empty(size + length, dtype=np.int64)
    i = j = 0
    for w in range(size + length):
        if j >= length or (i < size and out[at + K_CARDS + i] <= cards[j]):
            merged[w] = out[at + K_CARDS + i]
            i += 1
        else:
            merged[w] = cards[j]
            j += 1
    for w in range(size + length):
        out[at + K_CARDS + w] = merged[w]
    out[at + K_SIZE] = size + length
    if out[at + K_KIND] == GROUP:
        for i in range(length):
            out[at + K_INFO2] += POW3[cards[i] // NR]
    else:
        out[at + K_INFO1], out[at + K_INFO2] = merged[0] % NR, merged[size + length - 1] % NR
    return out


@njit
def _is_special(cards: np.ndarray, length: int, target: int) -> bool:
    """``heuristic.is_special``: a new meld that is neither a group nor a run."""
    if target >= 0:
        return False
    first = cards[0]
    same_rank = same_suit = True
    for i in range(1, length):
        same_rank = same_rank and cards[i] % NR == first % NR
        same_suit = same_suit and cards[i] // NR == first // NR
    if same_rank:
        return False
    return not (same_suit and cards[length - 1] == first + length - 1)


@njit
def _cards_greater(c1: np.ndarray, l1: int, c2: np.ndarray, l2: int) -> bool:
    """``tuple(c1[:l1]) > tuple(c2[:l2])`` (Python tuple order)."""
    for i in range(min(l1, l2)):
        if c1[i] != c2[i]:
            return c1[i] > c2[i]
    return l1 > l2


@njit
def _penalty(s: np.ndarray, p: int, cfg: np.ndarray, table: np.ndarray, plays) -> int:
    """``rules.hand_penalty(state, p)[0]`` (the engine's ``_hand_penalty``) with the play-out by :func:`_playout`
    (``table``: the row's meld slots): the play-out's points, 10 per dead card, an unplaced ace 10 or its bonus."""
    hand = _hand_of(s, p)
    aces = 0
    for suit in range(4):
        aces += hand[suit * NR]
        hand[suit * NR] = 0
    points = played = 0
    if s[SIZES + p] - aces > 0:
        points, played = _playout_with(hand, table, np.int64(s[NUM_MELDS]), plays)
    dead = s[SIZES + p] - aces - played
    return points + 10 * dead + _ace_penalty(s, p, cfg)


@njit
def _ace_penalty(s: np.ndarray, p: int, cfg: np.ndarray) -> int:
    """The part of :func:`_penalty` for the aces in seat ``p``'s hand; the rest (the play-out's points and 10 per
    dead card) is never negative, so this is a lower bound of the penalty found without a play-out."""
    aces = 0
    for suit in range(4):
        aces += s[HANDS + p * NC + suit * NR]
    if cfg[C_ACE_SCORING] == MULTIPLIER:
        return 10 * aces
    return _ace_bonus_total(cfg, s[ACES + p] + aces) - _ace_bonus_total(cfg, s[ACES + p])
