"""``illegal_action="penalize"`` covers every illegal action: an illegal id, one out of range, a non-integer, ``None``."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import IllegalActionError

GAMES = ["cardiceo", "cubemelt", "iceberg_rummy", "tip_of_the_diceberg", "icebergs"]


def _bad_actions(env) -> list:
    n = env.action_space(env.possible_agents[0]).n
    return [n, -1, 10**9, None, "3", 3.5, True, [0], np.float64(0.0)]


@pytest.mark.parametrize("raw", [False, True], ids=["env", "raw_env"])
@pytest.mark.parametrize("game", GAMES)
def test_penalize_ends_the_game_for_any_illegal_action(game: str, raw: bool) -> None:
    for action in _bad_actions(ice_envs.make(game, raw=True)):
        env = ice_envs.make(game, raw=raw, illegal_action="penalize", illegal_reward=-2.0)
        env.reset(seed=5)
        offender = env.agent_selection
        env.step(action)
        assert all(env.terminations.values()), (game, action)
        assert env.rewards[offender] == -2.0 and env.infos[offender]["illegal_action"] is True
        assert all(r == 0.0 for a, r in env.rewards.items() if a != offender), (game, action)


@pytest.mark.parametrize("game", GAMES)
def test_raise_still_refuses_them_and_changes_nothing(game: str) -> None:
    env = ice_envs.make(game, raw=True)
    env.reset(seed=5)
    before = env.state_dict()
    for action in _bad_actions(env):
        with pytest.raises(IllegalActionError):
            env.step(action)
    assert env.state_dict() == before
