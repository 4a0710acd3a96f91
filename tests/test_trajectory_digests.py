"""Random-play trajectories are unchanged (see trajectory_digests.py): the golden digests on what
existed when they were recorded, and the current ones on the whole observation, forced steps skipped or not."""

from __future__ import annotations

import json

import pytest

from ice_envs.core.registry import all_cases
from tests.trajectory_digests import (
    CURRENT_FILE,
    GOLDEN_FILE,
    SEEDS,
    SKIP_FORCED,
    case_key,
    digest,
    golden_digest,
    golden_layouts,
    layout_key,
)

GOLDEN = json.loads(GOLDEN_FILE.read_text())
CURRENT = json.loads(CURRENT_FILE.read_text()) if CURRENT_FILE.exists() else {}
CASES = [pytest.param(g, v, n, opts, id=f"{g}-{v}-{n}p") for g, v, n, opts in all_cases(built_in_only=True)]
GOLDEN_CASES = [p for p in CASES if layout_key(*p.values[:3]) in golden_layouts()]


def test_every_golden_case_still_exists() -> None:
    """No case of the golden digests has disappeared (its game, variant and player count are still registered)."""
    registered = {case_key(g, v, n, s) for g, v, n, _ in all_cases(built_in_only=True) for s in SEEDS}
    assert set(GOLDEN) <= registered
    assert {layout_key(*key.split("/")[:2], int(key.split("/")[2][:-1])) for key in GOLDEN} == set(golden_layouts())


def test_every_case_has_current_digests() -> None:
    expected = {
        case_key(g, v, n, s, x)
        for g, v, n, _ in all_cases(built_in_only=True)
        for s in SEEDS
        for x in ("", SKIP_FORCED)
    }
    assert expected == set(CURRENT), "re-record with: python -m tests.trajectory_digests --write"


@pytest.mark.parametrize(("game", "variant", "n", "options"), GOLDEN_CASES)
def test_golden_trajectory_unchanged(game: str, variant: str, n: int, options: dict) -> None:
    for seed in SEEDS:
        assert golden_digest(game, variant, n, options, seed) == GOLDEN[case_key(game, variant, n, seed)], (
            f"{game} {variant} {n}p seed {seed}: the rules or an existing observation piece changed"
        )


@pytest.mark.parametrize(("game", "variant", "n", "options"), CASES)
@pytest.mark.parametrize("skip_forced", [False, True], ids=["all_steps", "skip_forced"])
def test_current_trajectory_unchanged(game: str, variant: str, n: int, options: dict, skip_forced: bool) -> None:
    suffix = SKIP_FORCED if skip_forced else ""
    for seed in SEEDS:
        key = case_key(game, variant, n, seed, suffix)
        assert digest(game, n, {**options, "skip_forced": skip_forced}, seed) == CURRENT.get(key), (
            f"{key}: the visible trajectory changed (re-record on purpose: python -m tests.trajectory_digests --write)"
        )
