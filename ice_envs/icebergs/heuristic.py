"""Icebergs heuristic.

Strategy, as a decent player would play (the race is to Alaska and back; fuel is
spent per moving turn, not per space):

1. **Cheapest route, re-planned every decision.** A Dijkstra search from the goal edge
   (the west edge before Alaska, the east edge after) prices every space by the Moves
   still needed to leave the map there: 1 per step plus the penalties of the spaces
   left and entered (ice floe 1, iceberg 3, other ship 1). Ice on the route counts at
   the price of clearing it: moving a floe off the route costs 1 Move and saves 2
   (entering and leaving), so a floe counts half; an iceberg costs 3 to move and saves
   6 plus a hazard roll. Ships cannot be moved and count in full.
2. **Plan the turn.** For every first step (or entry space) the route continues down
   the distances; the agent then chooses how far to sail this turn: ice on the spaces
   it will cross is moved off the route first (icebergs first, to spaces away from the
   route, off the map where possible, onto a rival's space where that helps), then the
   ship sails. Moves left over clear ice further along the route for the next turns.
   Each plan is scored in turns: the Moves still needed after the turn divided by the
   Moves a turn brings (about 3.6), plus a fuel term (below).
3. **Manage fuel.** Fuel drops by 1 in every turn the ship moves, however far, so a
   moving turn should use all its Moves. The fuel term compares the Fuel left with the
   moving turns the rest of the leg still needs: while there is slack the ship sails
   every turn; when Fuel gets tight, a small roll is spent clearing ice ahead for free
   instead of burning a Fuel point on a short hop. A one is used to drift (free, and it
   ignores the penalties: the way out of a jam or off the map edge) whenever that brings
   the ship closer; otherwise a spare floe is put on the leading rival's ship.
4. **Avoid icebergs.** Icebergs on the route are moved away rather than sailed through
   (each hazard roll may cost Fuel or Cargo and sinks the ship 1 time in 18); a berg
   that cannot be moved is sailed through only when the detour costs more than the
   Moves and the risk; drifting into an iceberg's space counts the risk too. On a hazard
   the ship loses Fuel while it is far from being stranded (enough Fuel left for the
   moving turns of the leg with a margin) and Cargo otherwise (Cargo counts more once a
   ship is home and Cargo melts); it never gives up its last Cargo point (a ship home
   without Cargo cannot win).
5. **Race; block only with spare Moves.** Moves the own plan can use all go to the own
   voyage. Only Moves it cannot use (say, left over after the ship leaves the map) push a
   floe or an iceberg into a rival's space (a floe makes leaving it 1 Move dearer; an
   iceberg 3 Moves plus a hazard roll that may sink it), never onto the own route or an
   own ship; the rival that is ahead in the race home with Cargo first. Ice cleared off
   the own route also lands on a rival's ship where it can. Spending Moves of its own
   plan on such pushes (as an earlier version of the agent did, for a leader or a big delay)
   lost races: against three greedy players it won far more often without it
   (``docs/agents/icebergs.md``).
6. **Fleet and solo.** In the fleet game each ship is planned on its own turn (the other
   own ships count as ships in the way and are never hit by own icebergs). In the solo
   game ice cannot be moved and Moves are free: the ship sails as far as its 5 Moves go
   along the cheapest route (icebergs priced by their hazard), drifts for 1 Fuel only
   when stuck and with Fuel to spare, and loses Cargo on a hazard only while the Cargo
   stays at 6 or more or the Fuel would run out. Where the player picks the ice table's
   line on a 6 (``solo_ice_six="player"``), it takes the line with fewer expected hazard
   rolls for its ship (exact over the random picks and directions).
7. **Entering with the whole roll** (``entry_cost="all_moves"``). Entering takes the
   whole turn whatever the roll, so the ship enters at once, on the edge space from which
   the rest of the leg is cheapest (an iceberg there counted by its hazard).

It reads only the public state of the game (Icebergs has no hidden information; the
future dice are not in the state).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.icebergs import rules
from ice_envs.icebergs.hexmap import OFF_GRID, SEA, HexMap

#: Moves a turn brings on average that the ship can use (a roll of 2-6 after free re-rolls).
MU = 3.6
#: A cautious Moves-per-moving-turn, for the fuel budget of the rest of a leg.
MU_FUEL = 3.0
#: Fuel slack (Fuel left minus moving turns needed) below which Fuel starts to count.
SAFE_SLACK = 1.5
#: Weight of the squared fuel shortfall, in turns.
FUEL_WEIGHT = 0.6
#: What one hazard roll for the own ship costs, in Moves (1/18 sink, 1/3 lose Fuel or Cargo).
HAZARD_MOVES = 4.0
#: What sinking a rival is worth to us, in turns (scaled by how much that rival threatens us): it
#: ranks the pushes of spare Moves (an iceberg's hazard roll against a floe's 1 Move of delay).
RIVAL_SINK_TURNS = 20.0
#: How many route spaces ahead the spare Moves clear (ice further on drifts about anyway).
CLEAR_HORIZON = 5
#: A Cargo point, in turns (the score); the last one is worth the game.
CARGO_TURNS = 0.5
#: Solo: a step dearer than the 5 Moves can only be drifted (1 Fuel, a whole turn).
SOLO_STUCK_MOVES = 10.0
INF = float("inf")
OFF = -1


# ------------------------------------------------------------------------------ geometry
@dataclass(frozen=True)
class Geometry:
    """Neighbour tables of a map that the planner reads (cached per map layout)."""

    cols: int
    num_spaces: int
    #: per space: ``(direction, neighbour)`` for every neighbouring sea space
    sea_nbrs: tuple[tuple[tuple[int, int], ...], ...]
    #: per space: the directions an ice piece may move (0-5, and 6 = off the map on a border)
    ice_dirs: tuple[tuple[int, ...], ...]
    west: tuple[int, ...]
    east: tuple[int, ...]


_GEOMETRY: dict[tuple, Geometry] = {}


def geometry(m: HexMap) -> Geometry:
    """The (cached) :class:`Geometry` of a map."""
    key = (m.rows, m.cols, m.terrain)
    geo = _GEOMETRY.get(key)
    if geo is None:
        sea_nbrs = []
        ice_dirs = []
        for s in range(m.num_spaces):
            nb = tuple((d, t) for d, t in enumerate(m.neighbours[s]) if t != OFF_GRID and m.terrain[t] == SEA)
            sea_nbrs.append(nb)
            ice_dirs.append(tuple(d for d, _ in nb) + ((rules.OFF_MAP_DIR,) if m.border[s] else ()))
        geo = Geometry(
            m.cols, m.num_spaces, tuple(sea_nbrs), tuple(ice_dirs), tuple(m.west_edge()), tuple(m.east_edge())
        )
        _GEOMETRY[key] = geo
    return geo


def distances(
    geo: Geometry,
    side: list[float],
    enter: list[float],
    goal_east: bool,
    exit_side: float,
    cap: tuple[float, float] | None = None,
) -> list[float]:
    """Moves from every space to off the goal edge (Dijkstra from the goal backwards).

    A step from ``x`` to ``t`` costs ``1 + side[x] + side[t] + enter[t]``; leaving the
    map from an edge space ``x`` costs ``1 + exit_side * side[x]``. With ``cap=(limit,
    price)`` a step dearer than ``limit`` costs ``price`` instead (the solo game's drift).
    """
    dist = [INF] * geo.num_spaces
    heap: list[tuple[float, int]] = []
    for x in geo.east if goal_east else geo.west:
        d0 = 1.0 + exit_side * side[x]
        if d0 < dist[x]:
            dist[x] = d0
            heap.append((d0, x))
    heapq.heapify(heap)
    nbrs = geo.sea_nbrs
    while heap:
        d, t = heapq.heappop(heap)
        if d > dist[t]:
            continue
        into_t = side[t] + enter[t]
        for _, x in nbrs[t]:
            w = 1.0 + side[x] + into_t
            if cap is not None and w > cap[0]:
                w = cap[1]
            nd = d + w
            if nd < dist[x]:
                dist[x] = nd
                heapq.heappush(heap, (nd, x))
    return dist


def fuel_penalty(fuel: float, moves_needed: float) -> float:
    """Turns' worth of risk of running dry with ``fuel`` for ``moves_needed`` Moves of a leg."""
    if moves_needed <= 0:
        return 0.0
    slack = fuel - moves_needed / MU_FUEL
    short = SAFE_SLACK - slack
    return FUEL_WEIGHT * short * short if short > 0 else 0.0


# ------------------------------------------------------------------------------ board
class Board:
    """What one ship sees of the map now: penalties, its leg and its distances.

    Args:
        state: the engine state.
        ship: the ship planned for.
    """

    def __init__(self, state: rules.IcebergsState, ship: int) -> None:
        cfg = state.config
        self.state = state
        self.ship = ship
        self.geo = geo = geometry(cfg.hexmap)
        self.solo = cfg.solo
        self.exit_side = 1.0 if cfg.exit_penalties else 0.0
        n = geo.num_spaces
        ships = [0] * n
        for k, p in enumerate(state.pos):
            if p >= 0 and k != ship:
                ships[p] += 1
        self.ships = ships
        floes, bergs = state.floes, state.berg_count
        self.pen = [floes[s] + rules.ICEBERG_PENALTY * bergs[s] + ships[s] for s in range(n)]
        st = state.status[ship]
        self.active = st in (rules.START, rules.AT_SEA, rules.ALASKA_LOADING, rules.ALASKA_READY)
        self.goal_east = bool(state.loaded[ship]) or st in (rules.ALASKA_LOADING, rules.ALASKA_READY)
        self.start = state.pos[ship] if st == rules.AT_SEA else OFF
        #: entry spaces when off the map (east from Newfoundland, west from Alaska)
        self.entries: tuple[int, ...] = ()
        if self.start == OFF and self.active:
            self.entries = geo.west if self.goal_east else geo.east
        if self.solo:
            # no ice can be moved: full penalties, icebergs priced by their hazard
            self.side = [float(p) for p in self.pen]
            self.enter = [HAZARD_MOVES * bergs[s] for s in range(n)]
            self.cap: tuple[float, float] | None = (float(rules.SOLO_MOVES), SOLO_STUCK_MOVES)
        else:
            # ice counts at the price of clearing it (half a side per floe, 1.5 per iceberg)
            self.side = [0.5 * floes[s] + 1.5 * bergs[s] + ships[s] for s in range(n)]
            self.enter = [0.0] * n
            self.cap = None
        self.dist = (
            distances(geo, self.side, self.enter, self.goal_east, self.exit_side, self.cap) if self.active else []
        )

    def on_goal_edge(self, space: int) -> bool:
        col = space % self.geo.cols
        return col == (self.geo.cols - 1 if self.goal_east else 0)

    def remaining(self) -> float:
        """Moves the leg still needs from where the ship is (the current space left at full price)."""
        if not self.active:
            return 0.0
        if self.start == OFF:
            return min((1.0 + self.side[t] + self.enter[t] + self.dist[t] for t in self.entries), default=INF)
        p = self.start
        return self.dist[p] + self.pen[p] - self.side[p]

    def static_cost(self, space: int, entering: bool) -> float:
        """Moves still needed from ``space`` (its leaving side at full price), plus the
        hazard of entering it when ``entering``."""
        hazard = HAZARD_MOVES * self.state.berg_count[space] if entering else 0.0
        return self.dist[space] + self.pen[space] - self.side[space] + hazard

    def route(self, first: int) -> list[int] | None:
        """The route from the ship's start through ``first`` down the distances, never
        back over a space (the exit follows its last space); None for a dead end."""
        path = [self.start, first]
        x = first
        side, enter, dist, exit_side = self.side, self.enter, self.dist, self.exit_side
        seen = {self.start, first}
        while True:
            best = 1.0 + exit_side * side[x] if self.on_goal_edge(x) else INF
            nxt = -1
            for _, t in self.geo.sea_nbrs[x]:
                w = 1.0 + side[x] + side[t] + enter[t]
                if self.cap is not None and w > self.cap[0]:
                    w = self.cap[1]
                c = w + dist[t]
                if c < best - 1e-9 and t not in seen:
                    best, nxt = c, t
            if nxt < 0:
                return path if best < INF else None
            path.append(nxt)
            seen.add(nxt)
            x = nxt


# ------------------------------------------------------------------------------ turn plans
@dataclass
class Plan:
    """How far to sail this turn along a route, and what it is worth."""

    value: float
    path: list[int]
    steps: int
    bergs_first: bool = False


class TurnPlanner:
    """Scores every (route, steps this turn) for every budget of Moves up to ``moves``."""

    def __init__(self, board: Board, moves: int) -> None:
        self.board = board
        self.moves = moves
        state = board.state
        k = board.ship
        self.fuel = state.fuel[k]
        self.can_sail = (
            board.active
            and board.state.status[k] in (rules.START, rules.AT_SEA, rules.ALASKA_READY)
            and state.current == k
            and rules.can_use_fuel(state, k)
        )
        self.pays_fuel = not board.solo and not state.fuel_paid
        self.best: list[Plan | None] = [None] * (moves + 1)

    def clearable(self, space: int, berg: bool, avoid: set[int]) -> bool:
        """Whether a piece in ``space`` can be moved somewhere off the route."""
        if self.board.solo:
            return False
        return choose_ice_dest(self.board, space, berg, avoid, {}) is not None

    def run(self) -> list[Plan | None]:
        board = self.board
        if not board.active:
            return self.best
        if board.start == OFF:
            firsts = list(board.entries)
        else:
            firsts = [t for _, t in board.geo.sea_nbrs[board.start]]
        for t in firsts:
            if board.dist[t] < INF:
                path = board.route(t)
                if path is not None:
                    self._score_path(path, exit_now=False)
        if board.start != OFF and board.on_goal_edge(board.start):
            self._score_path([board.start], exit_now=True)
        return self.best

    def _score_path(self, path: list[int], exit_now: bool) -> None:
        board = self.board
        state = board.state
        floes, bergs, ships, pen = state.floes, state.berg_count, board.ships, board.pen
        exit_side = board.exit_side
        n = len(path) - 1  # p1..pn are spaces; step n+1 leaves the map
        avoid = set(path)
        avoid.discard(OFF)
        # per route space j >= 1: clear cost, per-side cost left after clearing, future half price
        clear = [0.0] * (n + 1)
        after = [0.0] * (n + 1)
        half = [0.0] * (n + 1)
        hazard = [0.0] * (n + 1)
        cl_floes = [0] * (n + 1)
        cl_bergs = [0] * (n + 1)
        for j in range(1, n + 1):
            s = path[j]
            f, b, sh = floes[s], bergs[s], ships[s]
            cf = f > 0 and self.clearable(s, False, avoid)
            cb = b > 0 and self.moves >= rules.ICEBERG_COST and self.clearable(s, True, avoid)
            cl_floes[j] = f if cf else 0
            cl_bergs[j] = b if cb else 0
            clear[j] = (f if cf else 0) + (rules.ICEBERG_COST * b if cb else 0)
            after[j] = sh + (0 if cf else f) + (0 if cb else rules.ICEBERG_PENALTY * b)
            hazard[j] = 0.0 if cb else HAZARD_MOVES * b
            half[j] = (
                board.side[s] + board.enter[s]
                if board.solo
                else (0.5 * f if cf else f)
                + (1.5 * b if cb else rules.ICEBERG_PENALTY * b + 0.5 * HAZARD_MOVES * b)
                + sh
            )
        # suffix[j]: future Moves from p_j to off the map with everything beyond j at half price
        suffix = [0.0] * (n + 1)
        if n >= 1:
            suffix[n] = 1.0 + exit_side * half[n]
            for j in range(n - 1, 0, -1):
                suffix[j] = 1.0 + half[j] + half[j + 1] + suffix[j + 1]
        p0 = path[0]
        lead0 = 0.0 if p0 == OFF else float(pen[p0])
        # spare-Move items ahead of each stopping point (floes save 1 each, icebergs 3 per 3 Moves)
        fuel = self.fuel
        if exit_now:
            if not self.can_sail:
                return
            cost = 1.0 + exit_side * lead0
            self._offer(cost, 0.0, [path[0]], 1, 0.0, True, 0, 0)
            return
        needed = 0.0
        haz_sum = 0.0
        for k in range(0, n + 2):
            if k >= 1:
                if not self.can_sail:
                    break
                if k == 1:
                    needed += 1.0 + lead0
                else:
                    needed += 1.0 + after[k - 1]  # leaving p_{k-1}
                if k <= n:
                    needed += clear[k] + after[k]  # entering p_k (its ice cleared first)
                    haz_sum += hazard[k]
                elif exit_side == 0.0:
                    needed -= after[n]  # leaving by the edge pays no penalty
            if needed > self.moves + 1e-9:
                break
            if k == n + 1:
                rest = 0.0
            elif k == 0:
                rest = 1.0 + lead0 + half[1] + suffix[1]
            else:
                lside = exit_side if k == n else 1.0
                rest = suffix[k] + lside * (after[k] - half[k])
            # items the spare Moves can clear ahead
            af = ab = 0
            if k <= n and not board.solo:
                if k == 0 and p0 != OFF:
                    af += floes[p0]
                    ab += bergs[p0] if self.moves >= rules.ICEBERG_COST else 0
                for j in range(k + 1, min(n, k + CLEAR_HORIZON) + 1):
                    af += cl_floes[j]
                    ab += cl_bergs[j]
            used_fuel = 1 if k >= 1 and self.pays_fuel else 0
            self._offer(needed, rest, path, k, haz_sum, k == n + 1, af, ab, fuel - used_fuel)

    def _offer(
        self,
        needed: float,
        rest: float,
        path: list[int],
        steps: int,
        haz: float,
        done: bool,
        af: int,
        ab: int,
        fuel_after: float | None = None,
    ) -> None:
        if needed > self.moves + 1e-9:
            return
        if fuel_after is None:
            fuel_after = self.fuel - (1 if steps >= 1 and self.pays_fuel else 0)
        lo = int(np.ceil(needed - 1e-9))
        for budget in range(max(lo, 0), self.moves + 1):
            spare = budget - needed
            saving, bergs_first = spare_savings(spare, af, ab)
            if done:
                value = haz / MU - 100.0 + 1e-3 * needed
            else:
                left = max(rest - saving, 0.0)
                value = left / MU + haz / MU
                if not self.board.solo:
                    value += fuel_penalty(fuel_after, left)
                value -= 1e-4 * steps  # among equals, sail further
            cur = self.best[budget]
            if cur is None or value < cur.value - 1e-12:
                self.best[budget] = Plan(value, path, steps, bergs_first)


def spare_savings(spare: float, floes: int, bergs: int) -> tuple[float, bool]:
    """Moves of the future saved by clearing ``floes`` / ``bergs`` ahead with ``spare`` Moves."""
    s = int(spare + 1e-9)
    if s <= 0 or (floes == 0 and bergs == 0):
        return 0.0, False
    a = min(s, floes)
    first = a + rules.ICEBERG_COST * min((s - a) // rules.ICEBERG_COST, bergs)
    b = min(s // rules.ICEBERG_COST, bergs)
    second = rules.ICEBERG_COST * b + min(s - rules.ICEBERG_COST * b, floes)
    return (float(second), True) if second > first else (float(first), False)


def choose_ice_dest(board: Board, space: int, berg: bool, avoid: set[int], bonus: dict[int, float]) -> int | None:
    """The direction to move an ice piece off the own route, or None.

    Never onto a space of ``avoid`` (the route) nor onto the own ships; off the map is
    best, then a rival's space (``bonus``), then the space farthest from the own goal.
    """
    state = board.state
    m = state.config.hexmap
    own = _own_ship_spaces(state, board.ship)
    best = None
    for d in board.geo.ice_dirs[space]:
        if d == rules.OFF_MAP_DIR:
            score = 100.0
        else:
            t = m.neighbours[space][d]
            if t in avoid or t in own:
                continue
            dist = board.dist[t] if board.dist else 0.0
            score = min(dist, 40.0) / 4.0 + bonus.get(t, 0.0)
        if best is None or score > best[0]:
            best = (score, d)
    return None if best is None else best[1]


def clearing_move(
    state: rules.IcebergsState,
    board: Board,
    spaces: list[int],
    kinds: tuple[bool, bool],
    avoid: set[int],
    bonus: dict[int, float],
    legal: set[int],
) -> int | None:
    """The first legal move of ice out of ``spaces`` (in order), trying the kinds in
    ``kinds`` (True: icebergs, False: floes); None if there is none."""
    lay = state.config.layout
    for want_berg in kinds:
        if want_berg and state.moves_left < rules.ICEBERG_COST:
            continue  # an iceberg move needs 3 Moves (it would not be legal anyway)
        for s in spaces:
            if (state.berg_count[s] if want_berg else state.floes[s]) <= 0:
                continue
            d = choose_ice_dest(board, s, want_berg, avoid, bonus)
            if d is None:
                continue
            a = (lay.berg if want_berg else lay.floe) + 7 * s + d
            if a in legal:
                return a
    return None


def _own_ship_spaces(state: rules.IcebergsState, ship: int) -> set[int]:
    per = state.config.ships_per_player
    owner = ship // per
    return {state.pos[k] for k in range(owner * per, (owner + 1) * per) if state.pos[k] >= 0}


# ------------------------------------------------------------------------------ rivals
def race_length(state: rules.IcebergsState, ship: int) -> float:
    """Rough columns still to sail before ``ship`` is home (inf when home or sunk)."""
    cols = state.config.hexmap.cols
    st = state.status[ship]
    if st == rules.AT_SEA:
        col = state.pos[ship] % cols
        return float(cols - col) if state.loaded[ship] else float(col + 2 + cols)
    if st == rules.START:
        return float(2 * cols + 2)
    if st in (rules.ALASKA_LOADING, rules.ALASKA_READY):
        return float(cols + 1)
    return INF


def threats(state: rules.IcebergsState, seat: int) -> dict[int, float]:
    """Rival ships at sea and how much delaying them is worth to us (1 for one ahead of us)."""
    per = state.config.ships_per_player
    mine = [race_length(state, k) for k in range(seat * per, (seat + 1) * per)]
    ours = min(mine)
    out = {}
    for k, st in enumerate(state.status):
        if k // per == seat or st != rules.AT_SEA:
            continue
        ahead = race_length(state, k) <= ours + 0.5
        out[k] = 1.0 if ahead and (state.loaded[k] or ours == INF) else (0.6 if ahead else 0.25)
    return out


# ------------------------------------------------------------------------------ solo ice table
def ice_table_choice(state: rules.IcebergsState) -> int:
    """The solo ice table's 6 (``solo_ice_six="player"``): the line with fewer expected hazard rolls."""
    lay = state.config.layout
    one, two = expected_table_hazards(state)
    return lay.ice_two_bergs if two < one - 1e-12 else lay.ice_one_berg


def expected_table_hazards(state: rules.IcebergsState) -> tuple[float, float]:
    """Expected hazard rolls for the solo ship of (one random iceberg two spaces, two random
    icebergs one space each), as the engine moves them: icebergs picked uniformly, each step
    in a uniformly random sea direction; an iceberg entering the ship's space causes a roll."""
    ship = state.pos[0]
    bergs = [b for b in state.bergs if b >= 0]
    if ship < 0 or not bergs:
        return 0.0, 0.0
    geo = geometry(state.config.hexmap)

    def step(s: int) -> list[tuple[float, int]]:
        nbrs = geo.sea_nbrs[s]
        return [(1.0 / len(nbrs), t) for _, t in nbrs] if nbrs else [(1.0, s)]

    def hits_one_step(s: int) -> float:
        return sum(p for p, t in step(s) if t == ship and t != s)

    def hits_two_steps(s: int) -> float:
        total = 0.0
        for p, t in step(s):
            if t != s and t == ship:
                total += p
            total += p * hits_one_step(t)
        return total

    n = len(bergs)
    one = sum(hits_two_steps(b) for b in bergs) / n
    two = sum(hits_one_step(b) for b in bergs) * min(2, n) / n
    return one, two


# ------------------------------------------------------------------------------ the agent
class IcebergsHeuristic(SeededAgent):
    """See the module docstring."""

    name = "heuristic"
    needs_view = True

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._turn = -1
        self._visited: set[int] = set()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._turn = -1
        self._visited = set()

    def _been_there(self, state: rules.IcebergsState, target: int) -> bool:
        """Whether the ship already sailed through ``target`` this turn (a guard against
        sailing to and fro when a re-plan changes its mind)."""
        key = state.turns
        if key != self._turn:
            self._turn = key
            self._visited = set()
        here = state.pos[state.current]
        if here >= 0:
            self._visited.add(here)
        return target in self._visited

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        mask = observation["action_mask"]
        if view is None:
            return self.random_legal(mask)
        state: rules.IcebergsState = view.state
        legal = set(view.legal_actions) if view.legal_actions else set(np.flatnonzero(mask).tolist())
        try:
            action = self.decide(state, view.seat, legal)
        except Exception:  # pragma: no cover - a heuristic must never crash a game
            action = None
        if action is None or action not in legal:
            lay = state.config.layout
            for fallback in (lay.end_turn, lay.decline, lay.lose_fuel):
                if fallback in legal:
                    return fallback
            return self.random_legal(mask)
        return action

    # -- dispatch
    def decide(self, state: rules.IcebergsState, seat: int, legal: set[int]) -> int | None:
        """The action for ``seat`` (the deciding player) in ``state``."""
        if state.phase == rules.PHASE_HAZARD:
            return self.hazard_choice(state)
        if state.phase == rules.PHASE_ONE:
            return self.rolled_one(state, seat, legal)
        if state.phase == rules.PHASE_ICE_CHOICE:
            return ice_table_choice(state)
        if state.phase == rules.PHASE_MOVE:
            return self.move(state, seat, legal)
        return None

    # -- hazard: lose Fuel or Cargo
    def hazard_choice(self, state: rules.IcebergsState) -> int:
        lay = state.config.layout
        k = state.deciding_ship
        fuel, cargo = state.fuel[k], state.cargo[k]
        if state.config.solo:
            if fuel <= 1:
                return lay.lose_cargo  # 0 Fuel loses the solo game at once
            if cargo - 1 < rules.SOLO_WIN_CARGO:
                return lay.lose_fuel
            return lay.lose_cargo if fuel <= 3 else lay.lose_fuel
        if cargo <= 1:
            return lay.lose_fuel  # without Cargo the ship cannot win
        board = Board(state, k)
        need = board.remaining()
        cost_fuel = fuel_penalty(fuel - 1, need) - fuel_penalty(fuel, need)
        if fuel <= 1:
            cost_fuel += 5.0  # stranded: only drifting is left
        cargo_value = CARGO_TURNS
        if state.first_home >= 0:
            cargo_value *= 3.0  # the Cargo is melting away already: every point counts
        return lay.lose_fuel if cost_fuel <= cargo_value else lay.lose_cargo

    # -- rolled a one: drift, place a floe on a rival, or neither
    def rolled_one(self, state: rules.IcebergsState, seat: int, legal: set[int]) -> int:
        lay = state.config.layout
        m = state.config.hexmap
        k = state.current
        for a in (lay.drift_alaska, lay.drift_home):
            if a in legal:
                return a
        board = Board(state, k)
        best_val, best_act = 0.0, lay.decline
        if board.active and board.start != OFF:
            here = board.static_cost(board.start, entering=False)
            for d in range(6):
                if lay.drift + d in legal:
                    t = m.neighbours[board.start][d]
                    gain = (here - board.static_cost(t, entering=True)) / MU
                    if gain > best_val + 1e-9:
                        best_val, best_act = gain, lay.drift + d
        if lay.place < lay.drift and any(lay.place <= a < lay.drift for a in legal):
            route = self._route_set(board)
            own = _own_ship_spaces(state, k)
            for r, w in threats(state, seat).items():
                q = state.pos[r]
                if q in route or q in own or lay.place + q not in legal:
                    continue
                val = w / MU
                if val > best_val + 1e-9:
                    best_val, best_act = val, lay.place + q
        return best_act

    # -- moving
    def move(self, state: rules.IcebergsState, seat: int, legal: set[int]) -> int | None:
        lay = state.config.layout
        k = state.current
        ml = state.moves_left
        board = Board(state, k)
        # off the map at the goal edge whenever that is possible (leaving costs the same as any step)
        for a in (lay.to_alaska, lay.to_home):
            if a in legal:
                return a
        if state.config.entry_cost == "all_moves" and board.active and board.start == OFF:
            entry = self._whole_roll_entry(state, board, legal)
            if entry is not None:
                return entry
        plans = TurnPlanner(board, ml).run() if board.active else [None] * (ml + 1)
        plan = plans[ml]
        route = set(plan.path) - {OFF} if plan is not None else self._route_set(board)
        # blocking, with the Moves the own plan cannot use only
        if not state.config.solo and ml >= 1:
            block = self._best_block(state, seat, board, route, plans, ml, legal)
            if block is not None:
                return block
        if state.config.solo and plan is not None:
            drift = self._solo_drift(state, board, plan, legal)
            if drift is not None:
                return drift
        if plan is None:
            return lay.end_turn
        action = self._first_action(state, board, plan, legal)
        return lay.end_turn if action is None else action

    def _whole_roll_entry(self, state: rules.IcebergsState, board: Board, legal: set[int]) -> int | None:
        """``entry_cost="all_moves"``: the legal entry onto the edge space with the cheapest rest of the leg."""
        lay = state.config.layout
        cols = state.config.hexmap.cols
        best = None
        for t in board.entries:
            a = lay.enter + t // cols
            if a in legal:
                cost = board.static_cost(t, entering=True)
                if best is None or cost < best[0]:
                    best = (cost, a)
        return None if best is None else best[1]

    def _route_set(self, board: Board) -> set[int]:
        if not board.active:
            return set()
        firsts = list(board.entries) if board.start == OFF else [t for _, t in board.geo.sea_nbrs[board.start]]
        if not firsts:
            return set()
        best = min(firsts, key=lambda t: board.dist[t] + board.side[t])
        out = set(board.route(best) or ())
        out.discard(OFF)
        return out

    def _first_action(self, state: rules.IcebergsState, board: Board, plan: Plan, legal: set[int]) -> int | None:
        lay = state.config.layout
        m = state.config.hexmap
        path = plan.path
        avoid = set(path) - {OFF}
        bonus = self._dest_bonus(state, board)
        n = len(path) - 1
        if plan.steps >= 1:
            touched = range(1, min(plan.steps, n) + 1)
            if not board.solo:
                a = clearing_move(state, board, [path[j] for j in touched], (True, False), avoid, bonus, legal)
                if a is not None:
                    return a
            p0 = path[0]
            if n == 0:  # leave the map from where the ship is
                a = lay.to_home if board.goal_east else lay.to_alaska
                return a if a in legal else None
            p1 = path[1]
            if p0 == OFF:
                a = lay.enter + p1 // m.cols
            else:
                a = next((d for d, t in enumerate(m.neighbours[p0]) if t == p1), -1)
            if a not in legal or self._been_there(state, p1):
                return None
            return a
        if board.solo:
            return None
        # no more sailing this turn: clear ice ahead with the spare Moves (nearest first)
        order = (True, False) if plan.bergs_first else (False, True)
        spots = ([path[0]] if path[0] != OFF else []) + path[1 : CLEAR_HORIZON + 1]
        return clearing_move(state, board, spots, order, avoid, bonus, legal)

    def _dest_bonus(self, state: rules.IcebergsState, board: Board) -> dict[int, float]:
        """A bonus for cleared ice that lands on a rival's ship."""
        out: dict[int, float] = {}
        for r, w in threats(state, board.ship // state.config.ships_per_player).items():
            q = state.pos[r]
            out[q] = out.get(q, 0.0) + 2.0 * w
        return out

    def _best_block(
        self,
        state: rules.IcebergsState,
        seat: int,
        board: Board,
        route: set[int],
        plans: list[Plan | None],
        ml: int,
        legal: set[int],
    ) -> int | None:
        """The most damaging push of ice into a rival's space that costs the own plan nothing: the
        plan with the Moves left after the push is worth as much as the plan with all of them."""
        lay = state.config.layout
        m = state.config.hexmap
        geo = board.geo
        own = _own_ship_spaces(state, board.ship)
        base = plans[ml].value if plans[ml] is not None else 0.0
        best = None
        for r, w in threats(state, seat).items():
            q = state.pos[r]
            if q in route or q in own:
                continue
            for back, x in geo.sea_nbrs[q]:
                d = (back + 3) % 6  # the direction from x into q
                if m.neighbours[x][d] != q:
                    continue
                for is_berg in (True, False):
                    count = state.berg_count[x] if is_berg else state.floes[x]
                    if count <= 0:
                        continue
                    cost = rules.ICEBERG_COST if is_berg else rules.FLOE_COST
                    if cost > ml:
                        continue
                    a = (lay.berg if is_berg else lay.floe) + 7 * x + d
                    if a not in legal:
                        continue
                    if is_berg:
                        value = w * (rules.ICEBERG_PENALTY / MU + RIVAL_SINK_TURNS / 18.0)
                    else:
                        value = w * rules.FLOE_PENALTY / MU
                    rest = plans[ml - cost]
                    after = rest.value if rest is not None else 0.0
                    if after > base + 1e-9:
                        continue  # the own plan needs these Moves
                    net = after - value - base
                    if net < -1e-6 and (best is None or net < best[0]):
                        best = (net, a)
        return None if best is None else best[1]

    def _solo_drift(self, state: rules.IcebergsState, board: Board, plan: Plan, legal: set[int]) -> int | None:
        """Solo: drift (1 Fuel) when no Move can take the ship further and Fuel is to spare."""
        lay = state.config.layout
        m = state.config.hexmap
        if plan.steps >= 1 or state.drifted or board.start == OFF:
            return None
        fuel = state.fuel[board.ship]
        for a in (lay.drift_alaska, lay.drift_home):
            if a in legal and fuel >= 2:
                return a
        if fuel < 3:
            return None
        here = board.static_cost(board.start, entering=False)
        best = None
        for d in range(6):
            if lay.drift + d in legal:
                t = m.neighbours[board.start][d]
                gain = here - board.static_cost(t, entering=True)
                if gain >= 1.0 and (best is None or gain > best[0]):
                    best = (gain, lay.drift + d)
        return None if best is None else best[1]
