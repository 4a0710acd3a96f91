"""
# Icebergs

| Import             | `from ice_envs import icebergs_v0`                          |
|--------------------|-------------------------------------------------------------|
| Actions            | Discrete                                                    |
| Parallel API       | No                                                          |
| Manual Control     | `ice-envs play icebergs`                                  |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`                 |
| Agents             | 2-6 (standard), 2-3 (fleet), 1 (solo)                       |
| Action Shape       | Discrete(1392) with the default 7x13 map                    |
| Action Values      | Discrete(1392)                                              |
| Observation Shape  | (1488,) with the default map                                |
| Observation Values | [0, 9] (most entries in [0, 1])                             |

Sail a ship from Newfoundland (the east edge of a hex map) to Alaska (off the west
edge), load 8 Fuel and 8 Cargo, and bring as much Cargo home as you can. Each turn
you roll one die for Moves and spend them on ice floes (1 Move a space), icebergs
(3 Moves a space) and your ship (1 Move plus the penalties of the spaces it leaves
and enters). Icebergs that meet ships force hazard rolls that can cost Fuel or Cargo
or sink the ship. Rules and every interpretation: `docs/rules/icebergs.md`.

## Arguments

``` python
icebergs_v0.env(num_players=2, fleet=False, ships_per_player=None, solo=False,
                restart_on_sink=False, max_turns=100, max_turns_end="truncate",
                exit_penalties=True, fleet_end="first_fleet", map="default",
                map_text=None, render_mode=None, illegal_action="raise",
                reward_mode="outcome", max_cycles=None)
```

`num_players`: 2-6; 2-3 in the fleet game; 1 in the solo game.
`fleet`: the fleet game with 3 ships each (or set `ships_per_player` to 2 or 3).
`solo`: the solo game (one ship, 5 Moves a turn, random ice movement).
`restart_on_sink`: the rulebook's optional rule (a sunk ship starts again from the
last map edge it entered with a full load).
`max_turns`: the game stops after this many rounds (every ship one turn a round);
`max_turns_end="truncate"` (default) truncates the episode (all agents get
`truncations=True`, outcome reward 0), `"decide"` ends it as a game decided on the
Cargo already home (ships still out bring nothing).
`exit_penalties`: leaving the map costs 1 + the penalties of the space left (default)
or a flat 1 Move. `fleet_end`: `"first_fleet"` (default: the fleet game ends when a
player's ships are all home or sunk) or `"all_ships"`.
`map`: a packaged map name (`"default"`, `"strait"`) or a path to a map file;
`map_text`: a map given as text (see `ice_envs/icebergs/hexmap.py` for the format).
A bad map raises `OptionError` naming the line.

`reset(seed, options)` accepts `options={"start_player": p, "ships": [{"status":
"at_sea", "space": s, "fuel": 5, "cargo": 0}, ...], "icebergs": [s, ...], "floes": [s,
...], "spare_floes": n}` (spaces as indices or `[row, col]` pairs) to start from a given
position; the start player's first ship then rolls.

## Observation Space

A dict with `"observation"` (float32, shape `(13*S + 18*16 + 17,)`, S = spaces of the
map, 91 by default: 1488) and `"action_mask"` (int8). The observation is the observing
player's view (the game has no hidden information); seats are in relative order
(self, the next player to the left, ...).

| Index (default map) | Description                                                       |
|---------------------|-------------------------------------------------------------------|
| 0-1182              | 13 planes of S spaces (`obs[:13*S].reshape(13, rows, cols)`)       |
|   plane 0           | sea space                                                         |
|   plane 1           | ice island space                                                  |
|   plane 2 / 3       | west edge (to Alaska) / east edge (to Newfoundland) sea space     |
|   plane 4           | ice floes in the space / 4                                        |
|   plane 5           | icebergs in the space / 3                                         |
|   planes 6-11       | ships of relative seat 0 (own) .. 5 in the space / 3              |
|   plane 12          | the ship whose turn it is                                         |
| 1183-1470           | 18 ship slots x 16 features: slot = relative seat * 3 + ship index |
| 1471-1487           | 17 global features                                                |

Ship features (offset in the slot): 0 the ship exists, 1 Fuel / 8, 2 Cargo / 8,
3-8 status one-hot (in Newfoundland, at sea, in Alaska loading, in Alaska loaded,
home, sunk), 9 has loaded in Alaska, 10 row / (rows-1) and 11 column / (cols-1) when
at sea, 12 its turn now, 13 must make the hazard choice now, 14 arrival order home
(rank / ships, 0 if not home), 15 first ship home with Cargo.

Global features: 0 Moves left / 6, 1-6 die value one-hot (1..6; none in solo),
7-9 phase one-hot (moving, rolled a one, hazard choice), 10 Fuel already paid this
turn, 11 solo drift used this turn, 12 spare floes / all floes, 13 a ship is home
with Cargo (the others lose 1 Cargo a turn), 14 round / max_turns, 15 solo game,
16 fleet game.

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

A hazard caused by another player's iceberg is decided by the owner of the ship hit:
`agent_selection` moves to that player and back. Dice are rolled by the env when
they happen. A turn ends by itself when "end the turn" is the only legal action.

## Rewards

`reward_mode="outcome"`: at the end the winner gets +1 and every other player -1
(nobody with Cargo home: everyone -1). Solo: +1 for 6+ Cargo home, 0 for exactly 5,
-1 otherwise. Truncation by `max_turns` gives 0.
`reward_mode="score"`: the Cargo each player brings home, when it arrives.

## Version History

* v0: Initial release (ice-envs 0.1.0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.errors import OptionError
from ice_envs.core.wrapping import make_factories
from ice_envs.icebergs import rules
from ice_envs.icebergs.hexmap import DIRECTIONS, SEA, HexMap, MapError, load_map, packaged_map, parse_map
from ice_envs.icebergs.spec import SPEC

MAX_SEATS = 6
NUM_PLANES = 13
SHIP_SLOTS = MAX_SEATS * rules.MAX_SHIPS_PER_PLAYER
SHIP_FEATURES = 16
NUM_GLOBAL = 17


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


def observation_size(hexmap: HexMap) -> int:
    """Length of the observation vector for a map."""
    return NUM_PLANES * hexmap.num_spaces + SHIP_SLOTS * SHIP_FEATURES + NUM_GLOBAL


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
        map: str = "default",
        map_text: str | None = None,
        **common: Any,
    ) -> None:
        n = self.check_num_players(num_players)
        if ships_per_player is None:
            ships_per_player = rules.MAX_SHIPS_PER_PLAYER if fleet else 1
        elif fleet and ships_per_player == 1:
            raise OptionError(f"{SPEC.env_name}: fleet=True needs ships_per_player 2 or 3 (or None for 3)")
        if solo and (fleet or ships_per_player != 1):
            raise OptionError(f"{SPEC.env_name}: the solo game has one ship; do not combine solo with fleet")
        hexmap = _resolve_map(str(map), map_text)
        try:
            self.config = rules.IcebergsConfig(
                num_players=n,
                ships_per_player=ships_per_player,
                solo=bool(solo),
                restart_on_sink=bool(restart_on_sink),
                max_turns=max_turns,
                max_turns_end=max_turns_end,
                exit_penalties=bool(exit_penalties),
                fleet_end=fleet_end,
                hexmap=hexmap,
            )
        except ValueError as exc:
            raise OptionError(str(exc).replace("icebergs:", f"{SPEC.env_name}:", 1)) from None
        self.hexmap = hexmap
        self.layout = self.config.layout
        self._static_planes = self._make_static_planes()
        self._obs_template = np.zeros(observation_size(hexmap), dtype=np.float32)
        self._obs_template[: self._static_planes.size] = self._static_planes
        self._total_floes = max(1, len(hexmap.floe_starts) + hexmap.spare_floes)
        self._make_encoding_tables()
        super().__init__(n, **common)
        self._obs_high = self._observation_spaces[self.possible_agents[0]]["observation"].high

    # -- spaces
    def _num_actions(self) -> int:
        return self.layout.size

    def _observation_box(self) -> spaces.Box:
        m = self.hexmap
        s = m.num_spaces
        high = np.ones(observation_size(m), dtype=np.float32)
        total_floes = len(m.floe_starts) + m.spare_floes
        high[4 * s : 5 * s] = max(1.0, total_floes / 4)
        high[5 * s : 6 * s] = max(1.0, len(m.iceberg_starts) / 3)
        return spaces.Box(np.zeros_like(high), high, dtype=np.float32)

    def _make_static_planes(self) -> np.ndarray:
        m = self.hexmap
        planes = np.zeros((4, m.rows, m.cols), dtype=np.float32)
        terrain = np.asarray(m.terrain).reshape(m.rows, m.cols)
        planes[0] = terrain == SEA
        planes[1] = terrain != SEA
        planes[2, :, 0] = planes[0, :, 0]
        planes[3, :, -1] = planes[0, :, -1]
        return planes.reshape(-1)

    # -- encoding
    def _make_encoding_tables(self) -> None:
        """Constants of :meth:`_encode`: the ship offsets per observing seat and per-space features.

        The template already holds everything that never changes in a game: the four
        terrain planes, feature 0 ("the ship exists") of every ship slot in use, and the
        global solo / fleet flags.
        """
        cfg = self.config
        m = self.hexmap
        S = m.num_spaces
        n = cfg.num_players
        kps = cfg.ships_per_player
        base = NUM_PLANES * S
        self._ship_base = base
        self._glob_base = base + SHIP_SLOTS * SHIP_FEATURES
        #: per observing seat, per ship: (offset of its ship plane, offset of its feature slot)
        self._ship_offsets: list[tuple[tuple[int, int], ...]] = []
        for seat in range(n):
            offsets = []
            for k in range(cfg.num_ships):
                owner, j = divmod(k, kps)
                rel = (owner - seat) % n
                offsets.append(((6 + rel) * S, base + (rel * rules.MAX_SHIPS_PER_PLAYER + j) * SHIP_FEATURES))
            self._ship_offsets.append(tuple(offsets))
        for k in range(cfg.num_ships):
            self._obs_template[self._ship_offsets[0][k][1]] = 1.0
        rows1 = max(1, m.rows - 1)
        cols1 = max(1, m.cols - 1)
        #: per space: (row / (rows - 1), col / (cols - 1)) as features 10 and 11 take them
        self._space_rc = tuple((s // m.cols / rows1, s % m.cols / cols1) for s in range(S))
        g = self._glob_base
        self._obs_template[g + 15] = 1.0 if cfg.solo else 0.0
        self._obs_template[g + 16] = 1.0 if cfg.fleet else 0.0
        #: scale of the floe and iceberg planes (4 and 5), as float32 like the observation
        self._ice_scale = np.empty(2 * S, dtype=np.float32)
        self._ice_scale[:S] = 0.25
        self._ice_scale[S:] = 1.0 / 3.0

    def _encode(self, seat: int) -> np.ndarray:
        """The observation of ``seat``, written element by element into a copy of the template.

        Only the nonzero entries are written, through a ``memoryview`` (cheaper than numpy
        item assignment). Every value is computed exactly as a float32 array operation
        would: Python floats are rounded once to float32, the ice planes are one float32
        product of the piece counts and their scale, and the ship planes' float32 sums
        of 1/3 come from :data:`_NEXT_THIRD`.
        """
        st: rules.IcebergsState = self.state
        cfg = self.config
        S = self.hexmap.num_spaces
        obs = self._obs_template.copy()
        ice = obs[4 * S : 6 * S]
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
                    mv[12 * S + p] = 1.0
            if k == deciding:
                mv[f + 13] = 1.0
            if home_rank[k] >= 0:
                mv[f + 14] = (home_rank[k] + 1) / num_ships
            if k == first_home:
                mv[f + 15] = 1.0
        g = self._glob_base
        if not over:
            mv[g] = min(st.moves_left, 6) / 6.0
            if 1 <= st.die <= 6:
                mv[g + st.die] = 1.0
            mv[g + 7 + st.phase] = 1.0
            if st.fuel_paid:
                mv[g + 10] = 1.0
            if st.drifted:
                mv[g + 11] = 1.0
        mv[g + 12] = min(1.0, st.spare_floes / self._total_floes)
        if first_home >= 0:
            mv[g + 13] = 1.0
        mv[g + 14] = min(1.0, st.round / cfg.max_turns)
        # globals 15 / 16 (solo, fleet) are in the template
        mv.release()
        np.minimum(obs, self._obs_high, out=obs)
        return obs

    # -- engine
    def _new_state(self, rng: np.random.Generator, options: dict[str, Any]) -> rules.IcebergsState:
        # other keys are ignored, as PettingZoo's api_test expects
        try:
            start = options.get("start_player")
            ships = options.get("ships")
            if ships is not None:
                ships = [self._ship_option(sp) for sp in ships]
            return rules.new_game(
                self.config,
                rng,
                start_player=None if start is None else int(start),
                ships=ships,
                icebergs=self._spaces_option(options.get("icebergs")),
                floes=self._spaces_option(options.get("floes")),
                spare_floes=options.get("spare_floes"),
            )
        except ValueError as exc:
            raise OptionError(str(exc)) from None

    def _spaces_option(self, value: Any) -> list[int] | None:
        if value is None:
            return None
        out = []
        for v in value:
            out.append(self.hexmap.space(int(v[0]), int(v[1])) if isinstance(v, (list, tuple)) else int(v))
        return out

    def _ship_option(self, spec: dict[str, Any]) -> dict[str, Any]:
        spec = dict(spec)
        if isinstance(spec.get("space"), (list, tuple)):
            spec["space"] = self.hexmap.space(int(spec["space"][0]), int(spec["space"][1]))
        return spec

    def _current_seat(self) -> int:
        return self.state.deciding_seat

    def _game_over(self) -> bool:
        return self.state.over

    def _apply_action(self, action: int) -> None:
        rules.apply(self.state, action, self.np_random, check=False)

    def _finish(self, step_rewards: np.ndarray) -> None:
        """A game stopped by ``max_turns`` (``max_turns_end="truncate"``) is a truncation."""
        if not self.state.truncated:
            super()._finish(step_rewards)
            return
        self._set_rewards(step_rewards)
        for a in self.agents:
            self.truncations[a] = True
            self.infos[a] = {"scores": self.scores().tolist(), "max_turns": True}
        self._accumulate_rewards()

    # -- text
    def ship_name(self, k: int) -> str:
        """``player_p`` (standard, solo) or ``player_p ship a``, ``b``, ``c`` (fleet)."""
        owner, j = divmod(k, self.config.ships_per_player)
        return f"player_{owner}" + (f" ship {'abc'[j]}" if self.config.fleet else "")

    def _describe(self, action: int) -> str:
        st: rules.IcebergsState = self.state
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
            return f"enter the map from the {edge} edge at {m.label(t)} ({moves(cost)}{fuel_note})"
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
        st: rules.IcebergsState = self.state
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
        st: rules.IcebergsState = self.state
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
        from ice_envs.icebergs.render import render_rgb

        return render_rgb(self, viewer)


env, raw_env = make_factories(IcebergsEnv)
