"""Iceberg Rummy heuristic.

Strategy, as a decent rummy player would play (reading only its own hand, the public
table and what it passed itself; aces are placed by the engine at once):

1. **Meld greedily but look one play ahead.** At every melding decision with an empty
   selection, every legal play (new melds and lay-offs, with their points) is scored as
   its points plus the best play-out of the rest of the hand against the table after it
   (:func:`ice_envs.iceberg_rummy.melds.best_playout`), so the first play never spoils a
   better combination (5♥ 5♦ 5♣ 6♥ 7♥: the run and a pair, not the set). Points are
   taken at once: a meld is worth the same built at once or card by card, and cards left
   in hand pay for themselves at the end of the hand.
2. **Keep the special melds in reach.** The four six-card melds (700 for odds or evens of
   one suit, 300 / 200 of one colour) are valued at their points times an estimate of the
   chance to complete them before the hand ends (cards still unseen, cards this player will
   still see). A play that breaks a special meld in reach is made only if its points beat
   the special meld's expected value lost (and a small risk of holding cards).
3. **Discard the card least useful to me and to the left neighbour.** The card passes face
   down to the left. For each card: its value to me (the chance-weighted points of melds
   one card away: pairs, runs with a card in hand, lay-offs onto table runs; its share of a
   special meld in reach) plus its value to the neighbour (the same one-card-away melds,
   weighted by the chance the neighbour holds the missing card — certainty for the card I
   passed them that they still hold; a card that fits a table meld outright is never fed).
   The lowest sum goes. Unplayable cards all cost 10 at the end, so the dead cards go first.
4. **Go out when ahead.** When the plays would empty the hand (or leave one card to
   discard), the hand ends; if the estimated final scores (others paying about 10 per card
   held, every score times 1 + aces) leave this player behind, it holds back its smallest
   play so that the hand goes on.

A decision takes a few milliseconds.
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules

#: Chance that the hand ends before my next turn (risk of holding a playable card back).
HOLD_RISK = 0.15
#: Cards besides the draw seen per own turn (the passed card), as a fraction of a draw.
PICKUP_WEIGHT = 0.3
#: Points of a pair one card away (a pair grows into a set), and of a three-card run.
PAIR_VALUE = 15.0
RUN_VALUE = 30.0
#: Special melds count as in reach when at most this many of their six ranks are missing.
MAX_MISSING = 2
#: Risk weight of feeding a card that fits a table meld outright.
FITS_TABLE_RISK = 100.0

_SPECIAL_TARGETS: list[tuple[tuple[tuple[int, ...], ...], int]] = []
for _ranks, _suit_value, _colour_value in ((M.ODD_RANKS, 700, 300), (M.EVEN_RANKS, 700, 200)):
    for _s in range(M.NUM_SUITS):
        _SPECIAL_TARGETS.append((tuple((M.card_id(r, _s),) for r in _ranks), _suit_value))
    for _a, _b in M.COLOUR_SUITS:
        _SPECIAL_TARGETS.append((tuple((M.card_id(r, _a), M.card_id(r, _b)) for r in _ranks), _colour_value))


def unseen_counts(state: rules.IcebergRummyState, seat: int) -> np.ndarray:
    """Copies of each card ``seat`` has not seen (not in its hand, on the table or an ace placed)."""
    out = rules.full_deck_counts(state.config) - state.hands[seat].astype(np.int64)
    for _, _, cards in state.melds:
        for c in cards:
            out[c] -= 1
    out[list(M.ACE_IDS)] = 0
    return np.maximum(out, 0)


def future_cards_seen(state: rules.IcebergRummyState) -> float:
    """Expected cards the acting player still sees this hand (draws and pick-ups).

    The hand ends when the last ace is drawn: with ``a`` aces left in a stock of ``S``,
    the last one lies at about ``S a / (a + 1)``; the acting player draws one in ``n``.
    """
    stock = state.stock_size
    aces_left = rules.total_aces(state.config) - int(state.table_aces.sum())
    draws = stock * aces_left / (aces_left + 1) if aces_left else stock
    return draws / state.num_players * (1.0 + PICKUP_WEIGHT)


def special_bonus(hand: np.ndarray, unseen: np.ndarray, seen: float) -> float:
    """Expected points of the best special meld within reach of ``hand``.

    For each of the 12 special melds, the missing ranks must all come: each with chance
    ``1 - (1 - k / U) ** seen`` (``k`` unseen copies of the cards that fill it, ``U`` unseen
    cards). Only melds missing at most :data:`MAX_MISSING` ranks count.
    """
    total_unseen = max(1.0, float(unseen.sum()))
    best = 0.0
    for options, value in _SPECIAL_TARGETS:
        p = 1.0
        missing = 0
        for cards in options:
            if any(hand[c] > 0 for c in cards):
                continue
            missing += 1
            k = sum(int(unseen[c]) for c in cards)
            if missing > MAX_MISSING or k == 0:
                p = 0.0
                break
            p *= 1.0 - (1.0 - k / total_unseen) ** seen
        if missing and p > 0.0:
            best = max(best, p * value)
    return best


def _without(hand: np.ndarray, cards: tuple[int, ...]) -> np.ndarray:
    rest = hand.copy()
    for c in cards:
        rest[c] -= 1
    return rest


def _after(table: tuple[tuple[int, ...], ...], play: M.Play) -> tuple[tuple[int, ...], ...]:
    cards, target, _ = play
    if target < 0:
        return (*table, cards)
    return tuple(tuple(sorted(m + cards)) if k == target else m for k, m in enumerate(table))


def choose_play(
    hand: np.ndarray, table: tuple[tuple[int, ...], ...], unseen: np.ndarray, seen: float
) -> tuple[M.Play | None, float]:
    """The play to make now (``None``: stop melding) and its score.

    A play scores its points plus the best play-out of the rest of the hand plus the
    special-meld bonus of the rest; stopping scores the play-out of the whole hand, held
    at the risk :data:`HOLD_RISK`, plus the special-meld bonus of the whole hand.
    """
    hand = np.asarray(hand, dtype=np.int8)
    plays = M.analyse(hand.tobytes(), table).plays
    if not plays:
        return None, 0.0
    bonus_all = special_bonus(hand, unseen, seen)
    best: M.Play | None = None
    best_score = -1e9
    bonus_cache: dict[tuple[int, ...], float] = {}
    for play in sorted(plays, key=lambda p: (-p[2], p[0], p[1])):
        cards, _, value = play
        rest = _without(hand, cards)
        key = cards
        if key not in bonus_cache:
            bonus_cache[key] = special_bonus(rest, unseen, seen) if bonus_all else 0.0
        score = value + M.best_playout(rest, _after(table, play))[0] + bonus_cache[key]
        if score > best_score:
            best, best_score = play, score
    stop = (1.0 - HOLD_RISK) * M.best_playout(hand, table)[0] + bonus_all
    if best_score >= stop:
        return best, best_score
    return None, stop


def card_values(
    hand: np.ndarray,
    table: tuple[tuple[int, ...], ...],
    unseen: np.ndarray,
    seen: float,
    neighbour_cards: float,
    known_left: int,
    passed: np.ndarray,
) -> dict[int, tuple[float, float]]:
    """For each card in hand: (its value to me, its value to the left neighbour if passed)."""
    total_unseen = max(1.0, float(unseen.sum()))
    groups: dict[int, list[tuple[int, ...]]] = {}
    runs: dict[int, list[tuple[int, int]]] = {}
    for cards in table:
        kind = M.meld_kind_cached(cards)
        if kind == M.GROUP:
            groups.setdefault(cards[0] % M.NUM_RANKS, []).append(cards)
        elif kind == M.RUN:
            runs.setdefault(cards[0] // M.NUM_RANKS, []).append((cards[0] % M.NUM_RANKS, cards[-1] % M.NUM_RANKS))

    def p_me(c: int) -> float:
        copies = unseen[c] - (1 if c == known_left else 0)  # the neighbour holds that one
        return min(1.0, max(0, copies) * seen / total_unseen)

    def p_left(c: int) -> float:
        if c == known_left:
            return 1.0
        base = unseen[c] * neighbour_cards / total_unseen
        if passed[c] > 0:  # I passed it this hand and have not seen it again: likely still there
            base = max(base, 0.5)
        return min(1.0, base)

    bonus_all = special_bonus(hand, unseen, seen)
    playout_all = M.best_playout(hand, table)[0]
    out: dict[int, tuple[float, float]] = {}
    for c in np.flatnonzero(hand).tolist():
        r, s = c % M.NUM_RANKS, c // M.NUM_RANKS
        if r == M.ACE:
            out[c] = (0.0, 0.0)
            continue
        rest = _without(hand, (c,))
        mine = bonus_all - special_bonus(rest, unseen, seen)
        mine += playout_all - M.best_playout(rest, table)[0]
        theirs = 0.0
        # fits the table outright: a gift
        single = np.zeros(M.NUM_CARDS, dtype=np.int8)
        single[c] = 1
        if M.analyse(single.tobytes(), table).plays:
            theirs += FITS_TABLE_RISK
        # pairs: another suit of the same rank
        for s2 in range(M.NUM_SUITS):
            if s2 == s:
                continue
            u = M.card_id(r, s2)
            mine += PAIR_VALUE * p_me(u) if hand[u] == 0 else 0.0
            theirs += PAIR_VALUE * p_left(u)
        # runs: one card away with a card in my hand; lay-offs one card away onto table runs
        for d1, d2 in ((1, 2), (-1, -2), (1, -1)):
            a, b = r + d1, r + d2
            if not (1 <= a < M.NUM_RANKS and 1 <= b < M.NUM_RANKS):
                continue
            ca, cb = M.card_id(a, s), M.card_id(b, s)
            if hand[ca] and not hand[cb]:
                mine += RUN_VALUE * p_me(cb)
            elif hand[cb] and not hand[ca]:
                mine += RUN_VALUE * p_me(ca)
            theirs += RUN_VALUE * p_left(ca) * p_left(cb)
        for lo, hi in runs.get(s, ()):
            size = hi - lo + 1
            for gap, end in ((r - 1, hi + 2), (r + 1, lo - 2)):
                if end == r and 1 <= gap < M.NUM_RANKS:
                    u = M.card_id(gap, s)
                    gain = float(M.layoff_value(size, 2))
                    if hand[u] == 0:
                        mine += gain * p_me(u)
                    theirs += gain * p_left(u)
        out[c] = (mine, theirs)
    return out


def choose_discard(state: rules.IcebergRummyState, seat: int, hand: np.ndarray) -> int:
    """The card to pass face down to the left: least useful to me plus the neighbour."""
    n = state.num_players
    table = state.table()
    unseen = unseen_counts(state, seat)
    seen = future_cards_seen(state)
    left = (seat + 1) % n
    neighbour_cards = float(state.hands[left].sum()) if left != seat else 7.0
    known = int(state.known_left[seat])
    values = card_values(hand, table, unseen, seen, neighbour_cards, known, state.passed[seat])
    return min(values, key=lambda c: (values[c][0] + values[c][1], -c))


def _estimated_finals(state: rules.IcebergRummyState, seat: int, my_gain: float, my_left: int) -> np.ndarray:
    """Rough final hand scores if the hand ended now (others pay 10 per card held)."""
    sizes = rules.hand_sizes(state).astype(np.float64)
    raw = state.hand_points.astype(np.float64) - 10.0 * sizes
    raw[seat] = float(state.hand_points[seat]) + my_gain - 10.0 * my_left
    mult = 1.0 + state.aces.astype(np.float64)
    return state.totals.astype(np.float64) + raw * mult


class IcebergRummyHeuristic(SeededAgent):
    """See the module docstring."""

    name = "heuristic"
    needs_view = True

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._plan: tuple[bytes, tuple[tuple[int, ...], ...], M.Play] | None = None

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        mask = observation["action_mask"]
        if view is None:
            return self.random_legal(mask)
        state: rules.IcebergRummyState = view.state
        seat = view.seat
        hand = state.hands[seat].astype(np.int8)
        table = state.table()
        sel = tuple(state.selection)
        if sel:
            action = self._continue(hand, table, sel)
        else:
            action = self._decide(state, seat, hand, table)
        if 0 <= action < mask.size and mask[action]:
            return action
        return self.random_legal(mask)  # pragma: no cover - safety net

    def _decide(
        self, state: rules.IcebergRummyState, seat: int, hand: np.ndarray, table: tuple[tuple[int, ...], ...]
    ) -> int:
        unseen = unseen_counts(state, seat)
        seen = future_cards_seen(state)
        play, _ = choose_play(hand, table, unseen, seen)
        if play is not None:
            play = self._maybe_hold_back(state, seat, hand, table, play)
        if play is None:
            self._plan = None
            return rules.DISCARD_BASE + choose_discard(state, seat, hand)
        self._plan = (hand.tobytes(), table, play)
        return play[0][0]

    def _maybe_hold_back(
        self,
        state: rules.IcebergRummyState,
        seat: int,
        hand: np.ndarray,
        table: tuple[tuple[int, ...], ...],
        play: M.Play,
    ) -> M.Play | None:
        """Hold back plays that would end the hand while this player is behind."""
        points, played = M.best_playout(hand, table)
        left = int(hand.sum()) - played
        if left > 1:
            return play  # the hand goes on whatever I lay
        finals = _estimated_finals(state, seat, float(points), left)
        others = np.delete(finals, seat)
        if finals[seat] > others.max():
            return play  # going out wins (by this estimate)
        # keep at least two cards: make only plays that leave two or more in hand
        plays = [p for p in M.analyse(hand.tobytes(), table).plays if int(hand.sum()) - len(p[0]) >= 2]
        if not plays:
            return None
        return max(plays, key=lambda p: (p[2], p[0]))

    def _continue(self, hand: np.ndarray, table: tuple[tuple[int, ...], ...], sel: tuple[int, ...]) -> int:
        plan = self._plan
        if plan is not None and plan[0] == hand.tobytes() and plan[1] == table:
            cards, target, _ = plan[2]
            if cards[: len(sel)] == sel:
                return _next_action(cards, target, sel)
        # no plan (e.g. a position given mid-selection): the best play extending the selection
        plays = [p for p in M.analyse(hand.tobytes(), table).plays if p[0][: len(sel)] == sel]
        cards, target, _ = max(plays, key=lambda p: (p[2], p[0]))
        self._plan = (hand.tobytes(), table, (cards, target, 0))
        return _next_action(cards, target, sel)


def _next_action(cards: tuple[int, ...], target: int, sel: tuple[int, ...]) -> int:
    if len(sel) < len(cards):
        return cards[len(sel)]
    return rules.COMMIT_NEW if target < 0 else rules.LAYOFF_BASE + target
