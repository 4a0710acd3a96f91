"""Tip of the Diceberg heuristic.

Strategy, as a decent player would play:

1. **Count the turns the hand still needs.** Going out first is what scores (3/2/1), so a
   hand is judged by how many turns it takes to shed. Every meld the player's cards and
   dice can make for every revealed Diceberg card is listed (the engine's enumeration,
   the one behind the action masks), and the hand is split into melds at the lowest
   total cost (an exact search over the sets of items still held). A meld's cost is one
   turn, more when few of the revealed cards take it (its slot may be taken when the
   player's turn comes), less on a *clear* card (the trick clears and the player leads
   again at once, so clear melds chain) or a *discard* card (one more card goes).
2. **Shed awkward items into hard slots.** Each turn the player plays the meld whose
   play leaves the cheapest hand. Because a meld that only one revealed card takes
   costs more later than a meld that several cards take, the items that fit few
   patterns go first, to the slots that are hard to fill, while they are open; the
   flexible items stay for later. Bigger melds win whenever they do not break the rest
   of the hand, and a meld that goes out is always played.
3. **Pass only when nothing helps.** A play that leaves a dearer hand than passing is not
   made. On a pass the player takes the pool die that makes its hand cheapest, and only
   if it really does (a die that completes a future meld); otherwise it passes empty.
4. **Draft dice that fit the hand**: the pool die whose hand is cheapest.
5. **Powers.** Discard: the card whose removal leaves the cheapest hand (the most
   awkward one). Take: the die that makes the hand cheaper, else decline. Re-roll:
   each own die whose re-roll lowers the expected cost of the hand (dice that fit
   nothing), else decline. Clear has no decision (``docs/rules/tip_of_the_diceberg.md``
   R3.6-R3.10). With ``compulsory_powers`` (no decline) it discards the card, takes the
   die and re-rolls the die that leave the cheapest (expected) hand.

It reads only its own hand and dice and the public table (slots, pool, dice), never the
other hands of its view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.patterns import DIE_TYPE, ITEM_DIE0, NUM_DICE, SUIT_FACES, enumerate_melds

#: Chance that a given revealed card is still open when the player's turn comes.
SLOT_OPEN = 0.6
#: Share of a turn lost for each turn spent waiting for a slot that takes a meld.
WAIT_WEIGHT = 0.5
#: Turn cost of a meld by the power of the card it goes to (clear: the player leads again at once).
POWER_TURN_COST = {"": 1.0, "reroll": 1.0, "take": 1.0, "discard": 0.6, "clear": 0.15}
#: Cost of an item no revealed card can take (only with custom catalogs without a one-item card).
STUCK_COST = 3.0
#: A change of the hand's cost smaller than this is no change.
EPS = 1e-6
#: A die is re-rolled when that lowers the expected cost of the hand by more than this.
REROLL_MARGIN = 0.05
#: How many recent hand plans are kept (a smaller hand reuses the plan of a larger one).
_PLANS_KEPT = 8

Item = tuple[int, int, int, bool]


def turn_cost_of_slots(powers: Sequence[str]) -> float:
    """Expected cost of a meld that the cards with ``powers`` take (see :data:`SLOT_OPEN`).

    The cheapest open card is used; each card is open with chance :data:`SLOT_OPEN`;
    the turns waited for one to be open count :data:`WAIT_WEIGHT` each.
    """
    costs = sorted(POWER_TURN_COST[p] for p in powers)
    if not costs:
        return float("inf")
    p_none = 1.0
    expected = 0.0
    for c in costs:
        expected += p_none * SLOT_OPEN * c
        p_none *= 1.0 - SLOT_OPEN
    p_any = 1.0 - p_none
    return expected / p_any + (1.0 / p_any - 1.0) * WAIT_WEIGHT


class HandPlan:
    """The melds of one set of items and the cheapest way to shed any subset of them.

    Items are indexed by their position in ``items`` (bit ``i`` of a mask). Melds that
    use identical dice are also listed with the other copies, so that the search is not
    tied to the engine's canonical choice of which copy goes first.
    """

    def __init__(self, items: tuple[Item, ...], per_slot: Sequence[Sequence[tuple[int, ...]]], powers: Sequence[str]):
        self.items = items
        self.item_set = frozenset(items)
        self.n = len(items)
        self.full = (1 << self.n) - 1
        self.index = index = {it[0]: i for i, it in enumerate(items)}
        twins: dict[int, list[int]] = {}
        groups: dict[tuple[int, int], list[int]] = {}
        for i, (_, suit, number, is_die) in enumerate(items):
            if is_die:
                groups.setdefault((suit, number), []).append(i)
        for group in groups.values():
            if len(group) > 1:
                for i in group:
                    twins[i] = group
        slots_of: dict[int, set[int]] = {}
        for k, melds in enumerate(per_slot):
            for meld in melds:
                mask = 0
                for x in meld:
                    mask |= 1 << index[x]
                for m in _twin_variants(mask, twins) if twins else (mask,):
                    slots_of.setdefault(m, set()).add(k)
        #: mask -> cost of shedding it as one meld
        self.cost = {m: turn_cost_of_slots([powers[k] for k in ks]) for m, ks in slots_of.items()}
        by_item: list[list[tuple[int, float]]] = [[] for _ in range(self.n)]
        for m, c in self.cost.items():
            for i in range(self.n):
                if m >> i & 1:
                    by_item[i].append((m, c))
        for lst in by_item:
            lst.sort(key=lambda mc: (mc[1] / mc[0].bit_count(), mc[1]))
        self.by_item = by_item
        # a lower bound of a mask's cost: each item at its cheapest share of a meld,
        # summed by tables of 8 bits
        share = [lst[0][1] / lst[0][0].bit_count() if lst else STUCK_COST for lst in by_item]
        self._bound_tables = [
            [sum(share[8 * t + j] for j in range(8) if b >> j & 1 and 8 * t + j < self.n) for b in range(256)]
            for t in range((self.n + 7) // 8)
        ]
        #: the awkward items (fewest melds) first: the search branches on them
        self.order = sorted(range(self.n), key=lambda i: (len(by_item[i]), i))
        self.memo: dict[int, float] = {0: 0.0}

    def mask_of(self, ids: Sequence[int]) -> int:
        """The mask of the items with these ids."""
        index = self.index
        mask = 0
        for x in ids:
            mask |= 1 << index[x]
        return mask

    def value(self, mask: int | None = None) -> float:
        """Least total cost of shedding the items of ``mask`` (default: all) in melds."""
        if mask is None:
            mask = self.full
        memo = self.memo
        out = memo.get(mask)
        if out is not None:
            return out
        for i in self.order:
            if mask >> i & 1:
                break
        best = float("inf")
        tables = self._bound_tables
        for m, c in self.by_item[i]:
            if m & mask != m or c >= best:
                continue
            rest = mask ^ m
            v = memo.get(rest)
            if v is None:
                bound = c
                t = 0
                while rest >> (8 * t):
                    bound += tables[t][rest >> (8 * t) & 255]
                    t += 1
                if bound >= best:
                    continue
                v = self.value(rest)
            v += c
            if v < best:
                best = v
        if best == float("inf"):
            best = STUCK_COST + self.value(mask ^ (1 << i))
        memo[mask] = best
        return best

    def bound(self, mask: int) -> float:
        """A lower bound of :meth:`value` (every item at its cheapest share of a meld)."""
        tables = self._bound_tables
        out = 0.0
        t = 0
        while mask >> (8 * t):
            out += tables[t][mask >> (8 * t) & 255]
            t += 1
        return out

    def card_bits(self, mask: int) -> list[int]:
        """Bits of the cards (not dice) in ``mask``."""
        return [i for i in range(self.n) if mask >> i & 1 and not self.items[i][3]]


def _twin_variants(mask: int, twins: dict[int, list[int]]) -> list[int]:
    """``mask`` with the identical dice it uses swapped for the other copies in every way."""
    out = [mask]
    done: set[int] = set()
    for i, group in twins.items():
        if i in done:
            continue
        done.update(group)
        used = [j for j in group if mask >> j & 1]
        if not used or len(used) == len(group):
            continue
        new = []
        for m in out:
            base = m
            for j in used:
                base &= ~(1 << j)
            for combo in combinations(group, len(used)):
                mm = base
                for j in combo:
                    mm |= 1 << j
                new.append(mm)
        out = new
    return out


@dataclass(frozen=True)
class Hand:
    """A set of items as a mask over a :class:`HandPlan` (the plan of the same or a larger set)."""

    plan: HandPlan
    mask: int

    def value(self) -> float:
        """Least total cost of shedding these items."""
        return self.plan.value(self.mask)

    def items(self) -> tuple[Item, ...]:
        """The items, in item order."""
        return tuple(it for i, it in enumerate(self.plan.items) if self.mask >> i & 1)

    def minus(self, mask: int) -> Hand:
        """These items without those of ``mask``."""
        return Hand(self.plan, self.mask & ~mask)


class DicebergHeuristic(SeededAgent):
    """Sheds awkward items into hard slots; see the module docstring."""

    name = "heuristic"
    needs_view = True
    #: Turns by which a play may leave a dearer hand than a pass and still be played (version 1: none).
    play_margin = 0.0

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._plans: list[tuple[tuple, HandPlan]] = []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plans.clear()

    # ------------------------------------------------------------------ analysis
    def hand(self, state: rules.DicebergState, items: tuple[Item, ...]) -> Hand:
        """``items`` under the revealed slots of ``state``.

        A hand that only lost items since a recent plan reuses that plan (its search
        already covers every subset); otherwise a new plan is made.
        """
        key = (state.config.catalog, tuple(state.slots))
        wanted = set(items)
        for j in range(len(self._plans) - 1, -1, -1):
            k, plan = self._plans[j]
            if k == key and wanted <= plan.item_set:
                return Hand(plan, plan.mask_of([it[0] for it in items]))
        cards = state.config.catalog.cards
        per_slot = [rules.pattern_melds(cards[i].pattern, items).melds for i in state.slots]
        plan = HandPlan(items, per_slot, [cards[i].power for i in state.slots])
        self._plans.append((key, plan))
        if len(self._plans) > _PLANS_KEPT:
            self._plans.pop(0)
        return Hand(plan, plan.full)

    def value_with_die(self, state: rules.DicebergState, hand: Hand, d: int, value: int | None = None) -> float:
        """Cost of ``hand`` plus die ``d`` showing ``value`` (default: what it shows).

        Only the melds with the new die are enumerated; the rest is looked up in the
        plan of ``hand``, whose search is shared by every die tried.
        """
        value = state.die_value[d] if value is None else value
        x: Item = (ITEM_DIE0 + d, DIE_TYPE[d], value, True)
        items = hand.items()
        new_items = _add_die(items, x)
        if any(it[3] and it[1] == x[1] and it[2] == value for it in items):
            return self.hand(state, new_items).value()  # an identical die: no shortcut
        plan = hand.plan
        cards = state.config.catalog.cards
        slots_of: dict[int, list[str]] = {}
        for i in state.slots:
            pattern = cards[i].pattern
            if not pattern.allowed[x[1] * 21 + x[2]]:
                continue
            for meld in enumerate_melds(pattern, pattern.candidates(new_items), must=x):
                mask = plan.mask_of([y for y in meld if y != x[0]])
                slots_of.setdefault(mask, []).append(cards[i].power)
        best = STUCK_COST + hand.value()
        for mask, powers in slots_of.items():
            c = turn_cost_of_slots(powers)
            rest = hand.mask ^ mask
            if c + plan.bound(rest) < best:
                v = c + plan.value(rest)
                if v < best:
                    best = v
        return best

    def play_options(self, state: rules.DicebergState, seat: int) -> list[tuple[float, tuple, int, tuple[int, ...]]]:
        """Every meld the player may play now (consistent with its selection), scored.

        Returns ``(cost, tie-break, slot, meld)`` sorted best first; the cost is that of
        this turn plus the cheapest way to shed what is left (0 for going out).
        """
        hand = self.hand(state, rules.items_of(state, seat))
        plan = hand.plan
        per_slot = rules.slot_melds(state, seat)
        cards = state.config.catalog.cards
        sel = tuple(state.selection)
        n_sel = len(sel)
        out = []
        for k, pm in enumerate(per_slot):
            if state.slot_player[k] >= 0:
                continue
            power = cards[state.slots[k]].power
            flex = len(pm.melds)
            for meld in pm.melds:
                if meld[:n_sel] != sel:
                    continue
                rest = hand.mask ^ plan.mask_of(meld)
                if not rest:
                    cost = 0.0
                else:
                    v = plan.value(rest)
                    if power == "clear":
                        cost = POWER_TURN_COST["clear"] + v
                    elif power == "discard":
                        cost = 1.0 + min([v] + [plan.value(rest ^ (1 << i)) for i in plan.card_bits(rest)])
                    else:
                        cost = 1.0 + v
                # ties: bigger melds, then the slot that is hardest to fill, then ids
                out.append((round(cost, 9), (-len(meld), flex, k, meld), k, meld))
        out.sort()
        return out

    def reroll_choice(self, state: rules.DicebergState, seat: int) -> list[int]:
        """Own dice worth re-rolling: each lowers the expected cost of the hand on its own."""
        hand = self.hand(state, rules.items_of(state, seat))
        now = hand.value()
        seen: set[tuple[int, int]] = set()
        out = []
        for i, it in enumerate(hand.plan.items):
            if not (hand.mask >> i & 1 and it[3]) or (it[1], it[2]) in seen:
                continue
            seen.add((it[1], it[2]))  # of identical dice, judge (and re-roll) the first
            d = it[0] - ITEM_DIE0
            rest = hand.minus(1 << i)
            faces = SUIT_FACES[DIE_TYPE[d]]
            expected = sum(self.value_with_die(state, rest, d, v) for v in range(1, faces + 1)) / faces
            if expected < now - REROLL_MARGIN:
                out.append(d)
        return out

    # ------------------------------------------------------------------ acting
    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        if view is None:
            return self.random_legal(observation["action_mask"])
        legal = view.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        state = view.state
        seat = view.seat
        phase = state.phase
        action: int | None = None
        if phase == rules.PHASE_PLAY:
            action = self._play(state, seat, legal)
        elif phase == rules.PHASE_DRAFT:
            action = self._best_die(state, seat, legal, rules.DRAFT, None)
        elif phase == rules.PHASE_TAKE:
            decline = rules.DECLINE if rules.DECLINE in legal else None  # None: compulsory_powers
            action = self._best_die(state, seat, legal, rules.TAKE, decline)
        elif phase == rules.PHASE_DISCARD:
            action = self._discard(state, seat, rules.DECLINE in legal)
        elif phase == rules.PHASE_REROLL:
            action = self._reroll(state, seat, legal)
        if action is None or action not in legal:
            return self.random_legal(observation["action_mask"])
        return int(action)

    def _best_die(
        self, state: rules.DicebergState, seat: int, legal: list[int], base: int, decline: int | None
    ) -> int | None:
        """The pool die (action ``base + d``) that leaves the cheapest hand; ``decline`` unless it helps."""
        hand = self.hand(state, rules.items_of(state, seat))
        best_action = decline
        best = hand.value() - EPS if decline is not None else float("inf")
        for a in legal:
            if base <= a < base + NUM_DICE:
                v = self.value_with_die(state, hand, a - base)
                if v < best:
                    best, best_action = v, a
        return best_action

    def _discard(self, state: rules.DicebergState, seat: int, may_decline: bool = True) -> int | None:
        """The card whose loss leaves the cheapest hand (the most awkward one), if any helps
        (any card at all when the power cannot be declined)."""
        hand = self.hand(state, rules.items_of(state, seat))
        plan = hand.plan
        best, best_action = (hand.value() - EPS, rules.DECLINE) if may_decline else (float("inf"), None)
        for i in plan.card_bits(hand.mask):
            v = plan.value(hand.mask ^ (1 << i))
            if v < best:
                best, best_action = v, rules.DISCARD + plan.items[i][0]
        return best_action

    def _reroll(self, state: rules.DicebergState, seat: int, legal: list[int]) -> int:
        """Mark the dice of :meth:`reroll_choice` one by one, then re-roll (or decline)."""
        last = state.marks[-1] if state.marks else -1
        for d in self.reroll_choice(state, seat):
            if d > last and rules.MARK + d in legal:
                return rules.MARK + d
        if state.marks:
            return rules.REROLL
        if rules.DECLINE in legal:
            return rules.DECLINE
        return self._least_bad_mark(state, seat, legal)

    def _least_bad_mark(self, state: rules.DicebergState, seat: int, legal: list[int]) -> int | None:
        """With ``compulsory_powers`` a re-roll must be made: mark the die whose re-roll costs least."""
        hand = self.hand(state, rules.items_of(state, seat))
        best, best_action = float("inf"), None
        for i, it in enumerate(hand.plan.items):
            d = it[0] - ITEM_DIE0
            if not (hand.mask >> i & 1 and it[3]) or rules.MARK + d not in legal:
                continue
            rest = hand.minus(1 << i)
            faces = SUIT_FACES[DIE_TYPE[d]]
            expected = sum(self.value_with_die(state, rest, d, v) for v in range(1, faces + 1)) / faces
            if expected < best:
                best, best_action = expected, rules.MARK + d
        return best_action

    def _play(self, state: rules.DicebergState, seat: int, legal: list[int]) -> int | None:
        """Continue the best meld; at the start of a turn, pass (with a helpful die) if no play beats it
        (the best play's cost less :attr:`play_margin` against the pass's)."""
        options = self.play_options(state, seat)
        sel = state.selection
        if not sel:
            hand = self.hand(state, rules.items_of(state, seat))
            pass_cost = 1.0 + hand.value()
            best_play = (options[0][0] if options else float("inf")) - self.play_margin
            if best_play >= pass_cost - EPS:
                best_action, best = rules.PASS, pass_cost
                for a in legal:
                    if rules.PASS_TAKE <= a < rules.PASS_TAKE + NUM_DICE:
                        v = 1.0 + self.value_with_die(state, hand, a - rules.PASS_TAKE)
                        if v < best - EPS:
                            best, best_action = v, a
                if best < best_play - EPS:
                    return best_action
        if not options:
            return None
        _, _, k, meld = options[0]
        if len(meld) == len(sel):
            return rules.COMMIT + k
        return meld[len(sel)]


def _add_die(items: tuple[Item, ...], x: Item) -> tuple[Item, ...]:
    """``items`` with the die item ``x`` added (in item order; an item with its id is replaced)."""
    return tuple(sorted([it for it in items if it[0] != x[0]] + [x]))


def describe(state: rules.DicebergState, seat: int, agent: DicebergHeuristic | None = None) -> dict[str, Any]:
    """The player's items, the cost of its hand and its best plays (for debugging and the docs)."""
    agent = agent or DicebergHeuristic(0)
    hand = agent.hand(state, rules.items_of(state, seat))
    opts = agent.play_options(state, seat) if state.phase == rules.PHASE_PLAY else []
    return {
        "items": [rules.item_name(state, it[0]) for it in hand.items()],
        "cost": hand.value(),
        "options": [(c, k, [rules.item_name(state, x) for x in m]) for c, _, k, m in opts[:5]],
    }


# ---------------------------------------------------------------------------- version 2
# Tip of the Diceberg heuristic, version 2 (``heuristic@v2``): version 1 that plays rather than passes, with a
# better draft.
#
# 1. **Play rather than pass.** Version 1 passes at the start of its turn unless its best play leaves a hand
#    cheaper than passing does (a play that breaks the hand's planned melds is not made). Version 2 plays
#    unless passing leaves a hand more than :data:`PLAY_MARGIN` turns cheaper than the best play: a pass hands
#    the trick to the others (they shed into the open slots, and the last of them to play leads next), and
#    what the broken melds cost later is less than the cost model says. Measured against version 1 on
#    development deals (``docs/experiments/2026-12-07-tip-heuristic-v2-rules.md``): a margin of 0.25, 0.5, 1
#    and 2 turns gained more and more, never passing while a play exists less; passing more lost.
# 2. **Draft**: version 1 drafts the pool die whose hand is cheapest and, among dice of equal cost, the one of
#    lowest id (a d4 before a d20; two of every three draft picks have such ties). Version 2:
#
#    a. **Own cost first.** Every draftable die is scored by the cost of the hand with it (version 1's
#       ``value_with_die``); the dice within :data:`DRAFT_TOLERANCE` of the cheapest are equally good for the
#       drafter (smaller differences come from the waiting-cost terms, not from a meld the die makes).
#    b. **Among those, deny what others want most**: the die with the highest :func:`solo_value` (a die that
#       goes alone onto a *clear* or *discard* card is worth a turn or more to whoever holds it), then the die
#       with more faces, then the higher number, then the lowest id.
#
# Every other decision (which meld, the powers) is version 1's.

#: Turns by which version 2's best play may leave a dearer hand than a pass and still be played.
PLAY_MARGIN = 2.0
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
    """Version 1 that plays unless a pass is :data:`PLAY_MARGIN` turns better, with the draft of
    :meth:`draft_pick` (the version 2 notes above)."""

    play_margin = PLAY_MARGIN

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


#: The heuristic's versions by name (``heuristic@v1``, ``heuristic@v2``; plain ``heuristic`` is v1).
VERSIONS = {"v1": DicebergHeuristic, "v2": DicebergHeuristicV2}
