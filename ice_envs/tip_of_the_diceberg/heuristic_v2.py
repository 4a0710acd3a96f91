"""Tip of the Diceberg heuristic, version 2 (``heuristic@v2``): version 1 with a better draft.

Version 1 (:class:`~ice_envs.tip_of_the_diceberg.heuristic.DicebergHeuristic`) drafts the pool die whose
hand is cheapest and, among dice of equal cost, the one of lowest id: a d4 before a d6, a d6 before a d20.
Two of every three draft picks have such ties. The one-step headroom probe (``ice-envs probe``,
``docs/agents/probe.md``) found better draft picks at those ties, nearly always a larger die than the one
version 1 took. Version 2 drafts like this:

1. **Own cost first.** Every draftable die is scored by the cost of the hand with it (version 1's
   ``value_with_die``); the dice within :data:`DRAFT_TOLERANCE` of the cheapest are equally good for the
   drafter (smaller differences come from the waiting-cost terms, not from a meld the die makes).
2. **Among those, deny what others want most**: the die with the highest :func:`solo_value` (a die that
   goes alone onto a *clear* or *discard* card is worth a turn or more to whoever holds it), then the die
   with more faces, then the higher number, then the lowest id.

Every other decision (plays, passes, powers) is version 1's.
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.agent import PlayerView
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.heuristic import POWER_TURN_COST, DicebergHeuristic
from ice_envs.tip_of_the_diceberg.patterns import DIE_TYPE, NUM_DICE, SUIT_FACES, enumerate_melds

#: Dice whose hands cost within this much of the cheapest count as equally good for the drafter.
DRAFT_TOLERANCE = 0.01


def solo_value(state: rules.DicebergState, d: int) -> float:
    """What pool die ``d`` is worth to whoever holds it, from the public table alone: the turn saved by its
    best one-item meld (1 minus that slot's turn cost, ``heuristic.POWER_TURN_COST``: 0.85 on a clear card,
    0.4 on a discard card), 0 if no revealed card with such a power takes the die alone."""
    cards = state.config.catalog.cards
    item = (rules.ITEM_DIE0 + d, DIE_TYPE[d], state.die_value[d], True)
    best = 0.0
    for i in state.slots:
        pattern = cards[i].pattern
        if pattern.count_min > 1 or not pattern.allowed[item[1] * 21 + item[2]]:
            continue
        if enumerate_melds(pattern, (item,), must=item):
            best = max(best, 1.0 - POWER_TURN_COST[cards[i].power])
    return best


class DicebergHeuristicV2(DicebergHeuristic):
    """Version 1 with the draft of the module docstring (:meth:`draft_pick`)."""

    def draft_scores(self, state: rules.DicebergState, seat: int, legal: list[int]) -> list[tuple[float, ...]]:
        """``(own cost, solo value, faces, number, die)`` of every draftable die."""
        hand = self.hand(state, rules.items_of(state, seat))
        out = []
        for a in legal:
            if rules.DRAFT <= a < rules.DRAFT + NUM_DICE:
                d = a - rules.DRAFT
                own = self.value_with_die(state, hand, d)
                out.append((own, solo_value(state, d), SUIT_FACES[DIE_TYPE[d]], state.die_value[d], d))
        return out

    def draft_pick(self, state: rules.DicebergState, seat: int, legal: list[int]) -> int | None:
        """The draft action of the module docstring (``None`` if no die can be drafted)."""
        scores = self.draft_scores(state, seat, legal)
        if not scores:
            return None
        best_own = min(s[0] for s in scores)
        near = [s for s in scores if s[0] <= best_own + DRAFT_TOLERANCE]
        pick = max(near, key=lambda s: (s[1], s[2], s[3], -s[4]))
        return rules.DRAFT + pick[4]

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        if view is not None and view.state.phase == rules.PHASE_DRAFT and len(view.legal_actions) > 1:
            action = self.draft_pick(view.state, view.seat, view.legal_actions)
            if action is not None and action in view.legal_actions:
                return int(action)
        return super().act(observation, view)
