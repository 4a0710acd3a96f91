"""Adapter tests of CubeMelt: off-turn decisions through the AEC loop, observation
layout, options, rewards and text."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.cubemelt import rules


def make(**kwargs):
    return ice_envs.make("cubemelt", **kwargs)


def test_registered_with_variants():
    spec = ice_envs.get_spec("cubemelt")
    assert spec.players == (2, 3, 4, 5)
    assert {"default", "expansion", "uniform_faces"} <= set(spec.variants)
    assert spec.variants["expansion"].options == {"expansion": True}
    assert ice_envs.cubemelt_v1.raw_env().metadata["name"] == "cubemelt_v1"


def test_knight_choice_selects_its_owner_off_turn():
    env = make(num_players=3, abilities=("cat", "knight", "unicorn"))
    env.reset(seed=0, options={"dice": ["sad", "sad", "sad", "heart", "star", "heart"]})
    assert env.agent_selection == "player_0"
    env.step(rules.STOP)
    assert env.agent_selection == "player_1"  # the Knight decides on player_0's turn
    mask = env.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [rules.CHOOSE_LOVE, rules.CHOOSE_ADVENTURE]
    assert not env.observe("player_0")["action_mask"].any()
    obs = env.observe("player_1")["observation"]
    layout = env.unwrapped.obs_layout
    assert layout.view(obs, "decision")[2] == 1.0  # Knight decision
    # own block (relative seat 0) is deciding, not active; the active player is relative seat 2
    seats = layout.view(obs, "seats")
    assert seats[0, 5] == 1.0 and seats[0, 4] == 0.0 and seats[2, 4] == 1.0
    # planned Melt loss of 3 for the observer (relative seat 0) is shown before it is applied
    assert layout.view(obs, "plan")[0, 2] == pytest.approx(3 / 6)
    env.step(rules.CHOOSE_ADVENTURE)
    assert env.agent_selection == "player_1"  # now its own turn
    state = env.unwrapped.game_state
    assert (state.love[1], state.adventure[1], state.melt[1]) == (0, 1, 18)


def test_ninja_decision_and_dragon_choice_through_the_loop():
    env = make(num_players=3, expansion=True, abilities=("ninja", "dragon", "cat"))
    env.reset(seed=1, options={"dice": ["heart"] * 5 + ["star"]})
    env.step(rules.STOP)
    assert env.agent_selection == "player_0"
    assert np.flatnonzero(env.action_mask()).tolist() == [rules.NINJA_APPLY, rules.NINJA_DECLINE]
    assert "Ninja" in env.unwrapped.describe_action(rules.NINJA_APPLY)
    env.step(rules.NINJA_APPLY)
    state = env.unwrapped.game_state
    assert state.love[0] == 5 and state.adventure[1] == 1 and state.adventure[2] == 1
    assert env.agent_selection == "player_1"
    env.unwrapped.reset(options={"dice": ["sad"] * 3 + ["heart", "star", "heart"], "start_player": 1})
    env.unwrapped.step(rules.STOP)
    assert env.unwrapped.agent_selection == "player_1"
    assert env.unwrapped.game_state.pending == rules.DRAGON
    assert "Dragon: gain 2 Love" == env.unwrapped.describe_action(rules.CHOOSE_LOVE)


def test_observation_layout_relative_seats():
    env = make(num_players=4, abilities=("cat", "dragon", "knight", "unicorn"))
    env.reset(seed=2, options={"love": [1, 2, 3, 4], "adventure": [5, 6, 7, 8], "melt": [20, 19, 18, 17]})
    obs = env.observe("player_2")["observation"]
    assert env.observation_space("player_2")["observation"].contains(obs)
    blocks = obs[:55].reshape(5, 11)
    # relative order from player_2: 2, 3, 0, 1, (empty)
    assert blocks[:4, 0].tolist() == pytest.approx([3 / 20, 4 / 20, 1 / 20, 2 / 20])
    assert blocks[:4, 2].tolist() == pytest.approx([18 / 20, 17 / 20, 1.0, 19 / 20])
    assert blocks[:, 3].tolist() == [1, 1, 1, 1, 0]
    assert np.argmax(blocks[0, 6:]) == rules.KNIGHT and np.argmax(blocks[1, 6:]) == rules.UNICORN
    assert blocks[2, 4] == 1.0  # player_0 is active
    dice = env.unwrapped.game_state.dice
    assert obs[55:79].reshape(6, 4).argmax(axis=1).tolist() == dice
    assert obs[83] == 1.0 and obs[84] == 0.0 and obs[86] == 1.0 and obs[106] == 1.0
    env.step(0b1)  # free re-roll
    obs = env.observe("player_0")["observation"]
    assert obs[83] == 0.0 and obs[84] == 1.0 and obs[85] == 1.0


def test_abilities_random_per_game_from_the_seed():
    env = make(num_players=4, expansion=True)
    env.reset(seed=10)
    first = list(env.unwrapped.game_state.abilities)
    env.reset(seed=10)
    assert env.unwrapped.game_state.abilities == first
    seen = set()
    for seed in range(15):
        env.reset(seed=seed)
        seen.add(tuple(env.unwrapped.game_state.abilities))
    assert len(seen) > 3
    base = make(num_players=4)
    base.reset(seed=0)
    assert base.unwrapped.game_state.abilities == [rules.NO_ABILITY] * 4


def test_bad_options():
    with pytest.raises(OptionError, match="num_players"):
        make(num_players=6)
    with pytest.raises(OptionError, match="faces"):
        make(faces=("heart", "banana"))
    with pytest.raises(OptionError, match="expansion"):
        make(num_players=2, expansion=False, abilities=("cat", "dragon"))
    with pytest.raises(OptionError, match="abilities"):
        make(num_players=3, abilities=("cat", "dragon"))
    with pytest.raises(OptionError, match="ninja_targets"):
        make(ninja_targets="up")
    with pytest.raises(OptionError, match="cat_trigger"):
        make(cat_trigger="dice")
    with pytest.raises(OptionError, match="paid_rerolls"):
        make(paid_rerolls=-1)
    env = make(num_players=2)
    with pytest.raises(OptionError, match="dice"):
        env.reset(options={"dice": ["heart"] * 5})
    with pytest.raises(OptionError, match="melt"):
        env.reset(options={"melt": [0, 20]})


def _play(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    return totals


def test_outcome_rewards_shared_wins():
    env = make(num_players=4, render_mode="ansi")
    for seed in range(20):
        totals = _play(env, seed)
        state = env.unwrapped.game_state
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == (1.0 if seat in state.winners else -1.0)
        assert "win" in env.unwrapped.render_view(None)


def test_score_rewards_are_track_changes():
    env = make(num_players=3, expansion=True, reward_mode="score")
    totals = _play(env, 4)
    state = env.unwrapped.game_state
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == state.love[seat] + state.adventure[seat] + state.melt[seat] - 20


def test_describe_and_render():
    env = make(num_players=5, expansion=True, render_mode="ansi")
    env.reset(seed=3, options={"dice": ["heart", "star", "sad", "drooping", "heart", "heart"]})
    raw = env.unwrapped
    assert raw.describe_action(0).startswith("stop re-rolling")
    assert raw.describe_action(0b000101) == "re-roll (free) die 0 (Heart), die 2 (Sad); keep Star Drooping Heart Heart"
    env.step(0b1000)
    assert raw.describe_action(0b1).startswith("pay 1 Melt and re-roll die 0")
    text = env.render()
    assert "player_0" in text and "Melt" in text and "Dice of player_0:" in text


def test_demo_game_lengths_are_bounded():
    spec = ice_envs.get_spec("cubemelt")
    for n in (2, 5):
        env = make(num_players=n, expansion=True)
        for seed in range(10):
            _play(env, seed)
            assert env.unwrapped.num_steps <= spec.max_random_decisions


def test_state_dict_round_trip_with_an_off_turn_choice_pending():
    import json

    env = make(num_players=3, abilities=("cat", "knight", "unicorn"))
    env.reset(seed=5, options={"dice": ["sad", "sad", "sad", "heart", "star", "heart"]})
    env.step(rules.STOP)
    saved = json.loads(json.dumps(env.unwrapped.state_dict()))
    twin = make(num_players=3, abilities=("cat", "knight", "unicorn"))
    twin.reset(seed=0)
    twin.unwrapped.load_state_dict(saved)
    assert twin.unwrapped.agent_selection == "player_1"
    for e in (env, twin):
        e.unwrapped.step(rules.CHOOSE_LOVE)
        e.unwrapped.step(0b111111)
    assert env.unwrapped.game_state == twin.unwrapped.game_state


def test_new_options_defaults_and_round_trip_mid_resolution():
    """v1: ``ninja_targets`` defaults to ``"all"``, ``cat_trigger`` to ``"planned"``; with ``"actual"`` the
    Love and Adventure at the resolution's start travel in the state dict (a Dragon choice is pending)."""
    import json

    assert make(num_players=2).unwrapped.config.ninja_targets == "all"
    assert make(num_players=2).unwrapped.config.cat_trigger == "planned"
    options = {"abilities": ("dragon", "cat", "unicorn"), "cat_trigger": "actual"}
    env = make(num_players=3, **options)
    env.reset(seed=5, options={"dice": ["sad", "sad", "sad", "heart", "heart", "star"], "love": [3, 0, 0]})
    env.step(rules.STOP)
    raw = env.unwrapped
    assert raw.game_state.pending == rules.DRAGON and raw.game_state.love_before == [3, 0, 0]
    saved = json.loads(json.dumps(raw.state_dict()))
    assert saved["state"]["fields"]["love_before"] == [3, 0, 0]
    twin = make(num_players=3, **options)
    twin.reset(seed=0)
    twin.unwrapped.load_state_dict(saved)
    for e in (env, twin):
        e.unwrapped.step(rules.CHOOSE_LOVE)  # the Dragon: 3 + 2 (dice) + 2 = 7 Love, a real gain of 4
    assert twin.unwrapped.game_state == raw.game_state
    assert raw.game_state.love[:2] == [7, 1]  # the Cat (p1) gained 1 on the real gain
