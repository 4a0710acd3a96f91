"""Training workers start as forks of a server that has already imported what they run."""

from __future__ import annotations

import sys

import pytest

from ice_envs.train.worker_start import PRELOAD, worker_context


def _loaded_at_start(queue) -> None:
    """Which of the preloaded modules the worker holds before it imports anything itself."""
    queue.put(sorted(name for name in PRELOAD if name != "__main__" and name in sys.modules))


def test_a_forkserver_worker_starts_with_the_training_modules_loaded():
    pytest.importorskip("stable_baselines3")  # here, not at import: the worker imports this module
    ctx = worker_context()
    queue = ctx.Queue()
    worker = ctx.Process(target=_loaded_at_start, args=(queue,))
    worker.start()
    try:
        loaded = queue.get(timeout=120)
    finally:
        worker.join(timeout=30)
    assert worker.exitcode == 0
    assert loaded == sorted(name for name in PRELOAD if name != "__main__")
