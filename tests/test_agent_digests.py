"""The heuristic and greedy agents decide as they did when the digests were recorded (see agent_digests.py):
speed-ups of the agents and of the engines' state copies must not change a decision."""

from __future__ import annotations

import json

import pytest

from ice_envs.core.registry import GAMES
from tests.agent_digests import CASES, DIGEST_FILE, case_key, digest

RECORDED = json.loads(DIGEST_FILE.read_text())


def test_every_game_has_agent_digests() -> None:
    assert set(CASES) <= set(GAMES) and len(CASES) == 5  # the five games of the pack (plug-ins may add more)
    assert set(RECORDED) == {case_key(game, n) for game, (counts, _) in CASES.items() for n in counts}


@pytest.mark.parametrize(
    ("game", "n", "options"),
    [pytest.param(game, n, opts, id=case_key(game, n)) for game, (counts, opts) in CASES.items() for n in counts],
)
def test_agent_decisions_are_unchanged(game: str, n: int, options: dict) -> None:
    assert digest(game, n, options) == RECORDED[case_key(game, n)]
