"""Potential-based reward shaping: the Icebergs voyage potential and its use by the learner's env."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.icebergs import rules
from ice_envs.icebergs.shaping import voyage as icebergs_voyage
from ice_envs.train.config import ConfigError, config_from_dict
from ice_envs.train.shaping import Shaper
from ice_envs.wrappers.single_agent import SingleAgentEnv
from tests.train.conftest import tiny_config_dict


def _icebergs(**options):
    env = ice_envs.make("icebergs", raw=True, num_players=2, **options)
    env.reset(seed=3)
    return env


def test_voyage_potential_follows_the_ship_out_and_home():
    env = _icebergs()
    state, cols = env.game_state, env.game_state.config.hexmap.cols
    assert icebergs_voyage(env, 0) == 0.0  # in Newfoundland
    state.status[0], state.pos[0], state.loaded[0] = rules.AT_SEA, 2 * cols + cols - 1, False
    east_edge_out = icebergs_voyage(env, 0)
    state.pos[0] = 2 * cols  # west edge, outbound
    west_edge_out = icebergs_voyage(env, 0)
    state.status[0] = rules.ALASKA_LOADING
    assert icebergs_voyage(env, 0) == 1.0
    state.status[0], state.loaded[0] = rules.AT_SEA, True  # back at the west edge, loaded
    west_edge_back = icebergs_voyage(env, 0)
    state.pos[0] = 2 * cols + cols - 1
    east_edge_back = icebergs_voyage(env, 0)
    state.status[0] = rules.HOME
    assert 0 < east_edge_out < west_edge_out < 1 < west_edge_back < east_edge_back < 2 == icebergs_voyage(env, 0)
    state.status[0] = rules.SUNK
    assert icebergs_voyage(env, 0) == 0.0


def test_fleet_potential_is_the_mean_over_the_players_ships():
    env = _icebergs(fleet=True)
    state = env.game_state
    per = state.config.ships_per_player
    state.status[per] = rules.HOME  # the first ship of seat 1
    assert icebergs_voyage(env, 1) == pytest.approx(2.0 / per) and icebergs_voyage(env, 0) == 0.0


def test_shaping_telescopes_and_stays_out_of_the_game_return():
    shaped = SingleAgentEnv(
        "icebergs",
        2,
        {"max_turns": 30, "max_turns_end": "decide"},
        learner_seat=0,
        shaping=Shaper("icebergs", "icebergs_voyage", 2.0, 1.0),
    )
    plain = SingleAgentEnv("icebergs", 2, {"max_turns": 30, "max_turns_end": "decide"}, learner_seat=0)
    rng = np.random.default_rng(0)
    for env in (shaped, plain):
        env.reset(seed=5)
    bonus_sum, done = 0.0, False
    start = icebergs_voyage(shaped.raw, 0)
    while not done:
        legal = np.flatnonzero(shaped.action_masks())
        action = int(rng.choice(legal))
        _, r_shaped, term, trunc, info = shaped.step(action)
        _, r_plain, *_ = plain.step(action)
        bonus_sum += r_shaped - r_plain
        done = term or trunc
    # gamma = 1: the bonuses add up to -scale * phi(first decision) (the potential after the end is 0)
    assert bonus_sum == pytest.approx(-2.0 * start)
    assert info["episode"]["r"] == plain._return  # the game's own return, without the bonus


def test_config_takes_a_potential_of_its_own_game():
    data = tiny_config_dict(
        game__name="icebergs", game__players=2, game__options={}, reward_shaping__potential="icebergs_voyage"
    )
    cfg = config_from_dict(data)
    assert cfg.reward_shaping.potential in ice_envs.get_spec("icebergs").potentials and cfg.reward_shaping.scale == 1.0
    with pytest.raises(ConfigError, match=r"reward_shaping.scale: must be > 0"):
        config_from_dict({**data, "reward_shaping": {"potential": "icebergs_voyage", "scale": 0}})


def test_score_mode_success_is_the_games_outcome_not_a_tie_of_scores():
    env = SingleAgentEnv("icebergs", 2, {"max_turns": 2, "max_turns_end": "decide", "reward_mode": "score"})
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc
    assert info["scores"] == [0.0, 0.0]  # nobody brought Cargo home in two rounds
    assert info["is_success"] is False


def test_a_shaped_env_state_goes_through_a_checkpoint_and_plays_on_identically():
    """The checkpoint state is plain JSON; the replay of the game restores the shaper's last potential too."""
    import json

    from ice_envs.train.training_env import TrainingEnv

    options = {"max_turns": 30, "max_turns_end": "decide"}

    def make() -> TrainingEnv:
        return TrainingEnv(
            "icebergs", 2, options, learner_seat=0, shaping=Shaper("icebergs", "icebergs_voyage", 2.0, 1.0)
        )

    shaped = make()
    shaped.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(6):
        shaped.step(int(rng.choice(np.flatnonzero(shaped.action_masks()))))
    data = json.loads(json.dumps(shaped.training_state(), allow_nan=False))
    restored = make()
    restored.reset(seed=9)
    restored.load_training_state(data)
    assert restored.shaping._last == shaped.shaping._last and restored.shaping.potential is icebergs_voyage
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(shaped.action_masks())))
        a = shaped.step(action)
        b = restored.step(action)
        assert a[1] == b[1] and a[2:4] == b[2:4]
        done = a[2] or a[3]
