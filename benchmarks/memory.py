"""Memory per env instance, measured the same way for every env and peer.

Two figures:

* :func:`memory_per_instance`: the growth of the process's resident memory (Linux
  ``/proc/self/statm``) while ``count`` instances are created and played ``decisions``
  random decisions into a game, all kept alive, divided by ``count``. It counts every
  allocation (Python objects, numpy buffers, a C++ engine's heap), so it compares ice-envs
  with OpenSpiel; it is what each env of a vectorised batch costs.
* :func:`python_heap_peak`: the peak of the Python heap (``tracemalloc``) while one instance
  is created and played ``decisions`` decisions: its transient allocations included. A C++
  engine's own heap is invisible to it, so it is given for Python envs only.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

#: Builds one instance that has played ``decisions`` random decisions with ``rng``.
InstanceFactory = Callable[[np.random.Generator, int], Any]


def resident_bytes() -> int | None:
    """This process's resident set size, or ``None`` where ``/proc`` is unavailable."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


def memory_per_instance(make: InstanceFactory, count: int = 200, decisions: int = 100, seed: int = 0) -> float:
    """KiB of resident memory per live instance (``nan`` where RSS cannot be read)."""
    rng = np.random.default_rng(seed)
    make(rng, decisions)  # import-time and first-use costs are not the instance's
    gc.collect()
    before = resident_bytes()
    if before is None:
        return float("nan")
    alive = [make(rng, decisions) for _ in range(count)]
    gc.collect()
    after = resident_bytes()
    del alive
    return max(0, after - before) / count / 1024


def python_heap_peak(make: InstanceFactory, decisions: int = 1000, seed: int = 0) -> float:
    """KiB of Python-heap peak while one instance is built and played ``decisions`` decisions."""
    rng = np.random.default_rng(seed)
    make(rng, 1)
    gc.collect()
    tracemalloc.start()
    try:
        instance = make(rng, decisions)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del instance
    return peak / 1024
