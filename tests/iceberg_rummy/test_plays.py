"""The multi-step composition reaches exactly the legal plays, checked by brute force.

The brute force here is written from the rules independently of ``melds.py``: every
sub-multiset of the hand is tried as a new meld (R3.4) and as a lay-off onto every table
meld (R3.5), and its value is computed card by card from the value table (R4.2, with the
house rule I1 / R4.3). The engine's plays are collected by walking the action masks
(select cards, then commit). Rule numbers refer to ``docs/rules/iceberg_rummy.md``.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import numpy as np
import pytest

from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules as R

ODD = [2, 4, 6, 8, 10, 12]  # 3 5 7 9 J K
EVEN = [1, 3, 5, 7, 9, 11]  # 2 4 6 8 10 Q
RED = {1, 2}


def bf_kind(cards: list[int]) -> str | None:
    """Meld test (R3.4): 'pair', 'set', 'run', or a special meld name; None if not a meld."""
    n = len(cards)
    ranks = [c % 13 for c in cards]
    suits = [c // 13 for c in cards]
    if n < 2 or 0 in ranks:  # aces are never part of a meld
        return None
    if len(set(ranks)) == 1:
        distinct = len(set(suits))
        if n == 2:
            return "pair" if distinct == 2 else None
        if n <= 4:
            return "set" if distinct == n else None
        return "set" if distinct == 4 else None
    if n == 6 and sorted(ranks) in (ODD, EVEN):
        odd = sorted(ranks) == ODD
        if len(set(suits)) == 1:
            return "odds-suit" if odd else "evens-suit"
        if len({s in RED for s in suits}) == 1:
            return "odds-colour" if odd else "evens-colour"
        return None
    if n >= 3 and len(set(suits)) == 1 and sorted(ranks) == list(range(min(ranks), min(ranks) + n)):
        return "run"
    return None


SPECIAL = {"odds-suit": 700, "evens-suit": 700, "odds-colour": 300, "evens-colour": 200}


def card_points(k: int) -> int:
    """Points for the k-th card of a set or sequence (R4.2): the third card added to a pair 20,
    the fourth 40, ..., the twelfth card of a run 120."""
    return 20 if k == 3 else 10 * k


def bf_new_value(kind: str, n: int) -> int:
    if kind in SPECIAL:
        return SPECIAL[kind]
    if kind == "pair":
        return 10
    if kind == "run":  # 'Three card Sequence ... 30', then card by card
        return 30 + sum(card_points(k) for k in range(4, n + 1))
    return 10 + sum(card_points(k) for k in range(3, n + 1))  # pair 10, then card by card


def bf_layoff(meld: tuple[int, ...], add: list[int]) -> int | None:
    """Value of laying ``add`` off onto ``meld`` (R3.5, R4.4), or None when illegal."""
    old = bf_kind(list(meld))
    if old not in ("pair", "set", "run"):
        return None
    new = bf_kind(list(meld) + add)
    if new is None or (old == "run") != (new == "run") or new not in ("set", "run"):
        return None
    return sum(card_points(k) for k in range(len(meld) + 1, len(meld) + len(add) + 1))


def bf_plays(hand: np.ndarray, table: tuple[tuple[int, ...], ...]) -> dict[tuple[tuple[int, ...], int], int]:
    """Every legal (cards, target) with its value, by trying every sub-multiset."""
    ids = np.flatnonzero(hand).tolist()
    out = {}
    for take in product(*(range(int(hand[c]) + 1) for c in ids)):
        cards = [c for c, t in zip(ids, take) for _ in range(t)]
        if not cards:
            continue
        key = tuple(sorted(cards))
        kind = bf_kind(cards)
        if kind is not None:
            out[(key, -1)] = bf_new_value(kind, len(cards))
        for k, meld in enumerate(table):
            value = bf_layoff(meld, cards)
            if value is not None:
                out[(key, k)] = value
    return out


def reachable_plays(state: R.IcebergRummyState) -> dict[tuple[tuple[int, ...], int], int]:
    """Every play reachable through the masks: select cards one at a time, then commit."""
    assert not state.selection
    out: dict[tuple[tuple[int, ...], int], int] = {}

    def walk() -> None:
        sel = tuple(state.selection)
        legal = R.legal_actions(state)
        assert legal, f"dead end after selecting {M.cards_text(sel)}"
        for a in legal:
            assert R.is_legal(state, a)
            if a < R.DISCARD_BASE:
                state.selection.append(a)
                walk()
                state.selection.pop()
            elif a == R.COMMIT_NEW or R.LAYOFF_BASE <= a < R.CLEAR_SELECTION:
                target = -1 if a == R.COMMIT_NEW else a - R.LAYOFF_BASE
                assert (sel, target) not in out, "a play reachable by two action sequences"
                out[(sel, target)] = R.analysis(state).commits[sel][target]
            elif sel:
                raise AssertionError(f"action {a} offered with a non-empty selection")
        if not sel:  # discards: exactly the cards in hand
            discards = [a - R.DISCARD_BASE for a in legal if R.DISCARD_BASE <= a < R.COMMIT_NEW]
            assert discards == np.flatnonzero(state.hands[state.current]).tolist()

    walk()
    return out


def _random_play_positions(n: int, seed: int, count: int, max_cards: int = 12):
    """Meld-phase positions (empty selection) from random games, hands small enough to brute force."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        s = R.new_game(R.IcebergRummyConfig(num_players=n, single_hand=True), rng)
        while not R.is_over(s) and len(found) < count:
            if not s.selection and s.hands[s.current].sum() <= max_cards and rng.random() < 0.3:
                found.append(s.copy())
            legal = R.legal_actions(s)
            R.apply(s, legal[rng.integers(len(legal))], rng)
    return found


def _rich_position(rng: np.random.Generator, decks: int) -> R.IcebergRummyState:
    """A crafted position dense in melds: a hand drawn from a few ranks and suits, and a
    table of random legal melds (pairs, sets, runs, specials) from the remaining cards."""
    n = 4 if decks == 2 else 2
    pool = Counter({c: decks for c in range(52) if c % 13})
    lo_window = int(rng.integers(1, 9))
    ranks = list(range(lo_window, lo_window + int(rng.integers(3, 6))))
    table = []
    for _ in range(rng.integers(0, 7)):
        shape = rng.integers(4)
        if shape == 0:  # pair or set, mostly of the hand's ranks
            r = int(rng.choice(ranks)) if rng.random() < 0.7 else int(rng.integers(1, 13))
            suits = [s for s in range(4) for _ in range(pool[s * 13 + r])]
            size = int(rng.integers(2, min(len(suits), 8) + 1)) if len(suits) >= 2 else 0
            pick = [int(x) for x in rng.permutation(suits)[:size]]
            cards = [s * 13 + r for s in pick]
        elif shape in (1, 2):  # run, often next to the hand's ranks
            s = int(rng.integers(4))
            lo = int(np.clip(rng.integers(lo_window - 3, lo_window + 4), 1, 10))
            hi = int(rng.integers(lo + 2, min(lo + 6, 12) + 1))
            cards = [s * 13 + r for r in range(lo, hi + 1)]
        else:  # special
            special = ODD if rng.random() < 0.5 else EVEN
            colour = [(0, 3), (1, 2)][int(rng.integers(2))]
            cards = [int(rng.choice(colour)) * 13 + r for r in special]
        if cards and bf_kind(cards) and all(pool[c] >= cnt for c, cnt in Counter(cards).items()):
            pool.subtract(cards)
            table.append((int(rng.integers(n)), cards))
    suits = rng.choice(4, size=int(rng.integers(1, 5)), replace=False)
    window = [s * 13 + r for s in suits for r in ranks for _ in range(pool[s * 13 + r])]
    size = min(len(window), int(rng.integers(5, 12)))
    hand = [int(c) for c in rng.permutation(window)[:size]]
    pool.subtract(hand)
    others = [c for c, k in pool.items() for _ in range(k) if c not in hand]
    # the first player draws a card that is not an ace and is not among the hand's kinds
    top = int(rng.choice(others)) if others else None
    config = R.IcebergRummyConfig(num_players=n, num_decks=decks, single_hand=True)
    hands = [hand] + [[] for _ in range(n - 1)]
    return R.new_game(config, rng, dealer=n - 1, hands=hands, stock=[top] if top is not None else None, melds=table)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_reachable_plays_equal_brute_force_in_random_games(n):
    """R3.4, R3.5, R4.2-R4.5: the plays reached through the masks equal the brute force."""
    for state in _random_play_positions(n, seed=10 + n, count=40):
        hand = state.hands[state.current]
        expected = bf_plays(hand, state.table())
        assert reachable_plays(state) == expected


@pytest.mark.parametrize("decks", [1, 2])
def test_reachable_plays_equal_brute_force_in_meld_rich_positions(decks):
    """R3.4, R3.5, R4.2-R4.5 on positions dense in melds, one deck and two."""
    rng = np.random.default_rng(100 + decks)
    checked = 0
    seen: Counter = Counter()
    for _ in range(200):
        state = _rich_position(rng, decks)
        if R.is_over(state):
            continue
        hand = state.hands[state.current]
        table = state.table()
        expected = bf_plays(hand, table)
        assert reachable_plays(state) == expected
        checked += 1
        for cards, target in expected:
            kind = bf_kind(list(cards)) if target < 0 else "onto " + str(bf_kind(list(table[target])))
            seen[kind] += 1
            seen["multi-card lay-off"] += target >= 0 and len(cards) > 1
    assert checked > 150
    # the positions cover every kind of play, several times
    for kind in ("pair", "set", "run", "onto pair", "onto set", "onto run", "multi-card lay-off"):
        assert seen[kind] >= 5, (kind, seen)


def test_every_special_meld_and_colour_mix_is_reachable():
    """R3.4.4-R3.4.7 (I5): the suit melds and every mixed colour meld."""
    # all six odd black cards of both decks: odds in clubs, in spades, and every mixed colour meld
    odds = [s * 13 + r for s in (0, 3) for r in ODD]
    config = R.IcebergRummyConfig(num_players=4, single_hand=True)
    state = R.new_game(config, np.random.default_rng(0), dealer=3, hands=[odds, [], [], []], stock=["2D"])
    plays = reachable_plays(state)
    specials = {k: v for k, v in plays.items() if len(k[0]) == 6}
    assert sum(v == 700 for v in specials.values()) == 2
    assert sum(v == 300 for v in specials.values()) == 2**6 - 2
    assert plays == bf_plays(state.hands[state.current], state.table())


def sequential_best(hand: Counter, table: list[tuple[int, ...]]) -> tuple[int, int]:
    """Exhaustive best play-out with the table updated after every play (the real game)."""
    best = (0, 0)
    cards = sorted(hand.elements())
    for key, value in bf_plays(M.counts_of(cards), tuple(table)).items():
        played, target = key
        rest = hand - Counter(played)
        new_table = list(table)
        if target < 0:
            new_table.append(tuple(sorted(played)))
        else:
            new_table[target] = tuple(sorted(new_table[target] + played))
        sub = sequential_best(rest, new_table)
        best = max(best, (sub[0] + value, sub[1] + len(played)))
    return best


def test_best_playout_matches_exhaustive_sequential_search():
    """R4.6.1, R6.4 (I12): the best play-out equals an exhaustive sequential search."""
    rng = np.random.default_rng(5)
    nontrivial = 0
    for _ in range(80):
        state = _rich_position(rng, int(rng.integers(1, 3)))
        hand = state.hands[state.current]
        if hand.sum() > 8:
            continue
        expected = sequential_best(Counter(M.cards_of(hand)), list(state.table()))
        assert M.best_playout(hand, state.table()) == expected
        nontrivial += expected[0] > 30
    assert nontrivial >= 20


def test_best_playout_past_the_search_budget_is_the_same(monkeypatch):
    """I12: past the search budget the integer program answers, with the same play-out."""
    rng = np.random.default_rng(9)
    for _ in range(30):
        state = _rich_position(rng, 2)
        hand, table = state.hands[state.current], state.table()
        searched = M.best_playout(hand, table)
        monkeypatch.setattr(M, "PLAYOUT_SEARCH_BUDGET", 0)
        assert M.best_playout(hand, table) == searched
        monkeypatch.undo()
    deck = M.counts_of([c for c in range(52) if c % 13] * 2)  # every non-ace card of two decks
    points, played = M.best_playout(deck, ())
    # odds and evens in one suit, per suit and deck: 16 special melds play every card for 16 x 700
    assert played == 96 and points >= 16 * 700
