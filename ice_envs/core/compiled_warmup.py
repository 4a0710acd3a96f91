"""Compile every game's compiled engine, its loops and its players' loops into numba's disk cache ahead of use.

``python -m ice_envs.core.compiled_warmup [GAME ...] [--jobs N]`` (``make test`` runs it before the tests, so
that the test workers load machine code instead of each compiling it): a speed-up only, since every compiled
function compiles on first use anyway (:mod:`ice_envs.core.compiled_cache`).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from ice_envs.core.errors import OptionError

__all__ = ["main", "warm", "warm_game"]


def warm_game(game: str) -> tuple[float, float]:
    """Compile (or load from the cache) ``game``'s compiled engine, its loops and its players' loops, as a
    small batch steps, plays out, and advances and plays out its in-engine seats, its compiled greedy values (where
    it has them: the flat search's candidates) and the compiled kernels of its move features (where its
    ``move_features`` has a ``warm()``); returns the seconds it
    took, wall-clock and CPU."""
    from ice_envs.core import vector
    from ice_envs.core.compiled_opponents import SeatPlayers
    from ice_envs.core.compiled_players import compiled_greedy_values, compiled_player_names
    from ice_envs.core.registry import get_spec, load_attribute

    start, cpu = time.perf_counter(), time.process_time()
    spec = get_spec(game)
    engine = vector.make(game, 4, spec.quick_players, seed=0, engine="compiled")
    engine.reset()
    engine.step(np.array([int(np.flatnonzero(row)[0]) for row in engine.mask]))
    engine.scores()
    engine.observe(0)
    engine.playout()
    engine.reset()
    seats = SeatPlayers(engine, compiled_player_names(game), seed=0)
    seats.seat_player[:, 1:] = seats.index("random")
    seats.advance()
    seats.seat_player[:] = seats.index("random")
    seats.playout()
    greedy_values = compiled_greedy_values(game)
    if greedy_values is not None:
        width = engine.mask.shape[1]
        values = np.zeros(width, dtype=np.int64)
        greedy_values[0](engine.state[0], engine.config_row(), engine.mask[0].copy(), values, np.zeros(width, np.int8))
    warm_features = getattr(load_attribute(spec.move_features), "warm", None) if spec.move_features else None
    if warm_features is not None:
        warm_features()
    return time.perf_counter() - start, time.process_time() - cpu


def warm(games: Sequence[str] | None = None, jobs: int = 1) -> Iterator[tuple[str, float, float]]:
    """:func:`warm_game` for every game with a compiled engine (or ``games``), ``jobs`` processes at once:
    ``(game, wall seconds, CPU seconds)`` as each is ready."""
    from ice_envs.core.registry import discover

    names = list(games) if games else [name for name, spec in discover().items() if spec.compiled]
    if jobs <= 1 or len(names) <= 1:
        for name in names:
            yield name, *warm_game(name)
        return
    names.sort(key=_compiled_source_size, reverse=True)  # the longest compiles start first
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for name, (wall, cpu) in zip(names, pool.map(warm_game, names), strict=True):
            yield name, wall, cpu


def _compiled_source_size(game: str) -> int:
    """Bytes of the ``compiled*.py`` modules beside ``game``'s compiled engine (its kernels and players): the
    proxy for how long they take to compile, so that with several jobs the longest start first and the jobs
    end together (0 for a game without a compiled engine)."""
    from ice_envs.core.registry import get_spec

    ref = get_spec(game).compiled
    module = importlib.util.find_spec(ref.split(":")[0]) if ref else None
    if module is None or not module.origin:
        return 0
    return sum(path.stat().st_size for path in Path(module.origin).parent.glob("compiled*.py"))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ice_envs.core.compiled_warmup [GAME ...] [--jobs N]``: :func:`warm`."""
    parser = argparse.ArgumentParser(
        prog="python -m ice_envs.core.compiled_warmup",
        description="Compile every game's compiled engine and loops into numba's disk cache (or load them).",
    )
    parser.add_argument("games", nargs="*", help="games (default: every game with a compiled engine)")
    parser.add_argument("--jobs", type=int, default=1, help="processes compiling at once (default 1)")
    args = parser.parse_args(argv)
    from ice_envs.core.registry import discover, get_spec

    discover()
    try:
        names = [get_spec(name).name for name in args.games]
        unready = [name for name in names if not get_spec(name).compiled]
        if unready:
            raise OptionError(f"{unready[0]}: this game has no compiled engine")
    except OptionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    for name, wall, cpu in warm(names, max(1, args.jobs)):
        print(f"{name}: {wall:.1f} s ({cpu:.1f} s CPU)", flush=True)
    print(f"compiled engines ready in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
