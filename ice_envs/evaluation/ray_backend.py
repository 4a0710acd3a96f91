"""Tournament games on Ray: ``ice-envs evaluate ... --backend ray [--address ADDR]`` and ``ice-envs league``.

    ice-envs evaluate cardiceo --players 4 --agents heuristic,random,random,random --games 4000 --backend ray
    ice-envs evaluate ... --backend ray --address auto            (a running cluster; ray://HEAD:10001 from outside)

The games of a tournament are split into batches of consecutive game numbers, one Ray task per
batch, as :func:`ice_envs.evaluation.tournament.run_games` splits them over local processes. A game
depends only on its number (deal seed ``seed + i // N``, seat rotation ``i % N``, agent generators
seeded from ``(seed, i, agent index)``), never on where or in which batch it runs, and the results
are put back in game order; so ``evaluation.json`` is the same as with ``--workers 1`` except for
the fields that describe the run itself (``wall_seconds``, ``workers`` and the ``command`` line).

Without ``--address`` a local Ray is started with as many CPUs as ``--workers`` (one task per CPU).
With one, the cluster's CPUs are used; every node needs ice-envs installed (the same version) and
any ``python:module:factory`` agent's module importable. Agent objects of the Python API are
pickled to the tasks with the match (as they are to local worker processes).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["BACKENDS", "cluster_cpus", "init_ray", "play_chunk", "run_games_ray"]

#: Where tournament games run: ``local`` (this process or a process pool) or ``ray`` (Ray tasks).
BACKENDS = ("local", "ray")


def init_ray(address: str | None = None, num_cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address``, or start a local Ray with ``num_cpus`` CPUs (once per process).

    A local Ray's workers get this process's ``sys.path``, so a ``python:`` agent importable here is
    importable in them.
    """
    from ice_envs.core.errors import require_extra

    require_extra("rllib", "Ray (--backend ray, backend: rllib)", "ray")
    import ray

    if ray.is_initialized():
        return
    if address is None:
        path = os.pathsep.join(p for p in sys.path if p)
        ray.init(
            num_cpus=num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": path}},
        )
    else:
        ray.init(address=address, log_to_driver=False)


#: How many times Ray runs a task again after its worker process died (Ray's own default for tasks).
TASK_RETRIES = 3


def run_games_ray(
    play_batch: Callable[[tuple[Any, list[int]]], list[dict[str, Any]]], match: Any, chunks: list[list[int]], bar: Any
) -> tuple[list[dict[str, Any]], list[tuple[list[int], str]]]:
    """``play_batch((match, chunk))`` for each chunk of game numbers, one Ray task each.

    Returns the finished games (unordered) and, for each task that failed after Ray's retries (a
    crashed worker, a lost node, an exception in the task), its chunk and the cause on one line.
    Every task is waited for, so a failure never loses a finished game.
    """
    import ray

    play = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(play_chunk)
    match_ref = ray.put(match)  # one copy in the object store, not one per task
    chunk_of = {}
    for chunk in chunks:
        chunk_of[play.remote(play_batch, match_ref, chunk)] = chunk
    pending = list(chunk_of)
    results: list[dict[str, Any]] = []
    failures: list[tuple[list[int], str]] = []
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            try:
                out = ray.get(ref)
            except ray.exceptions.RayError as exc:
                failures.append((chunk_of[ref], _cause(exc)))
                continue
            results.extend(out)
            bar.update(len(out))
    return results, failures


def _cause(exc: BaseException) -> str:
    """A failed task's cause on one line: the exception's type and the first line of its message."""
    inner = getattr(exc, "cause", None)
    if isinstance(inner, BaseException):
        exc = inner
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0][:200]}" if lines else type(exc).__name__


def play_chunk(
    play_batch: Callable[[tuple[Any, list[int]]], list[dict[str, Any]]], match: Any, chunk: list[int]
) -> list[dict[str, Any]]:
    """One Ray task: the games ``chunk`` of ``match`` (Ray resolves the match's object reference first)."""
    return play_batch((match, chunk))


def cluster_cpus() -> int:
    """The CPUs of the Ray cluster this process is connected to (at least 1)."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))
