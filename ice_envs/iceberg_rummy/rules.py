"""Iceberg Rummy — the pure game engine (no PettingZoo, no rendering).

Rules, house rules and interpretations: ``docs/rules/iceberg_rummy.md`` (numbered rules
R1-R7 and interpretations I1-I24, cited below by number). Meld logic lives in :mod:`.melds`.

A turn (R2.2): the player picks up the card passed face down by the right-hand neighbour,
draws from the stock and places every ace face up (all automatic), then makes any
melds and lay-offs, one play at a time, and ends the turn by discarding one card face
down to the left-hand neighbour. A play is composed card by card:

====== =====================================================================
id     meaning
====== =====================================================================
0-51   select a card (id ``suit * 13 + rank``) for the play being composed
52-103 discard card ``id - 52`` (passed face down to the left; ends the turn)
104    commit the selection as a new meld
105-152 commit the selection as a lay-off onto table meld slot ``id - 105``
153    clear the selection (only with ``allow_clear=True``)
====== =====================================================================

Cards are selected in increasing id order and a card is legal only if the selection
stays a prefix of some legal play, so every legal play has exactly one action sequence
(select its cards in id order, then commit) and no selection is a dead end. Discarding is
legal only with an empty selection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ice_envs.core.state_copy import copy_state
from ice_envs.core.validation import array as _array
from ice_envs.core.validation import integer as _int
from ice_envs.core.validation import sequence as _seq
from ice_envs.iceberg_rummy import melds as M

HAND_SIZE = 7
MAX_MELDS = 48  # 96 non-ace cards of two decks, at least two per meld
SELECT_BASE = 0
DISCARD_BASE = M.NUM_CARDS  # 52
COMMIT_NEW = 2 * M.NUM_CARDS  # 104
LAYOFF_BASE = COMMIT_NEW + 1  # 105
CLEAR_SELECTION = LAYOFF_BASE + MAX_MELDS  # 153
NUM_ACTIONS = CLEAR_SELECTION + 1  # 154

PHASE_MELD = 0  # the current player composes plays or discards
PHASE_OVER = 1

ACE_SCORINGS = ("multiplier", "fixed", "doubling", "cats")
#: What reaching ``max_hands`` does to a full game (R7.4, I17): truncate it (no winner) or decide it.
MAX_HANDS_ENDS = ("truncate", "decide")

END_NONE = 0
END_OUT = 1  # a player went out (last meld or last discard)
END_LAST_ACE = 2  # the last ace of the deck was placed
END_STOCK = 3  # a player could not draw
END_REASONS = ("", "went out", "the last ace was placed", "the stock ran out")

_ACE_IDX = np.array(M.ACE_IDS, dtype=np.intp)


@dataclass(frozen=True)
class IcebergRummyConfig:
    """Game options.

    Args:
        num_players: 2-5.
        single_hand: one hand is the whole game (default: hands until ``target_score``).
        target_score: a full game ends after the hand in which a player reaches it (5000).
        ace_scoring: ``"multiplier"`` (R4.7: each placed ace adds 1 to the hand's
            multiplier, x2, x3, ...); the rulebook's variants (R7.1) ``"fixed"`` (``ace_value``
            points per ace), ``"doubling"`` (first ace 20, second 40, each further ace
            double the previous) and ``"cats"`` (each ace worth 10 x the player's aces
            this hand: n aces score 10 n^2).
        ace_value: points per ace under ``ace_scoring="fixed"`` (20-50, default 30).
        ace_holder_finishes: the original author's variant (R7.2): when the last ace is
            placed, its holder finishes the turn (melds and discard) before the hand ends.
        max_hands: safety cap (R7.4, I17): a full game also stops after this many hands;
            default 100. ``None``: no cap (random players lose points every hand and never
            reach the target).
        max_hands_end: what the cap does (R7.4, I17): ``"truncate"`` (default: the game
            stops undecided, no winner; the env reports a truncation) or ``"decide"`` (the
            v0 behaviour: the game ends decided as in R6, highest total winning).
        allow_clear: offer the "clear the selection" action (default off: a selection
            can always be completed, so it is never needed).
        num_decks: 1 or 2; ``None`` follows R1.2 (1 for 2-3 players, 2 for 4-5).
    """

    num_players: int = 2
    single_hand: bool = False
    target_score: int = 5000
    ace_scoring: str = "multiplier"
    ace_value: int = 30
    ace_holder_finishes: bool = False
    max_hands: int | None = 100
    allow_clear: bool = False
    num_decks: int | None = None
    max_hands_end: str = "truncate"

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 5:
            raise ValueError(f"iceberg_rummy: num_players={self.num_players} is out of range 2-5")
        if self.ace_scoring not in ACE_SCORINGS:
            raise ValueError(f"iceberg_rummy: ace_scoring={self.ace_scoring!r} is not one of {list(ACE_SCORINGS)}")
        if not isinstance(self.ace_value, int) or not 20 <= self.ace_value <= 50:
            raise ValueError(f"iceberg_rummy: ace_value={self.ace_value!r} must be an integer in 20-50")
        if not isinstance(self.target_score, int) or self.target_score < 1:
            raise ValueError(f"iceberg_rummy: target_score={self.target_score!r} must be a positive integer")
        if self.max_hands is not None and (not isinstance(self.max_hands, int) or self.max_hands < 1):
            raise ValueError(f"iceberg_rummy: max_hands={self.max_hands!r} must be a positive integer or None")
        if self.num_decks not in (None, 1, 2):
            raise ValueError(f"iceberg_rummy: num_decks={self.num_decks!r} must be 1, 2 or None")
        if self.max_hands_end not in MAX_HANDS_ENDS:
            raise ValueError(
                f"iceberg_rummy: max_hands_end={self.max_hands_end!r} is not one of {list(MAX_HANDS_ENDS)}"
            )

    @property
    def decks(self) -> int:
        """Decks shuffled together (1 for 2-3 players, 2 for 4-5, unless set)."""
        return self.num_decks if self.num_decks is not None else (1 if self.num_players <= 3 else 2)


@dataclass
class IcebergRummyState:
    """Full game state (plain data; ``copy.deepcopy`` and JSON round-trip safe)."""

    config: IcebergRummyConfig
    #: ``hands[p, c]``: copies of card ``c`` in player p's hand (0-2).
    hands: np.ndarray
    #: The stock in drawing order; ``stock[stock_pos]`` is the top card.
    stock: np.ndarray
    stock_pos: int = 0
    #: Table melds in the order they were laid: ``(kind, owner, sorted card ids)``.
    melds: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)
    #: Aces placed this hand per player, and per suit on the table.
    aces: np.ndarray = field(default_factory=lambda: np.zeros(5, dtype=np.int64))
    table_aces: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    #: Points recorded this hand: melds and lay-offs, and ace bonuses under the variants.
    hand_points: np.ndarray = field(default_factory=lambda: np.zeros(5, dtype=np.int64))
    ace_bonus: np.ndarray = field(default_factory=lambda: np.zeros(5, dtype=np.int64))
    #: Game totals of the finished hands.
    totals: np.ndarray = field(default_factory=lambda: np.zeros(5, dtype=np.int64))
    dealer: int = 0
    current: int = 0
    phase: int = PHASE_MELD
    #: The play being composed (sorted card ids, all in the current player's hand).
    selection: list[int] = field(default_factory=list)
    #: A card lying face down for ``pending_to`` (-1: none).
    pending: int = -1
    pending_to: int = -1
    #: Turns each player has begun this hand.
    turns_taken: np.ndarray = field(default_factory=lambda: np.zeros(5, dtype=np.int64))
    #: Private memories: cards each player passed this hand, its last pass, the last card
    #: it picked up from the right, and its last pass while known to be in the left hand.
    passed: np.ndarray = field(default_factory=lambda: np.zeros((5, M.NUM_CARDS), dtype=np.int8))
    last_passed: np.ndarray = field(default_factory=lambda: np.full(5, -1, dtype=np.int64))
    last_received: np.ndarray = field(default_factory=lambda: np.full(5, -1, dtype=np.int64))
    known_left: np.ndarray = field(default_factory=lambda: np.full(5, -1, dtype=np.int64))
    #: Like ``known_left``, but with 2 players also kept when the neighbour passes back a card
    #: of another id (the player picks that card up and sees it, I23); -1: not known.
    still_left: np.ndarray = field(default_factory=lambda: np.full(5, -1, dtype=np.int64))
    #: Ace-holder variant: the hand ends when the current turn ends.
    end_after_turn: bool = False
    hand_no: int = 0
    turn: int = 0
    #: The game stopped at ``max_hands`` undecided (``max_hands_end="truncate"``; no winners).
    truncated: bool = False
    #: Result of the last finished hand: reason, per-player meld points, penalties, scores.
    last_hand: dict[str, Any] = field(default_factory=dict)
    winners: list[int] = field(default_factory=list)

    #: ``copy()`` is a cheap field-wise copy (search agents use it: ``Simulator.copy``).
    FAST_COPY: ClassVar[bool] = True

    def copy(self) -> IcebergRummyState:
        """An independent copy (:func:`~ice_envs.core.state_copy.copy_state`: the config is shared)."""
        return copy_state(self)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def stock_size(self) -> int:
        return int(self.stock.size - self.stock_pos)

    def table(self) -> tuple[tuple[int, ...], ...]:
        """The table melds' card tuples (the key of the play analysis)."""
        return tuple([m[2] for m in self.melds])


# ---------------------------------------------------------------------------- set-up
def new_game(
    config: IcebergRummyConfig,
    rng: np.random.Generator,
    *,
    dealer: int | None = None,
    hands: Sequence[Sequence[str | int]] | None = None,
    stock: Sequence[str | int] | None = None,
    melds: Sequence[tuple[int, Sequence[str | int]]] | None = None,
) -> IcebergRummyState:
    """A new game: deal the first hand and play the automatic start of the first turn.

    ``dealer`` (default: random, I18: the draw for high card is no decision) deals; ``hands``
    (card names or ids per seat) and ``stock`` (top first) fix the first deal; cards not
    given are shuffled into the stock after the given ones. ``melds`` (``(owner, cards)``
    pairs) puts melds on the table before the first turn (for puzzles and tests).
    """
    n = config.num_players
    if dealer is None:
        dealer = int(rng.integers(n))
    if not 0 <= int(dealer) < n:
        raise ValueError(f"iceberg_rummy: dealer={dealer} is not a seat")
    state = IcebergRummyState(
        config=config,
        hands=np.zeros((n, M.NUM_CARDS), dtype=np.int8),
        stock=np.zeros(0, dtype=np.int64),
        aces=np.zeros(n, dtype=np.int64),
        hand_points=np.zeros(n, dtype=np.int64),
        ace_bonus=np.zeros(n, dtype=np.int64),
        totals=np.zeros(n, dtype=np.int64),
        turns_taken=np.zeros(n, dtype=np.int64),
        passed=np.zeros((n, M.NUM_CARDS), dtype=np.int8),
        last_passed=np.full(n, -1, dtype=np.int64),
        last_received=np.full(n, -1, dtype=np.int64),
        known_left=np.full(n, -1, dtype=np.int64),
        still_left=np.full(n, -1, dtype=np.int64),
        dealer=int(dealer),
    )
    _deal(state, rng, hands=hands, stock=stock, melds=melds)
    _begin_turn(state, rng)
    return state


def full_deck_counts(config: IcebergRummyConfig) -> np.ndarray:
    """Copies of each card in the deck (1 or 2)."""
    return np.full(M.NUM_CARDS, config.decks, dtype=np.int64)


def _deal(
    state: IcebergRummyState,
    rng: np.random.Generator,
    *,
    hands: Sequence[Sequence[str | int]] | None = None,
    stock: Sequence[str | int] | None = None,
    melds: Sequence[tuple[int, Sequence[str | int]]] | None = None,
) -> None:
    """Deal a hand (R1.6, R1.7; given positions: R7.7); the dealer's left starts (R2.1)."""
    n = state.num_players
    deck_counts = full_deck_counts(state.config)
    state.hands[:] = 0
    table: list[tuple[int, int, tuple[int, ...]]] = []
    for owner, cards in melds or ():
        ids = tuple(sorted(M.parse_cards(cards)))
        kind = M.meld_kind(ids)
        if kind is None or not 0 <= int(owner) < n:
            raise ValueError(f"iceberg_rummy: ({owner}, {M.cards_text(ids)}) is not a meld of a seat")
        table.append((kind, int(owner), ids))
    if len(table) > MAX_MELDS:
        raise ValueError(f"iceberg_rummy: at most {MAX_MELDS} melds fit on the table")
    if hands is None and stock is None and not table:
        deck = rng.permutation(np.repeat(np.arange(M.NUM_CARDS), deck_counts))
        order = (state.dealer + 1 + np.arange(n)) % n
        for i, p in enumerate(order):
            np.add.at(state.hands[p], deck[i : HAND_SIZE * n : n], 1)
        state.stock = deck[HAND_SIZE * n :].astype(np.int64)
    else:
        given = [M.parse_cards(h) for h in (hands or [[] for _ in range(n)])]
        if len(given) != n:
            raise ValueError(f"iceberg_rummy: {len(given)} hands given for {n} players")
        top = M.parse_cards(stock or [])
        used = np.zeros(M.NUM_CARDS, dtype=np.int64)
        for p, h in enumerate(given):
            for c in h:
                state.hands[p, c] += 1
                used[c] += 1
        for c in top:
            used[c] += 1
        for _, _, ids in table:
            for c in ids:
                used[c] += 1
        if (used > deck_counts).any():
            bad = M.cards_text(np.flatnonzero(used > deck_counts))
            raise ValueError(f"iceberg_rummy: more copies of {bad} than the {state.config.decks} deck(s) hold")
        rest = rng.permutation(np.repeat(np.arange(M.NUM_CARDS), deck_counts - used))
        if hands is None:  # deal the hands from the cards not named
            if rest.size < HAND_SIZE * n:
                raise ValueError("iceberg_rummy: not enough cards left to deal the hands")
            for p in range(n):
                np.add.at(state.hands[p], rest[p * HAND_SIZE : (p + 1) * HAND_SIZE], 1)
            rest = rest[HAND_SIZE * n :]
        state.stock = np.concatenate([np.asarray(top, dtype=np.int64), rest]).astype(np.int64)
    state.stock_pos = 0
    state.melds = table
    state.aces[:] = 0
    state.table_aces[:] = 0
    state.hand_points[:] = 0
    state.ace_bonus[:] = 0
    state.turns_taken[:] = 0
    state.passed[:] = 0
    state.last_passed[:] = -1
    state.last_received[:] = -1
    state.known_left[:] = -1
    state.still_left[:] = -1
    state.selection = []
    state.pending = -1
    state.pending_to = -1
    state.end_after_turn = False
    state.turn = 0
    state.current = (state.dealer + 1) % n
    state.phase = PHASE_MELD


# ---------------------------------------------------------------------------- queries
def total_aces(config: IcebergRummyConfig) -> int:
    return 4 * config.decks


def analysis(state: IcebergRummyState) -> M.Analysis:
    """Every legal play of the current player against the table (cached)."""
    return M.analyse(state.hands[state.current].tobytes(), state.table())


def legal_actions(state: IcebergRummyState) -> list[int]:
    """Every legal action id of the deciding player, sorted."""
    if state.phase != PHASE_MELD:
        return []
    hand = state.hands[state.current]
    an = M.analyse(hand.tobytes(), state.table())
    sel = tuple(state.selection)
    actions = list(an.nexts(sel))
    if not sel:
        actions.extend((np.flatnonzero(hand) + DISCARD_BASE).tolist())
        return actions
    targets = an.commits.get(sel)
    if targets:
        actions.extend(COMMIT_NEW if t < 0 else LAYOFF_BASE + t for t in sorted(targets))
    if state.config.allow_clear:
        actions.append(CLEAR_SELECTION)
    return actions


def is_legal(state: IcebergRummyState, action: int) -> bool:
    if state.phase != PHASE_MELD:
        return False
    sel = tuple(state.selection)
    if SELECT_BASE <= action < DISCARD_BASE:
        return action in analysis(state).nexts(sel)
    if action < COMMIT_NEW:
        return not sel and state.hands[state.current, action - DISCARD_BASE] > 0
    if action < CLEAR_SELECTION:
        target = -1 if action == COMMIT_NEW else action - LAYOFF_BASE
        return bool(sel) and target in analysis(state).commits.get(sel, {})
    return action == CLEAR_SELECTION and bool(sel) and state.config.allow_clear


def is_over(state: IcebergRummyState) -> bool:
    return state.phase == PHASE_OVER


def hand_sizes(state: IcebergRummyState) -> np.ndarray:
    return state.hands.sum(axis=1, dtype=np.int64)


def ace_bonus_total(config: IcebergRummyConfig, n: int) -> int:
    """Bonus points of ``n`` placed aces under the ace-scoring variants, R7.1 (0 for the multiplier)."""
    if config.ace_scoring == "fixed":
        return config.ace_value * n
    if config.ace_scoring == "doubling":
        return 20 * (2**n - 1)
    if config.ace_scoring == "cats":
        return 10 * n * n
    return 0


def running_scores(state: IcebergRummyState) -> np.ndarray:
    """Game totals plus the points recorded so far this hand (raw points)."""
    if state.phase == PHASE_OVER:
        return state.totals.astype(np.float64)
    return (state.totals + state.hand_points + state.ace_bonus).astype(np.float64)


def scores(state: IcebergRummyState) -> np.ndarray:
    """See :func:`running_scores`."""
    return running_scores(state)


def is_truncated(state: IcebergRummyState) -> bool:
    """Whether the game stopped at ``max_hands`` undecided (R7.4, I17: no winner, no outcome)."""
    return bool(state.truncated)


def outcome(state: IcebergRummyState) -> np.ndarray:
    """+1 for each player with the highest total (ties all win), -1 for the others (R6.1-R6.3);
    all 0 while the game goes on and for a game stopped undecided at the hand cap (I17)."""
    out = np.zeros(state.num_players)
    if state.phase == PHASE_OVER and state.winners:
        out[:] = -1.0
        out[state.winners] = 1.0
    return out


# ---------------------------------------------------------------------------- apply
def apply(state: IcebergRummyState, action: int, rng: np.random.Generator, *, check: bool = True) -> IcebergRummyState:
    """Apply ``action`` for the deciding player (mutates and returns ``state``).

    ``check=False`` skips the legality check, for callers that have checked it already
    (the env checks every action against its mask).
    """
    action = int(action)
    if check and not is_legal(state, action):
        raise ValueError(f"iceberg_rummy: action {action} is not legal here; legal: {legal_actions(state)}")
    p = state.current
    if action < DISCARD_BASE:
        state.selection.append(action)
    elif action < COMMIT_NEW:
        _discard(state, action - DISCARD_BASE, rng)
    elif action < CLEAR_SELECTION:
        target = -1 if action == COMMIT_NEW else action - LAYOFF_BASE
        _commit(state, p, target, rng)
    else:
        state.selection = []
    return state


def _commit(state: IcebergRummyState, p: int, target: int, rng: np.random.Generator) -> None:
    """Lay the selection as a new meld (R3.4) or lay it off (R3.5); it scores at once (R4.1)."""
    sel = tuple(state.selection)
    value = analysis(state).commits[sel][target]
    for c in sel:
        state.hands[p, c] -= 1
    right = (p - 1) % state.num_players
    if state.known_left[right] in sel:
        state.known_left[right] = -1
    if state.still_left[right] in sel:
        state.still_left[right] = -1
    if target < 0:
        kind = M.meld_kind_cached(sel)
        assert kind is not None
        state.melds.append((kind, p, sel))
    else:
        kind, owner, cards = state.melds[target]
        state.melds[target] = (kind, owner, tuple(sorted(cards + sel)))
    state.hand_points[p] += value
    state.selection = []
    if not state.hands[p].any():
        _end_hand(state, END_OUT, rng)


def _discard(state: IcebergRummyState, card: int, rng: np.random.Generator) -> None:
    """Pass ``card`` face down to the left (R3.6); the last card goes out (R5.1, I9), and so does the
    discard that ends the ace holder's turn (R7.2, I21): nobody picks it up or knows where it is (I23)."""
    p = state.current
    n = state.num_players
    right = (p - 1) % n
    state.hands[p, card] -= 1
    state.passed[p, card] += 1
    state.last_passed[p] = card
    state.known_left[right] = -1
    # I23: the right-hand neighbour no longer knows where its pass is, unless (2 players) it is about to pick
    # ``card`` up and see that it is another card
    goes_on = bool(state.hands[p].any()) and not state.end_after_turn
    if not (n == 2 and goes_on and card != state.still_left[right]):
        state.still_left[right] = -1
    if not goes_on:  # the hand ends with this discard: the card goes to nobody (I9, I21, I23)
        state.known_left[p] = -1
        state.still_left[p] = -1
        _end_hand(state, END_LAST_ACE if state.hands[p].any() else END_OUT, rng)
        return
    left = (p + 1) % n
    state.pending = card
    state.pending_to = left
    state.known_left[p] = card
    state.still_left[p] = card
    state.current = left
    state.turn += 1
    _begin_turn(state, rng)


def _place_aces(state: IcebergRummyState, p: int) -> None:
    """Step 3 of a turn (R3.3): every ace in hand face up; variant bonuses at once (R7.1)."""
    hand = state.hands[p]
    if not (hand[0] or hand[13] or hand[26] or hand[39]):  # no ace in hand (ids: ACE_IDS)
        return
    held = state.hands[p, _ACE_IDX].astype(np.int64)
    k = int(held.sum())
    if not k:
        return
    before = int(state.aces[p])
    state.aces[p] += k
    state.table_aces += held
    state.hands[p, _ACE_IDX] = 0
    cfg = state.config
    state.ace_bonus[p] += ace_bonus_total(cfg, before + k) - ace_bonus_total(cfg, before)


def _begin_turn(state: IcebergRummyState, rng: np.random.Generator) -> None:
    """Steps 1-3 of a turn (R3.1-R3.3: pick up, draw, place aces), then the melding phase.

    The hand ends here when the stock is empty (R5.3, I11) or the last ace is placed
    (R5.2, I10; ``ace_holder_finishes``: after the turn, R7.2).
    """
    p = state.current
    state.selection = []
    if state.pending >= 0 and state.pending_to == p:
        state.hands[p, state.pending] += 1
        state.last_received[p] = state.pending
        state.pending = -1
        state.pending_to = -1
    if state.stock_pos >= state.stock.size:
        _end_hand(state, END_STOCK, rng)
        return
    state.hands[p, int(state.stock[state.stock_pos])] += 1
    state.stock_pos += 1
    state.turns_taken[p] += 1
    _place_aces(state, p)
    if sum(state.table_aces.tolist()) >= total_aces(state.config):
        if not state.config.ace_holder_finishes:
            _end_hand(state, END_LAST_ACE, rng)
            return
        state.end_after_turn = True
    if not state.hands[p].any():
        _end_hand(state, END_OUT, rng)
        return
    state.phase = PHASE_MELD


def hand_penalty(state: IcebergRummyState, p: int) -> tuple[int, int, int]:
    """End-of-hand penalty (R4.6, I12, I13) of player ``p``: ``(penalty, playable_points, dead_cards)``.

    Cards that could still be played (best play-out against the final table) cost the
    points playing them would have earned; every other card costs 10. An unplaced ace
    (only a player who has not had a turn yet can hold one) costs 10 under the
    multiplier rule and the value it would have added under the ace-scoring variants.
    """
    hand = state.hands[p].copy()
    aces = int(hand[_ACE_IDX].sum())
    hand[_ACE_IDX] = 0
    points, played = M.best_playout(hand, state.table())
    dead = int(hand.sum()) - played
    cfg = state.config
    if cfg.ace_scoring == "multiplier":
        ace_pen = 10 * aces
    else:
        ace_pen = ace_bonus_total(cfg, int(state.aces[p]) + aces) - ace_bonus_total(cfg, int(state.aces[p]))
    return points + 10 * dead + ace_pen, points, dead + aces


def _end_hand(state: IcebergRummyState, reason: int, rng: np.random.Generator) -> None:
    """Settle the hand (R5.4: R4.6-R4.8), then end the game (R5.6, R6) or deal the next hand (R5.5)."""
    n = state.num_players
    cfg = state.config
    penalties = [hand_penalty(state, p)[0] for p in range(n)]
    results = []
    for p in range(n):
        raw = int(state.hand_points[p]) - penalties[p]
        if cfg.ace_scoring == "multiplier":
            score = raw * (1 + int(state.aces[p]))
        else:
            score = raw + int(state.ace_bonus[p])
        results.append(score)
    state.totals += np.asarray(results, dtype=np.int64)
    state.last_hand = {
        "hand": state.hand_no,
        "reason": END_REASONS[reason],
        "player": state.current,
        "meld_points": state.hand_points.tolist(),
        "ace_bonus": state.ace_bonus.tolist(),
        "aces": state.aces.tolist(),
        "penalties": penalties,
        "scores": results,
    }
    state.hand_points[:] = 0
    state.ace_bonus[:] = 0
    state.selection = []
    state.hand_no += 1
    decided = cfg.single_hand or int(state.totals.max()) >= cfg.target_score
    capped = cfg.max_hands is not None and state.hand_no >= cfg.max_hands
    if decided or capped:
        state.phase = PHASE_OVER
        if decided or cfg.max_hands_end == "decide":
            best = int(state.totals.max())
            state.winners = [p for p in range(n) if int(state.totals[p]) == best]
        else:  # R7.4, I17: the cap stops the game undecided
            state.truncated = True
            state.winners = []
        return
    state.dealer = (state.dealer + 1) % n
    _deal(state, rng)
    _begin_turn(state, rng)


# ---------------------------------------------------------------------------- hidden information
def resample_hidden(state: IcebergRummyState, seat: int, rng: np.random.Generator) -> IcebergRummyState:
    """A state ``seat`` cannot tell apart from ``state``: other hands and the stock re-dealt.

    Kept: everything public (table, aces, hand sizes, stock size, the selection being laid
    by the current player, unless ``allow_clear`` makes it private, I24) and what ``seat``
    knows privately: its hand, the card it last passed while it is known to be in the
    left-hand neighbour's hand (``still_left``, I23), the face-down card it passed if still
    lying there, and that every card it passed this hand (and did not see again) is out of
    the stock (with two decks: one copy of it, since a copy may come round the table to it
    again and be passed twice). Aces are only dealt to the stock or to players who have not yet begun a turn
    this hand (the others placed theirs). Other players' private memories are reset to what
    ``seat`` knows of them; a selection ``seat`` cannot see is dropped (the current player
    has not begun a play as far as ``seat`` can tell).
    """
    new = state.copy()
    n = state.num_players
    if state.phase == PHASE_OVER:
        return new
    left, right = (seat + 1) % n, (seat - 1) % n
    table = np.zeros(M.NUM_CARDS, dtype=np.int64)
    for _, _, cards in state.melds:
        np.add.at(table, list(cards), 1)
    table[_ACE_IDX] += state.table_aces
    own = state.hands[seat].astype(np.int64)
    pool = full_deck_counts(state.config) - own - table
    passed = state.passed[seat].astype(np.int64)
    if state.config.decks > 1:
        # a copy it passed may have come round the table and back to it, and been passed again: a
        # card passed k times is only known to have one copy out of the stock (the first copy of a card
        # it holds may be that one); with one deck every pass is of the one copy
        passed = np.minimum(passed, 1)
    req = np.maximum(0, passed - table - own)

    # slots to fill: [owner] per card; -1 stock, -2 the face-down card
    fixed: dict[int, list[int]] = {q: [] for q in range(n)}
    sizes = hand_sizes(state)
    if state.current != seat and state.selection and not state.config.allow_clear:
        fixed[state.current].extend(state.selection)  # being laid face up: public
        for c in state.selection:
            req[c] = max(0, req[c] - 1)
    x = int(state.still_left[seat])
    if x >= 0 and left != seat:
        if x not in fixed[left]:  # the selection being laid may be that very card
            fixed[left].append(x)
            req[x] = max(0, req[x] - 1)
    pending_fixed = state.pending >= 0 and (state.pending_to - 1) % n == seat
    if pending_fixed:
        pool[state.pending] -= 1
        req[state.pending] = max(0, req[state.pending] - 1)
    for q in range(n):
        for c in fixed[q]:
            pool[c] -= 1
    owners: list[int] = []
    for q in range(n):
        if q != seat:
            owners.extend([q] * (int(sizes[q]) - len(fixed[q])))
    if state.pending >= 0 and not pending_fixed:
        owners.append(-2)
    owners.extend([-1] * state.stock_size)
    owner_arr = np.asarray(owners, dtype=np.int64)
    if int(pool.sum()) != owner_arr.size or (pool < 0).any():
        raise RuntimeError("iceberg_rummy: inconsistent state, cannot resample hidden cards")
    ace_ok_owner = np.array([state.turns_taken[q] == 0 and q != seat for q in range(n)], dtype=bool)
    ace_ok = (owner_arr == -1) | ((owner_arr >= 0) & ace_ok_owner[np.maximum(owner_arr, 0)])
    nonstock = owner_arr != -1

    aces_pool = np.repeat(_ACE_IDX, pool[_ACE_IDX])
    pool_rest = pool.copy()
    pool_rest[_ACE_IDX] = 0
    req_cards = np.repeat(np.arange(M.NUM_CARDS), np.minimum(req, pool_rest))
    pool_rest -= np.bincount(req_cards, minlength=M.NUM_CARDS)
    free_cards = np.repeat(np.arange(M.NUM_CARDS), pool_rest)

    assign = np.full(owner_arr.size, -1, dtype=np.int64)
    for attempt in range(64):
        assign[:] = -1
        ns = np.flatnonzero(nonstock)
        if attempt == 63:  # deterministic fallback: required cards where aces cannot go first
            ns = np.concatenate([ns[~ace_ok[ns]], rng.permutation(ns[ace_ok[ns]])])
            pos = ns[: req_cards.size]
        else:
            pos = rng.choice(ns, size=req_cards.size, replace=False) if req_cards.size else ns[:0]
        assign[pos] = req_cards
        free_ace_slots = np.flatnonzero(ace_ok & (assign < 0))
        if free_ace_slots.size >= aces_pool.size:
            break
    else:  # pragma: no cover - the true deal is always feasible
        raise RuntimeError("iceberg_rummy: could not place the hidden aces")
    if aces_pool.size:
        assign[rng.choice(free_ace_slots, size=aces_pool.size, replace=False)] = aces_pool
    rest_slots = np.flatnonzero(assign < 0)
    assign[rest_slots] = rng.permutation(free_cards)

    for q in range(n):
        if q == seat:
            continue
        new.hands[q] = 0
        np.add.at(new.hands[q], fixed[q], 1)
        np.add.at(new.hands[q], assign[owner_arr == q], 1)
    if state.pending >= 0 and not pending_fixed:
        new.pending = int(assign[owner_arr == -2][0])
    new.stock = assign[owner_arr == -1].astype(np.int64)
    new.stock_pos = 0
    if state.current != seat and state.config.allow_clear:
        new.selection = []  # private under allow_clear (I24): seat cannot tell a play is begun
    # other players' private memories: only what seat knows of them survives
    for q in range(n):
        if q == seat:
            continue
        new.passed[q] = 0
        new.last_passed[q] = -1
        new.last_received[q] = -1
        new.known_left[q] = -1
        new.still_left[q] = -1
    if right != seat:
        new.last_passed[right] = state.last_received[seat]
    if left != seat:
        new.last_received[left] = state.last_passed[seat]
    return new


# ---------------------------------------------------------------------------- validation (no game behaviour)


def _cards(what: str, cards: object) -> list[int]:
    """Card ids of ``cards``: a string of names (``"7S 8S"``) or a list of names and ids (no bools)."""
    values = cards.replace(",", " ").split() if isinstance(cards, str) else _seq(what, cards)
    out = []
    for i, c in enumerate(values):
        if not isinstance(c, str):
            c = _int(f"{what}[{i}]", c, 0, M.NUM_CARDS - 1)
        try:
            out.append(M.parse_card(c))
        except ValueError as exc:
            raise ValueError(f"{what}[{i}]: {exc}") from None
    return out


def check_position(
    config: IcebergRummyConfig,
    *,
    dealer: object = None,
    hands: object = None,
    stock: object = None,
    melds: object = None,
) -> dict[str, Any]:
    """Check the position keys of ``reset(options=...)`` (R7.7) and return them as ``new_game`` arguments.

    Raises ``ValueError`` naming the key: ``dealer`` a seat; ``hands`` one non-empty hand of cards per
    seat (an empty hand would have gone out); ``stock`` cards; ``melds`` at most 48 ``(owner, cards)``
    pairs that are valid new melds of a seat; no more copies of a card in all than the deck holds,
    and enough cards left to deal the hands when they are not given.
    """
    n = config.num_players
    out: dict[str, Any] = {}
    if dealer is not None:
        out["dealer"] = _int("dealer", dealer, 0, n - 1)
    used = np.zeros(M.NUM_CARDS, dtype=np.int64)
    if melds is not None:
        table = []
        for i, item in enumerate(_seq("melds", melds)):
            pair = _seq(f"melds[{i}]", item, 2)
            owner = _int(f"melds[{i}] owner", pair[0], 0, n - 1)
            ids = _cards(f"melds[{i}] cards", pair[1])
            if M.meld_kind(ids) is None:
                raise ValueError(f"melds[{i}]: {M.cards_text(sorted(ids))} is not a valid meld")
            table.append((owner, ids))
            np.add.at(used, ids, 1)
        if len(table) > MAX_MELDS:
            raise ValueError(f"melds: at most {MAX_MELDS} melds fit on the table, got {len(table)}")
        out["melds"] = table
    if hands is not None:
        given = _seq("hands", hands)
        if len(given) != n:
            raise ValueError(f"hands: {len(given)} hands given for {n} players")
        out["hands"] = [_cards(f"hands[{p}]", h) for p, h in enumerate(given)]
        for h in out["hands"]:
            np.add.at(used, h, 1)
    if stock is not None:
        out["stock"] = _cards("stock", stock)
        np.add.at(used, out["stock"], 1)
    deck = full_deck_counts(config)
    if (used > deck).any():
        bad = M.cards_text(np.flatnonzero(used > deck))
        raise ValueError(f"hands/stock/melds: more copies of {bad} than the {config.decks} deck(s) hold")
    if hands is not None:
        for p, h in enumerate(out["hands"]):
            if not h:
                raise ValueError(f"hands[{p}] is empty: a seat with no cards would have gone out")
    elif int(deck.sum() - used.sum()) < HAND_SIZE * n:
        raise ValueError("hands: not enough cards left to deal the hands")
    return out


def check_state(state: IcebergRummyState, config: IcebergRummyConfig) -> None:
    """Raise ``ValueError`` naming the field unless ``state`` is a possible position of ``config``'s game.

    Checks the config (equal to ``config``), every array's dtype, shape and range, the cards against
    the deck (hands, the rest of the stock, table melds, placed aces and a face-down card together
    are the deck while a hand is played, at most the deck once over), valid table melds, aces only
    in the hands of players who have not begun a turn, ace counts and bonuses, the selection (cards of
    the current hand, a prefix of a legal play), seats, the phase and the winners.
    """
    if (
        type(state.config) is not IcebergRummyConfig
        or state.config != config
        or any(
            type(getattr(state.config, f)) is not type(getattr(config, f))
            for f in (
                "num_players",
                "single_hand",
                "target_score",
                "ace_value",
                "max_hands",
                "num_decks",
                "max_hands_end",
            )
        )
    ):
        raise ValueError(f"config {state.config!r} is not this env's config {config!r}")
    n, decks = config.num_players, config.decks
    hands = _array("hands", state.hands, np.int8, (n, M.NUM_CARDS), 0, decks)
    stock = _array(
        "stock",
        state.stock,
        np.int64,
        (state.stock.size,) if isinstance(state.stock, np.ndarray) else (),
        0,
        M.NUM_CARDS - 1,
    )
    stock_pos = _int("stock_pos", state.stock_pos, 0, stock.size)
    melds = _seq("melds", state.melds)
    if len(melds) > MAX_MELDS:
        raise ValueError(f"melds: at most {MAX_MELDS} melds fit on the table, got {len(melds)}")
    counts = hands.sum(axis=0, dtype=np.int64) + np.bincount(stock[stock_pos:], minlength=M.NUM_CARDS)
    for i, meld in enumerate(melds):
        if not isinstance(meld, tuple) or len(meld) != 3 or not isinstance(meld[2], tuple):
            raise ValueError(f"melds[{i}] must be a (kind, owner, cards) tuple, got {meld!r}")
        kind = _int(f"melds[{i}] kind", meld[0], 0, M.NUM_KINDS - 1)
        _int(f"melds[{i}] owner", meld[1], 0, n - 1)
        cards = [_int(f"melds[{i}] cards", c, 0, M.NUM_CARDS - 1) for c in meld[2]]
        if cards != sorted(cards) or M.meld_kind(cards) != kind:
            raise ValueError(f"melds[{i}]: {M.cards_text(cards)} is not a sorted {M.KIND_NAMES[kind]}")
        np.add.at(counts, cards, 1)
    total_aces_ = total_aces(config)
    aces = _array("aces", state.aces, np.int64, (n,), 0, total_aces_)
    table_aces = _array("table_aces", state.table_aces, np.int64, (M.NUM_SUITS,), 0, decks)
    if int(aces.sum()) != int(table_aces.sum()):
        raise ValueError(f"aces: {int(aces.sum())} aces placed by the players but {int(table_aces.sum())} on the table")
    counts[list(M.ACE_IDS)] += table_aces
    phase = _int("phase", state.phase, PHASE_MELD, PHASE_OVER)
    pending = _int("pending", state.pending, -1, M.NUM_CARDS - 1)
    pending_to = _int("pending_to", state.pending_to, -1, n - 1)
    if (pending < 0) != (pending_to < 0):
        raise ValueError(f"pending={pending} and pending_to={pending_to}: a face-down card needs a receiver")
    if pending >= 0:
        counts[pending] += 1
    deck = full_deck_counts(config)
    if (counts > deck).any() or (phase == PHASE_MELD and (counts != deck).any()):
        bad = M.cards_text(np.flatnonzero(counts != deck))
        raise ValueError(f"hands/stock/melds/aces: the cards in play do not match the {decks} deck(s) (at {bad})")
    hand_points = _array("hand_points", state.hand_points, np.int64, (n,), 0, 1 << 40)
    ace_bonus = _array("ace_bonus", state.ace_bonus, np.int64, (n,), 0, 1 << 40)
    _array("totals", state.totals, np.int64, (n,), -(1 << 40), 1 << 40)
    _int("dealer", state.dealer, 0, n - 1)
    current = _int("current", state.current, 0, n - 1)
    turns = _array("turns_taken", state.turns_taken, np.int64, (n,), 0, 1 << 40)
    for p in range(n):
        if turns[p] and hands[p, list(M.ACE_IDS)].any():
            raise ValueError(f"hands[{p}] holds an ace after its turn began (aces are placed at once)")
    _array("passed", state.passed, np.int8, (n, M.NUM_CARDS), 0, 127)
    for key in ("last_passed", "last_received", "known_left", "still_left"):
        _array(key, getattr(state, key), np.int64, (n,), -1, M.NUM_CARDS - 1)
    for key in ("end_after_turn", "truncated"):
        if not isinstance(getattr(state, key), (bool, np.bool_)):
            raise ValueError(f"{key} must be True or False, got {getattr(state, key)!r}")
    hand_no = _int("hand_no", state.hand_no, 0, config.max_hands)
    _int("turn", state.turn, 0)
    if not isinstance(state.last_hand, dict):
        raise ValueError(f"last_hand must be a dict, got {state.last_hand!r}")
    winners = [_int(f"winners[{i}]", p, 0, n - 1) for i, p in enumerate(_seq("winners", state.winners))]
    selection = [
        _int(f"selection[{i}]", c, 0, M.NUM_CARDS - 1) for i, c in enumerate(_seq("selection", state.selection))
    ]
    if state.truncated:
        _check_truncated(state, config, phase, winners)
    if phase == PHASE_OVER:
        if not state.truncated and (not winners or len(set(winners)) != len(winners)):
            raise ValueError(f"winners={winners}: a finished game has distinct winners")
        if selection or (state.end_after_turn and not config.ace_holder_finishes):
            raise ValueError("selection/end_after_turn: set in a finished game")
        if hand_points.any() or ace_bonus.any():
            raise ValueError("hand_points/ace_bonus: a finished game has settled its last hand")
        return
    if winners:
        raise ValueError(f"winners={winners} but the game is not over")
    for p in range(n):
        if int(ace_bonus[p]) != ace_bonus_total(config, int(aces[p])):
            raise ValueError(f"ace_bonus[{p}]={int(ace_bonus[p])} is not the bonus of {int(aces[p])} aces")
    if config.max_hands is not None and hand_no >= config.max_hands:
        raise ValueError(f"hand_no={hand_no}: the game ends after max_hands={config.max_hands} hands")
    if pending >= 0:
        raise ValueError(f"pending={pending}: a passed card is picked up before the next player decides")
    if not turns[current] or not hands[current].any():
        raise ValueError(f"current={current}: the deciding player has begun no turn or holds no cards")
    if state.end_after_turn and not (config.ace_holder_finishes and int(table_aces.sum()) == total_aces_):
        raise ValueError("end_after_turn is set but the last ace is not placed under ace_holder_finishes")
    if not state.end_after_turn and int(table_aces.sum()) >= total_aces_:
        raise ValueError("table_aces: every ace is placed but the hand goes on")
    _check_still_left(state, hands)
    held = np.zeros(M.NUM_CARDS, dtype=np.int64)
    np.add.at(held, selection, 1)
    if selection != sorted(selection) or (held > hands[current]).any():
        raise ValueError(f"selection {selection} is not sorted cards of the current hand")
    an = M.analyse(hands[current].tobytes(), state.table())
    for i, c in enumerate(selection):
        if c not in an.nexts(tuple(selection[:i])):
            raise ValueError(f"selection {M.cards_text(selection)} is not the start of a legal play")


def _check_truncated(state: IcebergRummyState, config: IcebergRummyConfig, phase: int, winners: list[int]) -> None:
    """A game marked ``truncated`` stopped at the hand cap undecided (R7.4, I17)."""
    if (
        phase != PHASE_OVER
        or winners
        or config.single_hand
        or config.max_hands_end != "truncate"
        or config.max_hands is None
        or state.hand_no != config.max_hands
        or int(state.totals.max()) >= config.target_score
    ):
        raise ValueError(
            f"truncated=True: only a full game over after max_hands={config.max_hands} hands "
            f"(max_hands_end='truncate'), with no total at target_score and no winners, is truncated"
        )


def _check_still_left(state: IcebergRummyState, hands: np.ndarray) -> None:
    """``still_left`` (I23) while a hand is played: each seat's last pass, in its left-hand neighbour's hand,
    equal to ``known_left`` where that is known, and equal to it throughout with 3 or more players."""
    n = state.num_players
    for p in range(n):
        x, known = int(state.still_left[p]), int(state.known_left[p])
        if (known >= 0 and x != known) or (n > 2 and x != known):
            raise ValueError(f"still_left[{p}]={x} does not agree with known_left[{p}]={known}")
        if x >= 0 and (x != int(state.last_passed[p]) or not hands[(p + 1) % n, x]):
            raise ValueError(f"still_left[{p}]={x} is not player {p}'s last pass held by its left-hand neighbour")
