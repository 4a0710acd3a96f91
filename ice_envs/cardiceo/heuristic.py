"""Cardiceo heuristic.

Strategy, as a decent player would play:

1. **Leave the hand that empties soonest.** With three dice there are at most 14 *plans*
   (sets of disjoint dice subsets whose totals are cards in hand) for a turn; each leaves
   a hand, and the plan whose hand has the fewest expected turns to empty wins. That
   expectation is :mod:`ice_envs.cardiceo.solitaire`'s ``E``: the hand played alone, fresh
   rolls every turn, every later turn played the same way, solved exactly for every
   sub-hand at once. It keeps the cards that combine well (distinct values that many rolls
   make, small ones that let two or three cards go in one turn), and so it sheds fewer
   cards than the dice allow when the cards left would be the slow ones: holding 3 4 8 10
   10 13 13 14 14 15 with d4=4, d8=8, d12=3 it sheds the 15 and keeps 3, 4 and 8.
2. **Then the most cards, then the hardest values.** Among plans that leave equally good
   hands (on ``E``'s exact grid): shed more cards, then cards that fewer of the 384 fresh
   rolls make (15 needs all three dice and a good roll; 5 is easy).
3. **Think about the locked dice.** Unused dice go to the middle with their values, for
   the left neighbour. Among otherwise equal plans, leave the dice whose totals make
   cards that are mostly gone already (public discards), so they help the neighbour least.
4. **"No play" choice:** keep the middle dice unless a fresh roll of all three leaves, on
   average over the 384 rolls, a hand of fewer expected turns ``E`` than the best plan of
   the middle dice does (each roll played by rule 1; a roll, or the middle dice, that makes
   no card leaves the hand as it is). Ties keep.
5. Never end the turn early (the voluntary end of ``docs/rules/cardiceo.md`` R3.2).
6. Remaining ties go to the plan listed first in :data:`solitaire.PLANS`, and a plan's
   first discard is its lowest action id.

It reads only its own hand, the dice and the public discards. ``E`` is computed once per
hand (a :class:`~ice_envs.cardiceo.solitaire.Lattice` of all its sub-hands, cached) and only
when the plans leave different hands; every comparison is of integers or of ``E``'s exact
grid values, so a decision does not depend on the CPU.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ice_envs.cardiceo import rules, solitaire
from ice_envs.core.agent import PlayerView, SeededAgent


@lru_cache(maxsize=1)
def roll_misses() -> tuple[int, ...]:
    """``misses[v-1]``: how many of the 384 fresh rolls of the d4, d8 and d12 cannot make total v."""
    hits = [0] * rules.NUM_VALUES
    for roll in solitaire.ROLLS:
        for total in rules.reachable_totals(roll):
            if total <= rules.NUM_VALUES:
                hits[total - 1] += 1
    return tuple(len(solitaire.ROLLS) - h for h in hits)


def plan_key(
    plan: int,
    dice: np.ndarray,
    free: tuple[bool, ...],
    hand: np.ndarray,
    gone: np.ndarray,
    lattice: solitaire.Lattice | None,
) -> tuple[float, int, int, int]:
    """How good plan ``plan`` (an index into :data:`solitaire.PLANS`) is; higher is better.

    ``(-E of the hand left, cards shed, misses of the values shed, -help left to the
    neighbour)``, compared lexicographically; ``E`` is 0 without a ``lattice`` (every plan
    leaves the same hand). All but ``E`` are integers, ``E`` a value of its exact grid.
    """
    need = solitaire.FRESH_NEED[solitaire.roll_index(dice), plan]
    turns = lattice.expected_turns(hand - need) if lattice is not None else 0.0
    misses = sum(m * int(c) for m, c in zip(roll_misses(), need.tolist(), strict=True))
    used = int(solitaire.PLAN_DICE[plan])
    rest_free = tuple(f and not used >> i & 1 for i, f in enumerate(free))
    return (-turns, len(solitaire.PLANS[plan]), misses, -_help_left(dice, rest_free, gone))


def choose_plan(dice: np.ndarray, free: tuple[bool, ...], hand: np.ndarray, gone: np.ndarray) -> int | None:
    """The first discard (a subset id) of the best plan by :func:`plan_key`; None if no plan fits.

    The lattice of ``E`` is asked for only when the plans leave different hands.
    """
    plans = solitaire.playable_plans(dice, free, hand).tolist()
    if not plans:
        return None
    needs = solitaire.FRESH_NEED[solitaire.roll_index(dice), plans]
    lattice = solitaire.lattice_for(hand) if (needs != needs[0]).any() else None
    best = max(plans, key=lambda p: plan_key(p, dice, free, hand, gone, lattice))  # ties: the first listed
    return solitaire.PLANS[best][0]


def keep_or_reroll(dice: np.ndarray, hand: np.ndarray) -> int:
    """The "No play" choice: keep the middle ``dice`` unless a fresh roll leaves, on average, a hand
    of fewer expected turns ``E``; ties keep. Exact: ``384 * E(kept)`` against the sum over the rolls."""
    lattice = solitaire.lattice_for(hand)
    keep = lattice.best_after(hand, solitaire.roll_index(dice))
    return rules.KEEP_DICE if len(solitaire.ROLLS) * keep <= lattice.reroll_sum(hand) else rules.REROLL_ALL


def _help_left(dice: np.ndarray, free: tuple[bool, ...], gone: np.ndarray) -> int:
    """How useful the dice left in the middle are to an unknown hand: the expected
    number of still-unseen cards among the totals they make."""
    vals = [int(d) for d, f in zip(dice, free) if f]
    if not vals:
        return 0
    totals = [t for t in rules.reachable_totals(vals) if t <= rules.NUM_VALUES]
    return int(sum(rules.COPIES_PER_VALUE - int(gone[t - 1]) for t in totals))


class CardiceoHeuristic(SeededAgent):
    """See the module docstring."""

    name = "heuristic"
    needs_view = True

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        mask = observation["action_mask"]
        if view is None:
            return self.random_legal(mask)
        s: rules.CardiceoState = view.state
        hand = s.hands[view.seat].copy()
        gone = s.discarded + hand
        if s.phase == rules.PHASE_NO_PLAY_CHOICE:
            return keep_or_reroll(s.dice, hand)
        free = tuple(bool(not u) for u in s.used)
        first = choose_plan(s.dice, free, hand, gone)
        if first is not None and mask[first]:
            return first
        return self.random_legal(mask)
