"""The helpers added for speed: pair compatibility tables, bitmask meld trees, ``apply_legal``."""

from __future__ import annotations

import numpy as np

from ice_envs.tip_of_the_diceberg import patterns as P
from ice_envs.tip_of_the_diceberg import rules
from tests.tip_of_the_diceberg.test_patterns import ALL_PATTERNS, _random_items


def test_bits():
    assert rules.bits(0) == []
    assert rules.bits(0b1010) == [1, 3]
    assert rules.bits(1 << 77 | 1) == [0, 77]


def test_companions_admit_every_pair_of_a_meld():
    """Two items of any meld are companions of each other (the table only rules out pairs)."""
    rng = np.random.default_rng(7)
    for p in ALL_PATTERNS:
        for _ in range(5):
            items = _random_items(rng, 8, 4, low_dice=True)
            by_id = {it[0]: it for it in items}
            for meld in P.enumerate_melds(p, items):
                for a in meld:
                    x = by_id[a]
                    ok = p.companions(x[1], x[2])
                    assert all(ok[by_id[b][1] * 21 + by_id[b][2]] for b in meld if b != a)


def test_pattern_melds_tree_matches_the_melds():
    rng = np.random.default_rng(11)
    for p in ALL_PATTERNS[:40]:
        items = _random_items(rng, 10, 4, low_dice=True)
        melds = P.enumerate_melds(p, items)
        pm = rules.PatternMelds(melds)
        assert pm.first == frozenset(m[0] for m in melds)
        prefixes = {m[:i] for m in melds for i in range(1, len(m) + 1)}
        for prefix in prefixes:
            nxt = {m[len(prefix)] for m in melds if m[: len(prefix)] == prefix and len(m) > len(prefix)}
            assert pm.node(prefix) == (nxt, prefix in melds)
        assert pm.node((99,)) is None


def test_apply_legal_equals_apply_on_legal_actions():
    rng_a, rng_b, pick = np.random.default_rng(3), np.random.default_rng(3), np.random.default_rng(4)
    a = rules.new_game(rules.DicebergConfig(num_players=4), rng_a)
    b = rules.new_game(rules.DicebergConfig(num_players=4), rng_b)
    for _ in range(500):
        if rules.is_over(a):
            break
        legal = rules.legal_actions(a)
        action = legal[int(pick.integers(len(legal)))]
        rules.apply(a, action, rng_a)
        rules.apply_legal(b, action, rng_b)
        assert a == b
