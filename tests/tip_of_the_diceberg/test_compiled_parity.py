"""The compiled Tip of the Diceberg engine makes exactly the scalar engine's transitions.

Every (variant, player count) of the spec, plus score rewards with a short episode cap, the
``penalize`` policy with illegal actions, fixed main cards and a start player, a one-round game and
an inline custom catalog, through :func:`ice_envs.core.engine_parity.run_parity`; then API checks
as ``tests/core/test_vector.py``'s.

The scalar engine shuffles with ``rng.permutation`` (a deal at every round's start, mid-game); the
harness's scripted generator is given a ``permutation`` that makes the compiled engine's shuffle
(Fisher-Yates from the last position, one scripted ``integers(0, i + 1)`` per position), so that
every deal, not only the dice, is replayed and compared.

``ICE_DICEBERG_PARITY_TRANSITIONS`` (default 100,000) sets the number of transitions in all.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import ice_envs
from ice_envs import vector
from ice_envs.core import engine_parity
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.testing import ScriptedRng
from ice_envs.core.vector import STAGE_RESET
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.compiled import TipOfTheDicebergCompiled

GAME = "tip_of_the_diceberg"
TOTAL_TRANSITIONS = int(os.environ.get("ICE_DICEBERG_PARITY_TRANSITIONS", "100000"))
NUM_ENVS = 16

#: A catalog passed as data: a power deck missing (no clear cards), a starter with a power, dice-only cards.
INLINE_CATALOG = {
    "name": "inline",
    "cards": [
        {"id": "S1", "deck": "starter", "pattern": {"count": 1}},
        {"id": "S2", "deck": "starter", "power": "take", "pattern": {"count": [2, 3], "sum": [9, 14]}},
        {"id": "S3", "deck": "starter", "min_players": 4, "pattern": {"count": 2, "dice": 2, "same": "suit"}},
        {"id": "R1", "deck": "main", "power": "reroll", "pattern": {"count": 3, "run": True, "distinct": "suit"}},
        {"id": "R2", "deck": "main", "power": "reroll", "pattern": {"count": [2, 4], "parity": "same"}},
        {"id": "D1", "deck": "main", "power": "discard", "pattern": {"count": 2, "same": "number", "cards": 1}},
        {"id": "T1", "deck": "main", "power": "take", "pattern": {"count": 1, "values": [1, 3], "dice": 0}},
    ],
}

#: No single-item card: once the pool is empty, a round often ends with nobody able to play (R2.8, ``deadlocked``).
STUCK_CATALOG = {
    "name": "stuck",
    "cards": [
        {"id": "S1", "deck": "starter", "pattern": {"count": [2, 3], "same": "number"}},
        {"id": "S2", "deck": "starter", "pattern": {"count": 2, "sum": 10, "dice": 1}},
        {"id": "T1", "deck": "main", "power": "take", "pattern": {"count": 3, "run": True, "same": "suit"}},
    ],
}


class PermutingScriptedRng(ScriptedRng):
    """:class:`ScriptedRng` whose ``permutation(n)`` is the compiled engine's shuffle of scripted integers."""

    def permutation(self, n: int) -> np.ndarray:
        order = np.arange(n)
        for i in range(n - 1, 0, -1):
            j = self.integers(0, i + 1)
            order[i], order[j] = order[j], order[i]
        return order


#: Games of a long case: few games, each played long enough to finish rounds and whole games.
LONG_ENVS = 4


def _cases() -> list[tuple[str, int, dict[str, Any], int]]:
    """(variant, players, options, games in the batch)."""
    cases = [(name, n, options, NUM_ENVS) for name, n, options in ice_envs.get_spec(GAME).cases()]
    cases += [
        ("score+cap", 4, {"reward_mode": "score", "max_decisions": 40}, NUM_ENVS),
        ("penalize", 5, {"illegal_action": "penalize", "illegal_reward": -2.0}, NUM_ENVS),
        ("long_game", 3, {}, LONG_ENVS),
        (
            "main_cards+start",
            4,
            {"main_cards": ["R4", "C6"], "start_player": 2, "compulsory_powers": True, "num_rounds": 2},
            LONG_ENVS,
        ),
        ("one_round", 5, {"num_rounds": 1, "reward_mode": "score"}, LONG_ENVS),
        ("inline_catalog", 3, {"catalog": INLINE_CATALOG}, LONG_ENVS),
        ("inline_catalog", 4, {"catalog": INLINE_CATALOG, "num_rounds": 2}, LONG_ENVS),
        ("stuck_catalog", 3, {"catalog": STUCK_CATALOG}, LONG_ENVS),
        ("stuck_catalog", 4, {"catalog": STUCK_CATALOG, "compulsory_powers": True}, LONG_ENVS),
    ]
    return cases


CASES = _cases()
#: Transitions per case (each case gets the same share).
PER_CASE = max(64, -(-TOTAL_TRANSITIONS // len(CASES)))


@pytest.fixture
def scripted_permutations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_parity, "ScriptedRng", PermutingScriptedRng)


@pytest.mark.parametrize(
    ("variant", "num_players", "options", "num_envs"), CASES, ids=[f"{v}-{n}p" for v, n, _, _ in CASES]
)
def test_compiled_transitions_equal_the_scalar_engine(scripted_permutations, variant, num_players, options, num_envs):
    steps = -(-PER_CASE // num_envs)
    transitions, games = engine_parity.run_parity(
        GAME, num_players, options, steps, seed=11 + num_players, kind="compiled", num_envs=num_envs
    )
    assert transitions == steps * num_envs
    if "ICE_DICEBERG_PARITY_TRANSITIONS" not in os.environ and (num_envs == LONG_ENVS or "max_decisions" in options):
        assert games > 0  # whole games (rounds, round starts, the winners) are compared too


def test_the_parity_run_covers_every_case_and_enough_transitions():
    spec = ice_envs.get_spec(GAME)
    assert {(v, n) for v, n, _ in spec.cases()} <= {(v, n) for v, n, _, _ in CASES}
    if "ICE_DICEBERG_PARITY_TRANSITIONS" not in os.environ:
        assert sum(-(-PER_CASE // e) * e for _, _, _, e in CASES) >= 100_000


# ---------------------------------------------------------------------------- API


def _play(engine: TipOfTheDicebergCompiled, steps: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    obs, mask, seat = engine.reset(seed=seed)
    trace = [obs, seat]
    for _ in range(steps):
        obs, mask, seat, rewards, terminated, truncated, _ = engine.step(vector.random_actions(mask, rng))
        trace += [obs, seat, rewards, terminated]
    return trace


def test_make_picks_the_compiled_engine_and_checks_options():
    engine = vector.make(GAME, 4, 3, engine="auto")
    assert isinstance(engine, TipOfTheDicebergCompiled)
    assert engine.n_actions == rules.NUM_ACTIONS and engine.obs_dim == engine.scalar.obs_layout.size
    with pytest.raises(OptionError):
        vector.make(GAME, 4, 3, engine="compiled", no_such_option=1)
    with pytest.raises(OptionError):
        vector.make(GAME, 4, 3, engine="compiled", catalog={"cards": []})
    assert vector.make(GAME, 2, 3, engine="compiled", num_rounds=7).state.shape[1] > engine.state.shape[1]


def test_same_seed_and_actions_give_the_same_batch_trajectory():
    a = _play(vector.make(GAME, 8, 4, engine="compiled"), 80, seed=5)
    b = _play(vector.make(GAME, 8, 4, engine="compiled"), 80, seed=5)
    c = _play(vector.make(GAME, 8, 4, engine="compiled"), 80, seed=6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_a_game_does_not_depend_on_the_batch_size():
    small = vector.make(GAME, 2, 3, seed=4, engine="compiled")
    large = vector.make(GAME, 9, 3, seed=4, engine="compiled")
    _, mask_s, _ = small.reset()
    _, mask_l, _ = large.reset()
    assert np.array_equal(small.state, large.state[:2])
    rng = np.random.default_rng(0)
    for _ in range(50):
        actions = vector.random_actions(mask_l, rng)
        _, mask_s, _, _, _, _, _ = small.step(actions[:2])
        _, mask_l, _, _, _, _, _ = large.step(actions)
        assert np.array_equal(small.state, large.state[:2])


def test_finished_games_restart_and_keep_their_final_info():
    engine = vector.make(GAME, 16, 3, seed=1, engine="compiled", num_rounds=1)
    rng = np.random.default_rng(1)
    _, mask, _ = engine.reset()
    finished = 0
    for _ in range(600):
        _, mask, seat, rewards, terminated, truncated, info = engine.step(vector.random_actions(mask, rng))
        fin = info["final_index"]
        assert np.array_equal(np.flatnonzero(info["_final"]), fin)
        if fin.size:
            finished += fin.size
            assert np.all(np.abs(info["final_outcome"][terminated[fin]]) == 1)
            assert (info["final_outcome"][terminated[fin]] > 0).any(axis=1).all()  # someone wins
            assert np.array_equal(info["final_rewards"], rewards[fin])
            assert (engine.num_steps[fin] == 0).all() and mask[fin].any(axis=1).all()
    assert finished >= 16


def test_where_steps_only_the_chosen_games():
    engine = vector.make(GAME, 6, 4, seed=2, engine="compiled")
    obs, mask, _ = engine.reset()
    before = engine.state.copy()
    where = np.array([True, False, True, False, False, True])
    obs2, _, _, rewards, _, _, _ = engine.step(vector.random_actions(mask, np.random.default_rng(0)), where=where)
    assert np.array_equal(engine.state[~where], before[~where])
    assert np.array_equal(obs2[~where], obs[~where])
    assert not np.array_equal(engine.state[where], before[where])
    assert not rewards[~where].any()


def test_an_illegal_action_raises_and_changes_nothing():
    engine = vector.make(GAME, 4, 3, seed=3, engine="compiled")
    _, mask, _ = engine.reset()
    actions = vector.random_actions(mask, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(mask[1] == 0)[0])
    before = engine.state.copy()
    with pytest.raises(IllegalActionError, match="game 1"):
        engine.step(actions)
    assert np.array_equal(engine.state, before)


def test_the_draw_log_holds_each_deal_and_each_roll():
    engine = vector.make(GAME, 3, 5, seed=7, engine="compiled", main_cards=["R1", "D1", "T1", "C1"], start_player=0)
    engine.draw_log = []
    engine.reset()
    # per game: the deal (59 draws for the 60 cards of a 5-player game) and the 18 dice, nothing else
    assert all(stage == STAGE_RESET for stage, _, _ in engine.draw_log)
    assert sum(len(values) for _, _, values in engine.draw_log) == 3 * (59 + 18)
    engine.draw_log = []
    engine.step(np.full(3, rules.DRAFT, dtype=np.int64))  # every game drafts die 0 (the lowest d4 of the pool)
    assert engine.draw_log == []


def test_rounds_end_when_nobody_can_play():
    engine = vector.make(GAME, 8, 3, seed=0, engine="compiled", catalog=STUCK_CATALOG, num_rounds=1)
    rng = np.random.default_rng(0)
    _, mask, _ = engine.reset()
    stuck = 0
    for _ in range(1500):
        _, mask, _, _, _, _, info = engine.step(vector.random_actions(mask, rng))
        # a 3-player round ends once two players are out (3 + 2 points) or when nobody can play (fewer points)
        stuck += int((info["final_scores"].sum(axis=1) < 5).sum())
    assert stuck > 0
