"""Cardiceo's re-deal of the hidden hands (``rules.resample_hidden``) on the state row, drawing as the rules do.

The greedy player (:mod:`ice_envs.cardiceo.compiled_players`) must keep its SplitMix64 stream in step with
the Python agent's, which re-deals the other seats' hands before each decision, so every function here makes
the draws of the rules function it names, in the same order (``SplitMixRng`` semantics).

* :func:`redeal_table` reads what the deciding seat knows, once per decision (:class:`RedealTable`: the hands'
  sizes, the values each is known to lack, the unseen cards, the constrained deal's hand order, and whether
  every proposal of that deal must fit);
* :func:`redeal` is ``rules.resample_hidden``: the shuffled unseen cards dealt in order, else
  :func:`constrained_deal` (``rules._constrained_deal``), else :func:`walk_deal` (``rules._walk_deal`` from
  :func:`consistent_deal`, ``rules._consistent_deal``). With ``content=False`` it makes the same draws but
  need not write the hands: the greedy player's third and fourth re-deals are read by nothing but the stream.

**The constrained deal.** A proposal deals the hands in a fixed order, each the ``k`` cards of smallest
uniform key among those it may still take; a round draws ``count x m`` uniforms per hand (``m`` unseen
cards), and the Metropolis-Hastings chain one uniform per fitting proposal after the first. The deal keeps
a proposal's cards as bit masks over the ``m <= 60`` unseen cards. A key is SplitMix64's draw at its stream
position (the ``t``-th draw from state ``b`` is a function of ``b + (t + 1) * GOLDEN``), as the 53-bit integer
the uniform is made of: a round's keys are computed in one loop without branches (:func:`_fill_keys`) and a
hand's cards found by :func:`_smallest_keys` (a bound, then ranks without branches). The last hand's keys are
read only in the proposal the chain ends on, so they are computed for it alone.

**Draws without the deal.** Whether a proposal fits depends on the keys, but not always: a hand loses at most
``min(k', shared)`` of the cards it may take to each earlier hand of ``k'`` cards (``shared`` the unseen cards
both may hold), so when every hand keeps at least its size that way, every proposal fits whatever the keys
(:attr:`RedealTable` ``sure``): one round, ``count - 1`` uniforms for the chain, and the stream jumps over
them without computing one key. Otherwise the draws are counted by dealing the hands but the last.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ice_envs.cardiceo import rules
from ice_envs.cardiceo.compiled import C_PLAYERS, DISCARDED, HANDS, KNOWN_MISSING, NV, SIZES
from ice_envs.core.compiled import below, njit, shuffle, uniform

__all__ = ["RedealTable", "consistent_deal", "constrained_deal", "redeal", "redeal_table", "resample_hidden"]

COPIES = rules.COPIES_PER_VALUE
RESAMPLE_PROPOSALS, RESAMPLE_ROUNDS = rules.RESAMPLE_PROPOSALS, rules.RESAMPLE_ROUNDS
WALK_SWAPS_PER_CARD = rules.WALK_SWAPS_PER_CARD
LOG_COMB = rules._LOG_COMB.copy()
#: SplitMix64's increment and output mix: the ``t``-th draw (from 0) of state ``b`` mixes ``b + (t + 1) * GOLDEN``.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
#: The keys compared: 53-bit integers (``uniform`` is one times ``2**-53``).
KEY_SPAN = 1 << 53
#: Cards beyond ``k`` that :func:`_smallest_keys`' bound lets through on average.
KEY_SLACK = 6
#: A card's rank in :func:`_smallest_keys`: its key times this plus its index (``m <= 60`` cards).
CARD_SLOTS = 64
#: Above every rank: :func:`_smallest_keys` pads with it.
PAST_KEYS = KEY_SPAN * CARD_SLOTS


class RedealTable(NamedTuple):
    """What the deciding seat knows for a re-deal of the other hands, in seat order (:func:`redeal_table`)."""

    sizes: np.ndarray  #: cards in each other hand
    lacks: np.ndarray  #: ``(hands, NV)``: the values each hand is known to lack
    unseen: np.ndarray  #: ``(NV,)``: the cards of each value the seat has not seen
    order: np.ndarray  #: the constrained deal's hand order (fewest cards it may hold first, stable)
    sure: bool  #: every proposal of the constrained deal fits, whatever its keys (module docstring)


@njit
def redeal_table(s: np.ndarray, cfg: np.ndarray, seat: int) -> RedealTable:
    """The :class:`RedealTable` of ``seat`` in state row ``s``."""
    players = cfg[C_PLAYERS]
    n = players - 1
    sizes = np.empty(n, dtype=np.int64)
    lacks = np.zeros((n, NV), dtype=np.bool_)
    at = 0
    for p in range(players):
        if p != seat:
            sizes[at] = s[SIZES + p]
            for v in range(NV):
                lacks[at, v] = s[KNOWN_MISSING + p * NV + v] != 0
            at += 1
    unseen = np.empty(NV, dtype=np.int64)
    for v in range(NV):
        unseen[v] = COPIES - int(s[DISCARDED + v]) - int(s[HANDS + seat * NV + v])
    may_hold = np.zeros(n, dtype=np.int64)  # rules._constrained_deal's allowed.sum(axis=1)
    for j in range(n):
        for v in range(NV):
            if not lacks[j, v]:
                may_hold[j] += unseen[v]
    order = np.argsort(may_hold, kind="mergesort")
    sure = True
    for jj in range(n):
        j = order[jj]
        if sizes[j] == 0:
            continue
        left = may_hold[j]
        for ii in range(jj):
            e = order[ii]
            shared = 0
            for v in range(NV):
                if not lacks[j, v] and not lacks[e, v]:
                    shared += unseen[v]
            left -= min(sizes[e], shared)
        if left < sizes[j]:
            sure = False
    return RedealTable(sizes, lacks, unseen, order, sure)


@njit(inline="always")
def _popcount(x: int) -> int:
    """Set bits of a non-negative ``x`` below ``2**63``."""
    u = np.uint64(x)
    u = u - ((u >> np.uint64(1)) & np.uint64(0x5555555555555555))
    u = (u & np.uint64(0x3333333333333333)) + ((u >> np.uint64(2)) & np.uint64(0x3333333333333333))
    u = (u + (u >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((u * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(inline="always")
def _key(base: np.uint64, t: int) -> int:
    """The 53 bits of the ``t``-th uniform (from 0) of stream state ``base``: ``uniform`` is this times ``2**-53``."""
    z = base + np.uint64(t + 1) * GOLDEN
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return int((z ^ (z >> np.uint64(31))) >> np.uint64(11))


@njit
def _fill_keys(base: np.uint64, start: int, stop: int, keys: np.ndarray) -> None:
    """``keys[t]`` for ``start <= t < stop``: the 53 bits of the ``t``-th uniform of stream state ``base``."""
    for t in range(start, stop):
        keys[t] = _key(base, t)


@njit
def _smallest_keys(keys: np.ndarray, first: int, choosable: int, a: int, k: int, m: int, ranked: np.ndarray) -> int:
    """The ``k`` cards of ``choosable`` (a bit mask over ``m`` cards, ``a >= k`` of them) of smallest key, card
    ``i`` keyed ``keys[first + i]``, as a bit mask: ``np.argpartition(keys, k - 1)[:k]``, an equal key keeping
    the card of lower index. ``ranked`` is scratch of ``m + 8`` entries.

    A card is ranked by ``key * 64 + i`` (its key, then its index: no two equal). The keys are uniform 53-bit
    integers, so the ``k`` smallest are almost always below a bound that about ``k + KEY_SLACK`` of the ``a``
    keys fall under: the cards below it are gathered without a branch and each is ranked by counting the
    gathered cards ranked before it (a loop without branches over a multiple of 8); when fewer than ``k`` fall
    under the bound, every choosable card is ranked that way."""
    bound = (k + KEY_SLACK) * KEY_SPAN // a if a > k + KEY_SLACK else KEY_SPAN
    n = 0
    for i in range(m):
        key = keys[first + i]
        ranked[n] = key * CARD_SLOTS + i
        n += ((choosable >> i) & 1) & (key < bound)
    if n < k:  # rare (module docstring): every choosable card
        n = 0
        for i in range(m):
            ranked[n] = keys[first + i] * CARD_SLOTS + i
            n += (choosable >> i) & 1
    width = (n + 7) & ~7
    for t in range(n, width):
        ranked[t] = PAST_KEYS + t
    picked = 0
    for t in range(n):
        own = ranked[t]
        before = 0
        for u in range(width):
            before += ranked[u] < own
        picked |= np.int64(before < k) << (own & (CARD_SLOTS - 1))
    return picked


@njit
def _jump(prng: np.ndarray, draws: int) -> None:
    """Move the stream past ``draws`` draws."""
    prng[0] = prng[0] + np.uint64(draws) * GOLDEN


@njit
def constrained_deal(
    pool: np.ndarray, table: RedealTable, prng: np.ndarray, hands: np.ndarray, content: bool = True
) -> bool:
    """``rules._constrained_deal`` with the same draws: hand ``j``'s counts into ``hands[j]`` (when
    ``content``); False for None (no proposal fits)."""
    sizes, lacks, order = table.sizes, table.lacks, table.order
    m, count, n = pool.shape[0], RESAMPLE_PROPOSALS, sizes.shape[0]
    dealt = 0
    last = -1  # the last hand dealt: its cards are read only in the proposal the chain ends on
    for jj in range(n):
        if sizes[order[jj]] > 0:
            dealt += 1
            last = jj
    if table.sure and not content:
        _jump(prng, dealt * count * m + count - 1)
        return True
    allowed = np.zeros(n, dtype=np.int64)  # bit i: the hand may hold card i
    for j in range(n):
        for i in range(m):
            if not lacks[j, pool[i] - 1]:
                allowed[j] |= 1 << i
    taken = np.empty(count, dtype=np.int64)
    picked = np.zeros((count, n), dtype=np.int64)
    log_weight = np.empty(count)
    valid = np.empty(count, dtype=np.bool_)
    choices = np.empty(count, dtype=np.int64)  # the cards each proposal may choose from
    round_keys = np.empty(count * m, dtype=np.int64)
    ranked = np.empty(m + 8, dtype=np.int64)
    last_base = prng[0]
    found = False
    for _ in range(RESAMPLE_ROUNDS):
        taken[:] = 0
        log_weight[:] = 0.0
        valid[:] = True
        for jj in range(n):
            j = order[jj]
            k = sizes[j]
            if k == 0:
                continue
            for c in range(count):
                if valid[c]:  # an invalid proposal stays invalid: its cards and weight are never read
                    a = _popcount(allowed[j] & ~taken[c])
                    choices[c] = a
                    valid[c] = a >= k
                    log_weight[c] += LOG_COMB[a, k]
            base = prng[0]
            _jump(prng, count * m)
            if jj == last:  # no later hand reads these cards: the chosen proposal's are dealt at the end
                last_base = base
                continue
            _fill_keys(base, 0, count * m, round_keys)
            for c in range(count):
                if valid[c]:
                    cards = _smallest_keys(round_keys, c * m, allowed[j] & ~taken[c], choices[c], k, m, ranked)
                    taken[c] |= cards
                    picked[c, j] = cards
        for c in range(count):
            if valid[c]:
                found = True
        if found:
            break
    if not found:
        return False
    if not content:
        fits = 0
        for c in range(count):
            fits += valid[c]
        _jump(prng, fits - 1)
        return True
    current = -1
    for c in range(count):
        if valid[c]:
            if current < 0:
                current = c
            elif math.log(uniform(prng)) < log_weight[c] - log_weight[current]:
                current = c
    if last >= 0:  # the last hand's cards in the chosen proposal, from the keys its round drew
        j = order[last]
        _fill_keys(last_base, current * m, current * m + m, round_keys)
        picked[current, j] = _smallest_keys(
            round_keys, current * m, allowed[j] & ~taken[current], choices[current], sizes[j], m, ranked
        )
    hands[:] = 0
    for j in range(n):
        cards = picked[current, j]
        for i in range(m):
            if (cards >> i) & 1:
                hands[j, pool[i] - 1] += 1
    return True


@njit
def consistent_deal(unseen: np.ndarray, sizes: np.ndarray, lacks: np.ndarray) -> np.ndarray:
    """``rules._consistent_deal``: the same flow, breadth first in the same order (places after values)."""
    n = sizes.shape[0]
    places = n + 1
    room = np.empty(places, dtype=np.int64)
    total = 0
    for v in range(NV):
        total += unseen[v]
    rest = total
    for j in range(n):
        room[j] = sizes[j]
        rest -= sizes[j]
    room[n] = rest
    may_hold = np.ones((places, NV), dtype=np.bool_)
    for j in range(n):
        for v in range(NV):
            may_hold[j, v] = not lacks[j, v]
    deal = np.zeros((places, NV), dtype=np.int64)
    nodes = NV + places  # values 0..14, then the places
    came_from = np.empty(nodes, dtype=np.int64)
    frontier = np.empty(nodes, dtype=np.int64)
    nxt = np.empty(nodes, dtype=np.int64)
    for value in range(NV):
        for _ in range(unseen[value]):
            came_from[:] = -2  # -2: not reached, -1: the start
            came_from[value] = -1
            frontier[0] = value
            n_front, goal = 1, -1
            while n_front > 0 and goal < 0:
                n_next = 0
                for f in range(n_front):
                    node = frontier[f]
                    if node < NV:  # a value: to the places that may hold it
                        for p in range(places):
                            if may_hold[p, node]:
                                target = NV + p
                                if came_from[target] != -2:
                                    continue
                                came_from[target] = node
                                if room[p]:
                                    goal = target
                                    break
                                nxt[n_next] = target
                                n_next += 1
                    else:  # a place: to the values it holds
                        p = node - NV
                        for v in range(NV):
                            if deal[p, v]:
                                if came_from[v] != -2:
                                    continue
                                came_from[v] = node
                                nxt[n_next] = v
                                n_next += 1
                    if goal >= 0:
                        break
                frontier[:n_next] = nxt[:n_next]
                n_front = n_next
            if goal < 0:
                raise ValueError("the record admits no deal of the unseen cards (inconsistent state)")
            room[goal - NV] -= 1
            node = goal
            while came_from[node] != -1:
                prev = came_from[node]
                if node >= NV:
                    deal[node - NV, prev] += 1
                else:
                    deal[prev - NV, node] -= 1
                node = prev
    return deal


@njit
def walk_deal(unseen: np.ndarray, sizes: np.ndarray, lacks: np.ndarray, prng: np.ndarray, hands: np.ndarray) -> None:
    """``rules._walk_deal`` with the same draws: the swaps from :func:`consistent_deal` into ``hands``."""
    n = sizes.shape[0]
    start = consistent_deal(unseen, sizes, lacks)
    m = 0
    for p in range(n + 1):
        for v in range(NV):
            m += start[p, v]
    cards = np.empty(m, dtype=np.int64)
    place = np.empty(m, dtype=np.int64)
    at = 0
    for p in range(n + 1):
        for v in range(NV):
            for _ in range(start[p, v]):
                cards[at] = v + 1
                place[at] = p
                at += 1
    bound = max(m, 1)
    swaps = WALK_SWAPS_PER_CARD * m
    draws = np.empty(2 * swaps, dtype=np.int64)
    for t in range(2 * swaps):
        draws[t] = below(prng, bound)
    for t in range(swaps):
        i, j = draws[2 * t], draws[2 * t + 1]
        a, b = place[i], place[j]
        ok_a = a == n or not lacks[a, cards[j] - 1]
        ok_b = b == n or not lacks[b, cards[i] - 1]
        if a != b and ok_a and ok_b:
            cards[i], cards[j] = cards[j], cards[i]
    hands[:] = 0
    for t in range(m):
        if place[t] < n:
            hands[place[t], cards[t] - 1] += 1


@njit
def redeal(table: RedealTable, prng: np.ndarray, hands: np.ndarray, content: bool = True) -> None:
    """``rules.resample_hidden`` with the same draws: the other seats' hands, in seat order, into ``hands``
    (``(hands, NV)`` counts; left as they are when not ``content``, the draws the same)."""
    sizes, lacks, unseen = table.sizes, table.lacks, table.unseen
    m = 0
    for v in range(NV):
        m += unseen[v]
    pool = np.empty(m, dtype=np.int64)
    at = 0
    for v in range(NV):
        for _ in range(unseen[v]):
            pool[at] = v + 1
            at += 1
    shuffle(prng, pool, m)
    at = 0
    for j in range(sizes.shape[0]):
        for _ in range(sizes[j]):
            if lacks[j, pool[at] - 1]:  # the unconstrained deal breaks the record
                if not constrained_deal(pool, table, prng, hands, content):
                    walk_deal(unseen, sizes, lacks, prng, hands)
                return
            at += 1
    if content:
        hands[:] = 0
        at = 0
        for j in range(sizes.shape[0]):
            for _ in range(sizes[j]):
                hands[j, pool[at] - 1] += 1
                at += 1


@njit
def resample_hidden(s: np.ndarray, cfg: np.ndarray, seat: int, prng: np.ndarray) -> np.ndarray:
    """``rules.resample_hidden`` of ``seat`` with the same draws: the other seats' re-dealt hands, in seat order."""
    table = redeal_table(s, cfg, seat)
    hands = np.zeros((table.sizes.shape[0], NV), dtype=np.int64)
    redeal(table, prng, hands)
    return hands
