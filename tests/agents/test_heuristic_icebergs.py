"""Icebergs heuristic: legal play everywhere, sensible choices in hand-built positions, beats random."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.agents import heuristic_for
from ice_envs.agents.random_agent import RandomAgent
from ice_envs.core.agent import PlayerView, make_view
from ice_envs.core.testing import ScriptedRng
from ice_envs.evaluation import tournament as ev
from ice_envs.icebergs import rules
from ice_envs.icebergs.heuristic import (
    Board,
    IcebergsHeuristic,
    distances,
    expected_table_hazards,
    geometry,
    spare_savings,
)
from ice_envs.icebergs.hexmap import parse_map

N, NE, SE, S, SW, NW = range(6)

# An open 5 x 6 sea without ice: pieces are placed by each test.
OPEN = parse_map("name: open\nspare_floes: 16\ngrid:\n" + "\n".join([". . . . . ."] * 5))
# A wider open sea (5 x 8) for the fuel tests.
WIDE = parse_map("name: wide\nspare_floes: 16\ngrid:\n" + "\n".join([". . . . . . . ."] * 5))
# A corridor: the only way west runs through row 1; (0, 2) is a bay beside it.
CORRIDOR = parse_map("name: corridor\nspare_floes: 4\ngrid:\n#  #  .  #  #\n.  .  .  .  .\n#  #  #  #  #\n")


def game(hexmap, rolls, *, ships, icebergs=(), floes=(), start=0, **cfg) -> tuple[rules.IcebergsState, ScriptedRng]:
    """A game on ``hexmap`` whose start player's first ship has just rolled ``rolls[0]``."""
    kps = cfg.get("ships_per_player", 1)
    n = 1 if cfg.get("solo") else max(2, len(ships) // kps)
    config = rules.IcebergsConfig(num_players=n, hexmap=hexmap, **cfg)
    rng = ScriptedRng(rolls)
    state = rules.new_game(
        config, rng, start_player=start, ships=ships, icebergs=list(icebergs), floes=list(floes), spare_floes=4
    )
    return state, rng


def at(hexmap, r, c, fuel=8, cargo=0, loaded=False) -> dict:
    return {"status": "at_sea", "space": hexmap.space(r, c), "fuel": fuel, "cargo": cargo, "loaded": loaded}


WAITING = {"status": "start"}


def decide(state: rules.IcebergsState) -> int:
    """The heuristic's action for the deciding seat of ``state`` (checked legal)."""
    legal = rules.legal_actions(state)
    mask = np.zeros(state.config.layout.size, dtype=np.int8)
    mask[legal] = 1
    view = PlayerView("icebergs", state.deciding_seat, state.config.num_players, state.copy(), legal)
    action = IcebergsHeuristic(0).act({"observation": np.zeros(1, np.float32), "action_mask": mask}, view)
    assert action in legal
    return action


def target(state: rules.IcebergsState, action: int) -> tuple[int, int]:
    """(row, col) a ship move of the current ship leads to."""
    m = state.config.hexmap
    return m.coords(m.neighbours[state.pos[state.current]][action])


# ------------------------------------------------------------------ machinery
def test_registry_loads_it():
    agent = heuristic_for("icebergs", seed=0)
    assert isinstance(agent, IcebergsHeuristic) and agent.name == "heuristic" and agent.needs_view


def test_distances_count_floes_at_half_price_and_ships_in_full():
    geo = geometry(OPEN)
    side = [0.0] * OPEN.num_spaces
    dist = distances(geo, side, [0.0] * OPEN.num_spaces, goal_east=False, exit_side=1.0)
    assert dist[OPEN.space(2, 0)] == 1.0 and dist[OPEN.space(2, 5)] == 6.0
    state, _ = game(
        OPEN, [3], ships=[at(OPEN, 2, 5), at(OPEN, 0, 0)], floes=[OPEN.space(2, 0)], icebergs=[OPEN.space(4, 0)]
    )
    board = Board(state, 0)
    assert board.side[OPEN.space(2, 0)] == 0.5  # a floe: 1 Move to clear saves 2
    assert board.side[OPEN.space(4, 0)] == 1.5  # an iceberg: 3 Moves to clear save 6 and a hazard
    assert board.side[OPEN.space(0, 0)] == 1.0  # another ship cannot be moved
    assert board.remaining() == pytest.approx(6.0)


def test_spare_savings_prefers_the_bigger_saving():
    assert spare_savings(0, 3, 1) == (0.0, False)
    assert spare_savings(2, 3, 1) == (2.0, False)
    assert spare_savings(3, 1, 1) == (3.0, True)  # one iceberg beats one floe
    assert spare_savings(4, 1, 1) == (4.0, False)


# ------------------------------------------------------------------ legal everywhere
@pytest.mark.parametrize(
    "opts,n",
    [
        ({}, 2),
        ({}, 4),
        ({"restart_on_sink": True, "exit_penalties": False}, 3),
        ({"fleet": True}, 2),
        ({"ships_per_player": 2}, 3),
        ({"solo": True}, 1),
        ({"map": "strait"}, 2),
        ({"entry_cost": "all_moves"}, 3),
        ({"solo": True, "solo_ice_six": "player", "entry_cost": "all_moves"}, 1),
    ],
)
def test_only_legal_actions_over_random_positions(opts, n):
    """Random and heuristic play mixed: at random decisions the heuristic is asked too
    (for whichever seat decides), and its own ship never sails back within a turn."""
    rng = np.random.default_rng(1)
    env = ice_envs.make("icebergs", num_players=n, **opts)
    heuristic = IcebergsHeuristic(0)
    randoms = RandomAgent(0)
    checked = 0
    for seed in range(2):
        env.reset(seed=seed)
        raw = env.unwrapped
        heuristic.reset(seed)
        visited: dict[int, set[int]] = {}
        for agent in env.agent_iter(1500):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = raw.possible_agents.index(agent)
            view = make_view(env, seat, rng)
            # the planner itself must not fail (act() would fall back to a safe action)
            planned = heuristic.decide(view.state.copy(), seat, set(view.legal_actions))
            assert planned is None or planned in view.legal_actions
            action = heuristic.act(obs, view)
            assert obs["action_mask"][action] == 1
            checked += 1
            st = raw.game_state
            if seat == 0 or rng.random() < 0.3:
                if st.phase == rules.PHASE_MOVE and action < 6:
                    key = st.turns
                    seen = visited.setdefault(key, {st.pos[st.current]})
                    nxt = st.config.hexmap.neighbours[st.pos[st.current]][action]
                    assert nxt not in seen, "sailed back over a space within a turn"
                    seen.add(nxt)
                env.step(action)
            else:
                env.step(randoms.act(obs))
    assert checked > 50


# ------------------------------------------------------------------ sensible choices
def test_heads_west_before_alaska():
    state, _ = game(OPEN, [4], ships=[at(OPEN, 2, 3), WAITING])
    action = decide(state)
    assert action < 6 and target(state, action)[1] < 3


def test_heads_east_after_alaska():
    state, _ = game(OPEN, [4], ships=[at(OPEN, 2, 3, cargo=8, loaded=True), WAITING])
    action = decide(state)
    assert action < 6 and target(state, action)[1] > 3


def test_enters_on_a_clear_row():
    east = [OPEN.space(r, 5) for r in range(5)]
    state, _ = game(OPEN, [2], ships=[WAITING, WAITING], floes=east[:2] + east[3:], icebergs=[east[4]])
    assert decide(state) == state.config.layout.enter + 2


def test_leaves_for_alaska_from_the_west_edge():
    state, _ = game(OPEN, [2], ships=[at(OPEN, 2, 0), WAITING])
    assert decide(state) == state.config.layout.to_alaska


def test_goes_home_from_the_east_edge():
    state, _ = game(OPEN, [3], ships=[at(OPEN, 1, 5, cargo=8, loaded=True), WAITING])
    assert decide(state) == state.config.layout.to_home


def test_clears_a_floe_out_of_the_corridor_before_sailing():
    # through the floe: 1 + 2 + 2 = 5 Moves to (1, 1); moving it into the bay first: 1 + 1 + 1 + 1 = 4
    floe_space = CORRIDOR.space(1, 2)
    state, _ = game(CORRIDOR, [4], ships=[at(CORRIDOR, 1, 4), WAITING], floes=[floe_space])
    lay = state.config.layout
    assert decide(state) == lay.floe + 7 * floe_space + N


def test_sails_around_an_iceberg_rather_than_through_it():
    # (2, 2) holds an iceberg: costly to enter and a hazard roll; the route goes round it
    state, _ = game(OPEN, [2], ships=[at(OPEN, 2, 3), WAITING], icebergs=[OPEN.space(2, 2)])
    action = decide(state)
    assert action < 6 and target(state, action) != (2, 2)


def test_small_roll_with_tight_fuel_waits_for_a_better_one():
    # 8 Moves to Alaska and 2 Fuel: a 2 is not worth a Fuel point, a 6 is
    ships = [at(WIDE, 2, 7, fuel=2), WAITING]
    state, _ = game(WIDE, [2], ships=ships)
    assert decide(state) == state.config.layout.end_turn
    state, _ = game(WIDE, [6], ships=ships)
    assert decide(state) < 6
    # with plenty of Fuel the same 2 sails
    state, _ = game(WIDE, [2], ships=[at(WIDE, 2, 7, fuel=8), WAITING])
    assert decide(state) < 6


def test_rolled_one_drifts_toward_the_goal():
    state, _ = game(OPEN, [1], ships=[at(OPEN, 2, 3), WAITING])
    lay = state.config.layout
    action = decide(state)
    assert lay.drift <= action < lay.drift + 6
    m = state.config.hexmap
    assert m.coords(m.neighbours[state.pos[0]][action - lay.drift])[1] < 3
    state, _ = game(OPEN, [1], ships=[at(OPEN, 3, 0), WAITING])
    assert decide(state) == lay.drift_alaska


def test_rolled_one_off_the_map_puts_a_floe_on_the_leader():
    # our ship waits in Newfoundland, the rival is loaded and two spaces from home
    state, _ = game(OPEN, [1], ships=[WAITING, at(OPEN, 2, 4, cargo=8, loaded=True)])
    assert decide(state) == state.config.layout.place + OPEN.space(2, 4)


def hazard_state(fuel: int, cargo: int, col: int) -> rules.IcebergsState:
    """The rival pushes an iceberg into our loaded ship's space; our hazard roll is a 5."""
    ship = OPEN.space(2, col)
    berg_from = OPEN.neighbours[ship][N]
    state, rng = game(
        OPEN,
        [3, 5],
        ships=[at(OPEN, 2, col, fuel=fuel, cargo=cargo, loaded=True), at(OPEN, 4, 5)],
        icebergs=[berg_from],
        start=1,
    )
    rules.apply(state, state.config.layout.berg + 7 * berg_from + S, rng)
    assert state.phase == rules.PHASE_HAZARD and state.deciding_seat == 0 and state.current == 1
    return state


def test_hazard_loses_fuel_when_far_from_stranded():
    state = hazard_state(fuel=8, cargo=8, col=1)
    assert decide(state) == state.config.layout.lose_fuel


def test_hazard_loses_cargo_when_fuel_is_tight():
    state = hazard_state(fuel=2, cargo=8, col=1)
    assert decide(state) == state.config.layout.lose_cargo


def test_hazard_keeps_the_last_cargo_point():
    state = hazard_state(fuel=2, cargo=1, col=1)
    assert decide(state) == state.config.layout.lose_fuel


def test_solo_hazard_never_runs_the_fuel_out():
    ship = OPEN.space(2, 2)
    for fuel, cargo, want in ((1, 8, "cargo"), (8, 8, "fuel"), (4, 6, "fuel")):
        state, rng = game(
            OPEN, [5], ships=[at(OPEN, 2, 3, fuel=fuel, cargo=cargo, loaded=True)], icebergs=[ship], solo=True
        )
        # sail into the iceberg (1 + 3 = 4 of the 5 Moves), then the hazard roll: 5
        rules.apply(state, next(d for d, t in enumerate(OPEN.neighbours[state.pos[0]]) if t == ship), rng)
        assert state.phase == rules.PHASE_HAZARD
        lay = state.config.layout
        assert decide(state) == (lay.lose_fuel if want == "fuel" else lay.lose_cargo), (fuel, cargo)


def test_spare_moves_push_an_iceberg_onto_the_leader():
    # our ship leaves for Alaska (1 Move of 5); the rival is loaded, two spaces from home,
    # with an iceberg beside it: the spare Moves push the iceberg into its space
    rival = OPEN.space(2, 4)
    berg_from = OPEN.space(2, 3)
    state, rng = game(OPEN, [5], ships=[at(OPEN, 2, 0), at(OPEN, 2, 4, cargo=8, loaded=True)], icebergs=[berg_from])
    lay = state.config.layout
    assert decide(state) == lay.to_alaska
    rules.apply(state, lay.to_alaska, rng)
    assert state.moves_left == 4
    d = next(d for d, t in enumerate(OPEN.neighbours[berg_from]) if t == rival)
    assert decide(state) == lay.berg + 7 * berg_from + d


def test_moves_the_own_plan_needs_are_not_spent_on_blocking():
    # a 3, the loaded rival ahead in the race home, an iceberg beside it: pushing the iceberg in
    # would take the whole roll, which the ship needs to sail west (such pushes lost races)
    berg = OPEN.space(1, 4)
    state, _ = game(OPEN, [3], ships=[at(OPEN, 2, 3), at(OPEN, 2, 4, cargo=8, loaded=True)], icebergs=[berg])
    action = decide(state)
    assert 0 <= action < 6  # the ship sails


def test_never_pushes_ice_onto_its_own_route():
    # spare Moves and a floe next to the rival, but the rival sits on our route home
    state, rng = game(
        OPEN,
        [6],
        ships=[at(OPEN, 2, 0, cargo=8, loaded=True), at(OPEN, 2, 2, cargo=8, loaded=True)],
        floes=[OPEN.space(1, 2)],
    )
    action = decide(state)
    lay = state.config.layout
    assert not (
        lay.floe <= action < lay.place
        and OPEN.neighbours[OPEN.space(1, 2)][(action - lay.floe) % 7] == OPEN.space(2, 2)
    )


def test_whole_roll_entry_enters_at_once_on_the_cheapest_row():
    """entry_cost="all_moves" (I2): entering takes the turn whatever is done first, so the ship enters at
    once — not after clearing ice, which would spend the roll — on a row without ice."""
    east = [OPEN.space(r, 5) for r in range(5)]
    floes = east[:2] + east[3:]
    state, rng = game(OPEN, [4, 2], ships=[WAITING, WAITING], floes=floes, entry_cost="all_moves")
    lay = state.config.layout
    assert decide(state) == lay.enter + 2
    # with an iceberg on the free row too, a floe row is better than the iceberg's hazard
    state, _ = game(OPEN, [6], ships=[WAITING, WAITING], floes=floes, icebergs=[east[2]], entry_cost="all_moves")
    action = decide(state)
    assert lay.enter <= action < lay.floe and action != lay.enter + 2


def test_expected_table_hazards_match_the_engine():
    """The heuristic's exact expectation of hazard rolls for the two lines of the ice table's 6 agrees
    with the engine's random moves (2,000 plays of each line)."""
    ship = OPEN.space(2, 2)
    bergs = [OPEN.space(1, 2), OPEN.space(4, 4), OPEN.space(2, 3)]
    state, _ = game(OPEN, [], ships=[at(OPEN, 2, 2)], icebergs=bergs, solo=True, solo_ice_six="player")
    one, two = expected_table_hazards(state)
    rng = np.random.default_rng(0)
    for line, want in ((False, one), (True, two)):
        rolls = 0
        for _ in range(2000):
            st = state.copy()
            rules._ice_table_six(st, line, rng)
            rolls += sum(1 for k, _ in st.hazards if k == 0)
        assert rolls / 2000 == pytest.approx(want, abs=0.03), line
    assert 0 < one < two  # two icebergs beside the ship: two single steps hit it more often
    assert state.pos[0] == ship


def test_ice_table_choice_takes_the_safer_line():
    """solo_ice_six="player" (I20): the line with fewer expected hazard rolls for the ship."""
    bergs = [OPEN.space(1, 2), OPEN.space(4, 4), OPEN.space(2, 3)]
    state, rng = game(OPEN, [6], ships=[at(OPEN, 2, 2)], icebergs=bergs, solo=True, solo_ice_six="player")
    rules.apply(state, state.config.layout.end_turn, rng)
    assert state.phase == rules.PHASE_ICE_CHOICE
    one, two = expected_table_hazards(state)
    lay = state.config.layout
    assert decide(state) == (lay.ice_two_bergs if two < one else lay.ice_one_berg)


# ------------------------------------------------------------------ it wins
def test_beats_random_two_players():
    # random ships never come home, so the standard game is decided on the Cargo home at max_turns
    summary, _ = ev.evaluate(
        "icebergs", 2, "heuristic,random", 20, seed=0, options={"max_turns_end": "decide"}, progress=False
    )
    first = summary["per_agent"][0]
    assert first["win_rate"] > 0.5 and first["mean_score"] >= 6


def test_brings_cargo_home_under_the_default_options():
    summary, _ = ev.evaluate("icebergs", 2, "heuristic,random", 6, seed=0, progress=False)
    assert summary["per_agent"][0]["mean_score"] >= 6


def test_beats_random_in_the_fleet_game():
    summary, _ = ev.evaluate("icebergs", 2, "heuristic,random", 6, seed=0, options={"fleet": True}, progress=False)
    assert summary["per_agent"][0]["win_rate"] > 0.5


def test_brings_cargo_home_when_entering_takes_the_whole_roll():
    summary, _ = ev.evaluate(
        "icebergs", 2, "heuristic,random", 6, seed=0, options={"entry_cost": "all_moves"}, progress=False
    )
    assert summary["per_agent"][0]["mean_score"] >= 6


def test_wins_solo_games():
    match = ev.Match("icebergs", 1, {"solo": True}, tuple(ev.parse_agent_list("heuristic", 1)), 0, 100_000)
    results = ev.run_games(match, 10, progress=False)
    assert sum(r["win"][0] for r in results) >= 8
