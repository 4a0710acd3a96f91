"""CubeMelt as a batched engine: many games per numpy call, the transitions of ``rules.py`` exactly.

State of game ``i`` (rows of the arrays below; :meth:`CubeMeltBatched.state_of` gives it as a
:class:`~ice_envs.cubemelt.rules.CubeMeltState`): ``abilities``, ``love``, ``adventure``, ``melt``
per seat, the six ``dice``, ``active``, ``decider`` (the seat that decides now, off-turn for the
Knight's conversion), ``phase``, ``rerolls``, ``pending``, ``ninja_applied``, the resolution in
progress ``plan[i, p]`` (Love gained, Adventure gained, Melt lost), ``before[i, p]`` (Love and
Adventure when the resolution in progress, or the last one, began: the state's ``love_before`` and
``adventure_before``, read by ``cat_trigger="actual"``), ``queue_n`` (choices still
queued: they all belong to the active seat — the Dragon once per neighbour hit or the Unicorn —
so a count and the active seat's ability say it all), ``last_dice``, ``last_active``, ``winners``,
``melted`` (per seat, as masks) and ``turn``. The engine's ``events`` / ``last_events`` lists
(text rendering only: never observed, never rewarded) are not kept.

A step groups the games by phase and action and follows the resolution order of R4.6 (Ninja,
Knight, dice, triggered gains, end check, next turn) group by group. A roll draws one number
below ``F**k`` per game (F faces, k dice re-rolled) and reads its base-F digits, as
``rules._roll`` does, so a draw log replays into the scalar engine unchanged.

Speed: the six dice are also kept as one base-4 code of their kinds (``dice_code``, die ``i`` in
bits ``2i, 2i+1``), and everything that depends on the dice only is read from tables indexed by
it: the kinds per die, the face counts, the observation's dice and face-count columns, the plan
of a resolution (per Ninja flag and active seat). A roll reads its new kinds from one table per
re-rolled subset (the draw's base-F digits spread over the subset's dice) and keeps the other
dice by a bit mask. Love, Adventure and Melt are three views of one ``(N, P, 3)`` array. The
draws, their order and every result are those of the direct computation.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ice_envs.core.vector import BatchedEngine
from ice_envs.cubemelt import rules

_ND = rules.NUM_DICE
_GOAL = rules.GOAL
_REROLL, _NINJA, _CHOOSE, _OVER = rules.PHASE_REROLL, rules.PHASE_NINJA, rules.PHASE_CHOOSE, rules.PHASE_OVER
_BITS = (np.arange(rules.NUM_SUBSETS)[:, None] >> np.arange(_ND)[None, :]) & 1  # (64, 6)
_POPCOUNT = _BITS.sum(axis=1)
#: ``_RANK[m, i]``: the digit of a roll of bitmask ``m`` that die ``i`` reads (set bits before it).
_RANK = np.cumsum(_BITS, axis=1) - 1
_DECISION_SLOT = np.zeros(rules.NUM_ABILITIES, dtype=np.int64)
_DECISION_SLOT[[rules.KNIGHT, rules.DRAGON, rules.UNICORN]] = (2, 3, 4)
_MASKS = np.zeros((4, rules.NUM_ACTIONS), dtype=bool)
_MASKS[_REROLL, : rules.NUM_SUBSETS] = True
_MASKS[_NINJA, [rules.NINJA_APPLY, rules.NINJA_DECLINE]] = True
_MASKS[_CHOOSE, [rules.CHOOSE_LOVE, rules.CHOOSE_ADVENTURE]] = True
_MASKS_I8 = _MASKS.astype(np.int8)
#: FACE_TRACK as a (4 faces, 3 tracks) 0/1 matrix.
_FACE_TRACK = np.zeros((rules.NUM_KINDS, 3), dtype=np.int64)
_FACE_TRACK[np.arange(rules.NUM_KINDS), rules.FACE_TRACK] = 1
_KINDS = np.arange(rules.NUM_KINDS)

# ---------------------------------------------------------------- dice-code tables
#: ``dice_code = sum(dice[i] << 2i)``: the six dice's kinds in one number below 4**6.
_NCODES = rules.NUM_KINDS**_ND
_SHIFT = 2 * np.arange(_ND)
#: ``_DICE[c]``: the kind of each die of code ``c``.
_DICE = ((np.arange(_NCODES)[:, None] >> _SHIFT) & 3).astype(np.int8)
#: ``_COUNTS[c]``: dice per face kind.
_COUNTS = (_DICE[:, :, None] == _KINDS).sum(axis=1).astype(np.int8)
_FIVE_EQUAL = _COUNTS.max(axis=1) >= 5
_EVERY_FACE = _COUNTS.min(axis=1) > 0
#: ``_KEEP[m]``: the bits of the dice that a re-roll of bitmask ``m`` leaves alone.
_KEEP = ((3 << _SHIFT) * (1 - _BITS)).sum(axis=1).astype(np.int16)
#: Rolls whose per-subset tables (``(F + 1)**6`` entries in all) stay this small use them.
_MAX_SPREAD = 1 << 20
#: ``_BYTE_VALUE[b]``: the int8 value whose byte is ``b`` (tables indexed by ``x.view(np.uint8)``).
_BYTE_VALUE = np.arange(256).astype(np.uint8).view(np.int8).astype(np.int64)
#: ``/ GOAL``, ``/ START_MELT`` and ``/ NUM_DICE`` of every int8 value as float32, by its byte.
_DIV_GOAL = (_BYTE_VALUE / _GOAL).astype(np.float32)
_DIV_MELT = (_BYTE_VALUE / rules.START_MELT).astype(np.float32)
_DIV_DICE = (_BYTE_VALUE / _ND).astype(np.float32)
#: ``_ABILITY_HOT[a]``: the ability one-hot of ability ``a`` (``NO_ABILITY`` = -1: the zero last row).
_ABILITY_HOT = np.zeros((rules.NUM_ABILITIES + 1, rules.NUM_ABILITIES), dtype=np.float32)
_ABILITY_HOT[np.arange(rules.NUM_ABILITIES), np.arange(rules.NUM_ABILITIES)] = 1.0
#: Love and Adventure stop at GOAL, Melt at 0 (per track, for ``(..., 3)`` arrays).
_TRACK_SIGN = np.array([1, 1, -1], dtype=np.int8)
_TRACK_HIGH = np.array([_GOAL, _GOAL, np.iinfo(np.int8).max], dtype=np.int8)
_TRACK_LOW = np.array([np.iinfo(np.int8).min, np.iinfo(np.int8).min, 0], dtype=np.int8)


@lru_cache(maxsize=32)
def _spread_table(faces: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """Per subset ``m`` (``offsets[m]`` into ``table``): the kinds that each draw below ``F**k``
    gives the dice of ``m`` (``rules._roll``'s base-F digits), as dice-code bits; ``None`` if too big."""
    nf = len(faces)
    highs = nf**_POPCOUNT
    if int(highs.sum()) > _MAX_SPREAD:
        return None
    kinds = np.asarray(faces, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(highs)[:-1])).astype(np.int64)
    table = np.zeros(int(highs.sum()), dtype=np.int16)
    for m in range(rules.NUM_SUBSETS):
        code = np.arange(highs[m], dtype=np.int64)
        part = np.zeros(highs[m], dtype=np.int64)
        for i in np.flatnonzero(_BITS[m]):
            part |= kinds[(code // nf ** int(_RANK[m, i])) % nf] << int(_SHIFT[i])
        table[offsets[m] : offsets[m] + highs[m]] = part
    table.setflags(write=False)
    return table, offsets


@lru_cache(maxsize=32)
def _plan_table(num_players: int, ninja_all: bool) -> np.ndarray:
    """``table[(ninja * P + active) * 4**6 + dice_code]``: ``rules.dice_plan`` as ``(P, 3)`` int8."""
    p = num_players
    counts = _COUNTS.astype(np.int64)
    top = counts.max(axis=1)
    tie = (counts == top[:, None]).sum(axis=1) > 1
    main = counts.argmax(axis=1)
    every = counts @ _FACE_TRACK  # (C, 3): what all the dice give
    main_gives = np.where(tie[:, None], 0, top[:, None] * _FACE_TRACK[main])  # no main face on a tie
    rest_gives = every - main_gives
    seats = np.arange(p)
    eye = np.eye(p, dtype=bool)
    near = np.zeros((p, p), dtype=bool)
    near[seats, (seats + 1) % p] = True
    near[seats, (seats - 1) % p] = True
    others = ~eye if ninja_all else near
    table = np.zeros((2, p, _NCODES, p, 3), dtype=np.int8)
    for ninja, (main_to, rest_to) in enumerate(((near, eye), (eye, others))):
        for a in range(p):
            table[ninja, a] = (
                main_to[a][None, :, None] * main_gives[:, None, :] + rest_to[a][None, :, None] * rest_gives[:, None, :]
            )
    table = table.reshape(2 * p * _NCODES, p, 3)
    table.setflags(write=False)
    return table


class CubeMeltBatched(BatchedEngine):
    """Batched CubeMelt (see the module docstring and :class:`ice_envs.core.vector.BatchedEngine`)."""

    #: The text of the last events (rendering only) is not kept.
    unkept_state_fields = frozenset({"events", "last_events"})

    game = "cubemelt"
    state_names = (
        "abilities",
        "love",
        "adventure",
        "melt",
        "dice",
        "dice_code",
        "active",
        "decider",
        "phase",
        "rerolls",
        "pending",
        "ninja_applied",
        "plan",
        "before",
        "queue_n",
        "last_dice",
        "last_active",
        "winners",
        "melted",
        "turn",
    )

    # ------------------------------------------------------------------ state
    def _setup(self) -> None:
        n, p = self.num_envs, self.num_players
        cfg = self.config
        self.abilities = np.full((n, p), rules.NO_ABILITY, dtype=np.int8)
        #: Love, Adventure, Melt per seat (``love``, ``adventure``, ``melt`` are its views)
        self.tracks = np.zeros((n, p, 3), dtype=np.int8)
        self._track_views()
        self.melt[:] = rules.START_MELT
        self.dice = np.zeros((n, _ND), dtype=np.int8)
        #: the kinds of ``dice`` as one base-4 number (die ``i`` in bits 2i, 2i+1; kept for speed)
        self.dice_code = np.zeros(n, dtype=np.int16)
        self.active = np.zeros(n, dtype=np.int8)
        self.decider = np.zeros(n, dtype=np.int8)
        self.phase = np.zeros(n, dtype=np.int8)
        self.rerolls = np.zeros(n, dtype=np.int8)
        self.pending = np.full(n, rules.NO_ABILITY, dtype=np.int8)
        self.ninja_applied = np.zeros(n, dtype=bool)
        self.plan = np.zeros((n, p, 3), dtype=np.int8)
        #: Love and Adventure per seat when the resolution in progress (or the last one) began
        self.before = np.zeros((n, p, 2), dtype=np.int8)
        self.queue_n = np.zeros(n, dtype=np.int8)
        self.last_dice = np.zeros((n, _ND), dtype=np.int8)
        self.last_active = np.full(n, -1, dtype=np.int8)
        self.winners = np.zeros((n, p), dtype=bool)
        self.melted = np.zeros((n, p), dtype=bool)
        self.turn = np.zeros(n, dtype=np.int32)
        self.faces = np.array(cfg.faces, dtype=np.int8)
        self.nf = len(cfg.faces)
        self._powers = self.nf ** np.arange(_ND, dtype=np.int64)
        self._highs = self.nf**_POPCOUNT
        self._full_high = int(self._highs[-1])
        spread = _spread_table(tuple(int(f) for f in cfg.faces))
        if spread is None:
            self._spread = self._offsets = self._spread_full = None
        else:
            self._spread, self._offsets = spread
            self._spread_full = self._spread[int(self._offsets[-1]) :]
        self.expansion = bool(cfg.expansion)
        self.paid = int(cfg.paid_rerolls)
        self.min_melt_to_pay = 0 if cfg.reroll_can_melt else 1
        self.per_neighbour = bool(cfg.per_neighbour)
        #: the Cat reads real gains of the whole resolution, after the choices (``cat_trigger="actual"``)
        self.cat_actual = self.expansion and cfg.cat_trigger == "actual"
        seats = np.arange(p)
        self._left = (seats + 1) % p
        self._right = (seats - 1) % p
        self._two = p == 2
        self._plans = _plan_table(p, cfg.ninja_targets == "all")
        self._rel = (seats[:, None] + seats[None, :]) % p
        self._rows = self._all[:, None]
        lay = self.obs_layout
        self._at = at = {name: lay.offset(name) for name in lay.names}
        self._template = np.zeros(self.obs_dim, dtype=np.float32)
        self._template[at["seats"] + 11 * seats + 3] = 1.0  # at the table
        self._template[at["expansion"]] = float(self.expansion)
        # the dice and face-count columns per dice code
        self._dice_lo, self._dice_hi = at["dice"], at["face_counts"] + rules.NUM_KINDS
        dice_obs = np.zeros((_NCODES, self._dice_hi - self._dice_lo), dtype=np.float32)
        codes = np.arange(_NCODES)[:, None]
        dice_obs[codes, at["dice"] - self._dice_lo + 4 * np.arange(_ND) + _DICE] = 1.0
        dice_obs[:, at["face_counts"] - self._dice_lo :] = _COUNTS / _ND
        self._dice_obs = dice_obs
        # reroll cost and the decision per (phase, rerolls, pending + 1); paid_left also depends on
        # the active player's Melt (written by _encode)
        self._tail_lo = min(at["reroll_cost"], at["paid_left"], at["decision"])
        self._tail_hi = max(at["reroll_cost"] + 2, at["paid_left"] + 1, at["decision"] + 5)
        self._nr = self.paid + 2  # rerolls never exceed paid + 1
        tail = np.zeros((4, self._nr, rules.NUM_ABILITIES + 1, self._tail_hi - self._tail_lo), dtype=np.float32)
        lo = self._tail_lo
        for r in range(self._nr):
            tail[_REROLL, r, :, at["reroll_cost"] - lo + (r != 0)] = 1.0
            tail[_REROLL, r, :, at["decision"] - lo] = 1.0
        tail[_NINJA, :, :, at["decision"] - lo + 1] = 1.0
        for pend in range(-1, rules.NUM_ABILITIES):
            tail[_CHOOSE, :, pend + 1, at["decision"] - lo + _DECISION_SLOT[max(pend, 0)]] = 1.0
        self._tail = tail.reshape(-1, self._tail_hi - self._tail_lo)

    def _track_views(self) -> None:
        self.love = self.tracks[:, :, 0]
        self.adventure = self.tracks[:, :, 1]
        self.melt = self.tracks[:, :, 2]

    def __getstate__(self) -> dict[str, object]:
        """Pickle (and deepcopy) without the track views: a view would come back as a copy."""
        state = self.__dict__.copy()
        for name in ("love", "adventure", "melt"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._track_views()

    @property
    def counts(self) -> np.ndarray:
        """``(N, 4)`` dice per face kind (derived from ``dice_code``)."""
        return _COUNTS[self.dice_code]

    def _new_games(self, idx: np.ndarray) -> None:
        k, p = idx.size, self.num_players
        cfg = self.config
        if not self.expansion:
            self.abilities[idx] = rules.NO_ABILITY
        elif cfg.abilities is not None:
            self.abilities[idx] = np.array(cfg.abilities, dtype=np.int8)
        else:  # a uniformly random distinct ability per seat (rules.new_game: permutation(5)[:n])
            self.abilities[idx] = np.argsort(self.rng.random((k, rules.NUM_ABILITIES)), axis=1)[:, :p]
        self.love[idx] = 0
        self.adventure[idx] = 0
        self.melt[idx] = rules.START_MELT
        self.active[idx] = 0
        self.decider[idx] = 0
        self.phase[idx] = _REROLL
        self.rerolls[idx] = 0
        self.pending[idx] = rules.NO_ABILITY
        self.ninja_applied[idx] = False
        self.plan[idx] = 0
        self.before[idx] = 0  # the tracks of a new game: Love and Adventure 0
        self.queue_n[idx] = 0
        self.last_dice[idx] = 0
        self.last_active[idx] = -1
        self.winners[idx] = False
        self.melted[idx] = False
        self.turn[idx] = 0
        self._roll_all(idx)

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:
        """The dealt abilities (when drawn at random) as reset options; the opening roll is replayed."""
        state = self.state_of(i)
        return (
            {"abilities": list(state.abilities)} if self.config.expansion and self.config.abilities is None else {}
        ), True

    def state_of(self, i: int) -> rules.CubeMeltState:
        n_q = int(self.queue_n[i])
        active = int(self.active[i])
        plan = self.plan[i].astype(int)
        return rules.CubeMeltState(
            config=self.config,
            abilities=self.abilities[i].astype(int).tolist(),
            love=self.love[i].astype(int).tolist(),
            adventure=self.adventure[i].astype(int).tolist(),
            melt=self.melt[i].astype(int).tolist(),
            dice=self.dice[i].astype(int).tolist(),
            active=active,
            decider=int(self.decider[i]),
            phase=int(self.phase[i]),
            rerolls=int(self.rerolls[i]),
            pending=int(self.pending[i]),
            ninja_applied=bool(self.ninja_applied[i]),
            plan_love=plan[:, 0].tolist(),
            plan_adventure=plan[:, 1].tolist(),
            plan_melt=plan[:, 2].tolist(),
            love_before=self.before[i, :, 0].astype(int).tolist(),
            adventure_before=self.before[i, :, 1].astype(int).tolist(),
            queue=[(active, int(self.abilities[i, active]))] * n_q,
            last_dice=[] if self.last_active[i] < 0 else self.last_dice[i].astype(int).tolist(),
            last_active=int(self.last_active[i]),
            winners=np.flatnonzero(self.winners[i]).tolist(),
            melted=np.flatnonzero(self.melted[i]).tolist(),
            turn=int(self.turn[i]),
        )

    # ------------------------------------------------------------------ rules
    def _legal(self, idx: np.ndarray) -> np.ndarray:
        return _MASKS[self.phase[idx]]

    def _set_dice(self, idx: np.ndarray, code: np.ndarray) -> None:
        self.dice_code[idx] = code
        self.dice[idx] = _DICE[code]

    def _roll_all(self, idx: np.ndarray) -> None:
        """Roll all six dice of the games ``idx`` (one draw below F**6 each)."""
        if not idx.size:
            return
        draw = self._integers(idx, 0, self._full_high)
        if self._spread_full is not None:
            self._set_dice(idx, self._spread_full[draw])
        else:
            self._set_dice(idx, self._spread_codes(draw, np.full(idx.size, rules.NUM_SUBSETS - 1)))

    def _spread_codes(self, draw: np.ndarray, subsets: np.ndarray) -> np.ndarray:
        """The dice-code bits that ``draw`` gives the dice of ``subsets`` (without the table)."""
        digits = (draw[:, None] // self._powers[_RANK[subsets]]) % self.nf
        kinds = self.faces[digits].astype(np.int64) << _SHIFT
        return (kinds * _BITS[subsets]).sum(axis=1)

    def _roll(self, idx: np.ndarray, subsets: np.ndarray) -> None:
        """Re-roll the dice of bitmask ``subsets[j]`` in game ``idx[j]``: one draw below F**k, base-F digits."""
        if not idx.size:
            return
        subsets = np.asarray(subsets, dtype=np.int64)
        draw = self._integers(idx, 0, self._highs[subsets])
        if self._spread is not None:
            new = self._spread[self._offsets[subsets] + draw]
        else:
            new = self._spread_codes(draw, subsets)
        self._set_dice(idx, (self.dice_code[idx] & _KEEP[subsets]) | new)

    def _counts(self, idx: np.ndarray) -> np.ndarray:
        """``(k, 4)`` dice per face kind."""
        return _COUNTS[self.dice_code[idx]]

    def _plan(self, idx: np.ndarray) -> None:
        """``rules.dice_plan`` for every game of ``idx`` (Ninja where ``ninja_applied``)."""
        key = self.active[idx].astype(np.intp)
        if self.expansion:
            key += self.ninja_applied[idx] * self.num_players
        key *= _NCODES
        key += self.dice_code[idx]
        self.plan[idx] = self._plans[key]

    def _start_resolution(self, idx: np.ndarray) -> None:
        if not idx.size:
            return
        self.ninja_applied[idx] = False
        self.before[idx] = self.tracks[idx, :, :2]
        self._plan(idx)
        if self.expansion:
            active = self.active[idx].astype(np.int64)
            ninja = (self.abilities[idx, active] == rules.NINJA) & _FIVE_EQUAL[self.dice_code[idx]]
            rows = idx[ninja]
            self.phase[rows] = _NINJA
            self.decider[rows] = self.active[rows]
            idx = idx[~ninja]
        self._after_plan(idx)

    def _after_plan(self, idx: np.ndarray) -> None:
        """The Knight's conversion comes before the dice are applied (R4.6 step 2)."""
        if not idx.size:
            return
        if self.expansion:
            has_knight = self.abilities[idx] == rules.KNIGHT
            knight = has_knight.argmax(axis=1)
            convert = has_knight.any(axis=1) & (self.plan[idx, knight, 2] >= 2)
            rows = idx[convert]
            self.phase[rows] = _CHOOSE
            self.pending[rows] = rules.KNIGHT
            self.decider[rows] = knight[convert]
            idx = idx[~convert]
        self._apply_dice(idx)

    def _apply_dice(self, idx: np.ndarray) -> None:
        """Apply the planned effects to every board, then the triggered abilities (R4.6 steps 3-4)."""
        if not idx.size:
            return
        plan = self.plan[idx]
        tracks = self.tracks[idx]
        tracks += plan * _TRACK_SIGN
        np.minimum(tracks, _TRACK_HIGH, out=tracks)
        np.maximum(tracks, _TRACK_LOW, out=tracks)
        self.tracks[idx] = tracks
        if self.expansion:
            self.queue_n[idx] = 0
            self._trigger(idx, plan)
            self._next_choice(idx)
        else:  # nothing is ever queued
            self._next_choice(idx, tracks)

    def _trigger(self, idx: np.ndarray, plan: np.ndarray) -> None:
        """Cat (automatic), Dragon and Unicorn (the active player's, queued choices): R7.2, R7.3, R7.6.

        With ``cat_trigger="actual"`` the Cat waits for :meth:`_cat_on_real_gains` (after the choices)."""
        abilities = self.abilities[idx]
        rows = np.arange(idx.size)
        if not self.cat_actual:
            has_cat = abilities == rules.CAT
            cat_games = np.flatnonzero(has_cat.any(axis=1))
            if cat_games.size:
                self._cat_gains(idx[cat_games], has_cat[cat_games].argmax(axis=1), plan[cat_games, :, :2] >= 3)
        active = self.active[idx].astype(np.int64)
        mine = abilities[rows, active]
        dragon = np.flatnonzero(mine == rules.DRAGON)
        if dragon.size:
            a = active[dragon]
            melted = plan[dragon, :, 2] > 0
            hits = melted[np.arange(dragon.size), self._left[a]].astype(np.int64)
            if not self._two:
                hits = hits + melted[np.arange(dragon.size), self._right[a]]
            self.queue_n[idx[dragon]] = hits if self.per_neighbour else np.minimum(hits, 1)
        unicorn = np.flatnonzero(mine == rules.UNICORN)
        if unicorn.size:
            every_face = _EVERY_FACE[self.dice_code[idx[unicorn]]]
            self.queue_n[idx[unicorn[every_face]]] = 1

    def _cat_gains(self, games: np.ndarray, cat: np.ndarray, gained: np.ndarray) -> None:
        """The Cat (seat ``cat[j]`` of game ``games[j]``) gains 1 of each kind that a neighbour gained 3 or
        more of (``gained``: ``(k, P, 2)``, Love and Adventure); once per kind, or per neighbour (R7.2, I17)."""
        rows = np.arange(games.size)
        hits = gained[rows, self._left[cat]].astype(np.int64)
        if not self._two:
            hits += gained[rows, self._right[cat]]
        amount = hits if self.per_neighbour else np.minimum(hits, 1)
        self.tracks[games, cat, :2] = np.minimum(_GOAL, self.tracks[games, cat, :2] + amount)

    def _cat_on_real_gains(self, idx: np.ndarray) -> None:
        """``cat_trigger="actual"``: the Cat reads its neighbours' real gains of the whole resolution
        (the tracks now minus ``before``), once the resolution's choices are made (I17)."""
        has_cat = self.abilities[idx] == rules.CAT
        games = np.flatnonzero(has_cat.any(axis=1))
        if games.size:
            g = idx[games]
            gains = self.tracks[g, :, :2].astype(np.int64) - self.before[g]
            self._cat_gains(g, has_cat[games].argmax(axis=1), gains >= 3)

    def _next_choice(self, idx: np.ndarray, tracks: np.ndarray | None = None) -> None:
        """The next queued choice, or the end check and the next turn; ``tracks``: ``self.tracks[idx]``
        when the caller has it and nothing is queued."""
        if not idx.size:
            return
        if tracks is None:
            queued = self.queue_n[idx] > 0
            if queued.any():
                rows = idx[queued]
                self.queue_n[rows] -= 1
                self.phase[rows] = _CHOOSE
                active = self.active[rows]
                self.pending[rows] = self.abilities[rows, active.astype(np.int64)]
                self.decider[rows] = active
                idx = idx[~queued]
            self.pending[idx] = rules.NO_ABILITY
            if self.cat_actual and idx.size:
                self._cat_on_real_gains(idx)
        ended = self._end_check(idx, tracks)
        self._begin_turn(idx[~ended] if ended.any() else idx)

    def _end_check(self, idx: np.ndarray, tracks: np.ndarray | None = None) -> np.ndarray:
        """End the games where someone reached 20 Love/Adventure or a token melted (R5.1-R5.4, R6.1-R6.3)."""
        if not idx.size:
            return np.zeros(0, dtype=bool)
        if tracks is None:
            tracks = self.tracks[idx]
        ended = (tracks[:, :, :2] >= _GOAL).any(axis=(1, 2))
        ended |= (tracks[:, :, 2] <= 0).any(axis=1)
        if not ended.any():
            return ended
        love, adventure, melt = tracks[:, :, 0], tracks[:, :, 1], tracks[:, :, 2]
        goal = (love >= _GOAL) | (adventure >= _GOAL)
        melted = melt <= 0
        any_goal = goal.any(axis=1)
        survivors = ~melted
        final = np.where(survivors, np.minimum(love, adventure), -1)
        best = final.max(axis=1, keepdims=True)
        by_score = survivors & (final == best)
        winners = np.where(any_goal[:, None], goal, by_score)
        rows = idx[ended]
        self.melted[rows] = melted[ended]
        self.winners[rows] = winners[ended]
        self.phase[rows] = _OVER
        self.decider[rows] = -1
        self.pending[rows] = rules.NO_ABILITY
        return ended

    def _begin_turn(self, idx: np.ndarray) -> None:
        if not idx.size:
            return
        self.last_dice[idx] = self.dice[idx]
        active = self.active[idx]
        self.last_active[idx] = active
        nxt = active + 1
        nxt[nxt == self.num_players] = 0
        self.active[idx] = nxt
        self.decider[idx] = nxt
        self.turn[idx] += 1
        self.rerolls[idx] = 0
        if self.expansion:
            self.ninja_applied[idx] = False
        self.phase[idx] = _REROLL
        self._roll_all(idx)

    def _apply(self, idx: np.ndarray, actions: np.ndarray) -> None:
        phase = self.phase[idx]
        reroll = phase == _REROLL
        if reroll.all():
            rows, act = idx, actions
        elif reroll.any():
            rows, act = idx[reroll], actions[reroll]
        else:
            rows = idx[:0]
        if rows.size:
            stop = act == rules.STOP
            if stop.any():
                self._start_resolution(rows[stop])
                go = ~stop
                rows, act = rows[go], act[go]
        if rows.size:
            rerolls = self.rerolls[rows]
            paid = rerolls >= 1  # R2.3: a re-roll after the free one costs 1 Melt
            active = self.active[rows].astype(np.intp)
            if paid.any():
                payers, paying = rows[paid], active[paid]
                left = self.melt[payers, paying] - 1
                self.melt[payers, paying] = left
                if (left <= 0).any():  # only with reroll_can_melt: melts at once
                    melted = np.zeros(rows.size, dtype=bool)
                    melted[paid] = left <= 0
                    self._end_check(rows[melted])
                    keep = ~melted
                    rows, act, rerolls, active = rows[keep], act[keep], rerolls[keep], active[keep]
            rerolls += 1
            self.rerolls[rows] = rerolls
            self._roll(rows, act)
            can = (rerolls <= self.paid) & (self.melt[rows, active] > self.min_melt_to_pay)
            self._start_resolution(rows[~can])
        ninja = phase == _NINJA
        if self.expansion and ninja.any():
            rows, act = idx[ninja], actions[ninja]
            apply = rows[act == rules.NINJA_APPLY]
            self.ninja_applied[apply] = True
            self._plan(apply)
            self._after_plan(rows)
        choose = phase == _CHOOSE
        if self.expansion and choose.any():
            rows, act = idx[choose], actions[choose]
            seat = self.decider[rows].astype(np.int64)
            pending = self.pending[rows]
            knight = pending == rules.KNIGHT
            amount = np.where(knight, 1, 2)
            love = act == rules.CHOOSE_LOVE
            lr, ar = rows[love], rows[~love]
            self.love[lr, seat[love]] = np.minimum(_GOAL, self.love[lr, seat[love]] + amount[love])
            self.adventure[ar, seat[~love]] = np.minimum(_GOAL, self.adventure[ar, seat[~love]] + amount[~love])
            kr = rows[knight]
            self.plan[kr, seat[knight], 2] -= 1
            self._apply_dice(kr)
            self._next_choice(rows[~knight])

    def _deciding(self, idx: np.ndarray) -> np.ndarray:
        return self.decider[idx].astype(np.int64)

    def _is_over(self, idx: np.ndarray) -> np.ndarray:
        return self.phase[idx] == _OVER

    def _outcome(self, idx: np.ndarray) -> np.ndarray:
        over = (self.phase[idx] == _OVER)[:, None]
        return np.where(over, np.where(self.winners[idx], 1.0, -1.0), 0.0)

    def _scores(self, idx: np.ndarray) -> np.ndarray:
        total = self.love[idx].astype(np.int64) + self.adventure[idx] + self.melt[idx] - rules.START_MELT
        return total.astype(np.float64)

    # ------------------------------------------------------------------ observation
    def _refresh(self, idx: np.ndarray) -> None:
        """Mask, deciding seat and observation of the games of ``idx``, written in place for the whole batch."""
        if not idx.size:
            return
        if idx.size == self.num_envs:  # idx is sorted and unique: every game
            np.take(_MASKS_I8, self.phase, axis=0, out=self.mask)
            self.seat[:] = self.decider
            self._encode(idx, self.seat, out=self.obs)
            return
        self.mask[idx] = _MASKS_I8[self.phase[idx]]
        seats = self._deciding(idx)
        self.seat[idx] = seats
        self.obs[idx] = self._encode(idx, seats)

    def _all_seats_obs(self, idx: np.ndarray) -> np.ndarray:
        """Every seat's observation of the games of ``idx``, in one encoding."""
        p = self.num_players
        out = np.empty((idx.size, p, self.obs_dim), dtype=np.float32)
        if idx.size:
            self._encode(np.repeat(idx, p), np.tile(np.arange(p), idx.size), out=out.reshape(-1, self.obs_dim))
        return out

    def _encode(self, idx: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        k, p, at = idx.size, self.num_players, self._at
        if out is None:
            out = np.empty((k, self.obs_dim), dtype=np.float32)
        out[:] = self._template
        full = k == self.num_envs and out is self.obs  # idx is every game, in order
        phase = self.phase if full else self.phase[idx]
        rel = self._rel[seats]  # (k, P): the seat r to the observer's left
        g = self._rows if full else idx[:, None]
        block = out[:, at["seats"] : at["seats"] + 55].reshape(k, 5, 11)
        tracks = self.tracks[g, rel].view(np.uint8)
        if _GOAL == rules.START_MELT:
            block[:, :p, :3] = _DIV_GOAL[tracks]
        else:
            block[:, :p, :2] = _DIV_GOAL[tracks[:, :, :2]]
            block[:, :p, 2] = _DIV_MELT[tracks[:, :, 2]]
        active = self.active if full else self.active[idx]
        decider = self.decider if full else self.decider[idx]
        over = phase == _OVER
        if over.any():
            live = ~over[:, None]
            block[:, :p, 4] = (rel == active[:, None]) & live
            block[:, :p, 5] = (rel == decider[:, None]) & live
        else:
            block[:, :p, 4] = rel == active[:, None]
            block[:, :p, 5] = rel == decider[:, None]
        if self.expansion:
            block[:, :p, 6:] = _ABILITY_HOT[self.abilities[g, rel]]
        code = self.dice_code if full else self.dice_code[idx]
        out[:, self._dice_lo : self._dice_hi] = self._dice_obs[code]
        key = phase.astype(np.intp)
        key *= self._nr
        key += self.rerolls if full else self.rerolls[idx]
        key *= rules.NUM_ABILITIES + 1
        key += self.pending if full else self.pending[idx]
        key += 1
        out[:, self._tail_lo : self._tail_hi] = self._tail[key]
        if self.paid:
            rr = np.flatnonzero(phase == _REROLL)
            if rr.size:  # rules.paid_rerolls_left: the turn's allowance left, limited by the payer's Melt
                g = idx[rr]
                by_count = self.paid - np.maximum(self.rerolls[g].astype(np.int64) - 1, 0)
                by_melt = self.melt[g, self.active[g].astype(np.intp)].astype(np.int64) - self.min_melt_to_pay
                out[rr, at["paid_left"]] = np.maximum(np.minimum(by_count, by_melt), 0) / self.paid
        if self.expansion:
            dr = np.flatnonzero((phase == _NINJA) | (phase == _CHOOSE))
            if dr.size:
                gd = idx[dr]
                plan = np.zeros((dr.size, 5, 3), dtype=np.float32)
                plan[:, :p] = _DIV_DICE[self.plan[gd[:, None], rel[dr]].view(np.uint8)]
                out[dr, at["plan"] : at["plan"] + 15] = plan.reshape(dr.size, 15)
        return out
