"""What a training checkpoint saves of an env: its declared state as plain JSON, restored by replaying its game."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ice_envs.train.checkpoints import _local, _portable
from ice_envs.train.config import ConfigError
from ice_envs.train.training_env import TrainingEnv
from ice_envs.wrappers.opponents import LeagueOpponents, OpponentMix


def _play(env: TrainingEnv, rng: np.random.Generator, steps: int) -> list[tuple]:
    """``steps`` learner decisions drawn by ``rng`` (resetting at each game end): what the learner saw."""
    seen = []
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        seen.append((obs.tobytes(), reward, terminated, truncated, info.get("opponents")))
        if terminated or truncated:
            env.reset()
    return seen


def _through_json(env: TrainingEnv) -> dict:
    return json.loads(json.dumps(env.training_state(), allow_nan=False))


@pytest.mark.parametrize(
    ("game", "players", "options", "opponents"),
    [
        # the Icebergs heuristic remembers the hexes its ship sailed through this turn
        ("icebergs", 3, {}, {"heuristic": 1.0, "random": 1.0}),
        ("tip_of_the_diceberg", 4, {}, {"heuristic": 1.0}),
        ("iceberg_rummy", 2, {}, {"heuristic": 1.0}),
        # off-turn decisions: the learner's choices of Love or Adventure on others' turns
        ("cubemelt", 3, {"expansion": True}, {"heuristic": 1.0, "random": 1.0}),
        ("cardiceo", 4, {"hand_size": 5}, {"heuristic": 1.0, "random": 1.0}),
    ],
)
def test_a_restored_env_replays_its_game_and_plays_on_exactly_alike(game, players, options, opponents):
    env = TrainingEnv(game, players, options, OpponentMix(game, opponents))
    env.reset(seed=7)
    _play(env, np.random.default_rng(1), 25)
    state = _through_json(env)
    assert state["check"]["game"] == json.loads(json.dumps(env.raw.state_dict()))
    assert len(json.dumps(state)) < 60_000
    back = TrainingEnv(game, players, options, OpponentMix(game, opponents))
    back.reset(seed=123)  # another game first: the restore replaces it
    back.load_training_state(state)
    assert _play(back, np.random.default_rng(2), 60) == _play(env, np.random.default_rng(2), 60)


def test_league_opponents_come_back_as_they_were_drawn_and_as_they_are_now():
    members = [("rnd", "agent", "random"), ("heu", "agent", "heuristic")]

    def make() -> TrainingEnv:
        return TrainingEnv("cardiceo", 3, {"hand_size": 5}, LeagueOpponents("cardiceo", 3, members, [1, 0], True))

    env = make()
    env.reset(seed=3)
    _play(env, np.random.default_rng(0), 4)
    env.opponents.set_league(members, [0, 1])  # changed mid-game: this game's table stays, the next one changes
    state = _through_json(env)
    assert state["start"]["opponents"]["weights"] == [1, 0] and state["opponents"]["weights"] == [0, 1]
    back = make()
    back.reset(seed=9)
    back.load_training_state(state)
    assert back.opponents.weights == [0, 1]
    assert _play(back, np.random.default_rng(5), 40) == _play(env, np.random.default_rng(5), 40)


def test_a_replay_that_does_not_reach_the_saved_game_is_refused():
    env = TrainingEnv("cardiceo", 2, {"hand_size": 5}, OpponentMix("cardiceo", {"random": 1.0}))
    env.reset(seed=1)
    _play(env, np.random.default_rng(0), 3)
    state = _through_json(env)
    other = TrainingEnv("cardiceo", 2, {"hand_size": 5}, OpponentMix("cardiceo", {"random": 1.0}))
    other.reset(seed=1)
    moved = {**state, "start": {**state["start"], "skipped": state["start"]["skipped"] + 1}}
    with pytest.raises(ValueError, match="differs from the saved one in 'skipped'"):
        other.load_training_state(moved)
    game = json.loads(json.dumps(state))
    game["start"]["rng"]["state"]["state"] += 1  # another deal
    with pytest.raises(ValueError, match="replayed"):
        other.load_training_state(game)
    for bad in ({**state, "actions": [99]}, {**state, "extra": 1}, {**state, "start": {"rng": 1}}):
        with pytest.raises(ValueError):
            other.load_training_state(bad)


def test_policy_files_of_the_run_are_named_inside_it_and_never_outside(tmp_path: Path):
    run = tmp_path / "run"
    inside, outside = str(run / "pool" / "snap_000000000128.npz"), str(tmp_path / "elsewhere.npz")
    state = {
        "start": {"rng": {}, "skipped": 0, "opponents": {"pool": [inside, outside]}},
        "actions": [],
        "opponents": {"members": [["s", "snapshot", inside], ["h", "agent", "heuristic"]], "weights": [1, 1]},
        "check": {},
    }
    portable = _portable(state, run)
    assert portable["start"]["opponents"]["pool"] == ["run:pool/snap_000000000128.npz", outside]
    assert portable["opponents"]["members"][0][2] == "run:pool/snap_000000000128.npz"
    moved = tmp_path / "moved"
    back = _local(portable, moved, "x.state.json", "envs[0]")
    assert back["start"]["opponents"]["pool"][0] == str(moved / "pool" / "snap_000000000128.npz")
    assert back["opponents"]["members"][1] == ["h", "agent", "heuristic"]
    escape = {**portable, "opponents": {"pool": ["run:../../etc/passwd"]}}
    with pytest.raises(ConfigError, match="outside the run directory"):
        _local(escape, moved, "x.state.json", "envs[0]")
