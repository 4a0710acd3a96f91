"""Cardiceo heuristic.

Strategy, as a decent player would play:

1. **Discard as many cards as the dice allow this turn.** With three dice there are few
   plans (sequences of disjoint dice subsets), so every plan is searched and the one
   that sheds the most cards wins.
2. **Hardest values first.** Among plans that shed equally many cards, prefer the one
   whose cards are hardest to make later: a value's difficulty is one minus the chance
   that a fresh roll of the d4, d8 and d12 can make it (15 needs all three dice and a
   good roll; 5 is easy).
3. **Think about the locked dice.** Unused dice go to the middle with their values, for
   the left neighbour. Among otherwise equal plans, leave the dice whose totals make
   cards that are mostly gone already (public discards), so they help the neighbour least.
4. **"No play" choice:** keep the middle dice when they shed at least as many cards as a
   fresh roll would on average for this hand; otherwise re-roll all three.
5. Never end the turn early (the voluntary end of ``docs/rules/cardiceo.md`` R3.2).

It reads only its own hand, the dice and the public discards.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np

from ice_envs.cardiceo import rules
from ice_envs.core.agent import PlayerView, SeededAgent


@lru_cache(maxsize=1)
def value_difficulty() -> np.ndarray:
    """``difficulty[v-1]`` = 1 - P(a fresh roll of d4, d8, d12 can make total v)."""
    hits = np.zeros(rules.NUM_VALUES)
    rolls = list(product(*(range(1, f + 1) for f in rules.DIE_FACES)))
    for roll in rolls:
        for total in rules.reachable_totals(roll):
            if total <= rules.NUM_VALUES:
                hits[total - 1] += 1
    return 1.0 - hits / len(rolls)


def best_plan(dice: np.ndarray, free: tuple[bool, ...], hand: np.ndarray, gone: np.ndarray) -> tuple[tuple, int | None]:
    """Best (score, first action) over every sequence of discards from the free dice.

    Score is ``(cards shed, difficulty shed, -help left to the neighbour)``, compared
    lexicographically.
    """
    difficulty = value_difficulty()
    best: tuple = (0, 0.0, -_help_left(dice, free, gone))
    best_first: int | None = None
    for sid, subset in enumerate(rules.SUBSETS):
        if not all(free[i] for i in subset):
            continue
        total = int(sum(int(dice[i]) for i in subset))
        if total > rules.NUM_VALUES or hand[total - 1] <= 0:
            continue
        hand[total - 1] -= 1
        rest_free = tuple(f and i not in subset for i, f in enumerate(free))
        sub, _ = best_plan(dice, rest_free, hand, gone)
        hand[total - 1] += 1
        score = (sub[0] + 1, sub[1] + difficulty[total - 1], sub[2])
        if score > best:
            best, best_first = score, sid
    return best, best_first


def _help_left(dice: np.ndarray, free: tuple[bool, ...], gone: np.ndarray) -> float:
    """How useful the dice left in the middle are to an unknown hand: the expected
    number of still-unseen cards among the totals they make."""
    vals = [int(d) for d, f in zip(dice, free) if f]
    if not vals:
        return 0.0
    totals = [t for t in rules.reachable_totals(vals) if t <= rules.NUM_VALUES]
    return float(sum(rules.COPIES_PER_VALUE - gone[t - 1] for t in totals))


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
            keep_score, _ = best_plan(s.dice, (True, True, True), hand, gone)
            return rules.KEEP_DICE if keep_score[0] >= self._expected_fresh(hand, gone) else rules.REROLL_ALL
        free = tuple(bool(not u) for u in s.used)
        _, first = best_plan(s.dice, free, hand, gone)
        if first is not None and mask[first]:
            return first
        return self.random_legal(mask)

    @staticmethod
    def _expected_fresh(hand: np.ndarray, gone: np.ndarray) -> float:
        """Mean cards shed by a fresh roll of all three dice for this hand."""
        return _expected_cards_shed(tuple(int(c) for c in hand))


@lru_cache(maxsize=65536)
def _max_cards_shed(dice: tuple[int, ...], free: tuple[bool, ...], hand: tuple[int, ...]) -> int:
    """Most cards one turn can shed with ``dice`` (only the count, so it caches well)."""
    best = 0
    for subset in rules.SUBSETS:
        if not all(free[i] for i in subset):
            continue
        total = sum(dice[i] for i in subset)
        if total > rules.NUM_VALUES or hand[total - 1] <= 0:
            continue
        rest_hand = hand[: total - 1] + (hand[total - 1] - 1,) + hand[total:]
        rest_free = tuple(f and i not in subset for i, f in enumerate(free))
        best = max(best, 1 + _max_cards_shed(dice, rest_free, rest_hand))
    return best


@lru_cache(maxsize=4096)
def _expected_cards_shed(hand: tuple[int, ...]) -> float:
    """Mean of :func:`_max_cards_shed` over every fresh roll of the d4, d8 and d12."""
    rolls = list(product(*(range(1, f + 1) for f in rules.DIE_FACES)))
    return sum(_max_cards_shed(roll, (True, True, True), hand) for roll in rolls) / len(rolls)
