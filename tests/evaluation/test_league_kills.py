"""A league killed (SIGKILL) at random moments and inside its file writes finishes with the tables of an
uninterrupted league, leaving no process and no temporary file behind (a small campaign of
``python -m ice_envs.benchmarks.league_kills``)."""

from __future__ import annotations

import sys

import pytest

from ice_envs.benchmarks.league_kills import run_campaign

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find leftover processes")


def test_a_killed_league_resumes_to_the_uninterrupted_tables(tmp_path) -> None:
    lines: list[str] = []
    result = run_campaign(kills=3, seed=1, workers=2, folder=tmp_path, echo=lines.append, games_per_table=4)
    assert result.problems == [], "\n".join(lines + result.problems)
    assert result.kills == 3 and result.kills_in_writes >= 1, lines
    assert result.temporary_files_left_by_kills >= 1, lines  # a kill inside a write leaves its temporary file
