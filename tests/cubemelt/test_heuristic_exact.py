"""The CubeMelt heuristic's look-ahead over re-rolls is exact: integer counts of the equally likely outcomes,
values in quanta, each expectation the rounded fraction (ties to even), so no float rounding and no summation
order can change what it decides."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from ice_envs.cubemelt import heuristic, rules
from ice_envs.cubemelt.heuristic import COUNTS, KEEPS, expectations, transition_weights

FACES = [
    tuple(rules.DEFAULT_FACES),
    ("heart", "star", "sad", "drooping"),
    ("heart", "heart", "heart", "sad", "star"),
    ("sad",) * 3 + ("star",) * 9,
]


def ids(faces: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(rules.FACE_NAMES.index(f) for f in faces)


@pytest.mark.parametrize("faces", FACES)
def test_weights_count_the_rolls_of_the_rerolled_dice(faces: tuple[str, ...]) -> None:
    weights, outcomes = transition_weights(ids(faces))
    nf = len(faces)
    assert weights.dtype == outcomes.dtype == np.int64
    for k, keep in enumerate(KEEPS):
        r = rules.NUM_DICE - sum(keep)
        assert outcomes[k] == nf**r and weights[k].sum() == outcomes[k] and (weights[k] >= 0).all()
        if r <= 3:  # every roll of the re-rolled dice, one by one
            counted = np.zeros(len(COUNTS), dtype=np.int64)
            for roll in product(ids(faces), repeat=r):
                final = tuple(keep[j] + roll.count(j) for j in range(rules.NUM_KINDS))
                counted[COUNTS.index(final)] += 1
            assert np.array_equal(weights[k], counted)


def rounded(x: Fraction) -> int:
    """The nearest integer, a tie to the even one (``Fraction.__round__``)."""
    return round(x)


@pytest.mark.parametrize("faces", FACES[:2])
def test_expectations_are_the_rounded_fractions(faces: tuple[str, ...]) -> None:
    weights, outcomes = transition_weights(ids(faces))
    rng = np.random.default_rng(5)
    ties = 0
    for t in range(12):
        values = rng.integers(0, 2**20 + 1, len(COUNTS)) if t % 2 else rng.integers(0, 16, len(COUNTS)) << 16
        got = expectations(weights, outcomes, values)
        assert got.dtype == np.int64
        for k in range(len(KEEPS)):
            exact = Fraction(int(weights[k] @ values), int(outcomes[k]))
            assert got[k] == rounded(exact)
            ties += exact.denominator == 2
    assert ties > 0  # the ties are among them, and go to the even quantum


def test_the_extreme_values_do_not_overflow() -> None:
    """The bound of ``expectations``: values within a quantum count of 2**20 and 12**6 outcomes per re-roll."""
    weights, outcomes = transition_weights(ids(("heart",) * 12))
    assert outcomes.max() == 12**6
    for value in (2**20, -(2**20)):
        assert (expectations(weights, outcomes, np.full(len(COUNTS), value)) == value).all()


def test_mirrored_keeps_of_mirrored_values_are_worth_the_same() -> None:
    """Sad and Drooping have one face each: with values symmetric in them, a keep and its mirror are worth exactly
    the same (a float product may round the two ties apart, by the order in which it sums their rows)."""
    weights, outcomes = transition_weights(ids(rules.DEFAULT_FACES))
    rng = np.random.default_rng(11)
    mirror = [COUNTS.index((c[0], c[1], c[3], c[2])) for c in COUNTS]
    for _ in range(20):
        values = rng.integers(0, 2**20 + 1, len(COUNTS))
        values = np.maximum(values, values[mirror])
        ev = expectations(weights, outcomes, values)
        for k, keep in enumerate(KEEPS):
            assert ev[k] == ev[KEEPS.index((keep[0], keep[1], keep[3], keep[2]))]


@pytest.mark.parametrize("faces", [FACES[0], ("heart",) * 12])
def test_expectations_do_not_depend_on_the_order_of_the_sum(faces: tuple[str, ...]) -> None:
    """The float64 product of :func:`expectations` adds whole numbers below ``2**53``: any order gives the same."""
    weights, outcomes = transition_weights(ids(faces))
    rng = np.random.default_rng(7)
    for _ in range(10):
        values = rng.integers(-(2**20), 2**20 + 1, len(COUNTS))
        order = rng.permutation(len(COUNTS))
        ev = expectations(weights, outcomes, values)
        assert np.array_equal(ev, expectations(weights[:, order], outcomes, values[order]))
        assert np.array_equal(ev, expectations(weights[:, ::-1].astype(np.float64), outcomes, values[::-1]))
        sums = np.array([sum(int(w) * int(v) for w, v in zip(row, values, strict=True)) for row in weights])
        assert np.abs(sums).max() < 2**53
        assert np.array_equal(ev, [round(Fraction(int(t), int(d))) for t, d in zip(sums, outcomes, strict=True)])


def test_the_reroll_decision_reads_only_whole_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over heuristic play, every expectation the re-roll decision takes is of whole-number weights (float64, exact)
    and int64 values in quanta, into int64."""
    calls = []

    def checked(weights: np.ndarray, outcomes: np.ndarray, values: np.ndarray) -> np.ndarray:
        assert outcomes.dtype == values.dtype == np.int64
        assert np.array_equal(weights, np.round(weights)) and np.array_equal(weights.sum(axis=1), outcomes)
        out = expectations(weights, outcomes, values)
        assert out.dtype == np.int64
        calls.append(1)
        return out

    monkeypatch.setattr(heuristic, "expectations", checked)
    agent = heuristic.CubeMeltHeuristic(0)
    rng = np.random.default_rng(2)
    for options in ({}, {"expansion": True, "paid_rerolls": 2}):
        state = rules.new_game(rules.CubeMeltConfig(num_players=3, **options), rng)
        decisions = 0
        while not rules.is_over(state) and decisions < 60:
            if state.phase == rules.PHASE_REROLL:
                action = agent.reroll_action(state, state.active)
                decisions += 1
            else:
                action = int(rules.legal_actions(state)[0])
            if action not in rules.legal_actions(state):
                action = rules.STOP
            rules.apply(state, action, rng)
    assert calls
