"""CubeMelt's move features: the heuristic's values pick the heuristic's move, a re-roll's row is the keep's,
and the columns mean what their names say."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from ice_envs.agents.move_scorer import MoveFeaturizer
from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import PlayerView
from ice_envs.cubemelt import move_features as F
from ice_envs.cubemelt import rules
from ice_envs.cubemelt.heuristic import CubeMeltHeuristic
from tests.positions import decisions

GAME = "cubemelt"
COL = {name: i for i, name in enumerate(F.NAMES)}


@cache
def _positions(players: int, expansion: bool, seed: int, games: int) -> tuple[tuple[int, PlayerView], ...]:
    """(seat, view) at every decision with a choice of ``games`` games of heuristic self-play."""
    found = []
    for g in range(games):
        heuristic = load_agent("heuristic", GAME, seed=g, num_players=players)
        for _, seat, view in decisions(GAME, players, seed + g, [heuristic] * players, expansion=expansion):
            if len(view.legal_actions) > 1:
                found.append((seat, view))
    return tuple(found)


@pytest.mark.parametrize("players,expansion", [(3, False), (4, True)])
def test_the_best_value_is_the_heuristics_move(players, expansion):
    """The heuristic plays a move of the highest ``value`` (a re-roll of the same faces counts as the same keep)."""
    featurizer = MoveFeaturizer(GAME, players, ("game",))
    heuristic = CubeMeltHeuristic(seed=0)
    positions = _positions(players, expansion, 20, 4)
    assert len(positions) > 20
    kinds = set()
    for seat, view in positions:
        state = view.state
        moves, rows = featurizer.candidates(state, seat)
        assert rows.shape == (len(moves), len(F.NAMES))
        value, gap = rows[:, COL["value"]], rows[:, COL["value_gap"]]
        np.testing.assert_allclose(gap, value.max() - value, atol=1e-6)
        best = {m[0] for m, v in zip(moves, value) if v == value.max()}
        action = featurizer.sim.agent_action(heuristic, state, view.legal_actions)
        kinds.add(state.phase)
        if action in best:
            continue
        assert state.phase == rules.PHASE_REROLL and action != rules.STOP
        keep = heuristic.keep_of(state.dice, action)
        assert any(a != rules.STOP and heuristic.keep_of(state.dice, a) == keep for a in best)
    assert rules.PHASE_REROLL in kinds


def test_a_reroll_row_is_its_keep_and_a_stop_keeps_every_die():
    featurizer = MoveFeaturizer(GAME, 3, ("game",))
    checked = 0
    for seat, view in _positions(3, False, 40, 2):
        state = view.state
        if state.phase != rules.PHASE_REROLL:
            continue
        moves, rows = featurizer.candidates(state, seat)
        counts = rules.face_counts(state.dice)
        kept_cols = [COL[f"kept_{face}"] for face in rules.FACE_NAMES]
        for (first, *_), row in zip(moves, rows):
            if first == rules.STOP:
                assert row[COL["is_stop"]] == 1 and row[COL["rerolled"]] == 0
                np.testing.assert_allclose(row[kept_cols] * rules.NUM_DICE, counts)
                continue
            thrown = [state.dice[i] for i in range(rules.NUM_DICE) if first >> i & 1]
            kept = np.array(counts) - np.bincount(thrown, minlength=rules.NUM_KINDS)
            np.testing.assert_allclose(row[kept_cols] * rules.NUM_DICE, kept)
            assert row[COL["rerolled"]] * rules.NUM_DICE == pytest.approx(len(thrown))
            assert row[COL["pays_melt"]] == (state.rerolls >= 1)
            assert row[COL["is_stop"]] == 0 and row[COL["is_choice"]] == 0
            assert row[COL["own_melt"]] * rules.GOAL == pytest.approx(state.melt[seat])
            checked += 1
    assert checked > 100


def test_the_rows_are_multiples_of_the_value_quantum():
    """Values are the heuristic's quantised ones: the rows are the same on any CPU."""
    featurizer = MoveFeaturizer(GAME, 3, ("game",))
    for seat, view in _positions(3, False, 60, 1):
        _, rows = featurizer.candidates(view.state, seat)
        for name in ("value", "value_after"):
            column = rows[:, COL[name]].astype(np.float64) * 2.0**20
            np.testing.assert_array_equal(column, np.rint(column))
