"""The batched engines make exactly the scalar engines' transitions.

Every batched game is shadowed by a scalar env (``ice_envs.make(game, raw=True, ...)``) started
from the same deal, whose generator is replaced by a :class:`~ice_envs.core.testing.ScriptedRng`
fed with exactly the dice the batched engine drew for that game (its ``draw_log``). Both are
driven by the same random legal actions, and at every step the engine state, the deciding seat's
observation and mask, the deciding seat, the rewards of the step and the end flags are compared;
at each game end, every seat's final observation, the scores and the outcome; a scalar roll that
the batched engine did not make (or the reverse) fails on the script. Every player count and
every variant of the two spec's ``variants`` is covered, plus score rewards, a short episode cap
and the ``penalize`` policy with illegal actions, for the numpy engines and for the compiled ones
(:mod:`ice_envs.core.compiled`).

``ICE_VECTOR_PARITY_TRANSITIONS`` (default 110,000) sets the number of transitions of the numpy
engines in all, and again of each compiled engine.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np
import pytest

import ice_envs
from ice_envs import vector
from ice_envs.core.testing import ScriptedRng, draws_by_game
from ice_envs.core.vector import STAGE_RESET, STAGE_STEP

TOTAL_TRANSITIONS = int(os.environ.get("ICE_VECTOR_PARITY_TRANSITIONS", "110000"))
NUM_ENVS = 16
#: Fields of the scalar state the batched engines do not keep (text rendering only).
NOT_KEPT = {"cubemelt": {"events", "last_events"}}


#: Games with a compiled engine (each gets the whole transition budget of its own).
COMPILED = ("cardiceo",)


def _cases() -> list[tuple[str, str, int, dict[str, Any]]]:
    cases = []
    for game in ("cardiceo", "cubemelt"):
        for vname, n, options in ice_envs.get_spec(game).cases():
            cases.append((game, vname, n, options))
    cases += [
        ("cardiceo", "score+cap", 3, {"reward_mode": "score", "max_decisions": 40}),
        ("cardiceo", "penalize", 4, {"hand_size": 5, "illegal_action": "penalize", "illegal_reward": -2.0}),
        ("cubemelt", "score+cap", 3, {"expansion": True, "reward_mode": "score", "max_cycles": 5}),
        ("cubemelt", "penalize", 5, {"expansion": True, "illegal_action": "penalize"}),
        ("cubemelt", "fixed_abilities", 4, {"abilities": ("knight", "ninja", "cat", "dragon"), "per_neighbour": True}),
        (
            "cubemelt",
            "cat_actual",
            4,
            {"abilities": ("unicorn", "cat", "dragon", "knight"), "cat_trigger": "actual", "per_neighbour": True},
        ),
    ]
    return cases


NUMPY_CASES = _cases()
COMPILED_CASES = [case for case in NUMPY_CASES if case[0] in COMPILED]
#: (engine kind, game, variant, players, options, steps)
CASES = [("numpy", *case, max(8, TOTAL_TRANSITIONS // (NUM_ENVS * len(NUMPY_CASES)))) for case in NUMPY_CASES] + [
    ("compiled", *case, max(8, TOTAL_TRANSITIONS // (NUM_ENVS * len(COMPILED_CASES)))) for case in COMPILED_CASES
]


def _start_options(game: str, state: Any, config: Any) -> dict[str, Any]:
    """The scalar env's reset options that deal the batched game's deal (its dice come from the script)."""
    if game == "cardiceo":
        hands = [[v + 1 for v, c in enumerate(counts.tolist()) for _ in range(c)] for counts in state.hands]
        return {"hands": hands, "start_player": 0}
    return {"abilities": list(state.abilities)} if config.expansion and config.abilities is None else {}


def _assert_same_state(game: str, batched: Any, scalar: Any, where: str) -> None:
    for f in dataclasses.fields(scalar):
        if f.name in NOT_KEPT.get(game, ()):
            continue
        mine, theirs = getattr(batched, f.name), getattr(scalar, f.name)
        same = np.array_equal(mine, theirs) if isinstance(theirs, np.ndarray) else mine == theirs
        assert same, f"{where}: state field {f.name}: batched {mine!r} != scalar {theirs!r}"


def _start(env: Any, engine: Any, i: int, draws: list[int]) -> None:
    env._rng.feed(draws)
    env.reset(options=_start_options(engine.game, engine.state_of(i), engine.config))
    assert not env._rng.remaining, "the scalar deal drew fewer dice than the batched one"


def run_parity(
    game: str, num_players: int, options: dict[str, Any], steps: int, seed: int, kind: str = "numpy"
) -> tuple[int, int]:
    """Drive ``NUM_ENVS`` batched games and their scalar shadows ``steps`` steps; returns (transitions, games)."""
    engine = vector.make(game, NUM_ENVS, num_players, seed=seed, engine=kind, **options)
    engine.draw_log = []
    obs, mask, seat = engine.reset()
    reset_draws = draws_by_game(engine.draw_log, STAGE_RESET)
    envs = []
    for i in range(NUM_ENVS):
        env = ice_envs.make(game, raw=True, num_players=num_players, **options)
        env._rng = ScriptedRng([])
        _start(env, engine, i, reset_draws.get(i, []))
        envs.append(env)
    rng = np.random.default_rng(seed + 1)
    penalize = options.get("illegal_action") == "penalize"
    transitions = games = 0
    for t in range(steps):
        for i, env in enumerate(envs):
            where = f"{game} {options} game {i} step {t}"
            _assert_same_state(game, engine.state_of(i), env.game_state, where)
            assert int(seat[i]) == env.current_seat, where
            assert np.array_equal(mask[i], env.action_mask()), where
            assert np.array_equal(obs[i], env.observe(env.agent_selection)["observation"]), where
        actions = vector.random_actions(mask, rng)
        if penalize:  # now and then any action at all, often an illegal one
            wild = rng.random(NUM_ENVS) < 0.03
            actions[wild] = rng.integers(0, engine.n_actions, size=int(wild.sum()))
        engine.draw_log = []
        obs, mask, seat, rewards, terminated, truncated, info = engine.step(actions)
        step_draws = draws_by_game(engine.draw_log, STAGE_STEP)
        reset_draws = draws_by_game(engine.draw_log, STAGE_RESET)
        final_row = {int(i): k for k, i in enumerate(info["final_index"])}
        assert sorted(final_row) == np.flatnonzero(terminated | truncated).tolist()
        for i, env in enumerate(envs):
            where = f"{game} {options} game {i} step {t} action {int(actions[i])}"
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


@pytest.mark.parametrize(
    ("kind", "game", "variant", "num_players", "options", "steps"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}p" for c in CASES],
)
def test_batched_transitions_equal_the_scalar_engine(kind, game, variant, num_players, options, steps):
    transitions, games = run_parity(game, num_players, options, steps, seed=len(variant) * 7 + num_players, kind=kind)
    assert transitions == NUM_ENVS * steps
    if steps >= 150:  # the default count: every case plays its games to their ends, many times over
        assert games >= NUM_ENVS, f"only {games} games finished: the run did not reach game ends"


def test_the_parity_run_covers_enough_transitions():
    for kind in ("numpy", "compiled"):
        cases = [c for c in CASES if c[0] == kind]
        assert sum(NUM_ENVS * c[-1] for c in cases) >= min(TOTAL_TRANSITIONS, 100_000) * 0.99
    assert {(g, n) for _, g, _, n, _, _ in CASES} >= {
        (g, n) for g in ("cardiceo", "cubemelt") for n in ice_envs.get_spec(g).players
    }
    for game in COMPILED:
        numpy_cases = {(v, n) for k, g, v, n, _, _ in CASES if (k, g) == ("numpy", game)}
        assert {(v, n) for k, g, v, n, _, _ in CASES if (k, g) == ("compiled", game)} == numpy_cases
    assert {v for _, g, v, _, _, _ in CASES if g == "cardiceo"} >= {"default", "short", "forced_discard"}
    assert {v for _, g, v, _, _, _ in CASES if g == "cubemelt"} >= {
        "default",
        "expansion",
        "uniform_faces",
        "expansion_house",
        "expansion_readings",
        "cat_actual",
    }


def test_a_wrong_die_is_caught():
    """The harness is not vacuous: a batched engine that rolls one die differently fails the comparison."""
    engine = vector.make("cubemelt", NUM_ENVS, 2, seed=0)
    engine.draw_log = []
    engine.reset()
    draws = draws_by_game(engine.draw_log, STAGE_RESET)
    env = ice_envs.make("cubemelt", raw=True, num_players=2)
    env._rng = ScriptedRng([])
    code = draws[0][0]
    first = code % 6  # die 0's face index: +2 always changes its kind (faces H H S S Sad Drooping)
    _start(env, engine, 0, [code - first + (first + 2) % 6])
    with pytest.raises(AssertionError, match="dice"):
        _assert_same_state("cubemelt", engine.state_of(0), env.game_state, "mutated roll")
