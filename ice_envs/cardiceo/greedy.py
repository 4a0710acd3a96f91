"""Cardiceo's greedy value: fewest cards, then the most free dice, then the lowest hand total.

:func:`value` is the seat's standing after an action, compared lexicographically through
one integer (weights far apart, so no term can outweigh the one before it):

1. **the game's result** (R5.1): a finished game is worth ``WIN`` to the winner and ``-WIN``
   to every other seat;
2. **cards in hand** (the game's own score, R4.2, is the cards discarded): each costs ``CARD``,
   so any discard beats ending the turn, whatever dice it uses;
3. **free dice** while it is still the seat's own discarding turn: each die not yet used this
   turn is worth ``DIE``. A discard with fewer dice keeps more dice for the next discard of the
   turn — the issue's "fewest dice";
4. **the hand's total** (the sum of the values of the cards left): a discard of a higher card
   leaves a lower total — "then the highest card".

On a "No play" choice (R3.3/R3.4) both actions keep the hand; keeping the middle dice is worth
the three free dice when a discard can follow (otherwise the turn ends by itself), re-rolling
is worth three free dice times the chance that the new roll allows a discard, taken exactly over
the 384 rolls of the d4, d8 and d12 (:func:`expected_values`). The value reads only the seat's own
hand, the dice and whose turn it is: never the other hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import product

from ice_envs.cardiceo import rules

#: Weight of the game's result, of one card in hand and of one free die (see the module docstring).
WIN = 10**7
CARD = 10**4
DIE = 10**3


def value(state: rules.CardiceoState, seat: int) -> int:
    """The greedy value of ``state`` for ``seat`` (higher is better; see the module docstring)."""
    if state.phase == rules.PHASE_OVER:
        return WIN if state.winner == seat else -WIN
    hand = state.hands[seat]
    cards = int(hand.sum())
    total = int(sum((v + 1) * int(c) for v, c in enumerate(hand.tolist())))
    free = 0
    if state.current == seat and state.phase == rules.PHASE_DISCARD:
        free = int((~state.used).sum())
    return -CARD * cards + DIE * free - total


def expected_values(state: rules.CardiceoState, seat: int, actions: Sequence[int]) -> dict[int, Fraction]:
    """The exact expected :func:`value` after re-rolling all three dice on a "No play" choice (R3.4).

    The new roll allows a discard when its dice make a value the seat holds; then the seat's turn goes on
    with three free dice, otherwise it ends by itself (R2.3). Over the 384 equally likely rolls that is
    ``value`` without free dice plus ``3 * DIE`` times the share of the rolls that make a held value.
    Other actions are left to the agent (they draw nothing before the turn passes, or little).
    """
    if rules.REROLL_ALL not in actions or state.phase != rules.PHASE_NO_PLAY_CHOICE or state.current != seat:
        return {}
    held = 0
    for v, c in enumerate(state.hands[seat].tolist()):
        if c:
            held |= 1 << v
    rolls = _roll_masks()
    hits = sum(1 for made in rolls if made & held)
    base = value(state, seat)  # not discarding: no free dice counted
    return {rules.REROLL_ALL: base + Fraction(rules.NUM_DICE * DIE * hits, len(rolls))}


@cache
def _roll_masks() -> tuple[int, ...]:
    """For each roll of the d4, d8 and d12: the bits ``v - 1`` of the card values ``v`` its dice make."""
    out = []
    for roll in product(*(range(1, f + 1) for f in rules.DIE_FACES)):
        made = 0
        for total in rules.reachable_totals(roll):
            if 1 <= total <= rules.NUM_VALUES:
                made |= 1 << (total - 1)
        out.append(made)
    return tuple(out)
