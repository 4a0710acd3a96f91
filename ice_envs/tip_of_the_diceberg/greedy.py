"""Tip of the Diceberg's greedy value: points first, then the fewest cards and dice still held.

:func:`value` ranks a seat's position by the game's own score and its progress towards it:

1. **the result and the points** (R4.2, R4.3, R5): a finished game is worth ``WIN`` to each
   winner and ``-WIN`` to the others; otherwise each point (3/2/1 for going out first, second,
   third in a round) is worth ``POINT``;
2. **items still held**: a round is won by going out (no cards and no dice), so each card in
   hand and each own die costs ``ITEM``. The meld being composed counts as already played (its
   items are on their way to a slot): adding an item to it is progress, and committing it
   changes nothing, so the greedy agent plays the largest meld it can compose, item by item.

Hence it plays rather than passes, passes without taking a die, uses the discard power and
declines the take power (unless powers are compulsory). It reads only the seat's own hand and
dice, the meld it composes and the points (all visible to the seat).
"""

from __future__ import annotations

from ice_envs.tip_of_the_diceberg import rules

#: Weights of a finished game's result, of one point and of one item held (see the module docstring).
WIN = 10**7
POINT = 10**4
ITEM = 10


def value(state: rules.DicebergState, seat: int) -> int:
    """The greedy value of ``state`` for ``seat`` (higher is better; see the module docstring)."""
    if state.phase == rules.PHASE_OVER:
        return WIN if seat in state.winners else -WIN
    held = len(state.hands[seat]) + state.die_loc.count(seat)
    if state.current == seat:
        held -= len(state.selection)
    return POINT * int(state.points[seat]) - ITEM * held
