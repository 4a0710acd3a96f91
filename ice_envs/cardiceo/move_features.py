"""What a Cardiceo player reads off a whole move at a glance: the move-scoring learner's game features.

One row per whole move (:mod:`ice_envs.agents.whole_moves`: a turn's discards with the dice, or the "no
play" choice: keep the middle dice and play them, or re-roll all three). The hand's worth is ``E``, the
expected turns to empty it played alone (:mod:`ice_envs.cardiceo.solitaire`, the heuristic's model). Every
column reads only the seat's own hand, the dice and the public discards.

Columns (:data:`NAMES`):

* ``turns_now``, ``turns_after``, ``turns_gap``: ``E`` of the hand before and after the move, and the
  excess of the move's ``E`` over the least of the decision's moves (a re-roll counts the mean over the
  384 fresh rolls of the best hand each leaves);
* ``cards_shed``, ``misses_shed``: the cards the move discards, and how many of the 384 fresh rolls miss
  their values (hard values are worth shedding);
* ``help_left``: the unseen cards whose values the dice left in the middle make (what they give the
  neighbour);
* ``is_reroll``, ``is_keep``, ``ends_early``: the kind of move;
* ``cards_now``, ``fewest_opponent_cards``: the seat's hand size, and the fewest cards another seat holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.cardiceo import rules, solitaire
from ice_envs.cardiceo.heuristic import _help_left, roll_misses

NAMES = (
    "turns_now",
    "turns_after",
    "turns_gap",
    "cards_shed",
    "misses_shed",
    "help_left",
    "is_reroll",
    "is_keep",
    "ends_early",
    "cards_now",
    "fewest_opponent_cards",
)
_COL = {name: i for i, name in enumerate(NAMES)}


def move_features(state: rules.CardiceoState, seat: int, moves: list[tuple[tuple[int, ...], Any]]) -> np.ndarray:
    """The :data:`NAMES` columns of each of ``moves`` (``(actions, state after)``) made by ``seat`` from ``state``."""
    hand = np.asarray(state.hands[seat], dtype=np.int64)
    lattice = solitaire.lattice_for(hand)
    misses = np.asarray(roll_misses(), dtype=np.int64)
    gone = np.asarray(state.discarded, dtype=np.int64) + hand
    others = [int(state.hands[p].sum()) for p in range(state.config.num_players) if p != seat]
    out = np.zeros((len(moves), len(NAMES)), dtype=np.float64)
    out[:, _COL["turns_now"]] = lattice.expected_turns(hand)
    out[:, _COL["cards_now"]] = int(hand.sum())
    out[:, _COL["fewest_opponent_cards"]] = min(others) if others else 0
    for row, (seq, after) in zip(out, moves):
        left = np.asarray(after.hands[seat], dtype=np.int64)
        shed = hand - left
        if rules.REROLL_ALL in seq:
            row[_COL["is_reroll"]] = 1
            row[_COL["turns_after"]] = lattice.reroll_sum(hand) / len(solitaire.ROLLS)
        else:
            row[_COL["turns_after"]] = lattice.expected_turns(left)
        row[_COL["is_keep"]] = rules.KEEP_DICE in seq
        row[_COL["ends_early"]] = rules.END_TURN in seq
        row[_COL["cards_shed"]] = int(shed.sum())
        row[_COL["misses_shed"]] = int((misses * shed).sum())
        if rules.REROLL_ALL not in seq:
            free = tuple(bool(not u) for u in _used_after(state, seq))
            row[_COL["help_left"]] = _help_left(np.asarray(state.dice), free, gone)
    turns = out[:, _COL["turns_after"]]
    out[:, _COL["turns_gap"]] = turns - turns.min() if len(turns) else 0.0
    return out


def _used_after(state: rules.CardiceoState, seq: tuple[int, ...]) -> np.ndarray:
    """The dice of ``state`` that the discards of ``seq`` use (its own ``used`` flags included)."""
    used = np.asarray(state.used, dtype=bool).copy()
    for action in seq:
        if action < rules.NUM_SUBSETS:
            for i in rules.SUBSETS[action]:
                used[i] = True
    return used


move_features.NAMES = NAMES  # type: ignore[attr-defined]
