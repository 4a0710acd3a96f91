"""Cardiceo — the pure game engine (no PettingZoo, no rendering).

Rules (numbered, with every interpretation): ``docs/rules/cardiceo.md``; rule numbers
like R2.3 below refer to that page.

The deck holds four copies of each value 1..15; each player is dealt ``hand_size``
cards (10, or 5 for the short game) and the rest is set aside unseen. Three dice
(d4, d8, d12) move around the table. On a turn the player discards cards whose value
equals the total of one or more of the available dice; the dice used for a discard
are passed to the next player, who re-rolls them; the dice left unused go to the
middle and keep their values for the next player. When the previous player used no
die at all, the next player chooses to keep the three middle dice or re-roll all of
them ("No play" rule, R2.6). First to empty the hand wins (R5.1).

The state also keeps the public record that a player at the table tracks (R7.6): each
seat's dice when it was last unable to play (``stuck_dice``) and the card values each seat
is known to lack (``known_missing``), learnt whenever one of its turns ended by itself.

Actions (integers, the env's action ids; section 3 of the rules page):

====  =========================================================================
id    meaning
====  =========================================================================
0-6   R3.1: discard the card whose value is the total of dice subset ``SUBSETS[id]``
      (d4), (d8), (d12), (d4,d8), (d4,d12), (d8,d12), (d4,d8,d12)
7     R3.2: end the turn now (unused dice go to the middle; house rule I3)
8     R3.3: "No play": keep the three middle dice as they are
9     R3.4: "No play": re-roll all three dice
====  =========================================================================
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import ClassVar, Protocol

import numpy as np

from ice_envs.core.dice import nonempty_subsets
from ice_envs.core.state_copy import copy_state
from ice_envs.core.validation import array as _array
from ice_envs.core.validation import integer as _int
from ice_envs.core.validation import sequence as _seq

DIE_FACES: tuple[int, int, int] = (4, 8, 12)
DIE_NAMES: tuple[str, str, str] = ("d4", "d8", "d12")
NUM_DICE = 3
NUM_VALUES = 15
COPIES_PER_VALUE = 4
SUBSETS: tuple[tuple[int, ...], ...] = nonempty_subsets(NUM_DICE)
NUM_SUBSETS = len(SUBSETS)  # 7
END_TURN = NUM_SUBSETS  # 7
KEEP_DICE = NUM_SUBSETS + 1  # 8
REROLL_ALL = NUM_SUBSETS + 2  # 9
NUM_ACTIONS = NUM_SUBSETS + 3  # 10

#: The hand sizes ``hand_size`` may take (R1.4, R7.1).
HAND_SIZES = (10, 5)

PHASE_NO_PLAY_CHOICE = 0
PHASE_DISCARD = 1
PHASE_OVER = 2
PHASE_NAMES = ("choosing to keep or re-roll the middle dice", "discarding", "over")

_SUBSET_MASKS = np.array([[i in s for i in range(NUM_DICE)] for s in SUBSETS], dtype=bool)


class IntegerRng(Protocol):
    """What the engine needs of a random generator (``np.random.Generator`` fits)."""

    def integers(self, low: int, high: int) -> int: ...


@dataclass(frozen=True)
class CardiceoConfig:
    """Game options.

    Args:
        num_players: 2-6.
        hand_size: cards dealt to each player (10; 5 for the short game).
        forced_discard: if True a player must keep discarding while a discard is
            possible (no voluntary "end turn").
    """

    num_players: int = 2
    hand_size: int = 10
    forced_discard: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 6:
            raise ValueError(f"cardiceo: num_players={self.num_players} is out of range 2-6")
        if self.hand_size not in (5, 10):
            raise ValueError(f"cardiceo: hand_size={self.hand_size!r} must be 10 or 5 (short game)")


@dataclass
class CardiceoState:
    """Full game state; ``hands[p, v-1]`` counts player p's cards of value v."""

    config: CardiceoConfig
    hands: np.ndarray
    discarded: np.ndarray
    dice: np.ndarray = field(default_factory=lambda: np.ones(NUM_DICE, dtype=np.int64))
    #: Dice used for a discard this turn (they go to the next player, who re-rolls them).
    used: np.ndarray = field(default_factory=lambda: np.zeros(NUM_DICE, dtype=bool))
    #: Dice that came from the middle this turn, keeping their values.
    locked: np.ndarray = field(default_factory=lambda: np.zeros(NUM_DICE, dtype=bool))
    current: int = 0
    phase: int = PHASE_DISCARD
    winner: int = -1
    turn: int = 0
    #: ``stuck_dice[p]``: the dice (d4, d8, d12) when seat p was last unable to play (R2.3 with no
    #: die used, R7.6); zeros while p never was. ``None`` at construction means "never" for every seat.
    stuck_dice: np.ndarray = None  # type: ignore[assignment]
    #: ``known_missing[p, v-1]``: seat p is publicly known to hold no card of value v (R7.6): a turn of
    #: p ended by itself while its free dice made v. Hands never grow, so the mark stays true.
    known_missing: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        n = getattr(self.config, "num_players", 0)
        n = n if isinstance(n, int) and n >= 0 else 0  # a bad config is reported by check_state
        if self.stuck_dice is None:
            self.stuck_dice = np.zeros((n, NUM_DICE), dtype=np.int64)
        if self.known_missing is None:
            self.known_missing = np.zeros((n, NUM_VALUES), dtype=bool)

    #: ``copy()`` is a cheap field-wise copy (search agents use it: ``Simulator.copy``).
    FAST_COPY: ClassVar[bool] = True

    def copy(self) -> CardiceoState:
        """An independent copy (:func:`~ice_envs.core.state_copy.copy_state`: the config is shared)."""
        return copy_state(self)


def full_deck_counts() -> np.ndarray:
    """Cards per value 1..15 in the 60-card deck."""
    return np.full(NUM_VALUES, COPIES_PER_VALUE, dtype=np.int64)


def reachable_totals(dice_values: list[int] | tuple[int, ...] | np.ndarray) -> set[int]:
    """Every total that some non-empty subset of ``dice_values`` makes."""
    return set(_reachable(tuple(int(v) for v in dice_values)))


@lru_cache(maxsize=4096)
def _reachable(vals: tuple[int, ...]) -> frozenset[int]:
    return frozenset(sum(vals[i] for i in s) for s in nonempty_subsets(len(vals)))


def new_game(
    config: CardiceoConfig,
    rng: IntegerRng,
    *,
    hands: list[list[int]] | None = None,
    start_player: int = 0,
    dice: list[int] | None = None,
) -> CardiceoState:
    """Deal and start: the start player rolls all three dice (R1.4-R1.6).

    ``hands`` (card values per seat) sets the deal; ``dice`` sets the first roll.
    """
    n = config.num_players
    if hands is None:
        deck = np.repeat(np.arange(1, NUM_VALUES + 1), COPIES_PER_VALUE)
        order = np.asarray(rng.permutation(deck.size)) if hasattr(rng, "permutation") else np.arange(deck.size)
        deck = deck[order]
        hands = [deck[i * config.hand_size : (i + 1) * config.hand_size].tolist() for i in range(n)]
    if len(hands) != n:
        raise ValueError(f"cardiceo: {len(hands)} hands given for {n} players")
    counts = np.zeros((n, NUM_VALUES), dtype=np.int64)
    for p, hand in enumerate(hands):
        for v in hand:
            if not 1 <= int(v) <= NUM_VALUES:
                raise ValueError(f"cardiceo: card value {v!r} is not in 1..{NUM_VALUES}")
            counts[p, int(v) - 1] += 1
    if (counts.sum(axis=0) > COPIES_PER_VALUE).any():
        raise ValueError("cardiceo: the hands hold more than four cards of one value")
    if not 0 <= start_player < n:
        raise ValueError(f"cardiceo: start_player={start_player} is not a seat")
    state = CardiceoState(
        config=config,
        hands=counts,
        discarded=np.zeros(NUM_VALUES, dtype=np.int64),
        current=start_player,
    )
    if dice is not None:
        if len(dice) != NUM_DICE or not all(1 <= int(d) <= f for d, f in zip(dice, DIE_FACES, strict=False)):
            raise ValueError(f"cardiceo: dice {dice!r} must be values of a d4, a d8 and a d12")
        state.dice[:] = dice
    else:
        _roll(state, rng, _ALL_DICE)
    state.phase = PHASE_DISCARD
    _auto_end_if_stuck(state, rng)
    return state


def available(state: CardiceoState) -> np.ndarray:
    """Dice the current player may still use this turn."""
    return ~state.used


def subset_total(state: CardiceoState, subset_id: int) -> int:
    """Total of the dice in subset ``subset_id``."""
    return int(state.dice[_SUBSET_MASKS[subset_id]].sum())


def legal_discards(state: CardiceoState) -> list[int]:
    """Subset ids whose dice are all available and whose total is a card in hand (R3.1)."""
    if state.phase != PHASE_DISCARD:
        return []
    hand = state.hands[state.current].tolist()
    u0, u1, u2 = state.used.tolist()
    free = (not u0) | (not u1) << 1 | (not u2) << 2
    return [sid for sid, card in _candidates(*state.dice.tolist(), free) if hand[card] > 0]


@cache
def _candidates(d4: int, d8: int, d12: int, free: int) -> tuple[tuple[int, int], ...]:
    """``(subset id, card index)`` of the usable subsets (dice all free) whose total is a card value."""
    totals = _subset_totals(d4, d8, d12)
    return tuple((sid, totals[sid] - 1) for sid in _USABLE[free] if totals[sid] <= NUM_VALUES)


@cache
def _subset_totals(d4: int, d8: int, d12: int) -> tuple[int, ...]:
    dice = (d4, d8, d12)
    return tuple(sum(dice[i] for i in subset) for subset in SUBSETS)


#: ``_USABLE[free_bits]``: subset ids whose dice are all free (bit i set ⇔ die i is free).
_USABLE: tuple[tuple[int, ...], ...] = tuple(
    tuple(sid for sid, subset in enumerate(SUBSETS) if all(free >> i & 1 for i in subset)) for free in range(8)
)
#: Roll every die.
_ALL_DICE = (True,) * NUM_DICE
#: The ``free`` bits of a turn with no die used.
_ALL_FREE = (1 << NUM_DICE) - 1


def legal_actions(state: CardiceoState) -> list[int]:
    """Every legal action id for the deciding player (R3.1-R3.4)."""
    if state.phase == PHASE_NO_PLAY_CHOICE:
        return [KEEP_DICE, REROLL_ALL]
    if state.phase != PHASE_DISCARD:
        return []
    discards = legal_discards(state)
    # R3.2 (house rule I3): a voluntary end only while a discard is possible,
    # never with forced_discard (R7.2)
    if discards and not state.config.forced_discard:
        discards.append(END_TURN)
    return discards


def apply(state: CardiceoState, action: int, rng: IntegerRng, check: bool = True) -> CardiceoState:
    """Apply ``action`` for the deciding player (mutates and returns ``state``).

    ``check=False`` skips the legality check (the env has already checked the mask).
    """
    if check and action not in legal_actions(state):
        raise ValueError(f"cardiceo: action {action} is not legal here; legal: {legal_actions(state)}")
    if action == KEEP_DICE or action == REROLL_ALL:
        if action == REROLL_ALL:
            _roll(state, rng, _ALL_DICE)
            state.locked[:] = False
        else:
            state.locked[:] = True
        state.phase = PHASE_DISCARD
    elif action == END_TURN:
        _end_turn(state, rng)
        return state
    else:
        total = _subset_totals(*state.dice.tolist())[action]
        current = state.current
        hands = state.hands
        hands[current, total - 1] -= 1
        state.discarded[total - 1] += 1
        used = state.used
        for i in SUBSETS[action]:
            used[i] = True
        # R5.1: emptying the hand wins at once. The hand is empty only if the card just discarded was the last of its value and no other is left
        if hands[current, total - 1] == 0 and not any(hands[current].tolist()):
            state.winner = state.current
            state.phase = PHASE_OVER
            return state
    _auto_end_if_stuck(state, rng)
    return state


def is_over(state: CardiceoState) -> bool:
    return state.phase == PHASE_OVER


def hand_sizes(state: CardiceoState) -> np.ndarray:
    return state.hands.sum(axis=1)


def outcome(state: CardiceoState) -> np.ndarray:
    """+1 for the winner, -1 for everyone else (zeros while the game goes on); R5.2."""
    out = np.zeros(state.config.num_players)
    if state.winner >= 0:
        out[:] = -1.0
        out[state.winner] = 1.0
    return out


def scores(state: CardiceoState) -> np.ndarray:
    """Cards discarded so far by each player (R4.2)."""
    return (state.config.hand_size - hand_sizes(state)).astype(np.float64)


#: Proposals drawn at once by :func:`_constrained_deal` (one round).
RESAMPLE_PROPOSALS = 32
#: Rounds of :data:`RESAMPLE_PROPOSALS` proposals :func:`_constrained_deal` draws before giving up.
RESAMPLE_ROUNDS = 4
#: Swaps proposed per unseen card by :func:`_walk_deal`, the last resort.
WALK_SWAPS_PER_CARD = 40
#: ``_LOG_COMB[a, k]`` = log C(a, k) for the 60 cards of the deck and hands of up to 10 cards (0 where a < k).
_LOG_COMB = np.array(
    [
        [math.lgamma(a + 1) - math.lgamma(k + 1) - math.lgamma(a - k + 1) if k <= a else 0.0 for k in range(11)]
        for a in range(NUM_VALUES * COPIES_PER_VALUE + 1)
    ]
)


def resample_hidden(state: CardiceoState, seat: int, rng: np.random.Generator) -> CardiceoState:
    """Re-deal the other hands from the cards ``seat`` has not seen (R7.5, I10), consistently with
    the public record (R7.6): no seat receives a value it is known to lack.

    The unseen cards are shuffled and dealt as an unconstrained deal would; when that deal breaks the
    record, :func:`_constrained_deal` draws one that keeps it (near-uniform over such deals), and, should
    all of its proposals fail, a walk of card swaps (:func:`_walk_deal`) from a deal that depends only on
    what ``seat`` knows (:func:`_consistent_deal`) gives it. So no re-deal depends on the hidden arrangement.
    """
    new = state.copy()
    others = [p for p in range(state.config.num_players) if p != seat]
    sizes = [int(state.hands[p].sum()) for p in others]
    unseen = full_deck_counts() - state.discarded - state.hands[seat]
    pool = np.repeat(np.arange(1, NUM_VALUES + 1), unseen)
    rng.shuffle(pool)
    lacks = state.known_missing[others]
    owner = np.repeat(np.arange(len(others)), sizes)  # the hand each of the first cards of ``pool`` goes to
    if lacks[owner, pool[: owner.size] - 1].any():
        hands = _constrained_deal(pool, sizes, lacks, rng)
        if hands is None:
            hands = _walk_deal(unseen, sizes, lacks, rng)
        new.hands[others] = hands
        return new
    start = 0
    for p, k in zip(others, sizes, strict=True):
        new.hands[p] = np.bincount(pool[start : start + k] - 1, minlength=NUM_VALUES)
        start += k
    return new


def _constrained_deal(
    pool: np.ndarray, sizes: list[int], lacks: np.ndarray, rng: np.random.Generator
) -> np.ndarray | None:
    """Hands (``(len(sizes), 15)`` counts) of ``sizes`` cards from the physical cards ``pool`` such that
    hand j holds no value ``lacks[j]`` marks; None when no proposal of :data:`RESAMPLE_ROUNDS` rounds fits.

    A proposal deals the hands in a fixed order (most constrained first), each a uniform choice among
    the cards still free that it may hold; its chance is ``1 / prod C(a_j, k_j)`` (``a_j`` the cards
    hand j could choose from), so ``prod C(a_j, k_j)`` is its weight against the uniform deal. The
    proposals, in order, drive an independence Metropolis-Hastings chain, whose last state is returned.
    """
    m, count = pool.size, RESAMPLE_PROPOSALS
    allowed = ~lacks[:, pool - 1]  # allowed[j, i]: hand j may hold card i
    rows = np.arange(count)[:, None]
    for _ in range(RESAMPLE_ROUNDS):
        owner = np.full((count, m), -1)
        log_weight = np.zeros(count)
        valid = np.ones(count, dtype=bool)
        for j in np.argsort(allowed.sum(axis=1), kind="stable").tolist():
            k = sizes[j]
            if not k:  # the winner's empty hand, once the game is over
                continue
            choosable = allowed[j] & (owner < 0)
            a = choosable.sum(axis=1)
            valid &= a >= k
            log_weight += _LOG_COMB[a, k]
            keys = np.where(choosable, rng.random((count, m)), 2.0)
            owner[rows, np.argpartition(keys, k - 1, axis=1)[:, :k]] = j
        chosen = np.flatnonzero(valid)
        if chosen.size:
            break
    else:
        return None
    current = int(chosen[0])
    for proposal, u in zip(chosen[1:].tolist(), rng.random(chosen.size - 1).tolist(), strict=True):
        if math.log(u) < log_weight[proposal] - log_weight[current]:
            current = proposal
    deal = owner[current]
    return np.stack([np.bincount(pool[deal == j] - 1, minlength=NUM_VALUES) for j in range(len(sizes))])


def _consistent_deal(unseen: np.ndarray, sizes: list[int], lacks: np.ndarray) -> list[list[int]]:
    """A deal of the ``unseen`` cards (counts per value) that keeps the record: ``deal[j][v]`` cards of value
    ``v + 1`` to hand ``j`` (``sizes[j]`` in all, none of a value ``lacks[j]`` marks), the rest set aside
    (the last row).

    A flow of the cards, value by value, from the lowest, into the hands in order, each card placed along the
    shortest augmenting path (breadth first, in a fixed order): cards already placed move on to make room.
    It reads only what the observing seat knows, so the walk of :func:`_walk_deal` starts from the same deal
    whatever the hidden hands are; one exists whenever the state is consistent (the actual deal is one).
    """
    hands = len(sizes)
    room = [*sizes, int(unseen.sum()) - sum(sizes)]
    may_hold = [[not x for x in row] for row in lacks.tolist()] + [[True] * NUM_VALUES]
    deal = [[0] * NUM_VALUES for _ in range(hands + 1)]
    for value, count in enumerate(unseen.tolist()):
        for _ in range(count):
            # breadth-first search from ``value`` for a place with room; a step from a place to a value
            # takes one card of that value out of the place to move it on
            came_from: dict[tuple[str, int], tuple[str, int] | None] = {("v", value): None}
            frontier, goal = [("v", value)], None
            while frontier and goal is None:
                nxt = []
                for kind, i in frontier:
                    targets = (
                        [("p", p) for p in range(hands + 1) if may_hold[p][i]]
                        if kind == "v"
                        else [("v", v) for v in range(NUM_VALUES) if deal[i][v]]
                    )
                    for node in targets:
                        if node in came_from:
                            continue
                        came_from[node] = (kind, i)
                        if node[0] == "p" and room[node[1]]:
                            goal = node
                            break
                        nxt.append(node)
                    if goal is not None:
                        break
                frontier = nxt
            if goal is None:
                raise ValueError("the record admits no deal of the unseen cards (inconsistent state)")
            room[goal[1]] -= 1
            node = goal
            while came_from[node] is not None:
                prev = came_from[node]
                if node[0] == "p":  # the card of value prev[1] goes to place node[1]
                    deal[node[1]][prev[1]] += 1
                else:  # a card of value node[1] leaves place prev[1]
                    deal[prev[1]][node[1]] -= 1
                node = prev
    return deal


def _walk_deal(unseen: np.ndarray, sizes: list[int], lacks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Hands (``(len(sizes), 15)`` counts) after a random walk of card swaps that keeps the record.

    The walk starts from :func:`_consistent_deal` (which depends only on what the observing seat knows)
    and proposes ``WALK_SWAPS_PER_CARD`` swaps per unseen card of two cards in different places (a hand or
    the set-aside cards), made when both cards may go where they land.
    """
    start = _consistent_deal(unseen, sizes, lacks)
    values = np.arange(1, NUM_VALUES + 1)
    cards = np.concatenate([np.repeat(values, row) for row in start]).tolist()
    place = np.repeat(np.arange(len(start)), [sum(row) for row in start]).tolist()  # last place: set aside
    ok = [[True] + [not x for x in row] for row in lacks.tolist()] + [[True] * (NUM_VALUES + 1)]
    m = len(cards)
    for i, j in rng.integers(0, max(m, 1), size=(WALK_SWAPS_PER_CARD * m, 2)).tolist():
        a, b = place[i], place[j]
        if a != b and ok[a][cards[j]] and ok[b][cards[i]]:
            cards[i], cards[j] = cards[j], cards[i]
    hands = np.zeros((len(sizes), NUM_VALUES), dtype=np.int64)
    for value, where in zip(cards, place, strict=True):
        if where < len(sizes):
            hands[where, value - 1] += 1
    return hands


# ---------------------------------------------------------------------------- internals
def _roll(state: CardiceoState, rng: IntegerRng, which: Sequence[bool] | np.ndarray) -> None:
    dice = state.dice
    for i in range(NUM_DICE):
        if which[i]:
            dice[i] = int(rng.integers(1, DIE_FACES[i] + 1))


def _end_turn(state: CardiceoState, rng: IntegerRng) -> None:
    """Unused dice go to the middle; the next player starts a turn (R2.4-R2.6)."""
    passed = state.used.tolist()
    state.current = (state.current + 1) % state.config.num_players
    state.turn += 1
    state.used[:] = False
    if any(passed):
        _roll(state, rng, passed)
        state.locked[:] = [not p for p in passed]
        state.phase = PHASE_DISCARD
        _auto_end_if_stuck(state, rng)
    else:
        state.locked[:] = True
        state.phase = PHASE_NO_PLAY_CHOICE


def _auto_end_if_stuck(state: CardiceoState, rng: IntegerRng) -> None:
    """R2.3: the turn ends by itself once no discard is possible (I3); the table takes note (R7.6)."""
    if state.phase == PHASE_DISCARD and not legal_discards(state):
        _record_stuck(state)
        _end_turn(state, rng)


def _record_stuck(state: CardiceoState) -> None:
    """R7.6: the current seat's turn ends by itself, so it holds no value its free dice make; with no
    die used at all it was unable to play (R2.6), and its dice are its last "stuck" dice."""
    current = state.current
    d4, d8, d12 = state.dice.tolist()
    u0, u1, u2 = state.used.tolist()
    free = (not u0) | (not u1) << 1 | (not u2) << 2
    missing = state.known_missing[current]
    for card in _made_cards(d4, d8, d12, free):
        missing[card] = True
    if free == _ALL_FREE:
        state.stuck_dice[current] = state.dice


@cache
def _made_cards(d4: int, d8: int, d12: int, free: int) -> tuple[int, ...]:
    """Card indices (value - 1) of the totals 1..15 that the free dice (bits of ``free``) make."""
    return tuple(sorted({card for _, card in _candidates(d4, d8, d12, free)}))


def made_values(dice: Sequence[int] | np.ndarray) -> list[int]:
    """The card values 1..15 that some non-empty subset of all three ``dice`` makes."""
    d4, d8, d12 = (int(d) for d in dice)
    return [card + 1 for card in _made_cards(d4, d8, d12, _ALL_FREE)]


# ---------------------------------------------------------------------------- validation (no game behaviour)


def check_config(config: object, expected: CardiceoConfig) -> None:
    """``config`` must be ``expected`` (same type and field types, equal values)."""
    if type(config) is not CardiceoConfig or any(
        type(getattr(config, f)) is not type(getattr(expected, f)) or getattr(config, f) != getattr(expected, f)
        for f in ("num_players", "hand_size", "forced_discard")
    ):
        raise ValueError(f"config {config!r} is not this env's config {expected!r}")


def check_position(
    config: CardiceoConfig, *, hands: object = None, dice: object = None, start_player: object = 0
) -> dict[str, object]:
    """Check the position keys of ``reset(options=...)`` (R7.3) and return them as ``new_game`` arguments.

    Raises ``ValueError`` naming the key: ``hands`` must give one hand per seat, each of 1 to
    ``hand_size`` card values in 1..15 (an empty hand would have won already), at most four of a value
    in all; ``dice`` the values of a d4, a d8 and a d12; ``start_player`` a seat.
    """
    n = config.num_players
    out: dict[str, object] = {"start_player": _int("start_player", start_player, 0, n - 1)}
    if hands is not None:
        given = _seq("hands", hands)
        if len(given) != n:
            raise ValueError(f"hands: {len(given)} hands given for {n} players")
        counts = np.zeros(NUM_VALUES, dtype=np.int64)
        out_hands = []
        for p, hand in enumerate(given):
            values = _seq(f"hands[{p}]", hand)
            if not values:
                raise ValueError(f"hands[{p}] is empty: a seat with no cards would have won already")
            if len(values) > config.hand_size:
                raise ValueError(f"hands[{p}] holds {len(values)} cards, more than hand_size={config.hand_size}")
            for i, v in enumerate(values):
                v = _int(f"hands[{p}][{i}]", v)
                if not 1 <= v <= NUM_VALUES:
                    raise ValueError(f"hands[{p}][{i}]: card value {v} is not in 1..{NUM_VALUES}")
                counts[v - 1] += 1
                values[i] = v
            out_hands.append(values)
        if (counts > COPIES_PER_VALUE).any():
            bad = [v + 1 for v in np.flatnonzero(counts > COPIES_PER_VALUE).tolist()]
            raise ValueError(f"hands: the hands hold more than four cards of value(s) {bad} (the deck has four)")
        out["hands"] = out_hands
    if dice is not None:
        values = _seq("dice", dice, NUM_DICE)
        out["dice"] = [
            _int(f"dice[{i}] ({DIE_NAMES[i]})", v, 1, faces) for i, (v, faces) in enumerate(zip(values, DIE_FACES))
        ]
    return out


def check_state(state: CardiceoState, config: CardiceoConfig) -> None:
    """Raise ``ValueError`` naming the field unless ``state`` is a possible position of ``config``'s game.

    Checks every field's type, dtype, shape and range, the cards against the deck (hands plus
    discards at most four of a value), hand sizes against ``hand_size``, the phase and the seat
    indices, what each phase implies (a winner only once over, with an empty hand; no empty hand
    before; the "No play" choice with every die in the middle) and the public record (R7.6): stuck
    dice are dice values, their totals are marked missing, and no hand holds a value marked missing.
    """
    check_config(state.config, config)
    n = config.num_players
    hands = _array("hands", state.hands, np.int64, (n, NUM_VALUES))
    discarded = _array("discarded", state.discarded, np.int64, (NUM_VALUES,))
    if (hands < 0).any():
        raise ValueError("hands holds a negative count")
    if (discarded < 0).any():
        raise ValueError("discarded holds a negative count")
    if (hands.sum(axis=0) + discarded > COPIES_PER_VALUE).any():
        raise ValueError("hands and discarded hold more than the four cards of a value the deck has")
    sizes = hands.sum(axis=1)
    if (sizes > config.hand_size).any():
        raise ValueError(f"hands: a hand holds more than hand_size={config.hand_size} cards")
    dice = _array("dice", state.dice, np.int64, (NUM_DICE,))
    for i, faces in enumerate(DIE_FACES):
        _int(f"dice[{i}] ({DIE_NAMES[i]})", dice[i], 1, faces)
    used = _array("used", state.used, np.bool_, (NUM_DICE,))
    locked = _array("locked", state.locked, np.bool_, (NUM_DICE,))
    current = _int("current", state.current, 0, n - 1)
    phase = _int("phase", state.phase, PHASE_NO_PLAY_CHOICE, PHASE_OVER)
    winner = _int("winner", state.winner, -1, n - 1)
    _int("turn", state.turn, 0)
    _check_record(state, hands)
    if phase == PHASE_OVER:
        if winner != current or sizes[winner] != 0:
            raise ValueError(
                f"winner={winner}: the game is over but the winner is not the current seat with an empty hand"
            )
    else:
        if winner != -1:
            raise ValueError(f"winner={winner} but the game is not over")
        if (sizes == 0).any():
            raise ValueError("hands: a seat has no cards but the game is not over (it would have won)")
        if phase == PHASE_NO_PLAY_CHOICE and (used.any() or not locked.all()):
            raise ValueError('used/locked: the "No play" choice needs all three dice unused in the middle')
        if phase == PHASE_DISCARD and used.all():
            raise ValueError("used: every die is used but the turn goes on")


def _check_record(state: CardiceoState, hands: np.ndarray) -> None:
    """The public record of R7.6 (``stuck_dice``, ``known_missing``) against itself and the hands."""
    n = state.config.num_players
    stuck = _array("stuck_dice", state.stuck_dice, np.int64, (n, NUM_DICE))
    missing = _array("known_missing", state.known_missing, np.bool_, (n, NUM_VALUES))
    for p, row in enumerate(stuck.tolist()):
        if not any(row):
            continue
        for i, faces in enumerate(DIE_FACES):
            _int(f"stuck_dice[{p}][{i}] ({DIE_NAMES[i]})", row[i], 1, faces)
        unmarked = [v for v in made_values(row) if not missing[p, v - 1]]
        if unmarked:
            raise ValueError(f"known_missing[{p}]: seat {p} was stuck with dice {row} but {unmarked} are not marked")
    held = np.argwhere(missing & (hands > 0))
    if held.size:
        p, v = held[0].tolist()
        raise ValueError(f"known_missing[{p}]: seat {p} holds a {v + 1}, a value it is known to lack")
