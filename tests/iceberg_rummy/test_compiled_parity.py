"""The compiled Iceberg Rummy engine makes exactly the scalar env's transitions (:mod:`ice_envs.core.engine_parity`).

Every (variant, player count) of the spec is covered, plus score rewards, a short decision cap,
``penalize`` with illegal actions, and a short full game truncated at its hand cap.

The scalar shadows shuffle as the compiled engine does: their ``permutation`` is a Fisher-Yates
pass from the last card down whose swap partners are scripted ``integers`` draws (the compiled
engine logs each of them), so every deal, first and later hands alike, is replayed into the scalar
env and dealt there by ``rules.py``.

``ICE_ICEBERG_RUMMY_PARITY_TRANSITIONS`` (default 110,000) sets the number of transitions in all.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import ice_envs
from ice_envs import vector
from ice_envs.core import engine_parity
from ice_envs.core.compiled import CompiledEngine
from ice_envs.core.engine_parity import run_parity
from ice_envs.core.testing import ScriptedRng
from ice_envs.iceberg_rummy import compiled as C

GAME = "iceberg_rummy"
TOTAL_TRANSITIONS = int(os.environ.get("ICE_ICEBERG_RUMMY_PARITY_TRANSITIONS", "110000"))
NUM_ENVS = 16


class ShuffleScriptedRng(ScriptedRng):
    """A :class:`ScriptedRng` whose ``permutation`` is the compiled engine's shuffle from scripted draws."""

    def permutation(self, x: Any) -> np.ndarray:
        cards = np.array(x, copy=True)
        for i in range(cards.size - 1, 0, -1):
            j = self.integers(0, i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        return cards


@pytest.fixture(autouse=True)
def _scripted_shuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_parity, "ScriptedRng", ShuffleScriptedRng)


def _cases() -> list[tuple[str, int, dict[str, Any]]]:
    cases = [(vname, n, options) for vname, n, options in ice_envs.get_spec(GAME).cases()]
    cases += [
        ("score+cap", 3, {"reward_mode": "score", "max_decisions": 60}),
        ("score_cats", 4, {"single_hand": True, "ace_scoring": "cats", "reward_mode": "score", "score_scale": 7.0}),
        ("penalize", 4, {"single_hand": True, "illegal_action": "penalize", "illegal_reward": -2.0}),
        ("truncated_at_cap", 2, {"max_hands": 2, "reward_mode": "score"}),
        (
            "holder_clear_one_deck",
            5,
            {"num_decks": 1, "ace_holder_finishes": True, "allow_clear": True, "max_hands": 4},
        ),
    ]
    return cases


CASES = _cases()
STEPS = max(8, TOTAL_TRANSITIONS // (NUM_ENVS * len(CASES)))


@pytest.mark.parametrize(("variant", "num_players", "options"), CASES, ids=[f"{c[0]}-{c[1]}p" for c in CASES])
def test_compiled_transitions_equal_the_scalar_engine(variant, num_players, options):
    seed = len(variant) * 7 + num_players
    transitions, games = run_parity(GAME, num_players, options, STEPS, seed=seed, kind="compiled", num_envs=NUM_ENVS)
    assert transitions == NUM_ENVS * STEPS
    if STEPS >= 400 and (options.get("single_hand") or "max_hands" in options or "max_decisions" in options):
        assert games >= NUM_ENVS, f"only {games} games finished: the run did not reach game ends"


def test_the_parity_run_covers_every_variant_and_player_count():
    assert NUM_ENVS * STEPS * len(CASES) >= min(TOTAL_TRANSITIONS, 100_000) * 0.99
    spec = ice_envs.get_spec(GAME)
    assert {(v, n) for v, n, _ in CASES} >= {(v, n) for v, n, _ in spec.cases()}
    assert {n for _, n, _ in CASES} == set(spec.players)
    assert set(spec.variants) <= {v for v, _, _ in CASES}


def test_a_deal_that_ends_the_game_at_once_is_dealt_again():
    """One deal in a few thousand gives the first player all four aces of one deck, which ends a single hand
    before anyone decides; the batched game is dealt again and its scalar shadow starts from that state."""
    engine = vector.make(GAME, 8192, 2, seed=3, engine="compiled", single_hand=True)
    _, mask, _ = engine.reset()
    assert mask.any(axis=1).all()
    redealt = np.flatnonzero(engine.state[:, C.REDEALT])
    assert redealt.size, "no deal of this batch ended its game at once: pick another seed"
    for i in redealt[:3].tolist():
        options, replay = engine.scalar_start(i)
        assert not replay
        env = ice_envs.make(GAME, raw=True, num_players=2, single_hand=True)
        env.reset(options=options)
        assert np.array_equal(env.action_mask(), mask[i])
        assert np.array_equal(env.observe(env.agent_selection)["observation"], engine.obs[i])


def test_the_engine_keeps_the_batched_api():
    engine = vector.make(GAME, 6, 4, seed=1)
    assert isinstance(engine, CompiledEngine) and vector.engine_class(GAME) is C.IcebergRummyCompiled
    scalar = ice_envs.make(GAME, raw=True, num_players=4)
    obs, mask, seat = engine.reset()
    box = scalar.observation_space("player_0")["observation"]
    assert obs.shape == (6, box.shape[0]) and mask.shape == (6, scalar.action_space("player_0").n)
    assert all(box.contains(o) for o in obs) and mask.any(axis=1).all()
    rng = np.random.default_rng(0)
    where = np.array([True, False, True, False, True, False])
    before = engine.state.copy()
    obs2, mask2, seat2, rewards, terminated, truncated, info = engine.step(vector.random_actions(mask, rng), where)
    assert np.array_equal(engine.state[~where], before[~where]) and np.array_equal(obs2[~where], obs[~where])
    assert not rewards[~where].any()
    for s in range(4):
        seen = engine.observe(s)
        for i in range(6):
            scalar.reset(options={"state": engine.state_of(i)})
            assert np.array_equal(seen[i], scalar.observe(f"player_{s}")["observation"])


def test_same_seed_same_games_and_each_game_independent_of_the_batch():
    small = vector.make(GAME, 3, 3, seed=9, single_hand=True)
    large = vector.make(GAME, 12, 3, seed=9, single_hand=True)
    _, mask_s, _ = small.reset()
    _, mask_l, _ = large.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert np.array_equal(small.state, large.state[:3]) and np.array_equal(mask_s, mask_l[:3])
        actions = vector.random_actions(mask_l, rng)
        _, mask_s, _, rewards_s, *_ = small.step(actions[:3])
        _, mask_l, _, rewards_l, *_ = large.step(actions)
        assert np.array_equal(rewards_s, rewards_l[:3])
    again, other = (vector.make(GAME, 12, 3, seed=seed, single_hand=True) for seed in (9, 10))
    again.reset()
    other.reset()
    assert not np.array_equal(other.state, again.state)


def test_the_ported_playout_search_equals_the_reference():
    """``compiled_playout.best_playout`` against ``melds.best_playout`` (exact) on the tables of random play and
    hands drawn from the cards off the table (up to 35 cards), and the reference fallback through objmode."""
    from ice_envs.iceberg_rummy import melds as M
    from ice_envs.iceberg_rummy.compiled_playout import best_playout

    rng = np.random.default_rng(5)
    checked = 0
    for players in (3, 4):
        engine = vector.make(GAME, 32, players, seed=players)
        _, mask, _ = engine.reset()
        for _ in range(300):
            _, mask, *_ = engine.step(vector.random_actions(mask, rng))
        for i in range(32):
            row, state = engine.state[i], engine.state_of(i)
            left = np.full(M.NUM_CARDS, state.config.decks) - row[C.TABLE : C.TABLE + M.NUM_CARDS]
            deck = np.repeat(np.arange(M.NUM_CARDS), left)
            for size in (8, 20, 35):
                hand = np.bincount(rng.choice(deck, min(size, deck.size), replace=False), minlength=M.NUM_CARDS)
                hand[list(M.ACE_IDS)] = 0
                points, played = M.best_playout(hand.astype(np.int8), state.table())
                got = best_playout(hand.astype(np.int64), row, C.MELDS, int(row[C.NUM_MELDS]))
                if got[0] == C.NOT_SOLVED:  # past the port's budget: the engine asks the reference
                    continue
                assert tuple(got) == (points, played), (M.cards_text(M.cards_of(hand)), state.table())
                checked += 1
            seat = int(state.current)
            hand = state.hands[seat].copy()
            hand[list(M.ACE_IDS)] = 0
            assert C._playout_objmode(row, seat) == M.best_playout(hand, state.table())
    assert checked >= 2 * 32 * 3 * 0.9


def test_totals_and_the_hand_counter_keep_64_bits_in_the_16_bit_row():
    row = np.zeros(C.WIDTH, dtype=C.IcebergRummyCompiled.state_dtype)
    for value in (0, 1, -1, 32767, 32768, -32769, 123_456_789, -987_654_321_012, 2**62, -(2**62)):
        C._set_wide(row, C.TOTALS + C.WIDE, value)
        assert C.get_total(row, 1) == value and not row[C.TOTALS : C.TOTALS + C.WIDE].any()


def test_pack_state_is_the_inverse_of_state_of():
    engine = vector.make(GAME, 24, 3, seed=4, max_hands=2, ace_scoring="doubling")
    _, mask, _ = engine.reset()
    rng = np.random.default_rng(4)
    for _ in range(120):
        _, mask, *_ = engine.step(vector.random_actions(mask, rng))
    kept = np.ones(C.WIDTH, dtype=bool)
    kept[C.SEL : C.SEL + C.MAX_MELD_CARDS] = False  # cards past the selection's length are stale
    kept[C.REDEALT] = False
    for i in range(24):
        row = engine.pack_state(engine.state_of(i))
        assert np.array_equal(row[kept], engine.state[i][kept])
        k = int(engine.state[i, C.SEL_LEN])
        assert np.array_equal(row[C.SEL : C.SEL + k], engine.state[i, C.SEL : C.SEL + k])
