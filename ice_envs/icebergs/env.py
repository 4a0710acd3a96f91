"""
# Icebergs

| Import             | `from ice_envs import icebergs_v1`                          |
|--------------------|-------------------------------------------------------------|
| Actions            | Discrete                                                    |
| Parallel API       | No                                                          |
| Manual Control     | `ice-envs play icebergs`                                  |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`                 |
| Agents             | 2-6 (standard), 2-3 (fleet), 1 (solo)                       |
| Action Shape       | Discrete(1392) with the default 7x13 map                    |
| Action Values      | Discrete(1392) (1394 with `solo_ice_six="player"`)          |
| Observation Shape  | (1531,) with the default map                                |
| Observation Values | [0, 9] (most entries in [0, 1])                             |

Sail a ship from Newfoundland (the east edge of a hex map) to Alaska (off the west
edge), load 8 Fuel and 8 Cargo, and bring as much Cargo home as you can. Each turn
you roll one die for Moves and spend them on ice floes (1 Move a space), icebergs
(3 Moves a space) and your ship (1 Move plus the penalties of the spaces it leaves
and enters). Icebergs that meet ships force hazard rolls that can cost Fuel or Cargo
or sink the ship. Rules and every interpretation: `docs/rules/icebergs.md`.

## Arguments

``` python
icebergs_v1.env(num_players=2, fleet=False, ships_per_player=None, solo=False,
                restart_on_sink=False, max_turns=100, max_turns_end="truncate",
                exit_penalties=True, fleet_end="first_fleet", entry_cost="step",
                extra_ships=False, solo_ice_six="random", map="default",
                map_text=None, render_mode=None, illegal_action="raise",
                reward_mode="outcome", max_cycles=None)
```

`num_players`: 2-6; 2-3 in the fleet game; 1 in the solo game.
`fleet`: the fleet game with the box's 6 ships: 3 each for 2 players, 2 each for 3
players (or set `ships_per_player` to 2 or 3). `extra_ships`: allow more ships than
the box's 6 — the 3 players x 3 ships fleet, an extension beyond the box (default
`False`: `ships_per_player=3` with 3 players raises `OptionError`).
`solo`: the solo game (one ship, 5 Moves a turn, random ice movement).
`restart_on_sink`: the rulebook's optional rule (a sunk ship starts again from the
last map edge it entered with a full load).
`max_turns`: the game stops after this many rounds (every ship one turn a round);
`max_turns_end="truncate"` (default) truncates the episode (all agents get
`truncations=True`, outcome reward 0), `"decide"` ends it as a game decided on the
Cargo already home (ships still out bring nothing).
`exit_penalties`: leaving the map costs 1 + the penalties of the space left (default)
or a flat 1 Move. `entry_cost`: entering the map (from Newfoundland or Alaska) costs
`"step"` (default: 1 + the penalties of the space entered; the ship may sail on with
the Moves left) or `"all_moves"` (the rulebook's "using all of the Moves": the whole
roll, unspent, enters any sea space of the edge whatever its ice, and the ship stops).
`solo_ice_six`: solo game: the ice table's 6 (one iceberg two spaces, or two icebergs
one space each) is picked by a fair coin (`"random"`, default) or by the player
(`"player"`: two more actions, a decision after the table's roll).
`fleet_end`: `"first_fleet"` (default: the fleet game ends when a player's ships are
all home or sunk) or `"all_ships"`.
`map`: a packaged map name (`"default"`, `"strait"`) or a path to a map file;
`map_text`: a map given as text (see `ice_envs/icebergs/hexmap.py` for the format).
A bad map raises `OptionError` naming the line.

`reset(seed, options)` accepts `options={"start_player": p, "ships": [{"status":
"at_sea", "space": s, "fuel": 5, "cargo": 0}, ...], "icebergs": [s, ...], "floes": [s,
...], "spare_floes": n}` (spaces as indices or `[row, col]` pairs) to start from a given
position; the start player's first ship then rolls.

## Observation Space

A dict with `"observation"` (float32, shape `(13*S + 18*16 + 17 + 43,)`, S = spaces of
the map, 91 by default: 1531) and `"action_mask"` (int8). The observation is the observing
player's view (the game has no hidden information); seats are in relative order
(self, the next player to the left, ...). The first 13 pieces are planes of S spaces
(together `obs[:13*S].reshape(13, rows, cols)`), then the ship slots, then 17 global
features, then (v1) the turn order: every ship's place in it, the ship to move next
and the start seat (relative seats), and the solo ice table's choice. The pieces, in
order, for the default 7x13 map (`layout_for(config)` declares them for any map; a test
keeps this table equal to it):

| Piece             | Offsets   | Size         | Range  | Meaning                                                                             |
|-------------------|-----------|--------------|--------|-------------------------------------------------------------------------------------|
| `sea`             | 0-90      | 91 (7x13)    | [0, 1] | plane: sea space                                                                    |
| `island`          | 91-181    | 91 (7x13)    | [0, 1] | plane: ice island space                                                             |
| `west_edge`       | 182-272   | 91 (7x13)    | [0, 1] | plane: west edge (to Alaska) sea space                                              |
| `east_edge`       | 273-363   | 91 (7x13)    | [0, 1] | plane: east edge (to Newfoundland) sea space                                        |
| `floes`           | 364-454   | 91 (7x13)    | [0, 9] | plane: ice floes in the space / 4                                                   |
| `icebergs`        | 455-545   | 91 (7x13)    | [0, 2] | plane: icebergs in the space / 3                                                    |
| `ships`           | 546-1091  | 546 (6x7x13) | [0, 1] | planes: ships of relative seat 0 (own) .. 5 in the space / 3                        |
| `turn_ship`       | 1092-1182 | 91 (7x13)    | [0, 1] | plane: the ship whose turn it is                                                    |
| `ship_slots`      | 1183-1470 | 288 (6x3x16) | [0, 1] | ship slots: relative seat x ship index x 16 features (below)                        |
| `moves_left`      | 1471      | 1            | [0, 1] | Moves left / 6                                                                      |
| `die`             | 1472-1477 | 6            | [0, 1] | die value one-hot (1..6; none in solo)                                              |
| `phase`           | 1478-1480 | 3            | [0, 1] | phase one-hot (moving, rolled a one, hazard choice)                                 |
| `fuel_paid`       | 1481      | 1            | [0, 1] | Fuel already paid this turn                                                         |
| `drifted`         | 1482      | 1            | [0, 1] | solo drift used this turn                                                           |
| `spare_floes`     | 1483      | 1            | [0, 1] | spare floes / all floes                                                             |
| `home_with_cargo` | 1484      | 1            | [0, 1] | a ship is home with Cargo (the others lose 1 Cargo a turn)                          |
| `round`           | 1485      | 1            | [0, 1] | round / max_turns                                                                   |
| `solo`            | 1486      | 1            | [0, 1] | solo game                                                                           |
| `fleet`           | 1487      | 1            | [0, 1] | fleet game                                                                          |
| `turn_order`      | 1488-1505 | 18 (6x3)     | [0, 1] | ship slots: place in the turn order, the ship to move 1/ships, the next 2/ships ... |
| `next_ship`       | 1506-1523 | 18 (6x3)     | [0, 1] | ship slots: the ship whose turn comes next (home and sunk ships skipped)            |
| `start_seat`      | 1524-1529 | 6            | [0, 1] | relative seat of the start player (its first ship opens each round)                 |
| `ice_choice`      | 1530      | 1            | [0, 1] | solo: picking the ice table's line after a 6 (solo_ice_six='player')                |

Ship features (the last axis of `ship_slots`): 0 the ship exists, 1 Fuel / 8, 2 Cargo / 8,
3-8 status one-hot (in Newfoundland, at sea, in Alaska loading, in Alaska loaded,
home, sunk), 9 has loaded in Alaska, 10 row / (rows-1) and 11 column / (cols-1) when
at sea, 12 its turn now, 13 must make the hazard choice now, 14 arrival order home
(rank / ships, 0 if not home), 15 first ship home with Cargo.

The turn-order pieces (all zero once the game is over): `turn_order` gives each ship
slot in use its place in the turn order counted from the ship whose turn it is (that
ship 1/ships, the ship after it 2/ships, ..., ships home or sunk included, so that two
fleet positions differing only in the start player are told apart); `next_ship` marks
the ship that takes the next turn (the next one in the order that is not home or sunk;
a ship loading in Alaska counts, as its turn is spent loading); `start_seat` marks the
relative seat of the start player, whose first ship opens every round (the `round`
counter and `max_turns` count from it). `ice_choice` is 1 while the solo player picks
the ice table's line (`solo_ice_six="player"`; `phase` is then all zero).

## Action Space

Flat Discrete space laid out by `ice_envs.icebergs.rules.ActionLayout` (S spaces,
R rows; default S=91, R=7):

| Action (default map) | Meaning                                                        |
|----------------------|----------------------------------------------------------------|
| 0-5                  | move the ship whose turn it is: N, NE, SE, S, SW, NW            |
| 6                    | leave by the west edge to Alaska                                |
| 7                    | leave by the east edge home to Newfoundland                     |
| 8                    | end the turn                                                    |
| 9-15                 | enter the map at row r of the edge (east from Newfoundland, west from Alaska) |
| 16-652               | move an ice floe: 16 + 7*space + d (d 0-5 a direction, 6 off the map) |
| 653-1289             | move an iceberg: 653 + 7*space + d                              |
| 1290-1380            | rolled a one: place a spare ice floe on a sea space              |
| 1381-1386            | rolled a one (solo: once a turn, 1 Fuel): drift N..NW            |
| 1387 / 1388          | drift off the west edge to Alaska / off the east edge home       |
| 1389                 | rolled a one: neither, roll again                                |
| 1390 / 1391          | hazard: lose 1 Fuel / lose 1 Cargo (the ship's owner, even off-turn) |
| 1392 / 1393          | `solo_ice_six="player"` only: the ice table's 6 moves one iceberg two spaces / two icebergs one space each |

A hazard caused by another player's iceberg is decided by the owner of the ship hit:
`agent_selection` moves to that player and back. Dice are rolled by the env when
they happen. A turn ends by itself when "end the turn" is the only legal action.

## Rewards

`reward_mode="outcome"`: at the end the winner gets +1 and every other player -1
(nobody with Cargo home: everyone -1). Solo: +1 for 6+ Cargo home, 0 for exactly 5,
-1 otherwise. Truncation by `max_turns` gives 0.
`reward_mode="score"`: the Cargo each player brings home, when it arrives.

## Version History

* v1 (rules fidelity): the observation gains the turn order (`turn_order`,
  `next_ship`, `start_seat`) and `ice_choice`, appended after the v0 pieces (which are
  unchanged); `fleet=True` with 3 players gives the box's 6 ships (2 each; v0 gave 3
  each, now `extra_ships=True`); new options `entry_cost`, `extra_ships`, `solo_ice_six`.
  Every env takes the base option `skip_forced` (apply single-action steps at once); default
  `False`, chosen on the learning curves of docs/training.md ("Forced steps").
* v0: Initial release (ice-envs 0.1.0).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.errors import OptionError
from ice_envs.core.layout import ObservationLayout, Piece
from ice_envs.core.options import check_choice, check_flag, check_int, check_keys
from ice_envs.core.wrapping import make_factories
from ice_envs.icebergs import rules
from ice_envs.icebergs.hexmap import DIRECTIONS, SEA, HexMap, MapError, load_map, packaged_map, parse_map
from ice_envs.icebergs.spec import SPEC

MAX_SEATS = 6
SHIP_SLOTS = MAX_SEATS * rules.MAX_SHIPS_PER_PLAYER
#: Features per ship slot (the last axis of the ``ship_slots`` piece; see the module docstring).
SHIP_FEATURES = 16
#: Largest ``max_turns`` (rounds); the default is 100 and every episode is also capped at
#: ``max_game_length`` decisions (10,000 by default).
MAX_TURNS = 10_000


def _f32_thirds(limit: int) -> dict[float, float]:
    """Map each float32 running sum of 1/3 (0, 1/3, 2/3, ...) to the next one.

    ``obs[i] += 1 / 3`` on a float32 array adds float32(1/3) in float32; starting from 0
    the sums after ``c`` additions are these, so the map replays that addition exactly.
    """
    out: dict[float, float] = {}
    value = np.float32(0.0)
    for _ in range(limit):
        nxt = value + np.float32(1.0 / 3.0)
        out[float(value)] = float(nxt)
        value = nxt
    return out


#: float32 ``+= 1/3`` for the ship planes (at most every ship of the table in one space).
_NEXT_THIRD = _f32_thirds(SHIP_SLOTS + 1)


def layout_for(config: rules.IcebergsConfig) -> ObservationLayout:
    """The observation layout of a configuration (its map sets the planes and the ice bounds)."""
    m = config.hexmap
    grid = (m.rows, m.cols)
    floes_high = max(1.0, (len(m.floe_starts) + m.spare_floes) / 4)
    bergs_high = max(1.0, len(m.iceberg_starts) / 3)
    return ObservationLayout(
        [
            Piece("sea", grid, 0, 1, "plane: sea space"),
            Piece("island", grid, 0, 1, "plane: ice island space"),
            Piece("west_edge", grid, 0, 1, "plane: west edge (to Alaska) sea space"),
            Piece("east_edge", grid, 0, 1, "plane: east edge (to Newfoundland) sea space"),
            Piece("floes", grid, 0, floes_high, "plane: ice floes in the space / 4"),
            Piece("icebergs", grid, 0, bergs_high, "plane: icebergs in the space / 3"),
            Piece("ships", (MAX_SEATS, *grid), 0, 1, "planes: ships of relative seat 0 (own) .. 5 in the space / 3"),
            Piece("turn_ship", grid, 0, 1, "plane: the ship whose turn it is"),
            Piece(
                "ship_slots",
                (MAX_SEATS, rules.MAX_SHIPS_PER_PLAYER, SHIP_FEATURES),
                0,
                1,
                "ship slots: relative seat x ship index x 16 features (below)",
            ),
            Piece("moves_left", 1, 0, 1, "Moves left / 6"),
            Piece("die", 6, 0, 1, "die value one-hot (1..6; none in solo)"),
            Piece("phase", 3, 0, 1, "phase one-hot (moving, rolled a one, hazard choice)"),
            Piece("fuel_paid", 1, 0, 1, "Fuel already paid this turn"),
            Piece("drifted", 1, 0, 1, "solo drift used this turn"),
            Piece("spare_floes", 1, 0, 1, "spare floes / all floes"),
            Piece("home_with_cargo", 1, 0, 1, "a ship is home with Cargo (the others lose 1 Cargo a turn)"),
            Piece("round", 1, 0, 1, "round / max_turns"),
            Piece("solo", 1, 0, 1, "solo game"),
            Piece("fleet", 1, 0, 1, "fleet game"),
            # v1: the turn order; the solo ice table's choice
            Piece(
                "turn_order",
                (MAX_SEATS, rules.MAX_SHIPS_PER_PLAYER),
                0,
                1,
                "ship slots: place in the turn order, the ship to move 1/ships, the next 2/ships ...",
            ),
            Piece(
                "next_ship",
                (MAX_SEATS, rules.MAX_SHIPS_PER_PLAYER),
                0,
                1,
                "ship slots: the ship whose turn comes next (home and sunk ships skipped)",
            ),
            Piece("start_seat", MAX_SEATS, 0, 1, "relative seat of the start player (its first ship opens each round)"),
            Piece("ice_choice", 1, 0, 1, "solo: picking the ice table's line after a 6 (solo_ice_six='player')"),
        ]
    )


def next_ship(state: rules.IcebergsState) -> int:
    """The ship whose turn comes after the current ship's: the next in the turn order that is not
    home or sunk (the current ship itself if it is the only one left; -1 if none is)."""
    order = state.order
    ships = len(order)
    for step in range(1, ships + 1):
        k = order[(state.order_pos + step) % ships]
        if state.status[k] != rules.HOME and state.status[k] != rules.SUNK:
            return k
    return -1


def _resolve_map(map_name: str, map_text: str | None) -> HexMap:
    try:
        if map_text is not None:
            return parse_map(map_text)
        if any(ch in map_name for ch in "/\\") or map_name.endswith(".txt"):
            return load_map(map_name)
        return packaged_map(map_name)
    except MapError as exc:
        raise OptionError(f"{SPEC.env_name}: {exc}") from None


class IcebergsEnv(IceAECEnv):
    """Icebergs as a PettingZoo AEC env (see the module docstring)."""

    metadata = {**IceAECEnv.metadata, "name": SPEC.env_name}
    min_players = 1
    max_players = 6
    engine = rules
    reset_option_keys = ("start_player", "ships", "floes", "icebergs", "spare_floes")
    #: 20x the longest heuristic game seen (405 decisions, 3-player fleet), rounded up; random play's bound
    #: is 6,000 (docs/rules/icebergs.md).
    default_max_decisions = 10_000

    def __init__(
        self,
        num_players: int = 2,
        fleet: bool = False,
        ships_per_player: int | None = None,
        solo: bool = False,
        restart_on_sink: bool = False,
        max_turns: int = 100,
        max_turns_end: str = "truncate",
        exit_penalties: bool = True,
        fleet_end: str = "first_fleet",
        entry_cost: str = "step",
        extra_ships: bool = False,
        solo_ice_six: str = "random",
        map: str = "default",
        map_text: str | None = None,
        **common: Any,
    ) -> None:
        n = self.check_num_players(num_players)
        name = SPEC.env_name
        fleet = check_flag(name, "fleet", fleet)
        solo = check_flag(name, "solo", solo)
        restart_on_sink = check_flag(name, "restart_on_sink", restart_on_sink)
        exit_penalties = check_flag(name, "exit_penalties", exit_penalties)
        extra_ships = check_flag(name, "extra_ships", extra_ships)
        ships_per_player = check_int(
            name, "ships_per_player", ships_per_player, low=1, high=rules.MAX_SHIPS_PER_PLAYER, allow_none=True
        )
        max_turns = check_int(name, "max_turns", max_turns, low=1, high=MAX_TURNS)
        check_choice(name, "max_turns_end", max_turns_end, rules.END_MAX_TURNS)
        check_choice(name, "fleet_end", fleet_end, rules.FLEET_ENDS)
        check_choice(name, "entry_cost", entry_cost, rules.ENTRY_COSTS)
        check_choice(name, "solo_ice_six", solo_ice_six, rules.SOLO_ICE_SIX)
        if solo_ice_six != "random" and not solo:
            raise OptionError(f"{name}: solo_ice_six={solo_ice_six!r} is a rule of the solo game (needs solo=True)")
        if not isinstance(map, (str, os.PathLike)):
            raise OptionError(f"{name}: map must be a packaged map name or a path, got {map!r}")
        if map_text is not None and not isinstance(map_text, str):
            raise OptionError(f"{name}: map_text must be the map as a string, got {type(map_text).__name__}")
        if ships_per_player is None:
            ships_per_player = rules.fleet_ships(n, extra_ships) if fleet else 1
        elif fleet and ships_per_player == 1:
            raise OptionError(
                f"{SPEC.env_name}: fleet=True needs ships_per_player 2 or 3 (or None: the box's 6 ships shared)"
            )
        if solo and (fleet or ships_per_player != 1):
            raise OptionError(f"{SPEC.env_name}: the solo game has one ship; do not combine solo with fleet")
        hexmap = _resolve_map(os.fspath(map), map_text)
        try:
            self.config = rules.IcebergsConfig(
                num_players=n,
                ships_per_player=ships_per_player,
                solo=solo,
                restart_on_sink=restart_on_sink,
                max_turns=max_turns,
                max_turns_end=max_turns_end,
                exit_penalties=exit_penalties,
                fleet_end=fleet_end,
                entry_cost=entry_cost,
                extra_ships=extra_ships,
                solo_ice_six=solo_ice_six,
                hexmap=hexmap,
            )
        except ValueError as exc:
            raise OptionError(str(exc).replace("icebergs:", f"{SPEC.env_name}:", 1)) from None
        self.hexmap = hexmap
        #: The action layout (``rules.ActionLayout``).
        self.layout = self.config.layout
        #: The observation layout; the encoder's offsets are read from it once.
        self.obs_layout = layout_for(self.config)
        self._obs_template = np.zeros(self.obs_layout.size, dtype=np.float32)
        self._total_floes = max(1, len(hexmap.floe_starts) + hexmap.spare_floes)
        self._make_encoding_tables()
        super().__init__(n, **common)
        self._obs_high = self._observation_spaces[self.possible_agents[0]]["observation"].high

    # -- spaces
    def _num_actions(self) -> int:
        return self.layout.size

    def _observation_box(self) -> spaces.Box:
        return self.obs_layout.box()

    # -- encoding
    def _make_encoding_tables(self) -> None:
        """Constants of :meth:`_encode`, all offsets read from :attr:`obs_layout`: the ship
        offsets per observing seat, per-space features and the template.

        The template already holds everything that never changes in a game: the four
        terrain planes, feature 0 ("the ship exists") of every ship slot in use, and the
        global solo / fleet flags.
        """
        cfg = self.config
        m = self.hexmap
        lay = self.obs_layout
        S = m.num_spaces
        n = cfg.num_players
        kps = cfg.ships_per_player
        template = self._obs_template
        terrain = np.asarray(m.terrain).reshape(m.rows, m.cols)
        lay.view(template, "sea")[:] = terrain == SEA
        lay.view(template, "island")[:] = terrain != SEA
        lay.view(template, "west_edge")[:, 0] = terrain[:, 0] == SEA
        lay.view(template, "east_edge")[:, -1] = terrain[:, -1] == SEA
        ships_at, slots_at = lay.offset("ships"), lay.offset("ship_slots")
        #: per observing seat, per ship: (offset of its ship plane, offset of its feature slot)
        self._ship_offsets: list[tuple[tuple[int, int], ...]] = []
        for seat in range(n):
            offsets = []
            for k in range(cfg.num_ships):
                owner, j = divmod(k, kps)
                rel = (owner - seat) % n
                offsets.append((ships_at + rel * S, slots_at + (rel * rules.MAX_SHIPS_PER_PLAYER + j) * SHIP_FEATURES))
            self._ship_offsets.append(tuple(offsets))
        for k in range(cfg.num_ships):
            template[self._ship_offsets[0][k][1]] = 1.0
        rows1 = max(1, m.rows - 1)
        cols1 = max(1, m.cols - 1)
        #: per space: (row / (rows - 1), col / (cols - 1)) as features 10 and 11 take them
        self._space_rc = tuple((s // m.cols / rows1, s % m.cols / cols1) for s in range(S))
        template[lay.offset("solo")] = 1.0 if cfg.solo else 0.0
        template[lay.offset("fleet")] = 1.0 if cfg.fleet else 0.0
        #: the floe and iceberg planes (adjacent) and their scale, as float32 like the observation
        assert lay.slice("floes").stop == lay.offset("icebergs")
        self._ice_slice = slice(lay.offset("floes"), lay.slice("icebergs").stop)
        self._ice_scale = np.empty(2 * S, dtype=np.float32)
        self._ice_scale[:S] = 0.25
        self._ice_scale[S:] = 1.0 / 3.0
        self._turn_at = lay.offset("turn_ship")
        order_at, next_at, start_at = lay.offsets("turn_order", "next_ship", "start_seat")
        #: per observing seat, per ship: (offset in ``turn_order``, offset in ``next_ship``)
        self._order_offsets: list[tuple[tuple[int, int], ...]] = []
        #: per observing seat, per start player: the offset of its entry of ``start_seat``
        self._start_offsets: list[tuple[int, ...]] = []
        for seat in range(n):
            slots = []
            for k in range(cfg.num_ships):
                owner, j = divmod(k, kps)
                slot = ((owner - seat) % n) * rules.MAX_SHIPS_PER_PLAYER + j
                slots.append((order_at + slot, next_at + slot))
            self._order_offsets.append(tuple(slots))
            self._start_offsets.append(tuple(start_at + (p - seat) % n for p in range(n)))
        self._ice_choice_at = lay.offset("ice_choice")
        #: the global offsets of :meth:`_encode`, in the order it unpacks them
        self._glob_offsets = lay.offsets(
            "moves_left", "die", "phase", "fuel_paid", "drifted", "spare_floes", "home_with_cargo", "round"
        )

    def _encode(self, seat: int) -> np.ndarray:
        """The observation of ``seat``, written element by element into a copy of the template.

        Only the nonzero entries are written, through a ``memoryview`` (cheaper than numpy
        item assignment). Every value is computed exactly as a float32 array operation
        would: Python floats are rounded once to float32, the ice planes are one float32
        product of the piece counts and their scale, and the ship planes' float32 sums
        of 1/3 come from :data:`_NEXT_THIRD`.
        """
        st: rules.IcebergsState = self.game_state
        cfg = self.config
        obs = self._obs_template.copy()
        ice = obs[self._ice_slice]
        counts = st.floes + st.berg_count
        try:
            pieces = np.frombuffer(bytes(counts), dtype=np.uint8)  # every count in 0..255: fast
        except ValueError:
            pieces = np.asarray(counts, dtype=np.float32)
        np.multiply(pieces, self._ice_scale, out=ice)  # float32(count) * float32(scale)
        mv = memoryview(obs)
        over = st.over
        deciding = st.deciding_ship if (not over and st.phase == rules.PHASE_HAZARD) else -1
        current = st.current if not over else -1
        first_home = st.first_home
        num_ships = cfg.num_ships
        full_fuel = rules.FULL_FUEL
        full_cargo = rules.FULL_CARGO
        next_third = _NEXT_THIRD
        pos = st.pos
        status = st.status
        fuel = st.fuel
        cargo = st.cargo
        loaded = st.loaded
        home_rank = st.home_rank
        space_rc = self._space_rc
        turn_at = self._turn_at
        for k, (plane, f) in enumerate(self._ship_offsets[seat]):
            p = pos[k]
            # feature 0 (the ship exists) is in the template
            mv[f + 1] = min(fuel[k], full_fuel) / full_fuel
            mv[f + 2] = min(cargo[k], full_cargo) / full_cargo
            mv[f + 3 + status[k]] = 1.0
            if loaded[k]:
                mv[f + 9] = 1.0
            if p >= 0:
                mv[plane + p] = next_third[mv[plane + p]]  # += 1/3 in float32
                mv[f + 10], mv[f + 11] = space_rc[p]
            if k == current:
                mv[f + 12] = 1.0
                if p >= 0:
                    mv[turn_at + p] = 1.0
            if k == deciding:
                mv[f + 13] = 1.0
            if home_rank[k] >= 0:
                mv[f + 14] = (home_rank[k] + 1) / num_ships
            if k == first_home:
                mv[f + 15] = 1.0
        o_moves, o_die, o_phase, o_fuel_paid, o_drifted, o_spare, o_home, o_round = self._glob_offsets
        if not over:
            mv[o_moves] = min(st.moves_left, 6) / 6.0
            if 1 <= st.die <= 6:
                mv[o_die - 1 + st.die] = 1.0
            if st.phase < rules.PHASE_OVER:
                mv[o_phase + st.phase] = 1.0
            elif st.phase == rules.PHASE_ICE_CHOICE:
                mv[self._ice_choice_at] = 1.0
            self._encode_turn_order(mv, seat)
            if st.fuel_paid:
                mv[o_fuel_paid] = 1.0
            if st.drifted:
                mv[o_drifted] = 1.0
        mv[o_spare] = min(1.0, st.spare_floes / self._total_floes)
        if first_home >= 0:
            mv[o_home] = 1.0
        mv[o_round] = min(1.0, st.round / cfg.max_turns)
        # the solo and fleet flags are in the template
        mv.release()
        np.minimum(obs, self._obs_high, out=obs)
        return obs

    def _encode_turn_order(self, mv: memoryview, seat: int) -> None:
        """The turn-order pieces of ``seat``'s observation (the game is on): each ship's place in
        the order from the ship whose turn it is, the ship whose turn comes next, the start seat."""
        st: rules.IcebergsState = self.game_state
        order = st.order
        ships = len(order)
        pos = max(st.order_pos, 0)
        offsets = self._order_offsets[seat]
        for i, k in enumerate(order):
            mv[offsets[k][0]] = ((i - pos) % ships + 1) / ships
        nxt = next_ship(st)
        if nxt >= 0:
            mv[offsets[nxt][1]] = 1.0
        mv[self._start_offsets[seat][order[0] // self.config.ships_per_player]] = 1.0

    # -- engine
    def _position(self, options: dict[str, Any]) -> dict[str, Any]:
        """The position keys of ``reset(options=...)`` (R7.7) checked completely, spaces as indices.
        Raises :class:`OptionError` naming the key."""
        name = SPEC.env_name
        cfg = self.config
        m = self.hexmap
        start = check_int(
            name,
            "reset option 'start_player'",
            options.get("start_player"),
            low=0,
            high=cfg.num_players - 1,
            allow_none=True,
        )
        icebergs = self._spaces_option("icebergs", options.get("icebergs"))
        if icebergs is not None and len(icebergs) > len(m.iceberg_starts):
            raise OptionError(
                f"{name}: reset option 'icebergs': {len(icebergs)} icebergs; the map has {len(m.iceberg_starts)} "
                "(ice is never created)"
            )
        floes = self._spaces_option("floes", options.get("floes"))
        total = len(m.floe_starts) + m.spare_floes
        spare = check_int(
            name, "reset option 'spare_floes'", options.get("spare_floes"), low=0, high=total, allow_none=True
        )
        on_map = len(floes) if floes is not None else len(m.floe_starts)
        if on_map + (spare if spare is not None else 0) > total:
            key = "floes" if spare is None else "spare_floes"
            raise OptionError(
                f"{name}: reset option {key!r}: {on_map} floes on the map"
                + (f" and {spare} spare" if spare is not None else "")
                + f"; the map has {total} in all (ice is never created)"
            )
        ships = options.get("ships")
        if ships is not None:
            if not isinstance(ships, (list, tuple)) or len(ships) != cfg.num_ships:
                raise OptionError(f"{name}: reset option 'ships' must be a list of {cfg.num_ships} ship dicts")
            ships = [self._ship_option(k, sp) for k, sp in enumerate(ships)]
        return {
            "start_player": start,
            "ships": ships,
            "icebergs": icebergs,
            "floes": floes,
            "spare_floes": spare,
        }

    def _space(self, where: str, v: Any) -> int:
        """A sea space given as an index or a ``[row, col]`` pair."""
        name = SPEC.env_name
        m = self.hexmap
        ok = lambda x: isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))  # noqa: E731
        if isinstance(v, (list, tuple)):
            if len(v) != 2 or not all(ok(x) for x in v):
                raise OptionError(f"{name}: reset option {where}: {v!r} is not a [row, col] pair")
            if not (0 <= v[0] < m.rows and 0 <= v[1] < m.cols):
                raise OptionError(f"{name}: reset option {where}: {list(v)} is not on the {m.rows}x{m.cols} map")
            sp = int(v[0]) * m.cols + int(v[1])
        elif ok(v):
            if not 0 <= v < m.num_spaces:
                raise OptionError(f"{name}: reset option {where}: space {v} is not in 0..{m.num_spaces - 1}")
            sp = int(v)
        else:
            raise OptionError(f"{name}: reset option {where}: {v!r} is not a space (an index or [row, col])")
        if m.terrain[sp] != SEA:
            raise OptionError(f"{name}: reset option {where}: {m.label(sp)} is an ice island, not a sea space")
        return sp

    def _spaces_option(self, key: str, value: Any) -> list[int] | None:
        if value is None:
            return None
        if not isinstance(value, (list, tuple)):
            raise OptionError(f"{SPEC.env_name}: reset option {key!r} must be a list of spaces, got {value!r}")
        return [self._space(repr(key), v) for v in value]

    _SHIP_KEYS = ("status", "space", "row", "col", "fuel", "cargo", "loaded")

    def _ship_option(self, k: int, spec: Any) -> dict[str, Any]:
        name = SPEC.env_name
        where = f"'ships'[{k}]"
        if not isinstance(spec, dict):
            raise OptionError(f"{name}: reset option {where} must be a dict, got {spec!r}")
        check_keys(name, f"key of reset option {where}", spec, self._SHIP_KEYS)
        raw = spec.get("status", "start")
        if isinstance(raw, str) and raw.lower() in rules._STATUS_BY_NAME:
            st = rules._STATUS_BY_NAME[raw.lower()]
        elif (
            isinstance(raw, (int, np.integer))
            and not isinstance(raw, (bool, np.bool_))
            and 0 <= raw < rules.NUM_STATUSES
        ):
            st = int(raw)
        else:
            raise OptionError(
                f"{name}: reset option {where}: unknown status {raw!r}; known: {sorted(rules._STATUS_BY_NAME)}"
            )
        out: dict[str, Any] = {"status": st}
        out["fuel"] = check_int(
            name, f"reset option {where} 'fuel'", spec.get("fuel", rules.FULL_FUEL), low=0, high=rules.FULL_FUEL
        )
        loaded = spec.get("loaded", st in (rules.ALASKA_READY, rules.HOME))
        out["loaded"] = check_flag(name, f"reset option {where} 'loaded'", loaded)
        cargo = spec.get("cargo", rules.FULL_CARGO if out["loaded"] else 0)
        out["cargo"] = check_int(name, f"reset option {where} 'cargo'", cargo, low=0, high=rules.FULL_CARGO)
        status_name = rules.STATUS_NAMES[st]
        if st in (rules.START, rules.ALASKA_LOADING) and out["loaded"]:
            raise OptionError(f"{name}: reset option {where}: a ship {status_name} has not loaded yet (loaded=True)")
        if st in (rules.ALASKA_READY, rules.HOME) and not out["loaded"]:
            raise OptionError(f"{name}: reset option {where}: a ship {status_name} has loaded (loaded=False)")
        if out["cargo"] and not out["loaded"]:
            raise OptionError(f"{name}: reset option {where}: 'cargo' {out['cargo']} without having loaded in Alaska")
        has_space = "space" in spec or "row" in spec or "col" in spec
        if st == rules.AT_SEA:
            if "space" in spec:
                out["space"] = self._space(f"{where} 'space'", spec["space"])
            elif "row" in spec and "col" in spec:
                out["space"] = self._space(f"{where} 'row'/'col'", [spec["row"], spec["col"]])
            else:
                raise OptionError(f"{name}: reset option {where}: a ship at sea needs a sea 'space'")
        elif has_space:
            raise OptionError(f"{name}: reset option {where}: only a ship at sea has a 'space' ({status_name})")
        return out

    def _current_seat(self) -> int:
        return self.game_state.deciding_seat

    def _game_over(self) -> bool:
        return self.game_state.over

    def _apply_action(self, action: int) -> None:
        rules.apply(self.game_state, action, self.np_random, check=False)

    def _undecided_stop(self) -> str | None:
        """A game stopped by ``max_turns`` (``max_turns_end="truncate"``) is a truncation."""
        return "max_turns" if self.game_state.truncated else None

    # -- text
    def ship_name(self, k: int) -> str:
        """``player_p`` (standard, solo) or ``player_p ship a``, ``b``, ``c`` (fleet)."""
        owner, j = divmod(k, self.config.ships_per_player)
        return f"player_{owner}" + (f" ship {'abc'[j]}" if self.config.fleet else "")

    def _describe(self, action: int) -> str:
        st: rules.IcebergsState = self.game_state
        lay = self.layout
        m = self.hexmap
        k = st.current
        fuel_note = "" if (self.config.solo or st.fuel_paid) else ", 1 Fuel"

        def moves(x: int) -> str:
            return f"{x} Move" + ("" if x == 1 else "s")

        if action == lay.lose_fuel or action == lay.lose_cargo:
            what = "Fuel" if action == lay.lose_fuel else "Cargo"
            who = self.ship_name(st.deciding_ship) if st.hazards else "the ship"
            return f"iceberg hazard: {who} loses 1 {what}"
        if action == lay.ice_one_berg:
            return "ice table 6: one random iceberg moves two spaces"
        if action == lay.ice_two_bergs:
            return "ice table 6: two random icebergs move one space each"
        if action < 6:
            if st.pos[k] < 0:
                return f"move the ship {DIRECTIONS[action]}"
            t = m.neighbours[st.pos[k]][action]
            if t < 0:
                return f"move the ship {DIRECTIONS[action]} (off the grid)"
            cost = rules.move_cost(st, k, t)
            return f"move {self.ship_name(k)} {DIRECTIONS[action]} to {m.label(t)} ({moves(cost)}{fuel_note})"
        if action == lay.to_alaska:
            return f"leave by the west edge to Alaska ({moves(rules.exit_cost(st, k) if st.pos[k] >= 0 else 1)}{fuel_note})"
        if action == lay.to_home:
            return f"leave by the east edge home to Newfoundland ({moves(rules.exit_cost(st, k) if st.pos[k] >= 0 else 1)}{fuel_note})"
        if action == lay.end_turn:
            return f"end the turn ({moves(st.moves_left)} unused)"
        if action < lay.floe:
            r = action - lay.enter
            edge = "west" if st.status[k] == rules.ALASKA_READY else "east"
            col = 0 if edge == "west" else m.cols - 1
            t = r * m.cols + col
            cost = rules.enter_cost(st, k, t)
            whole = ": all the Moves of the roll" if self.config.entry_cost == "all_moves" else ""
            return f"enter the map from the {edge} edge at {m.label(t)} ({moves(cost)}{whole}{fuel_note})"
        if action < lay.place:
            is_floe = action < lay.berg
            s, d = divmod(action - (lay.floe if is_floe else lay.berg), 7)
            piece = "an ice floe" if is_floe else "an iceberg"
            cost = rules.FLOE_COST if is_floe else rules.ICEBERG_COST
            if d == rules.OFF_MAP_DIR:
                return f"move {piece} from {m.label(s)} off the map ({moves(cost)})"
            t = m.neighbours[s][d]
            dest = m.label(t) if t >= 0 else "off the grid"
            return f"move {piece} from {m.label(s)} {DIRECTIONS[d]} to {dest} ({moves(cost)})"
        if action < lay.drift:
            return f"rolled a one: place a spare ice floe at {m.label(action - lay.place)}"
        cost_note = " (1 Fuel)" if self.config.solo else " (no Fuel)"
        if action < lay.drift_alaska:
            d = action - lay.drift
            t = m.neighbours[st.pos[k]][d] if st.pos[k] >= 0 else -1
            dest = m.label(t) if t >= 0 else "?"
            return f"drift {DIRECTIONS[d]} to {dest}, ignoring penalties{cost_note}"
        if action == lay.drift_alaska:
            return f"drift off the west edge to Alaska{cost_note}"
        if action == lay.drift_home:
            return f"drift off the east edge home{cost_note}"
        return "rolled a one: neither place a floe nor drift; roll again"

    def _ship_label(self, k: int) -> str:
        owner, j = divmod(k, self.config.ships_per_player)
        return f"{owner}{'abc'[j]}" if self.config.fleet else str(owner)

    def _cell_text(self, s: int, ships_at: dict[int, list[int]]) -> str:
        st: rules.IcebergsState = self.game_state
        if self.hexmap.terrain[s] != SEA:
            return "#####"
        parts = ["".join(self._ship_label(k) for k in ships_at.get(s, []))]
        nb, nf = st.berg_count[s], st.floes[s]
        if nb:
            parts.append("B" if nb == 1 else f"{nb}B")
        if nf:
            parts.append("f" if nf == 1 else f"{nf}f")
        return " ".join(p for p in parts if p) or "  .  "

    def _render_text(self, viewer: int | None) -> str:
        st: rules.IcebergsState = self.game_state
        cfg = self.config
        m = self.hexmap
        width = 7
        ships_at: dict[int, list[int]] = {}
        for k, p in enumerate(st.pos):
            if p >= 0:
                ships_at.setdefault(p, []).append(k)
        mode = "solo game" if cfg.solo else (f"fleet game, {cfg.ships_per_player} ships each" if cfg.fleet else "")
        head = f"Icebergs — {cfg.num_players} player{'s' if cfg.num_players > 1 else ''}"
        head += f" ({mode})" if mode else ""
        head += f", round {min(st.round + 1, cfg.max_turns)}/{cfg.max_turns}"
        if st.over:
            w = rules.winner(st)
            if st.truncated:
                head += " — stopped by max_turns (truncated)"
            elif cfg.solo:
                head += " — " + {1.0: "won", 0.0: "drawn (5 Cargo)", -1.0: "lost"}[st.result[0]]
            else:
                head += f" — player_{w} wins" if w >= 0 else " — nobody wins"
        else:
            who = self.ship_name(st.deciding_ship)
            if st.phase == rules.PHASE_HAZARD:
                head += f" — {who} must lose 1 Fuel or 1 Cargo (iceberg hazard)"
            elif st.phase == rules.PHASE_ONE:
                head += f" — {who} rolled a one: place a floe, drift or neither"
            elif st.phase == rules.PHASE_ICE_CHOICE:
                head += " — the ice table rolled 6: one iceberg two spaces, or two icebergs one space each?"
            else:
                roll = "5 Moves (solo)" if cfg.solo else f"rolled {st.die}"
                head += f" — {who} {roll}, {st.moves_left} Moves left"
        lines = [head, "ALASKA <- west edge" + " " * max(1, m.cols * width - 38) + "east edge -> NEWFOUNDLAND"]
        lines.append("    " + "".join(f"c{c}".center(width) for c in range(m.cols)))
        for r in range(m.rows):
            for parity in (0, 1):
                row = []
                for c in range(m.cols):
                    row.append(
                        self._cell_text(r * m.cols + c, ships_at).center(width) if c % 2 == parity else " " * width
                    )
                prefix = f"r{r}  " if parity == 0 else "    "
                lines.append((prefix + "".join(row)).rstrip())
        lines.append(
            "Legend: digits ships (seat"
            + (" + ship a/b/c" if cfg.fleet else "")
            + "), B iceberg, f ice floe, ##### island"
        )
        lines.append(
            f"Spare floes: {st.spare_floes}"
            + ("   A ship is home with Cargo: the others lose 1 Cargo a turn." if st.first_home >= 0 else "")
        )
        for k in range(cfg.num_ships):
            marker = ">" if k == st.current and not st.over else " "
            where = rules.STATUS_NAMES[st.status[k]]
            if st.status[k] == rules.AT_SEA:
                where += f" at {m.label(st.pos[k])}"
            lines.append(
                f"{marker} [{self._ship_label(k)}] {self.ship_name(k)}: {where}, Fuel {st.fuel[k]}, Cargo {st.cargo[k]}"
            )
        if st.log:
            lines.append("Recent: " + "; ".join(st.log[-4:]))
        return "\n".join(lines)

    def _render_rgb(self, viewer: int | None) -> np.ndarray:
        from ice_envs.icebergs.picture import draw

        return draw(self, viewer)

    def _render_svg(self, viewer: int | None) -> str:
        from ice_envs.icebergs.picture import svg

        return svg(self, viewer)

    def _action_target(self, action: int) -> str | None:
        from ice_envs.icebergs.picture import action_target

        return action_target(self, action)


env, raw_env = make_factories(IcebergsEnv)
