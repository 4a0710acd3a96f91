"""The meld pattern language: parsing, matching, and the enumerator against brute force.

Rule numbers (R2.5, I14, ...) refer to ``docs/rules/tip_of_the_diceberg.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.tip_of_the_diceberg import patterns as P
from ice_envs.tip_of_the_diceberg.catalog import default_catalog, example_catalog_path, load_catalog


def card(name: str) -> tuple[int, int, bool]:
    cid = P.parse_card(name)
    return P.CARD_SUIT[cid], P.CARD_NUMBER[cid], False


def die(suit: str, value: int) -> tuple[int, int, bool]:
    return P.SUITS.index(suit), value, True


def test_card_ids_and_names():
    """R1.2: the dice deck's cards."""
    assert P.NUM_CARDS == 60 and len(P.CARD_SUIT) == 60
    assert P.card_id("d4", 1) == 0 and P.card_id("d6", 1) == 4 and P.card_id("d20", 20) == 59
    assert [P.card_name(i) for i in (0, 3, 4, 59)] == ["d4:1", "d4:4", "d6:1", "d20:20"]
    assert all(P.parse_card(P.card_name(i)) == i for i in range(60))
    with pytest.raises(ValueError, match="no card 5 of suit d4"):
        P.card_id("d4", 5)
    with pytest.raises(ValueError, match="not a card name"):
        P.parse_card("d7:1")


def test_parse_round_trip_and_errors():
    """R7.2: the pattern language."""
    data = {"count": [2, 4], "same": "suit", "sum": [10, None], "parity": "even", "suits": ["d6", "d20"], "dice": 1}
    p = P.parse_pattern(data)
    assert (p.count_min, p.count_max, p.same_suit, p.sum_min, p.sum_max) == (2, 4, True, 10, P.NO_SUM_MAX)
    assert p.parity == P.PARITY_EVEN and p.suits == 0b100010 and (p.dice_min, p.dice_max) == (1, 1)
    assert P.parse_pattern(P.pattern_to_data(p)) == p
    assert P.describe_pattern(p) == "2-4 items, same suit, sum 10 or more, all even, suits d6/d20, 1 die"
    for bad, match in [
        ({"same": "number"}, "needs a 'count'"),
        ({"count": 0}, "count"),
        ({"count": 9}, "count"),
        ({"count": 2, "colour": "red"}, "unknown pattern key"),
        ({"count": 2, "same": "colour"}, "same"),
        ({"count": 2, "parity": "prime"}, "parity"),
        ({"count": 2, "suits": ["d7"]}, "suits"),
        ({"count": 2, "run": "yes"}, "run"),
        ({"count": 2, "values": [5, 2]}, "values"),
        ({"count": 3, "same": "number", "run": True}, "contradicts"),
        ({"count": 2, "dice": 2, "cards": 1}, "minimums"),
        ({"count": 3, "dice": 1, "cards": 1}, "maximums"),
    ]:
        with pytest.raises(ValueError, match=match):
            P.parse_pattern(bad)


def test_matches_examples():
    """R7.2."""
    pair = P.parse_pattern({"count": 2, "same": "number"})
    assert P.matches(pair, [card("d4:3"), die("d20", 3)])
    assert not P.matches(pair, [card("d4:3"), card("d6:4")])
    assert not P.matches(pair, [card("d4:3")])
    run = P.parse_pattern({"count": 3, "run": True})
    assert P.matches(run, [card("d8:5"), card("d4:3"), die("d6", 4)])
    assert not P.matches(run, [card("d8:5"), card("d4:3"), card("d6:3")])
    assert not P.matches(run, [card("d8:6"), card("d4:3"), card("d6:4")])
    rainbow = P.parse_pattern({"count": 3, "distinct": "suit", "parity": "same"})
    assert P.matches(rainbow, [card("d4:1"), card("d6:3"), die("d8", 7)])
    assert not P.matches(rainbow, [card("d4:1"), card("d6:2"), die("d8", 7)])
    assert not P.matches(rainbow, [card("d4:1"), card("d4:3"), die("d8", 7)])
    mixed = P.parse_pattern({"count": 2, "dice": 1, "cards": 1, "sum": 7})
    assert P.matches(mixed, [card("d4:3"), die("d6", 4)])
    assert not P.matches(mixed, [card("d4:3"), card("d6:4")])
    high = P.parse_pattern({"count": 1, "suits": ["d20"], "values": [15, 20]})
    assert P.matches(high, [die("d20", 15)]) and not P.matches(high, [card("d12:12")])


def _random_items(rng: np.random.Generator, n_cards: int, n_dice: int, low_dice: bool) -> tuple:
    cards = sorted(rng.choice(60, n_cards, replace=False).tolist())
    dice = sorted(rng.choice(18, n_dice, replace=False).tolist())
    items = [(c, P.CARD_SUIT[c], P.CARD_NUMBER[c], False) for c in cards]
    for d in dice:
        faces = P.SUIT_FACES[P.DIE_TYPE[d]]
        value = int(rng.integers(1, 3 if low_dice else faces + 1))
        items.append((P.ITEM_DIE0 + d, P.DIE_TYPE[d], value, True))
    return tuple(items)


ALL_PATTERNS = [c.pattern for c in default_catalog().cards] + [
    c.pattern for c in load_catalog(example_catalog_path()).cards
]


@pytest.mark.parametrize("index", range(len(ALL_PATTERNS)))
def test_enumeration_equals_brute_force(index):
    """R7.2, R3.1: Every meld once (identical dice swapped count once), and nothing else."""
    p = ALL_PATTERNS[index]
    rng = np.random.default_rng(index)
    for trial in range(25):
        items = _random_items(rng, int(rng.integers(0, 11)), int(rng.integers(0, 7)), low_dice=trial % 2 == 0)
        got = P.enumerate_melds(p, items)
        by_id = {it[0]: it for it in items}
        keys = [P.canonical_key(by_id[i] for i in m) for m in got]
        assert len(keys) == len(set(keys)), "a meld reached twice"
        assert all(list(m) == sorted(m) for m in got)
        assert set(keys) == P.brute_force_melds(p, items)
        if got:
            assert P.enumerate_melds(p, items, limit=1) == got[:1]


@pytest.mark.parametrize("index", range(0, len(ALL_PATTERNS), 3))
def test_enumeration_with_a_required_item(index):
    """R7.2."""
    p = ALL_PATTERNS[index]
    rng = np.random.default_rng(100 + index)
    for _ in range(15):
        items = _random_items(rng, 8, 4, low_dice=False)
        full = set(P.enumerate_melds(p, items))
        for x in items:
            if any(y[3] and y[0] != x[0] and (y[1], y[2]) == (x[1], x[2]) for y in items if x[3]):
                continue
            with_x = set(P.enumerate_melds(p, items, must=x))
            assert with_x == {m for m in full if x[0] in m}


def _random_pattern(rng: np.random.Generator) -> P.Pattern:
    """A random valid pattern of the language (R7.2), to test the enumerator's shortcuts beyond the catalogs."""
    while True:
        lo = int(rng.integers(1, 5))
        data: dict = {"count": [lo, lo + int(rng.integers(0, 3))] if rng.random() < 0.5 else lo}
        for key, choices in (("same", ["number", "suit"]), ("distinct", ["number", "suit"])):
            if rng.random() < 0.3:
                data[key] = str(rng.choice(choices))
        if rng.random() < 0.2:
            data["run"] = True
        if rng.random() < 0.3:
            a = int(rng.integers(2, 30))
            data["sum"] = [a, a + int(rng.integers(0, 12))] if rng.random() < 0.7 else a
        if rng.random() < 0.2:
            data["parity"] = str(rng.choice(["even", "odd", "same"]))
        if rng.random() < 0.2:
            a = int(rng.integers(1, 12))
            data["values"] = [a, a + int(rng.integers(0, 9))]
        for key in ("dice", "cards"):
            if rng.random() < 0.25:
                a = int(rng.integers(0, 3))
                data[key] = [a, a + int(rng.integers(0, 2))]
        try:
            return P.parse_pattern(data)
        except ValueError:
            continue


def test_enumeration_of_random_patterns_equals_brute_force():
    """R7.2: the shortcuts of the enumerator (hopeless item sets, a required item) never lose or add a meld."""
    rng = np.random.default_rng(2024)
    for _ in range(300):
        p = _random_pattern(rng)
        items = _random_items(rng, int(rng.integers(0, 9)), int(rng.integers(0, 5)), low_dice=bool(rng.random() < 0.5))
        got = P.enumerate_melds(p, items)
        by_id = {it[0]: it for it in items}
        assert {P.canonical_key(by_id[i] for i in m) for m in got} == P.brute_force_melds(p, items), P.pattern_to_data(
            p
        )
        for x in items:
            if any(y[3] and y[0] != x[0] and (y[1], y[2]) == (x[1], x[2]) for y in items if x[3]):
                continue  # the required item has no identical die (enumerate_melds' precondition)
            assert set(P.enumerate_melds(p, items, must=x)) == {m for m in got if x[0] in m}, P.pattern_to_data(p)


def test_a_required_die_alone_respects_the_dice_limit():
    """A die alone is no meld of a pattern that allows no dice, even as the required item (it was offered)."""
    p = P.parse_pattern({"count": [1, 2], "dice": 0})
    a_card, a_die = (1, 0, 2, False), (60, 0, 2, True)
    assert P.enumerate_melds(p, (a_card, a_die)) == [(1,)]
    assert P.enumerate_melds(p, (a_card, a_die), must=a_die) == []
