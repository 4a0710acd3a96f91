"""Icebergs' move features: the compiled prices of each action are the Python heuristic's (its ``Board`` and
``TurnPlanner`` on the state after the action), and the columns mean what their names say."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from ice_envs.agents.move_scorer import MoveFeaturizer
from ice_envs.agents.spec import load_agent
from ice_envs.agents.whole_moves import RecordingDraws
from ice_envs.core.agent import PlayerView
from ice_envs.core.state_copy import copy_state
from ice_envs.icebergs import compiled_moves as M
from ice_envs.icebergs import move_features as F
from ice_envs.icebergs import rules
from ice_envs.icebergs.heuristic import MU, Board, TurnPlanner
from tests.positions import decisions

pytest.importorskip("numba")

GAME = "icebergs"
COL = {name: i for i, name in enumerate(F.NAMES)}


@cache
def _positions(players: int, seed: int, games: int, **options) -> tuple[tuple[int, PlayerView], ...]:
    """(seat, view) at every decision with a choice of ``games`` games of heuristic self-play."""
    found = []
    for g in range(games):
        heuristic = load_agent("heuristic", GAME, seed=g, num_players=players)
        for _, seat, view in decisions(GAME, players, seed + g, [heuristic] * players, **options):
            if len(view.legal_actions) > 1:
                found.append((seat, view))
    return tuple(found)


def _to_go(state: rules.IcebergsState, ship: int) -> float:
    """The Python heuristic's Moves to go of ``ship`` (``compiled_moves.to_go``'s reference)."""
    status = state.status[ship]
    if status == rules.HOME:
        return 0.0
    if status == rules.SUNK:
        return M.FAR
    board = Board(state, ship)
    left = board.remaining()
    if not board.goal_east:
        left += state.config.hexmap.cols + 1.0
    return min(left, M.FAR)


def _plan(state: rules.IcebergsState, ship: int) -> float:
    """The Python ``TurnPlanner``'s best plan of ``ship`` (``compiled_moves.plan_value``'s reference)."""
    if state.status[ship] not in (rules.START, rules.AT_SEA, rules.ALASKA_LOADING, rules.ALASKA_READY):
        return _to_go(state, ship) / MU
    moving = state.phase == rules.PHASE_MOVE and state.current == ship and not state.over
    budget = state.moves_left if moving else 0
    best = TurnPlanner(Board(state, ship), budget).run()[budget]
    return best.value if best is not None else _to_go(state, ship) / MU


@pytest.mark.parametrize("options", [{"max_turns_end": "decide"}, {"ships_per_player": 2}])
def test_the_compiled_prices_are_the_python_heuristics(options):
    """Before and after every action that draws no chance, the plan and the Moves to go of every ship are the
    numbers the Python heuristic computes on the same state (exactly: the same float operations)."""
    players = 4 if "max_turns_end" in options else 2
    positions = _positions(players, 11, 2, **options)
    assert len(positions) > 40
    checked = 0
    for _, view in positions[::6]:
        state = view.state
        engine = F._engine(state.config)
        cfg = engine._cfg
        actions = np.array(sorted(view.legal_actions), dtype=np.int64)
        values = np.zeros((len(actions), len(M.VALUES)))
        M.action_values(engine.pack_state(state), cfg, actions, np.uint64(F.STREAM), values)
        ship = state.deciding_ship
        assert values[:, M.V_PLAN_BEFORE] == pytest.approx(_plan(state, ship), abs=0)
        assert values[:, M.V_OWN_BEFORE] == pytest.approx(_to_go(state, ship), abs=0)
        for action, row in zip(actions.tolist(), values):
            after = copy_state(state)
            draws = RecordingDraws(np.random.default_rng(0))
            rules.apply(after, action, draws)
            if draws.drawn:
                continue
            assert row[M.V_PLAN_AFTER] == _plan(after, ship)
            assert row[M.V_OWN_AFTER] == _to_go(after, ship)
            assert row[M.V_FUEL] == after.fuel[ship] and row[M.V_CARGO] == after.cargo[ship]
            per = state.config.ships_per_player
            rivals = [k for k in range(state.config.num_ships) if k // per != ship // per]
            delays = [_to_go(after, k) - _to_go(state, k) for k in rivals]
            assert row[M.V_RIVAL_DELAY_MAX] == max([0.0, *delays])
            checked += 1
    assert checked > 60


def test_the_columns_say_what_the_action_is():
    """One kind per action; the gap is measured from the best gain; leaving the map at the goal edge is
    marked and neither gains nor loses plan; Fuel, Cargo and Moves left are the state's after the action."""
    featurizer = MoveFeaturizer(GAME, 4, ("game",))
    seen_kinds = set()
    left_legs = 0
    for seat, view in _positions(4, 31, 2, max_turns_end="decide"):
        state = view.state
        lay = state.config.layout
        moves, rows = featurizer.candidates(state, seat)
        assert rows.shape == (len(moves), len(F.NAMES)) and np.isfinite(rows).all()
        assert all(len(m) == 1 for m in moves)
        kinds = rows[:, [COL[k] for k in F.KINDS]]
        np.testing.assert_array_equal(kinds.sum(axis=1), 1.0)
        seen_kinds |= {F.KINDS[i] for i in np.flatnonzero(kinds.any(axis=0))}
        gain, gap = rows[:, COL["plan_gain"]], rows[:, COL["plan_gap"]]
        left = rows[:, COL["left_leg"]] == 1
        np.testing.assert_allclose(gap[~left], gain.max() - gain[~left], atol=1e-6)
        for (action,), row in zip(moves, rows):
            if row[COL["left_leg"]]:
                left_legs += 1
                assert action in (lay.to_alaska, lay.to_home) or lay.drift <= action < lay.decline
                assert row[COL["plan_gain"]] == 0 and row[COL["plan_gap"]] == 0
            if action == lay.end_turn:
                assert row[COL["moves_left"]] == 0
    assert {"end_turn", "ship_step", "enter", "floe"} <= seen_kinds
    assert left_legs > 0


def test_every_action_is_a_move_of_its_own():
    featurizer = MoveFeaturizer(GAME, 4, ("game",))
    seat, view = _positions(4, 31, 1, max_turns_end="decide")[5]
    moves, _ = featurizer.candidates(view.state, seat)
    assert sorted(m[0] for m in moves) == sorted(view.legal_actions)
    assert all(len(m) == 1 for m in moves)
