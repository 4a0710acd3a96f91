"""Where a compiled engine's step goes: each kernel of a game timed alone over the same positions.

Plays random legal actions at batch 1024 and keeps a snapshot of every game's state row every
``--every`` steps, then times, over all the kept positions (in cache, best of several passes, in
CPU seconds of this thread, so other processes on the machine count less):

* ``legal``: the game's ``legal(s, cfg, mask)``;
* ``encode``: the framework's zeroing of the observation row and the game's ``encode`` of the deciding seat;
* ``sample``: :func:`ice_envs.core.vector.sample_legal` on the masks (the benchmark's random player).

The step itself (``apply``, the chance, the deals and the bookkeeping) is measured by the batched
table (:mod:`ice_envs.benchmarks.batched`); the difference is memory traffic and the framework loop.

    python benchmarks/prototypes/kernel_times.py tip_of_the_diceberg [--players 4] [--steps 400] [--every 40]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from ice_envs.core.vector import make, sample_legal


def positions(game: str, players: int, steps: int, every: int, seed: int) -> tuple[Any, np.ndarray]:
    """The engine and its state rows, every ``every`` steps of random play (``steps`` steps at batch 1024)."""
    engine = make(game, 1024, players, seed=seed, copy=False, engine="compiled")
    rng = np.random.default_rng(seed)
    engine.reset()
    kept = []
    for t in range(steps):
        engine.step(sample_legal(engine.mask, rng))
        if t % every == every - 1:
            kept.append(engine.state.copy())
    return engine, np.concatenate(kept)


def timers(kernels: Any) -> tuple[Callable[..., None], Callable[..., None]]:
    """Compiled loops calling ``legal`` and (zeroing, then) ``encode`` on every row."""
    legal, encode, deciding = kernels.legal, kernels.encode, kernels.deciding

    @numba.njit
    def all_legal(states: np.ndarray, cfg: np.ndarray, mask: np.ndarray) -> None:
        for i in range(states.shape[0]):
            legal(states[i], cfg, mask[i])

    @numba.njit
    def all_encode(states: np.ndarray, cfg: np.ndarray, obs: np.ndarray) -> None:
        for i in range(states.shape[0]):
            row = obs[i]
            row[:] = 0.0
            encode(states[i], deciding(states[i], cfg), cfg, row)

    return all_legal, all_encode


def best_ns(run: Callable[[], Any], count: int, passes: int = 7) -> float:
    """The fastest of ``passes`` runs of ``run``, in nanoseconds of this thread's CPU time per position."""
    best = float("inf")
    for _ in range(passes):
        start = time.thread_time()
        run()
        best = min(best, time.thread_time() - start)
    return best / count * 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--every", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    engine, states = positions(args.game, args.players, args.steps, args.every, args.seed)
    count = states.shape[0]
    cfg = engine._cfg
    all_legal, all_encode = timers(type(engine).kernels)
    mask = np.zeros((count, engine.n_actions), dtype=np.int8)
    obs = np.zeros((count, engine.obs_dim), dtype=np.float32)
    all_legal(states, cfg, mask)  # compile outside the clock
    all_encode(states, cfg, obs)
    rng = np.random.default_rng(args.seed)
    print(
        f"{args.game}, {args.players} players: {count:,} positions, {engine.n_actions} actions, {engine.obs_dim} floats"
    )
    print(f"  legal   {best_ns(lambda: all_legal(states, cfg, mask), count):7.0f} ns")
    print(f"  encode  {best_ns(lambda: all_encode(states, cfg, obs), count):7.0f} ns (the row zeroed first)")
    print(f"  sample  {best_ns(lambda: sample_legal(mask, rng), count):7.0f} ns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
