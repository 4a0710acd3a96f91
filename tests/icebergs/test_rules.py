"""Icebergs engine: every example of the rulebook and every rule of its rules page on hand-built positions.

Rule numbers (R3.5, I12, ...) refer to ``docs/rules/icebergs.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.core.testing import ScriptedRng
from ice_envs.icebergs import rules
from ice_envs.icebergs.hexmap import parse_map

N, NE, SE, S, SW, NW = range(6)
OFF = rules.OFF_MAP_DIR

# An open 5 x 6 sea without ice: pieces are placed by each test.
OPEN = parse_map("name: open\nspare_floes: 16\ngrid:\n" + "\n".join([". . . . . ."] * 5))


def sp(r: int, c: int) -> int:
    return OPEN.space(r, c)


def game(rolls, *, ships, icebergs=(), floes=(), n=None, spare=16, **cfg) -> tuple[rules.IcebergsState, ScriptedRng]:
    """A game on the open map whose first ship (player_0's) has just rolled ``rolls[0]``."""
    kps = cfg.get("ships_per_player", 1)
    n = n or max(1, len(ships) // kps)
    config = rules.IcebergsConfig(num_players=n, hexmap=OPEN, **cfg)
    rng = ScriptedRng(rolls)
    st = rules.new_game(
        config, rng, start_player=0, ships=ships, icebergs=list(icebergs), floes=list(floes), spare_floes=spare
    )
    return st, rng


def at(r, c, fuel=8, cargo=0, loaded=False):
    return {"status": "at_sea", "space": sp(r, c), "fuel": fuel, "cargo": cargo, "loaded": loaded}


WAITING = {"status": "start"}
LAY = rules.layout_for(OPEN.num_spaces, OPEN.rows)


def floe(s, d):
    return LAY.floe + 7 * s + d


def berg(s, d):
    return LAY.berg + 7 * s + d


# ------------------------------------------------------------------ moving ice
def test_roll_three_moves_three_floes_one_space_each():
    """R3.1, R2.5, R2.7 (I26): the rulebook's roll-of-3 example, three floes one space each; no Fuel used."""
    st, rng = game([3, 2], ships=[at(0, 0), at(4, 5)], floes=[sp(2, 2), sp(2, 4), sp(3, 3)])
    assert st.phase == rules.PHASE_MOVE and st.moves_left == 3
    rules.apply(st, floe(sp(2, 2), N), rng)
    rules.apply(st, floe(sp(2, 4), S), rng)
    assert st.moves_left == 1
    rules.apply(st, floe(sp(3, 3), N), rng)
    # all three Moves spent: the turn ended by itself, no fuel used, next player rolled 2
    assert st.floes[sp(1, 2)] == 1 and st.floes[sp(3, 4)] == 1 and st.floes[sp(2, 3)] == 1
    assert st.fuel[0] == 8 and st.current == 1 and st.moves_left == 2


def test_roll_three_moves_one_floe_three_spaces():
    """R3.1, R3.3 (I4): the same example, one floe three spaces (the last one off the map)."""
    st, rng = game([3, 2], ships=[at(0, 0), at(4, 5)], floes=[sp(2, 2)])
    for r in (1, 0):
        rules.apply(st, floe(sp(r + 1, 2), N), rng)
        assert st.floes[sp(r, 2)] == 1
    rules.apply(st, floe(sp(0, 2), OFF), rng)  # the third space: off the map
    assert sum(st.floes) == 0 and st.spare_floes == 17 and st.current == 1


def test_an_iceberg_needs_three_moves_left():
    """R3.2 (I5): an iceberg moves only with 3 Moves left."""
    st, _ = game([2], ships=[at(0, 0), at(4, 5)], icebergs=[sp(2, 2)], floes=[sp(3, 3)])
    assert not any(LAY.berg <= a < LAY.place for a in rules.legal_actions(st))
    st, rng = game([4, 2], ships=[at(0, 0), at(4, 5)], icebergs=[sp(2, 2)], floes=[sp(3, 3), sp(3, 3)])
    assert berg(sp(2, 2), N) in rules.legal_actions(st)
    rules.apply(st, floe(sp(3, 3), S), rng)
    assert st.moves_left == 3 and berg(sp(2, 2), N) in rules.legal_actions(st)
    rules.apply(st, floe(sp(3, 3), S), rng)
    assert st.moves_left == 2 and berg(sp(2, 2), N) not in rules.legal_actions(st)


def test_ice_never_enters_an_island_and_leaves_only_from_the_border():
    """R1.2, R3.1, R3.3 (I3, I4): never onto an island; off the map only from the border."""
    m = parse_map("grid:\n. . .\n. # .\n. . .")
    cfg = rules.IcebergsConfig(num_players=2, hexmap=m)
    st = rules.new_game(cfg, ScriptedRng([6]), start_player=0, floes=[m.space(0, 1)], icebergs=[], spare_floes=0)
    lay = cfg.layout
    legal = rules.legal_actions(st)
    island = m.space(1, 1)
    s = m.space(0, 1)
    for d in range(6):
        t = m.neighbours[s][d]
        assert (lay.floe + 7 * s + d in legal) == (t >= 0 and t != island)
    assert lay.floe + 7 * s + OFF in legal  # (0, 1) is on the north border


def test_moving_ice_off_the_map_and_reusing_floes():
    """R3.3 (I4), R3.9.1: ice off the map; a floe taken off is placed again on a one."""
    st, rng = game([4, 1, 3], ships=[at(2, 2), at(4, 4)], icebergs=[sp(0, 3)], floes=[sp(4, 0)], spare=0)
    rules.apply(st, berg(sp(0, 3), OFF), rng)  # 3 Moves
    assert st.bergs == [-1] and st.berg_count[sp(0, 3)] == 0 and st.moves_left == 1
    rules.apply(st, floe(sp(4, 0), OFF), rng)  # 1 Move; the floe becomes a spare
    assert st.spare_floes == 1 and sum(st.floes) == 0
    # player_1 rolls a one and places the reused floe on player_0's ship
    assert st.current == 1 and st.phase == rules.PHASE_ONE
    rules.apply(st, LAY.place + sp(2, 2), rng)
    assert st.floes[sp(2, 2)] == 1 and st.spare_floes == 0
    assert st.phase == rules.PHASE_MOVE and st.moves_left == 3  # rolled again


# ------------------------------------------------------------------ moving ships
def test_ship_costs_one_plus_penalties_and_one_fuel_per_turn():
    """R3.5, R2.5 (house rule I7): one Fuel per moving turn, not per space."""
    st, rng = game([6, 2], ships=[at(2, 2), at(4, 5)])
    assert rules.move_cost(st, 0, sp(1, 2)) == 1
    rules.apply(st, N, rng)
    rules.apply(st, N, rng)
    assert st.pos[0] == sp(0, 2) and st.moves_left == 4 and st.fuel[0] == 7  # fuel once per turn
    rules.apply(st, SE, rng)
    assert st.fuel[0] == 7 and st.moves_left == 3


def test_penalties_of_left_and_entered_spaces_add_up():
    """R3.5, R3.5.1 (I6, house rule I27): penalties of the space left and entered add up."""
    ships = [at(2, 2), at(2, 3), at(4, 5)]
    st, _ = game([6], ships=ships, icebergs=[sp(1, 2)], floes=[sp(2, 2), sp(1, 3), sp(1, 3)], n=3)
    # leaving (2,2): 1 floe = 1; entering (1,2): iceberg 3 -> 1 + 1 + 3 = 5
    assert rules.move_cost(st, 0, sp(1, 2)) == 5
    # entering (1,3) (NE of an even column): 2 floes -> 1 + 1 + 2 = 4
    assert rules.move_cost(st, 0, sp(1, 3)) == 4
    # entering (2,3) (SE): another ship -> 1 + 1 + 1 = 3
    assert rules.move_cost(st, 0, sp(2, 3)) == 3
    legal = rules.legal_actions(st)
    assert {N, NE, SE} <= set(legal)
    st.moves_left = 4
    assert N not in rules.legal_actions(st) and NE in rules.legal_actions(st)


def test_penalty_example_one_five_floes_cost_six_or_move_the_floes_first():
    """R3.5.1 (I27): the rulebook's first penalty example."""
    # "You move your Ship into a Space containing 3 Ice Floes. ... the other players move 2 more"
    st, rng = game([5, 2], ships=[at(2, 2), at(4, 5)], floes=[sp(2, 2)] * 3 + [sp(1, 1)] * 2)
    assert st.floes[sp(2, 2)] == 3
    # player_0 (rolled 5) moves the two floes into its own space: 5 floes now
    rules.apply(st, floe(sp(1, 1), SE), rng)
    assert st.moves_left == 4
    st.floes[sp(2, 2)] += 1
    st.floes[sp(1, 1)] -= 1
    assert st.floes[sp(2, 2)] == 5
    assert rules.move_cost(st, 0, sp(3, 2)) == 6  # 1 for the space plus 5 for the floes
    st.moves_left = 5
    assert not any(a < 6 for a in rules.legal_actions(st))
    st.moves_left = 6
    assert S in rules.legal_actions(st)
    # or move the five floes out first (5 Moves), then the ship for 1
    for _ in range(5):
        rules.apply(st, floe(sp(2, 2), N), rng)
    assert st.floes[sp(2, 2)] == 0 and rules.move_cost(st, 0, sp(3, 2)) == 1
    rules.apply(st, S, rng)
    assert st.pos[0] == sp(3, 2) and st.fuel[0] == 7


def test_penalty_example_two_iceberg_and_three_floes_cost_seven():
    """R3.5.1 (I27): the second penalty example; only drifting (R3.9.2) frees the ship."""
    # "A Space contains 1 Iceberg and 3 Ice Floes. The total cost in Moves to enter this Space would be 7"
    st, rng = game([6, 1, 4], ships=[at(2, 1), at(4, 5)], icebergs=[sp(2, 2)], floes=[sp(2, 2)] * 3)
    assert rules.move_cost(st, 0, sp(2, 2)) == 7
    assert NE not in rules.legal_actions(st)  # (2,1) is an odd column: NE is (2,2)
    # a ship inside such a space can leave only by drifting
    st, rng = game([6, 1, 2, 4], ships=[at(2, 2), at(4, 5)], icebergs=[sp(2, 2)], floes=[sp(2, 2)] * 3)
    assert rules.penalty(st, sp(2, 2), 0) == 6
    assert not any(a < 6 for a in rules.legal_actions(st))
    rules.apply(st, LAY.end_turn, rng)  # player_1 rolls 1, declines, rolls 2, ends
    assert st.phase == rules.PHASE_ONE and st.current == 1
    rules.apply(st, LAY.decline, rng)
    assert st.moves_left == 2
    rules.apply(st, LAY.end_turn, rng)
    # player_0 rolled 4: still stuck (7 > 4)
    assert st.current == 0 and not any(a < 6 for a in rules.legal_actions(st))


def test_a_ship_penalty_counts_every_other_ship():
    """R3.5.1 (I6): every other ship counts."""
    st, _ = game([6], ships=[at(2, 2), at(1, 2), at(1, 2), at(2, 2)], n=4)
    # leaving: one other ship (1); entering: two ships (2)
    assert rules.move_cost(st, 0, sp(1, 2)) == 4


def test_entering_from_newfoundland_costs_one_plus_penalties_and_fuel():
    """R3.4 (house rule I2), R2.5: entering costs 1 + the penalties, and Fuel."""
    st, rng = game([3, 2], ships=[WAITING, WAITING], floes=[sp(0, 5), sp(0, 5)], icebergs=[sp(1, 5)])
    legal = rules.legal_actions(st)
    assert LAY.enter + 0 in legal  # 1 + 2 floes = 3
    assert LAY.enter + 1 not in legal  # 1 + 3 = 4 > 3
    assert LAY.enter + 2 in legal
    rules.apply(st, LAY.enter + 2, rng)
    assert st.status[0] == rules.AT_SEA and st.pos[0] == sp(2, 5) and st.fuel[0] == 7 and st.moves_left == 2


def test_combining_moves_example_one():
    """R2.4, R2.5: the rulebook's first example of combined moves."""
    # roll 6: an iceberg 1 space (3), a floe 1 space (1), the ship 2 spaces (2); fuel -1; turn over
    st, rng = game([6, 3], ships=[at(2, 2), at(4, 5)], icebergs=[sp(0, 0)], floes=[sp(4, 0)])
    rules.apply(st, berg(sp(0, 0), S), rng)
    rules.apply(st, floe(sp(4, 0), N), rng)
    assert st.moves_left == 2 and st.fuel[0] == 8
    rules.apply(st, N, rng)
    rules.apply(st, N, rng)
    assert st.pos[0] == sp(0, 2) and st.fuel[0] == 7
    assert st.current == 1 and st.moves_left == 3  # the turn is over


def test_combining_moves_example_two_no_fuel_without_ship_move():
    """R2.5: the second example of combined moves: no ship move, no Fuel."""
    st, rng = game([4, 3], ships=[at(2, 2), at(4, 5)], icebergs=[sp(0, 0)], floes=[sp(4, 0)])
    rules.apply(st, berg(sp(0, 0), S), rng)
    rules.apply(st, floe(sp(4, 0), N), rng)
    assert st.fuel[0] == 8 and st.current == 1


# ------------------------------------------------------------------ rolling a one
def test_rolling_a_one_drift_ignores_penalties_uses_no_fuel_then_rolls_again():
    """R3.9 (house rule I11): drift or place a floe, then roll again, without limit."""
    st, rng = game([1, 1, 3], ships=[at(2, 2), at(4, 5)], icebergs=[sp(1, 2)], floes=[sp(2, 2)] * 4)
    assert st.phase == rules.PHASE_ONE
    legal = rules.legal_actions(st)
    assert LAY.drift + N in legal and LAY.decline in legal and LAY.place + sp(3, 3) in legal
    # a drift into an iceberg space still needs a hazard roll: 2, no harm
    rng._values[:0] = []
    rules.apply(st, LAY.drift + S, rng)  # drift S into an empty space
    assert st.pos[0] == sp(3, 2) and st.fuel[0] == 8
    # rolled a second one: no limit
    assert st.phase == rules.PHASE_ONE
    rules.apply(st, LAY.place + sp(4, 5), rng)
    assert st.floes[sp(4, 5)] == 1 and st.spare_floes == 15
    assert st.phase == rules.PHASE_MOVE and st.moves_left == 3 and st.current == 0


def test_no_fuel_only_drifting():
    """R2.6: without Fuel the ship cannot move, but its player may move ice."""
    st, rng = game([6, 1, 4], ships=[at(2, 2, fuel=0), at(4, 5)], floes=[sp(0, 0)])
    legal = rules.legal_actions(st)
    assert not any(a < 9 for a in legal if a != LAY.end_turn)  # no ship move, no exit
    assert floe(sp(0, 0), S) in legal  # ice may still be moved
    rules.apply(st, LAY.end_turn, rng)
    assert st.current == 1 and st.phase == rules.PHASE_ONE


def test_no_fuel_ship_drifts_on_a_one():
    """R2.6, R3.9.2, R2.7 (I26): a ship without Fuel drifts on a one."""
    st, rng = game([1, 2, 3], ships=[at(2, 2, fuel=0), at(4, 5)])
    assert LAY.drift + N in rules.legal_actions(st)
    rules.apply(st, LAY.drift + N, rng)
    assert st.pos[0] == sp(1, 2) and st.fuel[0] == 0
    # rolled 2 but no fuel: nothing the ship can do; no ice either: the turn ends by itself
    assert st.current == 1 and st.moves_left == 3


def test_waiting_ship_cannot_drift_onto_the_map():
    """R3.9.2 (I11): a ship off the map cannot drift onto it."""
    st, _ = game([1], ships=[WAITING, WAITING])
    legal = rules.legal_actions(st)
    assert not any(LAY.drift <= a < LAY.decline for a in legal) and LAY.decline in legal


# ------------------------------------------------------------------ iceberg hazards
def test_hazard_example_one_roll_only_for_the_new_iceberg():
    """R3.10.1 (house rule I12): the rulebook's first hazard example."""
    # player_0's ship is in a space with iceberg 0; player_1 moves iceberg 1 in: one roll only
    ships = [at(2, 2, fuel=5), at(4, 5)]
    st, rng = game([3, 6, 3, 1, 4, 2, 5], ships=ships, icebergs=[sp(2, 2), sp(1, 2), sp(0, 2)])
    assert st.faced[0] == 0b001
    rules.apply(st, LAY.end_turn, rng)  # player_1 rolled 6
    assert st.current == 1 and st.moves_left == 6
    rules.apply(st, berg(sp(1, 2), S), rng)  # hazard roll 3: nothing
    assert rng.remaining == [1, 4, 2, 5] and st.faced[0] == 0b011 and st.fuel[0] == 5
    rules.apply(st, LAY.end_turn, rng)
    # player_0 rolls a one and drifts N into a space with another iceberg (iceberg 2 is put there)
    assert st.current == 0 and st.phase == rules.PHASE_ONE
    st.bergs[2] = sp(1, 2)
    st.berg_count[sp(0, 2)] -= 1
    st.berg_count[sp(1, 2)] += 1
    rules.apply(st, LAY.drift + N, rng)  # roll 4 for iceberg 2 only
    assert st.faced[0] == 0b100 and st.fuel[0] == 5
    # the new roll is a 2: stuck between two icebergs' penalties, the turn ends; player_1 rolls 5
    assert rng.remaining == [] and st.current == 1 and st.moves_left == 5


def test_hazard_example_two_both_ships_roll_owner_chooses_off_turn():
    """R3.10.2 (I13, I24): the second hazard example; the owner chooses off-turn."""
    ships = [at(0, 0), at(2, 2, fuel=6, cargo=5, loaded=True), at(2, 2, fuel=6, cargo=5, loaded=True)]
    st, rng = game([6, 3, 5, 1], ships=ships, icebergs=[sp(1, 2)], n=3)
    rules.apply(st, berg(sp(1, 2), S), rng)
    # player_1 rolled 3: nothing; player_2 rolled 5: player_2 decides, off-turn
    assert st.phase == rules.PHASE_HAZARD and st.deciding_seat == 2 and st.current == 0
    assert rules.legal_actions(st) == [LAY.lose_fuel, LAY.lose_cargo]
    assert st.fuel[1] == 6 and st.cargo[1] == 5
    rules.apply(st, LAY.lose_cargo, rng)  # then rolls 1: nothing
    assert st.cargo[2] == 4 and st.status[2] == rules.AT_SEA
    assert st.phase == rules.PHASE_MOVE and st.deciding_seat == 0 and st.moves_left == 3


@pytest.mark.parametrize("restart", [False, True])
def test_second_roll_of_six_sinks_the_ship(restart):
    """R3.10.2, R3.11, R7.3 (I14): a second 6 sinks; the restart option."""
    ships = [at(0, 0), at(2, 2, fuel=6, cargo=5, loaded=True)]
    st, rng = game([6, 6, 6], ships=ships, icebergs=[sp(1, 2)], restart_on_sink=restart)
    rules.apply(st, berg(sp(1, 2), S), rng)
    assert st.phase == rules.PHASE_HAZARD
    rules.apply(st, LAY.lose_fuel, rng)
    if restart:  # "start again from the last map edge you entered with a full load"
        assert st.status[1] == rules.ALASKA_READY and st.fuel[1] == 8 and st.cargo[1] == 8 and st.pos[1] == -1
        assert not st.over
    else:
        assert st.status[1] == rules.SUNK and st.pos[1] == -1
        # player_0 is the last ship at sea; it goes on
        assert not st.over and st.current == 0


def test_forced_loss_when_only_fuel_is_left():
    """R3.10.2 (I13): without Cargo the Fuel is lost without a choice."""
    # before Alaska a ship has no Cargo: a 5-6 costs Fuel without a choice
    st, rng = game([6, 5, 2, 2], ships=[at(2, 2, fuel=4), at(4, 5)], icebergs=[sp(1, 2)])
    rules.apply(st, N, rng)  # enters the iceberg space: 1 + 3 = 4 Moves, fuel 3; hazard 5 -> fuel 2; 2: afloat
    assert st.fuel[0] == 2 and st.status[0] == rules.AT_SEA and st.phase == rules.PHASE_MOVE
    assert st.moves_left == 2


def test_no_roll_while_staying_or_leaving():
    """R3.10.1 (I12): no roll for staying in or leaving an iceberg's space."""
    st, rng = game([6, 3, 6], ships=[at(1, 2), at(4, 5)], icebergs=[sp(1, 2)], floes=[sp(4, 0)])
    assert st.faced[0] == 1
    rules.apply(st, floe(sp(4, 0), N), rng)  # staying: no roll
    rules.apply(st, S, rng)  # leaving the iceberg space: 1 + 3 = 4, no roll
    assert st.pos[0] == sp(2, 2) and rng.remaining == [3, 6] and st.faced[0] == 0


def test_own_iceberg_moved_onto_own_ship_rolls_too():
    """R3.10.1 (I12): the mover's own iceberg onto its own ship."""
    st, rng = game([3, 2, 4], ships=[at(2, 2), at(4, 5)], icebergs=[sp(1, 2)])
    rules.apply(st, berg(sp(1, 2), S), rng)  # hazard roll 2: no harm; the turn is over
    assert rng.remaining == [] and st.faced[0] == 1 and st.current == 1 and st.moves_left == 4


# ------------------------------------------------------------------ Alaska and home
def test_alaska_trip_load_and_reenter_from_the_west():
    """R3.6, R3.7, R3.4 (I8, I10): to Alaska, a loading turn, re-entry from the west."""
    ships = [at(2, 0, fuel=1), at(4, 5)]
    st, rng = game([2, 2, 3, 2], ships=ships, floes=[sp(4, 4)])
    assert LAY.to_alaska in rules.legal_actions(st)
    rules.apply(st, LAY.to_alaska, rng)  # 1 Move; fuel 0
    assert st.status[0] == rules.ALASKA_LOADING and st.fuel[0] == 0 and st.moves_left == 1
    rules.apply(st, floe(sp(4, 4), N), rng)  # the Move left may go to ice
    # player_1 rolled 2
    assert st.current == 1
    rules.apply(st, LAY.end_turn, rng)
    # player_0's whole turn is spent loading (no decision); player_1 rolls 3
    assert st.status[0] == rules.ALASKA_READY and st.fuel[0] == 8 and st.cargo[0] == 8 and st.loaded[0]
    assert st.current == 1 and st.moves_left == 3
    rules.apply(st, LAY.end_turn, rng)
    # player_0 rolled 2 and enters from the west edge
    legal = rules.legal_actions(st)
    assert LAY.enter + 3 in legal
    rules.apply(st, LAY.enter + 3, rng)
    assert st.pos[0] == sp(3, 0) and st.fuel[0] == 7


def test_no_home_before_alaska_and_no_second_trip():
    """R3.6 (I8): home only after loading, Alaska only before."""
    st, _ = game([6], ships=[at(2, 5), at(2, 0, loaded=True, cargo=8)])
    assert LAY.to_home not in rules.legal_actions(st)
    st, _ = game([6], ships=[at(2, 0, loaded=True, cargo=8), at(2, 5)])
    assert LAY.to_alaska not in rules.legal_actions(st)


def test_exit_penalties_option():
    """R3.6, R7.4 (I9): leaving pays the penalties of the space left, or a flat 1 Move."""
    ships = [at(2, 0), at(4, 5)]
    st, _ = game([2], ships=ships, floes=[sp(2, 0)] * 2)
    assert rules.exit_cost(st, 0) == 3 and LAY.to_alaska not in rules.legal_actions(st)
    st, _ = game([2], ships=ships, floes=[sp(2, 0)] * 2, exit_penalties=False)
    assert rules.exit_cost(st, 0) == 1 and LAY.to_alaska in rules.legal_actions(st)


def test_home_cargo_loss_win_and_ties():
    """R4.2 (I15): Cargo lost at sea and on arrival once a ship is home with Cargo."""
    ships = [at(2, 5, cargo=5, loaded=True), at(2, 4, cargo=6, loaded=True), at(3, 5, cargo=6, loaded=True)]
    st, rng = game([2, 2, 2, 2], ships=ships, n=3)
    rules.apply(st, LAY.to_home, rng)  # player_0 home with 5: first home with cargo
    assert st.status[0] == rules.HOME and st.first_home == 0 and st.cargo[0] == 5
    # player_1 rolled 2: moves SE? (2,4) even col: SE is (2,5); 1 Move, then ends: loses 1 cargo
    rules.apply(st, SE, rng)
    rules.apply(st, LAY.end_turn, rng)
    assert st.cargo[1] == 5
    # player_2 rolled 2: goes home this turn and loses 1 on arrival (6 -> 5)
    rules.apply(st, LAY.to_home, rng)
    assert st.status[2] == rules.HOME and st.cargo[2] == 5
    assert not st.over


def test_tie_goes_to_the_first_home_and_game_ends_when_no_ship_at_sea():
    """R5.1, R6.2 (I16): a tie goes to the first ship home."""
    ships = [{"status": "home", "cargo": 5}, at(2, 5, cargo=6, loaded=True)]
    st, rng = game([2], ships=ships, n=2)
    assert st.current == 1
    rules.apply(st, LAY.to_home, rng)  # arrives: 6 - 1 = 5, tie with player_0 who was first
    assert st.over and rules.winner(st) == 0
    assert list(rules.outcome(st)) == [1.0, -1.0] and list(rules.scores(st)) == [5.0, 5.0]


def test_a_ship_home_without_cargo_cannot_win():
    """R4.3, R6.3 (I16): no Cargo, no win; nobody with Cargo: everyone -1."""
    ships = [{"status": "home", "cargo": 0}, {"status": "sunk"}, at(2, 5, cargo=1, loaded=True)]
    st, rng = game([2], ships=ships, n=3)
    rules.apply(st, LAY.to_home, rng)
    assert st.over and rules.winner(st) == 2
    ships = [{"status": "home", "cargo": 0}, {"status": "sunk"}, at(2, 5, cargo=0, loaded=True)]
    st, rng = game([2], ships=ships, n=3)
    rules.apply(st, LAY.to_home, rng)
    assert st.over and rules.winner(st) == -1 and list(rules.outcome(st)) == [-1.0, -1.0, -1.0]


# ------------------------------------------------------------------ fleet game
def test_fleet_order_interleaves_the_ships():
    """R7.1.1 (I17): the rulebook's fleet order example."""
    assert rules.turn_order(2, 3, 0) == [0, 3, 1, 4, 2, 5]
    assert rules.turn_order(3, 2, 1) == [2, 4, 0, 3, 5, 1]
    cfg = rules.IcebergsConfig(num_players=2, ships_per_player=3, hexmap=OPEN)
    rng = ScriptedRng([2, 3, 4, 5, 2, 3, 4, 5])
    st = rules.new_game(cfg, rng, start_player=0)
    seen = []
    for _ in range(7):
        seen.append((st.current, st.deciding_seat))
        rules.apply(st, cfg.layout.end_turn, rng)
    assert seen == [(0, 0), (3, 1), (1, 0), (4, 1), (2, 0), (5, 1), (0, 0)]


def test_fleet_ends_when_the_first_fleet_is_home_and_totals_decide():
    """R5.2, R7.1.2, R6.1 (I18): the first fleet home ends the game; totals decide."""
    home = {"status": "home", "cargo": 3}
    ships = [home, at(2, 5, cargo=4, loaded=True), WAITING, {"status": "home", "cargo": 8}, WAITING, WAITING]
    st, rng = game([2, 2], ships=ships, n=2, ships_per_player=3, start_player=None) if False else (None, None)
    cfg = rules.IcebergsConfig(num_players=2, ships_per_player=3, hexmap=OPEN)
    ships[2] = {"status": "sunk"}
    rng = ScriptedRng([2])
    st = rules.new_game(cfg, rng, start_player=0, ships=ships)
    # player_0's ship 1 moves first (ship 0 is home); player_1 has 8 home but its fleet is out
    assert st.current == 1
    rules.apply(st, cfg.layout.to_home, rng)
    # player_0's fleet is all home or sunk: the game ends; totals 3 + (4 - 1) = 6 < 8
    assert st.over and st.cargo[1] == 3 and rules.winner(st) == 1
    # with fleet_end="all_ships" the game goes on
    cfg2 = rules.IcebergsConfig(num_players=2, ships_per_player=3, hexmap=OPEN, fleet_end="all_ships")
    rng = ScriptedRng([2, 2])
    st = rules.new_game(cfg2, rng, start_player=0, ships=ships)
    rules.apply(st, cfg2.layout.to_home, rng)
    assert not st.over and st.current == 4


# ------------------------------------------------------------------ solo game
def test_solo_five_moves_no_fuel_drift_costs_one_and_ice_moves_after_the_turn():
    """R7.2.2-R7.2.5 (I19, I20): five Moves, no Fuel, drift 1 Fuel once, the ice table."""
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=OPEN)
    # ice movement roll 1: move 1 floe (the only one, index 0) in sea direction index 0 (N)
    rng = ScriptedRng([1, 0, 0])
    st = rules.new_game(cfg, rng, start_player=0, ships=[at(2, 2)], floes=[sp(3, 3)], icebergs=[])
    assert st.moves_left == 5 and st.phase == rules.PHASE_MOVE
    legal = rules.legal_actions(st)
    assert not any(LAY.floe <= a < LAY.place for a in legal)  # never moves ice
    rules.apply(st, N, rng)
    assert st.fuel[0] == 8 and st.moves_left == 4  # moving costs no fuel
    assert LAY.drift + N in rules.legal_actions(st)
    rules.apply(st, LAY.drift + N, rng)  # drift: 1 fuel, once a turn
    assert st.fuel[0] == 7 and st.pos[0] == sp(0, 2)
    assert not any(LAY.drift <= a < LAY.decline for a in rules.legal_actions(st))
    rules.apply(st, LAY.end_turn, rng)
    # the Ice Movement Table moved the floe from (3,3) one space north
    assert st.floes[sp(2, 3)] == 1 and st.floes[sp(3, 3)] == 0
    assert st.moves_left == 5 and not st.drifted


@pytest.mark.parametrize("cargo,result", [(6, 1.0), (5, 0.0), (4, -1.0)])
def test_solo_win_with_six_cargo_lose_under_five(cargo, result):
    """R7.2.6 (I21): 6+ wins, 5 draws, under 5 loses."""
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=OPEN)
    rng = ScriptedRng([])
    st = rules.new_game(cfg, rng, start_player=0, ships=[at(2, 5, cargo=cargo, loaded=True)], icebergs=[], floes=[])
    rules.apply(st, LAY.to_home, rng)
    assert st.over and st.result == [result]


def test_solo_lost_when_out_of_fuel():
    """R7.2.6 (I21): running out of Fuel loses at once."""
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=OPEN)
    st = rules.new_game(cfg, ScriptedRng([]), start_player=0, ships=[at(2, 2, fuel=1)], icebergs=[], floes=[])
    rules.apply(st, LAY.drift + N, ScriptedRng([]))
    assert st.over and st.result == [-1.0]


def test_solo_ice_table_six_moves_one_iceberg_two_spaces_with_hazards():
    """R7.2.5 (I20, I25): a 6, one iceberg two spaces, into the ship's space."""
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=OPEN)
    # end of turn: table roll 6, coin 0 (one iceberg two spaces), iceberg pick 0,
    # direction index 1 of (0,2)'s sea directions [SE, S, SW] = S -> (1,2),
    # direction index 3 of (1,2)'s [N, NE, SE, S, SW, NW] = S -> (2,2): the ship rolls 3
    rng = ScriptedRng([6, 0, 0, 1, 3, 3])
    st = rules.new_game(cfg, rng, start_player=0, ships=[at(2, 2)], icebergs=[sp(0, 2)], floes=[])
    rules.apply(st, LAY.end_turn, rng)
    assert st.bergs[0] == sp(2, 2) and st.faced[0] == 1
    assert rng.remaining == [] and st.status[0] == rules.AT_SEA and st.moves_left == 5


def test_solo_ice_table_six_or_two_icebergs_one_space_each():
    """R7.2.5 (I20): a 6, the alternative of two icebergs one space each."""
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=OPEN)
    # coin 1: two icebergs one space each: picks 1 then 0; each one direction (index 0 = N from row 2)
    rng = ScriptedRng([6, 1, 1, 0, 0, 0])
    st = rules.new_game(cfg, rng, start_player=0, ships=[at(4, 5)], icebergs=[sp(2, 0), sp(2, 4)], floes=[])
    rules.apply(st, LAY.end_turn, rng)
    assert st.bergs == [sp(1, 0), sp(1, 4)] and rng.remaining == []


@pytest.mark.parametrize("roll,floes,bergs", [(1, 1, 0), (2, 2, 0), (3, 3, 0), (4, 1, 1), (5, 2, 1)])
def test_solo_ice_table_counts(roll, floes, bergs):
    """R7.2.5: the lines 1-5 of the ice movement table."""
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=OPEN)
    rng = np.random.default_rng(roll)
    start_floes = [sp(2, 1), sp(2, 3), sp(2, 5), sp(3, 3)]
    start_bergs = [sp(1, 1), sp(3, 1)]
    st = rules.new_game(cfg, rng, start_player=0, ships=[at(0, 5)], icebergs=start_bergs, floes=start_floes)
    before_f, before_b = list(st.floes), list(st.bergs)

    class Table:  # the table roll is scripted, the rest is random
        def __init__(self):
            self.first = True

        def integers(self, low, high):
            if self.first:
                self.first = False
                return roll
            return int(rng.integers(low, high))

    rules.apply(st, LAY.end_turn, Table())
    moved_f = sum(abs(a - b) for a, b in zip(before_f, st.floes)) // 2
    moved_b = sum(a != b for a, b in zip(before_b, st.bergs))
    assert moved_f == floes and moved_b == bergs


# ------------------------------------------------------------------ max_turns
def test_max_turns_truncates_or_decides():
    """R5.4, R7.5 (I22): truncated, or decided on the Cargo home."""
    cfg = rules.IcebergsConfig(num_players=2, hexmap=OPEN, max_turns=2)
    rng = ScriptedRng([2, 2, 2, 2])
    st = rules.new_game(cfg, rng, start_player=0)
    for _ in range(4):
        rules.apply(st, cfg.layout.end_turn, rng)
    assert st.over and st.truncated and list(rules.outcome(st)) == [0.0, 0.0]
    cfg = rules.IcebergsConfig(num_players=2, hexmap=OPEN, max_turns=1, max_turns_end="decide")
    rng = ScriptedRng([2, 2])
    st = rules.new_game(
        cfg, rng, start_player=0, ships=[{"status": "home", "cargo": 2}, at(2, 2, cargo=8, loaded=True)]
    )
    rules.apply(st, cfg.layout.end_turn, rng)
    assert st.over and not st.truncated and rules.winner(st) == 0


def test_random_play_keeps_invariants():
    """R1.3, R1.4: floes are conserved; Fuel and Cargo stay within 0-8."""
    cfg = rules.IcebergsConfig(num_players=3, max_turns=30)
    rng = np.random.default_rng(5)
    total_floes = len(cfg.hexmap.floe_starts) + cfg.hexmap.spare_floes
    for _ in range(3):
        st = rules.new_game(cfg, rng)
        while not st.over:
            legal = rules.legal_actions(st)
            assert legal and legal == sorted(set(legal))
            rules.apply(st, legal[rng.integers(len(legal))], rng)
            assert sum(st.floes) + st.spare_floes == total_floes
            assert all(st.berg_count[s] == st.bergs.count(s) for s in range(cfg.hexmap.num_spaces))
            assert all(0 <= f <= 8 and 0 <= c <= 8 for f, c in zip(st.fuel, st.cargo))
            assert st.moves_left >= 0


# ------------------------------------------------------------------ entering with the whole roll
EAST = [sp(r, 5) for r in range(5)]


def test_default_entry_a_six_enters_and_sails_on():
    """R3.4 (house rule I2, entry_cost="step"): a 6 enters for 1 Move and sails on with the other 5."""
    st, rng = game([6, 2], ships=[WAITING, WAITING])
    rules.apply(st, LAY.enter + 2, rng)
    assert st.pos[0] == sp(2, 5) and st.moves_left == 5 and st.current == 0
    rules.apply(st, SW, rng)
    assert st.pos[0] == OPEN.neighbours[sp(2, 5)][SW] and st.moves_left == 4 and st.fuel[0] == 7


def test_entry_all_moves_a_six_enters_and_stops():
    """R3.4 (I2, entry_cost="all_moves"): "using all of the Moves": a 6 enters and the ship stops there."""
    st, rng = game([6, 2], ships=[WAITING, WAITING], entry_cost="all_moves")
    assert rules.enter_cost(st, 0, sp(2, 5)) == 6
    rules.apply(st, LAY.enter + 2, rng)
    # all six Moves spent: the turn ended by itself; player_1 rolled 2; one Fuel paid
    assert st.pos[0] == sp(2, 5) and st.fuel[0] == 7 and st.current == 1 and st.moves_left == 2


def test_icebergs_on_every_entry_space_block_a_three_only_by_default():
    """R3.4, R3.5.1 (I2): a 3 cannot pay 1 + 3 for an iceberg space; the whole roll enters anyway (and rolls)."""
    st, _ = game([3], ships=[WAITING, WAITING], icebergs=EAST)
    assert not any(LAY.enter <= a < LAY.floe for a in rules.legal_actions(st))
    # the whole roll: every east-edge space, iceberg or not; entering one makes a hazard roll (a 2: no harm)
    st, rng = game([3, 2, 4], ships=[WAITING, WAITING], icebergs=EAST, entry_cost="all_moves")
    assert [a for a in rules.legal_actions(st) if LAY.enter <= a < LAY.floe] == [LAY.enter + r for r in range(5)]
    rules.apply(st, LAY.enter + 1, rng)
    assert st.pos[0] == sp(1, 5) and st.faced[0] == 1 << 1 and rng.remaining == []
    assert st.current == 1 and st.moves_left == 4


def test_entry_all_moves_needs_the_whole_roll_unspent():
    """R3.4 (I2, "all_moves"): once a Move of the roll went to ice, the ship cannot enter this turn."""
    st, rng = game([4, 2], ships=[WAITING, WAITING], floes=[sp(2, 2)], entry_cost="all_moves")
    assert LAY.enter in rules.legal_actions(st)
    rules.apply(st, floe(sp(2, 2), N), rng)
    assert st.moves_left == 3 and not any(LAY.enter <= a < LAY.floe for a in rules.legal_actions(st))


def test_entry_all_moves_after_a_one_uses_the_new_roll():
    """R3.4, R3.9 (I2, I11): after a one the new roll is the turn's Moves; entering takes all of it."""
    st, rng = game([1, 5, 2], ships=[WAITING, WAITING], entry_cost="all_moves")
    rules.apply(st, LAY.decline, rng)
    assert st.moves_left == 5 and LAY.enter + 4 in rules.legal_actions(st)
    rules.apply(st, LAY.enter + 4, rng)
    assert st.pos[0] == sp(4, 5) and st.current == 1


def test_entry_all_moves_reentering_from_alaska_the_same_way():
    """R3.7, R3.4 ("reenters the map from the West map edge the same way"): the whole roll again."""
    alaska = {"status": "alaska_ready", "fuel": 8, "cargo": 8}
    st, rng = game([5, 2], ships=[alaska, WAITING], floes=[sp(3, 0)] * 3, entry_cost="all_moves")
    rules.apply(st, LAY.enter + 3, rng)  # 3 floes there: the step price would be 4, the whole roll is 5
    assert st.pos[0] == sp(3, 0) and st.status[0] == rules.AT_SEA and st.fuel[0] == 7 and st.current == 1


def test_entry_all_moves_solo_takes_the_five_moves():
    """R7.2.2, R3.4: in the solo game entering takes the five Moves (no Fuel); a drift is still possible."""
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=OPEN, entry_cost="all_moves")
    st = rules.new_game(cfg, ScriptedRng([]), start_player=0, ships=[WAITING], icebergs=[], floes=[])
    rules.apply(st, LAY.enter + 2, ScriptedRng([]))
    assert st.moves_left == 0 and st.fuel[0] == 8
    assert rules.legal_actions(st) == [LAY.end_turn] + [LAY.drift + d for d in (N, S, SW, NW)]


# ------------------------------------------------------------------ the fleet and the box
def test_fleet_ships_are_capped_at_the_boxs_six():
    """R1.1, R7.1 (I29): fleet=True gives 3 ships each to 2 players, 2 each to 3; 3 x 3 only beyond the box."""
    assert rules.fleet_ships(2) == 3 and rules.fleet_ships(3) == 2 and rules.fleet_ships(3, extra_ships=True) == 3
    with pytest.raises(ValueError, match="the box holds 6.*extra_ships=True"):
        rules.IcebergsConfig(num_players=3, ships_per_player=3, hexmap=OPEN)
    assert rules.IcebergsConfig(num_players=3, ships_per_player=3, hexmap=OPEN, extra_ships=True).num_ships == 9
    assert rules.IcebergsConfig(num_players=3, ships_per_player=2, hexmap=OPEN).num_ships == 6


# ------------------------------------------------------------------ the solo ice table's 6 as a decision
SOLO_LAY = rules.layout_for(OPEN.num_spaces, OPEN.rows, True)


def solo_game(rolls, *, ships, icebergs, player=True, hexmap=OPEN):
    cfg = rules.IcebergsConfig(num_players=1, solo=True, hexmap=hexmap, solo_ice_six="player" if player else "random")
    rng = ScriptedRng(rolls)
    return rules.new_game(cfg, rng, start_player=0, ships=ships, icebergs=icebergs, floes=[]), rng


def test_solo_ice_six_player_picks_one_iceberg_two_spaces():
    """R7.2.5 (I20, solo_ice_six="player"): the player picks the 6's line; no coin is drawn."""
    st, rng = solo_game([6], ships=[at(2, 2)], icebergs=[sp(0, 2)])
    assert SOLO_LAY.size == LAY.size + 2 and st.config.layout == SOLO_LAY
    rules.apply(st, LAY.end_turn, rng)
    assert st.phase == rules.PHASE_ICE_CHOICE and rng.remaining == [] and st.bergs == [sp(0, 2)]
    assert rules.legal_actions(st) == [SOLO_LAY.ice_one_berg, SOLO_LAY.ice_two_bergs] and st.deciding_seat == 0
    # as in the coin's example: pick 0, S to (1,2), S to (2,2) onto the ship: its hazard roll is a 3
    rng.feed([0, 1, 3, 3])
    rules.apply(st, SOLO_LAY.ice_one_berg, rng)
    assert st.bergs[0] == sp(2, 2) and st.faced[0] == 1 and rng.remaining == []
    assert st.phase == rules.PHASE_MOVE and st.moves_left == 5


def test_solo_ice_six_player_picks_two_icebergs_one_space_each():
    """R7.2.5 (I20): the other line of the 6, the player's pick."""
    st, rng = solo_game([6], ships=[at(4, 5)], icebergs=[sp(2, 0), sp(2, 4)])
    rules.apply(st, LAY.end_turn, rng)
    rng.feed([1, 0, 0, 0])
    rules.apply(st, SOLO_LAY.ice_two_bergs, rng)
    assert st.bergs == [sp(1, 0), sp(1, 4)] and rng.remaining == [] and st.phase == rules.PHASE_MOVE


def test_solo_ice_six_player_choice_after_the_loading_turn():
    """R3.7, R7.2.5 (I20): the table is rolled after the loading turn too; the choice waits for the player."""
    st, rng = solo_game([6], ships=[{"status": "alaska_loading"}], icebergs=[sp(2, 2)])
    assert st.phase == rules.PHASE_ICE_CHOICE and st.status[0] == rules.ALASKA_READY and st.cargo[0] == 8
    turns = st.turns
    rng.feed([0, 0, 0])
    rules.apply(st, SOLO_LAY.ice_two_bergs, rng)
    assert st.phase == rules.PHASE_MOVE and st.turns == turns + 1 and LAY.enter + 2 in rules.legal_actions(st)


def test_solo_ice_six_without_icebergs_asks_nothing():
    """R7.2.5 (I20): with no iceberg on the map both lines move nothing: no decision."""
    st, rng = solo_game([6], ships=[at(2, 2)], icebergs=[])
    rules.apply(st, LAY.end_turn, rng)
    assert st.phase == rules.PHASE_MOVE and rng.remaining == [] and st.moves_left == 5


def test_solo_ice_choice_state_is_checked():
    """R7.7: the choice phase is a possible position only with the option, between turns, with an iceberg."""
    one_berg = parse_map("name: one berg\nspare_floes: 16\ngrid:\n. . B . . .\n" + "\n".join([". . . . . ."] * 4))
    st, rng = solo_game([6], ships=[at(2, 2)], icebergs=[sp(0, 2)], hexmap=one_berg)
    rules.apply(st, LAY.end_turn, rng)
    rules.check_state(st, st.config)
    bad = st.copy()
    bad.hazards = [[0, 0]]
    with pytest.raises(ValueError, match="ice table"):
        rules.check_state(bad, bad.config)
    plain, _ = solo_game([], ships=[at(2, 2)], icebergs=[sp(0, 2)], player=False, hexmap=one_berg)
    plain.phase = rules.PHASE_ICE_CHOICE
    with pytest.raises(ValueError, match="phase"):
        rules.check_state(plain, plain.config)
    with pytest.raises(ValueError, match="solo game"):
        rules.IcebergsConfig(num_players=2, solo_ice_six="player")
