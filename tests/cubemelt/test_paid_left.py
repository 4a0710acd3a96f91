"""``paid_left`` counts the paid re-rolls the active player can still make this turn (R2.3, I6).

Rule numbers refer to ``docs/rules/cubemelt.md``. A paid re-roll is offered only while the turn's
allowance lasts and paying would not melt the payer (unless ``reroll_can_melt``), so the player's
Melt limits the count too: at Melt 1 none is ever offered.
"""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs import vector
from ice_envs.cubemelt import rules

HEART_ROLL = ["heart", "star", "sad", "drooping", "heart", "star"]


def paid_left(env) -> float:
    obs = env.observe(env.agent_selection)["observation"]
    return float(obs[env.obs_layout.offset("paid_left")])


@pytest.mark.parametrize(
    ("melt", "options", "expected"),
    [
        (1, {}, 0.0),  # paying would melt the payer: never offered
        (2, {}, 1.0),
        (1, {"reroll_can_melt": True}, 1.0),
        (2, {"paid_rerolls": 2}, 0.5),  # 2 -> 1 Melt, then no more
        (3, {"paid_rerolls": 2}, 1.0),
        (1, {"paid_rerolls": 0}, 0.0),
    ],
)
def test_paid_left_counts_what_the_melt_allows(melt, options, expected):
    env = ice_envs.make("cubemelt", raw=True, num_players=2, **options)
    env.reset(seed=0, options={"melt": [melt, 20], "dice": HEART_ROLL})
    s = env.game_state
    assert s.phase == rules.PHASE_REROLL and s.rerolls == 0 and s.active == 0
    assert paid_left(env) == expected
    # the count is what the game then offers: re-roll die 0 (free), then pay as long as it is offered
    paid = 0
    env.step(1)
    while env.game_state.phase == rules.PHASE_REROLL and env.game_state.active == 0:
        assert rules.next_reroll_paid(env.game_state) and rules.can_reroll(env.game_state)
        env.step(1)
        paid += 1
        if rules.is_over(env.game_state):
            break
    allowed = env.unwrapped.config.paid_rerolls
    assert paid == round(expected * allowed)


def test_the_batched_engine_reads_the_same():
    """The batched engine's ``paid_left`` against the rule, on random play that reaches Melt 1 and 2."""
    engine = vector.make("cubemelt", num_envs=64, num_players=3, seed=0, paid_rerolls=2, engine="numpy")
    obs, mask, _ = engine.reset()
    at = engine.obs_layout.offset("paid_left")
    rng = np.random.default_rng(0)
    low_melt = 0
    for _ in range(3000):
        rows = np.flatnonzero(engine.phase == rules.PHASE_REROLL)
        active = engine.active[rows].astype(np.intp)
        melt = engine.melt[rows, active].astype(np.int64)
        left = np.minimum(2 - np.maximum(0, engine.rerolls[rows].astype(np.int64) - 1), melt - 1)
        assert np.array_equal(obs[rows, at], np.maximum(left, 0) / 2)
        low_melt += int((melt <= 2).sum())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, _, _, _, _, _ = engine.step(actions)
    assert low_melt >= 50
