"""The solitaire expectation the Cardiceo heuristic ranks hands by (ice_envs/cardiceo/solitaire.py):
the lattice equals an exact roll-by-roll reference, its grid makes it independent of the lattice
that computed it, and the plan helpers agree with a brute-force enumeration."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from ice_envs.cardiceo import rules, solitaire

GRID = Fraction(1, 2**solitaire.GRID_BITS)


def counts(values) -> np.ndarray:
    return np.bincount(np.asarray(values, dtype=np.int64), minlength=rules.NUM_VALUES + 1)[1:]


def plan_needs(roll: tuple[int, ...], free: tuple[bool, ...] = (True, True, True)) -> set[tuple[int, ...]]:
    """The card counts every plan of ``roll``'s ``free`` dice sheds (brute force over the subsets)."""
    out: set[tuple[int, ...]] = set()

    def grow(free_now: tuple[bool, ...], need: tuple[int, ...], last: int) -> None:
        if any(need):
            out.add(need)
        for sid in range(last + 1, len(rules.SUBSETS)):
            subset = rules.SUBSETS[sid]
            total = sum(roll[i] for i in subset)
            if all(free_now[i] for i in subset) and total <= rules.NUM_VALUES:
                grown = list(need)
                grown[total - 1] += 1
                grow(tuple(f and i not in subset for i, f in enumerate(free_now)), tuple(grown), sid)

    grow(free, (0,) * rules.NUM_VALUES, -1)
    return out


@cache
def exact_turns(hand: tuple[int, ...]) -> Fraction:
    """E(hand) by the module docstring's equation, roll by roll, in exact fractions (no grid)."""
    if not any(hand):
        return Fraction(0)
    best_sum, rolls = Fraction(0), 0
    for roll in solitaire.ROLLS:
        children = [
            exact_turns(tuple(h - n for h, n in zip(hand, need, strict=True)))
            for need in plan_needs(roll)
            if all(n <= h for n, h in zip(need, hand, strict=True))
        ]
        if children:
            best_sum += min(children)
            rolls += 1
    return (len(solitaire.ROLLS) + best_sum) / rolls


def test_fourteen_plans_of_disjoint_subsets():
    assert len(solitaire.PLANS) == len(set(solitaire.PLANS)) == 14
    for plan, dice in zip(solitaire.PLANS, solitaire.PLAN_DICE.tolist(), strict=True):
        used = [i for sid in plan for i in rules.SUBSETS[sid]]
        assert used and len(used) == len(set(used)) and dice == sum(1 << i for i in used)


def test_roll_index_is_the_row_of_the_roll():
    for r in (0, 1, 95, 200, 383):
        assert solitaire.roll_index(solitaire.ROLLS[r]) == r


def test_playable_plans_are_the_brute_force_plans():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(300):
        roll = solitaire.ROLLS[int(rng.integers(len(solitaire.ROLLS)))]
        free = tuple(bool(b) for b in rng.integers(0, 2, 3))
        hand = rng.integers(0, 3, rules.NUM_VALUES)
        found = solitaire.playable_plans(np.array(roll), free, hand).tolist()
        needs = {tuple(solitaire.FRESH_NEED[solitaire.roll_index(roll), p].tolist()) for p in found}
        expected = {n for n in plan_needs(roll, free) if all(a <= b for a, b in zip(n, hand, strict=True))}
        assert needs == expected, (roll, free, hand)
        assert found == sorted(found)
        checked += bool(found)
    assert checked > 100


@pytest.mark.parametrize(
    "hand", [[7], [15], [1, 2], [3, 3], [1, 2, 3], [4, 8, 12], [15, 14, 1], [5, 5, 9, 13], [2, 6, 6, 11]]
)
def test_lattice_equals_the_exact_expectation(hand):
    """Every sub-hand's E is the exact fraction, to the grid's rounding of each level."""
    top = counts(hand)
    lattice = solitaire.Lattice(top)
    for idx in range(lattice.turns.size):
        sub = (idx // lattice.strides) % (top + 1)
        exact = exact_turns(tuple(sub.tolist()))
        got = Fraction(lattice.expected_turns(sub))
        assert got % GRID == 0
        assert abs(got - exact) <= 4 * GRID * max(1, int(sub.sum())), (sub, got, exact)


def test_one_card_takes_the_mean_wait_for_a_roll_that_makes_it():
    for value in range(1, rules.NUM_VALUES + 1):
        hits = sum(value in rules.reachable_totals(roll) for roll in solitaire.ROLLS)
        hand = counts([value])
        assert solitaire.Lattice(hand).expected_turns(hand) == float(solitaire.quantise(np.array(384 / hits))[()])


def test_the_grid_makes_e_independent_of_the_lattice():
    """A sub-hand's E is the same float whichever hand's lattice computed it (sums on the grid are exact)."""
    rng = np.random.default_rng(5)
    for _ in range(6):
        deck = np.repeat(np.arange(1, 16), 4)
        rng.shuffle(deck)
        big = counts(deck[:10])
        small = big.copy()
        for v in rng.choice(np.flatnonzero(big), size=3, replace=False):
            small[v] -= 1
        a, b = solitaire.Lattice(big), solitaire.Lattice(small)
        assert np.all(
            np.isinf(a.turns) | (np.round(a.turns * 2.0**solitaire.GRID_BITS) == a.turns * 2.0**solitaire.GRID_BITS)
        )
        for idx in range(b.turns.size):
            sub = (idx // b.strides) % (small + 1)
            assert a.expected_turns(sub) == b.expected_turns(sub)


def test_a_smaller_hand_is_never_slower():
    rng = np.random.default_rng(6)
    deck = np.repeat(np.arange(1, 16), 4)
    rng.shuffle(deck)
    top = counts(deck[:9])
    lattice = solitaire.Lattice(top)
    for idx in range(lattice.turns.size):
        sub = (idx // lattice.strides) % (top + 1)
        for v in np.flatnonzero(sub):
            less = sub.copy()
            less[v] -= 1
            assert lattice.expected_turns(less) <= lattice.expected_turns(sub)


def test_e_is_zero_for_the_empty_hand_and_finite_for_any_other():
    assert solitaire.Lattice(counts([])).expected_turns(counts([])) == 0.0
    # every value 1..15 is some roll's total, so E is finite for every hand
    assert np.isfinite(solitaire.Lattice(counts([15, 15, 15, 15])).turns).all()


def test_lattice_for_reuses_a_lattice_that_covers_the_hand():
    hand = counts([1, 4, 4, 9, 12])
    first = solitaire.lattice_for(hand)
    assert first.covers(hand) and np.array_equal(first.top, hand)
    smaller = hand.copy()
    smaller[4 - 1] -= 1
    assert solitaire.lattice_for(smaller) is first
    other = counts([2, 3])
    assert solitaire.lattice_for(other) is not first
    for k in range(solitaire.CACHE_SIZE + 2):
        solitaire.lattice_for(counts([15 - k % 15, 1 + k % 14]))
    assert len(solitaire._CACHE) <= solitaire.CACHE_SIZE
