"""Opponents of the learner: random, heuristic and frozen snapshots of the learner (self-play).

Two objects with one job each:

* :class:`OpponentMix` lives in every training env (also in ``SubprocVecEnv`` workers) and
  draws the opponents of each game from a weighted mix of kinds. Self-play opponents are
  :class:`agents.ppo_agent.PPOAgent` copies of ``.npz`` snapshots (numpy only, no torch in
  the workers).
* :class:`SelfPlayPool` lives in the training process: it writes snapshots of the learner,
  keeps at most ``pool_size`` of them and applies the promotion rule — after a check game
  series against copies of the latest snapshot, the learner is promoted into the pool when
  the 95% Wilson lower bound of its win rate exceeds ``promote_lower_bound`` (default 1/N,
  i.e. it beats the latest snapshot significantly).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ice_envs.core.agent import Agent

KINDS = ("random", "heuristic", "self_play")


class OpponentSampler(Protocol):
    """Anything that seats opponents for a game (the wrapper calls ``draw`` at every reset)."""

    def draw(self, rng: np.random.Generator, seats: Sequence[int]) -> tuple[str, dict[int, Agent]]:
        """A label of the table (``random``, ``self_play``, ``mixed``...) and an agent per opponent seat."""


class OpponentMix:
    """Draws each game's opponents from weighted kinds: ``random``, ``heuristic``, ``self_play``.

    Args:
        game: the game name (for the heuristic agent).
        mix: weight per kind (normalised; kinds with weight 0 are never drawn).
        per_seat: draw a kind per opponent seat (``True``) or one kind for the whole table.
        pool: ``.npz`` snapshot paths, oldest first (see :meth:`set_pool`).
        latest_share: chance that a self-play opponent is the latest snapshot; otherwise a
            snapshot is drawn uniformly from the pool.
        snapshot_deterministic: snapshots play their greedy action instead of sampling.
    """

    def __init__(
        self,
        game: str,
        mix: dict[str, float],
        per_seat: bool = True,
        pool: Sequence[str] = (),
        latest_share: float = 0.5,
        snapshot_deterministic: bool = False,
    ) -> None:
        unknown = set(mix) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown opponent kinds {sorted(unknown)}; use {list(KINDS)}")
        self.game = game
        self.kinds = [k for k in KINDS if mix.get(k, 0) > 0]
        if not self.kinds:
            raise ValueError("opponent mix: at least one kind needs a weight > 0")
        weights = np.array([mix[k] for k in self.kinds], dtype=np.float64)
        self.probs = weights / weights.sum()
        self.per_seat = per_seat
        self.latest_share = latest_share
        self.snapshot_deterministic = snapshot_deterministic
        self.pool: list[str] = []
        self._agents: dict[tuple[int, str, str], Agent] = {}
        self.set_pool(pool)

    def set_pool(self, paths: Sequence[str]) -> None:
        """Replace the self-play pool (oldest first; the last is the latest snapshot)."""
        self.pool = [str(p) for p in paths]
        keep = set(self.pool) | {""}
        self._agents = {key: a for key, a in self._agents.items() if key[2] in keep}

    def draw(self, rng: np.random.Generator, seats: Sequence[int]) -> tuple[str, dict[int, Agent]]:
        if not seats:  # a solo game
            return "solo", {}
        if self.per_seat:
            kinds = [self.kinds[rng.choice(len(self.kinds), p=self.probs)] for _ in seats]
        else:
            kinds = [self.kinds[rng.choice(len(self.kinds), p=self.probs)]] * len(seats)
        table = {seat: self._agent(seat, kind, rng) for seat, kind in zip(seats, kinds)}
        label = kinds[0] if len(set(kinds)) == 1 else "mixed"
        return label, table

    def _agent(self, seat: int, kind: str, rng: np.random.Generator) -> Agent:
        path = ""
        if kind == "self_play":
            if not self.pool:
                raise RuntimeError("self-play opponent drawn but the snapshot pool is empty")
            use_latest = len(self.pool) == 1 or rng.random() < self.latest_share
            path = self.pool[-1] if use_latest else self.pool[int(rng.integers(len(self.pool)))]
        key = (seat, kind, path)
        if key not in self._agents:
            self._agents[key] = _make_agent(self.game, kind, path, self.snapshot_deterministic)
        return self._agents[key]


def _make_agent(game: str, kind: str, path: str, deterministic: bool) -> Agent:
    if kind == "random":
        from ice_envs.agents.random_agent import RandomAgent

        return RandomAgent()
    if kind == "heuristic":
        from ice_envs.agents.spec import load_agent

        return load_agent("heuristic", game)
    from ice_envs.agents.ppo_agent import PPOAgent, load_policy_net

    return PPOAgent(load_policy_net(path), deterministic=deterministic, label=f"snapshot:{Path(path).stem}")


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
