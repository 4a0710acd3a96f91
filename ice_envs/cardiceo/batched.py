"""Cardiceo as a batched engine: many games per numpy call, the transitions of ``rules.py`` exactly.

State of game ``i`` (rows of the arrays below; :meth:`CardiceoBatched.state_of` gives it as a
:class:`~ice_envs.cardiceo.rules.CardiceoState`): ``hands[i, p, v]`` cards of value ``v + 1`` held
by seat ``p``, ``sizes[i, p]`` their number, ``discarded[i, v]``, ``dice[i]`` (d4, d8, d12),
``used[i]`` / ``locked[i]`` per die, ``current``, ``phase``, ``winner``, ``turn`` and the public
record of R7.6: ``stuck_dice[i, p]`` (seat p's dice when it was last unable to play, zeros if never)
and ``known_missing[i, p, v]`` (seat p is known to hold no card of value ``v + 1``).

A step groups the games by the kind of action (the "No play" choice, end turn, a discard) and
applies each group with array operations; the chain that an action may set off (R2.3's
automatic end of a stuck turn, the passed dice re-rolled, the next player stuck too) is at most
two turn ends deep and is followed group by group. Dice are drawn per die in die order, as
``rules._roll`` draws them (``integers(1, faces + 1)``), so a draw log replays into the scalar
engine unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.cardiceo import rules
from ice_envs.core.vector import BatchedEngine

_NV = rules.NUM_VALUES
_FACES = np.array(rules.DIE_FACES, dtype=np.int64)
#: ``(7, 3)``: die membership of each subset action.
_SUBSETS = np.array([[i in s for i in range(rules.NUM_DICE)] for s in rules.SUBSETS], dtype=bool)
_SUBSETS_INT = _SUBSETS.astype(np.int64)
_ALL3 = np.ones(rules.NUM_DICE, dtype=bool)


def scalar_deal(state: rules.CardiceoState) -> tuple[dict[str, Any], bool]:
    """The scalar env's reset options dealing ``state``'s hands with seat 0 to start; its first roll
    is replayed from the batched engine's draws (:meth:`BatchedEngine.scalar_start`)."""
    hands = [[v + 1 for v, c in enumerate(counts.tolist()) for _ in range(c)] for counts in state.hands]
    return {"hands": hands, "start_player": 0}, True


class CardiceoBatched(BatchedEngine):
    """Batched Cardiceo (see the module docstring and :class:`ice_envs.core.vector.BatchedEngine`)."""

    game = "cardiceo"
    state_names = (
        "hands",
        "sizes",
        "discarded",
        "dice",
        "used",
        "locked",
        "current",
        "phase",
        "winner",
        "turn",
        "stuck_dice",
        "known_missing",
    )

    # ------------------------------------------------------------------ state
    def _setup(self) -> None:
        n, p = self.num_envs, self.num_players
        self.hands = np.zeros((n, p, _NV), dtype=np.int8)
        self.sizes = np.zeros((n, p), dtype=np.int8)
        self.discarded = np.zeros((n, _NV), dtype=np.int8)
        self.dice = np.ones((n, 3), dtype=np.int8)
        self.used = np.zeros((n, 3), dtype=bool)
        self.locked = np.zeros((n, 3), dtype=bool)
        self.current = np.zeros(n, dtype=np.int8)
        self.phase = np.full(n, rules.PHASE_DISCARD, dtype=np.int8)
        self.winner = np.full(n, -1, dtype=np.int8)
        self.turn = np.zeros(n, dtype=np.int32)
        self.stuck_dice = np.zeros((n, p, 3), dtype=np.int8)
        self.known_missing = np.zeros((n, p, _NV), dtype=bool)
        self.hand_size = int(self.config.hand_size)
        self.forced = bool(self.config.forced_discard)
        lay = self.obs_layout
        self._at = {name: lay.offset(name) for name in lay.names}
        p_range = np.arange(p)
        self._rel = (p_range[:, None] + p_range[None, :]) % p  # _rel[seat, r]: the seat r to the left of seat
        self._size_scale = 1.0 / self.hand_size

    def _new_games(self, idx: np.ndarray) -> None:
        k, p, hs = idx.size, self.num_players, self.hand_size
        # a uniformly shuffled 60-card deck per game; seat q gets cards q*hs .. (q+1)*hs-1 (rules.new_game)
        order = np.argsort(self.rng.random((k, _NV * rules.COPIES_PER_VALUE)), axis=1)
        cards = (order[:, : p * hs] // rules.COPIES_PER_VALUE).reshape(k, p, hs)
        counts = np.zeros((k * p, _NV), dtype=np.int8)
        np.add.at(counts, (np.repeat(np.arange(k * p), hs), cards.reshape(-1)), 1)
        self.hands[idx] = counts.reshape(k, p, _NV)
        self.sizes[idx] = hs
        self.discarded[idx] = 0
        self.used[idx] = False
        self.locked[idx] = False
        self.current[idx] = 0
        self.winner[idx] = -1
        self.turn[idx] = 0
        self.stuck_dice[idx] = 0
        self.known_missing[idx] = False
        self._roll(idx, np.broadcast_to(_ALL3, (k, 3)))
        self.phase[idx] = rules.PHASE_DISCARD
        self._auto_end_if_stuck(idx)

    def state_of(self, i: int) -> rules.CardiceoState:
        return rules.CardiceoState(
            config=self.config,
            hands=self.hands[i].astype(np.int64),
            discarded=self.discarded[i].astype(np.int64),
            dice=self.dice[i].astype(np.int64),
            used=self.used[i].copy(),
            locked=self.locked[i].copy(),
            current=int(self.current[i]),
            phase=int(self.phase[i]),
            winner=int(self.winner[i]),
            turn=int(self.turn[i]),
            stuck_dice=self.stuck_dice[i].astype(np.int64),
            known_missing=self.known_missing[i].copy(),
        )

    def scalar_start(self, i: int) -> tuple[dict[str, Any], bool]:
        return scalar_deal(self.state_of(i))

    # ------------------------------------------------------------------ rules
    def _discards(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(k, 7)`` legal discards (phase discarding, dice free, total a card in hand) and the totals."""
        totals = self.dice[idx].astype(np.int64) @ _SUBSETS_INT.T
        blocked = (self.used[idx].astype(np.int64) @ _SUBSETS_INT.T) > 0
        hand = self.hands[idx, self.current[idx]]
        card = np.minimum(totals, _NV) - 1
        has = np.take_along_axis(hand, card, axis=1) > 0
        ok = has & ~blocked & (totals <= _NV) & (self.phase[idx] == rules.PHASE_DISCARD)[:, None]
        return ok, totals

    def _legal(self, idx: np.ndarray) -> np.ndarray:
        ok, _ = self._discards(idx)
        out = np.zeros((idx.size, rules.NUM_ACTIONS), dtype=bool)
        out[:, : rules.NUM_SUBSETS] = ok
        if not self.forced:
            out[:, rules.END_TURN] = ok.any(axis=1)
        choice = self.phase[idx] == rules.PHASE_NO_PLAY_CHOICE
        out[:, rules.KEEP_DICE] = choice
        out[:, rules.REROLL_ALL] = choice
        return out

    def _roll(self, idx: np.ndarray, which: np.ndarray) -> None:
        """Re-roll the dice ``which`` (``(k, 3)`` bool) of the games ``idx``; draws logged per game in die order."""
        rows, dies = np.nonzero(which)
        if not rows.size:
            return
        games = idx[rows]
        values = self.rng.integers(1, _FACES[dies] + 1)
        self._log_draws(games, values)
        self.dice[games, dies] = values

    def _end_turn(self, idx: np.ndarray) -> None:
        """R2.4-R2.6: the used dice pass to the next player (re-rolled), the unused ones stay in the middle."""
        if not idx.size:
            return
        passed = self.used[idx]
        self.current[idx] = (self.current[idx] + 1) % self.num_players
        self.turn[idx] += 1
        self.used[idx] = False
        any_passed = passed.any(axis=1)
        rolled, passed = idx[any_passed], passed[any_passed]
        self._roll(rolled, passed)
        self.locked[rolled] = ~passed
        self.phase[rolled] = rules.PHASE_DISCARD
        none = idx[~any_passed]
        self.locked[none] = True
        self.phase[none] = rules.PHASE_NO_PLAY_CHOICE
        self._auto_end_if_stuck(rolled)

    def _auto_end_if_stuck(self, idx: np.ndarray) -> None:
        """R2.3: the turn ends by itself once no discard is possible."""
        if not idx.size:
            return
        ok, _ = self._discards(idx)
        stuck = (self.phase[idx] == rules.PHASE_DISCARD) & ~ok.any(axis=1)
        self._record_stuck(idx[stuck])
        self._end_turn(idx[stuck])

    def _record_stuck(self, idx: np.ndarray) -> None:
        """R7.6: the current seat of each game ``idx`` holds no value its free dice make; with no die used
        it was unable to play, and the dice are its last stuck dice (``rules._record_stuck``)."""
        if not idx.size:
            return
        cur = self.current[idx].astype(np.int64)
        used = self.used[idx]
        totals = self.dice[idx].astype(np.int64) @ _SUBSETS_INT.T
        made = ((used.astype(np.int64) @ _SUBSETS_INT.T) == 0) & (totals <= _NV)
        r, sub = np.nonzero(made)
        self.known_missing[idx[r], cur[r], totals[r, sub] - 1] = True
        none = ~used.any(axis=1)
        self.stuck_dice[idx[none], cur[none]] = self.dice[idx[none]]

    def _apply(self, idx: np.ndarray, actions: np.ndarray) -> None:
        choice = actions >= rules.KEEP_DICE
        if choice.any():
            rows, act = idx[choice], actions[choice]
            reroll = rows[act == rules.REROLL_ALL]
            self._roll(reroll, np.broadcast_to(_ALL3, (reroll.size, 3)))
            self.locked[reroll] = False
            self.locked[rows[act == rules.KEEP_DICE]] = True
            self.phase[rows] = rules.PHASE_DISCARD
            self._auto_end_if_stuck(rows)
        end = actions == rules.END_TURN
        if end.any():
            self._end_turn(idx[end])
        disc = actions < rules.NUM_SUBSETS
        if disc.any():
            rows, act = idx[disc], actions[disc]
            totals = (self.dice[rows].astype(np.int64) * _SUBSETS_INT[act]).sum(axis=1)
            cur = self.current[rows].astype(np.int64)
            self.hands[rows, cur, totals - 1] -= 1
            self.discarded[rows, totals - 1] += 1
            self.sizes[rows, cur] -= 1
            self.used[rows] |= _SUBSETS[act]
            won = self.sizes[rows, cur] == 0  # R5.1: emptying the hand wins at once
            winners = rows[won]
            self.winner[winners] = self.current[winners]
            self.phase[winners] = rules.PHASE_OVER
            self._auto_end_if_stuck(rows[~won])

    def _deciding(self, idx: np.ndarray) -> np.ndarray:
        return self.current[idx].astype(np.int64)

    def _is_over(self, idx: np.ndarray) -> np.ndarray:
        return self.phase[idx] == rules.PHASE_OVER

    def _outcome(self, idx: np.ndarray) -> np.ndarray:
        won = self.winner[idx] >= 0
        out = np.where(won[:, None], -1.0, 0.0) * np.ones(self.num_players)
        rows = np.flatnonzero(won)
        out[rows, self.winner[idx[rows]]] = 1.0
        return out

    def _scores(self, idx: np.ndarray) -> np.ndarray:
        return (self.hand_size - self.sizes[idx]).astype(np.float64)

    # ------------------------------------------------------------------ observation
    def _encode(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        k, p, at = idx.size, self.num_players, self._at
        out = np.zeros((k, self.obs_dim), dtype=np.float32)
        rows = np.arange(k)
        out[:, at["hand"] : at["hand"] + _NV] = self.hands[idx, seats] * np.float32(0.25)
        out[:, at["discarded"] : at["discarded"] + _NV] = self.discarded[idx] * np.float32(0.25)
        dice = self.dice[idx].astype(np.int64)
        out[rows[:, None], at["die_values"] + np.array([0, 12, 24]) + dice - 1] = 1.0
        live = np.flatnonzero(self.phase[idx] != rules.PHASE_OVER)
        if live.size:
            g = idx[live]
            used, locked = self.used[g], self.locked[g]
            status = np.where(used, 2, np.where(locked, 1, 0))
            out[live[:, None], at["die_status"] + np.array([0, 3, 6]) + status] = 1.0
            totals = dice[live] @ _SUBSETS_INT.T
            usable = ((used.astype(np.int64) @ _SUBSETS_INT.T) == 0) & (totals <= _NV)
            r, s = np.nonzero(usable)
            out[live[r], at["totals"] + totals[r, s] - 1] = 1.0
            out[live, at["phase"] + self.phase[g]] = 1.0
        rel = self._rel[seats]
        sizes = self.sizes[idx[:, None], rel]
        out[:, at["hand_sizes"] : at["hand_sizes"] + p] = sizes * self._size_scale
        out[:, at["seated"] : at["seated"] + p] = 1.0
        if live.size:
            acting = (self.current[idx[live]].astype(np.int64) - seats[live]) % p
            out[live, at["acting"] + acting] = 1.0
        self._encode_record(out, idx, rel)
        return out

    def _encode_record(self, out: np.ndarray, idx: np.ndarray, rel: np.ndarray) -> None:
        """The pieces ``stuck_dice``, ``stuck`` and ``known_missing`` (R7.6), seats in the order ``rel``."""
        at, p = self._at, self.num_players
        stuck = self.stuck_dice[idx[:, None], rel]  # (k, p, 3), relative seats
        r, q = np.nonzero(stuck[:, :, 0])
        if r.size:
            cols = at["stuck_dice"] + 36 * q[:, None] + np.array([0, 12, 24]) + stuck[r, q].astype(np.int64) - 1
            out[r[:, None], cols] = 1.0
            out[r, at["stuck"] + q] = 1.0
        missing = self.known_missing[idx[:, None], rel]  # (k, p, 15)
        start = at["known_missing"]
        out[:, start : start + p * _NV] = missing.reshape(idx.size, p * _NV)
