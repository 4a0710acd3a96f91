"""SplitMixRng draws exactly what the compiled engines' stream functions draw, call for call."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from ice_envs.core.compiled import below, njit, seed63, seed_streams, shuffle, uniform
from ice_envs.core.splitmix import SplitMixRng


@njit
def _compiled_draws(rng: np.ndarray, bounds: np.ndarray, arr: np.ndarray, out: np.ndarray) -> float:
    for i in range(bounds.shape[0]):
        out[i] = below(rng, bounds[i])
    shuffle(rng, arr, arr.shape[0])
    u = uniform(rng)
    out[bounds.shape[0]] = seed63(rng)
    return u


@pytest.mark.parametrize("state", [0, 1, 2**63 + 12345, 2**64 - 1])
def test_python_and_compiled_streams_agree(state: int) -> None:
    bounds = np.array([1, 2, 3, 6, 7, 52, 1000, 2**31 + 11, 2**32 - 1], dtype=np.int64)
    rng = np.array([state], dtype=np.uint64)
    arr = np.arange(17)
    out = np.zeros(bounds.size + 1, dtype=np.int64)
    u = _compiled_draws(rng, bounds, arr, out)
    mirror = SplitMixRng(state)
    assert [mirror.below(int(b)) for b in bounds] == out[:-1].tolist()
    expected = np.arange(17)
    mirror.shuffle(expected)
    assert expected.tolist() == arr.tolist()
    assert mirror.random() == u
    assert mirror.integers(0, 2**63) == out[-1]
    assert mirror.state == int(rng[0])


def test_generator_methods_are_defined_by_the_same_draws() -> None:
    a, b = SplitMixRng(99), SplitMixRng(99)
    perm = a.permutation(10)
    assert sorted(perm.tolist()) == list(range(10))
    pool = np.arange(10)
    b.shuffle(pool)
    assert perm.tolist() == pool.tolist()
    c, d = SplitMixRng(7), SplitMixRng(7)
    assert c.choice(np.arange(20) * 3, size=4, replace=False).tolist() == d.permutation(np.arange(20) * 3)[:4].tolist()
    e, f = SplitMixRng(5), SplitMixRng(5)
    assert e.integers(3, 9, size=5).tolist() == [3 + f.below(6) for _ in range(5)]
    with pytest.raises(NotImplementedError):
        SplitMixRng(1).choice(5, size=2)
    with pytest.raises(ValueError):
        SplitMixRng(1).below(0)


def test_from_seed_is_the_stream_a_compiled_engine_gives_game_zero() -> None:
    assert SplitMixRng.from_seed(42).state == int(seed_streams(42, 1)[0])


def _one_at_a_time_shuffle(rng: SplitMixRng, x: np.ndarray) -> None:
    for i in range(len(x) - 1, 0, -1):
        j = rng.below(i + 1)
        x[[i, j]] = x[[j, i]]


def _shuffled(rng: SplitMixRng, x: np.ndarray) -> np.ndarray:
    _one_at_a_time_shuffle(rng, x)
    return x


@pytest.mark.parametrize("bound", [1, 2, 7, 52, 2**31 + 11, 2**32 - 1])
def test_block_draws_are_the_draws_made_one_at_a_time(bound: int) -> None:
    """``random(size)``, ``integers(..., size)`` and ``shuffle`` draw a block at once; the values and the
    stream's state after them are those of single draws, rejection steps included (bound near 2**32)."""
    seeds = np.random.default_rng(bound)
    for _ in range(40):
        state = int(seeds.integers(0, 2**63)) * 2 + int(seeds.integers(0, 2))
        n = int(seeds.integers(0, 40))
        block, single = SplitMixRng(state), SplitMixRng(state)
        assert block.random((n, 3)).tolist() == [[single.random() for _ in range(3)] for _ in range(n)]
        assert block.integers(5, 5 + bound, size=n).tolist() == [5 + single.below(bound) for _ in range(n)]
        rows, expected = np.arange(2 * n).reshape(n, 2), np.arange(2 * n).reshape(n, 2)
        block.shuffle(rows)
        _one_at_a_time_shuffle(single, expected)
        assert rows.tolist() == expected.tolist()
        items, expected_items = list(range(n)), np.arange(n)
        block.shuffle(items)
        _one_at_a_time_shuffle(single, expected_items)
        assert items == expected_items.tolist()
        assert block.permutation(n).tolist() == [int(v) for v in _shuffled(single, np.arange(n))]
        assert block.state == single.state


def test_a_block_that_would_reject_falls_back_to_single_draws() -> None:
    """With a bound near 2**32 almost every draw may need Lemire's second draw: the block path hands the
    whole block to the one-at-a-time path, from the same state."""
    rng = SplitMixRng(3)
    assert rng._below_block(np.full(8, 2**32 - 1, dtype=np.uint64)) is None
    assert rng.state == 3
