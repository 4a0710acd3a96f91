"""Icebergs' greedy and heuristic players as numba functions on the compiled engine's state row.

**greedy** (``agents/greedy.py``'s :class:`GreedyAgent` with ``icebergs/greedy.py``'s value) values each
legal action by the exact expectation of :func:`greedy_value` (``greedy.value``: the result, Cargo
home, ``-MOVE`` per Move each own ship still needs by :func:`moves_to_go`, Cargo aboard and Fuel)
over the dice the action rolls, and plays the best; ties to the lowest action id. Icebergs hides
nothing, so the Python agent's re-deals are copies and draw nothing, but it always draws its
``samples`` (4) seeds, ``integers(0, 2**63)``, once it has more than one legal action: the compiled
player draws the same 64-bit words from its stream (:func:`uniform`). The chance is enumerated as the
agent does (its hook ``greedy.expected_values``, then its own enumeration): every sequence of the
engine's draws, each with its probability, by running the engine's own ``apply`` on a copy of the row
with a stream state that makes its next draws the dice of the sequence (:data:`FORCING`, built once:
for every sequence of up to three die faces, a SplitMix64 state whose next ``below(6)`` draws are
those faces). A path of more than three dice has more than the agent's ``OUTCOME_LIMIT`` (256)
outcomes; the agent then samples the action, one outcome per seed, with numpy generators seeded from
those seeds, which this player cannot replay: it samples on SplitMix64 streams seeded from the same
seeds. Values are compared exactly, as integers over the common denominator ``4 * 6**3``. As the hook
memoizes, an outcome that leaves every field the value reads as the last valued row had them takes
that row's value (the dice after an action mostly change only the roll).

Most legal actions push an ice floe or an iceberg, and valuing each costs two route searches per own ship.
An action that draws nothing or only dice and moves nothing but ice is first bounded instead
(:func:`_moves_floor`): on the board before the action, each own ship's route terms (a search from the
ship or its entry edge, :func:`~ice_envs.icebergs.compiled_routes.whole_move_spread`, and one from its
goal edge) give the cheapest route through every space; ice that leaves a space lowers a route through
it by at most twice its penalty there, and ice that arrives only adds. So the Moves after the action are
at least the smaller of the route before and the cheapest route through a space the ice left, less twice
the fall: an upper bound on the value, exact in integers. The bounded actions are then valued best bound
first, and only while the bound can still beat the best value found (or tie it with a lower id); every
other action is valued. The decision is the same highest value and lowest id among equals.

Where the two can differ: (1) a non-solo position where some legal action has a chance path of four
or more dice (the Python agent samples it with numpy's generator; no such position came up in the
parity runs); (2) the solo game, where the ice movement table at the end of a turn draws icebergs,
floes and directions (not dice): this player samples every action that reaches it (and the ice table
choice) on its SplitMix64 stream, where the Python agent draws them with numpy's generator, so the two
are not compared in the solo game. Every other decision is the Python agent's.

**heuristic**: see :mod:`ice_envs.icebergs.compiled_heuristic`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ice_envs.core.compiled import njit, uniform
from ice_envs.core.compiled_players import CompiledPlayer, only_legal
from ice_envs.core.splitmix import SplitMixRng
from ice_envs.icebergs import compiled as C
from ice_envs.icebergs import greedy as G
from ice_envs.icebergs.compiled_heuristic import MEMORY_WIDTH, heuristic_act
from ice_envs.icebergs.compiled_routes import BLOCKED, edge_space, whole_move_distances, whole_move_spread

__all__ = ["FORCING", "GREEDY_VALUES_UNIT", "PLAYERS", "greedy_act", "greedy_value", "greedy_values", "moves_to_go"]

#: Longest sequence of dice the agent enumerates (``6**4`` outcomes exceed its limit of 256).
MAX_DICE = 3
#: The common denominator of the expected values: the 4 samples' mean of sums over ``6**MAX_DICE`` paths.
SAMPLES = 4
#: Draw-log slots of the scratch stream (the engine's ``LOG_CAPACITY``).
LOG_SLOTS = 1024


def _forcing_table() -> np.ndarray:
    """``FORCING[6**L - 1) // 5 + code]``: a stream state whose next ``L`` ``below(6)`` draws are the
    base-6 digits of ``code`` (first draw most significant), for ``L`` = 1..3 (index 0: ``L`` = 0)."""
    offsets = [(6**length - 1) // 5 for length in range(MAX_DICE + 1)]
    table = np.zeros(offsets[-1] + 6**MAX_DICE, dtype=np.uint64)
    filled = np.zeros(table.shape[0], dtype=bool)
    filled[0] = True
    candidate = 0
    while not filled.all():
        candidate += 1
        state = (candidate * 0xD1B54A32D192ED03) & (2**64 - 1)
        rng = SplitMixRng(state)
        code = 0
        for length in range(1, MAX_DICE + 1):
            code = 6 * code + rng.below(6)
            at = offsets[length] + code
            if not filled[at]:
                filled[at] = True
                table[at] = state
    return table


#: See :func:`_forcing_table`.
FORCING = _forcing_table()
#: ``POW6[i] == 6**i`` and where the sequences of ``i`` dice start in :data:`FORCING`.
POW6 = np.array([6**i for i in range(MAX_DICE + 1)], dtype=np.int64)
FORCING_AT = np.array([(6**i - 1) // 5 for i in range(MAX_DICE + 1)], dtype=np.int64)
#: :func:`action_value`'s answer, bounding, for an action it cannot bound (above every scaled value).
NO_BOUND = 2**62
#: The greedy value's weights (``greedy.py``).
WIN, CARGO_HOME, MOVE, CARGO, FUEL = G.WIN, G.CARGO_HOME, G.MOVE, G.CARGO, G.FUEL


# ------------------------------------------------------------------ the value (greedy.value)
@njit
def _penalties(s: np.ndarray, cfg: np.ndarray, ship: int, pens: np.ndarray) -> None:
    """``greedy._penalties``: every space's penalty for ``ship`` (its own presence left out)."""
    floes, bergs = cfg[C.S_FLOES], cfg[C.S_BERG_COUNT]
    spaces = cfg[C.C_SPACES]
    for x in range(spaces):
        pens[x] = s[floes + x] + 3 * s[bergs + x]
    for k in range(cfg[C.C_SHIPS]):
        p = s[C.POS + k]
        if k != ship and 0 <= p < spaces:
            pens[p] += 1


@njit
def _entry(cfg: np.ndarray, east_edge: bool, pens: np.ndarray, dist: np.ndarray) -> int:
    """``greedy._entry``: the cheapest entry at an edge space and route from it (at most ``BLOCKED``)."""
    best = BLOCKED
    for r in range(cfg[C.C_ROWS]):
        x = edge_space(cfg, r, east_edge)
        if x >= 0 and 1 + pens[x] + dist[x] < best:
            best = 1 + pens[x] + dist[x]
    return best


@njit
def moves_to_go(s: np.ndarray, cfg: np.ndarray, ship: int, scratch: np.ndarray, keys: np.ndarray) -> int:
    """``greedy.moves_to_go``: Moves ``ship`` still needs to finish its voyage on the board as it is.

    ``scratch``: ``(3, spaces)`` int64 (penalties, east and west distances); ``keys``: the search's
    scratch (:func:`~ice_envs.icebergs.compiled_routes.whole_move_scratch`)."""
    status = s[C.STATUS + ship]
    if status == C.HOME:
        return 0
    pens, east, west = scratch[0], scratch[1], scratch[2]
    _penalties(s, cfg, ship, pens)
    exit_pen = cfg[C.C_EXIT_PENALTIES] != 0
    whole_move_distances(cfg, pens, True, exit_pen, east, keys)
    back = _entry(cfg, False, pens, east)
    if status == C.ALASKA_LOADING or status == C.ALASKA_READY:
        return back
    if status == C.AT_SEA and s[C.LOADED + ship]:
        return min(BLOCKED, east[s[C.POS + ship]])
    whole_move_distances(cfg, pens, False, exit_pen, west, keys)
    if status == C.AT_SEA:
        return min(BLOCKED, west[s[C.POS + ship]]) + back
    return _entry(cfg, True, pens, west) + back


@njit
def greedy_value(s: np.ndarray, cfg: np.ndarray, seat: int, scratch: np.ndarray, keys: np.ndarray) -> int:
    """``greedy.value``: the greedy value of the row for ``seat`` (higher is better)."""
    kps = cfg[C.C_KPS]
    total = _rest_value(s, cfg, seat)
    for k in range(seat * kps, seat * kps + kps):
        total -= MOVE * moves_to_go(s, cfg, k, scratch, keys)
    return total


# ------------------------------------------------------------------ the expectation over the dice
@njit(inline="always")
def _forcing_state(script: np.ndarray, length: int) -> np.uint64:
    code = 0
    for i in range(length):
        code = 6 * code + script[i]
    return FORCING[FORCING_AT[length] + code]


@njit
def _ice_table_reached(before: np.ndarray, after: np.ndarray) -> bool:
    """Solo: the action ran the ice movement table (a turn ended: the round moved on) or its 6."""
    return after[C.ROUND] != before[C.ROUND] or before[C.PHASE] == C.PHASE_ICE_CHOICE


@njit
def _same_valued_fields(a: np.ndarray, b: np.ndarray, cfg: np.ndarray) -> bool:
    """Every field :func:`greedy_value` reads is the same in rows ``a`` and ``b`` (``greedy._value_key``)."""
    floes = cfg[C.S_FLOES]
    for at in range(floes, floes + 2 * cfg[C.C_SPACES]):  # floes, berg_count: an ice move differs here
        if a[at] != b[at]:
            return False
    for at in range(C.STATUS, C.HOME_RANK):  # status, pos, fuel, cargo, loaded
        if a[at] != b[at]:
            return False
    for at in range(C.RESULT, C.STATUS):
        if a[at] != b[at]:
            return False
    return a[C.OVER] == b[C.OVER] and a[C.TRUNCATED] == b[C.TRUNCATED]


@njit
def _memo_value(
    work: np.ndarray, cfg: np.ndarray, seat: int, scratch: np.ndarray, keys: np.ndarray, memo_row: np.ndarray,
    memo: np.ndarray,
) -> int:  # fmt: skip
    """:func:`greedy_value` of ``work``, or of the row valued last when every field the value reads is the
    same (``greedy._value_key``: the dice after an action often leave the board as it was)."""
    if memo[0] and _same_valued_fields(work, memo_row, cfg):
        return memo[1]
    value = greedy_value(work, cfg, seat, scratch, keys)
    copy_row(memo_row, work)
    memo[0] = 1
    memo[1] = value
    return value


@njit
def _sampled_value(
    s: np.ndarray, cfg: np.ndarray, action: int, seat: int, seeds: np.ndarray, work: np.ndarray, rng: np.ndarray,
    scratch: np.ndarray, keys: np.ndarray, memo_row: np.ndarray, memo: np.ndarray,
) -> int:  # fmt: skip
    """The sum of the values after ``action`` on one outcome per seed, times ``6**MAX_DICE``."""
    total = 0
    for k in range(SAMPLES):
        copy_row(work, s)
        rng[0] = seeds[k]
        rng[1] = 0
        C.apply(work, action, rng, cfg)
        total += _memo_value(work, cfg, seat, scratch, keys, memo_row, memo)
    return total * POW6[MAX_DICE]


# ------------------------------------------------------------------ bounds that skip hopeless actions
Bounds = namedtuple("Bounds", ["on", "terms", "through", "worth", "cheapest", "script"])
"""``on``: :func:`action_value` bounds the value rather than values it; what :func:`_moves_floor` reads
(the route terms of :func:`_route_terms`: ``through[j, a]``, the cheapest route of term ``j`` through
space ``a``, ``worth[j]`` its cheapest route; ``cheapest``: a scratch row per term); ``script``: the
dice of the outcome being played."""


@njit(inline="always")
def _rest_value(s: np.ndarray, cfg: np.ndarray, seat: int) -> int:
    """:func:`greedy_value` less its Moves term (``-MOVE`` times the own ships' :func:`moves_to_go`)."""
    kps = cfg[C.C_KPS]
    total = 0
    if s[C.OVER] and not s[C.TRUNCATED]:
        total += WIN if s[C.RESULT + seat] > 0 else -WIN
    for k in range(seat * kps, seat * kps + kps):
        status = s[C.STATUS + k]
        if status == C.HOME:
            total += CARGO_HOME * s[C.CARGO + k]
        if status != C.SUNK:
            if s[C.LOADED + k] and status != C.HOME:
                total += CARGO * s[C.CARGO + k]
            total += FUEL * s[C.FUEL + k]
    return total


@njit(inline="always")
def copy_row(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[:] = src`` as a plain loop (numba's slice assignment costs ten times as much on a state row)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(inline="always")
def fill(dst: np.ndarray, value: int) -> None:
    """``dst[:] = value`` as a plain loop."""
    for i in range(dst.shape[0]):
        dst[i] = value


@njit
def _seed_entries(cfg: np.ndarray, pens: np.ndarray, east_edge: bool, dist: np.ndarray) -> None:
    """``dist``: the entry price ``1 + pens[x]`` at each ``east_edge`` (or west) space, ``BLOCKED`` elsewhere."""
    fill(dist, BLOCKED)
    for r in range(cfg[C.C_ROWS]):
        x = edge_space(cfg, r, east_edge)
        if x >= 0:
            dist[x] = min(dist[x], 1 + pens[x])


@njit
def _route_terms(
    s: np.ndarray, cfg: np.ndarray, seat: int, reach: np.ndarray, rest: np.ndarray, worth: np.ndarray,
    keys: np.ndarray,
) -> int:  # fmt: skip
    """The own ships' :func:`moves_to_go` as route terms, for :func:`_moves_floor`; their count.

    Term ``j``: ``worth[j]`` Moves, the cheapest of the routes from a start (a ship's space, or the
    entries of an edge at their price) to a goal edge; ``reach[j]`` the Moves from the start to every
    space and ``rest[j]`` from every space to the goal (each a search on the ship's penalties)."""
    kps = cfg[C.C_KPS]
    spaces = cfg[C.C_SPACES]
    exit_pen = cfg[C.C_EXIT_PENALTIES] != 0
    pens = np.zeros(spaces, dtype=np.int64)
    count = 0
    for k in range(seat * kps, seat * kps + kps):
        status = s[C.STATUS + k]
        if status == C.HOME:
            continue
        _penalties(s, cfg, k, pens)
        loaded_at_sea = status == C.AT_SEA and s[C.LOADED + k] != 0
        east = rest[count]
        whole_move_distances(cfg, pens, True, exit_pen, east, keys)
        if loaded_at_sea:  # off the east edge from the ship's space
            fill(reach[count], BLOCKED)
            reach[count][s[C.POS + k]] = 0
            whole_move_spread(cfg, pens, reach[count], keys)
            worth[count] = min(BLOCKED, east[s[C.POS + k]])
            count += 1
            continue
        _seed_entries(cfg, pens, False, reach[count])  # back from Alaska: in at the west edge, off the east
        whole_move_spread(cfg, pens, reach[count], keys)
        worth[count] = _entry(cfg, False, pens, east)
        count += 1
        if status == C.ALASKA_LOADING or status == C.ALASKA_READY:
            continue
        west = rest[count]
        whole_move_distances(cfg, pens, False, exit_pen, west, keys)
        if status == C.AT_SEA:
            fill(reach[count], BLOCKED)
            reach[count][s[C.POS + k]] = 0
            whole_move_spread(cfg, pens, reach[count], keys)
            worth[count] = min(BLOCKED, west[s[C.POS + k]])
        else:  # START, SUNK: in at the east edge, off the west
            _seed_entries(cfg, pens, True, reach[count])
            whole_move_spread(cfg, pens, reach[count], keys)
            worth[count] = _entry(cfg, True, pens, west)
        count += 1
    return count


@njit(inline="always")
def _ice_only(s: np.ndarray, after: np.ndarray, cfg: np.ndarray, seat: int) -> bool:
    """``after`` differs from ``s`` in no ship's space and no own ship's status or load (so the own ships'
    route terms keep their starts and goals and only the ice may have moved)."""
    for k in range(cfg[C.C_SHIPS]):
        if after[C.POS + k] != s[C.POS + k]:
            return False
    kps = cfg[C.C_KPS]
    for k in range(seat * kps, seat * kps + kps):
        if after[C.STATUS + k] != s[C.STATUS + k] or after[C.LOADED + k] != s[C.LOADED + k]:
            return False
    return True


@njit(inline="always")
def _moves_floor(s: np.ndarray, after: np.ndarray, cfg: np.ndarray, bounds: Bounds) -> int:
    """A lower bound on the own ships' :func:`moves_to_go` in ``after`` (:func:`_ice_only` holds).

    Only the ice moved, so each ship's penalty changed by the same amount in each space. A route of
    the new board that passes no space whose penalty fell costs at least what it cost before, so at
    least its term's ``worth``; one that passes such a space ``a`` cost at least ``through[a]`` (the
    cheapest route through ``a`` on ``s``) before, and a route passes each space once, where its penalty
    counts at most twice: it costs at least that less twice the fall summed over the spaces. Capping
    at ``BLOCKED`` keeps the bound."""
    floes, bergs = cfg[C.S_FLOES], cfg[C.S_BERG_COUNT]
    spaces = cfg[C.C_SPACES]
    terms, through, worth = bounds.terms, bounds.through, bounds.worth
    # slices: numba indexes them without the checks an offset index costs (several times faster)
    floes_now, floes_before = after[floes : floes + spaces], s[floes : floes + spaces]
    bergs_now, bergs_before = after[bergs : bergs + spaces], s[bergs : bergs + spaces]
    lowest = 0
    for x in range(spaces):  # no branch: the common case (nothing fell) is one quick pass
        lowest = min(lowest, (floes_now[x] - floes_before[x]) + 3 * (bergs_now[x] - bergs_before[x]))
    total = 0
    if lowest == 0:
        for j in range(terms):
            total += worth[j]
        return total
    fall = 0
    cheapest = bounds.cheapest
    fill(cheapest, 2 * BLOCKED + 1)
    for x in range(spaces):
        change = (floes_now[x] - floes_before[x]) + 3 * (bergs_now[x] - bergs_before[x])
        if change < 0:
            fall -= change
            for j in range(terms):
                cheapest[j] = min(cheapest[j], through[j, x])
    for j in range(terms):
        total += min(worth[j], cheapest[j] - 2 * fall)
    return total


@njit(inline="always")
def _outcome_worth(
    s: np.ndarray, work: np.ndarray, cfg: np.ndarray, seat: int, scratch: np.ndarray, keys: np.ndarray,
    memo_row: np.ndarray, memo: np.ndarray, bounds: Bounds,
) -> int:  # fmt: skip
    """The value of the outcome ``work`` of an action on ``s``: exact (:func:`_memo_value`), or with
    ``bounds.on``, an upper bound from :func:`_moves_floor` (``NO_BOUND`` when it moved more than ice)."""
    if not bounds.on:
        return _memo_value(work, cfg, seat, scratch, keys, memo_row, memo)
    if not _ice_only(s, work, cfg, seat):
        return NO_BOUND
    floor = _moves_floor(s, work, cfg, bounds)
    return _rest_value(work, cfg, seat) - MOVE * floor


@njit
def action_value(
    s: np.ndarray, cfg: np.ndarray, action: int, seat: int, seeds: np.ndarray, work: np.ndarray, rng: np.ndarray,
    scratch: np.ndarray, keys: np.ndarray, memo_row: np.ndarray, memo: np.ndarray, bounds: Bounds,
) -> int:  # fmt: skip
    """The agent's value of ``action`` times ``SAMPLES * 6**MAX_DICE``: the exact expectation over its
    dice (the odometer of ``core/chance.py``: a draw past the script takes 0), or sampled (module docstring);
    ``NO_BOUND`` instead of a sampled value when ``seeds`` is empty.

    With ``bounds.on``: an upper bound on it from the same outcomes, or ``NO_BOUND`` (an action that moves
    more than ice or is sampled)."""
    solo = cfg[C.C_SOLO] != 0
    if solo and s[C.PHASE] == C.PHASE_ICE_CHOICE:
        if bounds.on or seeds.shape[0] == 0:
            return NO_BOUND
        return _sampled_value(s, cfg, action, seat, seeds, work, rng, scratch, keys, memo_row, memo)
    script = bounds.script
    fill(script, 0)
    length = 0
    total = 0
    while True:
        while True:
            copy_row(work, s)
            rng[0] = _forcing_state(script, min(length, MAX_DICE))
            rng[1] = 0
            C.apply(work, action, rng, cfg)
            drawn = np.int64(rng[1])
            if drawn > MAX_DICE or (solo and _ice_table_reached(s, work)):
                if bounds.on or seeds.shape[0] == 0:
                    return NO_BOUND
                return _sampled_value(s, cfg, action, seat, seeds, work, rng, scratch, keys, memo_row, memo)
            if drawn > length:
                for i in range(length, drawn):
                    script[i] = 0
                length = drawn
                continue
            length = drawn
            break
        worth = _outcome_worth(s, work, cfg, seat, scratch, keys, memo_row, memo, bounds)
        if worth == NO_BOUND:
            return NO_BOUND
        total += worth * POW6[MAX_DICE - length]
        i = length - 1
        while i >= 0 and script[i] + 1 >= 6:
            i -= 1
        if i < 0:
            return total * SAMPLES
        script[i] += 1
        length = i + 1


@njit
def _valuing_scratch(s: np.ndarray, spaces: int) -> tuple:
    """The work rows of :func:`action_value` on ``s``: the outcome row, its stream, the route searches'
    scratch and keys, and the memo of the row valued last."""
    keys = np.zeros((3, max(BLOCKED, 8 * spaces + 16)), dtype=np.int64)
    keys[0] = -1
    return (
        s.copy(),
        np.zeros(2 + LOG_SLOTS, dtype=np.uint64),
        np.zeros((3, spaces), dtype=np.int64),
        keys,
        s.copy(),
        np.zeros(2, dtype=np.int64),
    )


@njit
def greedy_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """:meth:`GreedyAgent.act` (module docstring): the legal action of highest expected greedy value."""
    only = only_legal(mask)
    if only >= 0:
        return only
    seeds = np.zeros(SAMPLES, dtype=np.uint64)
    for k in range(SAMPLES):  # the agent's integers(0, 2**63, size=samples): one 64-bit word each
        seeds[k] = np.uint64(uniform(prng) * 9007199254740992.0)
    seat = C.deciding(s, cfg)
    spaces = cfg[C.C_SPACES]
    work, rng, scratch, keys, memo_row, memo = _valuing_scratch(s, spaces)
    # The bounds' tables (the own ships' route terms on ``s``); the solo game's ice table moves ice at
    # random, so there every action is valued.
    terms_cap = 2 * cfg[C.C_KPS]
    reach = np.empty((terms_cap, spaces), dtype=np.int64)
    rest = np.empty((terms_cap, spaces), dtype=np.int64)
    worth = np.zeros(terms_cap, dtype=np.int64)
    solo = cfg[C.C_SOLO] != 0
    terms = 0 if solo else _route_terms(s, cfg, seat, reach, rest, worth, keys)
    through = reach  # the cheapest route through each space: from the start to it, and on to the goal
    for j in range(terms):
        for x in range(spaces):
            through[j, x] = reach[j, x] + rest[j, x]
    cheapest = np.empty(terms_cap, dtype=np.int64)
    script = np.zeros(MAX_DICE + 1, dtype=np.int64)
    exact = Bounds(False, terms, through, worth, cheapest, script)
    bound = Bounds(True, terms, through, worth, cheapest, script)
    # Every action that moves more than ice is valued; one that moves only ice is valued only while its
    # bound can still beat (or tie with a lower id) the best value found: the best is the highest
    # value, the lowest id among equals, whatever order the actions are valued in.
    best = -1
    best_value = 0
    bounded = np.empty(mask.shape[0], dtype=np.int64)
    ceilings = np.empty(mask.shape[0], dtype=np.int64)
    count = 0
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        ceiling = (
            NO_BOUND if solo else action_value(s, cfg, a, seat, seeds, work, rng, scratch, keys, memo_row, memo, bound)
        )
        if ceiling == NO_BOUND:
            v = action_value(s, cfg, a, seat, seeds, work, rng, scratch, keys, memo_row, memo, exact)
            if best < 0 or v > best_value or (v == best_value and a < best):
                best = a
                best_value = v
        else:
            bounded[count] = a
            ceilings[count] = ceiling
            count += 1
    order = np.argsort(-ceilings[:count], kind="mergesort")  # highest bound first, ids ascending
    for i in order:
        a = bounded[i]
        ceiling = ceilings[i]
        if best >= 0 and ceiling < best_value:
            break
        if best >= 0 and ceiling == best_value and a > best:
            continue
        v = action_value(s, cfg, a, seat, seeds, work, rng, scratch, keys, memo_row, memo, exact)
        if best < 0 or v > best_value or (v == best_value and a < best):
            best = a
            best_value = v
    return best


@njit
def greedy_values(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, out: np.ndarray, sampled: np.ndarray) -> None:
    """Every legal action's exact greedy value for the deciding seat, as :func:`greedy_act` values it (times
    ``SAMPLES * 6**MAX_DICE``), into ``out``; ``sampled[a] = 1`` (``out[a]`` left as it was) for an action the
    agent samples instead of enumerating. The Python agent's values of the enumerated actions are these over
    ``SAMPLES * 6**MAX_DICE`` (tested); the flat search ranks its candidates by them."""
    seat = C.deciding(s, cfg)
    spaces = cfg[C.C_SPACES]
    work, rng, scratch, keys, memo_row, memo = _valuing_scratch(s, spaces)
    no_seeds = np.zeros(0, dtype=np.uint64)  # a sampled action is NO_BOUND
    terms_cap = 2 * cfg[C.C_KPS]
    through = np.zeros((terms_cap, spaces), dtype=np.int64)
    worth = np.zeros(terms_cap, dtype=np.int64)
    cheapest = np.empty(terms_cap, dtype=np.int64)
    script = np.zeros(MAX_DICE + 1, dtype=np.int64)
    exact = Bounds(False, 0, through, worth, cheapest, script)
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        value = action_value(s, cfg, a, seat, no_seeds, work, rng, scratch, keys, memo_row, memo, exact)
        if value == NO_BOUND:
            sampled[a] = 1
        else:
            out[a] = value


#: The denominator of :func:`greedy_values`' values.
GREEDY_VALUES_UNIT = SAMPLES * 6**MAX_DICE


#: The game's compiled players (``GameSpec.compiled_players``).
PLAYERS: dict[str, CompiledPlayer] = {
    "greedy": CompiledPlayer("greedy", greedy_act),
    "heuristic": CompiledPlayer("heuristic", heuristic_act, MEMORY_WIDTH),
}
