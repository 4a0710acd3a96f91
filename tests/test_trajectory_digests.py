"""Every case's random-play trajectory is unchanged since it was recorded (see trajectory_digests.py)."""

from __future__ import annotations

import json

import pytest

from ice_envs.core.registry import all_cases
from tests.trajectory_digests import DIGEST_FILE, SEEDS, case_key, digest

RECORDED = json.loads(DIGEST_FILE.read_text())
CASES = [pytest.param(g, v, n, opts, id=f"{g}-{v}-{n}p") for g, v, n, opts in all_cases()]


def test_every_case_has_recorded_digests() -> None:
    expected = {case_key(g, v, n, s) for g, v, n, _ in all_cases() for s in SEEDS}
    assert expected == set(RECORDED), "re-record with: python -m tests.trajectory_digests --write"


@pytest.mark.parametrize(("game", "variant", "n", "options"), CASES)
def test_trajectory_unchanged(game: str, variant: str, n: int, options: dict) -> None:
    for seed in SEEDS:
        assert digest(game, n, options, seed) == RECORDED[case_key(game, variant, n, seed)], (
            f"{game} {variant} {n}p seed {seed}: the visible trajectory changed"
        )
