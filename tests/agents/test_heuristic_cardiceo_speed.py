"""Cardiceo heuristic, fast search: the tables and the lattice are exact.

The old recursive search (``_max_cards_shed`` over dice subsets, and its mean over the 384
fresh rolls) is kept here, copied as it was, as the reference for the plan table that
``solitaire`` builds on: every roll's plans must shed the same most cards, and the table's
fresh-roll mean must be the old float bit for bit. Now the heuristic ranks hands
by the solitaire ``E`` of a lattice; a slow roll-by-roll lattice is the reference for it:
the same ``E`` bit for bit, the same action on game positions and the same trajectory of
four heuristic seats over whole games.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np
import pytest

from ice_envs import cardiceo_v1
from ice_envs.cardiceo import rules, solitaire
from ice_envs.cardiceo.heuristic import CardiceoHeuristic
from ice_envs.core.agent import PlayerView, make_view

LIMIT = 5_000  # decisions: the spec's bound on a game
FREE_MASKS = list(product((False, True), repeat=rules.NUM_DICE))


# ------------------------------------------------------------------ the old search (reference)
@lru_cache(maxsize=65536)
def old_max_cards_shed(dice: tuple[int, ...], free: tuple[bool, ...], hand: tuple[int, ...]) -> int:
    """The old ``_max_cards_shed``, verbatim but for the name."""
    best = 0
    for subset in rules.SUBSETS:
        if not all(free[i] for i in subset):
            continue
        total = sum(dice[i] for i in subset)
        if total > rules.NUM_VALUES or hand[total - 1] <= 0:
            continue
        rest_hand = hand[: total - 1] + (hand[total - 1] - 1,) + hand[total:]
        rest_free = tuple(f and i not in subset for i, f in enumerate(free))
        best = max(best, 1 + old_max_cards_shed(dice, rest_free, rest_hand))
    return best


@lru_cache(maxsize=4096)
def old_expected_cards_shed(hand: tuple[int, ...]) -> float:
    """The old ``_expected_cards_shed``, verbatim but for the names."""
    rolls = list(product(*(range(1, f + 1) for f in rules.DIE_FACES)))
    return sum(old_max_cards_shed(roll, (True, True, True), hand) for roll in rolls) / len(rolls)


def table_max_cards_shed(roll: int, free: tuple[bool, ...], hand: tuple[int, ...]) -> int:
    """The most cards the plan table's plans for ``roll`` shed from ``hand`` with the ``free`` dice."""
    plans = solitaire.playable_plans(np.array(solitaire.ROLLS[roll]), free, np.array(hand))
    return int(solitaire.FRESH_CARDS[roll, plans].max(initial=0))


class RollByRollLattice(solitaire.Lattice):
    """The reference lattice: ``E`` of each sub-hand from its own loop over the 384 rolls and 14 plans."""

    def __init__(self, top: np.ndarray) -> None:
        self.top = np.asarray(top, dtype=np.int64).copy()
        radix = self.top + 1
        self.strides = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
        subs = [(i // self.strides) % radix for i in range(int(np.prod(radix)))]
        self.turns = np.zeros(len(subs))
        for idx in sorted(range(len(subs)), key=lambda i: int(subs[i].sum())):
            if idx:
                self.turns[idx] = self._turns_of(idx, subs[idx])

    def _turns_of(self, idx: int, hand: np.ndarray) -> float:
        need = solitaire.FRESH_NEED.astype(np.int64)
        fits = (solitaire.FRESH_CARDS > 0) & (need <= hand).all(axis=2)  # (roll, plan)
        child = self.turns[np.where(fits, idx - need @ self.strides, 0)]
        best = np.where(fits, child, np.inf).min(axis=1)
        rolls = fits.any(axis=1)
        return float(solitaire.quantise(np.array((len(solitaire.ROLLS) + best[rolls].sum()) / rolls.sum())))


def use_reference_lattice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Route the heuristic through :class:`RollByRollLattice` (and a cache of its own)."""
    monkeypatch.setattr(solitaire, "Lattice", RollByRollLattice)
    monkeypatch.setattr(solitaire, "_CACHE", type(solitaire._CACHE)())


# ------------------------------------------------------------------ helpers
def random_hand(rng: np.random.Generator) -> tuple[int, ...]:
    """Counts per value 1..15: sparse to full, 0..4 copies each."""
    density = rng.uniform(0.05, 1.0)
    held = rng.random(rules.NUM_VALUES) < density
    return tuple(int(c) for c in np.where(held, rng.integers(1, rules.COPIES_PER_VALUE + 1, rules.NUM_VALUES), 0))


def random_dice(rng: np.random.Generator) -> tuple[int, ...]:
    return tuple(int(rng.integers(1, f + 1)) for f in rules.DIE_FACES)


def game_positions(seeds: range) -> list[rules.CardiceoState]:
    """Every decision point of random-legal games (2-6 players, all variants), copied."""
    states = []
    variants = [{}, {"hand_size": 5}, {"forced_discard": True}]
    for seed in seeds:
        rng = np.random.default_rng(seed)
        env = cardiceo_v1.env(num_players=2 + seed % 5, **variants[seed % 3])
        env.reset(seed=seed)
        raw = env.unwrapped
        for agent in env.agent_iter(LIMIT):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            states.append(raw.game_state.copy())
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return states


def decide(state: rules.CardiceoState) -> int:
    """The heuristic's action for the deciding seat of ``state`` (true state as the view)."""
    legal = rules.legal_actions(state)
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    view = PlayerView("cardiceo", state.current, state.config.num_players, state.copy(), legal)
    return CardiceoHeuristic(0).act({"action_mask": mask}, view)


def heuristic_trajectory(seed: int) -> list[tuple]:
    """Four heuristic seats play game ``seed``: (agent, action, reward) per step and the end."""
    env = cardiceo_v1.env(num_players=4)
    env.reset(seed=seed)
    agents = [CardiceoHeuristic(seed * 10 + k) for k in range(4)]
    rng = np.random.default_rng(seed)
    steps: list[tuple] = []
    for agent in env.agent_iter(LIMIT):
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            steps.append((agent, None, float(reward)))
            env.step(None)
            continue
        seat = env.unwrapped.possible_agents.index(agent)
        action = int(agents[seat].act(obs, make_view(env, seat, rng)))
        steps.append((agent, action, float(reward)))
        env.step(action)
    return steps


# ------------------------------------------------------------------ tests
def test_plans_are_the_fourteen_ways_to_use_three_dice():
    assert len(solitaire.PLANS) == len(set(solitaire.PLANS)) == 14
    for plan in solitaire.PLANS:
        dice = [i for sid in plan for i in rules.SUBSETS[sid]]
        assert dice and len(dice) == len(set(dice))  # disjoint, non-empty subsets


def test_the_plan_table_sheds_as_many_cards_as_the_old_search_on_random_positions():
    rng = np.random.default_rng(19)
    compared = 0
    for _ in range(600):
        dice, hand = random_dice(rng), random_hand(rng)
        for free in FREE_MASKS:
            roll = solitaire.roll_index(dice)
            assert table_max_cards_shed(roll, free, hand) == old_max_cards_shed(dice, free, hand), (dice, free, hand)
            compared += 1
    assert compared == 4800


def test_the_plan_tables_fresh_roll_mean_is_the_old_float_bit_for_bit():
    rng = np.random.default_rng(20)
    hands = [random_hand(rng) for _ in range(250)]
    hands += [(0,) * 15, (4,) * 15, (1,) * 15]
    means = set()
    for hand in hands:
        counts = np.asarray(hand, dtype=np.int16)
        playable = (solitaire.FRESH_NEED <= counts).all(axis=2)
        new = int(np.where(playable, solitaire.FRESH_CARDS, 0).max(axis=1).sum()) / len(solitaire.ROLLS)
        old = old_expected_cards_shed(hand)
        assert new == old and type(new) is float, (hand, new, old)
        means.add(new)
    assert len(means) > 50  # the hands were varied, not one answer


def test_the_lattice_is_the_roll_by_roll_lattice_bit_for_bit():
    rng = np.random.default_rng(21)
    for size in (3, 6, 10):
        deck = np.repeat(np.arange(rules.NUM_VALUES), rules.COPIES_PER_VALUE)
        rng.shuffle(deck)
        top = np.bincount(deck[:size], minlength=rules.NUM_VALUES)
        assert np.array_equal(solitaire.Lattice(top).turns, RollByRollLattice(top).turns)


def test_decisions_equal_the_reference_lattices_on_game_positions(monkeypatch):
    states = game_positions(range(12))
    assert len(states) >= 600
    new = [decide(s) for s in states]
    use_reference_lattice(monkeypatch)
    old = [decide(s) for s in states]
    assert new == old
    phases = {s.phase for s in states}
    assert phases == {rules.PHASE_NO_PLAY_CHOICE, rules.PHASE_DISCARD}


def test_heuristic_trajectories_equal_the_reference_lattices(monkeypatch):
    seeds = range(8)
    new = [heuristic_trajectory(seed) for seed in seeds]
    use_reference_lattice(monkeypatch)
    old = [heuristic_trajectory(seed) for seed in seeds]
    assert new == old
    choices = [a for t in new for _, a, _ in t if a in (rules.KEEP_DICE, rules.REROLL_ALL)]
    assert rules.KEEP_DICE in choices and rules.REROLL_ALL in choices  # rule 4 was exercised both ways
