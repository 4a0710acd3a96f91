"""Iceberg Rummy's greedy and heuristic players as numba functions on the compiled engine's state row.

Each mirrors its Python player function by function and decides alike at every position
(``tests/iceberg_rummy/test_compiled_players.py`` checks them decision by decision with
:func:`ice_envs.core.player_parity.run_player_parity`).

**Shared pieces.** The legal plays of a hand, its best play-out (exact), its end-of-hand penalty and a
table with one more play laid come from :mod:`.compiled_hand_tools`. Re-deals of the hidden cards are :func:`.compiled_redeal.redeal` (``rules.resample_hidden``
draw for draw on the player's SplitMix64 stream).

**heuristic, heuristic@v2** (``heuristic.py``): ``_decide``/``_choose`` (:func:`_heuristic_act`),
``choose_play`` and ``settlement`` (:func:`_choose_play`), ``holding``/``holding_v2`` (:func:`_holding`),
``going_out_wins`` (:func:`_going_out_wins`: :data:`.heuristic.GO_OUT_SAMPLES` re-deals, the other seats'
penalties by ``compiled_hand_tools._penalty``), ``choose_discard``, ``card_values``, ``special_bonus``,
``unseen_counts`` and ``future_cards_seen`` (:func:`_choose_discard`, with each version's
``DiscardWeights``: the same float operations in the
same order, no fast-math, so the values and their rounding to :data:`.heuristic.QUANTUM` are bit for
bit the Python ones), and ``_continue`` with its plan (:func:`_continue`). The plan (the play being
laid card by card) is kept in the memory row: ``[valid, target, length, cards...]``. The twelve special
melds of ``special_bonus`` are the table :data:`SPECIAL_CARDS` / :data:`SPECIAL_POINTS`.

**greedy** (``agents/greedy.py`` with ``greedy.py``'s value): the same re-deals as
``GreedyAgent.action_values`` (two, and two more when they differ; then four 63-bit seeds drawn), each
legal action applied to each re-deal by the engine's own ``apply`` kernel and valued by :func:`_value`
(``greedy.value``, with ``best_completion``); the sums compared exactly, ties to the lowest action. An
action whose outcome in a re-deal deals a new hand (a full game goes on after the hand ends) is, in the
Python agent, a sampled outcome drawn by numpy's ``default_rng(seed)``; there the value is asked of the
Python rules through ``numba.objmode`` (:func:`_dealt_value_reference`), so the decision is the same
there too: once per re-deal and decision, since what the new hand adds to the seat's settled total is the
same after every action that ends the hand (the deal reads only the seed). Such actions occur only in full
games, at the decisions where a re-deal lets the next draw end the hand (or the hand ends at once);
everywhere else no Python runs.
"""

from __future__ import annotations

import types as _pytypes

import numba
import numpy as np

from ice_envs.core.compiled import njit, seed63
from ice_envs.core.compiled_players import CompiledPlayer, only_legal, random_act
from ice_envs.iceberg_rummy import heuristic as H
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules
from ice_envs.iceberg_rummy.compiled import (
    ACE_BONUS,
    ACES,
    C_ACE_SCORING,
    C_DECKS,
    C_PLAYERS,
    C_SINGLE,
    C_STOCK_LEN,
    COMMIT_NEW,
    CURRENT,
    DISCARD_BASE,
    HAND_NO,
    HAND_POINTS,
    HANDS,
    KNOWN_LEFT,
    LAYOFF_BASE,
    MULTIPLIER,
    NC,
    NR,
    NUM_MELDS,
    OVER,
    PHASE,
    SEL,
    SEL_LEN,
    SIZES,
    STOCK_POS,
    TABLE,
    TABLE_ACES,
    WINNERS,
    IcebergRummyCompiled,
    apply,
    get_total,
    get_wide,
)
from ice_envs.iceberg_rummy.compiled_hand_tools import (
    PYTHON_CALLS,
    _ace_penalty,
    _cards_greater,
    _hand_of,
    _in_plays,
    _is_special,
    _new_plays,
    _penalty,
    _playout,
    _playout_with,
    _plays_of,
    _table_after,
    _table_of,
    playouts_without,
)
from ice_envs.iceberg_rummy.compiled_playout import (
    K_CARDS,
    K_INFO1,
    K_INFO2,
    K_KIND,
    MAX_MELD_CARDS,
    SLOT,
    size_value,
)
from ice_envs.iceberg_rummy.compiled_redeal import redeal, same_redeal
from ice_envs.iceberg_rummy.greedy import WIN

__all__ = ["PLAYERS"]

GROUP, RUN = M.GROUP, M.RUN
MAX_MISSING, QUANTUM, GO_OUT_SAMPLES, HOLD_UNTIL = H.MAX_MISSING, H.QUANTUM, H.GO_OUT_SAMPLES, H.HOLD_UNTIL
#: ``heuristic._SPECIAL_TARGETS``: per special meld, per rank, the one or two cards that fill it (-1: none).
SPECIAL_CARDS = np.full((len(H._SPECIAL_TARGETS), 6, 2), -1, dtype=np.int64)
SPECIAL_POINTS = np.zeros(len(H._SPECIAL_TARGETS), dtype=np.int64)
for _t, (_options, _points) in enumerate(H._SPECIAL_TARGETS):
    SPECIAL_POINTS[_t] = _points
    for _i, _cards in enumerate(_options):
        SPECIAL_CARDS[_t, _i, : len(_cards)] = _cards
#: Rule 4's weights per version (row 1: ``heuristic.WEIGHTS_V1``, row 2: ``WEIGHTS_V2``): pair, run, pick-up.
DISCARD_WEIGHTS = np.array([H.WEIGHTS_V1, H.WEIGHTS_V1, H.WEIGHTS_V2], dtype=np.float64)
#: Memory row of the heuristic: the plan (valid flag, target, length, cards).
PLAN_VALID, PLAN_TARGET, PLAN_LEN, PLAN_CARDS = 0, 1, 2, 3
HEURISTIC_MEMORY = PLAN_CARDS + MAX_MELD_CARDS
#: Re-deals and seeds of ``GreedyAgent`` (its default ``samples``).
GREEDY_SAMPLES = 4


# ---------------------------------------------------------------------------- heuristic: plays
@njit
def _settlement(hand, table, num_melds, cards, length, target, value, scratch) -> int:
    """``heuristic.settlement``: the play's points, the best play-out of the rest after it, minus 10 per dead card."""
    rest = hand.copy()
    for i in range(length):
        rest[cards[i]] -= 1
    after = _table_after(table, num_melds, cards, length, target)
    points, played = _playout_with(rest, after, num_melds + (1 if target < 0 else 0), scratch)
    return value + points - 10 * (rest.sum() - played)


@njit
def _key_better(s1: int, c1: np.ndarray, l1: int, t1: int, s2: int, c2: np.ndarray, l2: int, t2: int) -> bool:
    """``(s1, tuple(-c for c in c1), -t1) > (s2, tuple(-c for c in c2), -t2)`` (Python tuple order)."""
    if s1 != s2:
        return s1 > s2
    for i in range(min(l1, l2)):
        if c1[i] != c2[i]:
            return c1[i] < c2[i]
    if l1 != l2:
        return l1 > l2
    return t1 < t2


@njit
def _choose_play(hand, table, num_melds, keep: int, hold: bool, best_cards: np.ndarray) -> tuple[int, int]:
    """``heuristic.choose_play``: the play by settlement (ties to the lowest cards, then target) among those
    leaving ``keep`` cards and, with ``hold``, special melds only; its cards into ``best_cards`` and
    ``(length, target)``, or ``(0, 0)``: none."""
    cards, length, target, value = _new_plays()
    n = _plays_of(hand, table, num_melds, cards, length, target, value)
    scratch = _new_plays()
    size = hand.sum()
    best = -1
    best_score = 0
    for p in range(n):
        if size - length[p] < keep or (hold and not _is_special(cards[p], length[p], target[p])):
            continue
        score = _settlement(hand, table, num_melds, cards[p], length[p], target[p], value[p], scratch)
        if best < 0 or _key_better(
            score, cards[p], length[p], target[p], best_score, cards[best], length[best], target[best]
        ):
            best, best_score = p, score
    if best < 0:
        return 0, 0
    for i in range(length[best]):
        best_cards[i] = cards[best, i]
    return length[best], target[best]


@njit
def _holding(s: np.ndarray, seat: int, cfg: np.ndarray, version: int) -> bool:
    """``heuristic.holding`` (version 1) and ``holding_v2`` (version 2)."""
    if not cfg[C_SINGLE]:
        return False
    for p in range(cfg[C_PLAYERS]):
        if p != seat and s[SIZES + p] <= HOLD_UNTIL:
            return False
    if version >= 2:
        return True
    placed = s[TABLE_ACES] + s[TABLE_ACES + 1] + s[TABLE_ACES + 2] + s[TABLE_ACES + 3]
    return 4 * cfg[C_DECKS] - placed > 1


@njit
def _final_total(s: np.ndarray, deal: np.ndarray, p: int, raw: int, multiplier: bool) -> int:
    """Seat ``p``'s total after a hand worth ``raw`` points in re-deal ``deal`` (its aces there)."""
    return get_total(s, p) + (raw * (1 + deal[ACES + p]) if multiplier else raw + deal[ACE_BONUS + p])


@njit
def _going_out_wins(s: np.ndarray, seat: int, cfg: np.ndarray, gain: int, prng: np.ndarray) -> bool:
    """``heuristic.going_out_wins``: going out now wins in at least half of the re-deals.

    Every re-deal is drawn, as the Python player draws them (the generator's stream goes on from there), but a
    re-deal's other seats are settled only as far as the answer needs: not at all once the answer is known (at
    least half won, or more than half lost), and a seat's play-out only when its final total could beat
    ``seat``'s without one (its penalty is at least its aces' part, :func:`._ace_penalty`, and a final total
    grows with the hand's points under every ace rule)."""
    n = cfg[C_PLAYERS]
    multiplier = cfg[C_ACE_SCORING] == MULTIPLIER
    deal = np.empty_like(s)
    table = _table_of(s)
    plays = _new_plays()
    wins = losses = 0
    for _ in range(GO_OUT_SAMPLES):
        redeal(s, seat, cfg, prng, deal)
        if 2 * wins >= GO_OUT_SAMPLES or 2 * losses > GO_OUT_SAMPLES:
            continue  # decided: the rest of the re-deals are drawn only
        mine = _final_total(s, deal, seat, s[HAND_POINTS + seat] + gain, multiplier)
        beaten = False
        for p in range(n):
            if p == seat:
                continue
            if _final_total(s, deal, p, deal[HAND_POINTS + p] - _ace_penalty(deal, p, cfg), multiplier) <= mine:
                continue  # cannot beat ``seat`` even with no play-out points and no dead card
            if (
                _final_total(s, deal, p, deal[HAND_POINTS + p] - _penalty(deal, p, cfg, table, plays), multiplier)
                > mine
            ):
                beaten = True
                break
        if beaten:
            losses += 1
        else:
            wins += 1
    return 2 * wins >= GO_OUT_SAMPLES


# ---------------------------------------------------------------------------- heuristic: the discard
@njit
def _chances(total_unseen: float, seen: float) -> np.ndarray:
    """``1.0 - (1.0 - k / total_unseen) ** seen`` for ``k`` = 0..4 unseen copies (``special_bonus``'s chance of
    drawing one of ``k`` cards; the same expression, computed once per decision)."""
    out = np.empty(5, dtype=np.float64)
    for k in range(5):
        out[k] = 1.0 - (1.0 - k / total_unseen) ** seen
    return out


@njit
def _special_bonus(hand: np.ndarray, unseen: np.ndarray, chances: np.ndarray) -> float:
    """``heuristic.special_bonus`` (same float operations, same order; ``chances`` from :func:`_chances`)."""
    best = 0.0
    for t in range(SPECIAL_CARDS.shape[0]):
        p = 1.0
        missing = 0
        for i in range(6):
            a, b = SPECIAL_CARDS[t, i, 0], SPECIAL_CARDS[t, i, 1]
            if hand[a] > 0 or (b >= 0 and hand[b] > 0):
                continue
            missing += 1
            k = unseen[a] + (unseen[b] if b >= 0 else 0)
            if missing > MAX_MISSING or k == 0:
                p = 0.0
                break
            p *= chances[k]
        if missing and p > 0.0:
            best = max(best, p * SPECIAL_POINTS[t])
    return best


@njit
def _p_me(unseen: np.ndarray, c: int, known_left: int, seen: float, total_unseen: float) -> float:
    copies = unseen[c] - (1 if c == known_left else 0)
    return min(1.0, max(0, copies) * seen / total_unseen)


@njit
def _choose_discard(
    s: np.ndarray, seat: int, cfg: np.ndarray, hand: np.ndarray, table: np.ndarray, playout_all: int, version: int
) -> int:
    """``heuristic.choose_discard`` with ``card_values``, ``unseen_counts`` and ``future_cards_seen``: the
    card of least value rounded to 1/QUANTUM (ties to the highest id), with the weights of ``version``
    (:data:`DISCARD_WEIGHTS`); ``playout_all``: the points of the hand's best play-out if known, else -1."""
    pair_value, run_value, pickup = (
        DISCARD_WEIGHTS[version, 0],
        DISCARD_WEIGHTS[version, 1],
        DISCARD_WEIGHTS[version, 2],
    )
    n, num_melds = cfg[C_PLAYERS], np.int64(s[NUM_MELDS])
    unseen = np.empty(NC, dtype=np.int64)
    for c in range(NC):
        unseen[c] = 0 if c % NR == 0 else max(cfg[C_DECKS] - hand[c] - s[TABLE + c], 0)
    stock = cfg[C_STOCK_LEN] - s[STOCK_POS]
    aces_left = 4 * cfg[C_DECKS] - (s[TABLE_ACES] + s[TABLE_ACES + 1] + s[TABLE_ACES + 2] + s[TABLE_ACES + 3])
    draws = stock * aces_left / (aces_left + 1) if aces_left else float(stock)
    seen = draws / n * (1.0 + pickup)
    total_unseen = max(1.0, float(unseen.sum()))
    known_left = s[KNOWN_LEFT + seat]
    chances = _chances(total_unseen, seen)
    bonus_all = _special_bonus(hand, unseen, chances)
    if playout_all < 0:
        playout_all = _playout(hand, table, num_melds)[0]
    plays = _new_plays()
    cards, length, target, value = plays
    num_plays = _plays_of(hand, table, num_melds, cards, length, target, value)
    in_plays = _in_plays(plays, max(num_plays, 0))
    without = np.zeros(NC, dtype=np.int64)  # the best play-out's points without each card in a play
    playouts_without(hand, table, num_melds, plays, num_plays, without)
    best_card = -1
    best_key = 0.0
    for c in range(NC):
        if hand[c] == 0:
            continue
        r, suit = c % NR, c // NR
        if r == 0:
            mine = 0.0
        else:
            rest = hand.copy()
            rest[c] -= 1
            mine = bonus_all - _special_bonus(rest, unseen, chances)
            if in_plays[c]:
                mine += playout_all - without[c]
            for s2 in range(4):
                u = s2 * NR + r
                if s2 != suit and hand[u] == 0:
                    mine += pair_value * _p_me(unseen, u, known_left, seen, total_unseen)
            for d in range(3):
                d1, d2 = (1, 2) if d == 0 else ((-1, -2) if d == 1 else (1, -1))
                a, b = r + d1, r + d2
                if not (1 <= a < NR and 1 <= b < NR):
                    continue
                ca, cb = suit * NR + a, suit * NR + b
                if hand[ca] and not hand[cb]:
                    mine += run_value * _p_me(unseen, cb, known_left, seen, total_unseen)
                elif hand[cb] and not hand[ca]:
                    mine += run_value * _p_me(unseen, ca, known_left, seen, total_unseen)
            for t in range(num_melds):
                at = t * SLOT
                if table[at + K_KIND] != RUN or table[at + K_CARDS] // NR != suit:
                    continue
                lo, hi = table[at + K_INFO1], table[at + K_INFO2]
                size = hi - lo + 1
                for side in range(2):
                    gap, end = (r - 1, hi + 2) if side == 0 else (r + 1, lo - 2)
                    if end == r and 1 <= gap < NR:
                        u = suit * NR + gap
                        if hand[u] == 0:
                            worth = float(size_value(size + 2) - size_value(size))
                            mine += worth * _p_me(unseen, u, known_left, seen, total_unseen)
        key = np.rint(mine * QUANTUM)
        if best_card < 0 or key <= best_key:  # ascending ids: an equal key goes to the higher card
            best_card, best_key = c, key
    return best_card


# ---------------------------------------------------------------------------- heuristic: the decision
@njit
def _next_action(memory: np.ndarray, k: int) -> int:
    """``heuristic._next_action`` of the plan in ``memory`` after ``k`` selected cards."""
    if k < memory[PLAN_LEN]:
        return memory[PLAN_CARDS + k]
    return COMMIT_NEW if memory[PLAN_TARGET] < 0 else LAYOFF_BASE + memory[PLAN_TARGET]


@njit
def _set_plan(memory: np.ndarray, cards: np.ndarray, length: int, target: int) -> None:
    memory[PLAN_VALID] = 1
    memory[PLAN_TARGET] = target
    memory[PLAN_LEN] = length
    for i in range(length):
        memory[PLAN_CARDS + i] = cards[i]


@njit
def _continue(s: np.ndarray, hand: np.ndarray, table: np.ndarray, memory: np.ndarray) -> int:
    """``heuristic._continue``: the plan's next action; without a plan matching the selection, the play of
    most points (then the highest cards) extending it."""
    k = s[SEL_LEN]
    if memory[PLAN_VALID] and memory[PLAN_LEN] >= k:
        match = True
        for i in range(k):
            if memory[PLAN_CARDS + i] != s[SEL + i]:
                match = False
        if match:
            return _next_action(memory, k)
    cards, length, target, value = _new_plays()
    n = _plays_of(hand, table, np.int64(s[NUM_MELDS]), cards, length, target, value)
    best = -1
    for p in range(n):
        if length[p] < k:
            continue
        match = True
        for i in range(k):
            if cards[p, i] != s[SEL + i]:
                match = False
        if not match:
            continue
        if (
            best < 0
            or value[p] > value[best]
            or (value[p] == value[best] and _cards_greater(cards[p], length[p], cards[best], length[best]))
        ):
            best = p
    _set_plan(memory, cards[best], length[best], target[best])
    return _next_action(memory, k)


@njit
def _heuristic_act(s, cfg, mask, prng, memory, version: int) -> int:
    """``IcebergRummyHeuristic.act`` (version 1) and ``IcebergRummyHeuristicV2.act`` (version 2)."""
    seat = s[CURRENT]
    hand = _hand_of(s, seat)
    table = _table_of(s)
    num_melds = np.int64(s[NUM_MELDS])  # int64 as the players' own tables: one machine code for both
    if s[SEL_LEN] > 0:
        action = _continue(s, hand, table, memory)
    else:
        best_cards = np.empty(MAX_MELD_CARDS, dtype=np.int64)
        points = -1
        if not cfg[C_SINGLE]:
            length, target = _choose_play(hand, table, num_melds, 0, False, best_cards)
        else:
            points, played = _playout(hand, table, num_melds)
            if hand.sum() - played > 1:
                hold = _holding(s, seat, cfg, version)
                length, target = _choose_play(hand, table, num_melds, 0, hold, best_cards)
            elif played and not _going_out_wins(s, seat, cfg, points, prng):
                length, target = _choose_play(hand, table, num_melds, 2, False, best_cards)
            else:
                length, target = _choose_play(hand, table, num_melds, 0, False, best_cards)
        if length == 0:
            memory[PLAN_VALID] = 0
            action = DISCARD_BASE + _choose_discard(s, seat, cfg, hand, table, points, version)
        else:
            _set_plan(memory, best_cards, length, target)
            action = best_cards[0]
    if 0 <= action < mask.shape[0] and mask[action]:
        return action
    return random_act(s, cfg, mask, prng, memory)  # the Python player's safety net


@njit
def heuristic_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``heuristic`` (``heuristic@v1``): :func:`_heuristic_act` with ``holding``."""
    return _heuristic_act(s, cfg, mask, prng, memory, 1)


@njit
def heuristic_v2_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``heuristic@v2``: :func:`_heuristic_act` with ``holding_v2``."""
    return _heuristic_act(s, cfg, mask, prng, memory, 2)


# ---------------------------------------------------------------------------- greedy
@njit
def _value(s: np.ndarray, seat: int, cfg: np.ndarray) -> int:
    """``greedy.value``: the seat's total if the hand were settled now (a play being composed counts as its
    best completion, ``greedy.best_completion``, laid); a finished game ``WIN`` or ``-WIN``."""
    n = cfg[C_PLAYERS]
    if s[PHASE] == OVER:
        decided = False
        for p in range(n):
            if s[WINNERS + p]:
                decided = True
        if decided:
            return WIN if s[WINNERS + seat] else -WIN
        return get_total(s, seat)
    points = s[HAND_POINTS + seat]
    held = s
    k = s[SEL_LEN]
    if s[CURRENT] == seat and k > 0:
        hand = _hand_of(s, seat)
        cards, length, target, value = _new_plays()
        num = _plays_of(hand, _table_of(s), np.int64(s[NUM_MELDS]), cards, length, target, value)
        best = -1
        for p in range(num):
            if length[p] < k:
                continue
            match = True
            for i in range(k):
                if cards[p, i] != s[SEL + i]:
                    match = False
            if not match:
                continue
            # (points, -len(cards), tuple(-c for c in cards)) highest
            if (
                best < 0
                or value[p] > value[best]
                or (value[p] == value[best] and length[p] < length[best])
                or (
                    value[p] == value[best]
                    and length[p] == length[best]
                    and _cards_greater(cards[best], length[best], cards[p], length[p])
                )
            ):
                best = p
        if best >= 0:
            points += value[best]
            held = s.copy()
            for i in range(length[best]):
                held[HANDS + seat * NC + cards[best, i]] -= 1
            held[SIZES + seat] -= length[best]
    raw = points - _penalty(held, seat, cfg, _table_of(s), _new_plays())
    if cfg[C_ACE_SCORING] == MULTIPLIER:
        hand_score = raw * (1 + s[ACES + seat])
    else:
        hand_score = raw + s[ACE_BONUS + seat]
    return get_total(s, seat) + hand_score


_CONFIGS: dict[tuple[int, ...], rules.IcebergRummyConfig] = {}


def _dealt_value_reference(row: np.ndarray, cfg: np.ndarray, action: int, seat: int, seed: int) -> tuple[int, int]:
    """Python, through :func:`_dealt_value`: ``greedy.value`` after ``action`` applied to the re-deal ``row``
    with ``numpy.random.default_rng(seed)`` (``GreedyAgent``'s sampled outcome: a new hand is dealt), and
    what the new hand adds to the seat's settled total (-1 << 62 where the new hand ended at once)."""
    from ice_envs.iceberg_rummy import greedy

    PYTHON_CALLS["dealt_value"] += 1
    key = tuple(int(x) for x in cfg[:10])
    config = _CONFIGS.get(key)
    if config is None:
        n, decks, single, target, scoring, ace_value, holder, max_hands, decide, clear = key
        config = _CONFIGS[key] = rules.IcebergRummyConfig(
            num_players=n,
            single_hand=bool(single),
            target_score=target,
            ace_scoring=rules.ACE_SCORINGS[scoring],
            ace_value=ace_value,
            ace_holder_finishes=bool(holder),
            max_hands=None if max_hands < 0 else max_hands,
            allow_clear=bool(clear),
            num_decks=decks,
            max_hands_end="decide" if decide else "truncate",
        )
    holder = _pytypes.SimpleNamespace(state=np.asarray(row)[None, :], num_players=config.num_players, config=config)
    state = IcebergRummyCompiled.state_of(holder, 0)  # type: ignore[arg-type]
    hand_no = state.hand_no
    rules.apply(state, int(action), np.random.default_rng(int(seed)), check=False)
    value = int(greedy.value(state, int(seat)))
    clean = state.hand_no == hand_no + 1 and state.phase != rules.PHASE_OVER
    return value, value - int(state.totals[int(seat)]) if clean else _UNKNOWN


#: :func:`_dealt_value_reference`'s offset where the new hand ended at once.
_UNKNOWN = -(1 << 62)


@numba.njit(cache=True, error_model="numpy")
def _dealt_value(row: np.ndarray, cfg: np.ndarray, action: int, seat: int, seed: int) -> tuple[int, int]:
    with numba.objmode(value="int64", offset="int64"):
        value, offset = _dealt_value_reference(row, cfg, action, seat, seed)
    return value, offset


@njit
def greedy_act(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray, prng: np.ndarray, memory: np.ndarray) -> int:
    """``GreedyAgent.act`` with ``greedy.value`` (module docstring): the action of the highest summed value
    over the re-deals, ties to the lowest id."""
    only = only_legal(mask)
    if only >= 0:
        return only
    seat = s[CURRENT]
    deals = np.empty((GREEDY_SAMPLES, s.shape[0]), dtype=s.dtype)
    redeal(s, seat, cfg, prng, deals[0])
    redeal(s, seat, cfg, prng, deals[1])
    hidden = not same_redeal(deals[0], deals[1], seat, cfg)
    num_deals = GREEDY_SAMPLES if hidden else 1
    for d in range(2, num_deals):
        redeal(s, seat, cfg, prng, deals[d])
    seeds = np.empty(GREEDY_SAMPLES, dtype=np.int64)
    for k in range(GREEDY_SAMPLES):
        seeds[k] = seed63(prng)  # integers(0, 2**63)
    scratch = np.empty_like(s)
    rng = np.zeros(2, dtype=np.uint64)
    hand_no = get_wide(s, HAND_NO)
    # per re-deal: what the new hand dealt by seed k adds to the seat's settled total (the same after every
    # action that ends the hand, since the deal reads only the seed, the dealer and the options)
    offsets = np.full(GREEDY_SAMPLES, _UNKNOWN, dtype=np.int64)
    best = -1
    best_total = 0
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        total = 0
        known = False  # the value of an outcome that leaves the hand going on (the same in every re-deal)
        kept = 0
        for k in range(GREEDY_SAMPLES):
            deal = deals[k if hidden else 0]
            scratch[:] = deal
            apply(scratch, a, rng, cfg)
            if scratch[PHASE] != OVER and get_wide(scratch, HAND_NO) != hand_no:
                settled = get_wide(scratch, HAND_NO) == hand_no + 1  # the scratch's own new hand goes on
                if settled and offsets[k] != _UNKNOWN:
                    total += get_total(scratch, seat) + offsets[k]
                else:
                    value, offset = _dealt_value(deal, cfg, a, seat, seeds[k])
                    total += value
                    if settled:
                        offsets[k] = offset
            elif scratch[PHASE] == OVER:
                total += _value(scratch, seat, cfg)
            else:
                if not known:
                    kept = _value(scratch, seat, cfg)
                    known = True
                total += kept
        if best < 0 or total > best_total:
            best, best_total = a, total
    return best


PLAYERS: dict[str, CompiledPlayer] = {
    "greedy": CompiledPlayer("greedy", greedy_act),
    "heuristic": CompiledPlayer("heuristic", heuristic_act, HEURISTIC_MEMORY),
    "heuristic@v2": CompiledPlayer("heuristic@v2", heuristic_v2_act, HEURISTIC_MEMORY),
}
