"""CubeMelt as a compiled batched engine: ``rules.py``'s transitions as numba functions on one state row.

The state of one game is one ``int8`` row (offsets below, laid out for the largest table of five
seats): per seat its ability, Love, Adventure and Melt; the six dice (face kinds); ``active``,
``decider``, ``phase``, ``rerolls``, ``pending``, ``ninja_applied``; the resolution in progress
(``plan``: Love gained, Adventure gained, Melt lost per seat) and the Love and Adventure when it
began (``before``, read by ``cat_trigger="actual"``); ``queue_n``, the Love-or-Adventure choices
still queued (they all belong to the active seat: the Dragon once per neighbour hit, or the
Unicorn, so a count says it all); ``last_dice``, ``last_active``; ``winners`` and ``melted`` per
seat; ``turn`` (four bytes, least significant first). The scalar state's ``events`` and
``last_events`` (text rendering only: never observed, never rewarded) are not kept.

Each function mirrors the function of ``rules.py`` named in its docstring and follows the
resolution order of R4.6 (Ninja, Knight, dice, triggered gains, end check, next turn). A roll draws
one number below ``F**k`` (F faces, k dice re-rolled) and reads its base-F digits, as
``rules._roll`` does, so a draw log replays into the scalar engine unchanged. The observation is
the env's (``env.py``, layout ``layout_for``), written from the offsets in the config row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.core.compiled import CompiledEngine, GameKernels, below, draw, njit, read_u32, write_u32
from ice_envs.core.errors import OptionError
from ice_envs.cubemelt import rules

MAX_SEATS = 5
ND = rules.NUM_DICE
GOAL = rules.GOAL
START_MELT = rules.START_MELT
REROLL, NINJA_PHASE, CHOOSE, OVER = rules.PHASE_REROLL, rules.PHASE_NINJA, rules.PHASE_CHOOSE, rules.PHASE_OVER
CAT, DRAGON, KNIGHT, NINJA, UNICORN = rules.CAT, rules.DRAGON, rules.KNIGHT, rules.NINJA, rules.UNICORN
NO_ABILITY = rules.NO_ABILITY
SEAT_BLOCK = 11
FACE_TRACK = np.array(rules.FACE_TRACK, dtype=np.int64)
#: Column of the ``decision`` piece of each ability's Love-or-Adventure choice.
DECISION_SLOT = np.zeros(rules.NUM_ABILITIES, dtype=np.int64)
DECISION_SLOT[[KNIGHT, DRAGON, UNICORN]] = (2, 3, 4)

#: Offsets of the state row.
ABILITIES = 0
LOVE = ABILITIES + MAX_SEATS
ADVENTURE = LOVE + MAX_SEATS
MELT = ADVENTURE + MAX_SEATS
DICE = MELT + MAX_SEATS
ACTIVE = DICE + ND
DECIDER = ACTIVE + 1
PHASE = DECIDER + 1
REROLLS = PHASE + 1
PENDING = REROLLS + 1
NINJA_APPLIED = PENDING + 1
PLAN = NINJA_APPLIED + 1  # seat x (love, adventure, melt)
BEFORE = PLAN + 3 * MAX_SEATS  # seat x (love, adventure)
QUEUE_N = BEFORE + 2 * MAX_SEATS
LAST_DICE = QUEUE_N + 1
LAST_ACTIVE = LAST_DICE + ND
WINNERS = LAST_ACTIVE + 1
MELTED = WINNERS + MAX_SEATS
TURN = MELTED + MAX_SEATS
WIDTH = TURN + 4

#: Config row: options, the faces of a die, then the observation offsets.
(
    C_PLAYERS,
    C_EXPANSION,
    C_FIXED_ABILITIES,
    C_PAID,
    C_CAN_MELT,
    C_NINJA_ALL,
    C_PER_NEIGHBOUR,
    C_CAT_ACTUAL,
    C_NUM_FACES,
) = range(9)
C_ABILITIES = 9  # 5 entries
C_FACES = C_ABILITIES + MAX_SEATS  # 12 entries
OBS_PIECES = ("seats", "dice", "face_counts", "reroll_cost", "paid_left", "decision", "plan", "expansion")
O_SEATS, O_DICE, O_COUNTS, O_REROLL, O_PAID, O_DECISION, O_PLAN, O_EXPANSION = range(
    C_FACES + 12, C_FACES + 12 + len(OBS_PIECES)
)


@njit
def get_turn(s: np.ndarray) -> int:
    """The turn counter (four bytes of the row)."""
    return read_u32(s, TURN)


@njit
def _next_turn(s: np.ndarray) -> None:
    write_u32(s, TURN, read_u32(s, TURN) + 1)


@njit
def _roll(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray, subset: int) -> None:
    """``rules._roll``: one draw below ``F**k`` whose base-F digits are the re-rolled dice's faces."""
    nf = cfg[C_NUM_FACES]
    k = 0
    for i in range(ND):
        if subset >> i & 1:
            k += 1
    code = draw(rng, 0, nf**k)
    for i in range(ND):
        if subset >> i & 1:
            s[DICE + i] = cfg[C_FACES + code % nf]
            code //= nf


@njit
def _count(s: np.ndarray, kind: int) -> int:
    """Dice showing face kind ``kind``."""
    c = 0
    for i in range(ND):
        if s[DICE + i] == kind:
            c += 1
    return c


@njit
def _can_reroll(s: np.ndarray, cfg: np.ndarray) -> bool:
    """``rules.can_reroll`` (R2.2, R2.3, I6)."""
    rerolls = s[REROLLS]
    if rerolls == 0:
        return True
    if rerolls > cfg[C_PAID]:
        return False
    return s[MELT + s[ACTIVE]] > (0 if cfg[C_CAN_MELT] else 1)


@njit
def _neighbours(seat: int, players: int) -> tuple[int, int]:
    """``rules.neighbours``: left and right (the same seat twice at a table of two: count it once)."""
    return (seat + 1) % players, (seat - 1) % players


@njit
def _plan(s: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._plan`` / ``rules.dice_plan`` (R4.1-R4.4, the Ninja R7.5)."""
    players, active = cfg[C_PLAYERS], s[ACTIVE]
    for q in range(3 * MAX_SEATS):
        s[PLAN + q] = 0
    c0, c1, c2, c3 = _count(s, 0), _count(s, 1), _count(s, 2), _count(s, 3)
    top = max(max(c0, c1), max(c2, c3))
    main, tied = -1, 0
    for kind in range(4):
        if (c0, c1, c2, c3)[kind] == top:
            tied += 1
            if main < 0:
                main = kind
    if tied > 1:  # R4.4: no most frequent face, everything to the active player
        for kind in range(4):
            s[PLAN + 3 * active + FACE_TRACK[kind]] += (c0, c1, c2, c3)[kind]
        return
    ninja = s[NINJA_APPLIED] != 0
    left, right = _neighbours(active, players)
    for kind in range(4):
        c = (c0, c1, c2, c3)[kind]
        if c == 0:
            continue
        track = FACE_TRACK[kind]
        to_main = kind == main
        if ninja:
            if to_main:
                s[PLAN + 3 * active + track] += c
            elif cfg[C_NINJA_ALL]:
                for p in range(players):
                    if p != active:
                        s[PLAN + 3 * p + track] += c
            else:
                s[PLAN + 3 * left + track] += c
                if right != left:
                    s[PLAN + 3 * right + track] += c
        elif to_main:
            s[PLAN + 3 * left + track] += c
            if right != left:
                s[PLAN + 3 * right + track] += c
        else:
            s[PLAN + 3 * active + track] += c


@njit
def _gain(s: np.ndarray, seat: int, kind: int, amount: int) -> None:
    at = (LOVE if kind == 0 else ADVENTURE) + seat
    s[at] = min(GOAL, s[at] + amount)


@njit
def _gained(s: np.ndarray, seat: int, kind: int, actual: bool) -> int:
    """What ``seat`` gained of ``kind`` (0 Love, 1 Adventure): planned by the dice, or for real since the
    resolution began (``cat_trigger``, I17)."""
    if actual:
        return s[(LOVE if kind == 0 else ADVENTURE) + seat] - s[BEFORE + 2 * seat + kind]
    return s[PLAN + 3 * seat + kind]


@njit
def _cat_gains(s: np.ndarray, cfg: np.ndarray, cat: int, actual: bool) -> None:
    """``rules._cat_gains`` (R7.2, I17): a neighbour's gain of a kind of 3 or more gives the Cat 1 of it."""
    left, right = _neighbours(cat, cfg[C_PLAYERS])
    for kind in range(2):
        hits = (1 if _gained(s, left, kind, actual) >= 3 else 0) + (
            1 if right != left and _gained(s, right, kind, actual) >= 3 else 0
        )
        if hits:
            _gain(s, cat, kind, hits if cfg[C_PER_NEIGHBOUR] else 1)


@njit
def _trigger_abilities(s: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._trigger_abilities``: Cat, Dragon and Unicorn, in seat order from the active player."""
    players, active = cfg[C_PLAYERS], s[ACTIVE]
    for i in range(players):
        seat = (active + i) % players
        ability = s[ABILITIES + seat]
        if ability == CAT:
            if not cfg[C_CAT_ACTUAL]:
                _cat_gains(s, cfg, seat, False)
        elif ability == DRAGON and seat == active:
            left, right = _neighbours(seat, players)
            hits = (1 if s[PLAN + 3 * left + 2] > 0 else 0) + (
                1 if right != left and s[PLAN + 3 * right + 2] > 0 else 0
            )
            s[QUEUE_N] += hits if cfg[C_PER_NEIGHBOUR] else min(hits, 1)
        elif ability == UNICORN and seat == active:
            if _count(s, 0) and _count(s, 1) and _count(s, 2) and _count(s, 3):
                s[QUEUE_N] += 1


@njit
def _end_check(s: np.ndarray, cfg: np.ndarray) -> bool:
    """``rules._end_check`` (R5.1-R5.4, R6.1-R6.3; I12: 20 Love or Adventure beats a melt)."""
    players = cfg[C_PLAYERS]
    goal = False
    melted = False
    for p in range(players):
        if s[LOVE + p] >= GOAL or s[ADVENTURE + p] >= GOAL:
            goal = True
        if s[MELT + p] <= 0:
            melted = True
    if not goal and not melted:
        return False
    for p in range(players):
        s[MELTED + p] = 1 if s[MELT + p] <= 0 else 0
        s[WINNERS + p] = 0
    if goal:
        for p in range(players):
            if s[LOVE + p] >= GOAL or s[ADVENTURE + p] >= GOAL:
                s[WINNERS + p] = 1
    else:
        best = -1
        for p in range(players):
            if not s[MELTED + p]:
                best = max(best, min(s[LOVE + p], s[ADVENTURE + p]))
        for p in range(players):
            if not s[MELTED + p] and min(s[LOVE + p], s[ADVENTURE + p]) == best:
                s[WINNERS + p] = 1
    s[PHASE] = OVER
    s[DECIDER] = -1
    s[PENDING] = NO_ABILITY
    return True


@njit
def _begin_turn(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._begin_turn``: the next player rolls all six dice."""
    for i in range(ND):
        s[LAST_DICE + i] = s[DICE + i]
    s[LAST_ACTIVE] = s[ACTIVE]
    nxt = (s[ACTIVE] + 1) % cfg[C_PLAYERS]
    s[ACTIVE] = nxt
    s[DECIDER] = nxt
    _next_turn(s)
    s[REROLLS] = 0
    s[NINJA_APPLIED] = 0
    s[PHASE] = REROLL
    _roll(s, rng, cfg, (1 << ND) - 1)


@njit
def _next_choice(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._next_choice``: the queued choice, else the Cat on real gains, the end check, the next turn."""
    if s[QUEUE_N] > 0:
        s[QUEUE_N] -= 1
        s[PHASE] = CHOOSE
        s[PENDING] = s[ABILITIES + s[ACTIVE]]
        s[DECIDER] = s[ACTIVE]
        return
    s[PENDING] = NO_ABILITY
    players = cfg[C_PLAYERS]
    if cfg[C_EXPANSION] and cfg[C_CAT_ACTUAL]:
        for cat in range(players):
            if s[ABILITIES + cat] == CAT:  # rules._cat_on_real_gains
                _cat_gains(s, cfg, cat, True)
    if not _end_check(s, cfg):
        _begin_turn(s, rng, cfg)


@njit
def _apply_dice(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._apply_dice``: the planned effects on every board, then the triggered abilities."""
    for p in range(cfg[C_PLAYERS]):
        s[LOVE + p] = min(GOAL, s[LOVE + p] + s[PLAN + 3 * p])
        s[ADVENTURE + p] = min(GOAL, s[ADVENTURE + p] + s[PLAN + 3 * p + 1])
        s[MELT + p] = max(0, s[MELT + p] - s[PLAN + 3 * p + 2])
    s[QUEUE_N] = 0
    if cfg[C_EXPANSION]:
        _trigger_abilities(s, cfg)
    _next_choice(s, rng, cfg)


@njit
def _after_plan(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._after_plan``: the Knight's conversion comes before the dice are applied (R4.6, R7.4)."""
    if cfg[C_EXPANSION]:
        for knight in range(cfg[C_PLAYERS]):
            if s[ABILITIES + knight] == KNIGHT:
                if s[PLAN + 3 * knight + 2] >= 2:
                    s[PHASE] = CHOOSE
                    s[PENDING] = KNIGHT
                    s[DECIDER] = knight
                    return
                break
    _apply_dice(s, rng, cfg)


@njit
def _start_resolution(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._start_resolution``: the Ninja (active, five or more equal dice) decides first (R7.5)."""
    s[NINJA_APPLIED] = 0
    for p in range(cfg[C_PLAYERS]):
        s[BEFORE + 2 * p] = s[LOVE + p]
        s[BEFORE + 2 * p + 1] = s[ADVENTURE + p]
    _plan(s, cfg)
    if cfg[C_EXPANSION] and s[ABILITIES + s[ACTIVE]] == NINJA:
        if max(max(_count(s, 0), _count(s, 1)), max(_count(s, 2), _count(s, 3))) >= 5:
            s[PHASE] = NINJA_PHASE
            s[DECIDER] = s[ACTIVE]
            return
    _after_plan(s, rng, cfg)


@njit
def new_game(s: np.ndarray, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.new_game``: Melt 20, Love and Adventure 0, abilities dealt, the start player rolls."""
    players = cfg[C_PLAYERS]
    s[:] = 0
    for p in range(MAX_SEATS):
        s[ABILITIES + p] = NO_ABILITY
    if cfg[C_EXPANSION]:
        if cfg[C_FIXED_ABILITIES]:
            for p in range(players):
                s[ABILITIES + p] = cfg[C_ABILITIES + p]
        else:  # a uniformly random distinct ability per seat (rules.new_game: permutation(5)[:n])
            pool = [0, 1, 2, 3, 4]
            for c in range(rules.NUM_ABILITIES - 1, 0, -1):
                j = below(rng, c + 1)
                pool[c], pool[j] = pool[j], pool[c]
            for p in range(players):
                s[ABILITIES + p] = pool[p]
    for p in range(players):
        s[MELT + p] = START_MELT
    s[PENDING] = NO_ABILITY
    s[LAST_ACTIVE] = -1
    s[PHASE] = REROLL
    _roll(s, rng, cfg, (1 << ND) - 1)


@njit
def legal(s: np.ndarray, cfg: np.ndarray, mask: np.ndarray) -> None:
    """``rules.legal_actions`` as a mask."""
    mask[:] = 0
    phase = s[PHASE]
    if phase == REROLL:
        if _can_reroll(s, cfg):
            mask[: rules.NUM_SUBSETS] = 1
        else:
            mask[rules.STOP] = 1
    elif phase == CHOOSE:
        mask[rules.CHOOSE_LOVE] = 1
        mask[rules.CHOOSE_ADVENTURE] = 1
    elif phase == NINJA_PHASE:
        mask[rules.NINJA_APPLY] = 1
        mask[rules.NINJA_DECLINE] = 1


@njit
def apply(s: np.ndarray, action: int, rng: np.ndarray, cfg: np.ndarray) -> None:
    """``rules.apply`` (the action is legal)."""
    phase = s[PHASE]
    if phase == REROLL:
        if action == rules.STOP:
            _start_resolution(s, rng, cfg)
            return
        active = s[ACTIVE]
        if s[REROLLS] >= 1:  # R2.3: a re-roll after the free one costs 1 Melt
            s[MELT + active] -= 1
            if s[MELT + active] <= 0:  # only with reroll_can_melt: melts at once (R5.1, I6)
                _end_check(s, cfg)
                return
        s[REROLLS] += 1
        _roll(s, rng, cfg, action)
        if not _can_reroll(s, cfg):
            _start_resolution(s, rng, cfg)
    elif phase == NINJA_PHASE:
        if action == rules.NINJA_APPLY:
            s[NINJA_APPLIED] = 1
            _plan(s, cfg)
        _after_plan(s, rng, cfg)
    else:  # CHOOSE
        seat, ability = s[DECIDER], s[PENDING]
        amount = 1 if ability == KNIGHT else 2
        _gain(s, seat, 0 if action == rules.CHOOSE_LOVE else 1, amount)
        if ability == KNIGHT:
            s[PLAN + 3 * seat + 2] -= 1
            _apply_dice(s, rng, cfg)
        else:
            _next_choice(s, rng, cfg)


@njit
def deciding(s: np.ndarray, cfg: np.ndarray) -> int:
    return s[DECIDER]


@njit
def is_over(s: np.ndarray, cfg: np.ndarray) -> bool:
    return s[PHASE] == OVER


@njit
def scores(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """Love + Adventure + (Melt - 20) per seat (``rules.scores``, R4.7)."""
    for p in range(cfg[C_PLAYERS]):
        out[p] = float(int(s[LOVE + p]) + int(s[ADVENTURE + p]) + int(s[MELT + p]) - START_MELT)


@njit
def outcome(s: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """+1 for every winner, -1 for the others; zeros while the game goes on (``rules.outcome``)."""
    over = s[PHASE] == OVER
    for p in range(cfg[C_PLAYERS]):
        out[p] = 0.0 if not over else (1.0 if s[WINNERS + p] else -1.0)


@njit
def encode(s: np.ndarray, seat: int, cfg: np.ndarray, obs: np.ndarray) -> None:
    """The env's observation of ``seat`` (``env.py``; the caller zeroes ``obs``)."""
    players = cfg[C_PLAYERS]
    phase = s[PHASE]
    over = phase == OVER
    base = cfg[O_SEATS]
    for r in range(players):
        p = (seat + r) % players
        obs[base] = np.float32(s[LOVE + p] / GOAL)
        obs[base + 1] = np.float32(s[ADVENTURE + p] / GOAL)
        obs[base + 2] = np.float32(s[MELT + p] / START_MELT)
        obs[base + 3] = 1.0
        if not over:
            obs[base + 4] = 1.0 if p == s[ACTIVE] else 0.0
            obs[base + 5] = 1.0 if p == s[DECIDER] else 0.0
        ability = s[ABILITIES + p]
        if ability >= 0:
            obs[base + 6 + ability] = 1.0
        base += SEAT_BLOCK
    at = cfg[O_DICE]
    for i in range(ND):
        face = s[DICE + i]
        obs[at + 4 * i + face] = 1.0
        obs[cfg[O_COUNTS] + face] += np.float32(1.0)
    for kind in range(4):  # the count / 6, rounded once as the env does
        obs[cfg[O_COUNTS] + kind] = np.float32(int(obs[cfg[O_COUNTS] + kind]) / ND)
    if phase == REROLL:
        rerolls = s[REROLLS]
        obs[cfg[O_REROLL] + (0 if rerolls == 0 else 1)] = 1.0
        obs[cfg[O_DECISION]] = 1.0
        paid = cfg[C_PAID]
        if paid:  # rules.paid_rerolls_left: the turn's allowance left, limited by the payer's Melt
            by_count = paid - max(0, rerolls - 1)
            by_melt = s[MELT + s[ACTIVE]] - (0 if cfg[C_CAN_MELT] else 1)
            obs[cfg[O_PAID]] = np.float32(max(0, min(by_count, by_melt)) / paid)
    elif phase == NINJA_PHASE or phase == CHOOSE:
        obs[cfg[O_DECISION] + (1 if phase == NINJA_PHASE else DECISION_SLOT[s[PENDING]])] = 1.0
        base = cfg[O_PLAN]
        for r in range(players):
            p = (seat + r) % players
            for t in range(3):
                obs[base + t] = np.float32(s[PLAN + 3 * p + t] / ND)
            base += 3
    obs[cfg[O_EXPANSION]] = 1.0 if cfg[C_EXPANSION] else 0.0


KERNELS = GameKernels(new_game, legal, apply, deciding, is_over, scores, outcome, encode)


class CubeMeltCompiled(CompiledEngine):
    """Compiled CubeMelt (see the module docstring and :mod:`ice_envs.core.compiled`)."""

    game = "cubemelt"
    state_width = WIDTH
    state_dtype = np.int8
    kernels = KERNELS
    unkept_state_fields = frozenset({"events", "last_events"})

    def config_row(self) -> np.ndarray:
        cfg = self.config
        row = np.zeros(O_EXPANSION + 1, dtype=np.int64)
        row[C_PLAYERS] = self.num_players
        row[C_EXPANSION] = int(cfg.expansion)
        row[C_FIXED_ABILITIES] = int(cfg.abilities is not None)
        row[C_PAID] = cfg.paid_rerolls
        row[C_CAN_MELT] = int(cfg.reroll_can_melt)
        row[C_NINJA_ALL] = int(cfg.ninja_targets == "all")
        row[C_PER_NEIGHBOUR] = int(cfg.per_neighbour)
        row[C_CAT_ACTUAL] = int(cfg.cat_trigger == "actual")
        row[C_NUM_FACES] = len(cfg.faces)
        if cfg.abilities is not None:
            row[C_ABILITIES : C_ABILITIES + self.num_players] = cfg.abilities
        row[C_FACES : C_FACES + len(cfg.faces)] = cfg.faces
        lay = self.obs_layout
        for k, name in enumerate(OBS_PIECES):
            row[O_SEATS + k] = lay.offset(name)
        return row

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:
        """The dealt abilities (when drawn at random) as reset options; the opening roll is replayed."""
        state = self.state_of(i)
        random_abilities = self.config.expansion and self.config.abilities is None
        return ({"abilities": list(state.abilities)} if random_abilities else {}), True

    def pack_state(self, state: rules.CubeMeltState) -> np.ndarray:
        p = self.num_players
        active = int(state.active)
        if any(tuple(entry) != (active, state.abilities[active]) for entry in state.queue):
            raise OptionError(f"cubemelt: a queued choice that is not the active seat's ability: {state.queue!r}")
        row = np.zeros(WIDTH, dtype=np.int64)
        row[ABILITIES : ABILITIES + MAX_SEATS] = NO_ABILITY
        row[ABILITIES : ABILITIES + p] = state.abilities
        row[LOVE : LOVE + p] = state.love
        row[ADVENTURE : ADVENTURE + p] = state.adventure
        row[MELT : MELT + p] = state.melt
        row[DICE : DICE + ND] = state.dice
        row[ACTIVE], row[DECIDER], row[PHASE] = active, state.decider, state.phase
        row[REROLLS], row[PENDING], row[NINJA_APPLIED] = state.rerolls, state.pending, int(state.ninja_applied)
        row[PLAN : PLAN + 3 * p] = np.stack([state.plan_love, state.plan_adventure, state.plan_melt], axis=1).reshape(
            -1
        )
        row[BEFORE : BEFORE + 2 * p] = np.stack([state.love_before, state.adventure_before], axis=1).reshape(-1)
        row[QUEUE_N] = len(state.queue)
        if state.last_active >= 0:
            row[LAST_DICE : LAST_DICE + ND] = state.last_dice
        row[LAST_ACTIVE] = state.last_active
        row[WINNERS + np.asarray(state.winners, dtype=np.int64)] = 1
        row[MELTED + np.asarray(state.melted, dtype=np.int64)] = 1
        row[TURN : TURN + 4] = [(int(state.turn) >> (8 * b)) & 0xFF for b in range(4)]
        return row.astype(np.uint8).view(np.int8)

    def state_of(self, i: int) -> rules.CubeMeltState:
        s = self.state[i].astype(np.int64)
        p = self.num_players
        active = int(s[ACTIVE])
        plan = s[PLAN : PLAN + 3 * p].reshape(p, 3)
        before = s[BEFORE : BEFORE + 2 * p].reshape(p, 2)
        return rules.CubeMeltState(
            config=self.config,
            abilities=s[ABILITIES : ABILITIES + p].tolist(),
            love=s[LOVE : LOVE + p].tolist(),
            adventure=s[ADVENTURE : ADVENTURE + p].tolist(),
            melt=s[MELT : MELT + p].tolist(),
            dice=s[DICE : DICE + ND].tolist(),
            active=active,
            decider=int(s[DECIDER]),
            phase=int(s[PHASE]),
            rerolls=int(s[REROLLS]),
            pending=int(s[PENDING]),
            ninja_applied=bool(s[NINJA_APPLIED]),
            plan_love=plan[:, 0].tolist(),
            plan_adventure=plan[:, 1].tolist(),
            plan_melt=plan[:, 2].tolist(),
            love_before=before[:, 0].tolist(),
            adventure_before=before[:, 1].tolist(),
            queue=[(active, int(s[ABILITIES + active]))] * int(s[QUEUE_N]),
            last_dice=[] if s[LAST_ACTIVE] < 0 else s[LAST_DICE : LAST_DICE + ND].tolist(),
            last_active=int(s[LAST_ACTIVE]),
            winners=np.flatnonzero(s[WINNERS : WINNERS + p]).tolist(),
            melted=np.flatnonzero(s[MELTED : MELTED + p]).tolist(),
            turn=int(get_turn(self.state[i])),
        )
