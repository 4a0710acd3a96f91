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

Reading a record (:func:`load_record`) goes through :mod:`ice_envs.core.files`: a regular
file within :data:`MAX_RECORD_BYTES`, UTF-8 with or without a byte-order mark, each line
plain JSON with its nesting bounded. Every field is checked (:func:`parse_record`): the
header's types, decision lines numbered 0, 1, 2, ... with an agent name, an integer
action and a text description, and an outcome line with every field of the right type.
Anything else is a :class:`RecordError` naming the file and the line. (A repeated or
out-of-order step number is found while parsing when it jumps ahead, and by the replay,
decision by decision, otherwise: there a decision after the game's end is reported as
such first.)

>>> rec = GameRecorder("cardiceo", 2, seed=0, agents=["human", "heuristic"])
>>> # before each env.step(action):   rec.step(env, action)
>>> # after each env.step(action):    rec.observe_rewards(env)
>>> # at the end:                     rec.finish(env); rec.save("game.jsonl")
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ice_envs.core.registry import get_spec

RECORD_KIND = "ice-envs game"
RECORD_FORMAT = 1
#: Size cap of a record file.
MAX_RECORD_BYTES = 64 << 20
#: Nesting bound of one record line (options are the deepest part).
MAX_LINE_DEPTH = 16
#: The keys of a decision line, and those it must have.
STEP_KEYS = frozenset(("step", "agent", "action", "description"))
#: The fields of an outcome line.
OUTCOME_KEYS = frozenset(("finished", "truncated", "steps", "rewards", "scores", "state_digest"))
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


class RecordError(ValueError):
    """A record file that cannot be read, or a replay that does not match its record."""


class RecordNotFoundError(RecordError, FileNotFoundError):
    """There is no record file at the path given."""


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
    #: Where the record was read from (named in errors).
    source: str = field(default="record", compare=False)

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
        """Write the record to ``path`` atomically (parent folders are created)."""
        from ice_envs.core.files import write_atomic

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, "\n".join(self.lines()) + "\n")
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
    """Parse JSON lines into a :class:`GameRecord`, checking every field; clear errors name the line."""
    from ice_envs.core.files import FileFormatError, parse_json

    record: GameRecord | None = None
    outcome_line = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source}, line {number}"
        try:
            data = parse_json(line, what="game record", source=source, limit=MAX_LINE_DEPTH)
        except FileFormatError as exc:
            message = str(exc).replace(f"{source}, line 1:", f"{where}:").replace(f"{source}:", f"{where}:")
            if "not valid JSON" in message:
                message = message.replace("not valid JSON", "not JSON")
            raise RecordError(message.removeprefix("game record ")) from None
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected a JSON object, got {type(data).__name__}")
        if record is None:
            record = GameRecord(header=_check_header(data, where), source=source)
        elif record.outcome is not None:
            raise RecordError(f"{where}: nothing may follow the outcome line")
        elif "outcome" in data:
            if set(data) != {"outcome"}:
                raise RecordError(f"{where}: an outcome line holds only 'outcome', got {sorted(data)}")
            record.outcome = data["outcome"]
            outcome_line = number
        else:
            record.steps.append(_check_step_line(data, where, len(record.steps)))
    if record is None:
        raise RecordError(f"{source}: empty record")
    if record.outcome is not None:
        record.outcome = _check_outcome_line(record.outcome, f"{source}, line {outcome_line}")
    return record


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _check_header(data: dict[str, Any], where: str) -> dict[str, Any]:
    if data.get("record") != RECORD_KIND or "game" not in data or "num_players" not in data:
        raise RecordError(f"{where}: not an ice-envs game record header")
    fmt = data.get("format", RECORD_FORMAT)
    if not _is_int(fmt) or fmt < 1:
        raise RecordError(f"{where}: header 'format' must be a positive integer, got {fmt!r}")
    if fmt > RECORD_FORMAT:
        raise RecordError(f"{where}: record format {fmt} is newer than this ice-envs reads")
    checks = {
        "game": (lambda v: isinstance(v, str) and v != "", "a game name"),
        "num_players": (lambda v: _is_int(v) and v >= 1, "a positive integer"),
        "options": (lambda v: v is None or isinstance(v, dict), "an object of game options"),
        "seed": (lambda v: v is None or (_is_int(v) and v >= 0), "null or a non-negative integer"),
        "agents": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v), "a list of agent names"),
        "ice_envs_version": (lambda v: isinstance(v, str), "a version string"),
    }
    for key, (ok, what) in checks.items():
        if key in data and not ok(data[key]):
            raise RecordError(f"{where}: header {key!r} must be {what}, got {data[key]!r}")
    return data


def _check_step_line(data: dict[str, Any], where: str, index: int) -> dict[str, Any]:
    missing = [k for k in ("agent", "action") if k not in data]
    if missing:
        raise RecordError(f"{where}: decision line lacks {missing}")
    unknown = sorted(set(data) - STEP_KEYS)
    if unknown:
        raise RecordError(f"{where}: decision line has unknown fields {unknown}; it holds {sorted(STEP_KEYS)}")
    if "step" not in data:
        raise RecordError(f"{where}: decision line lacks ['step']")
    if not _is_int(data["step"]) or data["step"] < 0:
        raise RecordError(f"{where}: 'step' must be a non-negative integer, got {data['step']!r}")
    if data["step"] > index:
        raise RecordError(f"{where}: {step_order_problem(index, data['step'])}")
    if not isinstance(data["agent"], str):
        raise RecordError(f"{where}: 'agent' must be an agent name, got {data['agent']!r}")
    if not _is_int(data["action"]) or data["action"] < 0:
        raise RecordError(f"{where}: 'action' must be a non-negative integer, got {data['action']!r}")
    if data.get("description") is not None and not isinstance(data["description"], str):
        raise RecordError(f"{where}: 'description' must be text, got {data['description']!r}")
    return data


def step_order_problem(index: int, step: Any) -> str:
    """The message for decision number ``index`` (from 0) whose ``step`` field is not ``index``."""
    return f"decision {index} has 'step' {step!r}; steps must be numbered 0, 1, 2, ... in order, without gaps"


def _check_outcome_line(outcome: Any, where: str) -> dict[str, Any]:
    if not isinstance(outcome, dict):
        raise RecordError(f"{where}: 'outcome' must be an object, got {type(outcome).__name__}")
    missing = sorted(OUTCOME_KEYS - set(outcome))
    unknown = sorted(set(outcome) - OUTCOME_KEYS)
    if missing or unknown:
        raise RecordError(f"{where}: the outcome lacks {missing} / has unknown fields {unknown}")
    for key in ("finished", "truncated"):
        if type(outcome[key]) is not bool:
            raise RecordError(f"{where}: outcome {key!r} must be true or false, got {outcome[key]!r}")
    if not _is_int(outcome["steps"]) or outcome["steps"] < 0:
        raise RecordError(f"{where}: outcome 'steps' must be a non-negative integer, got {outcome['steps']!r}")
    rewards = outcome["rewards"]
    if not isinstance(rewards, dict) or not all(_is_number(v) for v in rewards.values()):
        raise RecordError(f"{where}: outcome 'rewards' must map agent names to numbers, got {rewards!r}")
    scores = outcome["scores"]
    if not isinstance(scores, list) or not all(_is_number(v) for v in scores):
        raise RecordError(f"{where}: outcome 'scores' must be a list of numbers, got {scores!r}")
    digest = outcome["state_digest"]
    if not isinstance(digest, str) or not _DIGEST.match(digest):
        raise RecordError(f"{where}: outcome 'state_digest' must be a SHA-256 hex digest, got {digest!r}")
    return outcome


def load_record(path: str | Path) -> GameRecord:
    """Read a record file safely (regular file, size cap, UTF-8) and check it (:func:`parse_record`)."""
    from ice_envs.core.files import FileFormatError, read_text

    path = Path(path)
    if not path.exists():
        raise RecordNotFoundError(f"no record file {str(path)!r}")
    try:
        text = read_text(path, what="game record", max_bytes=MAX_RECORD_BYTES)
    except FileFormatError as exc:
        raise RecordError(str(exc)) from None
    return parse_record(text.splitlines(), source=str(path))
