"""Iceberg Rummy's move features: a move is one play or one discard, the rows read only the seat's view, and the
columns mean what their names say."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from ice_envs.agents.move_scorer import MoveFeaturizer
from ice_envs.agents.spec import load_agent
from ice_envs.agents.whole_moves import WHOLE_MOVES_MAX, follow
from ice_envs.core.agent import PlayerView, make_view
from ice_envs.iceberg_rummy import heuristic as H
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import move_features as F
from ice_envs.iceberg_rummy import rules
from ice_envs.train.move_learner import load_config
from tests.positions import decisions

GAME = "iceberg_rummy"
COL = {name: i for i, name in enumerate(F.NAMES)}
CONFIG = Path(__file__).resolve().parents[2] / "train" / "configs" / "moves" / "iceberg_rummy.yaml"


@cache
def _positions(seed: int, games: int) -> tuple[tuple[PlayerView, int, PlayerView], ...]:
    """(another re-deal of the view, seat, view) at every decision with a choice of ``games`` games of heuristic
    play at the suite table (4 players, one hand): seats 0 and 2 play version 2, the others version 1."""
    found = []
    for g in range(games):
        agents = [load_agent(f"heuristic@v{2 - p % 2}", GAME, seed=g, num_players=4) for p in range(4)]
        for env, seat, view in decisions(GAME, 4, seed + g, agents, single_hand=True):
            if len(view.legal_actions) > 1 and not view.state.selection:
                other = make_view(env, seat, np.random.default_rng(10_000 + len(found)))
                found.append((other, seat, view))
    return tuple(found)


@cache
def _featurizer() -> MoveFeaturizer:
    return MoveFeaturizer(GAME, 4, ("generic", "game"))


def test_a_move_is_one_play_or_one_discard():
    featurizer = _featurizer()
    assert featurizer.ends_move is F.ends_move
    positions = _positions(1, 3)
    assert len(positions) > 60
    for _, seat, view in positions:
        state = view.state
        moves = featurizer.moves(state, seat)
        listed = [m for m, _ in moves]
        assert len(listed) < WHOLE_MOVES_MAX and len(set(listed)) == len(listed)
        assert {m[0] for m in listed} == set(view.legal_actions)
        for move in listed:
            assert all(rules.SELECT_BASE <= a < rules.DISCARD_BASE for a in move[:-1])
            assert move[-1] >= rules.DISCARD_BASE
        # one move per play (cards and target) and one per card that may be discarded
        hand = state.hands[seat]
        plays = M.analyse(hand.astype(np.int8).tobytes(), state.table()).plays
        discards = [m for m in listed if rules.DISCARD_BASE <= m[0] < rules.COMMIT_NEW]
        assert len(discards) == np.count_nonzero(hand)
        assert len(listed) - len(discards) == len(plays)


def test_the_teachers_moves_are_listed():
    featurizer = _featurizer()
    sim = featurizer.sim
    teacher = load_agent("heuristic@v2", GAME, seed=0, num_players=4)
    for _, seat, view in _positions(1, 3)[::2]:
        teacher.reset(0)

        def act(state, legal, seat=seat):
            obs = {"action_mask": sim.mask(legal)}
            return teacher.act(obs, PlayerView(GAME, seat, 4, state, list(legal)))

        taught = follow(sim, sim.copy(view.state), seat, act, np.random.default_rng(0), featurizer.ends_move)
        moves, rows = featurizer.candidates(view.state, seat)
        assert taught in moves
        row = rows[moves.index(taught), featurizer._slices["game"]]
        if row[COL["is_discard"]]:  # the least valuable card by version 2's weights
            assert row[COL["discard_lowest"]] == 1 and row[COL["discard_gap"]] == pytest.approx(0, abs=1e-3)
        elif not row[COL["can_go_out"]]:  # the play of best settlement, never a held one
            assert row[COL["play_gap"]] == 0 and row[COL["held_back"]] == 0


def test_features_read_only_what_the_seat_sees():
    """Two re-deals of one seat's view give the same moves and the same game rows (the generic block's greedy
    value after a move that ends the hand is the result of the re-deal it is played on: a sample)."""
    featurizer = MoveFeaturizer(GAME, 4, ("game",))
    checked = 0
    for other, seat, view in _positions(1, 3):
        a = featurizer.candidates(view.state, seat)
        b = featurizer.candidates(other.state, seat)
        assert a[0] == b[0]
        np.testing.assert_array_equal(a[1], b[1])
        checked += 1
    assert checked > 60


def test_columns_mean_what_their_names_say():
    featurizer = _featurizer()
    assert featurizer.game_names == F.NAMES
    game = featurizer._slices["game"]
    seen = {"new": 0, "layoff": 0, "discard": 0, "goes_out": 0, "can_go_out": 0, "holding": 0}
    for _, seat, view in _positions(1, 3) + _positions(7, 2):
        state = view.state
        hand = state.hands[seat].astype(np.int8)
        table = state.table()
        commits = M.analyse(hand.tobytes(), table).commits
        moves, rows = featurizer.candidates(state, seat)
        rows = rows[:, game].astype(np.float64)
        assert rows.shape == (len(moves), len(F.NAMES)) and np.isfinite(rows).all()
        kinds = rows[:, [COL[k] for k in ("is_new_meld", "is_layoff", "is_discard", "is_clear", "is_other")]]
        assert (kinds.sum(axis=1) == 1).all()
        assert rows[:, COL["settle_gap"]].min() == 0
        assert (rows[:, COL["hand_now"]] == hand.sum()).all()
        assert (rows[:, COL["goes_out"]] == (rows[:, COL["cards_after"]] == 0)).all()
        discard_rows = rows[rows[:, COL["is_discard"]] == 1]
        assert discard_rows[:, COL["discard_gap"]].min() == pytest.approx(0, abs=1e-4)
        assert discard_rows[:, COL["discard_lowest"]].max() == 1
        play_rows = rows[rows[:, COL["is_discard"]] == 0]
        assert len(play_rows) == 0 or play_rows[:, COL["play_gap"]].min() == 0
        seen["can_go_out"] += rows[0, COL["can_go_out"]] == 1
        seen["holding"] += rows[0, COL["holding_v2"]] == 1
        assert rows[0, COL["holding_v2"]] >= rows[0, COL["holding_v1"]]
        values = H.card_values(
            hand,
            table,
            H.unseen_counts(state, seat),
            H.future_cards_seen(state, H.WEIGHTS_V2.pickup),
            int(state.known_left[seat]),
            H.WEIGHTS_V2,
        )
        for move, row in zip(moves, rows):
            last = move[-1]
            if rules.DISCARD_BASE <= last < rules.COMMIT_NEW:
                seen["discard"] += 1
                card = last - rules.DISCARD_BASE
                assert row[COL["is_discard"]] == 1 and row[COL["play_points"]] == 0 and row[COL["play_cards"]] == 0
                assert row[COL["cards_after"]] == hand.sum() - 1
                assert row[COL["discard_value"]] == pytest.approx(values[card], rel=1e-5, abs=1e-4)
                assert row[COL["card_id"]] == card and row[COL["card_rank"]] == card % M.NUM_RANKS
                assert row[COL["play_gap"]] == 0
                continue
            cards = tuple(sorted(move[:-1]))
            target = -1 if last == rules.COMMIT_NEW else last - rules.LAYOFF_BASE
            seen["new" if target < 0 else "layoff"] += 1
            assert row[COL["is_new_meld" if target < 0 else "is_layoff"]] == 1
            assert row[COL["play_points"]] == commits[cards][target] > 0
            assert row[COL["play_cards"]] == len(cards)
            assert row[COL["cards_after"]] == hand.sum() - len(cards)
            assert row[COL["settle_after"]] == H.settlement(hand, table, (cards, target, commits[cards][target]))
            assert row[COL["discard_value"]] == 0 and row[COL["discard_gap"]] == 0
            held = row[COL["holding_v2"]] == 1 and row[COL["is_special"]] == 0 and row[COL["can_go_out"]] == 0
            assert row[COL["held_back"]] == held
            assert row[COL["card_id"]] == cards[0] and row[COL["play_gap"]] >= 0
            if row[COL["goes_out"]]:
                seen["goes_out"] += 1
                assert row[COL["cards_after"]] == 0 and row[COL["can_go_out"]] == 1
    assert all(seen.values()), seen


def test_the_shipped_config_loads():
    cfg = load_config(CONFIG)
    assert cfg.game == GAME and cfg.players == 4 and cfg.options == {"single_hand": True}
    assert cfg.teacher == "heuristic@v2" and cfg.opponents == ["heuristic@v1"] * 3
    assert cfg.blocks == ["generic", "game"]
