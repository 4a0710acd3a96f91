"""Cardiceo's compiled re-deal of the hidden hands (ice_envs/cardiceo/compiled_redeal.py) draws as
``rules.resample_hidden`` does, draw for draw, on every path (unconstrained, the constrained proposals, the
walk), and its draws without the deal (``content=False``) move the stream exactly as the full re-deal."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.cardiceo import compiled_redeal, rules
from ice_envs.core import vector
from ice_envs.core.splitmix import SplitMixRng


def packed(state: rules.CardiceoState) -> tuple[np.ndarray, np.ndarray]:
    """(state row, config row) of ``state`` in the compiled engine."""
    engine = vector.make("cardiceo", 1, state.config.num_players, seed=0, engine="compiled")
    return np.asarray(engine.pack_state(state), dtype=np.int8), engine._cfg


def recorded_state(players: int, seed: int, tight: int) -> rules.CardiceoState:
    """A fresh deal with a public record: ``tight`` 0 none, 1 a few known gaps, 2 every other seat known to
    lack all it does not hold."""
    state = rules.new_game(rules.CardiceoConfig(num_players=players), np.random.default_rng(seed))
    gen = np.random.default_rng(100 + seed)
    for p in range(1, players):
        lacks = state.hands[p] == 0
        if tight == 1:
            lacks &= gen.random(rules.NUM_VALUES) < 0.3
        state.known_missing[p] = lacks if tight else False
    return state


@pytest.mark.parametrize("players", [3, 6])
def test_redeal_draws_as_resample_hidden(players: int) -> None:
    """Every path of ``rules.resample_hidden``: unconstrained, the constrained proposals and the walk."""
    paths = set()
    for seed in range(30):
        tight = seed % 3
        state = recorded_state(players, seed, tight)
        row, cfg = packed(state)
        table = compiled_redeal.redeal_table(row, cfg, 0)
        stream = SplitMixRng(1000 + seed)
        prng = np.array([1000 + seed, 0], dtype=np.uint64)
        for _ in range(3):
            blind = prng.copy()
            compiled_redeal.redeal(table, blind, np.zeros((players - 1, rules.NUM_VALUES), dtype=np.int64), False)
            expected = rules.resample_hidden(state, 0, stream)
            got = compiled_redeal.resample_hidden(row, cfg, 0, prng)
            assert np.array_equal(got, expected.hands[1:]), seed
            assert int(prng[0]) == stream.state == int(blind[0]), seed
        paths.add(tight)
    assert paths == {0, 1, 2}


@pytest.mark.parametrize("seed", range(4))
def test_constrained_and_walk_deals_draw_as_the_rules(seed: int) -> None:
    """Six full hands of a 60-card deck with a record that pins every hand (few proposals fit, or none)."""
    state = rules.new_game(rules.CardiceoConfig(num_players=6), np.random.default_rng(seed))
    for p in range(6):
        state.known_missing[p] = state.hands[p] == 0
    row, cfg = packed(state)
    table = compiled_redeal.redeal_table(row, cfg, 0)
    others = list(range(1, 6))
    unseen = rules.full_deck_counts() - state.discarded - state.hands[0]
    sizes = np.array([int(state.hands[p].sum()) for p in others], dtype=np.int64)
    lacks = state.known_missing[others]
    assert np.array_equal(table.sizes, sizes) and np.array_equal(table.unseen, unseen) and not table.sure
    pool = np.repeat(np.arange(1, rules.NUM_VALUES + 1), unseen)
    SplitMixRng(seed).shuffle(pool)
    stream, prng = SplitMixRng(seed), np.array([seed, 0], dtype=np.uint64)
    blind = prng.copy()
    expected = rules._constrained_deal(pool.copy(), sizes.tolist(), lacks, stream)
    got = np.zeros((5, rules.NUM_VALUES), dtype=np.int64)
    assert compiled_redeal.constrained_deal(pool, table, prng, got) == (expected is not None)
    assert compiled_redeal.constrained_deal(pool, table, blind, got.copy(), False) == (expected is not None)
    assert int(prng[0]) == stream.state == int(blind[0])
    if expected is not None:
        assert np.array_equal(got, expected)
    expected = rules._walk_deal(unseen, sizes.tolist(), lacks, stream)
    compiled_redeal.walk_deal(unseen, sizes, lacks, prng, got)
    assert np.array_equal(got, expected) and int(prng[0]) == stream.state
    assert np.array_equal(
        compiled_redeal.consistent_deal(unseen, sizes, lacks), rules._consistent_deal(unseen, sizes.tolist(), lacks)
    )


def test_sure_tables_fit_every_proposal() -> None:
    """Where the table says every proposal fits, the rules' constrained deal draws one round and the chain's
    ``count - 1`` uniforms (every proposal fitted); the flag is set on loose records and not on tight ones."""
    seen = set()
    for seed in range(60):
        players = 3 + seed % 4
        state = recorded_state(players, seed, 1 + seed % 2)
        row, cfg = packed(state)
        table = compiled_redeal.redeal_table(row, cfg, 0)
        seen.add(bool(table.sure))
        if not table.sure:
            continue
        m, count = int(table.unseen.sum()), rules.RESAMPLE_PROPOSALS
        dealt = int((table.sizes > 0).sum())
        for draw in range(3):
            pool = np.repeat(np.arange(1, rules.NUM_VALUES + 1), table.unseen)
            SplitMixRng(seed + 7 * draw).shuffle(pool)
            stream = SplitMixRng(seed + draw)
            before = stream.state
            assert rules._constrained_deal(pool, table.sizes.tolist(), table.lacks, stream) is not None
            assert (stream.state - before) % 2**64 == (dealt * count * m + count - 1) * int(
                compiled_redeal.GOLDEN
            ) % 2**64
    assert seen == {True, False}
