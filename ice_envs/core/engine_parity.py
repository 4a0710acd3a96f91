"""Transition-by-transition parity of a batched engine (numpy or compiled) with the game's scalar env.

Every batched game is shadowed by a scalar env (``ice_envs.make(game, raw=True, ...)``) started
from the same deal, whose generator is replaced by a :class:`~ice_envs.core.testing.ScriptedRng`
fed with exactly the draws the batched engine made for that game (its ``draw_log``). Both are
driven by the same random legal actions (now and then an illegal one under ``illegal_action=
"penalize"``), and at every step the engine state (``state_of``), the deciding seat's observation
and mask, the deciding seat, the rewards of the step and the end flags are compared; at each game
end, every seat's final observation, the scores and the outcome. A scalar draw that the batched
engine did not make (or the reverse) fails on the script.

How a scalar shadow starts a batched game is the engine's :meth:`scalar_start` (game hook of
:class:`~ice_envs.core.vector.BatchedEngine`): reset options that deal the same cards, and whether
the draws the engine made while dealing are replayed into the scalar deal (the default starts from
the whole state, with nothing to replay). A plug-in game's fast engine is checked the same way::

    from ice_envs.core.engine_parity import run_parity
    transitions, games = run_parity("my_game", num_players=3, options={}, steps=2000, seed=0, kind="compiled")
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ice_envs.core import vector
from ice_envs.core.registry import make as make_env
from ice_envs.core.testing import ScriptedRng, draws_by_game
from ice_envs.core.vector import STAGE_RESET, STAGE_STEP, BatchedEngine

__all__ = ["assert_same_state", "run_parity"]


def assert_same_state(engine: BatchedEngine, batched: Any, scalar: Any, where: str) -> None:
    """Every field of the scalar state dataclass equals the batched one's (but the engine's ``unkept_state_fields``)."""
    for f in dataclasses.fields(scalar):
        if f.name in engine.unkept_state_fields:
            continue
        mine, theirs = getattr(batched, f.name), getattr(scalar, f.name)
        same = np.array_equal(mine, theirs) if isinstance(theirs, np.ndarray) else mine == theirs
        assert same, f"{where}: state field {f.name}: batched {mine!r} != scalar {theirs!r}"


def _start(env: Any, engine: BatchedEngine, i: int, draws: list[int]) -> None:
    options, replay = engine.scalar_start(i)
    if replay:
        env._rng.feed(draws)
    env.reset(options=options)
    assert not env._rng.remaining, "the scalar deal drew fewer dice than the batched one"


def run_parity(
    game: str,
    num_players: int,
    options: dict[str, Any],
    steps: int,
    seed: int,
    kind: str = "numpy",
    num_envs: int = 16,
) -> tuple[int, int]:
    """Drive ``num_envs`` batched games of engine ``kind`` and their scalar shadows ``steps`` steps,
    comparing everything after every step (see the module docstring); returns (transitions, games ended)."""
    engine = vector.make(game, num_envs, num_players, seed=seed, engine=kind, **options)
    engine.draw_log = []
    obs, mask, seat = engine.reset()
    reset_draws = draws_by_game(engine.draw_log, STAGE_RESET)
    envs = []
    for i in range(num_envs):
        env = make_env(game, raw=True, num_players=num_players, **options)
        env._rng = ScriptedRng([])
        _start(env, engine, i, reset_draws.get(i, []))
        envs.append(env)
    rng = np.random.default_rng(seed + 1)
    penalize = options.get("illegal_action") == "penalize"
    transitions = games = 0
    for t in range(steps):
        for i, env in enumerate(envs):
            where = f"{game} {kind} {options} game {i} step {t}"
            assert_same_state(engine, engine.state_of(i), env.game_state, where)
            assert int(seat[i]) == env.current_seat, where
            assert np.array_equal(mask[i], env.action_mask()), where
            assert np.array_equal(obs[i], env.observe(env.agent_selection)["observation"]), where
        actions = vector.random_actions(mask, rng)
        if penalize:  # now and then any action at all, often an illegal one
            wild = rng.random(num_envs) < 0.03
            actions[wild] = rng.integers(0, engine.n_actions, size=int(wild.sum()))
        engine.draw_log = []
        obs, mask, seat, rewards, terminated, truncated, info = engine.step(actions)
        step_draws = draws_by_game(engine.draw_log, STAGE_STEP)
        reset_draws = draws_by_game(engine.draw_log, STAGE_RESET)
        final_row = {int(i): k for k, i in enumerate(info["final_index"])}
        assert sorted(final_row) == np.flatnonzero(terminated | truncated).tolist()
        for i, env in enumerate(envs):
            where = f"{game} {kind} {options} game {i} step {t} action {int(actions[i])}"
            env._rng.feed(step_draws.get(i, []))
            env.step(int(actions[i]))
            transitions += 1
            assert not env._rng.remaining, f"{where}: the scalar engine drew fewer dice than the batched one"
            expected = np.array([env.rewards[a] for a in env.possible_agents])
            assert np.array_equal(rewards[i], expected), f"{where}: rewards {rewards[i]} != {expected}"
            agent = env.possible_agents[0]
            assert bool(terminated[i]) == env.terminations[agent], where
            assert bool(truncated[i]) == env.truncations[agent], where
            offended = any(env.infos[a].get("illegal_action", False) for a in env.possible_agents)
            assert bool(info["illegal"][i]) == offended, where
            if i not in final_row:
                continue
            games += 1
            k = final_row[i]
            for s, a in enumerate(env.possible_agents):
                assert np.array_equal(info["final_obs"][k, s], env.observe(a)["observation"]), where
            assert np.array_equal(info["final_scores"][k], env.scores()), where
            won = env.terminations[agent] and not info["illegal"][i]
            expected_outcome = env.outcome() if won else np.zeros(num_players)
            assert np.array_equal(info["final_outcome"][k], expected_outcome), where
            assert np.array_equal(info["final_rewards"][k], rewards[i]), where
            assert int(info["final_length"][k]) == env.num_steps, where
            _start(env, engine, i, reset_draws.get(i, []))
    return transitions, games
