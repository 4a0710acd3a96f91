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
   fresh roll would on average for this hand; otherwise re-roll all three. The average
   scores all 384 rolls at once against a table of each roll's 14 plans (numpy), cached
   per hand; it equals the roll-by-roll search bit for bit.
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


def _partial_partitions(dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every non-empty plan of one turn with ``dice`` (die indices), as subset ids.

    A plan is a set of disjoint non-empty dice subsets (not every die need be used); the
    order in which a turn discards them does not change which hands can afford them.
    """
    plans: list[list[tuple[int, ...]]] = [[]]
    for die in dice:
        grown: list[list[tuple[int, ...]]] = []
        for blocks in plans:
            grown.append(blocks)  # the die stays unused
            grown.append([*blocks, (die,)])  # the die opens a new subset
            grown.extend(blocks[:k] + [(*b, die)] + blocks[k + 1 :] for k, b in enumerate(blocks))
        plans = grown
    sid_of = {subset: sid for sid, subset in enumerate(rules.SUBSETS)}
    return tuple(tuple(sorted(sid_of[b] for b in blocks)) for blocks in plans if blocks)


#: Every non-empty plan of a turn with all three dice free (14 of them), as subset ids.
_PLANS: tuple[tuple[int, ...], ...] = _partial_partitions(tuple(range(rules.NUM_DICE)))
#: The 384 fresh rolls of the d4, d8 and d12.
_ROLLS: tuple[tuple[int, ...], ...] = tuple(product(*(range(1, f + 1) for f in rules.DIE_FACES)))


def _plan_table(rolls: tuple[tuple[int, ...], ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(need, cards)`` for every roll and plan of :data:`_PLANS`.

    ``need[r, p, v-1]`` is how many cards of value ``v`` plan ``p`` discards with roll ``r``;
    ``cards[r, p]`` is how many cards it sheds, or 0 where a subset's total makes no card
    (such a plan is never playable, and 0 is what "no discard" sheds anyway).
    """
    need = np.zeros((len(rolls), len(_PLANS), rules.NUM_VALUES), dtype=np.int16)
    cards = np.zeros((len(rolls), len(_PLANS)), dtype=np.int16)
    for r, roll in enumerate(rolls):
        for p, plan in enumerate(_PLANS):
            totals = [sum(roll[i] for i in rules.SUBSETS[sid]) for sid in plan]
            if max(totals) > rules.NUM_VALUES:
                continue
            for total in totals:
                need[r, p, total - 1] += 1
            cards[r, p] = len(plan)
    return need, cards


_FRESH_NEED, _FRESH_CARDS = _plan_table(_ROLLS)


@lru_cache(maxsize=65536)
def _max_cards_shed(dice: tuple[int, ...], free: tuple[bool, ...], hand: tuple[int, ...]) -> int:
    """Most cards one turn can shed from ``hand`` with the ``free`` dice (only the count).

    The best plan of disjoint subsets whose totals the hand holds (with multiplicity): a
    turn may discard its subsets in any order, so this is the most cards any sequence of
    discards sheds.
    """
    best = 0
    for plan in _PLANS:
        if len(plan) <= best or not all(free[i] for sid in plan for i in rules.SUBSETS[sid]):
            continue
        need = [0] * rules.NUM_VALUES
        for sid in plan:
            total = sum(dice[i] for i in rules.SUBSETS[sid])
            if total > rules.NUM_VALUES:
                break
            need[total - 1] += 1
        else:
            if all(n <= c for n, c in zip(need, hand, strict=True)):
                best = len(plan)
    return best


@lru_cache(maxsize=4096)
def _expected_cards_shed(hand: tuple[int, ...]) -> float:
    """Mean of :func:`_max_cards_shed` over every fresh roll of the d4, d8 and d12.

    All 384 rolls at once: a plan is playable when the hand holds every card it needs; each
    roll's best playable plan is summed as an integer and divided once, so the mean is the
    same float as a roll-by-roll sum would give.
    """
    counts = np.asarray(hand, dtype=np.int16)
    playable = (_FRESH_NEED <= counts).all(axis=2)
    best = np.where(playable, _FRESH_CARDS, 0).max(axis=1)
    return int(best.sum()) / len(_ROLLS)
