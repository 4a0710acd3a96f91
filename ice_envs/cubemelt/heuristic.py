"""CubeMelt heuristic.

Strategy, as a decent player would play:

1. **Keep the faces that pay you, aim the majority at your neighbours.** The face shown
   most often goes to the players beside you, the rest to you. So the ideal roll has
   Sad or Drooping as the unique majority (your neighbours melt) and Hearts or Stars on
   the other dice (you gain); a big Heart or Star majority is a gift to your neighbours
   and is avoided, and a tie (everything to you) is fine only without many melting faces.
2. **Think the re-rolls through.** Only how many dice show each face matters, so a roll
   is one of 84 face counts and a "keep" is one of 210 sub-counts. Every keep is scored
   by its exact expected value over the re-rolled dice, looking ahead to the next
   re-roll (expectimax over the free re-roll and the paid one).
3. **The paid re-roll only when it pays.** It costs a Melt: the look-ahead values the
   position one Melt lower and pays only if the better dice are worth more than that.
4. **What a position is worth.** A finished game is worth 1 if you win (also shared) and
   0 otherwise. Otherwise the agent estimates its chance to win from two endings:
   the race to 20 (a softmax over everyone's best track, so pushing one track is
   good and feeding a neighbour's best track is bad) and the melt ending (the player
   with the lowest Melt is likely to melt, then the highest min(Love, Adventure) among
   the others wins). The melt ending weighs more as someone's Melt nears 0 compared
   with how far the leader is from 20; then balancing Love and Adventure and melting
   the right neighbour pay off.
5. **Abilities (expansion).** They are part of the resolution it looks ahead over: the
   Knight's conversion, the Cat's gains (on the planned dice, or with
   ``cat_trigger="actual"`` on the real gains after the cap, leaving out its own
   Dragon/Unicorn choice), the Dragon's and Unicorn's 2 points and the Ninja's option
   (taken when it scores better). Its own Love-or-Adventure choices
   pick the option whose resulting position scores best: in practice the track closer
   to 20, or the one that lifts min(Love, Adventure) when someone is close to melting.

It reads only the public state of the game (everything in CubeMelt is public).

**Bit-exact on any CPU.** Position values come from ``exp`` (softmaxes), whose last bit differs between
numpy's SIMD paths and libm, so every value is rounded to a multiple of :data:`VALUE_QUANTUM` (``2**-20``)
where it is made (:meth:`CubeMeltHeuristic.values`). The look-ahead over re-rolls works on those values as
integers, in quanta, and rounds nothing but its own expectations, exactly: keeping ``KEEPS[k]`` and re-rolling
``r`` dice of ``F`` faces ends on each face count in a whole number of the ``F**r`` equally likely outcomes
(:func:`transition_weights`), so a re-roll's expectation is the fraction ``sum(w * V) / F**r``, rounded to the
nearest quantum in integer arithmetic, a tie to the even one (:func:`expectations`; its sums are of whole
numbers below ``2**53``, exact in any order). A float product of the probabilities would round those ties by
the order of its sum, which differs between BLAS builds. Ties between options are broken by a fixed rule: stop before re-rolling, the first keep in :data:`KEEPS` order, Love before Adventure, decline the Ninja.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from math import factorial

import numpy as np

from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.cubemelt import rules

_KINDS = rules.NUM_KINDS
_DICE = rules.NUM_DICE
#: Every face count of the six dice (Heart, Star, Sad, Drooping), 84 of them.
COUNTS: tuple[tuple[int, ...], ...] = tuple(c for c in product(range(_DICE + 1), repeat=_KINDS) if sum(c) == _DICE)
#: Every sub-count the player may keep (sum 0..6), 210 of them.
KEEPS: tuple[tuple[int, ...], ...] = tuple(c for c in product(range(_DICE + 1), repeat=_KINDS) if sum(c) <= _DICE)
_COUNT_INDEX = {c: i for i, c in enumerate(COUNTS)}
_KEEP_INDEX = {c: i for i, c in enumerate(KEEPS)}
_COUNTS_ARRAY = np.array(COUNTS, dtype=np.int64)
#: ``_KEEP_OK[c, k]``: keep ``k`` is a proper re-roll of count ``c`` (keeps at most its dice, re-rolls at least one).
_KEEP_OK = np.array(
    [[all(k[j] <= c[j] for j in range(_KINDS)) and k != c for k in KEEPS] for c in COUNTS],
    dtype=bool,
)
#: How many re-rolls beyond the current one the look-ahead considers (house rules allow 1 paid;
#: ``docs/rules/cubemelt.md`` R2.3).
_MAX_LOOKAHEAD = 3
#: Below every value in quanta: what a keep that may not be taken is worth.
_NO_KEEP = np.iinfo(np.int64).min
#: Entries of a heuristic's cache of terminal values before it is emptied (each is 84 floats).
_TERMINAL_CACHE_SIZE = 4096


@lru_cache(maxsize=8)
def transition_weights(faces: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, outcomes)``: of the ``outcomes[k] = F**r`` equally likely rolls of the ``r`` dice that keeping
    ``KEEPS[k]`` re-rolls (``F`` faces per die), ``weights[k, c]`` end on ``COUNTS[c]`` (int64, read only).

    ``weights[k, c]`` is the multinomial ``r! / prod(x!)`` times ``prod(faces of kind j ** x[j])``, ``x`` the
    re-rolled dice's face counts. Every row sums to its ``outcomes``, at most ``12**6`` (a die has 1-12 faces).
    """
    nf = len(faces)
    kind_faces = [faces.count(kind) for kind in range(_KINDS)]
    weights = np.zeros((len(KEEPS), len(COUNTS)), dtype=np.int64)
    outcomes = np.zeros(len(KEEPS), dtype=np.int64)
    for ki, keep in enumerate(KEEPS):
        r = _DICE - sum(keep)
        outcomes[ki] = nf**r
        for roll in product(range(r + 1), repeat=_KINDS):
            if sum(roll) != r:
                continue
            ways = factorial(r)
            for kind in range(_KINDS):
                ways = ways // factorial(roll[kind]) * kind_faces[kind] ** roll[kind]
            if ways:
                weights[ki, _COUNT_INDEX[tuple(keep[j] + roll[j] for j in range(_KINDS))]] += ways
    weights.flags.writeable = False
    outcomes.flags.writeable = False
    return weights, outcomes


def transition(faces: tuple[int, ...]) -> np.ndarray:
    """``P[k, c]``: probability that keeping ``KEEPS[k]`` and re-rolling the rest ends on ``COUNTS[c]``
    (:func:`transition_weights` as floats; the heuristic itself computes with the integers)."""
    weights, outcomes = transition_weights(faces)
    return weights / outcomes[:, None]


@lru_cache(maxsize=64)
def dice_plans(
    num_players: int, active: int, ninja: bool, ninja_all: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Love gained, Adventure gained and Melt lost, shape (84, num_players), for every face count."""
    love = np.zeros((len(COUNTS), num_players), dtype=np.int64)
    adv = np.zeros_like(love)
    melt = np.zeros_like(love)
    for i, c in enumerate(COUNTS):
        dice = [kind for kind in range(_KINDS) for _ in range(c[kind])]
        pl, pa, pm = rules.dice_plan(dice, num_players, active, ninja=ninja, ninja_all=ninja_all)
        love[i], adv[i], melt[i] = pl, pa, pm
    return love, adv, melt


#: Values are rounded to multiples of this (a power of two: scaling and rounding back are exact).
VALUE_QUANTUM = 2.0**-20


def quantised(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to the nearest multiple of :data:`VALUE_QUANTUM` (ties to even)."""
    return np.rint(np.asarray(values, dtype=np.float64) / VALUE_QUANTUM) * VALUE_QUANTUM


def in_quanta(values: np.ndarray) -> np.ndarray:
    """Values that are multiples of :data:`VALUE_QUANTUM` (in [-1, 1]) as int64 numbers of quanta (exact)."""
    return np.rint(np.asarray(values, dtype=np.float64) / VALUE_QUANTUM).astype(np.int64)


def expectations(weights: np.ndarray, outcomes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each keep's expected value over its re-roll, in quanta, rounded to the nearest quantum (a tie to the even
    one): ``round(weights @ values / outcomes)`` (:func:`transition_weights`; ``values`` in quanta, int64 out).

    Exact in any summation order: ``|values| <= 2**20`` (values lie in [-1, 1]) and a row's weights sum to at most
    ``12**6 < 2**22``, so every product and every partial sum is an integer within ``2**42`` of zero. A float64
    holds each exactly (``2**42 < 2**53``), so the product may be BLAS's (``weights`` given as float64: its order,
    blocking and fused multiply-adds round nothing), and int64 cannot overflow.
    """
    sums = (np.asarray(weights, dtype=np.float64) @ np.asarray(values, dtype=np.float64)).astype(np.int64)
    whole, rest = np.divmod(sums, outcomes)
    twice = 2 * rest
    return whole + ((twice > outcomes) | ((twice == outcomes) & (whole % 2 == 1)))


@lru_cache(maxsize=8)
def _summable_weights(faces: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`transition_weights` with the weights as float64 (whole numbers, exact) for :func:`expectations`."""
    weights, outcomes = transition_weights(faces)
    summable = weights.astype(np.float64)
    summable.flags.writeable = False
    return summable, outcomes


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class CubeMeltHeuristic(SeededAgent):
    """See the module docstring."""

    name = "heuristic"
    needs_view = True

    #: Race ending: softmax temperature on each player's best track.
    beta_race = 0.35
    #: Melt ending: softmax temperature on min(Love, Adventure) among the survivors.
    beta_min = 0.6
    #: Melt ending: how sharply the lowest Melt is the one that melts.
    gamma_melt = 0.6
    #: Track points a leader gains per round, and Melt the lowest token loses per round.
    race_rate = 2.5
    melt_rate = 1.5
    #: Sharpness of the race-or-melt weighting (per round of difference).
    kappa = 0.6
    #: Share of the estimate lost per Melt space of one's own below 20 (a lean towards keeping Melt).
    melt_cost = 0.02
    #: A shared win is worth a little less than winning alone.
    shared_win = 0.95

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        #: Terminal values by position (:meth:`terminal_values`); a pure cache, decisions do not depend on it.
        self._terminal_cache: dict[tuple, np.ndarray] = {}

    # ------------------------------------------------------------------ acting
    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        mask = observation["action_mask"]
        if view is None:
            return self.random_legal(mask)
        s: rules.CubeMeltState = view.state
        if s.phase == rules.PHASE_REROLL:
            action = self.reroll_action(s, view.seat)
        elif s.phase == rules.PHASE_CHOOSE:
            action = self.choice_action(s, view.seat)
        elif s.phase == rules.PHASE_NINJA:
            action = self.ninja_action(s, view.seat)
        else:
            action = -1
        if 0 <= action < mask.size and mask[action]:
            return action
        return self.random_legal(mask)

    def reroll_action(self, s: rules.CubeMeltState, me: int) -> int:
        """Stop, or the bitmask of the dice to re-roll, by expectimax over the re-rolls left."""
        stop, options = self.reroll_values(s, me)
        if options is None:
            return rules.STOP
        k = int(options.argmax())  # the first keep of the best value
        if options[k] <= stop:  # integers (quanta); a tie stops
            return rules.STOP
        return self._reroll_mask(s.dice, KEEPS[k])

    def reroll_values(self, s: rules.CubeMeltState, me: int) -> tuple[int, np.ndarray | None]:
        """``(stop, options)``: the look-ahead's value of stopping now and of each keep in :data:`KEEPS` (its
        expectation over the re-roll, then the best play), in quanta; ``options`` is None where ``me`` may not
        re-roll, and a keep that is not a proper re-roll of the dice is worth less than anything."""
        c = _COUNT_INDEX[tuple(rules.face_counts(s.dice))]
        levels = self._levels(s, me)
        terminal = [in_quanta(self.terminal_values(s, me, paid)) for paid, _ in levels]
        stop = int(terminal[0][c])
        if not levels[0][1] or len(levels) < 2:
            return stop, None
        weights, outcomes = _summable_weights(tuple(s.config.faces))
        values = terminal[-1]
        for j in range(len(levels) - 2, 0, -1):
            values = self._best_over_keeps(terminal[j], expectations(weights, outcomes, values), levels[j][1])
        ev = expectations(weights, outcomes, values)
        return stop, np.where(_KEEP_OK[c], ev, _NO_KEEP)

    @staticmethod
    def keep_of(dice: list[int], mask: int) -> int:
        """The index in :data:`KEEPS` of the face counts that re-rolling the dice of bitmask ``mask`` keeps."""
        kept = [0] * _KINDS
        for i, d in enumerate(dice):
            if not mask >> i & 1:
                kept[d] += 1
        return _KEEP_INDEX[tuple(kept)]

    def choice_action(self, s: rules.CubeMeltState, me: int) -> int:
        """Love or Adventure: the one whose resulting position is worth more."""
        best, best_value = rules.CHOOSE_LOVE, -np.inf
        for action in (rules.CHOOSE_LOVE, rules.CHOOSE_ADVENTURE):
            after = rules.apply(s.copy(), action, np.random.default_rng(0))
            value = self.state_value(after, me)
            if value > best_value:  # exact (quantised values); a tie keeps Love
                best, best_value = action, value
        return best

    def ninja_action(self, s: rules.CubeMeltState, me: int) -> int:
        """Apply the Ninja's ability when the resolution is worth more that way."""
        c = _COUNT_INDEX[tuple(rules.face_counts(s.dice))]
        apply = self.terminal_values(s, me, 0, ninja="apply")[c]
        decline = self.terminal_values(s, me, 0, ninja="decline")[c]
        return rules.NINJA_APPLY if apply > decline else rules.NINJA_DECLINE  # exact; a tie declines

    # ------------------------------------------------------------------ look-ahead
    @staticmethod
    def _levels(s: rules.CubeMeltState, me: int) -> list[tuple[int, bool]]:
        """For now and every later re-roll level: (Melt paid from now on, may re-roll there)."""
        cfg = s.config
        out: list[tuple[int, bool]] = []
        done = s.rerolls
        paid_now = max(0, done - 1)
        for level in range(done, done + _MAX_LOOKAHEAD + 1):
            paid = max(0, level - 1) - paid_now
            if level == 0:
                allowed = True
            else:
                allowed = level <= cfg.paid_rerolls and s.melt[me] - paid > 1
            if level == done + _MAX_LOOKAHEAD:
                allowed = False
            out.append((paid, allowed))
            if not allowed:
                break
        return out

    @staticmethod
    def _best_over_keeps(stop: np.ndarray, keep_values: np.ndarray, allowed: bool) -> np.ndarray:
        """Per face count, the better of stopping and its best proper keep (in quanta)."""
        if not allowed:
            return stop
        best = np.where(_KEEP_OK, keep_values[None, :], _NO_KEEP).max(axis=1)
        return np.maximum(stop, best)

    @staticmethod
    def _reroll_mask(dice: list[int], keep: tuple[int, ...]) -> int:
        left = list(keep)
        mask = 0
        for i, d in enumerate(dice):
            if left[d] > 0:
                left[d] -= 1
            else:
                mask |= 1 << i
        return mask

    def terminal_values(self, s: rules.CubeMeltState, me: int, paid: int, ninja: str = "best") -> np.ndarray:
        """Value for ``me`` of resolving each of the 84 face counts on ``me``'s turn, after paying ``paid`` Melt.

        Read-only, and cached: the values depend only on the config, the tracks (the active seat's Melt
        after ``paid``), the abilities, the active seat, ``me`` and ``ninja``, and the re-roll decisions of
        one turn ask for the same ones again (a paid re-roll's level is the next decision's level 0).
        """
        melt = list(s.melt)
        melt[s.active] -= paid
        key = (s.config, *s.love, *s.adventure, *melt, *s.abilities, s.active, me, ninja)
        hit = self._terminal_cache.get(key)
        if hit is None:
            if len(self._terminal_cache) >= _TERMINAL_CACHE_SIZE:
                self._terminal_cache.clear()
            hit = self._terminal_values(s, me, paid, ninja)
            hit.flags.writeable = False
            self._terminal_cache[key] = hit
        return hit

    def _terminal_values(self, s: rules.CubeMeltState, me: int, paid: int, ninja: str) -> np.ndarray:
        cfg = s.config
        n, active = cfg.num_players, s.active
        is_ninja = cfg.expansion and s.abilities[active] == rules.NINJA
        ninja_all = cfg.ninja_targets == "all"
        if not is_ninja or ninja == "decline":
            return self._plan_values(s, me, paid, dice_plans(n, active, False, ninja_all))
        applied = self._plan_values(s, me, paid, dice_plans(n, active, True, ninja_all))
        if ninja == "apply":
            return applied
        declined = self._plan_values(s, me, paid, dice_plans(n, active, False, ninja_all))
        eligible = _COUNTS_ARRAY.max(axis=1) >= 5
        return np.where(eligible, np.maximum(applied, declined), declined)

    def _plan_values(
        self,
        s: rules.CubeMeltState,
        me: int,
        paid: int,
        plans: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """Apply a dice plan (with the abilities it triggers) to the tracks and value every row."""
        cfg = s.config
        n, active = cfg.num_players, s.active
        plan_love, plan_adv, plan_melt = plans
        rows = plan_love.shape[0]
        love = np.broadcast_to(np.array(s.love, dtype=np.int64), (rows, n)).copy()
        adv = np.broadcast_to(np.array(s.adventure, dtype=np.int64), (rows, n)).copy()
        melt0 = np.array(s.melt, dtype=np.int64)
        melt0[active] -= paid
        lost = plan_melt.copy()
        mine = np.zeros(rows, dtype=np.int64)  # Love-or-Adventure points that are my own choice
        abilities = s.abilities if cfg.expansion else []
        if rules.KNIGHT in abilities:
            k = abilities.index(rules.KNIGHT)
            conv = lost[:, k] >= 2
            lost[:, k] -= conv
            if k == me:
                mine += conv
            elif s.love[k] >= s.adventure[k]:
                love[:, k] += conv
            else:
                adv[:, k] += conv
        love = np.minimum(rules.GOAL, love + plan_love)
        adv = np.minimum(rules.GOAL, adv + plan_adv)
        melt = np.maximum(0, melt0[None, :] - lost)
        if rules.CAT in abilities:
            cat = abilities.index(rules.CAT)
            near = rules.neighbours(cat, n)
            real = cfg.cat_trigger == "actual"  # real gains (after the cap; my own choices left out)
            for track, plan, start in ((love, plan_love, s.love), (adv, plan_adv, s.adventure)):
                gains = track - np.array(start, dtype=np.int64)[None, :] if real else plan
                hits = sum((gains[:, q] >= 3).astype(np.int64) for q in near)
                gain = hits if cfg.per_neighbour else np.minimum(hits, 1)
                track[:, cat] = np.minimum(rules.GOAL, track[:, cat] + gain)
        if abilities and active == me:
            if abilities[active] == rules.DRAGON:
                hits = sum((lost[:, q] > 0).astype(np.int64) for q in rules.neighbours(active, n))
                mine += 2 * (hits if cfg.per_neighbour else np.minimum(hits, 1))
            elif abilities[active] == rules.UNICORN:
                mine += 2 * (_COUNTS_ARRAY.min(axis=1) > 0)
        if not mine.any():
            return self.values(love, adv, melt, me)
        love_choice = love.copy()
        love_choice[:, me] = np.minimum(rules.GOAL, love[:, me] + mine)
        adv_choice = adv.copy()
        adv_choice[:, me] = np.minimum(rules.GOAL, adv[:, me] + mine)
        return np.maximum(self.values(love_choice, adv, melt, me), self.values(love, adv_choice, melt, me))

    # ------------------------------------------------------------------ position value
    def state_value(self, s: rules.CubeMeltState, me: int) -> float:
        """Value for ``me`` of an engine state (the exact outcome once the game is over)."""
        if rules.is_over(s):
            if me not in s.winners:
                return 0.0
            return 1.0 if len(s.winners) == 1 else self.shared_win
        love, adv, melt = (np.array([track], dtype=np.int64) for track in (s.love, s.adventure, s.melt))
        return float(self.values(love, adv, melt, me)[0])

    def values(self, love: np.ndarray, adv: np.ndarray, melt: np.ndarray, me: int) -> np.ndarray:
        """Estimated chance that ``me`` wins from each row of tracks, shape (rows, players)."""
        rows, n = love.shape
        best = np.maximum(love, adv)
        low = np.minimum(love, adv)
        goal = best >= rules.GOAL
        melted = melt <= 0
        any_goal = goal.any(axis=1)
        any_melt = melted.any(axis=1)

        # Race ending: softmax over the best tracks.
        race = _softmax(self.beta_race * best)[:, me]
        # Melt ending: who melts (lowest Melt), then the highest min(Love, Adventure) of the others.
        melter = _softmax(-self.gamma_melt * melt.astype(np.float64))
        by_melt = np.zeros(rows)
        z = self.beta_min * low.astype(np.float64)
        for m in range(n):
            if m == me:
                continue
            zm = z.copy()
            zm[:, m] = -np.inf
            by_melt += melter[:, m] * _softmax(zm)[:, me]
        t_race = (rules.GOAL - best.max(axis=1)) / self.race_rate
        t_melt = melt.min(axis=1) / self.melt_rate
        q = 1.0 / (1.0 + np.exp(-self.kappa * (t_race - t_melt)))
        estimate = ((1.0 - q) * race + q * by_melt) * (1.0 - self.melt_cost * (rules.START_MELT - melt[:, me]))

        # Finished games: exact.
        goal_value = np.where(goal[:, me], np.where(goal.sum(axis=1) > 1, self.shared_win, 1.0), 0.0)
        scores = np.where(melted, -1, low)
        top = scores.max(axis=1)
        winners = (scores == top[:, None]) & ~melted
        melt_value = np.where(winners[:, me], np.where(winners.sum(axis=1) > 1, self.shared_win, 1.0), 0.0)
        return quantised(np.where(any_goal, goal_value, np.where(any_melt, melt_value, estimate)))
