"""What a player knows of its last pass when the hand ends with that very discard (I9, I21, I23).

Rule numbers refer to ``docs/rules/iceberg_rummy.md``. A card discarded as the hand ends goes to
nobody, so ``passed_known`` and ``passed_held`` are off in the final observation.
"""

from __future__ import annotations

import ice_envs
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules as R


def make(**kw):
    return ice_envs.make("iceberg_rummy", num_players=2, single_hand=True, raw=True, **kw)


def knowledge(env, agent: str) -> tuple[float, float]:
    """``(passed_known, passed_held)`` of ``agent``'s observation."""
    obs = env.observe(agent)["observation"]
    lay = env.obs_layout
    return float(obs[lay.offset("passed_known")]), float(obs[lay.offset("passed_held")])


def discard(env, card: str) -> None:
    env.step(R.DISCARD_BASE + M.parse_card(card))


def test_going_out_by_discarding_forgets_the_pass():
    """I9: player_0 passes 9H (still in player_1's hand), then melds and goes out by discarding 6C."""
    env = make()
    env.reset(
        seed=0,
        options={"dealer": 1, "hands": ["9H KD", "3D 5C 7H 9C 4S 8H 2H"], "stock": ["QD", "6C", "JD"]},
    )
    discard(env, "9H")
    assert knowledge(env, "player_0") == (1.0, 1.0)
    discard(env, "6C")  # player_1 passes back another card: 9H is still in its hand (I23, 2 players)
    assert knowledge(env, "player_0") == (0.0, 1.0)
    for card in ("JD", "QD", "KD"):
        env.step(M.parse_card(card))
    env.step(R.COMMIT_NEW)
    assert env.game_state.hands[0].sum() == 1
    discard(env, "6C")  # the last card: the hand ends and 6C goes to nobody
    s = env.game_state
    assert R.is_over(s) and s.last_hand["reason"] == "went out" and int(s.last_passed[0]) == M.parse_card("6C")
    assert knowledge(env, "player_0") == (0.0, 0.0)


def test_the_ace_holders_last_discard_is_nobodys():
    """I21 (``ace_holder_finishes``): player_0 places the last ace, finishes its turn and discards."""
    env = make(ace_holder_finishes=True)
    env.reset(
        seed=0,
        options={"dealer": 1, "hands": ["9H KD 4C", "AC AD AH 9C 4S 8H 2H"], "stock": ["QD", "6C", "AS"]},
    )
    discard(env, "9H")
    discard(env, "6C")
    s = env.game_state
    assert s.end_after_turn and s.current == 0
    assert knowledge(env, "player_0") == (0.0, 1.0)  # 9H is still held by player_1
    discard(env, "KD")  # ends the hand: KD is picked up by nobody
    assert R.is_over(env.game_state)
    assert knowledge(env, "player_0") == (0.0, 0.0)
