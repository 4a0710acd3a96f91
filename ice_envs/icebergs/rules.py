"""Icebergs — the pure game engine (no PettingZoo, no rendering).

Rules, house rules and interpretations: ``docs/rules/icebergs.md`` (numbered rules R1-R7
and interpretations I1-I28, cited below by number).

Ships sail from Newfoundland (east edge) to Alaska (off the west edge), load 8 Fuel
and 8 Cargo there, and sail back. Each turn the ship's owner rolls one die for Moves
and spends them on ice floes (1 per space), icebergs (3 per space) and the own ship
(1 + the penalties of the space left and of the space entered). A one gives a choice
(place a spare floe, drift, or nothing) and a new roll. Icebergs that meet a ship
cause hazard rolls. Most Cargo home wins. Variants: the fleet game (2-3 players with
up to 3 ships each, interleaved; at most the box's 6 ships unless ``extra_ships``), the
solo game, and restart-on-sink. Rules-fidelity options: ``entry_cost`` (entering costs a
step or the whole roll), ``extra_ships`` (the 3 x 3 fleet) and ``solo_ice_six`` (who
picks the line of the solo ice table's 6).

Actions are integer ids laid out by :class:`ActionLayout` (they depend on the map's
size: ``S`` spaces, ``R`` rows). With the default 7x13 map there are 1392 (1394 with
``solo_ice_six="player"``):

==========================  ==========================================================
ids                         meaning
==========================  ==========================================================
0-5                         move the own ship one space: N, NE, SE, S, SW, NW
6                           leave the map by the west edge toward Alaska
7                           leave the map by the east edge home to Newfoundland
8                           end the turn
9 .. 9+R-1                  enter the map at row r of the edge the ship waits at
FLOE + 7*s + d              move an ice floe from space s in direction d (d=6: off map)
BERG + 7*s + d              move an iceberg from space s in direction d (d=6: off map)
PLACE + s                   rolled a one: place a spare ice floe on sea space s
DRIFT + d (d<6)             rolled a one (solo: any turn): drift one space in direction d
DRIFT + 6 / DRIFT + 7       drift off the west edge to Alaska / off the east edge home
DECLINE                     rolled a one: do neither, just roll again
LOSE_FUEL / LOSE_CARGO      iceberg hazard: lose 1 Fuel / lose 1 Cargo
ICE_ONE_BERG / ICE_TWO...   ``solo_ice_six="player"`` only (``ice_one_berg``,
                            ``ice_two_bergs``, the last two ids): the ice table's 6 moves
                            one iceberg two spaces / two icebergs one space each
==========================  ==========================================================

All randomness is drawn through ``rng.integers(low, high)`` when it happens, so a
scripted generator (``ice_envs.core.testing.ScriptedRng``) replays any example.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache, cached_property
from itertools import chain, compress
from typing import Any, ClassVar, Protocol

import numpy as np

from ice_envs.core.state_copy import copy_state
from ice_envs.core.validation import integer as _check_int
from ice_envs.core.validation import integers as _check_ints
from ice_envs.icebergs.hexmap import DIRECTIONS, OFF_GRID, SEA, HexMap, default_map

FULL_FUEL = 8
FULL_CARGO = 8
ICEBERG_COST = 3
FLOE_COST = 1
ICEBERG_PENALTY = 3
FLOE_PENALTY = 1
SHIP_PENALTY = 1
SOLO_MOVES = 5
SOLO_WIN_CARGO = 6
SOLO_LOSE_BELOW = 5
MAX_SHIPS_PER_PLAYER = 3
#: Ships in the box (the rulebook's parts list: "6 Ships", with 6 Ship's Logs).
BOX_SHIPS = 6

# ship status
START = 0  # in Newfoundland, not yet on the map (enters from the east edge)
AT_SEA = 1
ALASKA_LOADING = 2  # left by the west edge; its next turn is spent loading
ALASKA_READY = 3  # loaded in Alaska, waits to re-enter from the west edge
HOME = 4
SUNK = 5
STATUS_NAMES = ("in Newfoundland", "at sea", "in Alaska (loading)", "in Alaska (loaded)", "home", "sunk")
NUM_STATUSES = 6

# phases: who decides what
PHASE_MOVE = 0  # spend the Moves of the roll (solo: the 5 Moves)
PHASE_ONE = 1  # rolled a one: place a floe, drift or decline
PHASE_HAZARD = 2  # a hazard roll of 5-6: the ship's owner loses 1 Fuel or 1 Cargo
PHASE_OVER = 3
PHASE_ICE_CHOICE = 4  # solo, solo_ice_six="player": the ice table rolled 6; the player picks its line
PHASE_NAMES = ("moving", "rolled a one", "hazard choice", "over", "ice table choice")

# what happens once the pending hazard rolls are resolved
_R_MOVE = 0
_R_ONE = 1
_R_REROLL = 2
_R_END_TURN = 3
_R_NEXT_TURN = 4

END_MAX_TURNS = ("truncate", "decide")
FLEET_ENDS = ("first_fleet", "all_ships")
#: ``entry_cost``: 1 + the entered space's penalties (I2), or the whole roll (the rulebook's
#: "using all of the Moves for your Ship to enter that Space").
ENTRY_COSTS = ("step", "all_moves")
#: ``solo_ice_six``: who picks the line of the solo ice table's 6: a fair coin or the player (I20).
SOLO_ICE_SIX = ("random", "player")

OFF_MAP_DIR = 6  # the 7th "direction" of an ice move: off the map


class IntegerRng(Protocol):
    """What the engine needs of a random generator (``np.random.Generator`` fits)."""

    def integers(self, low: int, high: int) -> Any: ...


@dataclass(frozen=True)
class ActionLayout:
    """Where each kind of action starts in the flat action space of a map size."""

    num_spaces: int
    rows: int
    #: the two ids of the solo ice table's choice on a 6 (``solo_ice_six="player"``) exist
    ice_choice: bool = False
    ship_move: int = 0
    to_alaska: int = 6
    to_home: int = 7
    end_turn: int = 8
    enter: int = 9
    floe: int = field(init=False)
    berg: int = field(init=False)
    place: int = field(init=False)
    drift: int = field(init=False)
    drift_alaska: int = field(init=False)
    drift_home: int = field(init=False)
    decline: int = field(init=False)
    lose_fuel: int = field(init=False)
    lose_cargo: int = field(init=False)
    #: solo ice table 6: one iceberg two spaces (-1 without ``ice_choice``)
    ice_one_berg: int = field(init=False)
    #: solo ice table 6: two icebergs one space each (-1 without ``ice_choice``)
    ice_two_bergs: int = field(init=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        s = self.num_spaces
        values = {}
        values["floe"] = self.enter + self.rows
        values["berg"] = values["floe"] + 7 * s
        values["place"] = values["berg"] + 7 * s
        values["drift"] = values["place"] + s
        values["drift_alaska"] = values["drift"] + 6
        values["drift_home"] = values["drift"] + 7
        values["decline"] = values["drift"] + 8
        values["lose_fuel"] = values["decline"] + 1
        values["lose_cargo"] = values["decline"] + 2
        values["size"] = values["decline"] + 3
        values["ice_one_berg"] = values["ice_two_bergs"] = -1
        if self.ice_choice:
            values["ice_one_berg"] = values["size"]
            values["ice_two_bergs"] = values["size"] + 1
            values["size"] += 2
        for k, v in values.items():
            object.__setattr__(self, k, v)


@cache
def layout_for(num_spaces: int, rows: int, ice_choice: bool = False) -> ActionLayout:
    """The (cached) action layout of a map with ``num_spaces`` spaces and ``rows`` rows
    (``ice_choice``: with the two ids of the solo ice table's choice, appended at the end)."""
    return ActionLayout(num_spaces, rows, ice_choice)


def fleet_ships(num_players: int, extra_ships: bool = False) -> int:
    """Ships per player of ``fleet=True``: three each, as far as the box's six ships go (R7.1, I29).

    Two players get 3 each; three players get 2 each, or 3 each with ``extra_ships``
    (9 ships: more than the box holds). Other player counts get 3 (the config then
    refuses them: the fleet game is for 2-3 players).
    """
    if extra_ships or not 2 <= num_players <= 3:
        return MAX_SHIPS_PER_PLAYER
    return min(MAX_SHIPS_PER_PLAYER, BOX_SHIPS // num_players)


@dataclass(frozen=True)
class IcebergsConfig:
    """Game options.

    Args:
        num_players: 2-6 (standard), 2-3 (fleet: ``ships_per_player`` 2 or 3), 1 (solo).
        ships_per_player: 1 (standard); 2 or 3 for the fleet game (at most the box's 6
            ships in all unless ``extra_ships``).
        solo: the solo game (1 player, 1 ship, 5 Moves a turn, random ice movement).
        restart_on_sink: the optional rule: a sunk ship starts again from the last
            map edge it entered with a full load instead of being out.
        max_turns: the game stops after this many rounds (every ship one turn).
        max_turns_end: ``"truncate"`` (the episode is truncated, no winner) or
            ``"decide"`` (the game is decided on the Cargo home so far).
        exit_penalties: leaving the map costs 1 + the penalties of the space left
            (True) or a flat 1 Move (False).
        fleet_end: fleet game: ``"first_fleet"`` (the game ends as soon as one
            player's ships are all home or sunk, with at least one home) or
            ``"all_ships"`` (when no ship is left at sea, as the standard game).
        entry_cost: entering the map costs ``"step"`` (1 + the entered space's
            penalties, the ship may sail on with the rest; I2) or ``"all_moves"`` (the
            whole roll, before any of it is spent, whatever the ice there; the ship stops).
        extra_ships: allow more ships than the box's six (the fleet game with 3 players
            x 3 ships; I29).
        solo_ice_six: solo game: the ice table's 6 ("one iceberg two spaces, or two
            icebergs one space each") is picked by a fair coin (``"random"``) or by the
            player (``"player"``, a decision; I20).
        hexmap: the map.
    """

    num_players: int = 2
    ships_per_player: int = 1
    solo: bool = False
    restart_on_sink: bool = False
    max_turns: int = 100
    max_turns_end: str = "truncate"
    exit_penalties: bool = True
    fleet_end: str = "first_fleet"
    entry_cost: str = "step"
    extra_ships: bool = False
    solo_ice_six: str = "random"
    hexmap: HexMap = field(default_factory=default_map)

    def __post_init__(self) -> None:
        n, k = self.num_players, self.ships_per_player
        if not isinstance(k, int) or not 1 <= k <= MAX_SHIPS_PER_PLAYER:
            raise ValueError(f"icebergs: ships_per_player={k!r} must be 1, 2 or 3")
        if self.solo:
            if n != 1:
                raise ValueError(f"icebergs: the solo game takes num_players=1, got num_players={n}")
            if k != 1:
                raise ValueError(f"icebergs: the solo game has one ship (ships_per_player=1), got {k}")
        elif k > 1:
            if not 2 <= n <= 3:
                raise ValueError(f"icebergs: the fleet game takes num_players=2-3, got num_players={n}")
        elif not 2 <= n <= 6:
            hint = " (num_players=1 needs solo=True)" if n == 1 else ""
            raise ValueError(f"icebergs: the standard game takes num_players=2-6, got num_players={n}{hint}")
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ValueError(f"icebergs: max_turns={self.max_turns!r} must be a positive integer")
        if self.max_turns_end not in END_MAX_TURNS:
            raise ValueError(f"icebergs: max_turns_end={self.max_turns_end!r} is not one of {list(END_MAX_TURNS)}")
        if self.fleet_end not in FLEET_ENDS:
            raise ValueError(f"icebergs: fleet_end={self.fleet_end!r} is not one of {list(FLEET_ENDS)}")
        if self.entry_cost not in ENTRY_COSTS:
            raise ValueError(f"icebergs: entry_cost={self.entry_cost!r} is not one of {list(ENTRY_COSTS)}")
        if self.solo_ice_six not in SOLO_ICE_SIX:
            raise ValueError(f"icebergs: solo_ice_six={self.solo_ice_six!r} is not one of {list(SOLO_ICE_SIX)}")
        if self.solo_ice_six != "random" and not self.solo:
            raise ValueError(f"icebergs: solo_ice_six={self.solo_ice_six!r} is a rule of the solo game (solo=True)")
        if type(self.extra_ships) is not bool:
            raise ValueError(f"icebergs: extra_ships={self.extra_ships!r} must be True or False")
        if n * k > BOX_SHIPS and not self.extra_ships:
            raise ValueError(
                f"icebergs: ships_per_player={k} for {n} players makes {n * k} ships; the box holds {BOX_SHIPS} "
                "(extra_ships=True allows the 3 x 3 fleet beyond the box)"
            )

    def env_options(self) -> dict[str, Any]:
        """The env options that make this config (all but ``num_players``): its fields, with the map as
        ``map_text`` (the map's text round-trips, name included)."""
        options = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("num_players", "hexmap")}
        options["map_text"] = self.hexmap.to_text()
        return options

    @property
    def num_ships(self) -> int:
        return self.num_players * self.ships_per_player

    @property
    def fleet(self) -> bool:
        return self.ships_per_player > 1

    @property
    def ice_choice(self) -> bool:
        """Whether the player picks the line of the solo ice table's 6 (a decision, I20)."""
        return self.solo and self.solo_ice_six == "player"

    @cached_property
    def layout(self) -> ActionLayout:
        return layout_for(self.hexmap.num_spaces, self.hexmap.rows, self.ice_choice)

    @cached_property
    def sea_moves(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Per space: the ``(direction, neighbour)`` pairs that lead to a sea space."""
        m = self.hexmap
        return tuple(
            tuple((d, t) for d, t in enumerate(m.neighbours[s]) if t != OFF_GRID and m.terrain[t] == SEA)
            for s in range(m.num_spaces)
        )

    @cached_property
    def sea_entries(self) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
        """``(row, space)`` of the sea spaces of the east edge (entered from Newfoundland)
        and of the west edge (entered from Alaska), as indexed by :func:`entry_edge`."""
        m = self.hexmap
        east = tuple((r, r * m.cols + m.cols - 1) for r in range(m.rows) if m.terrain[r * m.cols + m.cols - 1] == SEA)
        west = tuple((r, r * m.cols) for r in range(m.rows) if m.terrain[r * m.cols] == SEA)
        return east, west

    @cached_property
    def ice_actions(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
        """Per space: the floe-move and the iceberg-move action ids that the map allows."""
        return _ice_action_table(self.hexmap, self.layout)


def _ice_action_table(m: HexMap, lay: ActionLayout) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    floe_ids, berg_ids = [], []
    for s in range(m.num_spaces):
        dirs = [d for d, t in enumerate(m.neighbours[s]) if t != OFF_GRID and m.terrain[t] == SEA]
        if m.border[s]:
            dirs.append(OFF_MAP_DIR)
        floe_ids.append(tuple(lay.floe + 7 * s + d for d in dirs))
        berg_ids.append(tuple(lay.berg + 7 * s + d for d in dirs))
    return tuple(floe_ids), tuple(berg_ids)


@dataclass
class IcebergsState:
    """Full game state (plain ints and lists).

    Ship ``k`` is ship number ``k % ships_per_player`` of player ``k // ships_per_player``.
    Icebergs have identities (``bergs[i]`` is the space of iceberg ``i``, -1 off the
    map) so that hazards are tracked per ship per iceberg: bit ``i`` of ``faced[k]`` is
    set once ship ``k`` has rolled for iceberg ``i`` in the space where it is now.
    """

    config: IcebergsConfig
    floes: list[int]
    bergs: list[int]
    berg_count: list[int]
    spare_floes: int
    status: list[int]
    pos: list[int]
    fuel: list[int]
    cargo: list[int]
    loaded: list[bool]
    faced: list[int]
    home_rank: list[int]
    order: list[int]
    order_pos: int = -1
    round: int = 0
    current: int = 0
    phase: int = PHASE_MOVE
    resume: int = _R_NEXT_TURN
    die: int = 0
    moves_left: int = 0
    fuel_paid: bool = False
    drifted: bool = False
    turn_over: bool = False
    #: Pending hazard rolls ``[ship, iceberg]``; the first waits for a choice in PHASE_HAZARD.
    hazards: list[list[int]] = field(default_factory=list)
    home_count: int = 0
    first_home: int = -1
    turns: int = 0
    over: bool = False
    truncated: bool = False
    result: list[float] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    #: ``copy()`` is a cheap field-wise copy (search agents use it: ``Simulator.copy``).
    FAST_COPY: ClassVar[bool] = True

    def copy(self) -> IcebergsState:
        """An independent copy: every list is copied (the hazards' pairs too); the config is shared.

        The config is a frozen dataclass (its map too) that no rule ever changes, so sharing it
        is safe; ``copy.deepcopy`` copied it with its map and cached tables every time (about 2.6 ms
        against 7 us on a 4-player position). Every other field is a number, a bool or a list of
        numbers, bools or strings (:func:`~ice_envs.core.state_copy.copy_state`, ``hazards`` two levels).
        """
        return copy_state(self, nested=("hazards",))

    @property
    def deciding_ship(self) -> int:
        """The ship whose owner decides now (the hazard's ship in the hazard phase)."""
        return self.hazards[0][0] if self.phase == PHASE_HAZARD else self.current

    @property
    def deciding_seat(self) -> int:
        return self.deciding_ship // self.config.ships_per_player


def turn_order(num_players: int, ships_per_player: int, start_player: int) -> list[int]:
    """Ship ids in turn order: every player's first ship, then every second ship...

    The fleet game's order (R7.1.1, I17): players alternate and nobody moves two ships
    in a row — ship ``j`` of each player in seat order from the start player.
    """
    return [
        ((start_player + i) % num_players) * ships_per_player + j
        for j in range(ships_per_player)
        for i in range(num_players)
    ]


_STATUS_BY_NAME = {"start": START, "newfoundland": START, "at_sea": AT_SEA, "sea": AT_SEA}
_STATUS_BY_NAME.update({"alaska_loading": ALASKA_LOADING, "alaska_ready": ALASKA_READY, "alaska": ALASKA_READY})
_STATUS_BY_NAME.update({"home": HOME, "sunk": SUNK})


def new_game(
    config: IcebergsConfig,
    rng: IntegerRng,
    *,
    start_player: int | None = None,
    ships: list[dict[str, Any]] | None = None,
    icebergs: list[int] | None = None,
    floes: list[int] | None = None,
    spare_floes: int | None = None,
) -> IcebergsState:
    """Set up the map and start the first turn (the start player's first ship rolls).

    ``start_player`` defaults to a random seat (R1.5, I1: the roll-off). The position
    keys set a custom position: ``icebergs`` (space per iceberg), ``floes`` (space per
    floe, repeated for several), ``spare_floes``, and ``ships``: one dict per ship (in
    ship id order) with ``status`` (a name: start, at_sea, alaska_loading,
    alaska_ready, home, sunk), ``space`` (for ships at sea), ``fuel``, ``cargo``,
    ``loaded`` (been to Alaska).
    """
    m = config.hexmap
    n_ships = config.num_ships
    if start_player is None:
        start_player = int(rng.integers(0, config.num_players))
    if not 0 <= start_player < config.num_players:
        raise ValueError(f"icebergs: start_player={start_player} is not a seat")
    berg_list = list(m.iceberg_starts if icebergs is None else icebergs)
    floe_list = list(m.floe_starts if floes is None else floes)
    for sp in berg_list + floe_list:
        if not (0 <= sp < m.num_spaces and m.terrain[sp] == SEA):
            raise ValueError(f"icebergs: ice may only be placed on sea spaces, got space {sp}")
    floe_counts = [0] * m.num_spaces
    for sp in floe_list:
        floe_counts[sp] += 1
    berg_count = [0] * m.num_spaces
    for sp in berg_list:
        berg_count[sp] += 1
    if spare_floes is None:
        spare_floes = m.spare_floes + len(m.floe_starts) - len(floe_list) if floes is not None else m.spare_floes
        spare_floes = max(0, spare_floes)
    state = IcebergsState(
        config=config,
        floes=floe_counts,
        bergs=berg_list,
        berg_count=berg_count,
        spare_floes=int(spare_floes),
        status=[START] * n_ships,
        pos=[-1] * n_ships,
        fuel=[FULL_FUEL] * n_ships,
        cargo=[0] * n_ships,
        loaded=[False] * n_ships,
        faced=[0] * n_ships,
        home_rank=[-1] * n_ships,
        order=turn_order(config.num_players, config.ships_per_player, start_player),
    )
    if ships is not None:
        if len(ships) != n_ships:
            raise ValueError(f"icebergs: {len(ships)} ships given, the game has {n_ships}")
        for k, spec in enumerate(ships):
            _place_ship(state, k, spec)
    state.result = [0.0] * config.num_players
    _check_end(state)
    _advance(state, rng)
    return state


def _place_ship(state: IcebergsState, k: int, spec: dict[str, Any]) -> None:
    m = state.config.hexmap
    raw = spec.get("status", "start")
    st = _STATUS_BY_NAME.get(str(raw).lower()) if not isinstance(raw, int) else raw
    if st is None or not 0 <= st < NUM_STATUSES:
        raise ValueError(f"icebergs: ship {k}: unknown status {raw!r}; known: {sorted(_STATUS_BY_NAME)}")
    state.status[k] = st
    state.fuel[k] = int(spec.get("fuel", FULL_FUEL))
    state.loaded[k] = bool(spec.get("loaded", st in (ALASKA_READY, HOME)))
    state.cargo[k] = int(spec.get("cargo", FULL_CARGO if state.loaded[k] else 0))
    if st == AT_SEA:
        sp = spec.get("space")
        if sp is None and "row" in spec:
            sp = m.space(int(spec["row"]), int(spec["col"]))
        if sp is None or not (0 <= int(sp) < m.num_spaces and m.terrain[int(sp)] == SEA):
            raise ValueError(f"icebergs: ship {k} is at sea and needs a sea 'space', got {sp!r}")
        state.pos[k] = int(sp)
        # a ship placed in a space with icebergs has already rolled for them
        state.faced[k] = sum(1 << i for i, b in enumerate(state.bergs) if b == int(sp))
    if st == HOME:
        state.home_rank[k] = state.home_count
        state.home_count += 1
        if state.first_home < 0 and state.cargo[k] > 0:
            state.first_home = k


# ------------------------------------------------------------------------------ queries
def penalty(state: IcebergsState, space: int, exclude_ship: int = -1) -> int:
    """Movement penalty of a space (R3.5.1): 3 per iceberg, 1 per floe, 1 per ship (but ``exclude_ship``)."""
    pen = state.floes[space] * FLOE_PENALTY + state.berg_count[space] * ICEBERG_PENALTY
    for k, p in enumerate(state.pos):
        if p == space and k != exclude_ship:
            pen += SHIP_PENALTY
    return pen


def move_cost(state: IcebergsState, ship: int, target: int) -> int:
    """Moves a ship at sea pays to move to the adjacent ``target``: 1 + both penalties (R3.5, I27)."""
    return 1 + penalty(state, state.pos[ship], ship) + penalty(state, target, ship)


def roll_moves(state: IcebergsState) -> int:
    """The Moves the current roll gave (solo: always 5; R2.3, R7.2.2)."""
    return SOLO_MOVES if state.config.solo else state.die


def enter_cost(state: IcebergsState, ship: int, target: int) -> int:
    """Moves to enter the map at edge space ``target`` (R3.4): 1 + its penalties (``entry_cost="step"``,
    I2) or all the Moves of the roll (``"all_moves"``)."""
    if state.config.entry_cost == "all_moves":
        return roll_moves(state)
    return 1 + penalty(state, target, ship)


def can_enter_now(state: IcebergsState) -> bool:
    """``entry_cost="all_moves"``: whether the whole roll is still unspent, as entering needs (R3.4, I2)."""
    return state.moves_left >= 1 and state.moves_left == roll_moves(state)


def exit_cost(state: IcebergsState, ship: int) -> int:
    """Moves to leave the map by an edge: 1 (+ the penalties of the space left, by option; R3.6, I9)."""
    if state.config.exit_penalties:
        return 1 + penalty(state, state.pos[ship], ship)
    return 1


def entry_edge(state: IcebergsState, ship: int) -> list[int]:
    """Row-indexed edge spaces where a waiting ship may enter (east from Newfoundland, west from Alaska)."""
    m = state.config.hexmap
    col = m.cols - 1 if state.status[ship] == START else 0
    return [r * m.cols + col for r in range(m.rows)]


def can_use_fuel(state: IcebergsState, ship: int) -> bool:
    """The ship may make a (non-drift) move now: solo, fuel already paid this turn, or fuel left (R2.6)."""
    return state.config.solo or state.fuel_paid or state.fuel[ship] > 0


def legal_actions(state: IcebergsState) -> list[int]:
    """Every legal action id for the deciding player (empty when the game is over)."""
    if state.over:
        return []
    lay = state.config.layout
    if state.phase == PHASE_HAZARD:
        return [lay.lose_fuel, lay.lose_cargo]
    if state.phase == PHASE_ICE_CHOICE:
        return [lay.ice_one_berg, lay.ice_two_bergs]
    if state.phase == PHASE_ONE:
        return _one_actions(state, lay)
    return _move_actions(state, lay)


def _drift_actions(state: IcebergsState, lay: ActionLayout, k: int, out: list[int]) -> None:
    m = state.config.hexmap
    p = state.pos[k]
    terrain = m.terrain
    for d, t in enumerate(m.neighbours[p]):
        if t != OFF_GRID and terrain[t] == SEA:
            out.append(lay.drift + d)
    col = p % m.cols
    if col == 0 and not state.loaded[k]:
        out.append(lay.drift_alaska)
    if col == m.cols - 1 and state.loaded[k]:
        out.append(lay.drift_home)


def _one_actions(state: IcebergsState, lay: ActionLayout) -> list[int]:
    # rolled a one (R3.9, I11): place a spare floe, drift, or neither
    m = state.config.hexmap
    out: list[int] = []
    if state.spare_floes > 0:
        terrain = m.terrain
        out.extend(lay.place + s for s in range(m.num_spaces) if terrain[s] == SEA)
    k = state.current
    if state.status[k] == AT_SEA:
        _drift_actions(state, lay, k, out)
    out.append(lay.decline)
    return out


def _move_actions(state: IcebergsState, lay: ActionLayout) -> list[int]:
    """Legal actions while moving (R3.1-R3.8; solo drift R7.2.4), built in ascending id order.

    Penalties are inlined (``floes + 3 * icebergs + ships``, counting ships with
    ``list.count``) and the ice moves are gathered from the per-space action tables.
    """
    cfg = state.config
    k = state.current
    ml = state.moves_left
    st = state.status[k]
    out: list[int] = []
    drift: list[int] = []
    enter: list[int] = []
    floes = state.floes
    berg_count = state.berg_count
    pos = state.pos
    if st == AT_SEA:
        p = pos[k]
        if ml >= 1 and (cfg.solo or state.fuel_paid or state.fuel[k] > 0):
            # the ship itself stands at p: it does not count in its own penalty
            pen_p = floes[p] * FLOE_PENALTY + berg_count[p] * ICEBERG_PENALTY + (pos.count(p) - 1) * SHIP_PENALTY
            budget = ml - 1 - pen_p  # what the target space's penalty may be at most
            if budget >= 0:
                for d, t in cfg.sea_moves[p]:
                    # t != p, so ship k is never among the ships counted at t
                    pen_t = floes[t] * FLOE_PENALTY + berg_count[t] * ICEBERG_PENALTY + pos.count(t) * SHIP_PENALTY
                    if pen_t <= budget:
                        out.append(d)
            exit_moves = 1 + pen_p if cfg.exit_penalties else 1
            if exit_moves <= ml:
                col = p % cfg.hexmap.cols
                if col == 0 and not state.loaded[k]:
                    out.append(lay.to_alaska)
                if col == cfg.hexmap.cols - 1 and state.loaded[k]:
                    out.append(lay.to_home)
        if cfg.solo and not state.drifted and state.fuel[k] > 0:
            _drift_actions(state, lay, k, drift)
    elif (st == START or st == ALASKA_READY) and ml >= 1 and can_use_fuel(state, k):
        edge = cfg.sea_entries[0 if st == START else 1]
        if cfg.entry_cost == "all_moves":
            # the whole roll enters any sea space of the edge, whatever its ice (R3.4, I2)
            if can_enter_now(state):
                enter.extend(lay.enter + r for r, _ in edge)
        else:
            # a ship off the map is at no space (pos -1), so every ship counted at t is another one
            for r, t in edge:
                if 1 + floes[t] * FLOE_PENALTY + berg_count[t] * ICEBERG_PENALTY + pos.count(t) * SHIP_PENALTY <= ml:
                    enter.append(lay.enter + r)
    out.append(lay.end_turn)
    out.extend(enter)
    if not cfg.solo and ml >= FLOE_COST:
        floe_ids, berg_ids = cfg.ice_actions
        out.extend(chain.from_iterable(compress(floe_ids, floes)))
        if ml >= ICEBERG_COST:
            for b in sorted({b for b in state.bergs if b >= 0}):
                out.extend(berg_ids[b])
    out.extend(drift)
    return out


def _can_do_more_than_end(state: IcebergsState) -> bool:
    """Whether the mover has any legal action besides ending the turn (cheap check)."""
    cfg = state.config
    ml = state.moves_left
    if ml >= FLOE_COST and not cfg.solo:
        floe_ids, berg_ids = cfg.ice_actions
        if any(compress(floe_ids, state.floes)):
            return True
        if ml >= ICEBERG_COST:
            for b in state.bergs:
                if b >= 0 and berg_ids[b]:
                    return True
    return len(_move_actions(state, cfg.layout)) > 1


def is_over(state: IcebergsState) -> bool:
    return state.over


def outcome(state: IcebergsState) -> np.ndarray:
    """Terminal rewards per seat: winner +1, others -1 (see :func:`_decide`); zeros while on or truncated."""
    return np.asarray(state.result, dtype=np.float64)


def cargo_home(state: IcebergsState) -> list[int]:
    """Cargo brought home per seat (the sum over its ships that are home)."""
    k = state.config.ships_per_player
    out = [0] * state.config.num_players
    for ship, st in enumerate(state.status):
        if st == HOME:
            out[ship // k] += state.cargo[ship]
    return out


def scores(state: IcebergsState) -> np.ndarray:
    """Cargo brought home per seat."""
    return np.asarray(cargo_home(state), dtype=np.float64)


def resample_hidden(state: IcebergsState, seat: int, rng: np.random.Generator) -> IcebergsState:
    """Icebergs has no hidden information (future rolls are not part of the state)."""
    return state.copy()


# ------------------------------------------------------------------------------ apply
def apply(state: IcebergsState, action: int, rng: IntegerRng, *, check: bool = True) -> IcebergsState:
    """Apply ``action`` for the deciding player (mutates and returns ``state``)."""
    if check and action not in legal_actions(state):
        raise ValueError(f"icebergs: action {action} is not legal here; legal: {legal_actions(state)}")
    lay = state.config.layout
    m = state.config.hexmap
    k = state.current
    if state.phase == PHASE_HAZARD:
        _hazard_choice(state, action == lay.lose_fuel, rng)
    elif state.phase == PHASE_ICE_CHOICE:
        _ice_table_six(state, action == lay.ice_two_bergs, rng)
    elif action < 6:
        target = m.neighbours[state.pos[k]][action]
        _pay_ship_move(state, k, move_cost(state, k, target))
        _log(state, f"{_name(state, k)} moves {DIRECTIONS[action]} to {m.label(target)}")
        _ship_to(state, k, target)
        state.resume = _R_MOVE
    elif action == lay.to_alaska or action == lay.to_home:
        _pay_ship_move(state, k, exit_cost(state, k))
        _leave_map(state, k, to_alaska=action == lay.to_alaska)
        state.resume = _R_MOVE
    elif action == lay.end_turn:
        state.resume = _R_END_TURN
    elif action < lay.floe:
        target = entry_edge(state, k)[action - lay.enter]
        _pay_ship_move(state, k, enter_cost(state, k, target))
        _log(state, f"{_name(state, k)} enters the map at {m.label(target)}")
        state.status[k] = AT_SEA
        _ship_to(state, k, target)
        state.resume = _R_MOVE
    elif action < lay.berg:
        s, d = divmod(action - lay.floe, 7)
        state.moves_left -= FLOE_COST
        _move_floe(state, s, d)
        state.resume = _R_MOVE
    elif action < lay.place:
        s, d = divmod(action - lay.berg, 7)
        state.moves_left -= ICEBERG_COST
        _move_berg(state, _berg_at(state, s), d)
        state.resume = _R_MOVE
    elif action < lay.drift:
        s = action - lay.place
        state.spare_floes -= 1
        state.floes[s] += 1
        _log(state, f"a spare ice floe is placed at {m.label(s)}")
        state.resume = _R_REROLL
    elif action < lay.decline:
        _drift(state, k, action - lay.drift, rng)
    else:  # decline
        _log(state, "no floe, no drift")
        state.resume = _R_REROLL
    _advance(state, rng)
    return state


def _name(state: IcebergsState, k: int) -> str:
    owner, j = divmod(k, state.config.ships_per_player)
    return f"player_{owner}" + (f" ship {'abc'[j]}" if state.config.ships_per_player > 1 else "")


def _log(state: IcebergsState, text: str) -> None:
    log = state.log
    log.append(text)
    if len(log) > 12:
        del log[0]


def _roll(rng: IntegerRng) -> int:
    return int(rng.integers(1, 7))


def _pay_ship_move(state: IcebergsState, k: int, cost: int) -> None:
    # R2.5 / I7: one Fuel per turn with a non-drift ship move (solo: none, R7.2.4)
    state.moves_left -= cost
    if not state.fuel_paid:
        state.fuel_paid = True
        if not state.config.solo:
            state.fuel[k] -= 1


def _ship_to(state: IcebergsState, k: int, target: int) -> None:
    """Put ship ``k`` in ``target`` (it is at sea) and queue a hazard roll per iceberg there (R3.10.1)."""
    state.pos[k] = target
    state.faced[k] = 0
    if state.berg_count[target]:
        for i, b in enumerate(state.bergs):
            if b == target:
                state.hazards.append([k, i])


def _leave_map(state: IcebergsState, k: int, *, to_alaska: bool) -> None:
    # R3.6: to Alaska (loading next turn, R3.7) or home (R4.1)
    state.pos[k] = -1
    state.faced[k] = 0
    if to_alaska:
        state.status[k] = ALASKA_LOADING
        _log(state, f"{_name(state, k)} sails to Alaska")
    else:
        _arrive_home(state, k)


def _arrive_home(state: IcebergsState, k: int) -> None:
    state.status[k] = HOME
    if state.first_home >= 0 and state.cargo[k] > 0:
        state.cargo[k] -= 1  # R4.2 / I15: a ship home after the first with Cargo loses 1 on arrival
    elif state.first_home < 0 and state.cargo[k] > 0:
        state.first_home = k
    state.home_rank[k] = state.home_count
    state.home_count += 1
    _log(state, f"{_name(state, k)} is home with {state.cargo[k]} cargo")
    _check_end(state)


def _drift(state: IcebergsState, k: int, code: int, rng: IntegerRng) -> None:
    m = state.config.hexmap
    solo_turn = state.phase == PHASE_MOVE
    if solo_turn:  # the solo game: drifting costs 1 Fuel, once a turn (R7.2.4); otherwise R3.9.2
        state.drifted = True
        state.fuel[k] -= 1
    if code < 6:
        target = m.neighbours[state.pos[k]][code]
        _log(state, f"{_name(state, k)} drifts {DIRECTIONS[code]} to {m.label(target)}")
        _ship_to(state, k, target)
    else:
        _log(state, f"{_name(state, k)} drifts off the {'west' if code == 6 else 'east'} edge")
        _leave_map(state, k, to_alaska=code == 6)
    if solo_turn and not state.over and state.fuel[k] <= 0:
        _solo_out_of_fuel(state)
    state.resume = _R_MOVE if solo_turn else _R_REROLL


def _move_floe(state: IcebergsState, s: int, d: int) -> None:
    m = state.config.hexmap
    state.floes[s] -= 1
    if d == OFF_MAP_DIR:
        state.spare_floes += 1
        _log(state, f"an ice floe leaves the map from {m.label(s)}")
    else:
        t = m.neighbours[s][d]
        state.floes[t] += 1
        _log(state, f"an ice floe moves {DIRECTIONS[d]} from {m.label(s)} to {m.label(t)}")


def _berg_at(state: IcebergsState, s: int) -> int:
    return state.bergs.index(s)


def _move_berg(state: IcebergsState, i: int, d: int) -> None:
    """Move iceberg ``i`` one space (R3.2, R3.3); ships in the new space must roll for it (R3.10.1, I12)."""
    m = state.config.hexmap
    s = state.bergs[i]
    state.berg_count[s] -= 1
    bit = 1 << i
    for k, p in enumerate(state.pos):
        if p == s:
            state.faced[k] &= ~bit
    if d == OFF_MAP_DIR:
        state.bergs[i] = -1
        _log(state, f"iceberg {i} leaves the map from {m.label(s)}")
        return
    t = m.neighbours[s][d]
    state.bergs[i] = t
    state.berg_count[t] += 1
    _log(state, f"iceberg {i} moves {DIRECTIONS[d]} from {m.label(s)} to {m.label(t)}")
    order = state.order
    start = order.index(state.current) if state.current in order else 0
    for j in range(len(order)):
        k = order[(start + j) % len(order)]
        if state.pos[k] == t:
            state.hazards.append([k, i])


# ------------------------------------------------------------------------------ hazards
def _resolve_hazards(state: IcebergsState, rng: IntegerRng) -> bool:
    """Roll the pending hazards in order (R3.10.2, I13, I24); False when one waits for the owner's choice."""
    while state.hazards:
        k, i = state.hazards[0]
        if state.status[k] != AT_SEA:
            state.hazards.pop(0)
            continue
        if state.bergs[i] == state.pos[k]:
            state.faced[k] |= 1 << i
        roll = _roll(rng)
        if roll >= 5:
            _log(state, f"{_name(state, k)} rolls {roll} for iceberg {i}: it must lose 1 fuel or 1 cargo")
            if state.fuel[k] > 0 and state.cargo[k] > 0:
                state.phase = PHASE_HAZARD  # the owner chooses; the entry stays at the head
                return False
            state.hazards.pop(0)
            if state.fuel[k] > 0:
                state.fuel[k] -= 1
            elif state.cargo[k] > 0:
                state.cargo[k] -= 1
            _second_roll(state, k, rng)
        else:
            state.hazards.pop(0)
            _log(state, f"{_name(state, k)} rolls {roll} for iceberg {i}: no harm")
        if state.over:
            state.hazards.clear()
            return True
    return True


def _hazard_choice(state: IcebergsState, lose_fuel: bool, rng: IntegerRng) -> None:
    k, _ = state.hazards.pop(0)
    if lose_fuel:
        state.fuel[k] -= 1
    else:
        state.cargo[k] -= 1
    _log(state, f"{_name(state, k)} loses 1 {'fuel' if lose_fuel else 'cargo'}")
    state.phase = PHASE_MOVE
    _second_roll(state, k, rng)
    if state.over:
        state.hazards.clear()


def _second_roll(state: IcebergsState, k: int, rng: IntegerRng) -> None:
    if state.config.solo and state.fuel[k] <= 0:
        _solo_out_of_fuel(state)
        return
    roll = _roll(rng)
    if roll == 6:
        _log(state, f"{_name(state, k)} rolls 6 again: it sinks!")
        _sink(state, k)
    else:
        _log(state, f"{_name(state, k)} rolls {roll} again: it stays afloat")


def _sink(state: IcebergsState, k: int) -> None:
    # R3.11 / I14 (restart: R7.3)
    state.pos[k] = -1
    state.faced[k] = 0
    state.hazards[:] = [h for h in state.hazards if h[0] != k]
    if k == state.current:
        state.turn_over = True
    if state.config.restart_on_sink:
        # R7.3 / I14: start again off the last map edge entered, with a full load
        state.status[k] = ALASKA_READY if state.loaded[k] else START
        state.fuel[k] = FULL_FUEL
        state.cargo[k] = FULL_CARGO if state.loaded[k] else 0
        _log(state, f"{_name(state, k)} starts again from the {'west' if state.loaded[k] else 'east'} edge")
        return
    state.status[k] = SUNK
    _check_end(state)


def _solo_out_of_fuel(state: IcebergsState) -> None:
    # R7.2.6 / I21
    _log(state, "the ship is out of fuel: the solo game is lost")
    state.result = [-1.0]
    _set_over(state)


# ------------------------------------------------------------------------------ flow
def _advance(state: IcebergsState, rng: IntegerRng) -> None:
    """Run everything that needs no decision until someone must decide or the game ends."""
    while not state.over:
        if state.phase == PHASE_ICE_CHOICE:
            return  # the solo player picks the ice table's line (I20)
        if state.hazards:
            if not _resolve_hazards(state, rng):
                return
            continue
        r = state.resume
        if r == _R_MOVE:
            if state.turn_over:
                state.resume = _R_END_TURN
                continue
            state.phase = PHASE_MOVE
            if not _can_do_more_than_end(state):
                state.resume = _R_END_TURN
                continue
            return
        if r == _R_ONE:
            state.phase = PHASE_ONE
            return
        if r == _R_REROLL:
            if state.turn_over:
                state.resume = _R_END_TURN
                continue
            die = _roll(rng)
            state.die = die
            _log(state, f"{_name(state, state.current)} rolls {die}")
            if die == 1:
                state.moves_left = 0
                state.resume = _R_ONE
            else:
                state.moves_left = die
                state.resume = _R_MOVE
            continue
        if r == _R_END_TURN:
            _end_turn(state, rng)
            state.resume = _R_NEXT_TURN
            continue
        _next_turn(state, rng)


def _end_turn(state: IcebergsState, rng: IntegerRng) -> None:
    # R2.7: Cargo loss at sea (R4.2, I15); solo ice movement (R7.2.5)
    k = state.current
    if state.first_home >= 0 and state.status[k] == AT_SEA and state.cargo[k] > 0:
        state.cargo[k] -= 1
        _log(state, f"{_name(state, k)} loses 1 cargo (a ship is already home)")
    if state.config.solo:
        _solo_ice_movement(state, rng)


def _next_turn(state: IcebergsState, rng: IntegerRng) -> None:
    # R2.1-R2.3: next ship in order (home or sunk skipped), loading in Alaska (R3.7), the roll
    cfg = state.config
    order = state.order
    while not state.over:
        state.order_pos += 1
        if state.order_pos >= len(order):
            state.order_pos = 0
            state.round += 1
            if state.round >= cfg.max_turns:
                _end_by_max_turns(state)
                return
        k = order[state.order_pos]
        st = state.status[k]
        if st == HOME or st == SUNK:
            continue
        state.current = k
        state.turns += 1
        if st == ALASKA_LOADING:
            state.status[k] = ALASKA_READY
            state.loaded[k] = True
            state.fuel[k] = FULL_FUEL
            state.cargo[k] = FULL_CARGO
            _log(state, f"{_name(state, k)} spends the turn loading 8 fuel and 8 cargo in Alaska")
            if cfg.solo:
                _solo_ice_movement(state, rng)
                if state.hazards or state.phase == PHASE_ICE_CHOICE:
                    state.resume = _R_NEXT_TURN
                    return
            continue
        state.fuel_paid = False
        state.drifted = False
        state.turn_over = False
        state.die = 0
        if cfg.solo:
            state.moves_left = SOLO_MOVES
            state.resume = _R_MOVE
        else:
            state.resume = _R_REROLL
        return


def _solo_ice_movement(state: IcebergsState, rng: IntegerRng) -> None:
    """The Ice Movement Table (R7.2.5, I20, I25): random ice moves after each solo turn.

    On a 6 the table's two lines are picked by a fair coin, or (``solo_ice_six="player"``,
    with an iceberg on the map) the player picks: the phase becomes ``PHASE_ICE_CHOICE``
    and :func:`_ice_table_six` moves the ice once the player has chosen.
    """
    roll = _roll(rng)
    floes, bergs, berg_steps = {1: (1, 0, 1), 2: (2, 0, 1), 3: (3, 0, 1), 4: (1, 1, 1), 5: (2, 1, 1)}.get(
        roll, (0, 1, 2)
    )
    _log(state, f"ice movement roll {roll}")
    if roll == 6 and state.config.ice_choice:
        if any(b >= 0 for b in state.bergs):
            state.phase = PHASE_ICE_CHOICE
        return
    if roll == 6 and int(rng.integers(0, 2)) == 1:
        bergs, berg_steps = 2, 1  # the table's alternative on a 6 (two icebergs), chosen at random (I20)
    _move_table_ice(state, rng, floes, bergs, berg_steps)


def _ice_table_six(state: IcebergsState, two_bergs: bool, rng: IntegerRng) -> None:
    """The player's pick of the ice table's 6 (I20): one iceberg two spaces, or two icebergs one space each."""
    state.phase = PHASE_MOVE
    _log(state, "the ice table's 6: " + ("two icebergs one space each" if two_bergs else "one iceberg two spaces"))
    _move_table_ice(state, rng, 0, 2 if two_bergs else 1, 1 if two_bergs else 2)


def _move_table_ice(state: IcebergsState, rng: IntegerRng, floes: int, bergs: int, berg_steps: int) -> None:
    """Move ``bergs`` random icebergs ``berg_steps`` random spaces each, then ``floes`` random floes one space."""
    for i in _pick_distinct(rng, [i for i, b in enumerate(state.bergs) if b >= 0], bergs):
        for _ in range(berg_steps):
            d = _random_sea_direction(state, state.bergs[i], rng)
            if d >= 0:
                _move_berg(state, i, d)
    floe_pieces = [s for s in range(len(state.floes)) for _ in range(state.floes[s])]
    for idx in _pick_distinct(rng, list(range(len(floe_pieces))), floes):
        s = floe_pieces[idx]
        d = _random_sea_direction(state, s, rng)
        if d >= 0:
            _move_floe(state, s, d)
            floe_pieces[idx] = state.config.hexmap.neighbours[s][d]


def _pick_distinct(rng: IntegerRng, items: list[int], count: int) -> list[int]:
    pool = list(items)
    out = []
    for _ in range(min(count, len(pool))):
        out.append(pool.pop(int(rng.integers(0, len(pool)))))
    return out


def _random_sea_direction(state: IcebergsState, s: int, rng: IntegerRng) -> int:
    m = state.config.hexmap
    dirs = [d for d, t in enumerate(m.neighbours[s]) if t != OFF_GRID and m.terrain[t] == SEA]
    if not dirs:
        return -1
    return dirs[int(rng.integers(0, len(dirs)))]


# ------------------------------------------------------------------------------ the end
def _check_end(state: IcebergsState) -> None:
    # R5.1 (I16), fleet R5.2 / R7.1.2 (I18), solo R7.2.6 (I21)
    if state.over:
        return
    cfg = state.config
    status = state.status
    if cfg.solo:
        st = status[0]
        if st == HOME:
            c = state.cargo[0]
            state.result = [1.0 if c >= SOLO_WIN_CARGO else (-1.0 if c < SOLO_LOSE_BELOW else 0.0)]
            _set_over(state)
        elif st == SUNK:
            state.result = [-1.0]
            _set_over(state)
        return
    if all(st == HOME or st == SUNK for st in status):
        _decide(state)
        return
    if cfg.fleet and cfg.fleet_end == "first_fleet":
        k = cfg.ships_per_player
        for p in range(cfg.num_players):
            mine = status[p * k : (p + 1) * k]
            if all(st == HOME or st == SUNK for st in mine) and HOME in mine:
                _decide(state)
                return


def _decide(state: IcebergsState) -> None:
    """Most Cargo home wins (fleet: summed over the player's ships); ties to the first home (R6.1, R6.2).

    A player with no Cargo home cannot win; if nobody has Cargo home, nobody wins and
    every seat gets -1 (R6.3, I16). Solo: R7.2.6.
    """
    cfg = state.config
    if cfg.solo:
        c = state.cargo[0] if state.status[0] == HOME else 0
        state.result = [1.0 if c >= SOLO_WIN_CARGO else (-1.0 if c < SOLO_LOSE_BELOW else 0.0)]
        _set_over(state)
        return
    totals = cargo_home(state)
    best = None
    for p in range(cfg.num_players):
        if totals[p] <= 0:
            continue
        ranks = [
            state.home_rank[s]
            for s in range(p * cfg.ships_per_player, (p + 1) * cfg.ships_per_player)
            if state.status[s] == HOME and state.cargo[s] > 0
        ]
        key = (-totals[p], min(ranks))
        if best is None or key < best[0]:
            best = (key, p)
    state.result = [-1.0] * cfg.num_players
    if best is not None:
        state.result[best[1]] = 1.0
    _set_over(state)


def winner(state: IcebergsState) -> int:
    """The winning seat, or -1 (game on, truncated, nobody won, or a solo game not won)."""
    if not state.over:
        return -1
    for p, r in enumerate(state.result):
        if r > 0:
            return p
    return -1


def _end_by_max_turns(state: IcebergsState) -> None:
    # R5.4 / R7.5, I22
    _log(state, f"max_turns={state.config.max_turns} reached")
    if state.config.max_turns_end == "decide":
        _decide(state)
    else:
        state.truncated = True
        state.result = [0.0] * state.config.num_players
        _set_over(state)


def _set_over(state: IcebergsState) -> None:
    state.over = True
    state.phase = PHASE_OVER
    state.hazards.clear()


# ------------------------------------------------------------------------------ validating a loaded state


def check_state(state: IcebergsState, config: IcebergsConfig) -> None:
    """Raise ``ValueError`` naming the problem unless ``state`` is a possible position of a game of ``config``.

    Checks every field's type, length and range; ice only on sea spaces, no more icebergs and
    floes than the map has (ice is never created), the iceberg counts against the icebergs;
    each ship's status against its space, Fuel, Cargo and whether it has loaded; the arrival
    order home; the turn order and phase; the pending hazards.
    """
    if state.config != config:
        raise ValueError("its config (players, ships, variant, max_turns, map) differs from this env's")
    m = config.hexmap
    S = m.num_spaces
    floes = _check_ints("floes", state.floes, S, 0, S * (len(m.floe_starts) + m.spare_floes))
    bergs = _check_ints("bergs", state.bergs, None, -1, S - 1)
    if len(bergs) > len(m.iceberg_starts):
        raise ValueError(f"{len(bergs)} icebergs; the map has {len(m.iceberg_starts)}")
    for s in range(S):
        if m.terrain[s] != SEA and floes[s]:
            raise ValueError(f"ice floes on the ice island {m.label(s)}")
    for i, b in enumerate(bergs):
        if b >= 0 and m.terrain[b] != SEA:
            raise ValueError(f"iceberg {i} is on the ice island {m.label(b)}")
    counts = [0] * S
    for b in bergs:
        if b >= 0:
            counts[b] += 1
    if _check_ints("berg_count", state.berg_count, S, 0, len(bergs)) != counts:
        raise ValueError("berg_count does not count the icebergs in each space")
    total = len(m.floe_starts) + m.spare_floes
    spare = _check_int("spare_floes", state.spare_floes, 0, total)
    if sum(floes) + spare > total:
        raise ValueError(f"{sum(floes)} floes on the map and {spare} spare; the map has {total} in all")
    n_ships = config.num_ships
    status = _check_ints("status", state.status, n_ships, START, SUNK)
    pos = _check_ints("pos", state.pos, n_ships, -1, S - 1)
    fuel = _check_ints("fuel", state.fuel, n_ships, 0, FULL_FUEL)
    cargo = _check_ints("cargo", state.cargo, n_ships, 0, FULL_CARGO)
    _check_ints("faced", state.faced, n_ships, 0, (1 << len(bergs)) - 1)
    home_rank = _check_ints("home_rank", state.home_rank, n_ships, -1, n_ships - 1)
    loaded = state.loaded
    if not isinstance(loaded, list) or len(loaded) != n_ships or any(type(x) is not bool for x in loaded):
        raise ValueError(f"loaded must be a list of {n_ships} True/False")
    for k in range(n_ships):
        st = status[k]
        if (pos[k] >= 0) != (st == AT_SEA):
            raise ValueError(f"ship {k}: a ship is on a space exactly when it is at sea ({STATUS_NAMES[st]}, {pos[k]})")
        if pos[k] >= 0 and m.terrain[pos[k]] != SEA:
            raise ValueError(f"ship {k} is on the ice island {m.label(pos[k])}")
        if st in (START, ALASKA_LOADING) and loaded[k] or st in (ALASKA_READY, HOME) and not loaded[k]:
            raise ValueError(f"ship {k}: {STATUS_NAMES[st]} contradicts loaded={loaded[k]}")
        if cargo[k] and not loaded[k]:
            raise ValueError(f"ship {k} carries Cargo without having loaded in Alaska")
        if (home_rank[k] >= 0) != (st == HOME):
            raise ValueError(f"ship {k}: an arrival rank exactly when home")
    ranks = sorted(r for r in home_rank if r >= 0)
    if ranks != list(range(len(ranks))) or _check_int("home_count", state.home_count, 0, n_ships) != len(ranks):
        raise ValueError(f"the arrival ranks {home_rank} and home_count {state.home_count} do not agree")
    first = _check_int("first_home", state.first_home, -1, n_ships - 1)
    if first >= 0 and status[first] != HOME:
        raise ValueError(f"first_home ship {first} is not home")
    order = _check_ints("order", state.order, n_ships, 0, n_ships - 1)
    n = config.num_players
    if not any(order == turn_order(n, config.ships_per_player, p) for p in range(n)):
        raise ValueError(f"order {order} is not the turn order from any start player")
    _check_int("order_pos", state.order_pos, -1, n_ships - 1)
    _check_int("round", state.round, 0, config.max_turns)
    _check_int("current", state.current, 0, n_ships - 1)
    phase = _check_int("phase", state.phase, PHASE_MOVE, PHASE_ICE_CHOICE if config.ice_choice else PHASE_OVER)
    resume = _check_int("resume", state.resume, _R_MOVE, _R_NEXT_TURN)
    _check_int("die", state.die, 0, 6)
    _check_int("moves_left", state.moves_left, 0, max(6, SOLO_MOVES))
    _check_int("turns", state.turns, 0, 1 << 62)
    for name in ("fuel_paid", "drifted", "turn_over", "over", "truncated"):
        if type(getattr(state, name)) is not bool:
            raise ValueError(f"{name} must be True or False, got {getattr(state, name)!r}")
    if state.over != (phase == PHASE_OVER) or (state.truncated and not state.over):
        raise ValueError(f"phase {phase}, over={state.over}, truncated={state.truncated} do not agree")
    hazards = state.hazards
    if not isinstance(hazards, list):
        raise ValueError("hazards must be a list of [ship, iceberg] pairs")
    for h in hazards:
        if not isinstance(h, list) or len(h) != 2:
            raise ValueError(f"hazard {h!r} is not a [ship, iceberg] pair")
        _check_int("a hazard's ship", h[0], 0, n_ships - 1)
        _check_int("a hazard's iceberg", h[1], 0, len(bergs) - 1)
    if phase == PHASE_HAZARD:
        k, i = hazards[0] if hazards else (-1, -1)
        if k < 0 or status[k] != AT_SEA or not (fuel[k] > 0 and cargo[k] > 0):
            raise ValueError("the hazard choice needs a pending hazard of a ship at sea with Fuel and Cargo")
    if state.over and hazards:
        raise ValueError("a finished game has no pending hazards")
    if phase == PHASE_ICE_CHOICE and (hazards or resume != _R_NEXT_TURN or all(b < 0 for b in bergs)):
        raise ValueError("the ice table's choice comes between turns, with an iceberg on the map and no hazard pending")
    result = state.result
    if (
        not isinstance(result, list)
        or len(result) != n
        or any(type(r) is not float or r not in (-1.0, 0.0, 1.0) for r in result)
    ):
        raise ValueError(f"result must be {n} rewards of -1.0, 0.0 or 1.0")
    if not state.over and any(result):
        raise ValueError("a game still going has no result")
    log = state.log
    if not isinstance(log, list) or len(log) > 12 or any(not isinstance(x, str) or len(x) > 200 for x in log):
        raise ValueError("log must be at most 12 short strings")
