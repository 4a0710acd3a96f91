"""Game records: one game as JSON lines, written by play, demo and evaluate, read by replay.

A record is a text file with one JSON object per line:

1. the header ``{"record": "ice-envs game", "format": 1, "game", "num_players",
   "options", "seed", "agents", "ice_envs_version"}`` — enough to rebuild the env
   (``ice_envs.make(game, num_players=..., **options)`` then ``reset(seed=seed)``);
2. one line per decision ``{"step", "agent", "action", "description"}`` in the order
   they were taken (``description`` is ``describe_action`` just before the step);
3. the public outcome ``{"outcome": {"finished", "truncated", "steps", "rewards",
   "scores", "state_digest"}}``: each agent's total reward, the game's final scores, and
   a SHA-256 digest of the final ``state_dict()`` so that a replay can check that it
   reached exactly the same state (the digest reveals nothing of the hidden cards).

Same seed + same actions give the same game (the env contract), so the record is all a
replay needs.

>>> rec = GameRecorder("cardiceo", 2, seed=0, agents=["human", "heuristic"])
>>> # before each env.step(action):   rec.step(env, action)
>>> # after each env.step(action):    rec.observe_rewards(env)
>>> # at the end:                     rec.finish(env); rec.save("game.jsonl")
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ice_envs.core.registry import get_spec

RECORD_KIND = "ice-envs game"
RECORD_FORMAT = 1


class RecordError(ValueError):
    """A record file that cannot be read, or a replay that does not match its record."""


def state_digest(env: Any) -> str:
    """SHA-256 of the game's state: the engine state, the random generator and the step count.

    Taken from ``state_dict()`` (canonical JSON), leaving out the PettingZoo bookkeeping
    that a driving loop changes after the game (dead steps remove the agents).
    """
    data = env.unwrapped.state_dict()
    core = {k: data[k] for k in ("game", "num_players", "state", "rng", "num_steps")}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _jsonable_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options as plain JSON (tuples become lists); refuses what JSON cannot hold."""
    try:
        return json.loads(json.dumps(options))
    except (TypeError, ValueError) as exc:
        raise RecordError(f"game options {options!r} cannot be recorded as JSON: {exc}") from None


def is_over(env: Any) -> bool:
    """Whether the env's game has ended (terminated or truncated)."""
    raw = env.unwrapped
    if not raw.agents:  # every agent was removed by its dead step
        return True
    return all(raw.terminations.get(a, False) for a in raw.agents) or any(raw.truncations.values())


@dataclass
class GameRecord:
    """A parsed record: header, decisions and (when the game was recorded to its end) outcome."""

    header: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None

    @property
    def game(self) -> str:
        return str(self.header["game"])

    @property
    def num_players(self) -> int:
        return int(self.header["num_players"])

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.header.get("options") or {})

    @property
    def seed(self) -> int | None:
        return self.header.get("seed")

    def lines(self) -> list[str]:
        """The record as JSON lines (without newlines)."""
        out = [json.dumps(self.header)]
        out += [json.dumps(s) for s in self.steps]
        if self.outcome is not None:
            out.append(json.dumps({"outcome": self.outcome}))
        return out

    def save(self, path: str | Path) -> Path:
        """Write the record to ``path`` (parent folders are created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines()) + "\n")
        return path


class GameRecorder:
    """Builds a :class:`GameRecord` while a game is played.

    Call :meth:`step` just before each ``env.step(action)`` (it reads the description
    of the action in the current state), :meth:`observe_rewards` just after it, and
    :meth:`finish` at the end. :meth:`truncate` drops decisions taken back (the terminal
    player's ``undo``).
    """

    def __init__(
        self,
        game: str,
        num_players: int,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        agents: Sequence[str] = (),
    ) -> None:
        from ice_envs import __version__

        self.record = GameRecord(
            header={
                "record": RECORD_KIND,
                "format": RECORD_FORMAT,
                "game": get_spec(game).name,
                "num_players": int(num_players),
                "options": _jsonable_options(dict(options or {})),
                "seed": seed,
                "agents": list(agents),
                "ice_envs_version": __version__,
            }
        )
        self.totals: dict[str, float] = {}
        #: (finished, truncated) just after the last recorded step: a driving loop's dead
        #: steps later remove the agents and their termination/truncation flags.
        self.status: tuple[bool, bool] | None = None

    def step(self, env: Any, action: int) -> None:
        """Record that the selected agent of ``env`` is about to take ``action``."""
        raw = env.unwrapped
        self.record.steps.append(
            {
                "step": int(raw.num_steps),
                "agent": raw.agent_selection,
                "action": int(action),
                "description": raw.describe_action(int(action)),
            }
        )

    def observe_rewards(self, env: Any) -> None:
        """Add the rewards of the step just taken to the per-agent totals (and note the game's status)."""
        add_rewards(self.totals, env)
        self.status = game_status(env)

    def take(self, env: Any, action: int) -> None:
        """Record ``action``, take it in ``env`` and add the rewards it gave."""
        self.step(env, action)
        env.step(action)
        self.observe_rewards(env)

    def truncate(self, steps: int, totals: dict[str, float] | None = None) -> None:
        """Keep only the first ``steps`` decisions (and reset the totals to ``totals``)."""
        del self.record.steps[steps:]
        if totals is not None:
            self.totals = dict(totals)
        self.status = None

    def finish(self, env: Any) -> GameRecord:
        """Write the outcome line from the env's final state; returns the record."""
        self.record.outcome = outcome_of(env, self.totals, self.status)
        return self.record

    def save(self, path: str | Path) -> Path:
        return self.record.save(path)


def add_rewards(totals: dict[str, float], env: Any) -> None:
    """Add ``env.rewards`` (the last step's rewards of every agent) to ``totals``."""
    for agent, r in env.unwrapped.rewards.items():
        totals[agent] = totals.get(agent, 0.0) + float(r)


def game_status(env: Any) -> tuple[bool, bool]:
    """(the game has ended, it ended by truncation), read from the env's flags now."""
    raw = env.unwrapped
    return is_over(raw), any(raw.truncations.values())


def take(env: Any, action: int, recorder: GameRecorder | None) -> None:
    """Take ``action`` in ``env``, through ``recorder`` when the game is being recorded."""
    if recorder is None:
        env.step(action)
    else:
        recorder.take(env, action)


def outcome_of(env: Any, totals: dict[str, float], status: tuple[bool, bool] | None = None) -> dict[str, Any]:
    """The public outcome of ``env``: rewards (totals), scores, status (default: read now), digest."""
    raw = env.unwrapped
    finished, truncated = status if status is not None else game_status(raw)
    return {
        "finished": finished,
        "truncated": truncated,
        "steps": int(raw.num_steps),
        "rewards": {a: float(totals.get(a, 0.0)) for a in raw.possible_agents},
        "scores": [float(x) for x in raw.scores()],
        "state_digest": state_digest(raw),
    }


def parse_record(lines: Iterable[str], source: str = "record") -> GameRecord:
    """Parse JSON lines into a :class:`GameRecord`; clear errors name the bad line."""
    record: GameRecord | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{source}, line {number}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise RecordError(f"{source}, line {number}: expected a JSON object")
        if record is None:
            if data.get("record") != RECORD_KIND or "game" not in data or "num_players" not in data:
                raise RecordError(f"{source}, line {number}: not an ice-envs game record header")
            if data.get("format", RECORD_FORMAT) > RECORD_FORMAT:
                raise RecordError(f"{source}: record format {data['format']} is newer than this ice-envs reads")
            record = GameRecord(header=data)
        elif record.outcome is not None:
            raise RecordError(f"{source}, line {number}: nothing may follow the outcome line")
        elif "outcome" in data:
            record.outcome = data["outcome"]
        else:
            missing = [k for k in ("agent", "action") if k not in data]
            if missing:
                raise RecordError(f"{source}, line {number}: decision line lacks {missing}")
            record.steps.append(data)
    if record is None:
        raise RecordError(f"{source}: empty record")
    return record


def load_record(path: str | Path) -> GameRecord:
    """Read a record file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no record file {str(path)!r}")
    return parse_record(path.read_text().splitlines(), source=str(path))
