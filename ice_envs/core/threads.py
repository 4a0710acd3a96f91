"""One BLAS thread for the numpy policy networks that play one observation at a time.

A PPO agent (``ice_envs.agents.ppo_agent.PolicyNet``) computes its logits with numpy, one
observation at a time: matrix-vector products. numpy's OpenBLAS splits a product that large over
every core (Tip of the Diceberg's first layer is 256 x 3023), and handing the rows to the other
threads and waiting for them costs more than the product itself; when the other cores are busy
(a second training run, the workers of an evaluation) the wait grows to milliseconds. Measured on
the project's 2-core machine with other work running: a Tip of the Diceberg league run's
snapshot opponents 7 ms a decision, the run 175 PPO steps/s with OpenBLAS's two threads and 351
with one (docs/training.md, "One BLAS thread").

The bits do not change: with one thread or several, every output of a matrix-vector product is the
same dot product, summed in the same order (``tests/core/test_threads.py`` checks a shipped
network's logits both ways). Training (``ice_envs.train.run``), its env workers and every game an
evaluation or league plays (``ice_envs.evaluation.tournament``) run with :func:`one_blas_thread`.
torch is not affected: it uses its own kernels and ``torch.set_num_threads``.
"""

from __future__ import annotations

from typing import Any

from threadpoolctl import threadpool_info, threadpool_limits


def one_blas_thread() -> Any:
    """Limit the BLAS libraries loaded in this process (numpy's OpenBLAS) to one thread.

    Use it as a context manager (``with one_blas_thread(): ...``: the earlier limits come back at
    the end), or call it for the rest of the process (a worker process of its own).
    """
    return threadpool_limits(limits=1, user_api="blas")


def blas_threads() -> int | None:
    """The thread count of the first BLAS library loaded (``None`` if there is none)."""
    counts = [lib["num_threads"] for lib in threadpool_info() if lib.get("user_api") == "blas"]
    return counts[0] if counts else None
