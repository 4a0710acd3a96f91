"""What a CubeMelt player reads off a whole move at a glance: the move-scoring learner's game features.

One row per whole move (:mod:`ice_envs.agents.whole_moves`): a re-roll (the bitmask of the dice thrown again,
which ends at the throw), stopping (with the Love-or-Adventure choices and the Ninja's decision that follow
on the seat's own turn), or a choice made on another seat's turn. Everything in CubeMelt is public, so every
column reads the table as any player sees it.

The values are the heuristic's (:class:`~ice_envs.cubemelt.heuristic.CubeMeltHeuristic`): its estimate of the
seat's chance to win from the tracks, and its exact look-ahead over the re-rolls left (a keep is worth its
expectation over the throw, then the best play). They are multiples of ``2**-20``, so a row is the same on
any CPU.

Columns (:data:`NAMES`):

* ``value``: what the move is worth to the seat: a re-roll its look-ahead value, stopping the value of
  resolving the dice as they lie (the look-ahead's "stop"), a choice or the Ninja's decision the value of the
  tracks after it;
* ``value_gap``: how far ``value`` is below the best of the decision's moves;
* ``value_after``: the value of the tracks once the move is made (a re-roll changes no track: the value now);
* ``is_stop``, ``is_choice``, ``rerolled``: the kind of move, and the dice thrown again (of six);
* ``pays_melt``: the re-roll costs a Melt (it is not the turn's first);
* ``kept_heart``, ``kept_star``, ``kept_sad``, ``kept_drooping``: the faces a re-roll keeps (of six; stopping
  keeps them all);
* ``own_melt``, ``own_best``, ``own_low``: the seat's Melt, better track and worse track (of 20);
* ``rival_best``, ``rival_low_melt``: the best track of any other seat, and the lowest Melt among them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ice_envs.cubemelt import rules
from ice_envs.cubemelt.heuristic import KEEPS, VALUE_QUANTUM, CubeMeltHeuristic

NAMES = (
    "value",
    "value_gap",
    "value_after",
    "is_stop",
    "is_choice",
    "rerolled",
    "pays_melt",
    "kept_heart",
    "kept_star",
    "kept_sad",
    "kept_drooping",
    "own_melt",
    "own_best",
    "own_low",
    "rival_best",
    "rival_low_melt",
)
_COL = {name: i for i, name in enumerate(NAMES)}
_KEPT = tuple(_COL[f"kept_{face}"] for face in rules.FACE_NAMES)


@lru_cache(maxsize=1)
def _valuer() -> CubeMeltHeuristic:
    """One heuristic for its values (its cache is pure: no value depends on what was asked before)."""
    return CubeMeltHeuristic(seed=0)


def move_features(state: rules.CubeMeltState, seat: int, moves: list[tuple[tuple[int, ...], Any]]) -> np.ndarray:
    """The :data:`NAMES` columns of each of ``moves`` (``(actions, state after)``) made by ``seat`` from ``state``."""
    heuristic = _valuer()
    out = np.zeros((len(moves), len(NAMES)), dtype=np.float64)
    n = state.config.num_players
    goal = float(rules.GOAL)
    own_best = max(state.love[seat], state.adventure[seat])
    out[:, _COL["own_melt"]] = state.melt[seat] / goal
    out[:, _COL["own_best"]] = own_best / goal
    out[:, _COL["own_low"]] = min(state.love[seat], state.adventure[seat]) / goal
    rivals = [p for p in range(n) if p != seat]
    out[:, _COL["rival_best"]] = max((max(state.love[p], state.adventure[p]) for p in rivals), default=0) / goal
    out[:, _COL["rival_low_melt"]] = min((state.melt[p] for p in rivals), default=0) / goal
    rerolling = state.phase == rules.PHASE_REROLL and state.active == seat
    stop, options = heuristic.reroll_values(state, seat) if rerolling else (0, None)
    now = heuristic.state_value(state, seat)
    dice_counts = rules.face_counts(state.dice)
    for row, (seq, after) in zip(out, moves):
        first = seq[0]
        if rerolling and first != rules.STOP and first < rules.NUM_SUBSETS:
            keep = heuristic.keep_of(state.dice, first)
            row[_COL["value"]] = float(options[keep]) * VALUE_QUANTUM if options is not None else now
            row[_COL["value_after"]] = now
            row[_COL["rerolled"]] = bin(first).count("1") / rules.NUM_DICE
            row[_COL["pays_melt"]] = state.rerolls >= 1
            kept = KEEPS[keep]
        else:
            after_value = heuristic.state_value(after, seat)
            row[_COL["value"]] = stop * VALUE_QUANTUM if rerolling else after_value
            row[_COL["value_after"]] = after_value
            row[_COL["is_stop"]] = rerolling
            row[_COL["is_choice"]] = not rerolling
            kept = dice_counts
        for col, count in zip(_KEPT, kept):
            row[col] = count / rules.NUM_DICE
    values = out[:, _COL["value"]]
    out[:, _COL["value_gap"]] = values.max() - values if len(values) else 0.0
    return out


move_features.NAMES = NAMES  # type: ignore[attr-defined]
