"""The per-die meld tables of ``partners``: the same melds, in the same order, as the search they replace."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.tip_of_the_diceberg import partners as PA
from ice_envs.tip_of_the_diceberg import patterns as P
from tests.tip_of_the_diceberg.test_patterns import ALL_PATTERNS, _random_items


def _reference(patterns: list[P.Pattern], items: tuple, x: tuple) -> list[list[tuple[int, ...]]]:
    """What ``rules`` derived before the tables: one constrained search per pattern that allows ``x``."""
    return [P.enumerate_melds(p, items, must=x) if p.allowed[x[1] * 21 + x[2]] else [] for p in patterns]


def test_pair_fits_is_matches_for_every_pair_pattern_die_and_item():
    checked = 0
    for p in ALL_PATTERNS:
        if p.count_max != 2:
            continue
        for s in range(P.NUM_SUITS):
            for v in range(1, P.SUIT_FACES[s] + 1):
                if not p.allowed[s * 21 + v]:
                    continue
                for t in range(P.NUM_SUITS):
                    for w in range(1, P.SUIT_FACES[t] + 1):
                        for d in (False, True):
                            assert PA.pair_fits(p, s, v, t, w, d) == P.matches(p, [(s, v, True), (t, w, d)])
                            checked += 1
    assert checked > 10_000


@pytest.mark.parametrize("low_dice", [False, True])
def test_melds_with_die_equal_the_constrained_search_on_random_positions(low_dice):
    """Every pattern of both shipped catalogs, random hands with dice (identical ones with ``low_dice``),
    every held die as the new one: the same lists in the same order."""
    rng = np.random.default_rng(5 + low_dice)
    kinds = {PA.NO_COMPANY: 0, PA.PAIRS: 0, PA.SEARCH: 0}
    sums = 0  # SEARCH faces answered by the exact-sum loop (_sum_quads) that found a meld with company
    non_empty = 0
    for trial in range(300):
        items = _random_items(rng, int(rng.integers(0, 13)), int(rng.integers(1, 8)), low_dice=low_dice)
        picks = rng.choice(len(ALL_PATTERNS), int(rng.integers(1, 13)), replace=False)
        patterns = [ALL_PATTERNS[int(i)] for i in picks]
        for x in items:
            if not x[3]:
                continue
            got = PA.melds_with_die(patterns, items, x)
            assert got == _reference(patterns, items, x), (trial, x)
            non_empty += sum(1 for melds in got if melds)
            for p in patterns:
                face = PA.die_faces(p)[x[1] * 21 + x[2]]
                if face is not None and face.mode in kinds:
                    kinds[face.mode] += 1
            sums += sum(
                1
                for p, melds in zip(patterns, got)
                if PA.die_faces(p)[x[1] * 21 + x[2]] is not None
                and PA.die_faces(p)[x[1] * 21 + x[2]].sums
                and any(len(m) > 1 for m in melds)
            )
    assert all(kinds.values()) and non_empty > 1000 and sums > 100
