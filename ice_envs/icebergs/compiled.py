"""Icebergs as a compiled batched engine: ``rules.py``'s transitions as numba functions on one state row.

Every configuration the scalar env takes is supported: 1-6 players, the fleet games (2 or 3 ships a
player, ``extra_ships``), the solo game (``solo_ice_six`` random or the player's choice),
``restart_on_sink``, ``max_turns`` with either end, ``exit_penalties``, ``fleet_end``, ``entry_cost``
and any map (packaged, a file or ``map_text``). The map and everything derived from it (terrain,
neighbours, starting ice) and every option are written into the ``int64`` config row when the engine is
built, so one compiled machine code serves every configuration.

The state of one game is one ``int16`` row: a fixed head (the scalar fields, ``RESULT`` per seat, then
the ship arrays of :data:`MAX_SHIPS` entries each) and the map-sized arrays at offsets of the config
row: ``floes`` and ``berg_count`` per space, ``bergs`` per iceberg, ``faced`` (ship x iceberg, 0/1:
``rules``' bitmask spelled out, so that a map may have any number of icebergs) and the pending
``hazards`` as a queue of (ship, iceberg) pairs. ``turns`` takes two entries (15 bits each). Each
function mirrors the function of ``rules.py`` named in its docstring and draws its dice with
:func:`~ice_envs.core.compiled.draw` in the same order (the deal's start player included), so the
parity tests replay every draw, the deal's too, into the scalar env. The observation is the env's
(``env.py``: ``_encode``), written from the offsets in the config row with the same float32
arithmetic (the ice planes as float32 products, the ship planes as float32 sums of 1/3).

A game stopped by ``max_turns`` with ``max_turns_end="truncate"`` is over and :func:`undecided`
(a truncation with no outcome, as the env's ``_undecided_stop``).

One deal the batched API cannot show as the scalar env does: a game over before its first decision.
That happens only in the solo game on a map where the ship can afford no entry space of the east
edge and the ice table does not clear one before ``max_turns``; the scalar env starts such a game
finished, this engine leaves it with no legal action.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.core.compiled import CompiledEngine, GameKernels, draw, njit
from ice_envs.icebergs import rules
from ice_envs.icebergs.env import MAX_SEATS, SHIP_FEATURES
from ice_envs.icebergs.hexmap import NUM_DIRECTIONS, OFF_GRID, SEA

MAX_KPS = rules.MAX_SHIPS_PER_PLAYER
#: Ship slots of the state row's ship arrays (the 3 x 3 fleet has the most ships).
MAX_SHIPS = 9
FULL_FUEL, FULL_CARGO = rules.FULL_FUEL, rules.FULL_CARGO
START, AT_SEA, ALASKA_LOADING, ALASKA_READY, HOME, SUNK = (
    rules.START,
    rules.AT_SEA,
    rules.ALASKA_LOADING,
    rules.ALASKA_READY,
    rules.HOME,
    rules.SUNK,
)
PHASE_MOVE, PHASE_ONE, PHASE_HAZARD, PHASE_OVER, PHASE_ICE_CHOICE = (
    rules.PHASE_MOVE,
    rules.PHASE_ONE,
    rules.PHASE_HAZARD,
    rules.PHASE_OVER,
    rules.PHASE_ICE_CHOICE,
)
R_MOVE, R_ONE, R_REROLL, R_END_TURN, R_NEXT_TURN = (
    rules._R_MOVE,
    rules._R_ONE,
    rules._R_REROLL,
    rules._R_END_TURN,
    rules._R_NEXT_TURN,
)
OFF_MAP = rules.OFF_MAP_DIR
TO_ALASKA, TO_HOME, END_TURN, ENTER = 6, 7, 8, 9

# ---------------------------------------------------------------- state row: the fixed head
(
    SPARE,
    ORDER_POS,
    ROUND,
    CURRENT,
    PHASE,
    RESUME,
    DIE,
    MOVES_LEFT,
    FUEL_PAID,
    DRIFTED,
    TURN_OVER,
    HOME_COUNT,
    FIRST_HOME,
    TURNS_LOW,
    TURNS_HIGH,
    OVER,
    TRUNCATED,
    NUM_HAZARDS,
) = range(18)
RESULT = 18
STATUS = RESULT + MAX_SEATS
POS = STATUS + MAX_SHIPS
FUEL = POS + MAX_SHIPS
CARGO = FUEL + MAX_SHIPS
LOADED = CARGO + MAX_SHIPS
HOME_RANK = LOADED + MAX_SHIPS
ORDER = HOME_RANK + MAX_SHIPS
HEAD = ORDER + MAX_SHIPS

# ---------------------------------------------------------------- config row
(
    C_PLAYERS,
    C_KPS,
    C_SHIPS,
    C_SOLO,
    C_RESTART,
    C_MAX_TURNS,
    C_DECIDE_AT_MAX,
    C_EXIT_PENALTIES,
    C_FIRST_FLEET,
    C_ALL_MOVES,
    C_ICE_CHOICE,
    C_ROWS,
    C_COLS,
    C_SPACES,
    C_BERGS,
    C_TOTAL_FLOES,
    C_SPARE_FLOES,
    C_HAZARD_CAP,
    # action layout
    A_FLOE,
    A_BERG,
    A_PLACE,
    A_DRIFT,
    A_DECLINE,
    A_LOSE_FUEL,
    A_LOSE_CARGO,
    A_ICE_ONE,
    A_ICE_TWO,
    # state row: the map-sized arrays
    S_FLOES,
    S_BERG_COUNT,
    S_BERGS,
    S_FACED,
    S_HAZARDS,
    # tables in this row
    T_TERRAIN,
    T_SEA_DIRS,
    T_NEIGHBOURS,
    T_FLOE_STARTS,
    T_BERG_STARTS,
    T_TEMPLATE,
) = range(38)
#: Observation pieces whose offsets follow the fixed part of the config row, in this order.
OBS_PIECES = (
    "sea",
    "island",
    "west_edge",
    "east_edge",
    "floes",
    "icebergs",
    "ships",
    "turn_ship",
    "ship_slots",
    "moves_left",
    "die",
    "phase",
    "fuel_paid",
    "drifted",
    "spare_floes",
    "home_with_cargo",
    "round",
    "solo",
    "fleet",
    "turn_order",
    "next_ship",
    "start_seat",
    "ice_choice",
)
(
    O_SEA,
    O_ISLAND,
    O_WEST,
    O_EAST,
    O_FLOES,
    O_BERGS,
    O_SHIPS,
    O_TURN_SHIP,
    O_SLOTS,
    O_MOVES,
    O_DIE,
    O_PHASE,
    O_FUEL_PAID,
    O_DRIFTED,
    O_SPARE,
    O_HOME,
    O_ROUND,
    O_SOLO,
    O_FLEET,
    O_TURN_ORDER,
    O_NEXT_SHIP,
    O_START_SEAT,
    O_ICE_CHOICE,
) = range(38, 38 + len(OBS_PIECES))
#: The config row's table of the template's dense start: ``[P, R, words...]``, the template's first ``P`` entries as
#: float32 packed two to a word in this machine's order (read through a float32 view: one contiguous copy for the
#: terrain planes), and ``R``: where the template's list of ones goes past ``P``.
T_IMAGE = 38 + len(OBS_PIECES)
CONFIG_HEAD = T_IMAGE + 1

THIRD = np.float32(1.0 / 3.0)
QUARTER = np.float32(0.25)


# ---------------------------------------------------------------- small helpers
@njit
def _nbr(cfg: np.ndarray, space: int, d: int) -> int:
    """The space next to ``space`` in direction ``d`` (``OFF_GRID`` off the grid)."""
    return cfg[cfg[T_NEIGHBOURS] + NUM_DIRECTIONS * space + d]


@njit
def _sea_dirs(cfg: np.ndarray, space: int) -> int:
    """Bit ``d`` (0-5): the neighbour in direction ``d`` is a sea space; bit 6: ``space`` is on the border
    (an ice piece may leave the map from it)."""
    return cfg[cfg[T_SEA_DIRS] + space]


@njit
def get_turns(s: np.ndarray) -> int:
    """``turns`` (two entries of 15 bits)."""
    return int(s[TURNS_LOW]) | (int(s[TURNS_HIGH]) << 15)


@njit
def _add_turn(s: np.ndarray) -> None:
    turns = get_turns(s) + 1
    s[TURNS_LOW] = turns & 0x7FFF
    s[TURNS_HIGH] = turns >> 15


@njit
def _roll(rng: np.ndarray) -> int:
    return draw(rng, 1, 7)


@njit
def _ships_at(s: np.ndarray, cfg: np.ndarray, space: int) -> int:
    count = 0
    for k in range(cfg[C_SHIPS]):
        if s[POS + k] == space:
            count += 1
    return count


@njit
def _penalty(s: np.ndarray, cfg: np.ndarray, space: int, exclude: int) -> int:
    """``rules.penalty``: 1 per floe, 3 per iceberg, 1 per ship (but ``exclude``)."""
    pen = s[cfg[S_FLOES] + space] + 3 * s[cfg[S_BERG_COUNT] + space]
    for k in range(cfg[C_SHIPS]):
        if s[POS + k] == space and k != exclude:
            pen += 1
    return pen


@njit
def _roll_moves(s: np.ndarray, cfg: np.ndarray) -> int:
    """``rules.roll_moves``."""
    return rules.SOLO_MOVES if cfg[C_SOLO] else s[DIE]


@njit
def _push_hazard(s: np.ndarray, cfg: np.ndarray, k: int, i: int) -> None:
    at = cfg[S_HAZARDS] + 2 * s[NUM_HAZARDS]
    s[at] = k
    s[at + 1] = i
    s[NUM_HAZARDS] += 1


@njit
def _pop_hazard(s: np.ndarray, cfg: np.ndarray) -> None:
    """Drop the head of the hazard queue."""
    base = cfg[S_HAZARDS]
    n = s[NUM_HAZARDS]
    for j in range(2, 2 * n):
        s[base + j - 2] = s[base + j]
    s[NUM_HAZARDS] = n - 1


@njit
def _clear_faced(s: np.ndarray, cfg: np.ndarray, k: int) -> None:
    base = cfg[S_FACED] + k * cfg[C_BERGS]
    for i in range(cfg[C_BERGS]):
        s[base + i] = 0


# ---------------------------------------------------------------- the deal
@njit
def new_game(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.new_game`` from the map's starting pieces: the start player drawn, its first ship rolls."""
    players, kps, ships = cfg[C_PLAYERS], cfg[C_KPS], cfg[C_SHIPS]
    s[:] = 0
    start = draw(rng, 0, players)
    spaces, bergs = cfg[C_SPACES], cfg[C_BERGS]
    for sp in range(spaces):
        s[cfg[S_FLOES] + sp] = cfg[cfg[T_FLOE_STARTS] + sp]
    for i in range(bergs):
        b = cfg[cfg[T_BERG_STARTS] + i]
        s[cfg[S_BERGS] + i] = b
        s[cfg[S_BERG_COUNT] + b] += 1
    s[SPARE] = cfg[C_SPARE_FLOES]
    for k in range(ships):
        s[STATUS + k] = START
        s[POS + k] = -1
        s[FUEL + k] = FULL_FUEL
        s[HOME_RANK + k] = -1
    at = 0
    for j in range(kps):
        for i in range(players):
            s[ORDER + at] = ((start + i) % players) * kps + j
            at += 1
    s[ORDER_POS] = -1
    s[PHASE] = PHASE_MOVE
    s[RESUME] = R_NEXT_TURN
    s[FIRST_HOME] = -1
    _advance(s, rng, cfg)


# ---------------------------------------------------------------- legal actions
@njit
def _drift_actions(s: np.ndarray, cfg: np.ndarray, k: int, mask: np.ndarray, probe: bool) -> bool:
    """``rules._drift_actions`` (with ``probe``: only whether there is one)."""
    p = s[POS + k]
    found = False
    sea = _sea_dirs(cfg, p)
    for d in range(NUM_DIRECTIONS):
        if sea >> d & 1:
            if probe:
                return True
            mask[cfg[A_DRIFT] + d] = 1
            found = True
    cols = cfg[C_COLS]
    col = p % cols
    if col == 0 and not s[LOADED + k]:
        if probe:
            return True
        mask[cfg[A_DRIFT] + 6] = 1
        found = True
    if col == cols - 1 and s[LOADED + k]:
        if probe:
            return True
        mask[cfg[A_DRIFT] + 7] = 1
        found = True
    return found


@njit
def _move_actions(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, probe: bool) -> bool:
    """``rules._move_actions`` into ``mask``, or with ``probe`` whether there is an action besides ending
    the turn (``rules._can_do_more_than_end``; ``mask`` is then not written)."""
    k = s[CURRENT]
    ml = s[MOVES_LEFT]
    st = s[STATUS + k]
    solo = cfg[C_SOLO]
    floes, berg_count = cfg[S_FLOES], cfg[S_BERG_COUNT]
    found = False
    if not probe:
        mask[END_TURN] = 1
    if st == AT_SEA:
        p = s[POS + k]
        if ml >= 1 and (solo or s[FUEL_PAID] or s[FUEL + k] > 0):
            pen_p = s[floes + p] + 3 * s[berg_count + p] + _ships_at(s, cfg, p) - 1
            budget = ml - 1 - pen_p
            if budget >= 0:
                sea = _sea_dirs(cfg, p)
                for d in range(NUM_DIRECTIONS):
                    if sea >> d & 1:
                        t = _nbr(cfg, p, d)
                        pen_t = s[floes + t] + 3 * s[berg_count + t] + _ships_at(s, cfg, t)
                        if pen_t <= budget:
                            if probe:
                                return True
                            mask[d] = 1
                            found = True
            exit_moves = 1 + pen_p if cfg[C_EXIT_PENALTIES] else 1
            if exit_moves <= ml:
                cols = cfg[C_COLS]
                col = p % cols
                if col == 0 and not s[LOADED + k]:
                    if probe:
                        return True
                    mask[TO_ALASKA] = 1
                    found = True
                if col == cols - 1 and s[LOADED + k]:
                    if probe:
                        return True
                    mask[TO_HOME] = 1
                    found = True
        if solo and not s[DRIFTED] and s[FUEL + k] > 0:
            if _drift_actions(s, cfg, k, mask, probe):
                if probe:
                    return True
                found = True
    elif (st == START or st == ALASKA_READY) and ml >= 1 and (solo or s[FUEL_PAID] or s[FUEL + k] > 0):
        cols = cfg[C_COLS]
        col = cols - 1 if st == START else 0
        all_moves = cfg[C_ALL_MOVES]
        if not all_moves or ml == _roll_moves(s, cfg):
            for r in range(cfg[C_ROWS]):
                t = r * cols + col
                if cfg[cfg[T_TERRAIN] + t] != SEA:
                    continue
                if all_moves or 1 + s[floes + t] + 3 * s[berg_count + t] + _ships_at(s, cfg, t) <= ml:
                    if probe:
                        return True
                    mask[ENTER + r] = 1
                    found = True
    if not solo and ml >= 1:
        # the seven directions of a piece at once: each entry written, no branch per direction
        ice_dirs = cfg[T_SEA_DIRS]
        at = cfg[A_FLOE]
        for sp in range(cfg[C_SPACES]):
            if s[floes + sp] > 0:
                dirs = cfg[ice_dirs + sp]
                if dirs:
                    if probe:
                        return True
                    found = True
                    for d in range(NUM_DIRECTIONS + 1):
                        mask[at + d] = dirs >> d & 1
            at += NUM_DIRECTIONS + 1
        if ml >= 3:  # the icebergs from their list (two in one space write the same entries)
            bergs = cfg[S_BERGS]
            for i in range(cfg[C_BERGS]):
                sp = s[bergs + i]
                if sp >= 0:
                    dirs = cfg[ice_dirs + sp]
                    if dirs:
                        if probe:
                            return True
                        found = True
                        at = cfg[A_BERG] + 7 * sp
                        for d in range(NUM_DIRECTIONS + 1):
                            mask[at + d] = dirs >> d & 1
    return found


@njit
def legal(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray) -> None:
    """``rules.legal_actions`` as a mask."""
    mask[:] = 0
    if s[OVER]:
        return
    phase = s[PHASE]
    if phase == PHASE_HAZARD:
        mask[cfg[A_LOSE_FUEL]] = 1
        mask[cfg[A_LOSE_CARGO]] = 1
    elif phase == PHASE_ICE_CHOICE:
        mask[cfg[A_ICE_ONE]] = 1
        mask[cfg[A_ICE_TWO]] = 1
    elif phase == PHASE_ONE:  # rules._one_actions
        if s[SPARE] > 0:
            place = cfg[A_PLACE]
            for sp in range(cfg[C_SPACES]):
                if cfg[cfg[T_TERRAIN] + sp] == SEA:
                    mask[place + sp] = 1
        k = s[CURRENT]
        if s[STATUS + k] == AT_SEA:
            _drift_actions(s, cfg, k, mask, False)
        mask[cfg[A_DECLINE]] = 1
    else:
        _move_actions(s, cfg, mask, False)


# ---------------------------------------------------------------- moving pieces
@njit
def _pay_ship_move(s: np.ndarray, cfg: np.ndarray, k: int, cost: int) -> None:
    """``rules._pay_ship_move``: one Fuel per turn with a (non-drift) ship move."""
    s[MOVES_LEFT] -= cost
    if not s[FUEL_PAID]:
        s[FUEL_PAID] = 1
        if not cfg[C_SOLO]:
            s[FUEL + k] -= 1


@njit
def _ship_to(s: np.ndarray, cfg: np.ndarray, k: int, target: int) -> None:
    """``rules._ship_to``: a hazard roll queued per iceberg in ``target``."""
    s[POS + k] = target
    _clear_faced(s, cfg, k)
    if s[cfg[S_BERG_COUNT] + target]:
        bergs = cfg[S_BERGS]
        for i in range(cfg[C_BERGS]):
            if s[bergs + i] == target:
                _push_hazard(s, cfg, k, i)


@njit
def _leave_map(s: np.ndarray, cfg: np.ndarray, k: int, to_alaska: bool) -> None:
    """``rules._leave_map`` and ``rules._arrive_home``."""
    s[POS + k] = -1
    _clear_faced(s, cfg, k)
    if to_alaska:
        s[STATUS + k] = ALASKA_LOADING
        return
    s[STATUS + k] = HOME
    if s[FIRST_HOME] >= 0 and s[CARGO + k] > 0:
        s[CARGO + k] -= 1
    elif s[FIRST_HOME] < 0 and s[CARGO + k] > 0:
        s[FIRST_HOME] = k
    s[HOME_RANK + k] = s[HOME_COUNT]
    s[HOME_COUNT] += 1
    _check_end(s, cfg)


@njit
def _move_floe(s: np.ndarray, cfg: np.ndarray, sp: int, d: int) -> None:
    """``rules._move_floe``."""
    floes = cfg[S_FLOES]
    s[floes + sp] -= 1
    if d == OFF_MAP:
        s[SPARE] += 1
    else:
        s[floes + _nbr(cfg, sp, d)] += 1


@njit
def _move_berg(s: np.ndarray, cfg: np.ndarray, i: int, d: int) -> None:
    """``rules._move_berg``: ships in the new space must roll for it, in turn order from the current ship."""
    ships = cfg[C_SHIPS]
    at = cfg[S_BERGS] + i
    sp = s[at]
    s[cfg[S_BERG_COUNT] + sp] -= 1
    faced = cfg[S_FACED] + i
    for k in range(ships):
        if s[POS + k] == sp:
            s[faced + k * cfg[C_BERGS]] = 0
    if d == OFF_MAP:
        s[at] = -1
        return
    t = _nbr(cfg, sp, d)
    s[at] = t
    s[cfg[S_BERG_COUNT] + t] += 1
    start = 0
    for j in range(ships):
        if s[ORDER + j] == s[CURRENT]:
            start = j
            break
    for j in range(ships):
        k = s[ORDER + (start + j) % ships]
        if s[POS + k] == t:
            _push_hazard(s, cfg, k, i)


@njit
def _drift(s: np.ndarray, cfg: np.ndarray, k: int, code: int) -> None:
    """``rules._drift``: a solo drift (its turn goes on) or a drift after a one (roll again)."""
    solo_turn = s[PHASE] == PHASE_MOVE
    if solo_turn:
        s[DRIFTED] = 1
        s[FUEL + k] -= 1
    if code < 6:
        _ship_to(s, cfg, k, _nbr(cfg, s[POS + k], code))
    else:
        _leave_map(s, cfg, k, code == 6)
    if solo_turn and not s[OVER] and s[FUEL + k] <= 0:
        _solo_out_of_fuel(s)
    s[RESUME] = R_MOVE if solo_turn else R_REROLL


# ---------------------------------------------------------------- apply
@njit
def apply(s: np.ndarray, action: int, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.apply`` (the action is legal)."""
    k = s[CURRENT]
    phase = s[PHASE]
    if phase == PHASE_HAZARD:
        _hazard_choice(s, cfg, action == cfg[A_LOSE_FUEL], rng)
    elif phase == PHASE_ICE_CHOICE:
        s[PHASE] = PHASE_MOVE  # rules._ice_table_six
        if action == cfg[A_ICE_TWO]:
            _move_table_ice(s, cfg, rng, 0, 2, 1)
        else:
            _move_table_ice(s, cfg, rng, 0, 1, 2)
    elif action < 6:
        p = s[POS + k]
        target = _nbr(cfg, p, action)
        cost = 1 + _penalty(s, cfg, p, k) + _penalty(s, cfg, target, k)
        _pay_ship_move(s, cfg, k, cost)
        _ship_to(s, cfg, k, target)
        s[RESUME] = R_MOVE
    elif action == TO_ALASKA or action == TO_HOME:
        cost = 1 + _penalty(s, cfg, s[POS + k], k) if cfg[C_EXIT_PENALTIES] else 1
        _pay_ship_move(s, cfg, k, cost)
        _leave_map(s, cfg, k, action == TO_ALASKA)
        s[RESUME] = R_MOVE
    elif action == END_TURN:
        s[RESUME] = R_END_TURN
    elif action < cfg[A_FLOE]:
        cols = cfg[C_COLS]
        col = cols - 1 if s[STATUS + k] == START else 0
        target = (action - ENTER) * cols + col
        if cfg[C_ALL_MOVES]:
            cost = _roll_moves(s, cfg)
        else:
            cost = 1 + _penalty(s, cfg, target, k)
        _pay_ship_move(s, cfg, k, cost)
        s[STATUS + k] = AT_SEA
        _ship_to(s, cfg, k, target)
        s[RESUME] = R_MOVE
    elif action < cfg[A_BERG]:
        code = action - cfg[A_FLOE]
        s[MOVES_LEFT] -= rules.FLOE_COST
        _move_floe(s, cfg, code // 7, code % 7)
        s[RESUME] = R_MOVE
    elif action < cfg[A_PLACE]:
        code = action - cfg[A_BERG]
        sp = code // 7
        s[MOVES_LEFT] -= rules.ICEBERG_COST
        i = 0
        while s[cfg[S_BERGS] + i] != sp:  # rules._berg_at: the first iceberg there
            i += 1
        _move_berg(s, cfg, i, code % 7)
        s[RESUME] = R_MOVE
    elif action < cfg[A_DRIFT]:
        s[SPARE] -= 1
        s[cfg[S_FLOES] + action - cfg[A_PLACE]] += 1
        s[RESUME] = R_REROLL
    elif action < cfg[A_DECLINE]:
        _drift(s, cfg, k, action - cfg[A_DRIFT])
    else:  # decline
        s[RESUME] = R_REROLL
    _advance(s, rng, cfg)


# ---------------------------------------------------------------- hazards
@njit
def _resolve_hazards(s: np.ndarray, cfg: np.ndarray, rng: np.ndarray) -> bool:
    """``rules._resolve_hazards``: False when one waits for the owner's choice."""
    base = cfg[S_HAZARDS]
    while s[NUM_HAZARDS] > 0:
        k = s[base]
        i = s[base + 1]
        if s[STATUS + k] != AT_SEA:
            _pop_hazard(s, cfg)
            continue
        if s[cfg[S_BERGS] + i] == s[POS + k]:
            s[cfg[S_FACED] + k * cfg[C_BERGS] + i] = 1
        roll = _roll(rng)
        if roll >= 5:
            if s[FUEL + k] > 0 and s[CARGO + k] > 0:
                s[PHASE] = PHASE_HAZARD
                return False
            _pop_hazard(s, cfg)
            if s[FUEL + k] > 0:
                s[FUEL + k] -= 1
            elif s[CARGO + k] > 0:
                s[CARGO + k] -= 1
            _second_roll(s, cfg, k, rng)
        else:
            _pop_hazard(s, cfg)
        if s[OVER]:
            s[NUM_HAZARDS] = 0
            return True
    return True


@njit
def _hazard_choice(s: np.ndarray, cfg: np.ndarray, lose_fuel: bool, rng: np.ndarray) -> None:
    """``rules._hazard_choice``."""
    k = s[cfg[S_HAZARDS]]
    _pop_hazard(s, cfg)
    if lose_fuel:
        s[FUEL + k] -= 1
    else:
        s[CARGO + k] -= 1
    s[PHASE] = PHASE_MOVE
    _second_roll(s, cfg, k, rng)
    if s[OVER]:
        s[NUM_HAZARDS] = 0


@njit
def _second_roll(s: np.ndarray, cfg: np.ndarray, k: int, rng: np.ndarray) -> None:
    """``rules._second_roll``: a 6 sinks the ship."""
    if cfg[C_SOLO] and s[FUEL + k] <= 0:
        _solo_out_of_fuel(s)
        return
    if _roll(rng) == 6:
        _sink(s, cfg, k)


@njit
def _sink(s: np.ndarray, cfg: np.ndarray, k: int) -> None:
    """``rules._sink`` (restart: R7.3)."""
    s[POS + k] = -1
    _clear_faced(s, cfg, k)
    base = cfg[S_HAZARDS]
    kept = 0
    for h in range(s[NUM_HAZARDS]):
        if s[base + 2 * h] != k:
            s[base + 2 * kept] = s[base + 2 * h]
            s[base + 2 * kept + 1] = s[base + 2 * h + 1]
            kept += 1
    s[NUM_HAZARDS] = kept
    if k == s[CURRENT]:
        s[TURN_OVER] = 1
    if cfg[C_RESTART]:
        loaded = s[LOADED + k]
        s[STATUS + k] = ALASKA_READY if loaded else START
        s[FUEL + k] = FULL_FUEL
        s[CARGO + k] = FULL_CARGO if loaded else 0
        return
    s[STATUS + k] = SUNK
    _check_end(s, cfg)


@njit
def _solo_out_of_fuel(s: np.ndarray) -> None:
    s[RESULT] = -1
    _set_over(s)


# ---------------------------------------------------------------- flow
@njit
def _advance(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._advance``: everything that needs no decision, until someone must decide or the game ends."""
    while not s[OVER]:
        if s[PHASE] == PHASE_ICE_CHOICE:
            return
        if s[NUM_HAZARDS] > 0:
            if not _resolve_hazards(s, cfg, rng):
                return
            continue
        r = s[RESUME]
        if r == R_MOVE:
            if s[TURN_OVER]:
                s[RESUME] = R_END_TURN
                continue
            s[PHASE] = PHASE_MOVE
            if not _move_actions(s, cfg, s, True):  # probe: the row stands in for a mask it never writes
                s[RESUME] = R_END_TURN
                continue
            return
        if r == R_ONE:
            s[PHASE] = PHASE_ONE
            return
        if r == R_REROLL:
            if s[TURN_OVER]:
                s[RESUME] = R_END_TURN
                continue
            die = _roll(rng)
            s[DIE] = die
            if die == 1:
                s[MOVES_LEFT] = 0
                s[RESUME] = R_ONE
            else:
                s[MOVES_LEFT] = die
                s[RESUME] = R_MOVE
            continue
        if r == R_END_TURN:
            _end_turn(s, cfg, rng)
            s[RESUME] = R_NEXT_TURN
            continue
        _next_turn(s, cfg, rng)


@njit
def _end_turn(s: np.ndarray, cfg: np.ndarray, rng: np.ndarray) -> None:
    """``rules._end_turn``: Cargo lost at sea once a ship is home; the solo ice movement."""
    k = s[CURRENT]
    if s[FIRST_HOME] >= 0 and s[STATUS + k] == AT_SEA and s[CARGO + k] > 0:
        s[CARGO + k] -= 1
    if cfg[C_SOLO]:
        _solo_ice_movement(s, cfg, rng)


@njit
def _next_turn(s: np.ndarray, cfg: np.ndarray, rng: np.ndarray) -> None:
    """``rules._next_turn``: the next ship in order (home and sunk skipped), loading in Alaska, the roll."""
    ships = cfg[C_SHIPS]
    while not s[OVER]:
        s[ORDER_POS] += 1
        if s[ORDER_POS] >= ships:
            s[ORDER_POS] = 0
            s[ROUND] += 1
            if s[ROUND] >= cfg[C_MAX_TURNS]:
                if cfg[C_DECIDE_AT_MAX]:
                    _decide(s, cfg)
                else:
                    s[TRUNCATED] = 1
                    for p in range(cfg[C_PLAYERS]):
                        s[RESULT + p] = 0
                    _set_over(s)
                return
        k = s[ORDER + s[ORDER_POS]]
        st = s[STATUS + k]
        if st == HOME or st == SUNK:
            continue
        s[CURRENT] = k
        _add_turn(s)
        if st == ALASKA_LOADING:
            s[STATUS + k] = ALASKA_READY
            s[LOADED + k] = 1
            s[FUEL + k] = FULL_FUEL
            s[CARGO + k] = FULL_CARGO
            if cfg[C_SOLO]:
                _solo_ice_movement(s, cfg, rng)
                if s[NUM_HAZARDS] > 0 or s[PHASE] == PHASE_ICE_CHOICE:
                    s[RESUME] = R_NEXT_TURN
                    return
            continue
        s[FUEL_PAID] = 0
        s[DRIFTED] = 0
        s[TURN_OVER] = 0
        s[DIE] = 0
        if cfg[C_SOLO]:
            s[MOVES_LEFT] = rules.SOLO_MOVES
            s[RESUME] = R_MOVE
        else:
            s[RESUME] = R_REROLL
        return


@njit
def _solo_ice_movement(s: np.ndarray, cfg: np.ndarray, rng: np.ndarray) -> None:
    """``rules._solo_ice_movement``: the Ice Movement Table after each solo turn."""
    roll = _roll(rng)
    if roll <= 3:
        floes, bergs, steps = roll, 0, 1
    elif roll == 4:
        floes, bergs, steps = 1, 1, 1
    elif roll == 5:
        floes, bergs, steps = 2, 1, 1
    else:
        floes, bergs, steps = 0, 1, 2
    if roll == 6 and cfg[C_ICE_CHOICE]:
        for i in range(cfg[C_BERGS]):
            if s[cfg[S_BERGS] + i] >= 0:
                s[PHASE] = PHASE_ICE_CHOICE
                break
        return
    if roll == 6 and draw(rng, 0, 2) == 1:
        bergs, steps = 2, 1
    _move_table_ice(s, cfg, rng, floes, bergs, steps)


@njit
def _nth_free(x: int, a: int, b: int, taken: int) -> int:
    """The ``x``-th (0-based) position of a pool from which ``taken`` (0-2) positions ``a``, ``b`` were popped."""
    pos = x
    while True:
        count = 0
        if taken > 0 and a <= pos:
            count += 1
        if taken > 1 and b <= pos:
            count += 1
        if x + count == pos:
            return pos
        pos = x + count


@njit
def _pick3(rng: np.ndarray, size: int, count: int) -> tuple[int, int, int, int]:
    """``rules._pick_distinct`` of ``count`` (at most 3) from the pool ``0..size-1``: how many were picked
    and the positions in the order drawn (``list.pop`` of the pool replayed on the positions left)."""
    n = min(count, size)
    a = b = c = -1
    if n > 0:
        a = draw(rng, 0, size)
    if n > 1:
        b = _nth_free(draw(rng, 0, size - 1), a, 0, 1)
    if n > 2:
        c = _nth_free(draw(rng, 0, size - 2), a, b, 2)
    return n, a, b, c


@njit
def _random_sea_direction(s: np.ndarray, cfg: np.ndarray, sp: int, rng: np.ndarray) -> int:
    """``rules._random_sea_direction`` (-1, with no draw, when no sea neighbour)."""
    sea = _sea_dirs(cfg, sp)
    count = 0
    for d in range(NUM_DIRECTIONS):
        count += sea >> d & 1
    if count == 0:
        return -1
    x = draw(rng, 0, count)
    for d in range(NUM_DIRECTIONS):
        if sea >> d & 1:
            if x == 0:
                return d
            x -= 1
    return -1


@njit
def _nth_berg(s: np.ndarray, cfg: np.ndarray, x: int) -> int:
    """The iceberg that is the ``x``-th (0-based) of those on the map."""
    at = cfg[S_BERGS]
    i = 0
    while True:
        if s[at + i] >= 0:
            if x == 0:
                return i
            x -= 1
        i += 1


@njit
def _nth_floe_space(s: np.ndarray, cfg: np.ndarray, x: int) -> int:
    """The space of the ``x``-th (0-based) floe, the floes listed space by space."""
    fl = cfg[S_FLOES]
    sp = 0
    while x >= s[fl + sp]:
        x -= s[fl + sp]
        sp += 1
    return sp


@njit
def _move_table_ice(s: np.ndarray, cfg: np.ndarray, rng: np.ndarray, floes: int, bergs: int, steps: int) -> None:
    """``rules._move_table_ice``: ``bergs`` random icebergs ``steps`` random spaces each, then ``floes`` floes
    one space each (each group picked before any of it moves, as ``rules`` draws them)."""
    at = cfg[S_BERGS]
    on_map = 0
    for i in range(cfg[C_BERGS]):
        if s[at + i] >= 0:
            on_map += 1
    n, a, b, _ = _pick3(rng, on_map, bergs)
    # icebergs move only to sea spaces, never off the map: the picked ones stay what they were
    first = _nth_berg(s, cfg, a) if n > 0 else -1
    second = _nth_berg(s, cfg, b) if n > 1 else -1
    for j in range(n):
        i = first if j == 0 else second
        for _ in range(steps):
            d = _random_sea_direction(s, cfg, s[at + i], rng)
            if d >= 0:
                _move_berg(s, cfg, i, d)
    fl = cfg[S_FLOES]
    pieces = 0
    for sp in range(cfg[C_SPACES]):
        pieces += s[fl + sp]
    n, a, b, c = _pick3(rng, pieces, floes)
    # the floes' spaces as listed before any of them moves
    sa = _nth_floe_space(s, cfg, a) if n > 0 else -1
    sb = _nth_floe_space(s, cfg, b) if n > 1 else -1
    sc = _nth_floe_space(s, cfg, c) if n > 2 else -1
    for j in range(n):
        sp = sa if j == 0 else (sb if j == 1 else sc)
        d = _random_sea_direction(s, cfg, sp, rng)
        if d >= 0:
            _move_floe(s, cfg, sp, d)


# ---------------------------------------------------------------- the end
@njit
def _set_over(s: np.ndarray) -> None:
    s[OVER] = 1
    s[PHASE] = PHASE_OVER
    s[NUM_HAZARDS] = 0


@njit
def _check_end(s: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._check_end``."""
    if s[OVER]:
        return
    if cfg[C_SOLO]:
        st = s[STATUS]
        if st == HOME:
            c = s[CARGO]
            s[RESULT] = 1 if c >= rules.SOLO_WIN_CARGO else (-1 if c < rules.SOLO_LOSE_BELOW else 0)
            _set_over(s)
        elif st == SUNK:
            s[RESULT] = -1
            _set_over(s)
        return
    all_done = True
    for k in range(cfg[C_SHIPS]):
        st = s[STATUS + k]
        if st != HOME and st != SUNK:
            all_done = False
            break
    if all_done:
        _decide(s, cfg)
        return
    if cfg[C_KPS] > 1 and cfg[C_FIRST_FLEET]:
        kps = cfg[C_KPS]
        for p in range(cfg[C_PLAYERS]):
            done = True
            home = False
            for j in range(kps):
                st = s[STATUS + p * kps + j]
                if st != HOME and st != SUNK:
                    done = False
                if st == HOME:
                    home = True
            if done and home:
                _decide(s, cfg)
                return


@njit
def _decide(s: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._decide``: most Cargo home wins, ties to the first home; nobody with Cargo home, nobody wins."""
    players, kps = cfg[C_PLAYERS], cfg[C_KPS]
    if cfg[C_SOLO]:
        c = s[CARGO] if s[STATUS] == HOME else 0
        s[RESULT] = 1 if c >= rules.SOLO_WIN_CARGO else (-1 if c < rules.SOLO_LOSE_BELOW else 0)
        _set_over(s)
        return
    best = -1
    best_total = 0
    best_rank = 0
    for p in range(players):
        total = 0
        rank = 1 << 20
        for j in range(kps):
            k = p * kps + j
            if s[STATUS + k] == HOME:
                total += s[CARGO + k]
                if s[CARGO + k] > 0 and s[HOME_RANK + k] < rank:
                    rank = s[HOME_RANK + k]
        if total <= 0:
            continue
        if best < 0 or total > best_total or (total == best_total and rank < best_rank):
            best, best_total, best_rank = p, total, rank
    for p in range(players):
        s[RESULT + p] = 1 if p == best else -1
    _set_over(s)


# ---------------------------------------------------------------- the framework's questions
@njit
def deciding_ship(s: np.ndarray, cfg: np.ndarray) -> int:
    """``rules.IcebergsState.deciding_ship``: the ship whose owner decides (the hazard's ship in the hazard phase)."""
    return s[cfg[S_HAZARDS]] if s[PHASE] == PHASE_HAZARD else s[CURRENT]


@njit
def deciding(s: np.ndarray, cfg: np.ndarray) -> int:
    """The seat of :func:`deciding_ship`."""
    return deciding_ship(s, cfg) // cfg[C_KPS]


@njit
def is_over(s: np.ndarray, cfg: np.ndarray) -> bool:
    """The game has ended: decided, or stopped by ``max_turns`` (see :func:`undecided`)."""
    return s[OVER] != 0


@njit
def undecided(s: np.ndarray, cfg: np.ndarray) -> bool:
    """Stopped undecided by ``max_turns`` (``max_turns_end="truncate"``): a truncation with no outcome."""
    return s[OVER] != 0 and s[TRUNCATED] != 0


@njit
def scores(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """``rules.scores``: Cargo brought home per seat."""
    kps = cfg[C_KPS]
    for p in range(cfg[C_PLAYERS]):
        total = 0
        for j in range(kps):
            k = p * kps + j
            if s[STATUS + k] == HOME:
                total += s[CARGO + k]
        out[p] = float(total)


@njit
def outcome(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """``rules.outcome``: the result per seat (zeros while going on or truncated)."""
    for p in range(cfg[C_PLAYERS]):
        out[p] = float(s[RESULT + p])


# ---------------------------------------------------------------- observation
@njit
def _next_ship(s: np.ndarray, ships: int) -> int:
    """``env.next_ship``."""
    for step in range(1, ships + 1):
        k = s[ORDER + (s[ORDER_POS] + step) % ships]
        if s[STATUS + k] != HOME and s[STATUS + k] != SUNK:
            return k
    return -1


@njit
def encode(s: np.ndarray, seat: int, cfg: np.ndarray, obs: np.ndarray) -> None:
    """``env.IcebergsEnv._encode`` of ``seat`` (the caller zeroes ``obs``)."""
    players, kps, ships = cfg[C_PLAYERS], cfg[C_KPS], cfg[C_SHIPS]
    spaces, rows, cols = cfg[C_SPACES], cfg[C_ROWS], cfg[C_COLS]
    # the template: the four terrain planes copied whole, then the ones past them ("the ship exists", solo, fleet)
    img = cfg[T_IMAGE]
    at = 2 * (img + 2)
    dense = cfg.view(np.float32)[at : at + cfg[img]]
    head = obs[: cfg[img]]
    for x in range(dense.shape[0]):  # a loop over two views' own range: compiled to a vector copy
        head[x] = dense[x]
    at = cfg[T_TEMPLATE]
    for x in range(at + 1 + cfg[img + 1], at + 1 + cfg[at]):
        obs[cfg[x]] = 1.0
    o_floes, o_bergs = cfg[O_FLOES], cfg[O_BERGS]
    fl, bc = cfg[S_FLOES], cfg[S_BERG_COUNT]
    berg_high = np.float32(max(1.0, cfg[C_BERGS] / 3.0))
    floes, bergs = s[fl : fl + spaces], s[bc : bc + spaces]
    floe_plane, berg_plane = obs[o_floes : o_floes + spaces], obs[o_bergs : o_bergs + spaces]
    for sp in range(floes.shape[0]):  # every entry written (an empty space's are zero): vectorised, no branch
        floe_plane[sp] = np.float32(floes[sp]) * QUARTER
        v = np.float32(bergs[sp]) * THIRD
        berg_plane[sp] = v if v < berg_high else berg_high
    over = s[OVER]
    deciding_ship = s[cfg[S_HAZARDS]] if (not over and s[PHASE] == PHASE_HAZARD) else -1
    current = s[CURRENT] if not over else -1
    first_home = s[FIRST_HOME]
    rows1 = max(1, rows - 1)
    cols1 = max(1, cols - 1)
    o_ships, o_slots, o_turn = cfg[O_SHIPS], cfg[O_SLOTS], cfg[O_TURN_SHIP]
    for k in range(ships):
        owner = k // kps
        j = k - owner * kps
        rel = (owner - seat + players) % players
        plane = o_ships + rel * spaces
        f = o_slots + (rel * MAX_KPS + j) * SHIP_FEATURES
        p = s[POS + k]
        obs[f + 1] = min(s[FUEL + k], FULL_FUEL) / FULL_FUEL
        obs[f + 2] = min(s[CARGO + k], FULL_CARGO) / FULL_CARGO
        obs[f + 3 + s[STATUS + k]] = 1.0
        if s[LOADED + k]:
            obs[f + 9] = 1.0
        if p >= 0:
            v = obs[plane + p] + THIRD
            obs[plane + p] = v if v < 1.0 else np.float32(1.0)
            obs[f + 10] = (p // cols) / rows1
            obs[f + 11] = (p % cols) / cols1
        if k == current:
            obs[f + 12] = 1.0
            if p >= 0:
                obs[o_turn + p] = 1.0
        if k == deciding_ship:
            obs[f + 13] = 1.0
        rank = s[HOME_RANK + k]
        if rank >= 0:
            obs[f + 14] = (rank + 1) / ships
        if k == first_home:
            obs[f + 15] = 1.0
    if not over:
        obs[cfg[O_MOVES]] = min(s[MOVES_LEFT], 6) / 6.0
        die = s[DIE]
        if 1 <= die <= 6:
            obs[cfg[O_DIE] - 1 + die] = 1.0
        phase = s[PHASE]
        if phase < PHASE_OVER:
            obs[cfg[O_PHASE] + phase] = 1.0
        elif phase == PHASE_ICE_CHOICE:
            obs[cfg[O_ICE_CHOICE]] = 1.0
        # env._encode_turn_order
        order_pos = max(s[ORDER_POS], 0)
        o_order, o_next = cfg[O_TURN_ORDER], cfg[O_NEXT_SHIP]
        for i in range(ships):
            k = s[ORDER + i]
            owner = k // kps
            slot = ((owner - seat + players) % players) * MAX_KPS + k - owner * kps
            obs[o_order + slot] = ((i - order_pos + ships) % ships + 1) / ships
        nxt = _next_ship(s, ships)
        if nxt >= 0:
            owner = nxt // kps
            obs[o_next + ((owner - seat + players) % players) * MAX_KPS + nxt - owner * kps] = 1.0
        obs[cfg[O_START_SEAT] + (s[ORDER] // kps - seat + players) % players] = 1.0
        if s[FUEL_PAID]:
            obs[cfg[O_FUEL_PAID]] = 1.0
        if s[DRIFTED]:
            obs[cfg[O_DRIFTED]] = 1.0
    obs[cfg[O_SPARE]] = min(1.0, s[SPARE] / cfg[C_TOTAL_FLOES])
    if first_home >= 0:
        obs[cfg[O_HOME]] = 1.0
    obs[cfg[O_ROUND]] = min(1.0, s[ROUND] / cfg[C_MAX_TURNS])


KERNELS = GameKernels(new_game, legal, apply, deciding, is_over, scores, outcome, encode, undecided)


def _template_obs(config: rules.IcebergsConfig, obs_layout: Any) -> np.ndarray:
    """What every observation of ``config`` holds (env ``_make_encoding_tables``' template: the terrain
    planes, "the ship exists" of the slots in use, solo and fleet; every entry 0 or 1)."""
    m = config.hexmap
    obs = np.zeros(obs_layout.size, dtype=np.float32)
    terrain = np.asarray(m.terrain).reshape(m.rows, m.cols)
    obs_layout.view(obs, "sea")[:] = terrain == SEA
    obs_layout.view(obs, "island")[:] = terrain != SEA
    obs_layout.view(obs, "west_edge")[:, 0] = terrain[:, 0] == SEA
    obs_layout.view(obs, "east_edge")[:, -1] = terrain[:, -1] == SEA
    obs_layout.view(obs, "ship_slots")[: config.num_players, : config.ships_per_player, 0] = 1.0
    obs[obs_layout.offset("solo")] = float(config.solo)
    obs[obs_layout.offset("fleet")] = float(config.fleet)
    return obs


def _template(obs: np.ndarray) -> list[int]:
    """The template's ones: their count, then their offsets."""
    ones = np.flatnonzero(obs)
    assert (obs[ones] == 1.0).all()
    return [len(ones), *ones.tolist()]


def _template_image(obs: np.ndarray, obs_layout: Any) -> list[int]:
    """The table ``T_IMAGE`` (see there): the template up to the end of the terrain planes, packed."""
    dense = obs_layout.slice("east_edge").stop
    rest = int(np.searchsorted(np.flatnonzero(obs), dense))
    words = np.zeros(2 * ((dense + 1) // 2), dtype=np.float32)
    words[:dense] = obs[:dense]
    return [dense, rest, *words.view(np.int64).tolist()]


def config_row(config: rules.IcebergsConfig, obs_layout: Any) -> np.ndarray:
    """The ``int64`` config row of ``config`` (options, action layout, state offsets, the map's tables)."""
    m = config.hexmap
    lay = config.layout
    spaces, bergs, ships = m.num_spaces, len(m.iceberg_starts), config.num_ships
    hazard_cap = bergs + ships + 4
    state = {"floes": HEAD, "berg_count": HEAD + spaces, "bergs": HEAD + 2 * spaces}
    state["faced"] = state["bergs"] + bergs
    state["hazards"] = state["faced"] + ships * bergs
    width = state["hazards"] + 2 * hazard_cap
    template = _template_obs(config, obs_layout)
    floe_counts = [0] * spaces
    for sp in m.floe_starts:
        floe_counts[sp] += 1
    sea_dirs = []
    for sp in range(spaces):
        bits = sum(1 << d for d, t in enumerate(m.neighbours[sp]) if t != OFF_GRID and m.terrain[t] == SEA)
        sea_dirs.append(bits | (int(m.border[sp]) << OFF_MAP))
    tables = {
        "terrain": list(m.terrain),
        "sea_dirs": sea_dirs,
        "neighbours": [t for row in m.neighbours for t in row],
        "floe_starts": floe_counts,
        "berg_starts": list(m.iceberg_starts),
        "template": _template(template),
        "image": _template_image(template, obs_layout),
    }
    head = [0] * CONFIG_HEAD
    head[C_PLAYERS] = config.num_players
    head[C_KPS] = config.ships_per_player
    head[C_SHIPS] = ships
    head[C_SOLO] = int(config.solo)
    head[C_RESTART] = int(config.restart_on_sink)
    head[C_MAX_TURNS] = config.max_turns
    head[C_DECIDE_AT_MAX] = int(config.max_turns_end == "decide")
    head[C_EXIT_PENALTIES] = int(config.exit_penalties)
    head[C_FIRST_FLEET] = int(config.fleet_end == "first_fleet")
    head[C_ALL_MOVES] = int(config.entry_cost == "all_moves")
    head[C_ICE_CHOICE] = int(config.ice_choice)
    head[C_ROWS], head[C_COLS], head[C_SPACES], head[C_BERGS] = m.rows, m.cols, spaces, bergs
    head[C_TOTAL_FLOES] = max(1, len(m.floe_starts) + m.spare_floes)
    head[C_SPARE_FLOES] = m.spare_floes
    head[C_HAZARD_CAP] = hazard_cap
    head[A_FLOE], head[A_BERG], head[A_PLACE], head[A_DRIFT] = lay.floe, lay.berg, lay.place, lay.drift
    head[A_DECLINE], head[A_LOSE_FUEL], head[A_LOSE_CARGO] = lay.decline, lay.lose_fuel, lay.lose_cargo
    head[A_ICE_ONE], head[A_ICE_TWO] = lay.ice_one_berg, lay.ice_two_bergs
    head[S_FLOES], head[S_BERG_COUNT], head[S_BERGS] = state["floes"], state["berg_count"], state["bergs"]
    head[S_FACED], head[S_HAZARDS] = state["faced"], state["hazards"]
    for at, name in enumerate(OBS_PIECES):
        head[O_SEA + at] = obs_layout.offset(name)
    row = list(head)
    for index, name in zip(
        (T_TERRAIN, T_SEA_DIRS, T_NEIGHBOURS, T_FLOE_STARTS, T_BERG_STARTS, T_TEMPLATE, T_IMAGE),
        ("terrain", "sea_dirs", "neighbours", "floe_starts", "berg_starts", "template", "image"),
        strict=True,
    ):
        row[index] = len(row)
        row.extend(tables[name])
    out = np.array(row + [width], dtype=np.int64)
    return out


class IcebergsCompiled(CompiledEngine):
    """Compiled Icebergs (see the module docstring and :mod:`ice_envs.core.compiled`)."""

    game = "icebergs"
    state_dtype = np.int16
    kernels = KERNELS
    #: The log of recent events is text for rendering only.
    unkept_state_fields = frozenset({"log"})

    def _setup(self) -> None:
        self._config_row = config_row(self.config, self.obs_layout)
        #: Entries of one game's state row (the map's size sets it).
        self.state_width = int(self._config_row[-1])
        super()._setup()

    def config_row(self) -> np.ndarray:
        return self._config_row

    def state_of(self, i: int) -> rules.IcebergsState:
        s = self.state[i].astype(np.int64)
        cfg = self._config_row
        k, n = self.config.num_ships, self.num_players
        spaces, bergs = self.config.hexmap.num_spaces, int(cfg[C_BERGS])
        ships = lambda at: [int(x) for x in s[at : at + k]]  # noqa: E731
        faced = []
        for ship in range(k):
            row = s[cfg[S_FACED] + ship * bergs : cfg[S_FACED] + (ship + 1) * bergs]
            faced.append(sum(1 << i for i in range(bergs) if row[i]))
        hazards = [[int(s[cfg[S_HAZARDS] + 2 * h]), int(s[cfg[S_HAZARDS] + 2 * h + 1])] for h in range(s[NUM_HAZARDS])]
        return rules.IcebergsState(
            config=self.config,
            floes=[int(x) for x in s[cfg[S_FLOES] : cfg[S_FLOES] + spaces]],
            bergs=[int(x) for x in s[cfg[S_BERGS] : cfg[S_BERGS] + bergs]],
            berg_count=[int(x) for x in s[cfg[S_BERG_COUNT] : cfg[S_BERG_COUNT] + spaces]],
            spare_floes=int(s[SPARE]),
            status=ships(STATUS),
            pos=ships(POS),
            fuel=ships(FUEL),
            cargo=ships(CARGO),
            loaded=[bool(x) for x in s[LOADED : LOADED + k]],
            faced=faced,
            home_rank=ships(HOME_RANK),
            order=ships(ORDER),
            order_pos=int(s[ORDER_POS]),
            round=int(s[ROUND]),
            current=int(s[CURRENT]),
            phase=int(s[PHASE]),
            resume=int(s[RESUME]),
            die=int(s[DIE]),
            moves_left=int(s[MOVES_LEFT]),
            fuel_paid=bool(s[FUEL_PAID]),
            drifted=bool(s[DRIFTED]),
            turn_over=bool(s[TURN_OVER]),
            hazards=hazards,
            home_count=int(s[HOME_COUNT]),
            first_home=int(s[FIRST_HOME]),
            turns=int(get_turns(self.state[i])),
            over=bool(s[OVER]),
            truncated=bool(s[TRUNCATED]),
            result=[float(x) for x in s[RESULT : RESULT + n]],
            log=[],
        )

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:
        """A scalar deal of the map's starting position, replaying this game's start player and first roll."""
        return {}, True

    def pack_state(self, state: rules.IcebergsState) -> np.ndarray:
        """The state row of ``state`` (the inverse of :meth:`state_of`; the event log is not kept).

        Entries past the pending hazards are zero (a row that has popped hazards may keep stale pairs
        there, which nothing reads)."""
        from ice_envs.core.errors import OptionError

        cfg = self._config_row
        k, n = self.config.num_ships, self.num_players
        spaces, bergs = self.config.hexmap.num_spaces, int(cfg[C_BERGS])
        if len(state.hazards) > int(cfg[C_HAZARD_CAP]):
            raise OptionError(f"icebergs: {len(state.hazards)} pending hazards, more than a state row holds")
        s = np.zeros(self.state_width, dtype=np.int64)
        s[SPARE], s[ORDER_POS], s[ROUND], s[CURRENT] = state.spare_floes, state.order_pos, state.round, state.current
        s[PHASE], s[RESUME], s[DIE], s[MOVES_LEFT] = state.phase, state.resume, state.die, state.moves_left
        s[FUEL_PAID], s[DRIFTED], s[TURN_OVER] = int(state.fuel_paid), int(state.drifted), int(state.turn_over)
        s[HOME_COUNT], s[FIRST_HOME] = state.home_count, state.first_home
        s[TURNS_LOW], s[TURNS_HIGH] = state.turns & 0x7FFF, state.turns >> 15
        s[OVER], s[TRUNCATED], s[NUM_HAZARDS] = int(state.over), int(state.truncated), len(state.hazards)
        s[RESULT : RESULT + n] = [int(x) for x in state.result] if state.result else 0
        for at, values in (
            (STATUS, state.status),
            (POS, state.pos),
            (FUEL, state.fuel),
            (CARGO, state.cargo),
            (LOADED, [int(x) for x in state.loaded]),
            (HOME_RANK, state.home_rank),
            (ORDER, state.order),
        ):
            s[at : at + k] = values
        s[cfg[S_FLOES] : cfg[S_FLOES] + spaces] = state.floes
        s[cfg[S_BERG_COUNT] : cfg[S_BERG_COUNT] + spaces] = state.berg_count
        s[cfg[S_BERGS] : cfg[S_BERGS] + bergs] = state.bergs
        for ship in range(k):
            base = cfg[S_FACED] + ship * bergs
            s[base : base + bergs] = [(state.faced[ship] >> i) & 1 for i in range(bergs)]
        for h, (ship, berg) in enumerate(state.hazards):
            s[cfg[S_HAZARDS] + 2 * h] = ship
            s[cfg[S_HAZARDS] + 2 * h + 1] = berg
        return s.astype(self.state_dtype)
