"""CubeMelt as a batched engine: many games per numpy call, the transitions of ``rules.py`` exactly.

State of game ``i`` (rows of the arrays below; :meth:`CubeMeltBatched.state_of` gives it as a
:class:`~ice_envs.cubemelt.rules.CubeMeltState`): ``abilities``, ``love``, ``adventure``, ``melt``
per seat, the six ``dice``, ``active``, ``decider`` (the seat that decides now, off-turn for the
Knight's conversion), ``phase``, ``rerolls``, ``pending``, ``ninja_applied``, the resolution in
progress ``plan[i, p]`` (Love gained, Adventure gained, Melt lost), ``queue_n`` (choices still
queued: they all belong to the active seat — the Dragon once per neighbour hit or the Unicorn —
so a count and the active seat's ability say it all), ``last_dice``, ``last_active``, ``winners``,
``melted`` (per seat, as masks) and ``turn``. The engine's ``events`` / ``last_events`` lists
(text rendering only: never observed, never rewarded) are not kept.

A step groups the games by phase and action and follows the resolution order of R4.6 (Ninja,
Knight, dice, triggered gains, end check, next turn) group by group. A roll draws one number
below ``F**k`` per game (F faces, k dice re-rolled) and reads its base-F digits, as
``rules._roll`` does, so a draw log replays into the scalar engine unchanged.
"""

from __future__ import annotations

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
#: FACE_TRACK as a (4 faces, 3 tracks) 0/1 matrix.
_FACE_TRACK = np.zeros((rules.NUM_KINDS, 3), dtype=np.int64)
_FACE_TRACK[np.arange(rules.NUM_KINDS), rules.FACE_TRACK] = 1
_KINDS = np.arange(rules.NUM_KINDS)


class CubeMeltBatched(BatchedEngine):
    """Batched CubeMelt (see the module docstring and :class:`ice_envs.core.vector.BatchedEngine`)."""

    game = "cubemelt"
    state_names = (
        "abilities",
        "love",
        "adventure",
        "melt",
        "dice",
        "counts",
        "active",
        "decider",
        "phase",
        "rerolls",
        "pending",
        "ninja_applied",
        "plan",
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
        self.love = np.zeros((n, p), dtype=np.int8)
        self.adventure = np.zeros((n, p), dtype=np.int8)
        self.melt = np.full((n, p), rules.START_MELT, dtype=np.int8)
        self.dice = np.zeros((n, _ND), dtype=np.int8)
        #: dice per face kind (derived from ``dice``, kept for speed)
        self.counts = np.zeros((n, rules.NUM_KINDS), dtype=np.int8)
        self.active = np.zeros(n, dtype=np.int8)
        self.decider = np.zeros(n, dtype=np.int8)
        self.phase = np.zeros(n, dtype=np.int8)
        self.rerolls = np.zeros(n, dtype=np.int8)
        self.pending = np.full(n, rules.NO_ABILITY, dtype=np.int8)
        self.ninja_applied = np.zeros(n, dtype=bool)
        self.plan = np.zeros((n, p, 3), dtype=np.int8)
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
        self.expansion = bool(cfg.expansion)
        self.paid = int(cfg.paid_rerolls)
        self.min_melt_to_pay = 0 if cfg.reroll_can_melt else 1
        self.per_neighbour = bool(cfg.per_neighbour)
        seats = np.arange(p)
        self._left = (seats + 1) % p
        self._right = (seats - 1) % p
        self._two = p == 2
        eye = np.eye(p, dtype=bool)
        near = np.zeros((p, p), dtype=bool)
        near[seats, self._left] = True
        near[seats, self._right] = True
        #: per active seat: who receives the most frequent face / the other dice (normal, Ninja)
        self._near = near
        self._self = eye
        self._others = ~eye if cfg.ninja_targets == "all" else near
        self._rel = (seats[:, None] + seats[None, :]) % p
        lay = self.obs_layout
        self._at = {name: lay.offset(name) for name in lay.names}
        self._dice_cols = self._at["dice"] + 4 * np.arange(_ND)

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
        self.queue_n[idx] = 0
        self.last_dice[idx] = 0
        self.last_active[idx] = -1
        self.winners[idx] = False
        self.melted[idx] = False
        self.turn[idx] = 0
        self._roll(idx, np.full(k, rules.NUM_SUBSETS - 1))

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

    def _roll(self, idx: np.ndarray, subsets: np.ndarray) -> None:
        """Re-roll the dice of bitmask ``subsets[j]`` in game ``idx[j]``: one draw below F**k, base-F digits."""
        if not idx.size:
            return
        subsets = np.asarray(subsets, dtype=np.int64)
        nf = self.nf
        code = self._integers(idx, 0, self._highs[subsets])
        bits = _BITS[subsets].astype(bool)
        digits = (code[:, None] // self._powers[_RANK[subsets]]) % nf
        dice = np.where(bits, self.faces[digits], self.dice[idx])
        self.dice[idx] = dice
        self.counts[idx] = (dice[:, :, None] == _KINDS).sum(axis=1)

    def _counts(self, idx: np.ndarray) -> np.ndarray:
        """``(k, 4)`` dice per face kind."""
        return self.counts[idx]

    def _plan(self, idx: np.ndarray) -> None:
        """``rules.dice_plan`` for every game of ``idx`` (Ninja where ``ninja_applied``)."""
        counts = self.counts[idx].astype(np.int64)
        top = counts.max(axis=1)
        tie = (counts == top[:, None]).sum(axis=1) > 1
        main = counts.argmax(axis=1)
        every = counts @ _FACE_TRACK  # (k, 3): what all the dice give
        main_gives = np.where(tie[:, None], 0, top[:, None] * _FACE_TRACK[main])  # no main face on a tie
        rest_gives = every - main_gives
        active = self.active[idx].astype(np.int64)
        ninja = self.ninja_applied[idx][:, None]
        main_to = np.where(ninja, self._self[active], self._near[active])  # (k, P)
        rest_to = np.where(ninja, self._others[active], self._self[active])
        self.plan[idx] = main_to[:, :, None] * main_gives[:, None, :] + rest_to[:, :, None] * rest_gives[:, None, :]

    def _start_resolution(self, idx: np.ndarray) -> None:
        if not idx.size:
            return
        self.ninja_applied[idx] = False
        self._plan(idx)
        if self.expansion:
            active = self.active[idx].astype(np.int64)
            ninja = (self.abilities[idx, active] == rules.NINJA) & (self._counts(idx).max(axis=1) >= 5)
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
        self.love[idx] = np.minimum(_GOAL, self.love[idx] + plan[:, :, 0])
        self.adventure[idx] = np.minimum(_GOAL, self.adventure[idx] + plan[:, :, 1])
        self.melt[idx] = np.maximum(0, self.melt[idx] - plan[:, :, 2])
        self.queue_n[idx] = 0
        if self.expansion:
            self._trigger(idx, plan)
        self._next_choice(idx)

    def _trigger(self, idx: np.ndarray, plan: np.ndarray) -> None:
        """Cat (automatic), Dragon and Unicorn (the active player's, queued choices): R7.2, R7.3, R7.6."""
        abilities = self.abilities[idx]
        rows = np.arange(idx.size)
        has_cat = abilities == rules.CAT
        cat_games = np.flatnonzero(has_cat.any(axis=1))
        if cat_games.size:
            cat = has_cat[cat_games].argmax(axis=1)
            for track, board in ((0, self.love), (1, self.adventure)):
                gained = plan[cat_games, :, track] >= 3
                hits = gained[np.arange(cat_games.size), self._left[cat]].astype(np.int64)
                if not self._two:
                    hits = hits + gained[np.arange(cat_games.size), self._right[cat]]
                amount = hits if self.per_neighbour else np.minimum(hits, 1)
                g = idx[cat_games]
                board[g, cat] = np.minimum(_GOAL, board[g, cat] + amount)
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
            every_face = self._counts(idx[unicorn]).min(axis=1) > 0
            self.queue_n[idx[unicorn[every_face]]] = 1

    def _next_choice(self, idx: np.ndarray) -> None:
        if not idx.size:
            return
        queued = self.queue_n[idx] > 0
        rows = idx[queued]
        if rows.size:
            self.queue_n[rows] -= 1
            self.phase[rows] = _CHOOSE
            active = self.active[rows]
            self.pending[rows] = self.abilities[rows, active.astype(np.int64)]
            self.decider[rows] = active
        rest = idx[~queued]
        self.pending[rest] = rules.NO_ABILITY
        ended = self._end_check(rest)
        self._begin_turn(rest[~ended])

    def _end_check(self, idx: np.ndarray) -> np.ndarray:
        """End the games where someone reached 20 Love/Adventure or a token melted (R5.1-R5.4, R6.1-R6.3)."""
        if not idx.size:
            return np.zeros(0, dtype=bool)
        love, adventure, melt = self.love[idx], self.adventure[idx], self.melt[idx]
        goal = (love >= _GOAL) | (adventure >= _GOAL)
        melted = melt <= 0
        any_goal = goal.any(axis=1)
        ended = any_goal | melted.any(axis=1)
        if not ended.any():
            return ended
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
        self.last_active[idx] = self.active[idx]
        nxt = (self.active[idx] + 1) % self.num_players
        self.active[idx] = nxt
        self.decider[idx] = nxt
        self.turn[idx] += 1
        self.rerolls[idx] = 0
        self.ninja_applied[idx] = False
        self.phase[idx] = _REROLL
        self._roll(idx, np.full(idx.size, rules.NUM_SUBSETS - 1))

    def _apply(self, idx: np.ndarray, actions: np.ndarray) -> None:
        phase = self.phase[idx]
        reroll = phase == _REROLL
        if reroll.any():
            rows, act = idx[reroll], actions[reroll]
            self._start_resolution(rows[act == rules.STOP])
            go = act != rules.STOP
            rows, act = rows[go], act[go]
            if rows.size:
                paid = self.rerolls[rows] >= 1  # R2.3: a re-roll after the free one costs 1 Melt
                payers = rows[paid]
                active = self.active[payers].astype(np.int64)
                self.melt[payers, active] -= 1
                melted = np.zeros(rows.size, dtype=bool)
                melted[paid] = self.melt[payers, active] <= 0  # only with reroll_can_melt: melts at once
                self._end_check(rows[melted])
                rows, act = rows[~melted], act[~melted]
                self.rerolls[rows] += 1
                self._roll(rows, act)
                active = self.active[rows].astype(np.int64)
                can = (self.rerolls[rows] <= self.paid) & (self.melt[rows, active] > self.min_melt_to_pay)
                self._start_resolution(rows[~can])
        ninja = phase == _NINJA
        if ninja.any():
            rows, act = idx[ninja], actions[ninja]
            apply = rows[act == rules.NINJA_APPLY]
            self.ninja_applied[apply] = True
            self._plan(apply)
            self._after_plan(rows)
        choose = phase == _CHOOSE
        if choose.any():
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
    def _encode(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        k, p, at = idx.size, self.num_players, self._at
        out = np.zeros((k, self.obs_dim), dtype=np.float32)
        rows = np.arange(k)
        phase = self.phase[idx]
        live = phase != _OVER
        rel = self._rel[seats]  # (k, P): the seat r to the observer's left
        g = idx[:, None]
        block = np.zeros((k, 5, 11), dtype=np.float32)
        block[:, :p, 0] = self.love[g, rel] / _GOAL
        block[:, :p, 1] = self.adventure[g, rel] / _GOAL
        block[:, :p, 2] = self.melt[g, rel] / rules.START_MELT
        block[:, :p, 3] = 1.0
        block[:, :p, 4] = (rel == self.active[idx][:, None]) & live[:, None]
        block[:, :p, 5] = (rel == self.decider[idx][:, None]) & live[:, None]
        ability = self.abilities[g, rel].astype(np.int64)
        r, s = np.nonzero(ability >= 0)
        block[r, s, 6 + ability[r, s]] = 1.0
        out[:, at["seats"] : at["seats"] + 55] = block.reshape(k, 55)
        out[rows[:, None], self._dice_cols + self.dice[idx]] = 1.0
        out[:, at["face_counts"] : at["face_counts"] + 4] = self.counts[idx] / _ND
        rr = np.flatnonzero(phase == _REROLL)
        if rr.size:
            rerolls = self.rerolls[idx[rr]].astype(np.int64)
            out[rr, at["reroll_cost"] + (rerolls != 0)] = 1.0
            out[rr, at["decision"]] = 1.0
            if self.paid:
                out[rr, at["paid_left"]] = np.maximum(0, self.paid - np.maximum(0, rerolls - 1)) / self.paid
        dr = np.flatnonzero((phase == _NINJA) | (phase == _CHOOSE))
        if dr.size:
            gd = idx[dr]
            slot = np.where(phase[dr] == _NINJA, 1, _DECISION_SLOT[np.maximum(self.pending[gd], 0)])
            out[dr, at["decision"] + slot] = 1.0
            plan = np.zeros((dr.size, 5, 3), dtype=np.float32)
            plan[:, :p] = self.plan[gd[:, None], rel[dr]] / _ND
            out[dr, at["plan"] : at["plan"] + 15] = plan.reshape(dr.size, 15)
        out[:, at["expansion"]] = float(self.expansion)
        return out
