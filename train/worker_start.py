"""How a training run starts its worker processes: ``forkserver``, with what they import loaded once.

A ``forkserver`` child is forked from one server process that the training process starts on first use. Python's
server loads only ``__main__`` before forking, so every env worker and the background evaluator used to import
torch, Stable-Baselines3 and the training code afresh (a few CPU seconds each, every time a run starts or resumes
its workers). :func:`worker_context` names those modules to the server: it imports them once, and each worker
starts with them already loaded. A worker computes exactly what it did before; only its start is shorter.
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

__all__ = ["PRELOAD", "worker_context"]

#: What the server imports before forking a worker: the user's ``__main__`` (Python's default), the modules that
#: hold the workers' code and the env factory, and Stable-Baselines3 (torch with it). A module that cannot be
#: imported is skipped by the server; the worker then imports what it needs itself, as without a preload.
PRELOAD = (
    "__main__",
    "stable_baselines3",
    "ice_envs.train.run",
    "ice_envs.train.grouped_vec_env",
    "ice_envs.train.evaluation",
)


def worker_context(start_method: str = "forkserver") -> Any:
    """The multiprocessing context of ``start_method`` (``fork``, ``forkserver``, ``spawn``); a ``forkserver``
    one has its server told to load :data:`PRELOAD` (which takes effect when this process starts its server,
    i.e. at its first ``forkserver`` worker)."""
    ctx = mp.get_context(start_method)
    if start_method == "forkserver":
        ctx.set_forkserver_preload(list(PRELOAD))
    return ctx
