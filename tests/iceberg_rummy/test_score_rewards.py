"""``reward_mode="score"`` pays every point of the game: the rewards sum to the final scores (R4.1, R7.1, I14).

Rule numbers refer to ``docs/rules/iceberg_rummy.md``. Under the ace-scoring variants an ace placed
in the automatic start of the first turn (R3.3, I8), inside ``reset``, scores at once; it is paid
with the first decision's reward.
"""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.core.masks import sample_legal
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules as R


def play_out(env, rng: np.random.Generator) -> dict[str, float]:
    """Uniformly random legal play to the end; each agent's rewards summed over the whole game."""
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last(observe=False)
        env.step(None if term or trunc else sample_legal(rng, env.action_mask()))
        for a, r in env.rewards.items():
            total[a] += r
    return total


@pytest.mark.parametrize("ace_scoring", R.ACE_SCORINGS)
@pytest.mark.parametrize("holder_finishes", [False, True])
def test_score_rewards_sum_to_the_final_scores(ace_scoring, holder_finishes):
    """Every player count, whole games of three hands (each new deal's first turn places aces too)."""
    opening_bonus = 0
    for n in range(2, 6):
        env = ice_envs.make(
            "iceberg_rummy",
            num_players=n,
            raw=True,
            reward_mode="score",
            ace_scoring=ace_scoring,
            ace_holder_finishes=holder_finishes,
            max_hands=3,
        )
        for seed in range(6):
            env.reset(seed=1000 * n + seed)
            s = env.game_state
            opening_bonus += int(s.ace_bonus.sum()) > 0
            total = play_out(env, np.random.default_rng(seed))
            scores = env.scores()
            for p, agent in enumerate(env.possible_agents):
                assert total[agent] == pytest.approx(scores[p], abs=1e-9), (n, seed, agent)
    if ace_scoring != "multiplier":
        assert opening_bonus >= 5  # the case that matters: aces placed inside reset scored at once


def test_the_opening_ace_bonus_is_paid_with_the_first_decision():
    """R7.1.1: player_0 is dealt two aces and places them before its first decision (60 points)."""
    env = ice_envs.make("iceberg_rummy", num_players=2, raw=True, reward_mode="score", ace_scoring="fixed")
    env.reset(
        seed=3,
        options={"dealer": 1, "hands": ["AC AD 5S 9H 2C 4D QC", "3D 5C 7H 9C JD KH 2H"], "stock": ["7S"]},
    )
    assert env.game_state.ace_bonus.tolist() == [60, 0]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}  # reset pays nothing
    env.step(R.DISCARD_BASE + M.parse_card("QC"))
    assert env.rewards["player_0"] == pytest.approx(0.6)
