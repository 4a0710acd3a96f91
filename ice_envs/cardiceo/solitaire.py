"""Cardiceo alone: the expected number of turns to shed a hand, for the heuristic.

The *solitaire* model plays one hand alone: every turn rolls the d4, d8 and d12 afresh
(the 384 rolls equally likely), the player discards a *plan* (a set of disjoint dice
subsets whose totals are cards in hand, ``docs/rules/cardiceo.md`` R3.1) and the turn ends.
``E(h)``, the expected number of turns until hand ``h`` is empty when every turn's plan is
the one of least ``E`` for the hand it leaves, satisfies

    E(empty) = 0,    E(h) = 1 + sum over rolls r of P(r) * min(E(h), min over plans p of r: E(h - p))

so, with ``S(h)`` the rolls that allow a discard from ``h`` (a sub-hand is never worse:
the smaller hand can copy the bigger one's discards, so the best plan of such a roll beats
keeping ``h``),

    E(h) = (384 + sum over r in S(h) of min over p: E(h - p)) / |S(h)|

(infinite when no roll allows a discard). :class:`Lattice` solves it at once for every
sub-hand of one hand, smallest first, in numpy. A hand and its sub-hands are the index
``sum(count[v] * stride[v])`` of a mixed-radix number whose digit ``v`` runs from 0 to
the hand's count of value ``v``; a plan's cards are a fixed offset in that index.

The model leaves out the rest of the table (locked dice, the "No play" choice, the
opponents), so ``E`` ranks hands; it is not a forecast of a real game's length.
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import product

import numpy as np

from ice_envs.cardiceo import rules

#: The 384 fresh rolls of the d4, d8 and d12, in the order of :func:`roll_index`.
ROLLS: tuple[tuple[int, ...], ...] = tuple(product(*(range(1, f + 1) for f in rules.DIE_FACES)))
#: ``E`` is kept on a grid of ``2**-GRID_BITS`` turns (:func:`quantise`).
GRID_BITS = 30
#: Lattices kept by :func:`lattice_for` (one per seat of a table of six, and some to spare).
CACHE_SIZE = 8


def partial_partitions(dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every non-empty plan of one turn with ``dice`` (die indices), as sorted subset ids.

    A plan is a set of disjoint non-empty dice subsets (not every die need be used); the
    order in which a turn discards them does not change which hands can afford them.
    """
    plans: list[list[tuple[int, ...]]] = [[]]
    for die in dice:
        grown: list[list[tuple[int, ...]]] = []
        for blocks in plans:
            grown.append(blocks)  # the die stays unused
            grown.append([*blocks, (die,)])  # the die opens a new subset
            grown.extend(blocks[:k] + [(*b, die)] + blocks[k + 1 :] for k, b in enumerate(blocks))
        plans = grown
    sid_of = {subset: sid for sid, subset in enumerate(rules.SUBSETS)}
    return tuple(tuple(sorted(sid_of[b] for b in blocks)) for blocks in plans if blocks)


#: Every non-empty plan of a turn with all three dice free (14 of them), as subset ids.
PLANS: tuple[tuple[int, ...], ...] = partial_partitions(tuple(range(rules.NUM_DICE)))
#: ``PLAN_DICE[p]``: the bits (bit i: die i) of the dice plan ``p`` uses.
PLAN_DICE = np.array([sum(1 << i for sid in plan for i in rules.SUBSETS[sid]) for plan in PLANS], dtype=np.int64)


def plan_table(rolls: tuple[tuple[int, ...], ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(need, cards)`` for every roll and plan of :data:`PLANS`.

    ``need[r, p, v-1]`` is how many cards of value ``v`` plan ``p`` discards with roll ``r``;
    ``cards[r, p]`` is how many cards it sheds, or 0 where a subset's total makes no card
    (such a plan is never playable, and 0 is what "no discard" sheds anyway).
    """
    need = np.zeros((len(rolls), len(PLANS), rules.NUM_VALUES), dtype=np.int16)
    cards = np.zeros((len(rolls), len(PLANS)), dtype=np.int16)
    for r, roll in enumerate(rolls):
        for p, plan in enumerate(PLANS):
            totals = [sum(roll[i] for i in rules.SUBSETS[sid]) for sid in plan]
            if max(totals) > rules.NUM_VALUES:
                continue
            for total in totals:
                need[r, p, total - 1] += 1
            cards[r, p] = len(plan)
    return need, cards


FRESH_NEED, FRESH_CARDS = plan_table(ROLLS)
_NEED64 = FRESH_NEED.astype(np.int64)
#: The ``free`` bits (bit i: die i) of a turn with every die free.
_ALL_FREE = (1 << rules.NUM_DICE) - 1
_MAKES_CARDS = FRESH_CARDS > 0


def roll_index(dice: np.ndarray | tuple[int, ...]) -> int:
    """The row of :data:`FRESH_NEED` for the dice values (d4, d8, d12)."""
    d4, d8, d12 = (int(d) for d in dice)
    return ((d4 - 1) * rules.DIE_FACES[1] + (d8 - 1)) * rules.DIE_FACES[2] + (d12 - 1)


def playable_plans(dice: np.ndarray, free: tuple[bool, ...], hand: np.ndarray) -> np.ndarray:
    """Indices into :data:`PLANS` of the plans the ``free`` dice and ``hand`` allow, in order."""
    r = roll_index(dice)
    free_bits = sum(1 << i for i, f in enumerate(free) if f)
    fits = _MAKES_CARDS[r] & ((PLAN_DICE & ~free_bits) == 0) & (FRESH_NEED[r] <= hand).all(axis=1)
    return np.flatnonzero(fits)


def quantise(turns: np.ndarray) -> np.ndarray:
    """``turns`` rounded to the nearest multiple of ``2**-GRID_BITS`` (half to even).

    On that grid every sum the lattice forms is exact (384 rolls of at most a few dozen turns
    each need under 53 bits), so ``E`` is the same float whatever the order of the sums, the
    grouping of the rolls or the CPU: one correctly rounded division per sub-hand, then this.
    """
    return np.round(turns * 2.0**GRID_BITS) / 2.0**GRID_BITS


class Lattice:
    """``E`` (module docstring) for every sub-hand of ``top`` (counts per value 1..15)."""

    def __init__(self, top: np.ndarray) -> None:
        self.top = np.asarray(top, dtype=np.int64).copy()
        radix = self.top + 1
        self.strides = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
        size = int(np.prod(radix))
        offsets, plans, weights = self._roll_groups()
        subs = (np.arange(size)[:, None] // self.strides) % radix  # the sub-hand of each index
        held = np.flatnonzero(self.top)
        offset_need = (offsets[:, None] // self.strides) % radix
        affords = (subs[None, :, held] >= offset_need[:, None, held]).all(axis=2)  # (offset, sub-hand)
        self.turns = self._solve(subs.sum(axis=1), affords, offsets, plans, weights)

    def _roll_groups(self) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
        """The rolls that allow a discard from ``top``, grouped by their set of plans.

        Returns ``(offsets, plans, weights)``: ``offsets`` the distinct index offsets of the
        plans (sorted); the groups run from most plans to fewest, ``plans[j][g]`` is the column
        into ``offsets`` of group ``g``'s ``j``-th plan (``plans[j]`` lists only the groups with
        more than ``j`` plans), and ``weights[g]`` of the 384 rolls have exactly those plans.
        """
        fits = _MAKES_CARDS & (FRESH_NEED <= self.top).all(axis=2)
        offset = np.where(fits, (_NEED64 * self.strides).sum(axis=2), -1)
        offset.sort(axis=1)
        offset[:, 1:][offset[:, 1:] == offset[:, :-1]] = -1  # two plans that shed the same cards count once
        offset.sort(axis=1)
        rows = offset[offset[:, -1] >= 0]  # the rolls that allow a discard
        rows = rows[np.lexsort(rows.T[::-1])]
        first = np.ones(len(rows), dtype=bool)
        first[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        at = np.flatnonzero(first)
        weights = np.diff(np.append(at, len(rows)))
        groups = rows[at][:, ::-1]  # each group's plans first, then the -1 padding
        size = (groups >= 0).sum(axis=1)
        by_size = np.argsort(-size, kind="stable")
        groups, size, weights = groups[by_size], size[by_size], weights[by_size]
        offsets = np.unique(groups[groups >= 0])
        columns = np.searchsorted(offsets, groups)  # the padding's columns are never read
        plans = [columns[: int((size > j).sum()), j] for j in range(int(size.max(initial=0)))]
        return offsets, plans, weights.astype(np.int64)

    @staticmethod
    def _solve(
        cards: np.ndarray, affords: np.ndarray, offsets: np.ndarray, plans: list[np.ndarray], weights: np.ndarray
    ) -> np.ndarray:
        """``E`` of every sub-hand, in order of its number of ``cards`` (a plan's result has fewer)."""
        turns = np.zeros(cards.size)
        order = np.argsort(cards, kind="stable")
        bounds = np.searchsorted(cards[order], np.arange(int(cards.max(initial=0)) + 2))
        w = weights.astype(np.float64)[:, None]
        for k in range(1, bounds.size - 1):
            idx = order[bounds[k] : bounds[k + 1]]
            child = np.where(affords[:, idx], turns[np.maximum(idx[None, :] - offsets[:, None], 0)], np.inf)
            best = child[plans[0]]  # (group, sub-hand): the least E over the group's plans
            for column in plans[1:]:
                np.minimum(best[: column.size], child[column], out=best[: column.size])
            can = np.isfinite(best)
            rolls = (can * weights[:, None]).sum(axis=0)
            total = len(ROLLS) + (np.where(can, best, 0.0) * w).sum(axis=0)
            turns[idx] = np.where(rolls > 0, quantise(total / np.maximum(rolls, 1)), np.inf)
        return turns

    def best_after(self, hand: np.ndarray, roll: int, free_bits: int = _ALL_FREE) -> float:
        """The least ``E`` of a hand that ``roll``'s ``free_bits`` dice leave from ``hand`` (``E(hand)``
        when they allow no discard)."""
        return float(self._best_after_rolls(hand, np.array([roll]), free_bits)[0])

    def reroll_sum(self, hand: np.ndarray) -> float:
        """The sum over the 384 fresh rolls of :meth:`best_after` (exact: grid values, so the
        mean is this over 384 with no rounding to compare)."""
        return float(self._best_after_rolls(hand, np.arange(len(ROLLS)), _ALL_FREE).sum())

    def _best_after_rolls(self, hand: np.ndarray, rolls: np.ndarray, free_bits: int) -> np.ndarray:
        """:meth:`best_after` for each of ``rolls`` (rows of :data:`FRESH_NEED`)."""
        hand = np.asarray(hand, dtype=np.int64)
        idx = self.index(hand)
        need = _NEED64[rolls]
        fits = _MAKES_CARDS[rolls] & ((PLAN_DICE & ~free_bits) == 0) & (need <= hand).all(axis=2)
        child = self.turns[np.where(fits, idx - (need * self.strides).sum(axis=2), idx)]
        return np.where(fits, child, self.turns[idx]).min(axis=1)

    def covers(self, hand: np.ndarray) -> bool:
        """Whether ``hand`` is a sub-hand of ``top``."""
        return bool((hand <= self.top).all())

    def index(self, hand: np.ndarray) -> int:
        """The lattice index of sub-hand ``hand``."""
        return int(np.dot(np.asarray(hand, dtype=np.int64), self.strides))

    def expected_turns(self, hand: np.ndarray) -> float:
        """``E(hand)`` (``hand`` a sub-hand of ``top``)."""
        return float(self.turns[self.index(hand)])


_CACHE: OrderedDict[tuple[int, ...], Lattice] = OrderedDict()


def lattice_for(hand: np.ndarray) -> Lattice:
    """A lattice that covers ``hand``: a cached one (most recent first), else a new one for ``hand``."""
    for key in reversed(_CACHE):
        lattice = _CACHE[key]
        if lattice.covers(hand):
            _CACHE.move_to_end(key)
            return lattice
    lattice = Lattice(hand)
    _CACHE[tuple(int(c) for c in hand)] = lattice
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return lattice
