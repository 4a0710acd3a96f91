"""Tip of the Diceberg's greedy player as a numba function on the compiled engine's state row.

``greedy`` mirrors :class:`ice_envs.agents.greedy.GreedyAgent` (``samples=4``) with the game's value
``greedy.value``. The agent's generator is consulted for its re-deals and its seeds only, never for the
decision's chance, and this player draws the same numbers from its stream in the same order:

1. two re-deals of the hidden cards (:func:`_redeal` mirrors ``rules.resample_hidden``: the other
   hands and the undealt cards, sorted, dealt after one ``permutation`` of them, i.e. a Fisher-Yates
   shuffle from the end); when they differ (``same_state``), two more;
2. the four sampling seeds (``integers(0, 2**63, size=4)``: four raw 64-bit draws, skipped).

The value after an action does not depend on its chance: a new deal gives 12 cards and no dice
whatever the cards, re-rolled and re-rolled pool dice are not counted. It depends on the re-deal only
where a pass ends the trick with nobody having played and an empty pool: whether the round then ends
(``rules.deadlocked``) reads the other hands. So the action's mean value over the re-deals is the sum
of :func:`greedy_value` after the engine's own ``apply`` on each re-deal (on one state, four times,
without hidden cards), compared exactly as integers; ties go to the lowest action. A seat with one
legal action takes it without drawing, as the agent does.
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.compiled import njit, shuffle, uniform
from ice_envs.core.compiled_players import CompiledPlayer
from ice_envs.tip_of_the_diceberg import greedy
from ice_envs.tip_of_the_diceberg.compiled import (
    C_PLAYERS,
    CARD_LOC,
    CURRENT,
    DIE_LOC,
    NC,
    ND,
    OVER,
    PHASE,
    POINTS,
    SEL_LEN,
    UNDEALT,
    WINNER,
    apply,
)

__all__ = ["PLAYERS", "greedy_act", "greedy_value"]

#: The greedy agent's re-deals (and sampling seeds) per decision (``agents.greedy.DEFAULT_SAMPLES``).
SAMPLES = 4
WIN, POINT, ITEM = greedy.WIN, greedy.POINT, greedy.ITEM


@njit
def greedy_value(s: np.ndarray, seat: int) -> int:
    """``greedy.value``: the result of a finished game, else points and the items still held."""
    if s[PHASE] == OVER:
        return WIN if s[WINNER + seat] else -WIN
    held = 0
    for c in range(NC):
        if s[CARD_LOC + c] == seat:
            held += 1
    for d in range(ND):
        if s[DIE_LOC + d] == seat:
            held += 1
    if s[CURRENT] == seat:
        held -= s[SEL_LEN]
    return POINT * s[POINTS + seat] - ITEM * held


@njit
def _redeal(s: np.ndarray, cfg: np.ndarray, seat: int, prng: np.ndarray, out: np.ndarray, order: np.ndarray) -> None:
    """``rules.resample_hidden`` of ``seat`` (the deciding seat: its selection stays) into ``out``."""
    n = cfg[C_PLAYERS]
    out[:] = s
    unseen = np.empty(NC, dtype=np.int64)
    u = 0
    for c in range(NC):
        loc = s[CARD_LOC + c]
        if loc == UNDEALT or (0 <= loc < n and loc != seat):
            unseen[u] = c
            u += 1
    for i in range(u):
        order[i] = i
    shuffle(prng, order, u)
    at = 0
    for p in range(n):
        if p == seat:
            continue
        k = 0
        for c in range(NC):
            if s[CARD_LOC + c] == p:
                k += 1
        for j in range(at, at + k):
            out[CARD_LOC + unseen[order[j]]] = p
        at += k
    for j in range(at, u):
        out[CARD_LOC + unseen[order[j]]] = UNDEALT


@njit
def greedy_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``GreedyAgent.act`` (module docstring)."""
    count = 0
    only = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            count += 1
            only = a
    if count == 1:
        return only
    seat = s[CURRENT]
    deals = np.empty((SAMPLES, s.shape[0]), dtype=s.dtype)
    order = np.empty(NC, dtype=np.int64)
    _redeal(s, cfg, seat, prng, deals[0], order)
    _redeal(s, cfg, seat, prng, deals[1], order)
    hidden = False
    for c in range(NC):
        if deals[0, CARD_LOC + c] != deals[1, CARD_LOC + c]:
            hidden = True
            break
    if hidden:
        for k in range(2, SAMPLES):
            _redeal(s, cfg, seat, prng, deals[k], order)
    for _ in range(SAMPLES):  # the seeds of sampled chance: the value after an action never reads it
        uniform(prng)
    after = np.empty(s.shape[0], dtype=s.dtype)
    chance = np.zeros(2, dtype=np.uint64)
    best = -1
    best_total = 0
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        total = 0
        for k in range(SAMPLES if hidden else 1):
            after[:] = deals[k]
            apply(after, a, chance, cfg)
            total += greedy_value(after, seat)
        if not hidden:
            total *= SAMPLES
        if best < 0 or total > best_total:
            best, best_total = a, total
    return best


#: The compiled players of Tip of the Diceberg, by agent spec.
PLAYERS: dict[str, CompiledPlayer] = {
    "greedy": CompiledPlayer("greedy", greedy_act),
}
