"""Opponents of the learner: random, heuristic and frozen snapshots of the learner (self-play).

Two objects with one job each:

* :class:`~ice_envs.wrappers.opponents.OpponentMix` lives in every training env (also in
  ``SubprocVecEnv`` workers) and draws the opponents of each game from a weighted mix of kinds.
  Self-play opponents are :class:`~ice_envs.agents.ppo_agent.PPOAgent` copies of ``.npz``
  snapshots (numpy only, no torch in the workers). It is public in :mod:`ice_envs.wrappers.opponents`
  (with :class:`~ice_envs.wrappers.opponents.OpponentSampler` and ``KINDS``), re-exported here.
* :class:`SelfPlayPool` lives in the training process: it writes snapshots of the learner,
  keeps at most ``pool_size`` of them and applies the promotion rule — after a check game
  series against copies of the latest snapshot, the learner is promoted into the pool when
  the 95% Wilson lower bound of its win rate exceeds ``promote_lower_bound`` (default 1/N,
  i.e. it beats the latest snapshot significantly).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ice_envs.wrappers.opponents import KINDS, OpponentMix, OpponentSampler

__all__ = ["KINDS", "OpponentMix", "OpponentSampler", "SelfPlayPool", "Snapshot"]


@dataclass
class Snapshot:
    """One frozen copy of the learner: the step it was taken at and its ``.npz`` file."""

    step: int
    path: str


class SelfPlayPool:
    """The self-play pool of the training process, with its promotion rule.

    Args:
        directory: where snapshot files are written (``<run>/pool``).
        pool_size: snapshots kept (the oldest is dropped from the pool, its file kept).
        num_players: seats at the table (the default promotion bound is 1/N).
        promote_lower_bound: promote when the 95% Wilson lower bound of the learner's
            win rate against the latest snapshot exceeds this; ``None`` means 1/N.
    """

    def __init__(
        self, directory: str | Path, pool_size: int, num_players: int, promote_lower_bound: float | None = None
    ) -> None:
        self.directory = Path(directory)
        self.pool_size = pool_size
        self.num_players = num_players
        self.bound = promote_lower_bound if promote_lower_bound is not None else 1.0 / num_players
        self.snapshots: list[Snapshot] = []
        self.promotions = 0
        self.checks = 0
        self.last_check: dict[str, Any] | None = None

    @property
    def latest(self) -> Snapshot | None:
        return self.snapshots[-1] if self.snapshots else None

    def paths(self) -> list[str]:
        """Snapshot files, oldest first (what :meth:`OpponentMix.set_pool` takes)."""
        return [str(self._abs(s.path)) for s in self.snapshots]

    def candidate_path(self) -> Path:
        """Where the learner under test is written before a promotion check."""
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.directory / "candidate.npz"

    def add(self, source: str | Path, step: int) -> Snapshot:
        """Move the snapshot file ``source`` into the pool as the latest (taken at ``step``)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.directory / f"snap_{step:012d}.npz"
        os.replace(source, target)
        snap = Snapshot(step, target.name)
        self.snapshots.append(snap)
        del self.snapshots[: max(0, len(self.snapshots) - self.pool_size)]
        return snap

    def should_promote(self, win_rate_ci_low: float) -> bool:
        """The promotion rule: the learner beats the latest snapshot significantly."""
        return win_rate_ci_low > self.bound

    def record_check(self, step: int, row: dict[str, Any], promoted: bool) -> dict[str, Any]:
        """Remember a promotion check (``row`` is the learner's ``ice_envs.evaluation.tournament`` entry)."""
        self.checks += 1
        self.promotions += int(promoted)
        self.last_check = {
            "step": step,
            "win_rate": row["win_rate"],
            "win_rate_ci95": list(row["win_rate_ci95"]),
            "games": row["games"],
            "promoted": promoted,
            "bound": self.bound,
        }
        return self.last_check

    def state(self) -> dict[str, Any]:
        """What the TensorBoard ``selfplay/*`` scalars show."""
        return {
            "pool_size": len(self.snapshots),
            "promotions": self.promotions,
            "checks": self.checks,
            "latest_step": self.latest.step if self.latest else 0,
            "oldest_step": self.snapshots[0].step if self.snapshots else 0,
        }

    def state_dict(self) -> dict[str, Any]:
        return {
            "snapshots": [asdict(s) for s in self.snapshots],
            "promotions": self.promotions,
            "checks": self.checks,
            "last_check": self.last_check,
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        self.snapshots = [Snapshot(**s) for s in data["snapshots"]]
        self.promotions = int(data["promotions"])
        self.checks = int(data["checks"])
        self.last_check = data.get("last_check")

    def _abs(self, name: str) -> Path:
        return self.directory / name
