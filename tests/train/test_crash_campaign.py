"""A small crash campaign in CI: a smoke run SIGKILLed inside a checkpoint write and after a checkpoint,
then resumed, ends with the uninterrupted run's weights and evaluations, and no process outlives a kill.

The campaign itself (any number of kills) is ``python -m tests.train.crash_campaign --kills 30 --out DIR``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.train.crash_campaign import SMOKE, campaign

pytest.importorskip("sb3_contrib")


def test_killed_runs_resume_to_the_uninterrupted_result(tmp_path: Path):
    small = {
        **SMOKE,
        "total_timesteps": 256,
        "checkpoint_every": 64,
        "opponents": {**SMOKE["opponents"], "self_play": {**SMOKE["opponents"]["self_play"], "check_every": 128}},
        "eval": {**SMOKE["eval"], "every": 128, "games": 4, "final_games": 4},
    }
    counts = campaign(2, tmp_path / "campaign", seed=3, config=small, kinds=("write", "checkpoint"), log=lambda _: None)
    assert counts["failed"] == [], counts["failed"]
    assert counts["kills"] >= 2 and counts["passed"] == counts["trials"]
