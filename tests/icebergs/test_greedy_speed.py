"""Icebergs agents made faster without changing a decision.

Three changes: ``IcebergsState.copy()`` shares the frozen config instead of deep-copying it
with the map; the greedy value's route search reads per-map tables and caches per map; and
``ice_envs.icebergs.greedy.expected_values`` (the greedy agent's hook) enumerates the engine's
draws on those cheap copies and values each board once per decision. The greedy value and route search as they were before are kept
here, verbatim but for the names, as the reference: with the agent's own generic enumeration
(the hook switched off) they must give the very same exact values for every legal action at
the first greedy decisions of whole games, and whole games must replay the action sequences
recorded before the change.
"""

from __future__ import annotations

import copy
import hashlib
import heapq
from functools import lru_cache

import numpy as np
import pytest

import ice_envs
from ice_envs.agents import GreedyAgent, load_agent
from ice_envs.agents.greedy import OUTCOME_LIMIT
from ice_envs.agents.search import same_state, simulator_for
from ice_envs.core.agent import make_view
from ice_envs.evaluation import tournament
from ice_envs.icebergs import greedy, rules
from ice_envs.icebergs.hexmap import OFF_GRID, SEA, HexMap

TABLE = {"max_turns_end": "decide"}
#: Greedy decisions checked against the reference per game (the first ones; the game is played to its end).
CHECKED_PER_GAME = 40


# ------------------------------------------------------------------ the old value (reference)
def old_value(state: rules.IcebergsState, seat: int) -> int:
    """The old ``value``, verbatim but for the names."""
    cfg = state.config
    total = 0
    if state.over and not state.truncated:
        total += greedy.WIN if float(state.result[seat]) > 0 else -greedy.WIN
    total += greedy.CARGO_HOME * rules.cargo_home(state)[seat]
    k0 = seat * cfg.ships_per_player
    for k in range(k0, k0 + cfg.ships_per_player):
        total -= greedy.MOVE * old_moves_to_go(state, k)
        if state.status[k] != rules.SUNK:
            if state.loaded[k] and state.status[k] != rules.HOME:
                total += greedy.CARGO * int(state.cargo[k])
            total += greedy.FUEL * int(state.fuel[k])
    return total


def old_moves_to_go(state: rules.IcebergsState, ship: int) -> int:
    """The old ``moves_to_go``, verbatim but for the names."""
    status = state.status[ship]
    if status == rules.HOME:
        return 0
    m = state.config.hexmap
    pens = old_penalties(state, ship)
    exit_pen = bool(state.config.exit_penalties)
    east = old_to_edge(m, pens, True, exit_pen)
    back = old_entry(m.west_edge(), pens, east)
    if status in (rules.ALASKA_LOADING, rules.ALASKA_READY):
        return back
    if status == rules.AT_SEA and state.loaded[ship]:
        return min(greedy.BLOCKED, east[state.pos[ship]])
    west = old_to_edge(m, pens, False, exit_pen)
    if status == rules.AT_SEA:
        return min(greedy.BLOCKED, west[state.pos[ship]]) + back
    return old_entry(m.east_edge(), pens, west) + back  # START, SUNK


def old_entry(edge: list[int], pens: tuple[int, ...], dist: tuple[int, ...]) -> int:
    """The old ``_entry``, verbatim but for the names."""
    return min([greedy.BLOCKED] + [1 + pens[x] + dist[x] for x in edge])


def old_penalties(state: rules.IcebergsState, ship: int) -> tuple[int, ...]:
    """The old ``_penalties``, verbatim but for the names."""
    pens = [
        f * rules.FLOE_PENALTY + b * rules.ICEBERG_PENALTY for f, b in zip(state.floes, state.berg_count, strict=True)
    ]
    for k, p in enumerate(state.pos):
        if k != ship and 0 <= p < len(pens):
            pens[p] += rules.SHIP_PENALTY
    return tuple(pens)


@lru_cache(maxsize=4096)
def old_to_edge(m: HexMap, pens: tuple[int, ...], east: bool, exit_pen: bool) -> tuple[int, ...]:
    """The old ``_to_edge``, verbatim but for the names."""
    dist = [greedy.BLOCKED] * m.num_spaces
    heap: list[tuple[int, int]] = []
    for x in m.east_edge() if east else m.west_edge():
        d0 = 1 + (pens[x] if exit_pen else 0)
        if d0 < dist[x]:
            dist[x] = d0
            heap.append((d0, x))
    heapq.heapify(heap)
    while heap:
        d, t = heapq.heappop(heap)
        if d > dist[t]:
            continue
        for x in m.neighbours[t]:
            if x == OFF_GRID or m.terrain[x] != SEA:
                continue
            nd = d + 1 + pens[x] + pens[t]
            if nd < dist[x]:
                dist[x] = nd
                heapq.heappush(heap, (nd, x))
    return tuple(dist)


# ------------------------------------------------------------------ helpers
def reference_values(agent: GreedyAgent, view, legal: list[int], monkeypatch: pytest.MonkeyPatch) -> dict:
    """The agent's values as before: its generic enumeration of the draws (no hook), the old value
    and the old deep copy of a state. ``agent`` is a twin whose generator may be spent."""
    sim = simulator_for("icebergs", view.num_players)
    with monkeypatch.context() as patch:
        patch.setattr(sim, "_expected_hook", None)
        patch.setattr(sim, "_greedy", old_value)
        patch.setattr(rules.IcebergsState, "copy", lambda self: copy.deepcopy(self))
        # the search simulator copies states with its generic copier, as it did then (with FAST_COPY
        # it would call the deep copy above for every copy and the reference would take minutes)
        patch.setattr(rules.IcebergsState, "FAST_COPY", False)
        return agent.action_values(view, legal)


def play_checked(agents: list[str], seed: int, options: dict, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Play one whole game of ``agents`` (one per seat); at the first ``CHECKED_PER_GAME`` greedy decisions the values of all
    legal actions must equal the reference's. Returns (greedy decisions checked, decisions)."""
    n = len(agents)
    env = ice_envs.make("icebergs", num_players=n, **options)
    env.reset(seed=seed)
    players = [load_agent(a, "icebergs", num_players=n) for a in agents]
    for k, p in enumerate(players):
        p.reset(seed=seed * 10 + k)
    view_rng = np.random.default_rng(seed)
    raw = env.unwrapped
    checked = decisions = 0
    for name in env.agent_iter():
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            env.step(None)
            continue
        seat = raw.possible_agents.index(name)
        agent = players[seat]
        view = make_view(env, seat, view_rng)
        legal = sorted(view.legal_actions)
        if isinstance(agent, GreedyAgent) and len(legal) > 1 and checked < CHECKED_PER_GAME:
            twin = copy.deepcopy(agent)
            assert agent.action_values(view, legal) == reference_values(twin, view, legal, monkeypatch)
            checked += 1
        mask = np.zeros(raw.action_space(name).n, dtype=np.int8)
        mask[legal] = 1
        env.step(int(agent.act({"action_mask": mask}, view)))
        decisions += 1
    assert raw.game_state.over
    return checked, decisions


def digests(agents: str, seed: int, games: int, options: dict) -> list[str]:
    """The action sequences of games ``0 .. games-1`` of an evaluation (seats rotated), as short digests."""
    n = len(agents.split(","))
    match = tournament.Match("icebergs", n, options, tuple(tournament.agent_entries(agents, n)), seed)
    loaded = [load_agent(s, "icebergs", num_players=n) for s in match.agents]
    out = []
    for i in range(games):
        actions: list[int] = []
        env_step = tournament.take

        def take(env, action, recorder, actions=actions, env_step=env_step):
            actions.append(action)
            return env_step(env, action, recorder)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(tournament, "take", take)
            tournament.play_game(match, i, loaded)
        out.append(hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16])
    return out


# ------------------------------------------------------------------ tests
def test_copy_equals_a_deep_copy_and_shares_only_the_config():
    env = ice_envs.make("icebergs", raw=True, num_players=4)
    env.reset(seed=5)
    state = env.game_state
    rng = np.random.default_rng(5)
    for _ in range(150):
        fast, deep = state.copy(), copy.deepcopy(state)
        assert same_state(fast, deep) and same_state(fast, state)
        assert fast.config is state.config
        for name, field in vars(state).items():
            if isinstance(field, list):
                assert getattr(fast, name) is not field, name
        legal = rules.legal_actions(state)
        rules.apply(fast, legal[int(rng.integers(0, len(legal)))], np.random.default_rng(1))
        assert same_state(state, deep)  # playing on the copy leaves the original as it was
        rules.apply(state, legal[int(rng.integers(0, len(legal)))], rng)
    state.hazards = [[0, 1], [2, 3]]  # pending hazard rolls: the pairs are copied too
    fast = state.copy()
    fast.hazards[0][1] = 4
    assert state.hazards == [[0, 1], [2, 3]]


def test_the_hook_enumerates_no_more_outcomes_than_the_agent():
    # an action the hook values must be one the agent would have enumerated itself (not sampled)
    assert greedy.HOOK_OUTCOMES <= OUTCOME_LIMIT


@pytest.mark.parametrize(
    ("agents", "seed", "options"),
    [
        (["heuristic", "greedy"], 7001, TABLE),
        (["greedy", "heuristic", "greedy"], 7004, TABLE),
        (["heuristic", "greedy", "greedy", "greedy"], 7005, TABLE),
        (["greedy", "random"], 7002, {}),
        (["greedy", "heuristic"], 7007, {"ships_per_player": 2}),
    ],
)
def test_greedy_values_equal_the_old_ones_at_every_decision(agents, seed, options, monkeypatch):
    checked, decisions = play_checked(agents, seed, options, monkeypatch)
    assert checked >= 5 and decisions > checked


@pytest.mark.parametrize(
    ("agents", "seed", "games", "options", "expected"),
    [
        # recorded before the change (greedy.py and IcebergsState.copy as at commit 547b490)
        ("greedy,random", 7002, 2, TABLE, ["366c05249778f598", "b1ad2a15ce03aa4b"]),
        ("greedy,greedy", 7003, 1, TABLE, ["777c8329d246dafa"]),
        ("greedy,random,greedy,random", 7006, 2, TABLE, ["829133c48e6fcbb6", "90c65b5b54aa0ebe"]),
    ],
)
def test_greedy_games_replay_the_trajectories_recorded_before(agents, seed, games, options, expected):
    assert digests(agents, seed, games, options) == expected
