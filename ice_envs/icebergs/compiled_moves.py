"""What each legal action of an Icebergs decision does to the race, on the compiled state row.

The numbers behind the move-scoring learner's game features (:mod:`ice_envs.icebergs.move_features`): for
every candidate action, the action is applied to a copy of the row (:func:`ice_envs.icebergs.compiled.apply`,
every candidate drawing the same chance stream: common random numbers), and the heuristic's board and turn
plans (:mod:`ice_envs.icebergs.compiled_plans`) price the position before and after it: the best turn plan
of the deciding ship with the Moves it has left, the Moves every ship still needs to finish its leg, the
hazard rolls the action brings on each ship. All of them are sums and products of whole and half Moves or the
planner's IEEE arithmetic (no fast-math), so they are the same numbers on any CPU.
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.compiled import njit
from ice_envs.icebergs import compiled as C
from ice_envs.icebergs.compiled_plans import MU, board_of, plan_turn, remaining, threats

__all__ = ["VALUES", "action_values"]

#: The columns :func:`action_values` writes, in order.
VALUES = (
    "plan_before",  # best plan of the deciding ship with its Moves left, before the action (turns; lower is better)
    "plan_after",  # the same after the action (0 Moves where the action ends the ship's Moves)
    "own_to_go_before",  # Moves the deciding ship still needs on its leg, before
    "own_to_go_after",  # and after
    "rival_delay",  # Moves the action adds to the other seats' ships' legs, weighted by how much each threatens
    "rival_delay_max",  # the most Moves it adds to one other ship
    "own_hazards",  # hazard rolls the action brings on the deciding ship (icebergs met)
    "rival_hazards",  # hazard rolls it brings on the other seats' ships, weighted by threat
    "moves_left_after",  # Moves the deciding ship has left after the action in this roll
    "left_leg",  # the action takes the ship off the map at its goal edge (to Alaska or home)
    "fuel_after",  # the deciding ship's Fuel and Cargo after the action
    "cargo_after",
    "rival_to_go",  # the fewest Moves any other seat's ship still needs, before the action (0 without one)
)
(
    V_PLAN_BEFORE,
    V_PLAN_AFTER,
    V_OWN_BEFORE,
    V_OWN_AFTER,
    V_RIVAL_DELAY,
    V_RIVAL_DELAY_MAX,
    V_OWN_HAZARDS,
    V_RIVAL_HAZARDS,
    V_MOVES_LEFT,
    V_LEFT_LEG,
    V_FUEL,
    V_CARGO,
    V_RIVAL_TO_GO,
) = range(len(VALUES))
#: Moves charged for a ship that cannot finish (sunk, or walled in): a long way, not infinity.
FAR = 60.0


@njit
def to_go(s: np.ndarray, cfg: np.ndarray, ship: int) -> float:
    """Moves ``ship`` still needs to finish its voyage on the board as it is: the heuristic's price of the
    rest of this leg, plus a ship's width of the map and one entry for the way home when it has not loaded
    in Alaska yet (0 at home, :data:`FAR` when sunk or walled in)."""
    st = s[C.STATUS + ship]
    if st == C.HOME:
        return 0.0
    if st == C.SUNK:
        return FAR
    board = board_of(s, cfg, ship)
    left = remaining(cfg, board)
    if not board.goal_east:
        left += cfg[C.C_COLS] + 1.0
    return min(left, FAR)


@njit
def plan_value(s: np.ndarray, cfg: np.ndarray, ship: int) -> float:
    """The best turn plan of ``ship`` (turns to finish the leg, the heuristic's ``TurnPlanner``) with the Moves
    it has left when it is the ship moving now, else with none; ``to_go / MU`` where no plan exists."""
    st = s[C.STATUS + ship]
    if st != C.START and st != C.AT_SEA and st != C.ALASKA_LOADING and st != C.ALASKA_READY:
        return to_go(s, cfg, ship) / MU
    budget = 0
    if s[C.PHASE] == C.PHASE_MOVE and s[C.CURRENT] == ship and not s[C.OVER]:
        budget = s[C.MOVES_LEFT]
    plans = plan_turn(s, cfg, board_of(s, cfg, ship), budget)
    if plans.has[budget]:
        return plans.value[budget]
    return to_go(s, cfg, ship) / MU


@njit
def _new_hazards(before: np.ndarray, after: np.ndarray, cfg: np.ndarray, ship: int) -> float:
    """Icebergs on ``ship``'s space after the action that were not there with it before (each one a roll)."""
    p = after[C.POS + ship]
    if p < 0 or after[C.STATUS + ship] != C.AT_SEA:
        return 0.0
    bergs = cfg[C.S_BERG_COUNT]
    now = after[bergs + p]
    had = before[bergs + p] if before[C.POS + ship] == p else 0
    return float(max(now - had, 0))


@njit
def action_values(s: np.ndarray, cfg: np.ndarray, actions: np.ndarray, stream: np.uint64, out: np.ndarray) -> None:
    """Write the :data:`VALUES` of each of ``actions`` (legal in row ``s``) into the rows of ``out``.

    Each action is applied to a copy of ``s`` with a generator started at ``stream`` (the same for every
    action). ``s`` is not changed."""
    ship = C.deciding_ship(s, cfg)
    per = cfg[C.C_KPS]
    seat = ship // per
    ships = cfg[C.C_SHIPS]
    weight = threats(s, cfg, seat)
    before_plan = plan_value(s, cfg, ship)
    before_to_go = np.empty(ships, dtype=np.float64)
    rival_to_go = np.inf
    for k in range(ships):
        before_to_go[k] = to_go(s, cfg, k)
        if k // per != seat:
            rival_to_go = min(rival_to_go, before_to_go[k])
    if rival_to_go == np.inf:
        rival_to_go = 0.0
    row = np.empty_like(s)
    rng = np.zeros(2, dtype=np.uint64)
    goal_before = s[C.STATUS + ship]
    turns = C.get_turns(s)
    for i in range(actions.shape[0]):
        row[:] = s
        rng[0] = stream
        rng[1] = 0
        C.apply(row, actions[i], rng, cfg)
        o = out[i]
        o[V_PLAN_BEFORE] = before_plan
        o[V_PLAN_AFTER] = plan_value(row, cfg, ship)
        o[V_OWN_BEFORE] = before_to_go[ship]
        o[V_OWN_AFTER] = to_go(row, cfg, ship)
        delay = 0.0
        delay_max = 0.0
        rival_hazards = 0.0
        for k in range(ships):
            if k // per == seat:
                continue
            d = to_go(row, cfg, k) - before_to_go[k]
            delay += weight[k] * d
            delay_max = max(delay_max, d)
            rival_hazards += weight[k] * _new_hazards(s, row, cfg, k)
        o[V_RIVAL_DELAY] = delay
        o[V_RIVAL_DELAY_MAX] = delay_max
        o[V_OWN_HAZARDS] = _new_hazards(s, row, cfg, ship)
        o[V_RIVAL_HAZARDS] = rival_hazards
        same_roll = (
            row[C.PHASE] == C.PHASE_MOVE
            and row[C.CURRENT] == s[C.CURRENT]
            and C.get_turns(row) == turns
            and row[C.DIE] == s[C.DIE]
            and not row[C.OVER]
        )
        o[V_MOVES_LEFT] = row[C.MOVES_LEFT] if same_roll else 0.0
        st = row[C.STATUS + ship]
        o[V_LEFT_LEG] = 1.0 if st != goal_before and (st == C.ALASKA_LOADING or st == C.HOME) else 0.0
        o[V_FUEL] = row[C.FUEL + ship]
        o[V_CARGO] = row[C.CARGO + ship]
        o[V_RIVAL_TO_GO] = rival_to_go
