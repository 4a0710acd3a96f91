"""The base env's ``skip_forced`` option: agents are asked only real decisions, and nothing else changes."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
import ice_envs.vector
from ice_envs.core.errors import OptionError

#: (game, players, options) with many forced steps, and games where they are rare.
GAMES = [
    ("cardiceo", 3, {"forced_discard": True}),
    ("cubemelt", 3, {}),
    ("iceberg_rummy", 2, {"single_hand": True}),
    ("tip_of_the_diceberg", 3, {"num_rounds": 1}),
    ("icebergs", 2, {"max_turns": 8}),
]
SEEDS = range(6)


def _play(game: str, n: int, options: dict, seed: int, skip: bool) -> dict:
    """One game, in score mode, by a policy that draws from its generator only when it has a choice.

    Such a policy plays the same game whether forced steps are skipped or not, so the two runs
    must agree on everything but the number of times an agent was asked.
    """
    env = ice_envs.make(game, num_players=n, reward_mode="score", skip_forced=skip, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    received = dict.fromkeys(env.possible_agents, 0.0)
    asked = single = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        received[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        asked += 1
        single += legal.size == 1
        env.step(int(legal[0]) if legal.size == 1 else int(rng.choice(legal)))
    raw = env.unwrapped
    return {
        "received": received,
        "scores": raw.scores().tolist(),
        "state": raw.state_dict()["state"],
        "asked": asked,
        "single": single,
        "steps": raw._num_steps,
        "forced": raw.num_forced_steps,
        "truncated": any(raw.truncations.values()),
    }


@pytest.mark.parametrize(("game", "n", "options"), GAMES, ids=[g for g, _, _ in GAMES])
def test_skipping_forced_steps_plays_the_same_game(game: str, n: int, options: dict) -> None:
    for seed in SEEDS:
        every = _play(game, n, options, seed, skip=False)
        skipped = _play(game, n, options, seed, skip=True)
        assert skipped["single"] == 0, "an agent was asked a step with one legal action"
        assert every["forced"] == 0
        assert skipped["state"] == every["state"] and skipped["scores"] == every["scores"]
        assert skipped["steps"] == every["steps"] == skipped["asked"] + skipped["forced"]
        assert skipped["forced"] == every["single"]
        # every reward still reaches its agent, forced steps' included (score mode pays each step)
        assert skipped["received"] == pytest.approx(every["received"])
        assert skipped["truncated"] == every["truncated"]


def test_forced_steps_are_skipped_where_the_issue_counted_them() -> None:
    """Cardiceo with forced_discard has many single-action steps; skipping removes them all."""
    every = [_play("cardiceo", 3, {"forced_discard": True}, s, skip=False) for s in SEEDS]
    skipped = [_play("cardiceo", 3, {"forced_discard": True}, s, skip=True) for s in SEEDS]
    assert sum(r["single"] for r in every) > 0.2 * sum(r["asked"] for r in every)
    assert sum(r["forced"] for r in skipped) == sum(r["single"] for r in every)


def test_reset_applies_forced_steps_before_the_first_turn() -> None:
    """A game whose first step is forced starts at the first real decision."""
    env = ice_envs.make("cardiceo", num_players=2, forced_discard=True, skip_forced=True, raw=True)
    for seed in range(200):
        env.reset(seed=seed)
        assert env.action_mask().sum() != 1
        if env.num_forced_steps:
            assert env._num_steps == env.num_forced_steps
            return
    pytest.fail("no seed of 200 starts with a forced step")


def test_forced_steps_count_toward_the_length_cap() -> None:
    env = ice_envs.make("cardiceo", num_players=3, forced_discard=True, skip_forced=True, max_decisions=5, raw=True)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    assert env._num_steps == 5 and all(env.truncations.values())


@pytest.mark.parametrize("bad", [1, "yes", None, 0.0])
def test_skip_forced_must_be_a_bool(bad: object) -> None:
    with pytest.raises(OptionError, match="skip_forced"):
        ice_envs.make("cardiceo", num_players=2, skip_forced=bad)


def test_the_batched_engine_refuses_skip_forced() -> None:
    with pytest.raises(OptionError, match="skip_forced"):
        ice_envs.vector.make("cardiceo", 4, 2, skip_forced=True)
