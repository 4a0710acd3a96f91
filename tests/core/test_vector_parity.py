"""The batched engines make exactly the scalar engines' transitions (:mod:`ice_envs.core.engine_parity`).

Every player count and every variant of the two specs' ``variants`` is covered, plus score rewards,
a short episode cap and the ``penalize`` policy with illegal actions, for the numpy engines and
for the compiled ones (:mod:`ice_envs.core.compiled`).

``ICE_VECTOR_PARITY_TRANSITIONS`` (default 110,000) sets the number of transitions of the numpy
engines in all, and again of each compiled engine.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

import ice_envs
from ice_envs import vector
from ice_envs.core.engine_parity import assert_same_state, run_parity
from ice_envs.core.testing import ScriptedRng, draws_by_game
from ice_envs.core.vector import STAGE_RESET

TOTAL_TRANSITIONS = int(os.environ.get("ICE_VECTOR_PARITY_TRANSITIONS", "110000"))
NUM_ENVS = 16


#: Games with a compiled engine (each gets the whole transition budget of its own).
COMPILED = ("cardiceo", "cubemelt")


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


@pytest.mark.parametrize(
    ("kind", "game", "variant", "num_players", "options", "steps"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}p" for c in CASES],
)
def test_batched_transitions_equal_the_scalar_engine(kind, game, variant, num_players, options, steps):
    transitions, games = run_parity(
        game, num_players, options, steps, seed=len(variant) * 7 + num_players, kind=kind, num_envs=NUM_ENVS
    )
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
    env._rng.feed([code - first + (first + 2) % 6])
    env.reset(options=engine.scalar_start(0)[0])
    with pytest.raises(AssertionError, match="dice"):
        assert_same_state(engine, engine.state_of(0), env.game_state, "mutated roll")
