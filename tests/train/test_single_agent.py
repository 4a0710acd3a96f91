"""The learner's single-agent wrapper: reward accounting, seats, masks, vectorised use."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.agent import SeededAgent
from ice_envs.wrappers.opponents import OpponentMix
from ice_envs.wrappers.single_agent import SingleAgentEnv

TAKE, GIVE, WIN = 0, 1, 2


class GiftGame(IceAECEnv):
    """A hand-checkable game. Seats act in turn; ``take`` scores 1 for the actor, ``give``
    scores 1 for every other seat, ``win`` (legal from the third decision on) ends the game:
    the actor +1, the others -1 (``reward_mode="outcome"``). ``reward_mode="score"``
    rewards the score deltas. An optional ``first`` seat starts."""

    metadata = {**IceAECEnv.metadata, "name": "gift_v0"}
    min_players, max_players = 2, 4

    def __init__(self, num_players: int = 3, first: int = 0, **common: Any) -> None:
        self.first = first
        super().__init__(num_players, **common)

    def _num_actions(self) -> int:
        return 3

    def _observation_box(self) -> spaces.Box:
        return spaces.Box(0.0, 100.0, (3,), np.float32)

    def _new_state(self, rng: np.random.Generator, options: dict[str, Any]) -> dict:
        return {"turn": 0, "scores": [0] * self.num_players, "winner": None}

    def _current_seat(self) -> int:
        return (self.first + self.game_state["turn"]) % self.num_players

    def _game_over(self) -> bool:
        return self.game_state["winner"] is not None

    def _legal_actions(self) -> Sequence[int]:
        return (TAKE, GIVE, WIN) if self.game_state["turn"] >= 2 else (TAKE, GIVE)

    def _apply_action(self, action: int) -> None:
        seat = self._current_seat()
        if action == TAKE:
            self.game_state["scores"][seat] += 1
        elif action == GIVE:
            for s in range(self.num_players):
                if s != seat:
                    self.game_state["scores"][s] += 1
        else:
            self.game_state["winner"] = seat
        self.game_state["turn"] += 1

    def _encode(self, seat: int) -> np.ndarray:
        return np.array([self.game_state["turn"], self.game_state["scores"][seat], seat], dtype=np.float32)

    def _outcome(self) -> np.ndarray:
        out = -np.ones(self.num_players)
        out[self.game_state["winner"]] = 1.0
        return out

    def _scores(self) -> np.ndarray:
        return np.array(self.game_state["scores"], dtype=np.float64)

    def _describe(self, action: int) -> str:
        return ("take", "give", "win")[action]

    def _render_text(self, viewer: int | None) -> str:
        return str(self.game_state)

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> dict:
        return self.game_state


class Script(SeededAgent):
    """Plays a fixed list of actions, one per call."""

    name = "script"

    def __init__(self, actions: list[int]) -> None:
        super().__init__(0)
        self.actions = list(actions)
        self.calls = 0

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        action = self.actions[self.calls]
        self.calls += 1
        assert observation["action_mask"][action], "scripted action must be legal"
        return action


class Table:
    """An opponent sampler that seats the same scripted agents in every game."""

    def __init__(self, scripts: dict[int, list[int]]) -> None:
        self.agents = {seat: Script(actions) for seat, actions in scripts.items()}

    def draw(self, rng: np.random.Generator, seats: Sequence[int]) -> tuple[str, dict[int, Script]]:
        return "script", {s: self.agents[s] for s in seats}


def gift_env(scripts: dict[int, list[int]], seat: int, players: int = 3, **options: Any) -> SingleAgentEnv:
    return SingleAgentEnv(lambda: GiftGame(players, **options), opponents=Table(scripts), learner_seat=seat)


def test_loss_on_an_opponents_turn_reaches_the_learner():
    env = gift_env({1: [GIVE, GIVE], 2: [TAKE, WIN]}, seat=0)
    obs, info = env.reset(seed=0)
    assert info["seat"] == 0 and obs[0] == 0  # the learner moves first
    obs, reward, terminated, truncated, info = env.step(TAKE)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert set(info) == {"action_mask"}
    obs, reward, terminated, truncated, info = env.step(GIVE)  # then seat 1 gives, seat 2 wins
    assert reward == -1.0 and terminated and not truncated
    assert info["is_success"] is False and info["episode"] == {"r": -1.0, "l": 2, "t": 0.0}
    assert info["decisions"] == 6 and info["seat"] == 0 and info["opponents"] == "script"


def test_score_rewards_are_summed_since_the_last_action():
    env = gift_env({1: [GIVE, GIVE], 2: [TAKE, WIN]}, seat=0, reward_mode="score")
    env.reset(seed=0)
    # learner takes (+1), seat 1 gives (+1 to the learner), seat 2 takes (0)
    assert env.step(TAKE)[1] == 2.0
    # learner gives (0 for itself), seat 1 gives (+1), seat 2 ends the game (no score change)
    obs, reward, terminated, _, info = env.step(GIVE)
    assert reward == 1.0 and terminated
    assert info["episode"]["r"] == 3.0 == info["scores"][0]


def test_rewards_before_the_learners_first_action_are_carried_into_it():
    # seat 2 learns: seats 0 and 1 give first (+2 for the learner before it ever acts)
    env = gift_env({0: [GIVE, WIN], 1: [GIVE]}, seat=2, reward_mode="score")
    obs, info = env.reset(seed=0)
    assert obs[0] == 2 and obs[1] == 2  # the learner sees the two gifts
    obs, reward, terminated, _, info = env.step(TAKE)  # +1, then seat 0 wins
    assert reward == 3.0 and terminated and info["episode"]["r"] == 3.0


def test_the_learner_winning_on_its_own_action():
    env = gift_env({1: [TAKE], 2: [TAKE]}, seat=0)
    env.reset(seed=0)
    env.step(TAKE)
    assert env.action_masks().tolist() == [True, True, True]  # win is legal from the third decision
    obs, reward, terminated, _, info = env.step(WIN)
    assert reward == 1.0 and terminated and info["is_success"] is True


def test_action_masks_follow_the_learners_legal_actions():
    env = gift_env({0: [TAKE] * 5, 2: [TAKE] * 5}, seat=1)
    env.reset(seed=0)
    assert env.raw.agent_selection == "player_1"
    assert env.action_masks().tolist() == [True, True, False]  # second decision: no win yet
    env.step(TAKE)
    assert env.action_masks().tolist() == [True, True, True]
    first = SingleAgentEnv(
        lambda: GiftGame(3), opponents=Table({1: [TAKE], 2: [TAKE]}), learner_seat=0, illegal_action="raise"
    )
    first.reset(seed=0)
    with pytest.raises(ValueError, match="illegal"):
        first.step(WIN)  # the first decision may not win
    penalized = gift_env({1: [TAKE], 2: [TAKE]}, seat=0)  # the default: an illegal action ends the episode
    penalized.reset(seed=0)
    _, reward, terminated, _, info = penalized.step(WIN)
    assert reward == -1.0 and terminated and info["illegal_action"] is True
    assert info["action_mask"].all()  # the episode is over


def test_info_carries_the_action_mask_gymnasium_style():
    env = gift_env({0: [TAKE] * 5, 2: [TAKE] * 5}, seat=1)
    _, info = env.reset(seed=0)
    assert info["action_mask"].dtype == bool and info["action_mask"].tolist() == [True, True, False]
    _, _, _, _, info = env.step(TAKE)
    assert info["action_mask"].tolist() == [True, True, True] == env.action_masks().tolist()


def test_a_client_that_reads_only_info_action_mask_never_plays_an_illegal_action():
    """A Gymnasium client (as AgileRL's) that samples from ``info["action_mask"]`` alone."""
    for game in ("cardiceo", "icebergs"):
        env = SingleAgentEnv(game, illegal_action="raise")  # an illegal action would raise
        rng = np.random.default_rng(3)
        obs, info = env.reset(seed=11)
        ends = 0
        while ends < 5:
            np.testing.assert_array_equal(info["action_mask"], env.action_masks())
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                assert "illegal_action" not in info and info["action_mask"].all()
                ends += 1
                obs, info = env.reset()


def test_truncation_is_not_termination():
    env = gift_env({1: [TAKE] * 9, 2: [TAKE] * 9}, seat=0, max_cycles=2)
    env.reset(seed=0)
    assert env.step(TAKE)[2:4] == (False, False)
    obs, reward, terminated, truncated, info = env.step(TAKE)
    assert truncated and not terminated and reward == 0.0 and info["is_success"] is False


def test_games_that_end_before_the_learner_acts_are_redealt():
    calls = {"n": 0}

    class EndsEarly(GiftGame):
        def _new_state(self, rng, options):
            calls["n"] += 1
            state = super()._new_state(rng, options)
            state["turn"] = 2 if calls["n"] == 1 else 0  # the first deal lets seat 0 win at once
            return state

    env = SingleAgentEnv(lambda: EndsEarly(2, first=0), opponents=Table({0: [WIN, TAKE, TAKE]}), learner_seat=1)
    obs, info = env.reset(seed=0)
    assert info["skipped_games"] == 1 and calls["n"] == 2


def test_learner_seat_is_drawn_uniformly_and_is_the_one_to_act():
    env = SingleAgentEnv("cardiceo", 4, opponents=OpponentMix("cardiceo", {"random": 1.0}))
    counts = np.zeros(4, dtype=int)
    for i in range(400):
        obs, info = env.reset(seed=i if i == 0 else None)
        assert info["seat"] == env.seat
        assert env.raw.agent_selection == f"player_{env.seat}"
        np.testing.assert_array_equal(obs, env.raw.observe(f"player_{env.seat}")["observation"])
        counts[env.seat] += 1
    assert counts.min() >= 70, counts  # 100 expected per seat; P(< 70) is about 1e-3 per seat


def test_cardiceo_returns_are_the_learners_outcome():
    """Over whole random games the learner's return is +1 exactly when its hand is empty."""
    env = SingleAgentEnv("cardiceo", 3, {"hand_size": 5})
    rng = np.random.default_rng(1)
    env.reset(seed=5)
    lost_on_other_turn = 0
    for _ in range(60):
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, term, trunc, info = env.step(action)
            assert env.observation_space.contains(obs)
            total += reward
            done = term or trunc
            if done and reward == -1.0:
                lost_on_other_turn += 1
        won = (
            env.raw.game_state.hands[env.seat].sum() == 0
            if hasattr(env.raw.game_state, "hands")
            else info["is_success"]
        )
        assert total == (1.0 if won else -1.0) == info["episode"]["r"]
        assert info["is_success"] == won
        env.reset()
    assert lost_on_other_turn > 10


def test_same_seed_same_games_and_state_round_trip():
    def play(env: SingleAgentEnv, n: int, seed: int | None) -> list:
        rng = np.random.default_rng(0)
        out = []
        if seed is not None:
            env.reset(seed=seed)
        for _ in range(n):
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, r, term, trunc, _ = env.step(action)
            out.append((obs.tolist(), r, term, env.seat))
            if term or trunc:
                env.reset()
        return out

    a = SingleAgentEnv("cardiceo", 3)
    b = SingleAgentEnv("cardiceo", 3)
    assert play(a, 80, 7) == play(b, 80, 7)
    c = SingleAgentEnv("cardiceo", 3)
    c.set_state(a.get_state())
    assert play(a, 80, None) == play(c, 80, None)


def test_subproc_vec_env_exposes_action_masks():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from ice_envs.train.config import config_from_dict
    from ice_envs.train.grouped_vec_env import GroupedSubprocVecEnv
    from ice_envs.train.run import make_vec_env
    from tests.train.conftest import tiny_config_dict

    cfg = config_from_dict(tiny_config_dict(vec_env="subproc", game__players=3, opponents__mix={"random": 1}))
    venv = make_vec_env(cfg, [])
    assert isinstance(venv, GroupedSubprocVecEnv) and len(venv.processes) == 2  # one worker process per env
    try:
        venv.seed(0)
        venv.reset()
        assert is_masking_supported(venv)
        rng = np.random.default_rng(0)
        for _ in range(30):
            masks = get_action_masks(venv)
            assert masks.shape == (2, 10) and masks.dtype == bool and masks.any(axis=1).all()
            venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        states = venv.env_method("training_state")
        assert len(states) == 2 and all(json.loads(json.dumps(s)) == s for s in states)
    finally:
        venv.close()
