"""Cardiceo as a compiled batched engine: ``rules.py``'s transitions as numba functions on one state row.

The state of one game is one ``int8`` row (offsets below, laid out for the largest table of six
seats): ``hands`` (seat x value counts), ``sizes``, ``discarded``, ``dice`` (d4, d8, d12), ``used``
and ``locked`` per die, ``current``, ``phase``, ``winner``, ``turn`` (four bytes, least significant
first: :func:`get_turn`), and the public record of R7.6:
``stuck_dice`` (seat x die) and ``known_missing`` (seat x value). Each function mirrors the
function of ``rules.py`` named in its docstring; the chain of turns that end by themselves (R2.3)
is a loop here where ``rules.py`` recurses. The observation is the env's (``env.py``, layout
``layout_for``), written from the offsets in the config row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.cardiceo import rules
from ice_envs.cardiceo.batched import scalar_deal
from ice_envs.core.compiled import CompiledEngine, GameKernels, below, draw, njit, read_u32, write_u32

MAX_SEATS = 6
NV = rules.NUM_VALUES
#: Offsets of the state row.
HANDS = 0
SIZES = HANDS + MAX_SEATS * NV
DISCARDED = SIZES + MAX_SEATS
DICE = DISCARDED + NV
USED = DICE + 3
LOCKED = USED + 3
CURRENT = LOCKED + 3
PHASE = CURRENT + 1
WINNER = PHASE + 1
TURN = WINNER + 1
STUCK_DICE = TURN + 4
KNOWN_MISSING = STUCK_DICE + MAX_SEATS * 3
WIDTH = KNOWN_MISSING + MAX_SEATS * NV

#: Config row: player count, hand size, forced discard, then the observation offsets.
C_PLAYERS, C_HAND_SIZE, C_FORCED = 0, 1, 2
OBS_PIECES = (
    "hand",
    "discarded",
    "die_values",
    "die_status",
    "totals",
    "hand_sizes",
    "seated",
    "phase",
    "acting",
    "stuck_dice",
    "stuck",
    "known_missing",
)
(
    O_HAND,
    O_DISCARDED,
    O_DIE_VALUES,
    O_DIE_STATUS,
    O_TOTALS,
    O_HAND_SIZES,
    O_SEATED,
    O_PHASE,
    O_ACTING,
    O_STUCK_DICE,
    O_STUCK,
    O_KNOWN_MISSING,
) = range(3, 3 + len(OBS_PIECES))

#: ``SUBSET_DICE[sid, d]``: die ``d`` belongs to subset action ``sid`` (``rules.SUBSETS``).
SUBSET_DICE = np.array([[d in s for d in range(rules.NUM_DICE)] for s in rules.SUBSETS], dtype=np.int32)
FACES = np.array(rules.DIE_FACES, dtype=np.int64)
NUM_SUBSETS = rules.NUM_SUBSETS
END_TURN, KEEP_DICE, REROLL_ALL = rules.END_TURN, rules.KEEP_DICE, rules.REROLL_ALL
NO_PLAY, DISCARD, OVER = rules.PHASE_NO_PLAY_CHOICE, rules.PHASE_DISCARD, rules.PHASE_OVER
DECK = rules.NUM_VALUES * rules.COPIES_PER_VALUE


@njit
def _usable_total(s: np.ndarray, sid: int) -> int:
    """The total of subset ``sid`` if all its dice are free and it is a card value, else 0."""
    total = 0
    for d in range(3):
        if SUBSET_DICE[sid, d]:
            if s[USED + d]:
                return 0
            total += s[DICE + d]
    return total if total <= NV else 0


@njit
def _can_discard(s: np.ndarray) -> bool:
    """``rules.legal_discards`` is not empty."""
    if s[PHASE] != DISCARD:
        return False
    hand = HANDS + s[CURRENT] * NV
    for sid in range(NUM_SUBSETS):
        total = _usable_total(s, sid)
        if total and s[hand + total - 1] > 0:
            return True
    return False


@njit
def get_turn(s: np.ndarray) -> int:
    """The turn counter (four bytes of the row)."""
    return read_u32(s, TURN)


@njit
def _next_turn(s: np.ndarray) -> None:
    write_u32(s, TURN, read_u32(s, TURN) + 1)


@njit
def _roll(s: np.ndarray, rng: np.ndarray, d: int) -> None:
    s[DICE + d] = draw(rng, 1, FACES[d] + 1)


@njit
def _record_stuck(s: np.ndarray) -> None:
    """``rules._record_stuck`` (R7.6)."""
    current = s[CURRENT]
    for sid in range(NUM_SUBSETS):
        total = _usable_total(s, sid)
        if total:
            s[KNOWN_MISSING + current * NV + total - 1] = 1
    if not (s[USED] or s[USED + 1] or s[USED + 2]):
        for d in range(3):
            s[STUCK_DICE + current * 3 + d] = s[DICE + d]


@njit
def _end_turn(s: np.ndarray, rng: np.ndarray, players: int) -> None:
    """``rules._end_turn`` without its recursion (see :func:`_settle`)."""
    s[CURRENT] = (s[CURRENT] + 1) % players
    _next_turn(s)
    passed = s[USED] or s[USED + 1] or s[USED + 2]
    if passed:
        for d in range(3):
            if s[USED + d]:
                _roll(s, rng, d)
        for d in range(3):
            s[LOCKED + d] = 0 if s[USED + d] else 1
            s[USED + d] = 0
        s[PHASE] = DISCARD
    else:
        for d in range(3):
            s[LOCKED + d] = 1
        s[PHASE] = NO_PLAY


@njit
def _settle(s: np.ndarray, rng: np.ndarray, players: int) -> None:
    """``rules._auto_end_if_stuck``: turns end by themselves while no discard is possible (R2.3)."""
    while s[PHASE] == DISCARD and not _can_discard(s):
        _record_stuck(s)
        _end_turn(s, rng, players)


@njit
def new_game(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.new_game``: a shuffled deal, the first player rolls the three dice."""
    players, hand_size = cfg[C_PLAYERS], cfg[C_HAND_SIZE]
    s[:] = 0
    deck = np.empty(DECK, dtype=np.int32)
    for c in range(DECK):
        deck[c] = c // rules.COPIES_PER_VALUE
    for c in range(DECK - 1, 0, -1):  # Fisher-Yates
        j = below(rng, c + 1)
        deck[c], deck[j] = deck[j], deck[c]
    for p in range(players):
        for c in range(hand_size):
            s[HANDS + p * NV + deck[p * hand_size + c]] += 1
        s[SIZES + p] = hand_size
    s[WINNER] = -1
    for d in range(3):
        _roll(s, rng, d)
    s[PHASE] = DISCARD
    _settle(s, rng, players)


@njit
def legal(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray) -> None:
    """``rules.legal_actions`` as a mask."""
    mask[:] = 0
    phase = s[PHASE]
    if phase == NO_PLAY:
        mask[KEEP_DICE] = 1
        mask[REROLL_ALL] = 1
    elif phase == DISCARD:
        hand = HANDS + s[CURRENT] * NV
        any_discard = False
        for sid in range(NUM_SUBSETS):
            total = _usable_total(s, sid)
            if total and s[hand + total - 1] > 0:
                mask[sid] = 1
                any_discard = True
        if any_discard and not cfg[C_FORCED]:
            mask[END_TURN] = 1


@njit
def apply(s: np.ndarray, action: int, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.apply`` (the action is legal)."""
    players = cfg[C_PLAYERS]
    if action == KEEP_DICE or action == REROLL_ALL:
        if action == REROLL_ALL:
            for d in range(3):
                _roll(s, rng, d)
        for d in range(3):
            s[LOCKED + d] = 1 if action == KEEP_DICE else 0
        s[PHASE] = DISCARD
    elif action == END_TURN:
        _end_turn(s, rng, players)
    else:
        total = 0
        for d in range(3):
            if SUBSET_DICE[action, d]:
                total += s[DICE + d]
                s[USED + d] = 1
        current = s[CURRENT]
        s[HANDS + current * NV + total - 1] -= 1
        s[DISCARDED + total - 1] += 1
        s[SIZES + current] -= 1
        if s[SIZES + current] == 0:  # R5.1: emptying the hand wins at once
            s[WINNER] = current
            s[PHASE] = OVER
            return
    _settle(s, rng, players)


@njit
def deciding(s: np.ndarray, cfg: np.ndarray) -> int:
    return s[CURRENT]


@njit
def is_over(s: np.ndarray, cfg: np.ndarray) -> bool:
    return s[PHASE] == OVER


@njit
def scores(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """Cards shed so far per seat (``rules.scores``)."""
    for p in range(cfg[C_PLAYERS]):
        out[p] = float(cfg[C_HAND_SIZE] - s[SIZES + p])


@njit
def outcome(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """+1 for the winner, -1 for the others; zeros while no one has won."""
    winner = s[WINNER]
    for p in range(cfg[C_PLAYERS]):
        out[p] = 0.0 if winner < 0 else (1.0 if p == winner else -1.0)


@njit
def encode(s: np.ndarray, seat: int, cfg: np.ndarray, obs: np.ndarray) -> None:
    """The env's observation of ``seat`` (``env.py``; the caller zeroes ``obs``)."""
    players = cfg[C_PLAYERS]
    size_scale = 1.0 / cfg[C_HAND_SIZE]
    quarter = np.float32(0.25)
    hand = HANDS + seat * NV
    for v in range(NV):
        obs[cfg[O_HAND] + v] = s[hand + v] * quarter
        obs[cfg[O_DISCARDED] + v] = s[DISCARDED + v] * quarter
    for d in range(3):
        obs[cfg[O_DIE_VALUES] + 12 * d + s[DICE + d] - 1] = 1.0
    live = s[PHASE] != OVER
    if live:
        for d in range(3):
            status = 2 if s[USED + d] else (1 if s[LOCKED + d] else 0)
            obs[cfg[O_DIE_STATUS] + 3 * d + status] = 1.0
        for sid in range(NUM_SUBSETS):
            total = _usable_total(s, sid)
            if total:
                obs[cfg[O_TOTALS] + total - 1] = 1.0
        obs[cfg[O_PHASE] + s[PHASE]] = 1.0
        obs[cfg[O_ACTING] + (s[CURRENT] - seat) % players] = 1.0
    for r in range(players):
        q = (seat + r) % players
        obs[cfg[O_HAND_SIZES] + r] = np.float32(s[SIZES + q] * size_scale)
        obs[cfg[O_SEATED] + r] = 1.0
        if s[STUCK_DICE + q * 3] != 0:
            for d in range(3):
                obs[cfg[O_STUCK_DICE] + 36 * r + 12 * d + s[STUCK_DICE + q * 3 + d] - 1] = 1.0
            obs[cfg[O_STUCK] + r] = 1.0
        at, src = cfg[O_KNOWN_MISSING] + r * NV, KNOWN_MISSING + q * NV
        for v in range(NV):  # 0 or 1: copied without a branch
            obs[at + v] = s[src + v]


KERNELS = GameKernels(new_game, legal, apply, deciding, is_over, scores, outcome, encode)


class CardiceoCompiled(CompiledEngine):
    """Compiled Cardiceo (see the module docstring and :mod:`ice_envs.core.compiled`)."""

    game = "cardiceo"
    state_width = WIDTH
    state_dtype = np.int8
    kernels = KERNELS

    def config_row(self) -> np.ndarray:
        lay = self.obs_layout
        head = [self.num_players, int(self.config.hand_size), int(bool(self.config.forced_discard))]
        return np.array(head + [lay.offset(name) for name in OBS_PIECES], dtype=np.int64)

    def state_of(self, i: int) -> rules.CardiceoState:
        s = self.state[i].astype(np.int64)
        p = self.num_players
        return rules.CardiceoState(
            config=self.config,
            hands=s[HANDS : HANDS + p * NV].reshape(p, NV).copy(),
            discarded=s[DISCARDED : DISCARDED + NV].copy(),
            dice=s[DICE : DICE + 3].copy(),
            used=s[USED : USED + 3].astype(bool),
            locked=s[LOCKED : LOCKED + 3].astype(bool),
            current=int(s[CURRENT]),
            phase=int(s[PHASE]),
            winner=int(s[WINNER]),
            turn=int(get_turn(self.state[i])),
            stuck_dice=s[STUCK_DICE : STUCK_DICE + p * 3].reshape(p, 3).copy(),
            known_missing=s[KNOWN_MISSING : KNOWN_MISSING + p * NV].reshape(p, NV).astype(bool),
        )

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:
        return scalar_deal(self.state_of(i))

    def pack_state(self, state: rules.CardiceoState) -> np.ndarray:
        p = self.num_players
        row = np.zeros(WIDTH, dtype=np.int64)
        row[HANDS : HANDS + p * NV] = np.asarray(state.hands).reshape(-1)
        row[SIZES : SIZES + p] = np.asarray(state.hands).sum(axis=1)
        row[DISCARDED : DISCARDED + NV] = state.discarded
        row[DICE : DICE + 3] = state.dice
        row[USED : USED + 3] = state.used
        row[LOCKED : LOCKED + 3] = state.locked
        row[CURRENT], row[PHASE], row[WINNER] = state.current, state.phase, state.winner
        row[TURN : TURN + 4] = [(int(state.turn) >> (8 * b)) & 0xFF for b in range(4)]
        row[STUCK_DICE : STUCK_DICE + p * 3] = np.asarray(state.stuck_dice).reshape(-1)
        row[KNOWN_MISSING : KNOWN_MISSING + p * NV] = np.asarray(state.known_missing).reshape(-1)
        return row.astype(np.uint8).view(np.int8)

    # views of the state rows under the numpy engine's array names (vectorised opponents read them)
    @property
    def hands(self) -> np.ndarray:
        """``(N, P, 15)`` view: cards of each value per seat."""
        n, p = self.num_envs, self.num_players
        return self.state[:, HANDS : HANDS + MAX_SEATS * NV].reshape(n, MAX_SEATS, NV)[:, :p]

    @property
    def dice(self) -> np.ndarray:
        """``(N, 3)`` view: the d4, d8 and d12."""
        return self.state[:, DICE : DICE + 3]

    @property
    def current(self) -> np.ndarray:
        """``(N,)`` view: the seat whose turn it is."""
        return self.state[:, CURRENT]

    @property
    def phase(self) -> np.ndarray:
        """``(N,)`` view: ``rules.PHASE_*``."""
        return self.state[:, PHASE]
