"""A replay that does not match its record names the record file (and the line) in its one error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ice_envs.cli import main
from ice_envs.evaluation.record import RecordError
from ice_envs.evaluation.replay import replay


@pytest.fixture
def record(tmp_path: Path) -> Path:
    argv = ["evaluate", "cardiceo", "--players", "2", "--agents", "heuristic,random", "--games", "1"]
    assert main([*argv, "--record", "1", "--no-progress", "--out", str(tmp_path / "eval")]) == 0
    return tmp_path / "eval" / "records" / "game_00000.jsonl"


def _rewrite(path: Path, change) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    change(lines)
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def _illegal_action(lines: list) -> None:
    lines[3]["action"] = 10_000


def _other_agent(lines: list) -> None:
    lines[2]["agent"] = "player_9"


def _other_description(lines: list) -> None:
    lines[1]["description"] = "something else"


def _other_digest(lines: list) -> None:
    lines[-1]["outcome"]["state_digest"] = "0" * 64


def _extra_decision(lines: list) -> None:
    lines.insert(-1, {**lines[-2], "step": lines[-2]["step"] + 1})


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (_illegal_action, ", line 4: action 10000 is not legal here"),
        (_other_agent, ", line 3: the record has player_9 acting"),
        (_other_description, ", line 2: action "),
        (_other_digest, ": the replay does not end as the record says: state_digest"),
        (_extra_decision, "the game is already over"),
    ],
)
def test_a_replay_error_names_the_record_file(record: Path, change, where: str) -> None:
    _rewrite(record, change)
    with pytest.raises(RecordError) as caught:
        replay(record)
    message = str(caught.value)
    assert message.startswith(str(record)) and where in message and "\n" not in message
