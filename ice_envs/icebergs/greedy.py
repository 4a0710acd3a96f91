"""Icebergs' greedy value: Cargo home first, then how far each own ship is on its voyage.

:func:`value` ranks a seat's position by the game's own score (Cargo brought home, R5) and the
progress of its ships towards it:

1. **the result**: a game decided by the rules is worth ``WIN`` to each winner and ``-WIN`` to
   the others (a game stopped undecided at ``max_turns`` has no result term);
2. **Cargo home** (the score): ``CARGO_HOME`` per point;
3. **the voyage** of each own ship: ``STEP`` per stage reached — each column sailed west
   towards Alaska (from the east edge), the turn spent loading there, each column sailed east
   on the way back, and home; a sunk ship has made no progress;
4. **what it carries**: ``CARGO`` per point of Cargo aboard a loaded ship and ``FUEL`` per point
   of Fuel, so a hazard takes Fuel before Cargo, and a move is worth its Fuel point only when it
   gains a column.

It is a one-step look-ahead: moving ice (which only pays later) is worth nothing to it. Icebergs
has no hidden information; the greedy agent takes the expectation over the die exactly.
"""

from __future__ import annotations

from ice_envs.icebergs import rules

#: Weights (see the module docstring): the result, a Cargo point home, a stage of the voyage,
#: a Cargo point aboard and a Fuel point.
WIN = 10**9
CARGO_HOME = 10**5
STEP = 100
CARGO = 5
FUEL = 1


def value(state: rules.IcebergsState, seat: int) -> int:
    """The greedy value of ``state`` for ``seat`` (higher is better; see the module docstring)."""
    cfg = state.config
    total = 0
    if state.over and not state.truncated:
        total += WIN if float(state.result[seat]) > 0 else -WIN
    total += CARGO_HOME * rules.cargo_home(state)[seat]
    k0 = seat * cfg.ships_per_player
    for k in range(k0, k0 + cfg.ships_per_player):
        total += STEP * voyage(state, k)
        if state.status[k] != rules.SUNK:
            if state.loaded[k] and state.status[k] != rules.HOME:
                total += CARGO * int(state.cargo[k])
            total += FUEL * int(state.fuel[k])
    return total


def voyage(state: rules.IcebergsState, ship: int) -> int:
    """Stages of its voyage that ``ship`` has made: 0 in Newfoundland, one per column sailed west,
    one more in Alaska (two once loaded), one per column sailed back east, and ``2 * cols + 4`` home."""
    cols = state.config.hexmap.cols
    status = state.status[ship]
    if status == rules.HOME:
        return 2 * cols + 4
    if status == rules.ALASKA_LOADING:
        return cols + 1
    if status == rules.ALASKA_READY:
        return cols + 2
    if status == rules.AT_SEA:
        col = state.config.hexmap.coords(state.pos[ship])[1]
        return cols + 2 + col + 1 if state.loaded[ship] else cols - col
    return 0  # START, SUNK
