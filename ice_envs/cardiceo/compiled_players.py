"""Cardiceo's greedy and heuristic players, compiled: the same decisions as the Python players, on the state row.

Both read only what the deciding seat sees in the compiled engine's row (:mod:`ice_envs.cardiceo.compiled`):
its own hand, the dice and which are used, the public discards, the hand sizes and the public record
(``known_missing``).

**heuristic** mirrors :class:`~ice_envs.cardiceo.heuristic.CardiceoHeuristic`:

* :func:`_choose_plan` is ``heuristic.choose_plan``: the playable plans of ``solitaire.playable_plans``
  (tables ``FRESH_NEED``, ``MAKES_CARDS``, ``PLAN_DICE`` copied from :mod:`ice_envs.cardiceo.solitaire`),
  ranked by ``heuristic.plan_key`` (``-E`` of the hand left, cards shed, the ``roll_misses`` of the
  values shed, minus ``_help_left``), ties to the plan listed first;
* :func:`_keep_or_reroll` is ``heuristic.keep_or_reroll`` (``Lattice.best_after`` of every roll and
  ``reroll_sum``, by :func:`~ice_envs.cardiceo.compiled_lattice.best_after_each_roll`);
* the random fallback draws as ``SeededAgent.random_legal`` (it is never reached in a legal position).

``E`` is ``solitaire.Lattice``'s expected-turns lattice, computed by
:func:`~ice_envs.cardiceo.compiled_lattice.solve_lattice` bit for bit (that module says how: integers in
units of ``2**-GRID_BITS`` turns, a trie of the rolls' moves, the hands of up to six cards from a table made
at import). ``E`` of a hand depends on that hand alone, so a lattice of any hand covering it gives the same
value: the seat's lattice is kept in its ``memory`` row (the hand it was solved for, then ``E`` of every
sub-hand) and solved again only when the hand is not covered (hands only shrink during a game, so once per
seat and game).

**greedy** mirrors ``agents/greedy.py``'s ``GreedyAgent`` with its default 4 samples on Cardiceo's value
(:func:`ice_envs.cardiceo.greedy.value` and its ``expected_values`` hook for the re-roll). That value reads
only the seat's hand, the dice and whose turn it is, and after any action it is the same on every re-deal
and every chance outcome (a turn that passes on never comes back to the seat in its discard phase before
the seat decides again), so the decision needs no randomness: the value of each action times 384 (the
re-roll's chance of a discard is a count of the 384 rolls) is compared exactly, ties to the lowest action.
The Python agent still draws from its generator: two re-deals of the hidden hands
(``rules.resample_hidden``), two more when they differ, then four 64-bit seeds, whenever more than one
action is legal. :func:`~ice_envs.cardiceo.compiled_redeal.redeal` makes the same re-deals with the same
draws (that module says how), from one :func:`~ice_envs.cardiceo.compiled_redeal.redeal_table` per decision,
so the player's stream stays in step with the Python player's: the first two re-deals in full (whether they
differ decides whether two more are drawn), the other two only for their draws (``content=False``: nothing
reads their hands).
"""

from __future__ import annotations

import numpy as np

from ice_envs.cardiceo import greedy, heuristic, rules, solitaire
from ice_envs.cardiceo.compiled import (
    CURRENT,
    DICE,
    DISCARDED,
    END_TURN,
    HANDS,
    KEEP_DICE,
    NO_PLAY,
    NUM_SUBSETS,
    NV,
    PHASE,
    REROLL_ALL,
    SUBSET_DICE,
    USED,
)
from ice_envs.cardiceo.compiled_lattice import best_after_each_roll, solve_lattice, strides_of
from ice_envs.cardiceo.compiled_redeal import redeal, redeal_table
from ice_envs.core.compiled import njit, uniform
from ice_envs.core.compiled_players import CompiledPlayer, only_legal, random_act

__all__ = ["GREEDY_SAMPLES", "LATTICE_CAPACITY", "PLAYERS"]

#: Re-deals the greedy agent draws per decision (``agents.greedy.DEFAULT_SAMPLES``).
GREEDY_SAMPLES = 4
#: Sub-hands a lattice kept in memory may have: every hand of up to 10 cards (``2**10`` at most).
LATTICE_CAPACITY = 1 << 10
#: Memory row: a flag, the hand the kept lattice was solved for, then its ``E`` per sub-hand.
MEM_FLAG, MEM_TOP, MEM_TURNS = 0, 1, 1 + NV
MEMORY_WIDTH = MEM_TURNS + LATTICE_CAPACITY

NUM_ROLLS = len(solitaire.ROLLS)
NUM_PLANS = len(solitaire.PLANS)
FRESH_NEED = solitaire.FRESH_NEED.astype(np.int64)
MAKES_CARDS = (solitaire.FRESH_CARDS > 0).astype(np.int8)
PLAN_DICE = solitaire.PLAN_DICE.astype(np.int64)
PLAN_FIRST = np.array([plan[0] for plan in solitaire.PLANS], dtype=np.int64)
PLAN_CARDS = np.array([len(plan) for plan in solitaire.PLANS], dtype=np.int64)


def _need_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``FRESH_NEED`` compactly: per roll and plan, how many values it sheds, which (0-based), how many of each."""
    count = (FRESH_NEED > 0).sum(axis=2)
    values = np.zeros((*count.shape, 3), dtype=np.int64)
    copies = np.zeros((*count.shape, 3), dtype=np.int64)
    for r, p in zip(*np.nonzero(count), strict=True):
        held = np.flatnonzero(FRESH_NEED[r, p])
        values[r, p, : held.size] = held
        copies[r, p, : held.size] = FRESH_NEED[r, p, held]
    return count.astype(np.int64), values, copies


NEED_N, NEED_V, NEED_C = _need_pairs()
ROLL_MISSES = np.array(heuristic.roll_misses(), dtype=np.int64)
#: ``SUBSET_BITS[sid]``: the dice (bit i: die i) of subset action ``sid``.
SUBSET_BITS = np.array([sum(1 << d for d in sub) for sub in rules.SUBSETS], dtype=np.int64)
#: ``ROLL_MADE[r]``: bits ``v - 1`` of the card values that fresh roll ``r``'s dice make (``greedy._roll_masks``).
ROLL_MADE = np.array(greedy._roll_masks(), dtype=np.int64)
ALL_FREE = (1 << rules.NUM_DICE) - 1
COPIES = rules.COPIES_PER_VALUE
WIN, CARD, DIE = greedy.WIN, greedy.CARD, greedy.DIE


# ---------------------------------------------------------------------------- the lattice of E
@njit
def _lattice(memory: np.ndarray, hand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(strides, E per sub-hand)`` of a lattice covering ``hand``: the one kept in ``memory`` when it covers
    ``hand`` (``solitaire.lattice_for``), else one solved for ``hand`` (and kept when it fits)."""
    if memory.shape[0] >= MEMORY_WIDTH and memory[MEM_FLAG]:
        top = memory[MEM_TOP : MEM_TOP + NV]
        covers = True
        for v in range(NV):
            if hand[v] > top[v]:
                covers = False
        if covers:
            strides, size = strides_of(top)
            return strides, memory[MEM_TURNS : MEM_TURNS + size]
    top = hand.copy()
    strides, size = strides_of(top)
    if memory.shape[0] >= MEMORY_WIDTH and size <= LATTICE_CAPACITY:
        turns = memory[MEM_TURNS : MEM_TURNS + size]
        memory[MEM_FLAG] = 0
        solve_lattice(top, turns)
        memory[MEM_TOP : MEM_TOP + NV] = top
        memory[MEM_FLAG] = 1
        return strides, turns
    turns = np.empty(size, dtype=np.int64)
    solve_lattice(top, turns)
    return strides, turns


@njit
def _index(hand: np.ndarray, strides: np.ndarray) -> int:
    idx = 0
    for v in range(NV):
        idx += hand[v] * strides[v]
    return idx


@njit
def _plan_fits(r: int, p: int, free_bits: int, hand: np.ndarray) -> bool:
    """Plan ``p`` is playable with roll ``r``'s ``free_bits`` dice from ``hand`` (``solitaire.playable_plans``)."""
    if not MAKES_CARDS[r, p] or (PLAN_DICE[p] & ~free_bits) != 0:
        return False
    for t in range(NEED_N[r, p]):
        if hand[NEED_V[r, p, t]] < NEED_C[r, p, t]:
            return False
    return True


@njit
def _roll_index(s: np.ndarray) -> int:
    """``solitaire.roll_index`` of the row's dice."""
    return ((int(s[DICE]) - 1) * 8 + (int(s[DICE + 1]) - 1)) * 12 + (int(s[DICE + 2]) - 1)


@njit
def _own_hand(s: np.ndarray, seat: int) -> np.ndarray:
    hand = np.empty(NV, dtype=np.int64)
    for v in range(NV):
        hand[v] = s[HANDS + seat * NV + v]
    return hand


@njit
def _keep_or_reroll(s: np.ndarray, hand: np.ndarray, memory: np.ndarray) -> int:
    """``heuristic.keep_or_reroll``: keep unless 384 times ``E`` kept exceeds the sum over fresh rolls."""
    strides, turns = _lattice(memory, hand)
    after = np.empty(NUM_ROLLS, dtype=np.int64)
    best_after_each_roll(hand, _index(hand, strides), strides, turns, after)
    total = 0
    for r in range(NUM_ROLLS):
        total += after[r]
    return KEEP_DICE if NUM_ROLLS * after[_roll_index(s)] <= total else REROLL_ALL


@njit
def _help_left(s: np.ndarray, free_bits: int, gone: np.ndarray) -> int:
    """``heuristic._help_left``: unseen copies of the card values the ``free_bits`` dice make."""
    made = 0
    for sid in range(NUM_SUBSETS):
        if SUBSET_BITS[sid] & ~free_bits == 0:
            total = 0
            for d in range(3):
                if SUBSET_DICE[sid, d]:
                    total += int(s[DICE + d])
            if total <= NV:
                made |= 1 << (total - 1)
    out = 0
    for v in range(NV):
        if made >> v & 1:
            out += COPIES - gone[v]
    return out


@njit
def _choose_plan(s: np.ndarray, hand: np.ndarray, memory: np.ndarray) -> int:
    """``heuristic.choose_plan``: the first discard of the best plan by ``plan_key``; -1 if none fits."""
    r = _roll_index(s)
    free_bits = 0
    for d in range(3):
        if not s[USED + d]:
            free_bits |= 1 << d
    plans = np.empty(NUM_PLANS, dtype=np.int64)
    n = 0
    for p in range(NUM_PLANS):
        if _plan_fits(r, p, free_bits, hand):
            plans[n] = p
            n += 1
    if n == 0:
        return -1
    differ = False
    for i in range(1, n):
        for v in range(NV):
            if FRESH_NEED[r, plans[i], v] != FRESH_NEED[r, plans[0], v]:
                differ = True
    if differ:
        strides, turns = _lattice(memory, hand)
        hand_idx = _index(hand, strides)
    else:
        strides, turns = np.zeros(NV, dtype=np.int64), np.zeros(1, dtype=np.int64)
        hand_idx = 0
    gone = np.empty(NV, dtype=np.int64)
    for v in range(NV):
        gone[v] = int(s[DISCARDED + v]) + hand[v]
    best = -1
    best_e = best_cards = best_misses = best_help = 0
    for i in range(n):
        p = plans[i]
        e = 0
        misses = 0
        offset = 0
        for v in range(NV):
            c = FRESH_NEED[r, p, v]
            offset += c * strides[v]
            misses += ROLL_MISSES[v] * c
        if differ:
            e = turns[hand_idx - offset]
        helps = _help_left(s, free_bits & ~PLAN_DICE[p], gone)
        cards = PLAN_CARDS[p]
        if best < 0:
            better = True
        elif e != best_e:
            better = e < best_e
        elif cards != best_cards:
            better = cards > best_cards
        elif misses != best_misses:
            better = misses > best_misses
        else:
            better = helps < best_help
        if better:
            best, best_e, best_cards, best_misses, best_help = p, e, cards, misses, helps
    return PLAN_FIRST[best]


@njit
def heuristic_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``CardiceoHeuristic.act`` (module docstring)."""
    seat = int(s[CURRENT])
    hand = _own_hand(s, seat)
    if s[PHASE] == NO_PLAY:
        return _keep_or_reroll(s, hand, memory)
    first = _choose_plan(s, hand, memory)
    if first >= 0 and mask[first]:
        return first
    return random_act(s, cfg, mask, prng, memory)


# ---------------------------------------------------------------------------- the greedy player
@njit
def _can_discard(s: np.ndarray, hand: np.ndarray, free_bits: int) -> bool:
    """A subset of the ``free_bits`` dice totals a value in ``hand`` (``rules.legal_discards`` is not empty)."""
    for sid in range(NUM_SUBSETS):
        if SUBSET_BITS[sid] & ~free_bits == 0:
            total = 0
            for d in range(3):
                if SUBSET_DICE[sid, d]:
                    total += int(s[DICE + d])
            if total <= NV and hand[total - 1] > 0:
                return True
    return False


@njit
def _base_value(hand: np.ndarray) -> int:
    """``greedy.value`` of a hand with no free dice counted: ``-CARD * cards - total``."""
    cards = 0
    total = 0
    for v in range(NV):
        cards += hand[v]
        total += (v + 1) * hand[v]
    return -CARD * cards - total


@njit
def _value_384(s: np.ndarray, action: int, hand: np.ndarray) -> int:
    """384 times the expected ``greedy.value`` for the deciding seat after ``action`` (module docstring)."""
    free_bits = 0
    for d in range(3):
        if not s[USED + d]:
            free_bits |= 1 << d
    base = _base_value(hand)
    if action == END_TURN:
        return NUM_ROLLS * base
    if action == KEEP_DICE:
        return NUM_ROLLS * (base + (rules.NUM_DICE * DIE if _can_discard(s, hand, ALL_FREE) else 0))
    if action == REROLL_ALL:
        held = 0
        for v in range(NV):
            if hand[v]:
                held |= 1 << v
        hits = 0
        for r in range(NUM_ROLLS):
            if ROLL_MADE[r] & held:
                hits += 1
        return NUM_ROLLS * base + rules.NUM_DICE * DIE * hits
    total = 0
    for d in range(3):
        if SUBSET_DICE[action, d]:
            total += int(s[DICE + d])
    after = hand.copy()
    after[total - 1] -= 1
    cards = 0
    for v in range(NV):
        cards += after[v]
    if cards == 0:
        return NUM_ROLLS * WIN
    rest = free_bits & ~SUBSET_BITS[action]
    value = _base_value(after)
    if _can_discard(s, after, rest):
        for d in range(3):
            value += DIE * (rest >> d & 1)
    return NUM_ROLLS * value


@njit
def greedy_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``GreedyAgent.act`` with 4 samples on Cardiceo's value (module docstring)."""
    only = only_legal(mask)
    if only >= 0:
        return only
    seat = int(s[CURRENT])
    table = redeal_table(s, cfg, seat)
    n = table.sizes.shape[0]
    first = np.empty((n, NV), dtype=np.int64)
    second = np.empty((n, NV), dtype=np.int64)
    redeal(table, prng, first)
    redeal(table, prng, second)
    hidden = False
    for j in range(n):
        for v in range(NV):
            if first[j, v] != second[j, v]:
                hidden = True
    if hidden:  # read by nothing but the stream: the draws without the deals
        for _ in range(GREEDY_SAMPLES - 2):
            redeal(table, prng, first, False)
    for _ in range(GREEDY_SAMPLES):  # the sampling seeds (integers(0, 2**63): one 64-bit draw each)
        uniform(prng)
    hand = _own_hand(s, seat)
    best = -1
    best_value = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            value = _value_384(s, a, hand)
            if best < 0 or value > best_value:
                best, best_value = a, value
    return best


PLAYERS: dict[str, CompiledPlayer] = {
    "greedy": CompiledPlayer("greedy", greedy_act),
    "heuristic": CompiledPlayer("heuristic", heuristic_act, MEMORY_WIDTH),
}
