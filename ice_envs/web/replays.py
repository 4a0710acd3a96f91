"""Replays in the browser: a game record, verified, stepped to any decision and seen from any seat.

A record is opened by name from the :class:`~ice_envs.web.library.Library` and checked exactly as
``ice-envs replay`` checks it (:func:`ice_envs.evaluation.replay.replay`: every decision's agent,
legality and description, and the final state's digest against the outcome line); a record that
does not check is refused with its :class:`~ice_envs.evaluation.record.RecordError` line. Then one
pass keeps a state every :data:`CHECKPOINT_EVERY` decisions, each step's scores, and each
decision's text as every seat may see it (:func:`ice_envs.play.games.public_description`), so that
any step is reached by replaying at most that many decisions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ice_envs.evaluation.record import GameRecord, load_record
from ice_envs.evaluation.replay import build_env, replay
from ice_envs.play.games import public_description

CHECKPOINT_EVERY = 64
#: How many verified records are kept in memory.
CACHE_SIZE = 8


@dataclass
class Decision:
    """One recorded decision: who took it, the action and its text for each viewer (``None``: full table)."""

    index: int
    seat: int
    agent: str
    action: int
    texts: dict[int | None, str | None]


class ReplayView:
    """A verified record that can show the table after any number of its decisions."""

    def __init__(self, record: GameRecord) -> None:
        result = replay(record, gif=False)  # the checks of `ice-envs replay`
        self.record = record
        self.finished = result.finished
        self.checked_outcome = result.checked_outcome
        env = build_env(record)
        self.num_players = env.num_players
        self.agents = list(record.header.get("agents") or [])
        self.checkpoints: dict[int, dict[str, Any]] = {0: env.state_dict()}
        self.scores: list[list[float]] = [[float(x) for x in env.scores()]]
        self.decisions: list[Decision] = []
        seat_of = {a: p for p, a in enumerate(env.possible_agents)}
        for i, step in enumerate(record.steps):
            action = int(step["action"])
            texts: dict[int | None, str | None] = {None: env.describe_action(action)}
            for viewer in range(self.num_players):
                texts[viewer] = public_description(env, action, viewer)
            self.decisions.append(Decision(i, seat_of[step["agent"]], step["agent"], action, texts))
            env.step(action)
            self.scores.append([float(x) for x in env.scores()])
            if (i + 1) % CHECKPOINT_EVERY == 0:
                self.checkpoints[i + 1] = env.state_dict()
        self.lock = threading.Lock()
        self._env = env
        self._at = len(record.steps)

    @property
    def steps(self) -> int:
        return len(self.decisions)

    def env_at(self, step: int) -> Any:
        """The env after the first ``step`` decisions (shared: hold :attr:`lock` while using it)."""
        step = max(0, min(step, self.steps))
        base = (step // CHECKPOINT_EVERY) * CHECKPOINT_EVERY
        if self._at > step or self._at < base:
            self._env.load_state_dict(self.checkpoints[base])
            self._at = base
        while self._at < step:
            self._env.step(self.decisions[self._at].action)
            self._at += 1
        return self._env


class ReplayCache:
    """Verified records by file (path, size and modification time), the least recently used dropped first."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._views: OrderedDict[tuple[str, int, int], ReplayView] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: Path) -> ReplayView:
        info = path.stat()
        key = (str(path), info.st_size, info.st_mtime_ns)
        with self._lock:
            view = self._views.get(key)
            if view is not None:
                self._views.move_to_end(key)
                return view
        view = ReplayView(load_record(path))
        with self._lock:
            self._views[key] = view
            while len(self._views) > self.size:
                self._views.popitem(last=False)
        return view
