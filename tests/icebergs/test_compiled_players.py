"""Icebergs' compiled players: the state row round trip they read, and decision-by-decision parity.

``ICE_ICEBERGS_HEURISTIC_PARITY_DECISIONS`` and ``ICE_ICEBERGS_GREEDY_PARITY_DECISIONS`` set the
decisions compared per player over all the configurations (each plays whole games until its share is
reached). The heuristic's default is 20,000; the greedy's is 1,000, because the Python greedy agent
decides about 30-90 times a second (``ICE_ICEBERGS_GREEDY_PARITY_DECISIONS=20000`` runs the full sweep,
about a quarter of an hour).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np
import pytest

from ice_envs import vector
from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import make_view
from ice_envs.core.player_parity import run_player_parity
from ice_envs.core.registry import make as make_env
from ice_envs.icebergs import compiled as C
from ice_envs.icebergs import greedy, rules
from ice_envs.icebergs.compiled_players import FORCING, PLAYERS, greedy_value
from ice_envs.icebergs.compiled_routes import whole_move_scratch
from ice_envs.icebergs.spec import SPEC

DECISIONS = {
    "heuristic": int(os.environ.get("ICE_ICEBERGS_HEURISTIC_PARITY_DECISIONS", "20000")),
    "greedy": int(os.environ.get("ICE_ICEBERGS_GREEDY_PARITY_DECISIONS", "1000")),
}
#: Options beyond the spec's variants that the players branch on: another shipped map, a flat exit
#: price, a game decided at ``max_turns``.
EXTRA_CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("strait", 2, {"map": "strait"}),
    ("strait_solo_choice", 1, {"map": "strait", "solo": True, "solo_ice_six": "player"}),
    ("flat_exit_decide", 3, {"exit_penalties": False, "max_turns": 30, "max_turns_end": "decide"}),
]


def _cases(player: str) -> list[tuple[str, int, dict[str, Any]]]:
    cases = [
        (name, n, dict(variant.options))
        for name, variant in SPEC.variants.items()
        for n in (variant.players or SPEC.players)
    ]
    cases += EXTRA_CASES
    if player == "greedy":
        # In the solo game the Python greedy agent samples the ice table with numpy's generator, which the
        # compiled player cannot replay (module docstring of compiled_players), and it is slow on the default
        # map: the variants are played on the small map, the default map's games stop after 12 rounds.
        cases = [
            (name, n, {**options, "max_turns": 12} if name == "default" else {**options, "map": "strait"})
            for name, n, options in cases
            if not options.get("solo") and (name != "default" or n <= 3)
        ]
    return cases


def _parity(player: str, num_players: int, options: dict[str, Any], budget: int) -> tuple[int, int]:
    """Whole games of parity until ``budget`` decisions are compared; (decisions, games)."""
    decisions = games = 0
    while decisions < budget:
        done, _ = run_player_parity(
            "icebergs",
            player,
            num_players=num_players,
            games=1,
            seed=1 + games,
            options=options,
            python_player=lambda seat: load_agent(player, "icebergs", seed=seat, num_players=num_players),
        )
        decisions += done
        games += 1
    return decisions, games


@pytest.mark.parametrize("player", ["heuristic", "greedy"])
def test_the_parity_cases_cover_every_variant(player):
    names = {name for name, *_ in _cases(player)}
    expected = {name for name, v in SPEC.variants.items() if player == "heuristic" or not v.options.get("solo")}
    assert expected <= names and "strait" in names


@pytest.mark.parametrize(
    ("player", "case", "num_players", "options"),
    [(player, *case) for player in ("heuristic", "greedy") for case in _cases(player)],
    ids=lambda x: x if isinstance(x, str) else str(x),
)
def test_the_compiled_player_decides_as_the_python_player(player, case, num_players, options):
    budget = -(-DECISIONS[player] // len(_cases(player)))
    decisions, games = _parity(player, num_players, options, budget)
    assert decisions >= budget and games >= 1


ROUND_TRIP_CASES = [
    (3, {}),
    (2, {"fleet": True}),
    (3, {"fleet": True, "extra_ships": True}),
    (1, {"solo": True, "solo_ice_six": "player"}),
    (4, {"restart_on_sink": True}),
    (2, {"map": "strait", "max_turns": 30}),
]


def _played(num_players: int, options: dict, steps: int = 200) -> vector.BatchedEngine:
    engine = vector.make("icebergs", 12, num_players, seed=3, engine="compiled", **options)
    _, mask, _ = engine.reset()
    rng = np.random.default_rng(5)
    for _ in range(steps):
        _, mask, *_ = engine.step(vector.random_actions(mask, rng))
    return engine


@pytest.mark.parametrize(("num_players", "options"), ROUND_TRIP_CASES)
def test_pack_state_is_the_inverse_of_state_of(num_players, options):
    engine = _played(num_players, options)
    cfg = engine.config_row()
    for i in range(engine.num_envs):
        row = engine.pack_state(engine.state_of(i))
        assert row.dtype == engine.state_dtype and row.shape == engine.state[i].shape
        kept = np.ones(engine.state_width, dtype=bool)
        pending = int(engine.state[i, C.NUM_HAZARDS])
        kept[cfg[C.S_HAZARDS] + 2 * pending :] = False  # pairs past the pending hazards are stale
        assert np.array_equal(row[kept], engine.state[i][kept])
        assert not row[~kept].any()


@pytest.mark.parametrize(("num_players", "options"), ROUND_TRIP_CASES)
def test_load_takes_scalar_states_back(num_players, options):
    states = []
    env = make_env("icebergs", raw=True, num_players=num_players, **options)
    rng = np.random.default_rng(9)
    for g in range(6):
        env.reset(seed=g)
        for _ in range(int(rng.integers(0, 80))):
            if all(env.terminations.values()) or all(env.truncations.values()):
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        states.append(env.game_state.copy())
    engine = vector.make("icebergs", len(states), num_players, seed=0, engine="compiled", **options)
    _, mask, seat = engine.load(states)
    for i, state in enumerate(states):
        back = engine.state_of(i)
        assert dataclasses.replace(back, log=[]) == dataclasses.replace(state, log=[])
        if not state.over:
            assert seat[i] == state.deciding_seat
            assert np.array_equal(np.flatnonzero(mask[i]), sorted(rules.legal_actions(state)))


# ------------------------------------------------------------------ tricky positions
def test_the_forcing_table_gives_every_sequence_of_dice():
    from ice_envs.core.splitmix import SplitMixRng

    at = 0
    for length in range(4):
        for code in range(6**length):
            rng = SplitMixRng(int(FORCING[at]))
            faces = [rng.below(6) for _ in range(length)]
            assert faces == [(code // 6 ** (length - 1 - i)) % 6 for i in range(length)]
            at += 1
    assert at == FORCING.shape[0]


@pytest.mark.parametrize(("num_players", "options"), ROUND_TRIP_CASES)
def test_the_greedy_value_is_the_python_value(num_players, options):
    engine = _played(num_players, options, steps=150)
    cfg = engine.config_row()
    spaces = int(cfg[C.C_SPACES])
    scratch = np.zeros((3, spaces), dtype=np.int64)
    keys = whole_move_scratch(spaces)
    for i in range(engine.num_envs):
        state = engine.state_of(i)
        for seat in range(num_players):
            assert greedy_value(engine.state[i], cfg, seat, scratch, keys) == greedy.value(state, seat)


def _position(num_players: int, options: dict[str, Any], seed: int, steps: int) -> Any:
    env = make_env("icebergs", raw=True, num_players=num_players, **options)
    env.reset(seed=seed)
    agents = [load_agent("heuristic", "icebergs", seed=0) for _ in range(num_players)]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        seat = env.current_seat
        observation = env.observe(env.agent_selection)
        env.step(int(agents[seat].act(observation, make_view(env, seat, rng))))
    return env


def _compiled_choice(name: str, env: Any, options: dict[str, Any]) -> tuple[int, int]:
    """The compiled and the Python player's actions on ``env``'s position (fresh players)."""
    engine = vector.make("icebergs", 1, env.num_players, seed=0, engine="compiled", **options)
    player = PLAYERS[name]
    row = np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype)
    observation = env.observe(env.agent_selection)
    mask = observation["action_mask"].astype(np.int8)
    memory = np.zeros(max(player.memory_width, 1), dtype=np.int64)
    got = int(player.act(row, engine.config_row(), mask, np.zeros(2, dtype=np.uint64), memory))
    agent = load_agent(name, "icebergs", seed=0, num_players=env.num_players)
    from ice_envs.core.splitmix import SplitMixRng

    agent.rng = SplitMixRng(0)
    expected = int(agent.act(observation, make_view(env, env.current_seat, np.random.default_rng(0))))
    return got, expected


def test_the_heuristic_takes_the_ice_table_line_of_fewer_hazards():
    options = {"solo": True, "solo_ice_six": "player"}
    env = make_env("icebergs", raw=True, num_players=1, **options)
    seen = 0
    for seed in range(40):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        agent = load_agent("heuristic", "icebergs", seed=0)
        while not env.terminations[env.agent_selection] and not env.truncations[env.agent_selection]:
            if env.game_state.phase == rules.PHASE_ICE_CHOICE:
                got, expected = _compiled_choice("heuristic", env, options)
                assert got == expected
                seen += 1
            observation = env.observe(env.agent_selection)
            env.step(int(agent.act(observation, make_view(env, 0, rng))))
        if seen >= 5:
            break
    assert seen >= 5


def test_the_heuristic_memory_belongs_to_one_turn():
    from ice_envs.icebergs.compiled_heuristic import _been_there

    env = _position(2, {}, seed=2, steps=30)
    engine = vector.make("icebergs", 1, 2, seed=0, engine="compiled")
    row = np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype)
    memory = np.zeros(PLAYERS["heuristic"].memory_width, dtype=np.int64)
    here = int(row[C.POS + row[C.CURRENT]])
    other = 0 if here != 0 else 1
    assert not _been_there(row, other, memory)
    if here >= 0:
        assert _been_there(row, here, memory)  # the space the ship is on counts as sailed through
    stale = memory.copy()
    stale[0] += 5  # a memory of another turn is forgotten
    assert not _been_there(row, other, stale) and stale[0] == memory[0]


def test_the_compiled_greedy_plays_the_solo_game_legally():
    # No parity here: the two sample the solo game's ice table on different generators (module docstring of
    # compiled_players).
    options = {"solo": True, "solo_ice_six": "player"}
    engine = vector.make("icebergs", 1, 1, seed=0, engine="compiled", **options)
    env = make_env("icebergs", raw=True, num_players=1, **options)
    prng = np.zeros(2, dtype=np.uint64)
    memory = np.zeros(1, dtype=np.int64)
    decided = 0
    for seed in range(3):
        env.reset(seed=seed)
        while not env.terminations[env.agent_selection] and not env.truncations[env.agent_selection]:
            row = np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype)
            mask = env.observe(env.agent_selection)["action_mask"].astype(np.int8)
            action = int(PLAYERS["greedy"].act(row, engine.config_row(), mask, prng, memory))
            assert mask[action]
            env.step(action)
            decided += 1
    assert decided > 20


# ------------------------------------------------------------------ the speed-ups' helpers
def _random_prices(spaces: int, rng: np.random.Generator, solo: bool) -> tuple[np.ndarray, np.ndarray]:
    """Prices as the heuristic's board makes them: pieces in half Moves, hazards in whole ones."""
    floes, bergs, ships = rng.integers(0, 3, spaces), rng.integers(0, 2, spaces), rng.integers(0, 2, spaces)
    if solo:
        return (floes + 3 * bergs + ships).astype(np.float64), 4.0 * bergs
    return 0.5 * floes + 1.5 * bergs + ships, np.zeros(spaces)


@pytest.mark.parametrize("options", [{}, {"map": "strait"}, {"solo": True}, {"exit_penalties": False}])
def test_the_bucket_search_gives_the_python_heuristic_distances(options):
    from ice_envs.icebergs import compiled_routes as R
    from ice_envs.icebergs import heuristic as H

    env = make_env("icebergs", raw=True, num_players=1 if options.get("solo") else 2, **options)
    env.reset(seed=0)
    geo = H.geometry(env.game_state.config.hexmap)
    engine = vector.make("icebergs", 1, env.num_players, seed=0, engine="compiled", **options)
    cfg = engine.config_row()
    spaces = int(cfg[C.C_SPACES])
    rng = np.random.default_rng(1)
    items = np.empty(8 * spaces + 16, dtype=np.int64)
    for trial in range(40):
        side, enter = _random_prices(spaces, rng, bool(options.get("solo")))
        goal_east, exit_side = trial % 3 == 0, float(trial % 2)
        cap = (7.0, 10.0) if options.get("solo") else None
        limits = cap or (-1.0, 10.0)
        expected = H.distances(geo, side.tolist(), enter.tolist(), goal_east, exit_side, cap)
        buckets = np.zeros(spaces)
        assert R.half_move_distances(cfg, side, enter, goal_east, exit_side, *limits, buckets, items)
        assert buckets.tolist() == expected
        # a quarter Move is not whole half Moves: the buckets decline, the heap search answers
        quarter = side + 0.25
        heap = np.zeros(spaces)
        assert not R.half_move_distances(cfg, quarter, enter, goal_east, exit_side, *limits, heap, items)
        R.float_distances(cfg, quarter, enter, goal_east, exit_side, *limits, heap, items)
        assert heap.tolist() == H.distances(geo, quarter.tolist(), enter.tolist(), goal_east, exit_side, cap)


def _brute_distances(cfg: np.ndarray, pens: np.ndarray, sources: dict[int, int]) -> np.ndarray:
    """Bellman-Ford over the sea spaces: the Moves from the cheapest source (step: 1 + both penalties)."""
    from ice_envs.icebergs.compiled_routes import BLOCKED, sea_neighbour

    spaces = pens.shape[0]
    dist = np.full(spaces, BLOCKED, dtype=np.int64)
    for x, d in sources.items():
        dist[x] = min(dist[x], d)
    changed = True
    while changed:
        changed = False
        for t in range(spaces):
            for d in range(6):
                x = sea_neighbour(cfg, t, d)
                if x >= 0 and dist[t] + 1 + pens[t] + pens[x] < dist[x]:
                    dist[x] = dist[t] + 1 + pens[t] + pens[x]
                    changed = True
    return np.minimum(dist, BLOCKED)


def test_the_spread_search_gives_the_cheapest_moves_from_its_sources():
    from ice_envs.icebergs.compiled_routes import BLOCKED, whole_move_spread

    engine = vector.make("icebergs", 1, 2, seed=0, engine="compiled", map="strait")
    cfg = engine.config_row()
    spaces = int(cfg[C.C_SPACES])
    rng = np.random.default_rng(4)
    sea = [x for x in range(spaces) if cfg[cfg[C.T_TERRAIN] + x] == 0]
    for _ in range(10):
        pens = rng.integers(0, 5, spaces)
        sources = {int(x): int(rng.integers(0, 6)) for x in rng.choice(sea, size=3, replace=False)}
        dist = np.full(spaces, BLOCKED, dtype=np.int64)
        for x, d in sources.items():
            dist[x] = d
        whole_move_spread(cfg, pens, dist, whole_move_scratch(spaces))
        assert np.array_equal(dist, _brute_distances(cfg, pens, sources))


@pytest.mark.parametrize(("num_players", "options"), [(2, {}), (3, {"ships_per_player": 2, "map": "strait"})])
def test_the_greedy_bound_is_never_below_the_value(num_players, options):
    # The compiled greedy skips an action whose bound cannot win: every bound must be at least the value.
    from ice_envs.icebergs import compiled_players as P

    engine = _played(num_players, options, steps=120)
    cfg = engine.config_row()
    spaces = int(cfg[C.C_SPACES])
    width = vector.make("icebergs", 1, num_players, seed=0, engine="compiled", **options).reset()[1].shape[1]
    mask = np.zeros(width, dtype=np.int8)
    bounded = 0
    for i in range(engine.num_envs):
        s = engine.state[i]
        if s[C.OVER]:
            continue
        C.legal(s, cfg, mask)
        seat = C.deciding(s, cfg)
        keys = whole_move_scratch(spaces)
        reach, rest = np.empty((6, spaces), dtype=np.int64), np.empty((6, spaces), dtype=np.int64)
        worth = np.zeros(6, dtype=np.int64)
        terms = P._route_terms(s, cfg, seat, reach, rest, worth, keys)
        through = reach + rest
        script, cheapest = np.zeros(P.MAX_DICE + 1, dtype=np.int64), np.empty(6, dtype=np.int64)
        bound = P.Bounds(True, terms, through, worth, cheapest, script)
        exact = P.Bounds(False, terms, through, worth, cheapest, script)
        args = (np.zeros(P.SAMPLES, dtype=np.uint64), s.copy(), np.zeros(2 + P.LOG_SLOTS, dtype=np.uint64))
        scratch = np.zeros((3, spaces), dtype=np.int64)
        for a in np.flatnonzero(mask):
            ceiling = P.action_value(s, cfg, a, seat, *args, scratch, keys, s.copy(), np.zeros(2, np.int64), bound)
            value = P.action_value(s, cfg, a, seat, *args, scratch, keys, s.copy(), np.zeros(2, np.int64), exact)
            assert ceiling >= value
            bounded += ceiling != P.NO_BOUND
    assert bounded >= 50


@pytest.mark.parametrize(("num_players", "options"), ROUND_TRIP_CASES)
def test_the_compiled_greedy_values_are_the_python_agents(num_players, options):
    # The flat search ranks its candidates by these: every action the compiled values enumerate has the Python
    # greedy agent's exact value; the ones it marks sampled are left to the Python agent.
    from fractions import Fraction

    from ice_envs.agents.greedy import GreedyAgent
    from ice_envs.agents.search import simulator_for
    from ice_envs.core.agent import PlayerView
    from ice_envs.icebergs.compiled_players import GREEDY_VALUES_UNIT, greedy_values

    engine = _played(num_players, options, steps=60)
    cfg = engine.config_row()
    sim = simulator_for("icebergs", num_players)
    compared = 0
    for i in range(engine.num_envs):
        s = engine.state[i]
        if s[C.OVER]:
            continue
        mask = engine.mask[i].copy()
        legal = [int(a) for a in np.flatnonzero(mask)]
        out = np.zeros(mask.shape[0], dtype=np.int64)
        sampled = np.zeros(mask.shape[0], dtype=np.int8)
        greedy_values(s, cfg, mask, out, sampled)
        enumerated = [a for a in legal if not sampled[a]]
        state = engine.state_of(i)
        view = PlayerView("icebergs", sim.deciding_seat(state), num_players, state, legal)
        expected = GreedyAgent("icebergs", num_players, 0, samples=1).action_values(view, enumerated)
        assert {a: Fraction(int(out[a]), GREEDY_VALUES_UNIT) for a in enumerated} == expected
        assert not out[sampled == 1].any() and not sampled[mask == 0].any()
        compared += len(enumerated)
    assert compared >= 50
