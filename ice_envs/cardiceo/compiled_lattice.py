"""``solitaire.Lattice``'s expected turns ``E`` for every sub-hand of a hand, compiled, bit for bit.

:func:`solve_lattice` computes what :class:`~ice_envs.cardiceo.solitaire.Lattice` computes,

    E(h) = (384 + sum over rolls r of S(h) of min over plans p of r: E(h - p)) / |S(h)|

rounded to ``2**-GRID_BITS`` turns (half to even), as integers in units of ``2**-GRID_BITS``: every sum is
exact on that grid, so it is the same integer whatever its order, and the one division per sub-hand is the
same correctly rounded float division, so every ``E`` is the Python lattice's bit for bit.

It gets there by a different route, built once at import rather than per hand:

* **Moves.** What a plan does to a hand is the cards it sheds (a count per value); the 14 plans of the
  384 rolls shed :data:`NUM_MOVES` distinct card multisets, the *moves*. A move that the solved hand
  (``top``) cannot afford is affordable by none of its sub-hands.
* **A trie of the rolls' moves.** A roll's term is the least ``E`` over its affordable moves. Each roll's
  moves, ordered by how many rolls allow them (most first), are a path in a trie shared by all rolls:
  the value of a node is the least ``E`` over the moves on its path, so a node costs one ``min`` with its
  parent's value, and rolls that share a prefix of moves share its ``min``\\ s. A node's weight is the
  number of rolls whose path ends there. For one ``top``, a node whose move is unaffordable adds nothing
  (its value is its parent's), so it is skipped and its weight moved up to the nearest affordable
  ancestor (none: those rolls allow no discard from ``top`` and are left out, as ``Lattice`` leaves them).
* **Levels.** Sub-hands are solved a number of cards at a time (a move's result has fewer cards); each
  pass over the trie runs over one level's sub-hands at once, a contiguous row per node (SIMD-friendly).
* **Infinity as a digit.** An unaffordable move reads :data:`INF` (``2**50``, beyond any grid value a
  hand of cards reaches); the weighted sum of a sub-hand's roll terms then carries the number of rolls
  with no affordable move above bit 50 and the exact sum of the others below it, so the rolls that allow a
  discard are counted with no branch.
* **Small hands from a table.** ``E`` of a hand depends on that hand alone (a sum over the same rolls of
  the same sub-hands' values, whichever lattice holds it), so ``E`` of every hand of up to
  :data:`SMALL_CARDS` cards (:data:`SMALL_TURNS`, about 54,000 of them) is solved once at import
  (:func:`_solve_small`, the same trie pass over blocks of hands, in well under a second) and a lattice
  reads its small sub-hands from it by :func:`small_rank`; only the sub-hands of more cards are solved.

:func:`best_after_each_roll` is ``Lattice.best_after`` of all 384 rolls at once, by the same moves.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ice_envs.cardiceo import rules, solitaire
from ice_envs.core.compiled import njit

__all__ = [
    "GRID",
    "INF",
    "NUM_MOVES",
    "SMALL_CARDS",
    "best_after_each_roll",
    "small_rank",
    "solve_lattice",
    "strides_of",
]

NV = rules.NUM_VALUES
COPIES = rules.COPIES_PER_VALUE
NUM_ROLLS = len(solitaire.ROLLS)
#: One turn on ``E``'s grid.
GRID = 1 << solitaire.GRID_BITS
#: ``E`` of a hand no roll can shed from (infinite in the Python lattice; never met with 15 reachable
#: values), and the value of an unaffordable move. 384 of them still fit an ``int64``, and the finite part
#: of a sum of 384 roll terms stays below it for any ``E`` under 2,700 turns.
INF_BITS = 50
INF = np.int64(1) << INF_BITS
FINITE_MASK = INF - 1
#: Sub-hands a level's loops handle per step (a multiple of the widest SIMD vector of int64).
LANES = 8


def _moves() -> tuple[dict[tuple[int, ...], int], list[set[int]]]:
    """The moves, numbered in order of first appearance (rolls in order, then plans), and each roll's moves."""
    makes = solitaire.FRESH_CARDS > 0
    ids: dict[tuple[int, ...], int] = {}
    roll_moves = []
    for r in range(NUM_ROLLS):
        moves = {ids.setdefault(tuple(solitaire.FRESH_NEED[r, p].tolist()), len(ids)) for p in np.flatnonzero(makes[r])}
        roll_moves.append(moves)
    return ids, roll_moves


def _move_table(ids: dict[tuple[int, ...], int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, counts, size)``: move ``m`` sheds ``counts[m, t]`` cards of value ``values[m, t] + 1`` for
    ``t < size[m]``."""
    values = np.zeros((len(ids), 3), dtype=np.int64)
    counts = np.zeros((len(ids), 3), dtype=np.int64)
    size = np.zeros(len(ids), dtype=np.int64)
    for need, m in ids.items():
        held = np.flatnonzero(need)
        size[m] = held.size
        values[m, : held.size] = held
        counts[m, : held.size] = np.asarray(need)[held]
    return values, counts, size


def _trie(roll_moves: list[set[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The trie of the rolls' moves (module docstring): ``(node_move, node_parent, node_weight)``; node ``k``
    (in depth-first order, parents first) adds move ``node_move[k]`` to its parent ``node_parent[k]``
    (-1: the root) and ends the paths of ``node_weight[k]`` rolls."""
    allowed_by = Counter(m for moves in roll_moves for m in moves)
    rank = {m: i for i, m in enumerate(sorted(allowed_by, key=lambda m: (-allowed_by[m], m)))}
    paths = Counter(tuple(sorted(moves, key=rank.__getitem__)) for moves in roll_moves if moves)
    node_of: dict[tuple[int, ...], int] = {}
    node_move, node_parent, node_weight = [], [], []
    for path in sorted(paths, key=lambda p: [rank[m] for m in p]):  # lexicographic: depth-first node order
        for k in range(1, len(path) + 1):
            if path[:k] not in node_of:
                node_of[path[:k]] = len(node_move)
                node_move.append(path[k - 1])
                node_parent.append(node_of[path[: k - 1]] if k > 1 else -1)
                node_weight.append(0)
        node_weight[node_of[path]] += paths[path]
    return tuple(np.array(x, dtype=np.int64) for x in (node_move, node_parent, node_weight))


_IDS, _ROLL_MOVES = _moves()
MOVE_VALUES, MOVE_COUNTS, MOVE_SIZE = _move_table(_IDS)
NODE_MOVE, NODE_PARENT, NODE_WEIGHT = _trie(_ROLL_MOVES)
NUM_MOVES = MOVE_SIZE.size
NUM_NODES = NODE_MOVE.size
#: ``MOVE_OF[a, b, c]``: the move that sheds values ``a + 1 <= b + 1 <= c + 1`` (15: no card), -1 if none.
MOVE_OF = np.full((NV + 1, NV + 1, NV + 1), -1, dtype=np.int64)
for _need, _m in _IDS.items():
    _cards = sorted(v for v, c in enumerate(_need) for _ in range(c)) + [NV, NV]
    MOVE_OF[_cards[0], _cards[1], _cards[2]] = _m
#: ``NODE_DEPTH[k]``: how many nodes lie above node ``k`` (0: a child of the root).
NODE_DEPTH = np.zeros(NUM_NODES, dtype=np.int64)
for _k in range(NUM_NODES):
    NODE_DEPTH[_k] = NODE_DEPTH[NODE_PARENT[_k]] + 1 if NODE_PARENT[_k] >= 0 else 0
#: ``ROLL_MOVES[ROLL_START[r]:ROLL_START[r + 1]]``: the moves of roll ``r``'s plans.
ROLL_START = np.concatenate([[0], np.cumsum([len(m) for m in _ROLL_MOVES])]).astype(np.int64)
ROLL_MOVES = np.array([m for moves in _ROLL_MOVES for m in sorted(moves)], dtype=np.int64)
#: ``ROLL_ALL_MAKE[r]``: every one of the 14 plans of roll ``r`` makes cards (totals of at most 15).
ROLL_ALL_MAKE = (solitaire.FRESH_CARDS > 0).all(axis=1)


@njit
def _round_half_even(x: float) -> int:
    """``x`` (>= 0) rounded to an integer, half to even (``np.round``)."""
    f = np.floor(x)
    d = x - f
    n = int(f)
    if d > 0.5 or (d == 0.5 and n % 2 == 1):
        n += 1
    return n


# ---------------------------------------------------------------------------- E of every small hand
def _composition_counts() -> np.ndarray:
    """``COMPOSITIONS[v, n]``: the hands of ``n`` cards of values ``v + 1 .. 15`` (at most 4 of each)."""
    out = np.zeros((NV + 1, SMALL_CARDS + 1), dtype=np.int64)
    out[NV, 0] = 1
    for v in range(NV - 1, -1, -1):
        for n in range(SMALL_CARDS + 1):
            out[v, n] = sum(out[v + 1, n - c] for c in range(min(rules.COPIES_PER_VALUE, n) + 1))
    return out


def _rank_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(RANK_STEP, SMALL_START)`` of :func:`small_rank`: ``RANK_STEP[v, n, c]`` counts the hands of ``n``
    cards of values ``v + 1 ..`` holding fewer than ``c`` of value ``v + 1`` (they rank before), and
    ``SMALL_START[n]`` is where the hands of ``n`` cards start."""
    comp = _composition_counts()
    step = np.zeros((NV, SMALL_CARDS + 1, rules.COPIES_PER_VALUE + 1), dtype=np.int64)
    for v in range(NV):
        for n in range(SMALL_CARDS + 1):
            for c in range(1, rules.COPIES_PER_VALUE + 1):
                step[v, n, c] = step[v, n, c - 1] + (comp[v + 1, n - c + 1] if n - c + 1 >= 0 else 0)
    start = np.concatenate([[0], np.cumsum(comp[0])]).astype(np.int64)
    return step, start


#: Hands of at most this many cards have their ``E`` in :data:`SMALL_TURNS`, computed once at import.
SMALL_CARDS = 6
#: Hands :func:`_solve_small` solves at once.
SMALL_BLOCK = 256
RANK_STEP, SMALL_START = _rank_tables()


@njit
def small_rank(hand: np.ndarray, cards: int) -> int:
    """The row of :data:`SMALL_TURNS` of ``hand`` (``cards`` cards, at most :data:`SMALL_CARDS`): the hands
    by number of cards, then in lexicographic order of their counts."""
    rank = SMALL_START[cards]
    left = cards
    for v in range(NV):
        c = hand[v]
        if c:
            rank += RANK_STEP[v, left, c]
            left -= c
    return rank


@njit
def _small_hands() -> np.ndarray:
    """Every hand of at most :data:`SMALL_CARDS` cards (at most 4 of each value) in rank order
    (:func:`small_rank`): by number of cards, then lexicographically (value 1's count first)."""
    hands = np.zeros((SMALL_START[SMALL_CARDS + 1], NV), dtype=np.int64)
    at = 1  # row 0: the empty hand
    for cards in range(1, SMALL_CARDS + 1):
        hand = np.zeros(NV, dtype=np.int64)
        left = cards  # the least such hand: the cards on the highest values
        for v in range(NV - 1, -1, -1):
            hand[v] = min(COPIES, left)
            left -= hand[v]
        while True:
            hands[at] = hand
            at += 1
            # the next hand: raise the last count that can be raised with cards after it, and put the rest of
            # those cards on the highest values
            suffix = hand[NV - 1]
            i = NV - 2
            while i >= 0 and (hand[i] == COPIES or suffix == 0):
                suffix += hand[i]
                i -= 1
            if i < 0:
                break
            hand[i] += 1
            left = suffix - 1
            for v in range(NV - 1, i, -1):
                hand[v] = min(COPIES, left)
                left -= hand[v]
    return hands


@njit
def _trie_pass(
    node_move: np.ndarray,
    node_depth: np.ndarray,
    node_weight: np.ndarray,
    n_nodes: int,
    child: np.ndarray,
    stack: np.ndarray,
    total: np.ndarray,
    width: int,
) -> None:
    """One pass over the trie of the rolls' moves for ``width`` hands at once: each node's value is the least
    ``E`` over its path's moves (``child[move]``: ``E`` of each hand less that move; ``stack[d + 1]`` the value at
    depth ``d``, ``stack[0]`` INF), and each node that ends a roll's plans adds its weight times that value into
    ``total`` (zeroed first)."""
    total[:width] = 0
    for a in range(n_nodes):
        c, d, w = node_move[a], node_depth[a], node_weight[a]
        for h in range(width):
            x, y = stack[d, h], child[c, h]
            stack[d + 1, h] = x if x < y else y
        if w:
            for h in range(width):
                total[h] += w * stack[d + 1, h]


@njit
def _solve_small(hands: np.ndarray) -> np.ndarray:
    """``E`` of each of ``hands`` (:func:`_small_hands`: row ``i`` is the hand of rank ``i``), by the same trie
    pass as :func:`solve_lattice` (the same sums, division and rounding, so the same values) over a block of
    hands of one number of cards at a time, each hand less a move found by its rank."""
    count = hands.shape[0]
    turns = np.zeros(count, dtype=np.int64)
    depth = 0
    for k in range(NUM_NODES):
        depth = max(depth, NODE_DEPTH[k] + 1)
    child = np.empty((NUM_MOVES, SMALL_BLOCK), dtype=np.int64)
    stack = np.empty((depth + 1, SMALL_BLOCK), dtype=np.int64)
    stack[0, :] = INF
    total = np.empty(SMALL_BLOCK, dtype=np.int64)
    hand = np.empty(NV, dtype=np.int64)
    held = np.empty(NV, dtype=np.int64)
    for cards in range(1, SMALL_CARDS + 1):
        for lo in range(SMALL_START[cards], SMALL_START[cards + 1], SMALL_BLOCK):
            width = min(SMALL_BLOCK, SMALL_START[cards + 1] - lo)
            child[:, :] = INF
            for lane in range(width):
                hand[:] = hands[lo + lane]
                n = 0
                for v in range(NV):
                    if hand[v]:
                        held[n] = v
                        n += 1
                for i in range(n):  # the moves: the hand's sub-hands of 1 to 3 cards that some plan sheds
                    for j in range(i, n + 1):
                        for k in range(j, n + 1):
                            a, b = held[i], held[j] if j < n else NV
                            c = held[k] if k < n else NV
                            if (
                                (j == n and k < n)
                                or (b == a and hand[a] < 2 + (c == a))
                                or (c == b < NV and hand[b] < 2)
                            ):
                                continue
                            m = MOVE_OF[a, b, c]
                            if m < 0:
                                continue
                            shed = 0
                            for t in range(MOVE_SIZE[m]):
                                hand[MOVE_VALUES[m, t]] -= MOVE_COUNTS[m, t]
                                shed += MOVE_COUNTS[m, t]
                            child[m, lane] = turns[small_rank(hand, cards - shed)]
                            for t in range(MOVE_SIZE[m]):
                                hand[MOVE_VALUES[m, t]] += MOVE_COUNTS[m, t]
            _trie_pass(NODE_MOVE, NODE_DEPTH, NODE_WEIGHT, NUM_NODES, child, stack, total, SMALL_BLOCK)
            for lane in range(width):
                rolls = NUM_ROLLS - (total[lane] >> INF_BITS)
                summed = NUM_ROLLS * GRID + (total[lane] & FINITE_MASK)
                turns[lo + lane] = _round_half_even(float(summed) / float(rolls)) if rolls > 0 else INF
    return turns


@njit
def strides_of(top: np.ndarray) -> tuple[np.ndarray, int]:
    """The mixed-radix strides of the sub-hands of ``top`` and their number (``Lattice.strides``)."""
    strides = np.empty(NV, dtype=np.int64)
    size = 1
    for v in range(NV):
        strides[v] = size
        size *= top[v] + 1
    return strides, size


#: ``E`` of every hand of at most :data:`SMALL_CARDS` cards, by :func:`small_rank`.
SMALL_TURNS = _solve_small(_small_hands())


@njit
def solve_lattice(top: np.ndarray, turns: np.ndarray) -> None:
    """``E`` of every sub-hand of ``top`` into ``turns[index]`` (``solitaire.Lattice``, in units of
    ``1 / GRID``; :data:`INF` where no roll allows a discard). See the module docstring."""
    strides, size = strides_of(top)
    # the moves top affords: their columns, index offsets and what they shed
    col_of = np.full(NUM_MOVES, -1, dtype=np.int64)
    col_offset = np.empty(NUM_MOVES, dtype=np.int64)
    col_size = np.empty(NUM_MOVES, dtype=np.int64)
    col_values = np.empty((NUM_MOVES, 3), dtype=np.int64)
    col_counts = np.empty((NUM_MOVES, 3), dtype=np.int64)
    n_cols = 0
    for m in range(NUM_MOVES):
        offset = 0
        fits = True
        for t in range(MOVE_SIZE[m]):
            v, c = MOVE_VALUES[m, t], MOVE_COUNTS[m, t]
            if top[v] < c:
                fits = False
                break
            offset += c * strides[v]
        if fits:
            col_of[m] = n_cols
            col_offset[n_cols] = offset
            col_size[n_cols] = MOVE_SIZE[m]
            for t in range(3):
                col_values[n_cols, t] = MOVE_VALUES[m, t]
                col_counts[n_cols, t] = MOVE_COUNTS[m, t]
            n_cols += 1
    # the trie without the unaffordable moves: each kept node's column, depth and weight
    slot = np.empty(NUM_NODES, dtype=np.int64)  # node -> its nearest kept ancestor-or-self, -1: none
    node_col = np.empty(NUM_NODES, dtype=np.int64)
    node_depth = np.empty(NUM_NODES, dtype=np.int64)
    node_weight = np.zeros(NUM_NODES, dtype=np.int64)
    n_nodes = 0
    depth = 0
    for k in range(NUM_NODES):
        parent = NODE_PARENT[k]
        above = slot[parent] if parent >= 0 else -1
        col = col_of[NODE_MOVE[k]]
        if col >= 0:
            node_col[n_nodes] = col
            node_depth[n_nodes] = node_depth[above] + 1 if above >= 0 else 0
            depth = max(depth, node_depth[n_nodes] + 1)
            slot[k] = n_nodes
            n_nodes += 1
        else:
            slot[k] = above
        if slot[k] >= 0:
            node_weight[slot[k]] += NODE_WEIGHT[k]
    rolls_top = 0  # the rolls that allow a discard from top
    for a in range(n_nodes):
        rolls_top += node_weight[a]
    # each sub-hand's digits (cards of each value) and number of cards, then the sub-hands by level
    digits = np.empty((NV, size), dtype=np.int64)  # rows of the values top holds (the others never read)
    cards = np.zeros(size, dtype=np.int64)
    for v in range(NV):
        radix = top[v] + 1
        if radix == 1:
            continue
        stride = strides[v]
        for base in range(0, size, stride * radix):
            for d in range(radix):
                start = base + d * stride
                for i in range(start, start + stride):
                    digits[v, i] = d
                    cards[i] += d
    levels = int(cards[size - 1]) + 1
    level_start = np.zeros(levels + 1, dtype=np.int64)
    for i in range(size):
        level_start[cards[i] + 1] += 1
    widest = 0
    for k in range(levels):
        widest = max(widest, level_start[k + 1])
        level_start[k + 1] += level_start[k]
    order = np.empty(size, dtype=np.int64)
    fill = level_start[:levels].copy()
    for i in range(size):
        order[fill[cards[i]]] = i
        fill[cards[i]] += 1
    # the sub-hands of at most SMALL_CARDS cards: E from the table, by their ranks (small_rank, a value at a
    # time over all sub-hands: contiguous passes)
    rank = np.empty(size, dtype=np.int64)
    left = np.empty(size, dtype=np.int64)
    for i in range(size):
        left[i] = min(cards[i], SMALL_CARDS)  # clipped: the larger sub-hands' ranks are never read
        rank[i] = SMALL_START[left[i]]
    for v in range(NV):
        if top[v]:
            for i in range(size):
                d = digits[v, i]
                rank[i] += RANK_STEP[v, left[i], d]
                left[i] = max(left[i] - d, 0)
    for i in range(size):
        if cards[i] <= SMALL_CARDS:
            turns[i] = SMALL_TURNS[rank[i]]
    lanes = (widest + LANES - 1) // LANES * LANES  # a level's loops run over whole vectors (no scalar tail)
    child = np.empty((max(n_cols, 1), lanes), dtype=np.int64)
    stack = np.empty((depth + 1, lanes), dtype=np.int64)  # stack[d + 1]: the value of the node at depth d
    level_digits = np.zeros((NV, lanes), dtype=np.int64)
    level = np.zeros(lanes, dtype=np.int64)
    total = np.empty(lanes, dtype=np.int64)
    stack[0, :] = INF
    turns[0] = 0
    for k in range(1, levels):
        count = level_start[k + 1] - level_start[k]
        if k <= SMALL_CARDS:  # small hands: E from the table (filled above)
            continue
        width = (count + LANES - 1) // LANES * LANES
        level[:count] = order[level_start[k] : level_start[k + 1]]
        level[count:width] = 0  # padding lanes: the empty hand (their results are never read)
        for v in range(NV):
            if top[v]:
                for h in range(width):
                    level_digits[v, h] = digits[v, level[h]]
        for c in range(n_cols):  # E of each sub-hand less each move; INF where it cannot afford the move
            offset = col_offset[c]
            for h in range(width):
                child[c, h] = turns[max(level[h] - offset, 0)]
            for t in range(col_size[c]):
                v, need = col_values[c, t], col_counts[c, t]
                for h in range(width):
                    if level_digits[v, h] < need:
                        child[c, h] = INF
        _trie_pass(node_col, node_depth, node_weight, n_nodes, child, stack, total, width)
        for h in range(count):
            missing = total[h] >> INF_BITS  # rolls of S(top) that allow no discard from this sub-hand
            rolls = rolls_top - missing
            summed = NUM_ROLLS * GRID + (total[h] & FINITE_MASK)
            turns[level[h]] = _round_half_even(float(summed) / float(rolls)) if rolls > 0 else INF


@njit
def best_after_each_roll(
    hand: np.ndarray, hand_idx: int, strides: np.ndarray, turns: np.ndarray, out: np.ndarray
) -> None:
    """``Lattice.best_after`` of every fresh roll with every die free into ``out[r]``: the least ``E`` of the hands
    roll ``r``'s plans leave, ``E(hand)`` among them whenever one of its 14 plans does not fit (a total over 15
    or cards the hand lacks). ``hand`` is a sub-hand of the solved lattice ``turns`` (index ``hand_idx``)."""
    value = np.empty(NUM_MOVES, dtype=np.int64)
    fits = np.empty(NUM_MOVES, dtype=np.bool_)
    for m in range(NUM_MOVES):
        offset = 0
        ok = True
        for t in range(MOVE_SIZE[m]):
            v, c = MOVE_VALUES[m, t], MOVE_COUNTS[m, t]
            ok = ok and hand[v] >= c
            offset += c * strides[v]
        fits[m] = ok
        value[m] = turns[hand_idx - offset] if ok else 0
    own = turns[hand_idx]
    for r in range(NUM_ROLLS):
        best = INF << 12  # above every E, finite or not
        some_unfit = not ROLL_ALL_MAKE[r]
        for i in range(ROLL_START[r], ROLL_START[r + 1]):
            m = ROLL_MOVES[i]
            if fits[m]:
                best = min(best, value[m])
            else:
                some_unfit = True
        if some_unfit:
            best = min(best, own)
        out[r] = best
