"""The compiled engines' random streams: SplitMix64 per game, as numba functions on a ``uint64`` row.

A game's stream is ``rng[0]`` (its state), ``rng[1]`` the count of logged draws and ``rng[2:]``, where present,
the draw log. :func:`draw` is the one draw the rules make (logged, so parity tests can replay it into the
scalar env); :func:`below`, :func:`shuffle`, :func:`uniform` and :func:`seed63` are the unlogged draws of
players and search. :class:`ice_envs.core.splitmix.SplitMixRng` draws exactly the same numbers in Python.
:func:`read_u32` and :func:`write_u32` keep a 32-bit counter in an ``int8`` state row.
"""

from __future__ import annotations

import numpy as np

from ice_envs.core.compiled_cache import njit

__all__ = ["below", "draw", "read_u32", "seed63", "seed_streams", "shuffle", "uniform", "write_u32"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit
def _next64(rng: np.ndarray) -> np.uint64:
    """SplitMix64: the next 64 random bits of the stream ``rng[0]``."""
    s = rng[0] + _GOLDEN
    rng[0] = s
    z = (s ^ (s >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit
def below(rng: np.ndarray, n: int) -> int:
    """A uniform integer in ``[0, n)`` (``1 <= n < 2**32``; Lemire's multiply-shift, unbiased); not logged."""
    bound = np.uint64(n)
    m = (_next64(rng) >> np.uint64(32)) * bound
    low = m & _LOW32
    if low < bound:
        threshold = (_TWO32 - bound) % bound
        while low < threshold:
            m = (_next64(rng) >> np.uint64(32)) * bound
            low = m & _LOW32
    return int(m >> np.uint64(32))


@njit
def draw(rng: np.ndarray, low: int, high: int) -> int:
    """A uniform integer in ``[low, high)``, recorded in the game's draw log when it has one."""
    value = low + below(rng, high - low)
    if rng.shape[0] > 2:
        at = int(rng[1])
        if at + 2 >= rng.shape[0]:
            raise IndexError("compiled engine: draw log full")
        rng[2 + at] = np.uint64(value)
        rng[1] = np.uint64(at + 1)
    return value


@njit
def shuffle(rng: np.ndarray, arr: np.ndarray, n: int) -> None:
    """Shuffle ``arr[:n]`` in place, not logged: Fisher-Yates from the end (``SplitMixRng.shuffle``)."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@njit
def uniform(rng: np.ndarray) -> float:
    """A uniform float in ``[0, 1)`` from 53 random bits, not logged (``SplitMixRng.random``)."""
    return float(_next64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def seed63(rng: np.ndarray) -> int:
    """A uniform integer in ``[0, 2**63)``, not logged: one raw 64-bit draw shifted right
    (``SplitMixRng.integers(0, 2**63)``, how an agent draws the seeds of its samples)."""
    return int(_next64(rng) >> np.uint64(1))


@njit
def read_u32(s: np.ndarray, at: int) -> int:
    """The unsigned 32-bit counter kept in four bytes of an ``int8`` state row from ``at`` (least significant first)."""
    return (
        (int(s[at]) & 0xFF)
        | (int(s[at + 1]) & 0xFF) << 8
        | (int(s[at + 2]) & 0xFF) << 16
        | (int(s[at + 3]) & 0xFF) << 24
    )


@njit
def write_u32(s: np.ndarray, at: int, value: int) -> None:
    """Keep ``value`` (0 to 2**32 - 1) in four bytes of an ``int8`` state row from ``at`` (:func:`read_u32`)."""
    for b in range(4):
        byte = (value >> (8 * b)) & 0xFF
        s[at + b] = byte - 256 if byte > 127 else byte


def seed_streams(seed: int | None, num_envs: int) -> np.ndarray:
    """``(num_envs,)`` uint64 stream states: game ``i``'s depends only on ``seed`` and ``i``."""
    if seed is None:
        key = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    else:
        key = int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])
    index = np.arange(num_envs, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(key) ^ (index * _MIX2 + _GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))
