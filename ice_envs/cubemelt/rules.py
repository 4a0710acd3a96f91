"""CubeMelt: Getting Dicey — the pure game engine (no PettingZoo, no rendering).

Rules (numbered, with every interpretation): ``docs/rules/cubemelt.md``; rule numbers
like R4.2 below refer to that page.

Every player has three tracks: Melt (starts at 20), Love and Adventure (start at 0).
On a turn the active player rolls six dice, may re-roll any subset once for free, may
then pay 1 Melt for one more re-roll of any subset, and resolves the final dice: a
unique most frequent face applies its effect, once per die showing it, to the left and
right neighbours (once in a two-player game); every other die applies to the active
player. When several faces tie for most frequent, every die applies to the active
player. Heart gives 1 Love, Star 1 Adventure, Sad and Drooping each 1 Melt loss (two
different faces for counting, one effect). Reaching 20 Love or 20 Adventure wins at
once (several players may win together); otherwise a Melt token at 0 ends the game and
the other players score min(Love, Adventure), the highest winning (ties win together).

Expansion: one distinct ability per player (Cat, Dragon, Knight, Ninja, Unicorn). Each
"Love or Adventure" choice and the Ninja's "may apply" is a decision of the ability's
owner: a state whose ``decider`` is that seat, even when it is not the active one.

Order of one resolution (``docs/rules/cubemelt.md`` R4.6):

1. Ninja (the active player's own, five or more equal dice): apply or decline.
2. The dice effects are planned per seat; the Knight whose planned Melt loss is 2 or
   more converts one of those Melt into Love or Adventure (its owner chooses).
3. All dice effects are applied at once.
4. Triggered gains, in seat order from the active player clockwise (to the left):
   Cat (automatic, same kind), Dragon and Unicorn (the active player's, each a choice).
   With ``cat_trigger="actual"`` the Cat comes last instead, once every choice is made: it
   reads its neighbours' real gains over the whole resolution.
5. End check: 20 Love or Adventure wins; otherwise a melted token ends the game.

Actions (integers, the env's action ids; section 3 of the rules page, R3.1-R3.4):

=======  ======================================================================
id       meaning
=======  ======================================================================
0        stop re-rolling: resolve the dice as they are
1-63     re-roll exactly the dice whose bits are set (bit i = die i); the first
         re-roll of a turn is free, a later one costs the active player 1 Melt
64       take Love (Knight conversion, Dragon or Unicorn gain)
65       take Adventure (same choices)
66       Ninja: apply the five-or-more face to your own board
67       Ninja: decline (resolve normally)
=======  ======================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Protocol

import numpy as np

from ice_envs.core.state_copy import copy_state
from ice_envs.core.validation import flag as _flag
from ice_envs.core.validation import integer as _int
from ice_envs.core.validation import sequence as _seq

# ---------------------------------------------------------------------------- faces
HEART, STAR, SAD, DROOPING = 0, 1, 2, 3
NUM_KINDS = 4
FACE_NAMES: tuple[str, ...] = ("heart", "star", "sad", "drooping")
FACE_LABELS: tuple[str, ...] = ("Heart", "Star", "Sad", "Drooping")
#: The six faces of every CubeMelt die (``docs/rules/cubemelt.md`` R1.3, house rule I2; an option).
DEFAULT_FACES: tuple[str, ...] = ("heart", "heart", "star", "star", "sad", "drooping")
NUM_DICE = 6

# ---------------------------------------------------------------------------- tracks
LOVE, ADVENTURE, MELT = 0, 1, 2
TRACK_NAMES: tuple[str, ...] = ("Love", "Adventure", "Melt")
START_MELT = 20
GOAL = 20
#: Track moved by each face kind (Heart -> Love, Star -> Adventure, Sad/Drooping -> Melt).
FACE_TRACK: tuple[int, ...] = (LOVE, ADVENTURE, MELT, MELT)

# ---------------------------------------------------------------------------- abilities
CAT, DRAGON, KNIGHT, NINJA, UNICORN = 0, 1, 2, 3, 4
NUM_ABILITIES = 5
ABILITY_NAMES: tuple[str, ...] = ("cat", "dragon", "knight", "ninja", "unicorn")
NO_ABILITY = -1
NINJA_TARGETS: tuple[str, ...] = ("neighbours", "all")
#: What the Cat reads (option ``cat_trigger``, I17): a neighbour's planned dice gain of the roll
#: (before the cap at 20), or its real gain over the whole resolution (dice, its own ability, the cap).
CAT_TRIGGERS: tuple[str, ...] = ("planned", "actual")
#: The most paid re-rolls a turn may allow (option ``paid_rerolls``, I6).
MAX_PAID_REROLLS = 20

# ---------------------------------------------------------------------------- actions
STOP = 0
NUM_SUBSETS = 1 << NUM_DICE  # 64: ids 0..63 are re-roll bitmasks, 0 = stop
CHOOSE_LOVE = 64
CHOOSE_ADVENTURE = 65
NINJA_APPLY = 66
NINJA_DECLINE = 67
NUM_ACTIONS = 68

# ---------------------------------------------------------------------------- phases
PHASE_REROLL = 0  # the active player picks dice to re-roll, or stops
PHASE_NINJA = 1  # the Ninja (active) decides to apply its ability or not
PHASE_CHOOSE = 2  # ``pending``'s owner chooses Love or Adventure
PHASE_OVER = 3
PHASE_NAMES = ("re-rolling", "Ninja decision", "Love or Adventure choice", "over")

# Event sources recorded in ``CubeMeltState.events`` (besides ability ids 0-4).
SOURCE_DICE = -1
SOURCE_PAID = -2

_REROLL_IDS: tuple[int, ...] = tuple(range(NUM_SUBSETS))
_CHOICE_IDS: tuple[int, ...] = (CHOOSE_LOVE, CHOOSE_ADVENTURE)
_NINJA_IDS: tuple[int, ...] = (NINJA_APPLY, NINJA_DECLINE)
_SUBSET_DICE: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(NUM_DICE) if m >> i & 1) for m in range(NUM_SUBSETS)
)


class IntegerRng(Protocol):
    """What the engine needs of a random generator (``np.random.Generator`` fits)."""

    def integers(self, low: int, high: int, size: int | None = None) -> Any: ...


def _face_id(value: Any, what: str) -> int:
    if isinstance(value, str) and value.lower() in FACE_NAMES:
        return FACE_NAMES.index(value.lower())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < NUM_KINDS:
        return int(value)
    raise ValueError(f"cubemelt: {what} {value!r} is not a face; faces are {list(FACE_NAMES)}")


def _ability_id(value: Any) -> int:
    if isinstance(value, str) and value.lower() in ABILITY_NAMES:
        return ABILITY_NAMES.index(value.lower())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < NUM_ABILITIES:
        return int(value)
    raise ValueError(f"cubemelt: abilities: {value!r} is not an ability; abilities are {list(ABILITY_NAMES)}")


def parse_abilities(values: Sequence[Any], num_players: int) -> tuple[int, ...]:
    """Ability ids of ``values`` (names or ids): one per seat, all distinct."""
    if isinstance(values, str) or not hasattr(values, "__len__") or len(values) != num_players:
        raise ValueError(f"cubemelt: abilities must name one ability per player ({num_players}), got {values!r}")
    ids = tuple(_ability_id(v) for v in values)
    if len(set(ids)) != len(ids):
        raise ValueError(f"cubemelt: abilities must be distinct, got {values!r}")
    return ids


@dataclass(frozen=True)
class CubeMeltConfig:
    """Game options.

    Args:
        num_players: 2-5.
        faces: the faces of every die, as names (``"heart"``, ``"star"``, ``"sad"``,
            ``"drooping"``) or ids; default Heart, Heart, Star, Star, Sad, Drooping.
        expansion: play the expansion rules (one ability per player).
        abilities: one distinct ability per seat (names or ids) for every game; ``None``
            deals them at random from the env's generator at each reset (expansion only).
        paid_rerolls: how many paid re-rolls a turn allows (house rule: 1; R2.3, I6).
        reroll_can_melt: allow paying the last Melt for a re-roll (it melts the payer
            and ends the game at once); house rule: not allowed (R2.3, I6).
        ninja_targets: where the Ninja sends the remaining dice: ``"all"`` (every other
            player, the rulebook's "other players"; default since v1) or ``"neighbours"``
            (the left and right players, who would have received the most frequent face;
            the v0 default) (I20).
        per_neighbour: the Cat and the Dragon trigger once for each neighbour meeting
            the condition instead of once per resolution (I17, I18).
        cat_trigger: what makes the Cat gain (I17): ``"planned"`` (a neighbour's dice
            gain of the roll, 3 or more of a kind, counted before the cap at 20) or
            ``"actual"`` (a neighbour's real gain of a kind over the whole resolution —
            dice, its own ability, after the cap — checked once every choice is made).
    """

    num_players: int = 2
    faces: tuple[int, ...] = DEFAULT_FACES  # type: ignore[assignment]
    expansion: bool = False
    abilities: tuple[int, ...] | None = None
    paid_rerolls: int = 1
    reroll_can_melt: bool = False
    ninja_targets: str = "all"
    per_neighbour: bool = False
    cat_trigger: str = "planned"

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, (int, np.integer)) or not 2 <= self.num_players <= 5:
            raise ValueError(f"cubemelt: num_players={self.num_players} is out of range 2-5")
        if isinstance(self.faces, str) or not hasattr(self.faces, "__len__") or not 1 <= len(self.faces) <= 12:
            raise ValueError(f"cubemelt: faces must list 1-12 faces of a die, got {self.faces!r}")
        object.__setattr__(self, "faces", tuple(_face_id(f, "faces:") for f in self.faces))
        if self.abilities is not None:
            if not self.expansion:
                raise ValueError("cubemelt: abilities are given but expansion is off (pass expansion=True)")
            object.__setattr__(self, "abilities", parse_abilities(self.abilities, self.num_players))
        if not isinstance(self.paid_rerolls, (int, np.integer)) or isinstance(self.paid_rerolls, bool):
            raise ValueError(f"cubemelt: paid_rerolls must be an integer >= 0, got {self.paid_rerolls!r}")
        if not 0 <= self.paid_rerolls <= MAX_PAID_REROLLS:
            raise ValueError(f"cubemelt: paid_rerolls={self.paid_rerolls} must be in 0..{MAX_PAID_REROLLS}")
        if self.ninja_targets not in NINJA_TARGETS:
            raise ValueError(f"cubemelt: ninja_targets={self.ninja_targets!r} is not one of {list(NINJA_TARGETS)}")
        if self.cat_trigger not in CAT_TRIGGERS:
            raise ValueError(f"cubemelt: cat_trigger={self.cat_trigger!r} is not one of {list(CAT_TRIGGERS)}")
        object.__setattr__(self, "expansion", bool(self.expansion))
        object.__setattr__(self, "reroll_can_melt", bool(self.reroll_can_melt))
        object.__setattr__(self, "per_neighbour", bool(self.per_neighbour))


@dataclass
class CubeMeltState:
    """Full game state (everything in it is public)."""

    config: CubeMeltConfig
    #: Ability id per seat (``NO_ABILITY`` in the base game).
    abilities: list[int]
    love: list[int]
    adventure: list[int]
    melt: list[int]
    #: Face kind (HEART, STAR, SAD, DROOPING) shown by each of the six dice.
    dice: list[int] = field(default_factory=lambda: [HEART] * NUM_DICE)
    active: int = 0
    #: Seat that must decide now (may differ from ``active``); -1 once over.
    decider: int = 0
    phase: int = PHASE_REROLL
    #: Re-rolls taken this turn (the first is free, each later one cost 1 Melt).
    rerolls: int = 0
    #: Ability whose Love-or-Adventure choice is pending (PHASE_CHOOSE).
    pending: int = NO_ABILITY
    ninja_applied: bool = False
    #: Dice effects of the resolution in progress per seat (gains, and Melt lost >= 0).
    plan_love: list[int] = field(default_factory=list)
    plan_adventure: list[int] = field(default_factory=list)
    plan_melt: list[int] = field(default_factory=list)
    #: Love and Adventure per seat when the resolution in progress (or the last one) began:
    #: the Cat's ``cat_trigger="actual"`` reads its neighbours' real gains against them.
    love_before: list[int] = field(default_factory=list)
    adventure_before: list[int] = field(default_factory=list)
    #: Love-or-Adventure choices still to make after the dice are applied: (seat, ability).
    queue: list[tuple[int, int]] = field(default_factory=list)
    #: This turn's events, and the previous turn's: (seat, source, love, adventure, melt);
    #: source is SOURCE_DICE, SOURCE_PAID or an ability id.
    events: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    last_events: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    last_dice: list[int] = field(default_factory=list)
    last_active: int = -1
    winners: list[int] = field(default_factory=list)
    melted: list[int] = field(default_factory=list)
    turn: int = 0

    #: ``copy()`` is a cheap field-wise copy (search agents use it: ``Simulator.copy``).
    FAST_COPY: ClassVar[bool] = True

    def copy(self) -> CubeMeltState:
        """An independent copy (:func:`~ice_envs.core.state_copy.copy_state`: the config is shared)."""
        return copy_state(self)


class Delta(NamedTuple):
    """Change of one player's tracks (Melt negative when melting)."""

    love: int = 0
    adventure: int = 0
    melt: int = 0


# ---------------------------------------------------------------------------- dice resolution
def neighbours(seat: int, num_players: int) -> tuple[int, ...]:
    """The left (next clockwise) and right players of ``seat``; one seat with two players (R1.6)."""
    left = (seat + 1) % num_players
    right = (seat - 1) % num_players
    return (left,) if left == right else (left, right)


def face_counts(dice: Sequence[int]) -> list[int]:
    """How many dice show each face kind (Heart, Star, Sad, Drooping)."""
    counts = [0, 0, 0, 0]
    for d in dice:
        counts[d] += 1
    return counts


def most_frequent(dice: Sequence[int]) -> int | None:
    """The unique most frequent face of ``dice``, or ``None`` when several tie."""
    counts = face_counts(dice)
    top = max(counts)
    return counts.index(top) if counts.count(top) == 1 else None


def dice_plan(
    dice: Sequence[int],
    num_players: int,
    active: int,
    *,
    ninja: bool = False,
    ninja_all: bool = False,
) -> tuple[list[int], list[int], list[int]]:
    """Love gained, Adventure gained and Melt lost per seat from the final ``dice`` (R4.1-R4.4).

    ``ninja``: the active player applies the most frequent face to itself and sends the
    other dice to its neighbours (``ninja_all``: to every other player).
    """
    plan = ([0] * num_players, [0] * num_players, [0] * num_players)
    counts = face_counts(dice)
    top = max(counts)
    if counts.count(top) > 1:  # R4.4: no most frequent face, everything to the active player
        for kind in range(NUM_KINDS):
            plan[FACE_TRACK[kind]][active] += counts[kind]
        return plan
    main = counts.index(top)
    near = neighbours(active, num_players)
    if ninja:
        main_targets: Sequence[int] = (active,)
        rest_targets: Sequence[int] = [p for p in range(num_players) if p != active] if ninja_all else near
    else:
        main_targets, rest_targets = near, (active,)
    for kind in range(NUM_KINDS):
        if counts[kind]:
            track = plan[FACE_TRACK[kind]]
            for p in main_targets if kind == main else rest_targets:
                track[p] += counts[kind]
    return plan


def resolve_dice(
    dice: Sequence[int | str],
    num_players: int,
    active: int = 0,
    *,
    ninja: bool = False,
    ninja_targets: str = "all",
) -> list[Delta]:
    """Per-player track deltas of a final roll (base rules R4.1-R4.4; Ninja R7.5 if ``ninja``).

    >>> resolve_dice(["heart"] * 4 + ["star"] * 2, 3)
    [Delta(love=0, adventure=2, melt=0), Delta(love=4, adventure=0, melt=0), Delta(love=4, adventure=0, melt=0)]
    """
    if len(dice) != NUM_DICE:
        raise ValueError(f"cubemelt: a roll has {NUM_DICE} dice, got {len(dice)}")
    kinds = [_face_id(d, "die") for d in dice]
    love, adventure, melt = dice_plan(kinds, num_players, active, ninja=ninja, ninja_all=ninja_targets == "all")
    return [Delta(love[p], adventure[p], -melt[p]) for p in range(num_players)]


# ---------------------------------------------------------------------------- game
def new_game(
    config: CubeMeltConfig,
    rng: IntegerRng,
    *,
    abilities: Sequence[Any] | None = None,
    dice: Sequence[Any] | None = None,
    love: Sequence[int] | None = None,
    adventure: Sequence[int] | None = None,
    melt: Sequence[int] | None = None,
    start_player: int = 0,
) -> CubeMeltState:
    """Set up the tracks (Melt 20, Love 0, Adventure 0) and roll for the start player (R1.2-R2.1).

    Keyword arguments start from a given position: ``abilities`` per seat (expansion),
    the first roll ``dice`` (face names or ids), the tracks and the start player.
    """
    n = config.num_players
    if abilities is not None:
        if not config.expansion:
            raise ValueError("cubemelt: abilities are given but expansion is off")
        seats = list(parse_abilities(abilities, n))
    elif not config.expansion:
        seats = [NO_ABILITY] * n
    elif config.abilities is not None:
        seats = list(config.abilities)
    else:
        seats = [int(a) for a in rng.permutation(NUM_ABILITIES)[:n]]  # type: ignore[attr-defined]
    tracks = []
    for name, values, default, low in (
        ("love", love, 0, 0),
        ("adventure", adventure, 0, 0),
        ("melt", melt, START_MELT, 1),
    ):
        if values is None:
            tracks.append([default] * n)
            continue
        vals = [int(v) for v in values]
        if len(vals) != n or not all(low <= v <= GOAL for v in vals):
            raise ValueError(f"cubemelt: {name} must give {n} values in {low}..{GOAL}, got {values!r}")
        tracks.append(vals)
    if not 0 <= start_player < n:
        raise ValueError(f"cubemelt: start_player={start_player} is not a seat")
    state = CubeMeltState(config=config, abilities=seats, love=tracks[0], adventure=tracks[1], melt=tracks[2])
    state.active = state.decider = int(start_player)
    state.plan_love, state.plan_adventure, state.plan_melt = [0] * n, [0] * n, [0] * n
    state.love_before, state.adventure_before = list(state.love), list(state.adventure)
    if any(v >= GOAL for v in state.love + state.adventure):
        raise ValueError("cubemelt: a game cannot start with 20 Love or Adventure (it would be over)")
    if dice is not None:
        if len(dice) != NUM_DICE:
            raise ValueError(f"cubemelt: dice must give {NUM_DICE} faces, got {dice!r}")
        state.dice = [_face_id(d, "dice:") for d in dice]
    else:
        _roll(state, rng, NUM_SUBSETS - 1)
    return state


def can_reroll(state: CubeMeltState) -> bool:
    """Whether the active player may still re-roll this turn (R2.2, R2.3 and house rule I6)."""
    if state.rerolls == 0:
        return True
    cfg = state.config
    if state.rerolls > cfg.paid_rerolls:
        return False
    return state.melt[state.active] > (0 if cfg.reroll_can_melt else 1)


def paid_rerolls_left(state: CubeMeltState) -> int:
    """How many paid re-rolls the active player can still make this turn (R2.3, I6): what is left of
    the turn's ``paid_rerolls``, and no more than its Melt pays for without melting (unless
    ``reroll_can_melt``): at Melt 1 none. Only re-rolls paying changes the Melt while re-rolling."""
    cfg = state.config
    by_count = cfg.paid_rerolls - max(0, state.rerolls - 1)
    by_melt = state.melt[state.active] - (0 if cfg.reroll_can_melt else 1)
    return max(0, min(by_count, by_melt))


def next_reroll_paid(state: CubeMeltState) -> bool:
    """Whether the next re-roll of this turn costs 1 Melt."""
    return state.rerolls >= 1


_STOP_ONLY = (STOP,)


def legal_actions(state: CubeMeltState) -> tuple[int, ...]:
    """Every legal action id for the deciding seat."""
    phase = state.phase
    if phase == PHASE_REROLL:
        # R2.2/R2.3/I6: the re-roll ids only while a re-roll is allowed (play never reaches a re-roll
        # phase without one: the turn resolves by itself; a position built by hand can)
        return _REROLL_IDS if can_reroll(state) else _STOP_ONLY
    if phase == PHASE_CHOOSE:
        return _CHOICE_IDS
    if phase == PHASE_NINJA:
        return _NINJA_IDS
    return ()


def apply(state: CubeMeltState, action: int, rng: IntegerRng) -> CubeMeltState:
    """Apply ``action`` for the deciding seat (mutates and returns ``state``)."""
    if action not in legal_actions(state):
        raise ValueError(
            f"cubemelt: action {action} is not legal in phase {PHASE_NAMES[state.phase]!r}; "
            f"legal: {list(legal_actions(state))}"
        )
    phase = state.phase
    if phase == PHASE_REROLL:
        if action == STOP:
            _start_resolution(state, rng)
            return state
        if state.rerolls >= 1:  # R2.3: a re-roll after the free one costs 1 Melt
            state.melt[state.active] -= 1
            state.events.append((state.active, SOURCE_PAID, 0, 0, -1))
            if state.melt[state.active] <= 0:  # only with reroll_can_melt: melts at once (R5.1, I6)
                _end_check(state)
                return state
        state.rerolls += 1
        _roll(state, rng, action)
        if not can_reroll(state):
            _start_resolution(state, rng)
    elif phase == PHASE_NINJA:
        if action == NINJA_APPLY:
            state.ninja_applied = True
            state.events.append((state.active, NINJA, 0, 0, 0))
            _plan(state)
        _after_plan(state, rng)
    else:  # PHASE_CHOOSE
        seat, ability = state.decider, state.pending
        amount = 1 if ability == KNIGHT else 2
        kind = LOVE if action == CHOOSE_LOVE else ADVENTURE
        _gain(state, seat, kind, amount, ability)
        if ability == KNIGHT:
            state.plan_melt[seat] -= 1
            _apply_dice(state, rng)
        else:
            _next_choice(state, rng)
    return state


def is_over(state: CubeMeltState) -> bool:
    return state.phase == PHASE_OVER


def final_scores(state: CubeMeltState) -> list[int]:
    """min(Love, Adventure) of each player (the melt ending's score, R5.3)."""
    return [min(a, b) for a, b in zip(state.love, state.adventure, strict=True)]


def outcome(state: CubeMeltState) -> np.ndarray:
    """+1 for every winner, -1 for everyone else (zeros while the game goes on); R5.5."""
    n = state.config.num_players
    if state.phase != PHASE_OVER:
        return np.zeros(n)
    out = np.full(n, -1.0)
    out[state.winners] = 1.0
    return out


def scores(state: CubeMeltState) -> np.ndarray:
    """Sum of each player's track changes: Love + Adventure + (Melt - 20); R4.7."""
    return np.array(
        [lv + ad + m - START_MELT for lv, ad, m in zip(state.love, state.adventure, state.melt, strict=True)],
        dtype=np.float64,
    )


def resample_hidden(state: CubeMeltState, seat: int, rng: np.random.Generator) -> CubeMeltState:
    """Nothing in a CubeMelt state is hidden (future rolls are not in it): a copy."""
    return state.copy()


# ---------------------------------------------------------------------------- internals
def _roll(state: CubeMeltState, rng: IntegerRng, subset: int) -> None:
    """Re-roll the dice of bitmask ``subset``.

    One draw of a number below ``F**k`` (F faces per die, k dice re-rolled) whose base-F digits,
    least significant first, are the face indices of the re-rolled dice in die order: one generator
    call per roll instead of one per die.
    """
    which = _SUBSET_DICE[subset]
    faces = state.config.faces
    nf = len(faces)
    code = int(rng.integers(0, nf ** len(which)))
    dice = state.dice
    for i in which:
        code, v = divmod(code, nf)
        dice[i] = faces[v]


def _start_resolution(state: CubeMeltState, rng: IntegerRng) -> None:
    # R4.6 step 1: the Ninja (active, five or more equal dice) decides first (R7.5)
    state.ninja_applied = False
    state.love_before, state.adventure_before = list(state.love), list(state.adventure)
    _plan(state)
    cfg = state.config
    if cfg.expansion and state.abilities[state.active] == NINJA and max(face_counts(state.dice)) >= 5:
        state.phase = PHASE_NINJA
        state.decider = state.active
        return
    _after_plan(state, rng)


def _plan(state: CubeMeltState) -> None:
    cfg = state.config
    state.plan_love, state.plan_adventure, state.plan_melt = dice_plan(
        state.dice,
        cfg.num_players,
        state.active,
        ninja=state.ninja_applied,
        ninja_all=cfg.ninja_targets == "all",
    )


def _after_plan(state: CubeMeltState, rng: IntegerRng) -> None:
    """Knight's conversion (a choice of its owner) comes before the dice are applied (R4.6 step 2, R7.4)."""
    if state.config.expansion and KNIGHT in state.abilities:
        knight = state.abilities.index(KNIGHT)
        if state.plan_melt[knight] >= 2:
            state.phase = PHASE_CHOOSE
            state.pending = KNIGHT
            state.decider = knight
            return
    _apply_dice(state, rng)


def _apply_dice(state: CubeMeltState, rng: IntegerRng) -> None:
    """Apply the planned dice effects to every board, then the triggered abilities (R4.6 steps 3-4)."""
    n = state.config.num_players
    love, adventure, melt = state.love, state.adventure, state.melt
    pl, pa, pm = state.plan_love, state.plan_adventure, state.plan_melt
    events = state.events
    for p in range(n):
        if pl[p] or pa[p] or pm[p]:
            love[p] = min(GOAL, love[p] + pl[p])
            adventure[p] = min(GOAL, adventure[p] + pa[p])
            melt[p] = max(0, melt[p] - pm[p])
            events.append((p, SOURCE_DICE, pl[p], pa[p], -pm[p]))
    state.queue = []
    if state.config.expansion:
        _trigger_abilities(state)
    _next_choice(state, rng)


def _trigger_abilities(state: CubeMeltState) -> None:
    """Cat, Dragon and Unicorn (R7.2, R7.3, R7.6), in seat order from the active player clockwise.

    With ``cat_trigger="actual"`` the Cat is left to :func:`_cat_on_real_gains`, once every choice is made.
    """
    cfg = state.config
    n, active = cfg.num_players, state.active
    per_neighbour = cfg.per_neighbour
    for i in range(n):
        seat = (active + i) % n
        ability = state.abilities[seat]
        if ability == CAT:
            if cfg.cat_trigger == "planned":
                _cat_gains(state, seat, state.plan_love, state.plan_adventure)
        elif ability == DRAGON and seat == active:
            hits = sum(1 for q in neighbours(seat, n) if state.plan_melt[q] > 0)
            state.queue.extend([(seat, DRAGON)] * (hits if per_neighbour else min(hits, 1)))
        elif ability == UNICORN and seat == active and min(face_counts(state.dice)) > 0:
            state.queue.append((seat, UNICORN))


def _cat_gains(state: CubeMeltState, cat: int, love_gains: Sequence[int], adventure_gains: Sequence[int]) -> None:
    """The Cat at ``cat`` gains 1 of a kind when a neighbour's gain of that kind is 3 or more (R7.2, I17).

    ``love_gains``/``adventure_gains``: what each seat gained (planned dice or real, per ``cat_trigger``);
    once per kind, or once per neighbour with ``per_neighbour``.
    """
    near = neighbours(cat, state.config.num_players)
    for kind, gains in ((LOVE, love_gains), (ADVENTURE, adventure_gains)):
        hits = sum(1 for q in near if gains[q] >= 3)
        if hits:
            _gain(state, cat, kind, hits if state.config.per_neighbour else 1, CAT)


def _cat_on_real_gains(state: CubeMeltState) -> None:
    """``cat_trigger="actual"``: the Cat reads its neighbours' real gains of the whole resolution (I17).

    Called once the resolution's choices are all made, before the end check. A neighbour's real gain
    is its track now minus at the resolution's start: its dice, its own ability (Knight, Dragon,
    Unicorn), after the cap at 20. The Cat's own gain cannot count, as the Cat is not its own neighbour.
    """
    cat = state.abilities.index(CAT)
    love_gains = [now - before for now, before in zip(state.love, state.love_before, strict=True)]
    adventure_gains = [now - before for now, before in zip(state.adventure, state.adventure_before, strict=True)]
    _cat_gains(state, cat, love_gains, adventure_gains)


def _gain(state: CubeMeltState, seat: int, kind: int, amount: int, source: int) -> None:
    if kind == LOVE:
        state.love[seat] = min(GOAL, state.love[seat] + amount)
        state.events.append((seat, source, amount, 0, 0))
    else:
        state.adventure[seat] = min(GOAL, state.adventure[seat] + amount)
        state.events.append((seat, source, 0, amount, 0))


def _next_choice(state: CubeMeltState, rng: IntegerRng) -> None:
    if state.queue:
        seat, ability = state.queue.pop(0)
        state.phase = PHASE_CHOOSE
        state.pending = ability
        state.decider = seat
        return
    state.pending = NO_ABILITY
    cfg = state.config
    if cfg.expansion and cfg.cat_trigger == "actual" and CAT in state.abilities:
        _cat_on_real_gains(state)
    if not _end_check(state):
        _begin_turn(state, rng)


def _end_check(state: CubeMeltState) -> bool:
    """End the game if someone reached 20 Love/Adventure or a token melted (R5.1-R5.4, R6.1-R6.3)."""
    n = state.config.num_players
    goal = [p for p in range(n) if state.love[p] >= GOAL or state.adventure[p] >= GOAL]
    melted = [p for p in range(n) if state.melt[p] <= 0]
    if not goal and not melted:
        return False
    state.melted = melted
    if goal:  # 20 Love or Adventure beats a simultaneous melt (``docs/rules/cubemelt.md`` R5.4, house rule I12)
        state.winners = goal
    else:
        survivors = [p for p in range(n) if p not in melted]
        if survivors:
            final = final_scores(state)
            best = max(final[p] for p in survivors)
            state.winners = [p for p in survivors if final[p] == best]
        else:
            state.winners = []
    state.phase = PHASE_OVER
    state.decider = -1
    state.pending = NO_ABILITY
    return True


def _begin_turn(state: CubeMeltState, rng: IntegerRng) -> None:
    n = state.config.num_players
    state.last_events = state.events
    state.last_dice = list(state.dice)
    state.last_active = state.active
    state.events = []
    state.active = state.decider = (state.active + 1) % n
    state.turn += 1
    state.rerolls = 0
    state.ninja_applied = False
    state.phase = PHASE_REROLL
    _roll(state, rng, NUM_SUBSETS - 1)


# ---------------------------------------------------------------------------- validation (no game behaviour)


def _named(what: str, value: object, names: tuple[str, ...]) -> int:
    """The id of ``value``: one of ``names`` (exactly) or an id ``0..len(names)-1``."""
    if isinstance(value, str):
        if value in names:
            return names.index(value)
        raise ValueError(f"{what}={value!r} is not one of {list(names)}")
    return _int(what, value, 0, len(names) - 1)


def check_faces(faces: object) -> tuple[int, ...]:
    """The option ``faces``: a list of 1-12 face names (or ids), checked element by element."""
    values = _seq("faces", faces)
    if not 1 <= len(values) <= 12:
        raise ValueError(f"faces must list 1-12 faces of a die, got {len(values)}")
    return tuple(_named(f"faces[{i}]", f, FACE_NAMES) for i, f in enumerate(values))


def check_abilities(what: str, abilities: object, num_players: int) -> tuple[int, ...]:
    """One distinct ability (name or id) per seat, checked element by element."""
    values = _seq(what, abilities, num_players)
    ids = tuple(_named(f"{what}[{i}]", a, ABILITY_NAMES) for i, a in enumerate(values))
    if len(set(ids)) != len(ids):
        raise ValueError(f"{what} must be distinct, got {list(values)!r}")
    return ids


def check_position(
    config: CubeMeltConfig,
    *,
    abilities: object = None,
    dice: object = None,
    love: object = None,
    adventure: object = None,
    melt: object = None,
    start_player: object = 0,
) -> dict[str, Any]:
    """Check the position keys of ``reset(options=...)`` and return them as ``new_game`` arguments.

    Raises ``ValueError`` naming the key: ``abilities`` one distinct ability per seat (expansion
    only); ``dice`` six faces; ``love`` and ``adventure`` one integer per seat in 0..19 (20 would have
    won already), ``melt`` one in 1..20 (0 would have melted); ``start_player`` a seat.
    """
    n = config.num_players
    out: dict[str, Any] = {"start_player": _int("start_player", start_player, 0, n - 1)}
    if abilities is not None:
        if not config.expansion:
            raise ValueError("abilities are given but expansion is off")
        out["abilities"] = list(check_abilities("abilities", abilities, n))
    if dice is not None:
        values = _seq("dice", dice, NUM_DICE)
        out["dice"] = [_named(f"dice[{i}]", d, FACE_NAMES) for i, d in enumerate(values)]
    for key, values, low, high in (
        ("love", love, 0, GOAL - 1),
        ("adventure", adventure, 0, GOAL - 1),
        ("melt", melt, 1, START_MELT),
    ):
        if values is not None:
            out[key] = [_int(f"{key}[{p}]", v, low, high) for p, v in enumerate(_seq(key, values, n))]
    return out


def _event(what: str, event: object, n: int) -> None:
    if not isinstance(event, tuple) or len(event) != 5:
        raise ValueError(f"{what} must be a (seat, source, love, adventure, melt) tuple, got {event!r}")
    _int(f"{what} seat", event[0], 0, n - 1)
    _int(f"{what} source", event[1], SOURCE_PAID, NUM_ABILITIES - 1)
    for value, name in zip(event[2:], ("love", "adventure", "melt"), strict=True):
        _int(f"{what} {name}", value, -START_MELT, GOAL)


def check_state(state: CubeMeltState, config: CubeMeltConfig) -> None:
    """Raise ``ValueError`` naming the field unless ``state`` is a possible position of ``config``'s game.

    Checks the config (equal to ``config``), every field's type and range (tracks 0..20, faces,
    seats, phase, re-rolls, abilities, plans, the choice queue, events, winners) and what each phase
    implies (who decides, the pending choice, no finished game still going on).
    """
    if type(state.config) is not CubeMeltConfig or state.config != config:
        raise ValueError(f"config {state.config!r} is not this env's config {config!r}")
    n = config.num_players
    abilities = [
        _int(f"abilities[{p}]", a, NO_ABILITY, NUM_ABILITIES - 1)
        for p, a in enumerate(_seq("abilities", state.abilities, n))
    ]
    if not config.expansion:
        if any(a != NO_ABILITY for a in abilities):
            raise ValueError("abilities: the base game has no abilities")
    elif NO_ABILITY in abilities or len(set(abilities)) != n:
        raise ValueError(f"abilities must be one distinct ability per seat, got {abilities}")
    tracks = {}
    for key in ("love", "adventure", "melt"):
        values = _seq(key, getattr(state, key), n)
        tracks[key] = [_int(f"{key}[{p}]", v, 0, GOAL) for p, v in enumerate(values)]
    dice = [_int(f"dice[{i}]", d, 0, NUM_KINDS - 1) for i, d in enumerate(_seq("dice", state.dice, NUM_DICE))]
    active = _int("active", state.active, 0, n - 1)
    phase = _int("phase", state.phase, PHASE_REROLL, PHASE_OVER)
    decider = _int("decider", state.decider, -1, n - 1)
    rerolls = _int("rerolls", state.rerolls, 0, config.paid_rerolls + 1)
    pending = _int("pending", state.pending, NO_ABILITY, NUM_ABILITIES - 1)
    ninja_applied = _flag("ninja_applied", state.ninja_applied)
    for key in ("plan_love", "plan_adventure", "plan_melt"):
        for p, v in enumerate(_seq(key, getattr(state, key), n)):
            _int(f"{key}[{p}]", v, 0, NUM_DICE)
    for key in ("love", "adventure"):  # tracks only rise: never above their value now
        name = f"{key}_before"
        for p, v in enumerate(_seq(name, getattr(state, name), n)):
            _int(f"{name}[{p}]", v, 0, tracks[key][p])
    queue = _seq("queue", state.queue)
    if len(queue) > 3:
        raise ValueError(f"queue holds {len(queue)} choices, at most 3 are possible")
    for i, item in enumerate(queue):
        if not isinstance(item, tuple) or len(item) != 2:
            raise ValueError(f"queue[{i}] must be a (seat, ability) pair, got {item!r}")
        seat = _int(f"queue[{i}] seat", item[0], 0, n - 1)
        ability = _int(f"queue[{i}] ability", item[1], DRAGON, UNICORN)
        if ability not in (DRAGON, UNICORN) or abilities[seat] != ability:
            raise ValueError(f"queue[{i}]: player_{seat} has no {ABILITY_NAMES[ability]} choice to make")
    for key in ("events", "last_events"):
        for i, event in enumerate(_seq(key, getattr(state, key))):
            _event(f"{key}[{i}]", event, n)
    last_dice = _seq("last_dice", state.last_dice)
    if len(last_dice) not in (0, NUM_DICE):
        raise ValueError(f"last_dice must be empty or {NUM_DICE} faces, got {len(last_dice)}")
    for i, d in enumerate(last_dice):
        _int(f"last_dice[{i}]", d, 0, NUM_KINDS - 1)
    _int("last_active", state.last_active, -1, n - 1)
    _int("turn", state.turn, 0)
    for key in ("winners", "melted"):
        seats = [_int(f"{key}[{i}]", p, 0, n - 1) for i, p in enumerate(_seq(key, getattr(state, key)))]
        if len(set(seats)) != len(seats):
            raise ValueError(f"{key} names a seat twice: {seats}")
    love, adventure, melt = tracks["love"], tracks["adventure"], tracks["melt"]
    if phase == PHASE_OVER:
        if decider != -1 or pending != NO_ABILITY:
            raise ValueError("decider/pending: the game is over but a decision is pending")
        return
    if state.winners or state.melted:
        raise ValueError("winners/melted are set but the game is not over")
    if decider < 0:
        raise ValueError("decider=-1 but the game is not over")
    if phase == PHASE_CHOOSE:
        if pending not in (KNIGHT, DRAGON, UNICORN) or abilities[decider] != pending:
            raise ValueError(f"pending={pending}: player_{decider} has no Love-or-Adventure choice to make")
        if pending == KNIGHT and queue:
            raise ValueError("queue: the Knight converts before the dice are applied, nothing is queued yet")
        if pending in (DRAGON, UNICORN) and decider != active:
            raise ValueError(f"decider={decider}: the {ABILITY_NAMES[pending]} choice is the active player's")
    else:
        if decider != active:
            raise ValueError(f"decider={decider} must be the active player {active} in phase {PHASE_NAMES[phase]!r}")
        if pending != NO_ABILITY or queue:
            raise ValueError(f"pending/queue: no choice is pending in phase {PHASE_NAMES[phase]!r}")
    if phase == PHASE_NINJA and (abilities[active] != NINJA or max(face_counts(dice)) < 5):
        raise ValueError("phase: a Ninja decision needs the active Ninja with five or more equal dice")
    if phase in (PHASE_REROLL, PHASE_NINJA) and ninja_applied:
        raise ValueError(f"ninja_applied is set in phase {PHASE_NAMES[phase]!r}")
    if phase == PHASE_REROLL and not can_reroll(state):
        raise ValueError(f"rerolls={rerolls}: no re-roll is left, the dice would have been resolved")
    if phase == PHASE_REROLL or (phase == PHASE_CHOOSE and pending == KNIGHT) or phase == PHASE_NINJA:
        # the dice of this roll are not applied yet: the previous end check found no end
        if any(v >= GOAL for v in love + adventure) or any(v <= 0 for v in melt):
            raise ValueError("love/adventure/melt: a track is at its end but the game is not over")
