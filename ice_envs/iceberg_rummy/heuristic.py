"""Iceberg Rummy heuristic.

Strategy, as a decent rummy player would play (reading only its own hand, the public
table and what it passed itself; aces are placed by the engine at once):

1. **Lay everything, best combination first** (but see rule 2). At every melding decision with
   an empty selection, if any play (new meld or lay-off) is legal, one is made: each is scored as
   the settlement of the hand if it ended after this player laid that play and then the
   best play-out of the rest of its hand against the table after it
   (:func:`ice_envs.iceberg_rummy.melds.best_playout`): the points of the play and of the
   play-out, minus 10 for every card that would still be left dead (R4.6.2). So the first
   play never spoils a better combination (5♥ 5♦ 5♣ 6♥ 7♥: the run and a pair, not the
   set), and among equal points the combination that leaves fewer cards in hand wins.
   Ties go to the play with the lowest card ids, then the lowest target.
2. **Single hand: hold the plays, go out in one turn.** When one hand is the whole game, the
   hand is a race to go out (the player who goes out usually wins). Every pair, set or run laid
   on the table is a lay-off target for the other seats, and every card laid off onto one changes
   what it takes (a fourth suit opens a set to every card of its rank) and what the next card
   onto it earns. So while no other seat is about to end the hand (every other seat holds more
   than :data:`HOLD_UNTIL` cards, and more than one ace is still unplaced: :func:`holding`), the
   heuristic holds its plays in hand; only special melds (700, 300 or 200 points, and no lay-off
   target, I5) are laid at once. Held plays are made the turn the whole hand can go out (rule 3),
   or as soon as another seat is down to :data:`HOLD_UNTIL` cards or the last ace is due (a held
   play then costs its points as a penalty, R4.6.1). In full games (hands until 5000 points)
   nothing is held.
3. **Go out only to win (single hand).** When laying the plays would end the hand (the hand
   empties, or one card is left to discard) and one hand is the whole game, the final scores
   are estimated on :data:`GO_OUT_SAMPLES` re-deals of the hidden hands drawn with the agent's
   own generator (``rules.resample_hidden``: they depend only on what this seat knows), every
   other seat paying its real end-of-hand penalty in that re-deal (R4.6). If going out wins in
   fewer than half of them, only plays that keep at least two cards in hand are made, so the
   hand goes on. Integer arithmetic throughout. Held plays (rule 2) count as playable.
4. **Discard the card least useful to me.** The card passes face down to the left. For
   each card: the special-meld value and the play-out points the hand loses without it,
   plus the chance-weighted melds one card away (another suit of its rank, the missing
   card of a run with a card in hand, the gap card of a lay-off onto a table run), each
   missing card weighted by the chance of seeing it before the hand ends. The lowest value
   goes (values are quantised to 1/1000 of a point; ties to the highest card id), so dead
   cards go first. The weights of the pair and run terms and of the pick-ups are
   :class:`DiscardWeights` (:data:`WEIGHTS_V1`; version 2 weighs them less, :data:`WEIGHTS_V2`).

Measured (``docs/agents/iceberg_rummy.md``): holding cards back for special melds, feeding
the neighbour as little as possible and holding back the last plays when behind all lost
to greedy's lay-everything play head to head; holding every play until the hand can go out
(rule 2) wins against it.

A decision takes a few milliseconds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules

#: Cards besides the draw seen per own turn (the passed card), as a fraction of a draw.
PICKUP_WEIGHT = 0.3
#: Points of a pair one card away (a pair grows into a set), and of a three-card run.
PAIR_VALUE = 15.0
RUN_VALUE = 30.0
#: Special melds count as in reach when at most this many of their six ranks are missing.
MAX_MISSING = 2
#: Card values (points) are compared after rounding to this many parts of a point.
QUANTUM = 1000
#: Re-deals of the hidden hands on which going out is judged (rule 3).
GO_OUT_SAMPLES = 8
#: Single hand: plays are held while every other seat holds more cards than this (rule 2).
HOLD_UNTIL = 1


class DiscardWeights(NamedTuple):
    """The weights of rule 4's card values: the points of a pair and of a three-card run one card away
    (:data:`PAIR_VALUE`, :data:`RUN_VALUE`) and the cards besides the draw seen per own turn
    (:data:`PICKUP_WEIGHT`, in :func:`future_cards_seen`)."""

    pair: float
    run: float
    pickup: float


#: Version 1's discard weights.
WEIGHTS_V1 = DiscardWeights(PAIR_VALUE, RUN_VALUE, PICKUP_WEIGHT)
#: Version 2's: a pair one card away is worth 5 points, a run one card away 10, and only draws count as
#: cards still to be seen, so a card that might make a meld later weighs less against what the hand holds
#: now (its special melds within reach, its play-out, its lay-off gaps). Paired against version 1 at the
#: suite table this wins clearly more games (docs/experiments/2026-12-06-rummy-heuristic-v2.md).
WEIGHTS_V2 = DiscardWeights(5.0, 10.0, 0.0)

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


def future_cards_seen(state: rules.IcebergRummyState, pickup: float = PICKUP_WEIGHT) -> float:
    """Expected cards the acting player still sees this hand (draws and, weighted by ``pickup``, pick-ups).

    The hand ends when the last ace is drawn: with ``a`` aces left in a stock of ``S``,
    the last one lies at about ``S a / (a + 1)``; the acting player draws one in ``n``.
    """
    stock = state.stock_size
    aces_left = rules.total_aces(state.config) - int(state.table_aces.sum())
    draws = stock * aces_left / (aces_left + 1) if aces_left else stock
    return draws / state.num_players * (1.0 + pickup)


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


def settlement(hand: np.ndarray, table: tuple[tuple[int, ...], ...], play: M.Play) -> int:
    """Points of ``play`` plus the best play-out of the rest of ``hand`` after it, minus 10 per card left dead."""
    cards, _, value = play
    rest = _without(hand, cards)
    points, played = M.best_playout(rest, _after(table, play))
    return int(value) + int(points) - 10 * (int(rest.sum()) - played)


def is_special(play: M.Play) -> bool:
    """Whether ``play`` lays a special meld (odds or evens, R3.4): never held, since it takes no lay-offs (I5)."""
    cards, target, _ = play
    return target < 0 and M.meld_kind_cached(cards) not in (M.GROUP, M.RUN)


def holding(state: rules.IcebergRummyState, seat: int) -> bool:
    """Whether ``seat`` holds its plays back now (rule 2): a single hand, every other seat holding more
    than :data:`HOLD_UNTIL` cards, and more than one ace still unplaced (public information only)."""
    if not state.config.single_hand:
        return False
    sizes = rules.hand_sizes(state).tolist()
    if any(sizes[p] <= HOLD_UNTIL for p in range(state.num_players) if p != seat):
        return False
    return rules.total_aces(state.config) - int(state.table_aces.sum()) > 1


def choose_play(
    hand: np.ndarray, table: tuple[tuple[int, ...], ...], keep: int = 0, hold: bool = False
) -> M.Play | None:
    """The play to make now, by :func:`settlement`, among those that leave at least ``keep`` cards in
    hand and, with ``hold``, only special melds (:func:`is_special`); ``None``: there is none.

    Ties go to the play with the lowest card ids, then the lowest target (a new meld first).
    """
    hand = np.asarray(hand, dtype=np.int8)
    best: M.Play | None = None
    best_key: tuple | None = None
    size = int(hand.sum())
    for play in M.analyse(hand.tobytes(), table).plays:
        if size - len(play[0]) < keep or (hold and not is_special(play)):
            continue
        key = (settlement(hand, table, play), tuple(-c for c in play[0]), -play[1])
        if best_key is None or key > best_key:
            best, best_key = play, key
    return best


def card_values(
    hand: np.ndarray,
    table: tuple[tuple[int, ...], ...],
    unseen: np.ndarray,
    seen: float,
    known_left: int,
    weights: DiscardWeights = WEIGHTS_V1,
) -> dict[int, float]:
    """For each card in hand: its value to me (see rule 4 of the module docstring), a pair and a run one
    card away worth ``weights.pair`` and ``weights.run`` points.

    ``known_left`` is the card I passed the left neighbour that they still hold: that copy is not
    coming back, so it does not count among the unseen copies I may still draw.
    """
    total_unseen = max(1.0, float(unseen.sum()))
    runs: dict[int, list[tuple[int, int]]] = {}
    for cards in table:
        if M.meld_kind_cached(cards) == M.RUN:
            runs.setdefault(cards[0] // M.NUM_RANKS, []).append((cards[0] % M.NUM_RANKS, cards[-1] % M.NUM_RANKS))

    def p_me(c: int) -> float:
        copies = unseen[c] - (1 if c == known_left else 0)
        return min(1.0, max(0, copies) * seen / total_unseen)

    bonus_all = special_bonus(hand, unseen, seen)
    playout_all = M.best_playout(hand, table)[0]
    # a card in no legal play is in no play-out: the hand loses no play-out points without it
    in_plays = {x for cards, _, _ in M.analyse(np.asarray(hand, dtype=np.int8).tobytes(), table).plays for x in cards}
    out: dict[int, float] = {}
    for c in np.flatnonzero(hand).tolist():
        r, s = c % M.NUM_RANKS, c // M.NUM_RANKS
        if r == M.ACE:
            out[c] = 0.0
            continue
        rest = _without(hand, (c,))
        mine = bonus_all - special_bonus(rest, unseen, seen)
        if c in in_plays:
            mine += playout_all - M.best_playout(rest, table)[0]
        # pairs: another suit of the same rank
        for s2 in range(M.NUM_SUITS):
            u = M.card_id(r, s2)
            if s2 != s and hand[u] == 0:
                mine += weights.pair * p_me(u)
        # runs: one card away with a card in my hand; lay-offs one card away onto table runs
        for d1, d2 in ((1, 2), (-1, -2), (1, -1)):
            a, b = r + d1, r + d2
            if not (1 <= a < M.NUM_RANKS and 1 <= b < M.NUM_RANKS):
                continue
            ca, cb = M.card_id(a, s), M.card_id(b, s)
            if hand[ca] and not hand[cb]:
                mine += weights.run * p_me(cb)
            elif hand[cb] and not hand[ca]:
                mine += weights.run * p_me(ca)
        for lo, hi in runs.get(s, ()):
            size = hi - lo + 1
            for gap, end in ((r - 1, hi + 2), (r + 1, lo - 2)):
                if end == r and 1 <= gap < M.NUM_RANKS:
                    u = M.card_id(gap, s)
                    if hand[u] == 0:
                        mine += float(M.layoff_value(size, 2)) * p_me(u)
        out[c] = mine
    return out


def going_out_wins(state: rules.IcebergRummyState, seat: int, gain: int, rng: np.random.Generator) -> bool:
    """Whether ending the hand now, after ``seat`` scores ``gain`` more points and holds no card, wins in
    at least half of :data:`GO_OUT_SAMPLES` re-deals of what ``seat`` cannot see (a shared win counts)."""
    n = state.num_players
    cfg = state.config
    wins = 0
    for _ in range(GO_OUT_SAMPLES):
        deal = rules.resample_hidden(state, seat, rng)
        finals = []
        for p in range(n):
            raw = (
                int(state.hand_points[p]) + gain
                if p == seat
                else int(deal.hand_points[p]) - rules.hand_penalty(deal, p)[0]
            )
            if cfg.ace_scoring == "multiplier":
                hand = raw * (1 + int(deal.aces[p]))
            else:
                hand = raw + int(deal.ace_bonus[p])
            finals.append(int(state.totals[p]) + hand)
        wins += finals[seat] >= max(f for p, f in enumerate(finals) if p != seat)
    return 2 * wins >= GO_OUT_SAMPLES


def choose_discard(
    state: rules.IcebergRummyState, seat: int, hand: np.ndarray, weights: DiscardWeights = WEIGHTS_V1
) -> int:
    """The card to pass face down to the left: the least useful to me by :func:`card_values` with ``weights``
    (ties to the highest card id)."""
    values = card_values(
        hand,
        state.table(),
        unseen_counts(state, seat),
        future_cards_seen(state, weights.pickup),
        int(state.known_left[seat]),
        weights,
    )
    return min(values, key=lambda c: (round(values[c] * QUANTUM), -c))


class IcebergRummyHeuristic(SeededAgent):
    """See the module docstring."""

    name = "heuristic"
    needs_view = True
    #: Rule 4's weights.
    weights = WEIGHTS_V1

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
        play = self._choose(state, seat, hand, table)
        if play is None:
            self._plan = None
            return rules.DISCARD_BASE + choose_discard(state, seat, hand, self.weights)
        self._plan = (hand.tobytes(), table, play)
        return play[0][0]

    def _choose(
        self, state: rules.IcebergRummyState, seat: int, hand: np.ndarray, table: tuple[tuple[int, ...], ...]
    ) -> M.Play | None:
        """The play to make now (rules 1-3 of the module docstring), ``None``: none, discard."""
        if not state.config.single_hand:
            return choose_play(hand, table)
        points, played = M.best_playout(hand, table)
        if int(hand.sum()) - played > 1:  # the hand cannot go out this turn
            return choose_play(hand, table, hold=holding(state, seat))
        if played and not going_out_wins(state, seat, int(points), self.rng):
            return choose_play(hand, table, keep=2)
        return choose_play(hand, table)

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


def holding_v2(state: rules.IcebergRummyState, seat: int) -> bool:
    """Version 2 of :func:`holding`: plays are held while every other seat holds more than
    :data:`HOLD_UNTIL` cards, however few aces are left (single hand only).

    Where version 1 releases its held plays only because one ace is left while nobody is about to go
    out, a one-step headroom probe (``ice-envs probe``) found discarding the better move at some of those
    decisions; paired against version 1, this rule alone wins about 0.01 more games and scores fewer points
    (docs/experiments/2026-12-06-probe-and-search.md, docs/experiments/2026-12-06-rummy-heuristic-v2.md)."""
    if not state.config.single_hand:
        return False
    sizes = rules.hand_sizes(state).tolist()
    return all(sizes[p] > HOLD_UNTIL for p in range(state.num_players) if p != seat)


class IcebergRummyHeuristicV2(IcebergRummyHeuristic):
    """Version 2 (``heuristic@v2``): rules 1-4 of the module docstring, with rule 2's release by the
    other seats' hands alone (:func:`holding_v2`) and rule 4's cards one card away from a meld weighted
    less (:data:`WEIGHTS_V2`)."""

    weights = WEIGHTS_V2

    def _choose(
        self, state: rules.IcebergRummyState, seat: int, hand: np.ndarray, table: tuple[tuple[int, ...], ...]
    ) -> M.Play | None:
        if not state.config.single_hand:
            return choose_play(hand, table)
        points, played = M.best_playout(hand, table)
        if int(hand.sum()) - played > 1:
            return choose_play(hand, table, hold=holding_v2(state, seat))
        if played and not going_out_wins(state, seat, int(points), self.rng):
            return choose_play(hand, table, keep=2)
        return choose_play(hand, table)


#: The heuristic's versions by name (``heuristic@v1``, ``heuristic@v2``; plain ``heuristic`` is v1).
VERSIONS = {"v1": IcebergRummyHeuristic, "v2": IcebergRummyHeuristicV2}
