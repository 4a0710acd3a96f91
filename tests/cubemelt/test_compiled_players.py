"""CubeMelt's compiled greedy and heuristic players (ice_envs/cubemelt/compiled_players.py) decide as the
Python players do: decision by decision over every table size and variant, and piece by piece on random
positions (the transition, the expectations, the position values and terminal values bit for bit, the
forced first draw the greedy player plays a re-roll through)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ice_envs.agents.greedy import DEFAULT_SAMPLES
from ice_envs.agents.spec import load_agent
from ice_envs.core import vector
from ice_envs.core.compiled import below
from ice_envs.core.player_parity import run_player_parity
from ice_envs.cubemelt import compiled_players as cp
from ice_envs.cubemelt import heuristic, rules
from ice_envs.cubemelt.spec import SPEC

#: Games per table size and variant: about 12,500 decisions of the heuristic and 4,000 of the (slower) greedy
#: player in all, over every table size and variant (``ICE_CUBEMELT_PLAYER_PARITY_GAMES=40,20`` runs the
#: 20,000 + 10,000-decision sweep).
GAMES = dict(
    zip(("heuristic", "greedy"), map(int, os.environ.get("ICE_CUBEMELT_PLAYER_PARITY_GAMES", "25,8").split(",")))
)


def variant_tables() -> list[tuple[int, str]]:
    return [(n, v) for v in sorted(SPEC.variants) for n in (SPEC.variants[v].players or SPEC.players)]


@pytest.mark.parametrize(("players", "variant"), variant_tables())
@pytest.mark.parametrize("player", ["heuristic", "greedy"])
def test_parity_with_python_player(player: str, players: int, variant: str) -> None:
    options = dict(SPEC.variants[variant].options)
    games = GAMES[player]
    decisions, played = run_player_parity(
        "cubemelt",
        player,
        num_players=players,
        games=games,
        seed=23 + players,
        options=options,
        python_player=lambda seat: load_agent(player, "cubemelt", seed=seat, num_players=players),
    )
    assert played == games and decisions >= games * 5


def test_greedy_samples_match_the_agent() -> None:
    assert cp.GREEDY_SAMPLES == DEFAULT_SAMPLES


FACES = [
    tuple(rules.DEFAULT_FACES),
    ("heart", "star", "sad", "drooping"),
    ("heart", "heart", "heart", "sad", "star"),
    ("sad",) * 3 + ("star",) * 9,
]


def engine_for(players: int = 3, **options):
    return vector.make("cubemelt", 1, players, seed=0, engine="compiled", **options)


@pytest.mark.parametrize("faces", FACES)
def test_transition_matches_the_heuristic(faces: tuple[str, ...]) -> None:
    dense, outcomes = cp._transition(engine_for(faces=faces)._cfg)
    ids = tuple(rules.FACE_NAMES.index(f) for f in faces)
    expected_weights, expected_outcomes = heuristic.transition_weights(ids)
    assert np.array_equal(dense, expected_weights) and np.array_equal(outcomes, expected_outcomes)
    assert np.array_equal(dense.sum(axis=1), outcomes)  # every outcome of a re-roll ends somewhere


def test_expectations_match_the_heuristic() -> None:
    rng = np.random.default_rng(3)
    weights, outcomes = cp._transition(engine_for()._cfg)
    dense = heuristic.transition_weights(tuple(rules.FACE_NAMES.index(f) for f in rules.DEFAULT_FACES))
    out = np.empty(cp.N_KEEPS, dtype=np.int64)
    for t in range(300):
        values = rng.integers(0, 2**20 + 1, cp.N_COUNTS) if t % 2 else rng.integers(0, 64, cp.N_COUNTS) << 14
        cp._expectations(weights, outcomes, values, np.empty(cp.N_COUNTS), out)
        assert np.array_equal(out, heuristic.expectations(*dense, values))


@pytest.mark.parametrize("players", [2, 3, 5])
def test_position_values_match(players: int) -> None:
    rng = np.random.default_rng(players)
    agent = heuristic.CubeMeltHeuristic(0)
    love = rng.integers(0, 21, size=(400, players))
    adv = rng.integers(0, 21, size=(400, players))
    melt = rng.integers(-1, 21, size=(400, players))
    for me in range(players):
        expected = agent.values(love, adv, melt, me)
        work = np.empty(4 * players)
        got = [cp._values(love[i], adv[i], melt[i], players, me, work) for i in range(400)]
        assert np.array_equal(np.array(got), expected)
        live = (love < 20).all(axis=1) & (adv < 20).all(axis=1) & (melt > 0).all(axis=1)
        estimates = [cp._estimate(love[i], adv[i], melt[i], players, me, work) for i in np.flatnonzero(live)]
        assert live.any() and np.array_equal(np.array(estimates), expected[live])  # the tables' own computation


def random_states(players: int, options: dict, count: int, seed: int) -> list[rules.CubeMeltState]:
    """Positions of random play (re-rolling, the Ninja's and the Love-or-Adventure decisions)."""
    env_rng = np.random.default_rng(seed)
    config = rules.CubeMeltConfig(num_players=players, **options)
    out = []
    while len(out) < count:
        state = rules.new_game(config, env_rng)
        while not rules.is_over(state) and len(out) < count:
            out.append(state.copy())
            legal = rules.legal_actions(state)
            rules.apply(state, int(legal[env_rng.integers(len(legal))]), env_rng)
    return out


@pytest.mark.parametrize("variant", ["default", "expansion", "expansion_house", "expansion_readings"])
def test_terminal_values_match(variant: str) -> None:
    options = dict(SPEC.variants[variant].options)
    for players in (2, 4):
        engine = engine_for(players, **options)
        agent = heuristic.CubeMeltHeuristic(0)
        out = np.empty(cp.N_COUNTS)
        for state in random_states(players, options, 60, players):
            if state.phase == rules.PHASE_CHOOSE:
                continue
            row = np.asarray(engine.pack_state(state), dtype=np.int8)
            for me in {state.active, (state.active + 1) % players}:
                for paid, ninja, code in ((0, "best", cp.BEST), (1, "apply", cp.APPLY), (0, "decline", cp.DECLINE)):
                    cp._terminal_values(row, engine._cfg, me, paid, code, out)
                    assert np.array_equal(out, agent._terminal_values(state, me, paid, ninja))


def test_kept_terminal_values_are_the_computed_ones() -> None:
    options = dict(SPEC.variants["expansion"].options)
    engine = engine_for(3, **options)
    memory = np.zeros(cp.MEMORY_WIDTH, dtype=np.int64)
    kept, computed = np.empty(cp.N_COUNTS), np.empty(cp.N_COUNTS)
    states = [s for s in random_states(3, options, 40, 7) if s.phase != rules.PHASE_CHOOSE]
    for state in states + states[-3:]:  # the last three again: found in memory
        row = np.asarray(engine.pack_state(state), dtype=np.int8)
        before = int(memory[0])
        cp._cached_terminal_values(row, engine._cfg, state.active, 0, cp.BEST, kept, memory)
        cp._terminal_values(row, engine._cfg, state.active, 0, cp.BEST, computed)
        assert np.array_equal(kept, computed)
    assert int(memory[0]) == before  # the last one was found, not computed


@pytest.mark.parametrize(("bound", "codes"), [(2, [0, 1]), (6**3, [0, 5, 215]), (12**6, [0, 1, 12**6 - 1, 777_777])])
def test_forced_stream_draws_the_code(bound: int, codes: list[int]) -> None:
    rng = np.zeros(2, dtype=np.uint64)
    for code in codes:
        cp._forced_stream(code, bound, rng)
        assert below(rng, bound) == code


def test_greedy_draws_nothing_with_one_legal_action() -> None:
    engine = engine_for(2, paid_rerolls=0)
    state = random_states(2, {"paid_rerolls": 0}, 1, 0)[0]
    state.rerolls = 1  # the free re-roll used, no paid one: stopping is all that is left
    row = np.asarray(engine.pack_state(state), dtype=np.int8)
    mask = np.zeros(engine.n_actions, dtype=np.int8)
    engine.kernels.legal(row, engine._cfg, mask)
    assert mask.sum() == 1 and mask[rules.STOP]
    prng = np.array([99, 0], dtype=np.uint64)
    assert cp.greedy_act(row, engine._cfg, mask, prng, np.zeros(1, dtype=np.int64)) == rules.STOP
    assert int(prng[0]) == 99


def test_kept_plans_are_the_engines_and_equal_plans_share_a_first() -> None:
    options = dict(SPEC.variants["expansion"].options)
    engine = engine_for(4, **options)
    memory = np.zeros(cp.MEMORY_WIDTH, dtype=np.int64)
    for state in random_states(4, options, 30, 11):
        row = np.asarray(engine.pack_state(state), dtype=np.int8)
        for ninja in (False, True):
            expected = np.empty((cp.N_COUNTS, 4, 3), dtype=np.int64)
            cp._count_plans(row, engine._cfg, ninja, expected)
            for _ in range(2):  # computed and kept, then read back from memory
                plans, first = cp._kept_plans(row, engine._cfg, ninja, memory)
                assert np.array_equal(plans, expected)
                for c in range(cp.N_COUNTS):
                    f = first[c]
                    assert f <= c and np.array_equal(plans[f], plans[c])
                    assert cp.EVERY_KIND[f] == cp.EVERY_KIND[c]
                    # the first of its kind: no earlier count has the same plans
                    if f == c:
                        assert not any(
                            np.array_equal(plans[o], plans[c]) and cp.EVERY_KIND[o] == cp.EVERY_KIND[c]
                            for o in range(c)
                        )
