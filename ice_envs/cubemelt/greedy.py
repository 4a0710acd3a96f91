"""CubeMelt's greedy value: the score difference, with the dice on the table counted as resolved.

:func:`value` is, for one seat, its score minus the mean of the other seats' scores (times
``n - 1``, to stay an integer), by the game's own score (R4.7, I14: Love + Adventure + Melt − 20).
With two players it is simply "my score minus yours". Two additions make it a one-step
look-ahead rather than a count of what is already on the boards:

* **dice not yet resolved count as resolved.** While the seat is re-rolling on its own turn
  (after its first re-roll), its dice are counted as if it stopped now: the base resolution of
  R4.1-R4.4 (:func:`ice_envs.cubemelt.rules.dice_plan`; most frequent face to the neighbours,
  the rest to the roller; abilities left out), capped at 20 and at 0 like the real resolution.
  The planned effects of a resolution that is waiting for a choice before the dice are applied
  (the Ninja's, or the Knight's conversion) count the same way. So a re-roll is worth the
  expected score difference of the dice it leads to, and stopping the actual resolution;
* **the result**: a finished game is worth ``WIN`` to every winner and ``-WIN`` to the others.

The greedy agent takes the expectation over a re-roll exactly: :func:`expected_values` goes through
the face counts the re-rolled dice can show (at most 84 for six dice), each with its probability
under the game's faces (``faces`` option). Everything in CubeMelt is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import product
from math import factorial
from typing import Any

from ice_envs.cubemelt import rules

#: Weight of a finished game's result (far above any score difference).
WIN = 10**6


def value(state: rules.CubeMeltState, seat: int) -> int:
    """The greedy value of ``state`` for ``seat`` (higher is better; see the module docstring)."""
    n = state.config.num_players
    if state.phase == rules.PHASE_OVER:
        return WIN if seat in state.winners else -WIN
    plan = pending_plan(state, seat)
    scores = []
    for p in range(n):
        love = min(rules.GOAL, state.love[p] + plan[0][p])
        adventure = min(rules.GOAL, state.adventure[p] + plan[1][p])
        melt = max(0, state.melt[p] - plan[2][p])
        scores.append(love + adventure + melt - rules.START_MELT)
    return (n - 1) * scores[seat] - (sum(scores) - scores[seat])


def pending_plan(state: rules.CubeMeltState, seat: int) -> tuple[list[int], list[int], list[int]]:
    """Love gained, Adventure gained and Melt lost per seat by dice that are rolled but not applied yet
    (as :func:`value` counts them: see the module docstring); zeros when there are none."""
    n = state.config.num_players
    if state.phase == rules.PHASE_REROLL and state.active == seat and state.rerolls > 0:
        return rules.dice_plan(state.dice, n, state.active)
    if state.phase == rules.PHASE_NINJA or (state.phase == rules.PHASE_CHOOSE and state.pending == rules.KNIGHT):
        return list(state.plan_love), list(state.plan_adventure), list(state.plan_melt)
    return [0] * n, [0] * n, [0] * n


class _FixedRng:
    """Answers the first ``integers`` call with ``first`` (when given) and every later one with its lowest value."""

    def __init__(self, first: int | None) -> None:
        self.first = first

    def integers(self, low: int, high: int | None = None, size: Any = None) -> int:
        if size is not None:
            raise ValueError("cubemelt.greedy: unexpected sized draw")
        if high is None:
            low = 0
        if self.first is not None:
            value, self.first = self.first, None
            return value
        return int(low)


def expected_values(state: rules.CubeMeltState, seat: int, actions: Sequence[int]) -> dict[int, Fraction]:
    """The exact expected :func:`value` for ``seat`` after each of ``actions`` (all of them; none if the
    engine no longer decodes a roll as below, the agent then enumerating the draws itself).

    A re-roll (ids 1-63 while re-rolling) is valued over every face count its re-rolled dice can
    show, with the probability of that count under the dice's faces (at most 84 counts for six
    dice). The state after a re-roll is worth the same whichever dice show which face (the rules
    and :func:`value` read only how many dice show each face), so each final face count of the six
    dice is played through the engine once per decision and shared by the re-rolls that can reach
    it. Any other action draws nothing :func:`value` reads (at most the next turn's first roll,
    which it does not count: that draw is fixed at its lowest value) and is played once.
    """
    faces = state.config.faces
    nf = len(faces)
    kind_weight = [faces.count(kind) for kind in range(rules.NUM_KINDS)]
    face_of_kind = {kind: faces.index(kind) for kind in set(faces)}
    final_value: dict[tuple[int, ...], int] = {}
    by_kept: dict[tuple[int, ...], Fraction] = {}
    out: dict[int, Fraction] = {}
    for action in actions:
        if state.phase != rules.PHASE_REROLL or not 1 <= action < rules.NUM_SUBSETS:
            after = state.copy()
            rules.apply(after, action, _FixedRng(None))
            out[action] = Fraction(value(after, seat))
            continue
        which = [i for i in range(rules.NUM_DICE) if action >> i & 1]
        kept = tuple(rules.face_counts([d for i, d in enumerate(state.dice) if not action >> i & 1]))
        if kept in by_kept:  # re-rolls that keep the same faces are worth the same
            out[action] = by_kept[kept]
            continue
        total = 0
        k0, k1, k2, k3 = kept
        for counts, weight in _weighted_compositions(len(which), tuple(kind_weight)):
            final = (k0 + counts[0], k1 + counts[1], k2 + counts[2], k3 + counts[3])
            if final not in final_value:
                kinds = [kind for kind, c in enumerate(counts) for _ in range(c)]
                code = sum(face_of_kind[kind] * nf**j for j, kind in enumerate(kinds))
                after = state.copy()
                rules.apply(after, action, _FixedRng(code))
                shown = after.last_dice if after.turn != state.turn else after.dice  # a new turn keeps them there
                if tuple(rules.face_counts(shown)) != final:
                    return {}  # the engine decodes a roll differently: the agent enumerates the draws itself
                final_value[final] = value(after, seat)
            total += weight * final_value[final]
        out[action] = by_kept[kept] = Fraction(total, nf ** len(which))
    return out


@cache
def _weighted_compositions(k: int, kind_weight: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The face counts of ``k`` re-rolled dice that can show (in :func:`_compositions` order), each with its
    weight: the orders of the dice times the faces of each kind, i.e. its probability times ``faces ** k``."""
    out = []
    for counts in _compositions(k):
        weight = _multinomial(counts)
        for kind, c in enumerate(counts):
            weight *= kind_weight[kind] ** c
        if weight:
            out.append((counts, weight))
    return tuple(out)


@cache
def _compositions(k: int) -> tuple[tuple[int, ...], ...]:
    """Every face count (Heart, Star, Sad, Drooping) of ``k`` dice."""
    return tuple(c for c in product(range(k + 1), repeat=rules.NUM_KINDS) if sum(c) == k)


@cache
def _multinomial(counts: tuple[int, ...]) -> int:
    """Orders of ``sum(counts)`` dice showing these counts."""
    out = factorial(sum(counts))
    for c in counts:
        out //= factorial(c)
    return out
