"""What a Tip of the Diceberg player reads off a whole move at a glance: the move-scoring learner's game features.

One row per whole move (:mod:`ice_envs.agents.whole_moves`: a meld laid and committed to a slot with the
power's choice that follows, a pass with the die it takes, a draft pick, a power's choice). The hand's cost
is the heuristic's model (``heuristic.py``): the turns the hand still needs, split into melds the revealed
cards take at the lowest total cost. Every column reads only the seat's own items and the public table
(slots, pool, hand sizes), never another seat's hidden hand.

Columns (:data:`NAMES`):

* ``cost_now``, ``cost_after``: the hand's cost before and after the move (0 once the hand is empty);
* ``turn_cost``: the turn the move spends by the heuristic's model (a meld on a *clear* card 0.15, on a
  *discard* card 0.6, on the others 1; a pass 1; a draft or a power's choice 0);
* ``total``, ``total_gap``: ``turn_cost + cost_after``, and its excess over the move of least total;
* ``is_pass``, ``is_play``, ``is_draft``, ``is_decline``, ``is_power``: the kind of move;
* ``meld_items``, ``goes_out``: items the meld sheds, whether the hand is then empty;
* ``power_*``: the power of the card the meld goes to (one-hot);
* ``slot_melds``: how many melds of the seat's items that card takes (log2 of 1 + count);
* ``die_solo``, ``die_faces``, ``die_number``: the die the move takes (draft, take, pass): what it is worth
  alone on a revealed *clear* or *discard* card (``heuristic.solo_value``), its faces and number;
* ``items_now``, ``fewest_opponent_items``: the seat's items, and the fewest any other seat holds.
"""

from __future__ import annotations

from math import log2
from typing import Any

import numpy as np

from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.heuristic import POWER_TURN_COST, DicebergHeuristic, Hand, solo_value
from ice_envs.tip_of_the_diceberg.patterns import DIE_TYPE, ITEM_DIE0, NUM_DICE, SUIT_FACES

POWERS = ("", "reroll", "take", "discard", "clear")
NAMES = (
    "cost_now",
    "cost_after",
    "turn_cost",
    "total",
    "total_gap",
    "is_pass",
    "is_play",
    "is_draft",
    "is_decline",
    "is_power",
    "meld_items",
    "goes_out",
    *(f"power_{p or 'none'}" for p in POWERS),
    "slot_melds",
    "die_solo",
    "die_faces",
    "die_number",
    "items_now",
    "fewest_opponent_items",
)
_COL = {name: i for i, name in enumerate(NAMES)}
#: A hand no revealed card can shed counts at most this many turns.
COST_CAP = 30.0

_heuristic = DicebergHeuristic(0)


def _taken_die(action: int) -> int | None:
    for base in (rules.DRAFT, rules.TAKE, rules.PASS_TAKE):
        if base <= action < base + NUM_DICE:
            return action - base
    return None


def move_features(state: rules.DicebergState, seat: int, moves: list[tuple[tuple[int, ...], Any]]) -> np.ndarray:
    """The :data:`NAMES` columns of each of ``moves`` (``(actions, state after)``) made by ``seat`` from ``state``."""
    items = rules.items_of(state, seat)
    hand = _heuristic.hand(state, items)
    plan = hand.plan
    known = {it[0]: it for it in items}
    cost_now = min(hand.value(), COST_CAP)
    cards = state.config.catalog.cards
    per_slot: Any = None
    others = [len(rules.items_of(state, p)) for p in range(state.config.num_players) if p != seat]
    out = np.zeros((len(moves), len(NAMES)), dtype=np.float64)
    out[:, _COL["cost_now"]] = cost_now
    out[:, _COL["items_now"]] = len(items)
    out[:, _COL["fewest_opponent_items"]] = min(others) if others else 0
    for row, (seq, after) in zip(out, moves):
        left = rules.items_of(after, seat)
        kept = [it[0] for it in left if known.get(it[0]) == it]
        new = [it for it in left if known.get(it[0]) != it]
        if not left:
            cost_after = 0.0
        elif not new:
            cost_after = plan.value(plan.mask_of(kept))
        elif len(new) == 1 and new[0][3]:  # one die taken or re-rolled: only its melds are enumerated
            die = new[0]
            cost_after = _heuristic.value_with_die(state, Hand(plan, plan.mask_of(kept)), die[0] - ITEM_DIE0, die[2])
        else:
            cost_after = _heuristic.hand(state, left).value()  # under the slots the seat saw
        row[_COL["cost_after"]] = min(cost_after, COST_CAP)
        row[_COL["goes_out"]] = not left
        first = seq[0]
        commits = [a - rules.COMMIT for a in seq if rules.COMMIT <= a < rules.PASS]
        if commits:
            k = commits[0]
            power = cards[state.slots[k]].power
            row[_COL["is_play"]] = 1
            row[_COL["turn_cost"]] = POWER_TURN_COST[power]
            row[_COL[f"power_{power or 'none'}"]] = 1
            row[_COL["meld_items"]] = sum(1 for a in seq if a < rules.COMMIT) + len(state.selection)
            if per_slot is None:
                per_slot = rules.slot_melds(state, seat)
            row[_COL["slot_melds"]] = log2(1 + len(per_slot[k].melds))
        elif first == rules.PASS or rules.PASS_TAKE <= first < rules.DRAFT:
            row[_COL["is_pass"]] = 1
            row[_COL["turn_cost"]] = 1.0
        elif rules.DRAFT <= first < rules.TAKE:
            row[_COL["is_draft"]] = 1
        elif first == rules.DECLINE:
            row[_COL["is_decline"]] = 1
        else:
            row[_COL["is_power"]] = 1
        d = _taken_die(first)
        if d is not None:
            row[_COL["die_solo"]] = solo_value(state, d)
            row[_COL["die_faces"]] = SUIT_FACES[DIE_TYPE[d]]
            row[_COL["die_number"]] = state.die_value[d]
    total = out[:, _COL["turn_cost"]] + out[:, _COL["cost_after"]]
    out[:, _COL["total"]] = total
    out[:, _COL["total_gap"]] = total - total.min() if len(total) else 0.0
    return out


def ends_move(action: int, state: rules.DicebergState) -> bool:
    """Each draft pick is a move of its own (a seat that drafts twice in a row, or drafts last and then
    leads, decides each on its own)."""
    return rules.DRAFT <= action < rules.TAKE


move_features.NAMES = NAMES  # type: ignore[attr-defined]
move_features.ends_move = ends_move  # type: ignore[attr-defined]
