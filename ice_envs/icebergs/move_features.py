"""What an Icebergs player reads off each action at a glance: the move-scoring learner's game features.

A turn in Icebergs is a string of small spends (a floe moved, an iceberg moved, a step of the ship) whose
orderings run into the thousands, so here a move is one action (:func:`ends_move`): the learner scores every
legal action of a decision from what it does to the race. Icebergs has no hidden information, so every
column reads the table as any player sees it.

The prices are the heuristic's (:class:`~ice_envs.icebergs.heuristic.IcebergsHeuristic`), computed on the
compiled engine's state row (:mod:`ice_envs.icebergs.compiled_moves`): the Moves a ship still needs (its
Dijkstra price of the rest of the leg, ice on the route at the price of clearing it) and the best turn plan
with the Moves left, in turns. An action that ends in a chance draw (an iceberg's hazard roll, the next roll
of the die) is priced on one draw, the same for every action of the decision.

Columns (:data:`NAMES`):

* ``plan_gain``: how much the deciding ship's best turn plan improves over the action (turns; the plan with
  the Moves left before, minus the plan with the Moves left after: 0 where the action is the plan's own
  first step, below 0 where it wastes Moves); ``plan_gap``: how far ``plan_gain`` is below the decision's
  best action; both 0 for an action that takes the ship off the map at its goal edge;
* ``own_progress``: the Moves the action takes off the ship's voyage (the rest of this leg, plus the
  way home before loading in Alaska);
* ``rival_delay``, ``rival_delay_max``: the Moves it adds to the other seats' ships, weighted by how much
  each threatens the seat (the heuristic's ``threats``), and the most it adds to one ship;
* ``own_hazards``, ``rival_hazards``: the iceberg hazard rolls it brings on the own ship, and on the other
  seats' ships weighted by threat;
* ``moves_left``: the Moves left in this roll after it (of 6); ``left_leg``: it takes the ship off the map
  at its goal edge;
* ``end_turn``, ``ship_step``, ``enter``, ``floe``, ``iceberg``, ``place``, ``drift``, ``decline``,
  ``lose_fuel``, ``lose_cargo``, ``ice_table``: the kind of action;
* ``fuel``, ``cargo``: the ship's Fuel and Cargo after it (of 8); ``fuel_slack``: Fuel after it minus the
  moving turns the rest of the voyage needs at 3 Moves a turn (the heuristic's fuel budget), over 8;
* ``to_go``: the Moves the ship's voyage still needs before the action (of 30), ``rival_to_go``: the
  fewest of any other seat's ship, ``someone_home``: a ship is home (Cargo melts from then on).

Needs the compiled engines (numba, the ``fast`` extra).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ice_envs.core.errors import OptionError
from ice_envs.icebergs import rules
from ice_envs.icebergs.heuristic import MU_FUEL

#: The kinds of action, one column each (:func:`_kind_column`).
KINDS = (
    "end_turn",
    "ship_step",
    "enter",
    "floe",
    "iceberg",
    "place",
    "drift",
    "decline",
    "lose_fuel",
    "lose_cargo",
    "ice_table",
)
NAMES = (
    "plan_gain",
    "plan_gap",
    "own_progress",
    "rival_delay",
    "rival_delay_max",
    "own_hazards",
    "rival_hazards",
    "moves_left",
    "left_leg",
    *KINDS,
    "fuel",
    "cargo",
    "fuel_slack",
    "to_go",
    "rival_to_go",
    "someone_home",
)
_COL = {name: i for i, name in enumerate(NAMES)}
#: The chance stream every candidate action of a decision draws from (common random numbers).
STREAM = 0x1CEB_E865
#: The scale of the Moves columns.
TO_GO_SCALE = 30.0


@lru_cache(maxsize=8)
def _engine(config: rules.IcebergsConfig) -> Any:
    """A one-game compiled engine of ``config`` (its config row and ``pack_state``)."""
    from ice_envs.core.vector import compiled_available
    from ice_envs.core.vector import make as make_engine

    if not compiled_available():
        raise OptionError("icebergs move features need the compiled engines: pip install 'ice-envs[fast]' (numba)")
    return make_engine("icebergs", 1, config.num_players, seed=0, engine="compiled", **config.env_options())


def _kind_column(action: int, lay: rules.ActionLayout) -> str:
    """The ``NAMES`` column of the kind of ``action``."""
    if action == lay.end_turn:
        return "end_turn"
    if action <= lay.to_home:
        return "ship_step"
    if lay.enter <= action < lay.floe:
        return "enter"
    if lay.floe <= action < lay.berg:
        return "floe"
    if lay.berg <= action < lay.place:
        return "iceberg"
    if lay.place <= action < lay.drift:
        return "place"
    if lay.drift <= action < lay.decline:
        return "drift"
    if action == lay.decline:
        return "decline"
    if action == lay.lose_fuel:
        return "lose_fuel"
    if action == lay.lose_cargo:
        return "lose_cargo"
    return "ice_table"


def move_features(state: rules.IcebergsState, seat: int, moves: list[tuple[tuple[int, ...], Any]]) -> np.ndarray:
    """The :data:`NAMES` columns of each of ``moves`` (``(actions, state after)``; each one action) made by
    ``seat`` from ``state``."""
    from ice_envs.icebergs import compiled_moves as M

    out = np.zeros((len(moves), len(NAMES)), dtype=np.float64)
    if not moves:
        return out
    engine = _engine(state.config)
    row = engine.pack_state(state)
    actions = np.array([seq[0] for seq, _ in moves], dtype=np.int64)
    values = np.zeros((len(moves), len(M.VALUES)), dtype=np.float64)
    M.action_values(row, engine._cfg, actions, np.uint64(STREAM), values)
    left = values[:, M.V_LEFT_LEG] > 0
    gain = np.where(left, 0.0, values[:, M.V_PLAN_BEFORE] - values[:, M.V_PLAN_AFTER])
    out[:, _COL["plan_gain"]] = gain
    out[:, _COL["plan_gap"]] = np.where(left, 0.0, gain.max() - gain)
    out[:, _COL["own_progress"]] = (values[:, M.V_OWN_BEFORE] - values[:, M.V_OWN_AFTER]) / TO_GO_SCALE
    out[:, _COL["rival_delay"]] = values[:, M.V_RIVAL_DELAY] / TO_GO_SCALE
    out[:, _COL["rival_delay_max"]] = values[:, M.V_RIVAL_DELAY_MAX] / TO_GO_SCALE
    out[:, _COL["own_hazards"]] = values[:, M.V_OWN_HAZARDS]
    out[:, _COL["rival_hazards"]] = values[:, M.V_RIVAL_HAZARDS]
    out[:, _COL["moves_left"]] = values[:, M.V_MOVES_LEFT] / 6.0
    out[:, _COL["left_leg"]] = left
    lay = state.config.layout
    for i, a in enumerate(actions.tolist()):
        out[i, _COL[_kind_column(a, lay)]] = 1.0
    fuel = values[:, M.V_FUEL]
    out[:, _COL["fuel"]] = fuel / rules.FULL_FUEL
    out[:, _COL["cargo"]] = values[:, M.V_CARGO] / rules.FULL_CARGO
    out[:, _COL["fuel_slack"]] = (fuel - values[:, M.V_OWN_AFTER] / MU_FUEL) / rules.FULL_FUEL
    out[:, _COL["to_go"]] = values[:, M.V_OWN_BEFORE] / TO_GO_SCALE
    out[:, _COL["rival_to_go"]] = values[:, M.V_RIVAL_TO_GO] / TO_GO_SCALE
    out[:, _COL["someone_home"]] = state.first_home >= 0
    return out


def warm() -> None:
    """Compile the kernels (or load them from numba's disk cache): the features of a starting position."""
    config = rules.IcebergsConfig(num_players=2)
    state = rules.new_game(config, np.random.default_rng(0))
    seat = state.current // config.ships_per_player
    move_features(state, seat, [((a,), None) for a in rules.legal_actions(state)])


def ends_move(action: int, state: rules.IcebergsState) -> bool:
    """Every action is a move of its own (a turn's orderings of spends are too many to list)."""
    return True


move_features.NAMES = NAMES  # type: ignore[attr-defined]
move_features.ends_move = ends_move  # type: ignore[attr-defined]
move_features.warm = warm  # type: ignore[attr-defined]
