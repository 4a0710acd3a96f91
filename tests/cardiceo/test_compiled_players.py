"""Cardiceo's compiled greedy and heuristic players (ice_envs/cardiceo/compiled_players.py) decide as the
Python players do: decision by decision over every table size and variant, and on the pieces that are
easy to get subtly wrong (the lattice of ``E`` bit for bit, plan ranking on random positions, the kept
lattice; the greedy agent's re-deals draw for draw in test_compiled_redeal.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ice_envs.agents.greedy import DEFAULT_SAMPLES
from ice_envs.agents.spec import load_agent
from ice_envs.cardiceo import compiled_lattice, heuristic, rules, solitaire
from ice_envs.cardiceo import compiled_players as cp
from ice_envs.cardiceo.spec import SPEC
from ice_envs.core import vector
from ice_envs.core.player_parity import run_player_parity

VARIANTS = sorted(SPEC.variants)
#: Games per table size and variant: about 11,700 heuristic and 3,000 greedy decisions in all (the Python
#: greedy agent re-deals and enumerates four times a decision, so its share is what the time allows;
#: ``ICE_CARDICEO_HEURISTIC_PARITY_GAMES=45`` runs the 21,000-decision sweep of the heuristic).
HEURISTIC_GAMES = int(os.environ.get("ICE_CARDICEO_HEURISTIC_PARITY_GAMES", "25"))
GREEDY_GAMES = 6


def variant_tables() -> list[tuple[int, str]]:
    return [(n, v) for v in VARIANTS for n in (SPEC.variants[v].players or SPEC.players)]


@pytest.mark.parametrize(("players", "variant"), variant_tables())
@pytest.mark.parametrize(("player", "games"), [("heuristic", HEURISTIC_GAMES), ("greedy", GREEDY_GAMES)])
def test_parity_with_python_player(player: str, games: int, players: int, variant: str) -> None:
    options = dict(SPEC.variants[variant].options)
    decisions, played = run_player_parity(
        "cardiceo",
        player,
        num_players=players,
        games=games,
        seed=11 + players,
        options=options,
        python_player=lambda seat: load_agent(player, "cardiceo", seed=seat, num_players=players),
    )
    assert played == games and decisions >= games * 5


def test_greedy_samples_match_the_agent() -> None:
    assert cp.GREEDY_SAMPLES == DEFAULT_SAMPLES


def random_hands(count: int, size: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        deck = np.repeat(np.arange(rules.NUM_VALUES), rules.COPIES_PER_VALUE)
        rng.shuffle(deck)
        out.append(np.bincount(deck[:size], minlength=rules.NUM_VALUES).astype(np.int64))
    return out


def test_lattice_is_bit_identical() -> None:
    hands = random_hands(6, 10, 1) + random_hands(4, 7, 2) + random_hands(2, 5, 3)
    hands += [np.array([4, 4, 2] + [0] * 12, dtype=np.int64), np.array([0] * 12 + [3, 4, 3], dtype=np.int64)]
    for hand in hands:
        python = solitaire.Lattice(hand).turns
        turns = np.zeros(python.size, dtype=np.int64)
        compiled_lattice.solve_lattice(hand, turns)
        expected = np.where(np.isfinite(python), python * compiled_lattice.GRID, -1).astype(np.int64)
        assert np.array_equal(turns, expected), hand


def test_small_hands_table_is_the_lattices() -> None:
    hands = compiled_lattice._small_hands()
    ranks = [compiled_lattice.small_rank(hand, int(hand.sum())) for hand in hands[::250]]
    assert ranks == list(range(0, len(hands), 250))  # rank order, every hand once
    assert int(hands.sum(axis=1).max()) == compiled_lattice.SMALL_CARDS
    for hand in random_hands(8, compiled_lattice.SMALL_CARDS, 4) + random_hands(4, 2, 6):
        expected = solitaire.Lattice(hand).expected_turns(hand) * compiled_lattice.GRID
        assert compiled_lattice.SMALL_TURNS[compiled_lattice.small_rank(hand, int(hand.sum()))] == expected


def test_best_after_each_roll_is_the_lattices() -> None:
    hands = random_hands(6, 10, 8) + random_hands(6, 4, 9) + [np.array([3, 3, 3, 1] + [0] * 11, dtype=np.int64)]
    for hand in hands:
        lattice = solitaire.Lattice(hand)
        turns = (lattice.turns * compiled_lattice.GRID).astype(np.int64)
        out = np.empty(len(solitaire.ROLLS), dtype=np.int64)
        compiled_lattice.best_after_each_roll(hand, lattice.index(hand), lattice.strides, turns, out)
        expected = lattice._best_after_rolls(hand, np.arange(len(solitaire.ROLLS)), (1 << rules.NUM_DICE) - 1)
        assert np.array_equal(out, (expected * compiled_lattice.GRID).astype(np.int64)), hand


def position_row(
    hand: np.ndarray, dice: tuple[int, int, int], used: tuple[int, int, int], phase: int
) -> tuple[rules.CardiceoState, np.ndarray]:
    """A 2-player row where seat 0 decides with ``hand``; seat 1 holds the rest of a 20-card deal."""
    rest = np.full(rules.NUM_VALUES, rules.COPIES_PER_VALUE) - hand
    other = np.zeros(rules.NUM_VALUES, dtype=np.int64)
    for v in np.flatnonzero(rest)[:3]:
        other[v] = 1
    state = rules.CardiceoState(
        config=rules.CardiceoConfig(num_players=2),
        hands=np.stack([hand, other]),
        discarded=np.minimum(rest - other, 1),
        dice=np.array(dice, dtype=np.int64),
        used=np.array(used, dtype=bool),
        locked=np.zeros(3, dtype=bool),
        current=0,
        phase=phase,
        winner=-1,
        turn=3,
        stuck_dice=np.zeros((2, 3), dtype=np.int64),
        known_missing=np.zeros((2, rules.NUM_VALUES), dtype=bool),
    )
    engine = vector.make("cardiceo", 1, 2, seed=0, engine="compiled")
    return state, np.asarray(engine.pack_state(state), dtype=np.int8)


def test_plan_choice_and_keep_on_random_positions() -> None:
    rng = np.random.default_rng(5)
    memory = np.zeros(cp.MEMORY_WIDTH, dtype=np.int64)
    for k, hand in enumerate(random_hands(300, int(rng.integers(1, 11)), 3)):
        dice = (int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(1, 13)))
        used = tuple(int(u) for u in rng.integers(0, 2, size=3)) if k % 3 else (0, 0, 0)
        if k % 40 == 0:
            memory[:] = 0
        state, row = position_row(hand, dice, used, rules.PHASE_DISCARD)
        free = tuple(not u for u in used)
        expected = heuristic.choose_plan(state.dice, free, hand, state.discarded + hand)
        assert cp._choose_plan(row, hand, memory) == (-1 if expected is None else expected)
        _, row = position_row(hand, dice, (0, 0, 0), rules.PHASE_NO_PLAY_CHOICE)
        assert cp._keep_or_reroll(row, hand, memory) == heuristic.keep_or_reroll(state.dice, hand)


def test_kept_lattice_covers_smaller_hands_only() -> None:
    memory = np.zeros(cp.MEMORY_WIDTH, dtype=np.int64)
    big, small = random_hands(1, 10, 9)[0], None
    small = big.copy()
    small[np.flatnonzero(small)[:4]] -= 1
    cp._lattice(memory, big)
    assert np.array_equal(memory[cp.MEM_TOP : cp.MEM_TOP + rules.NUM_VALUES], big)
    strides, turns = cp._lattice(memory, small)  # covered: read from the kept lattice
    assert np.array_equal(memory[cp.MEM_TOP : cp.MEM_TOP + rules.NUM_VALUES], big)
    assert turns[cp._index(small, strides)] == solitaire.Lattice(small).expected_turns(small) * compiled_lattice.GRID
    other = np.roll(big, 1)  # not covered: solved again and kept instead
    strides, turns = cp._lattice(memory, other)
    assert np.array_equal(memory[cp.MEM_TOP : cp.MEM_TOP + rules.NUM_VALUES], other)
    assert turns[cp._index(other, strides)] == solitaire.Lattice(other).expected_turns(other) * compiled_lattice.GRID


def test_greedy_draws_nothing_with_one_legal_action() -> None:
    hand = np.zeros(rules.NUM_VALUES, dtype=np.int64)
    hand[[13, 14]] = 1
    _, row = position_row(hand, (2, 8, 12), (0, 0, 0), rules.PHASE_DISCARD)  # only 14 (d4 + d12) is a held total
    engine = vector.make("cardiceo", 1, 2, seed=0, engine="compiled", forced_discard=True)
    mask = np.zeros(engine.n_actions, dtype=np.int8)
    engine.kernels.legal(row, engine._cfg, mask)
    assert mask.sum() == 1
    prng = np.array([123, 0], dtype=np.uint64)
    action = cp.greedy_act(row, engine._cfg, mask, prng, np.zeros(1, dtype=np.int64))
    assert mask[action] and int(prng[0]) == 123
