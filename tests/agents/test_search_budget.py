"""The MCTS budget-curve benchmark (``benchmarks/mcts_budget.py``) on a tiny budget."""

from __future__ import annotations

import json

import pytest

from ice_envs.benchmarks import mcts_budget
from ice_envs.core.errors import AgentSpecError, OptionError


def test_budget_curve_writes_one_point_per_game_and_budget(tmp_path):
    report = mcts_budget.main(
        [
            "--game",
            "cardiceo",
            "--agent",
            "mcts:sims=2,depth=2",
            "--agent",
            "mcts:sims=3,depth=2",
            "--games",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    points = report["points"]
    assert [p["spec"] for p in points] == ["mcts:sims=2,depth=2", "mcts:sims=3,depth=2"]
    for p in points:
        assert p["players"] == 4 and p["games"] == 2 and p["first_seed"] == mcts_budget.DEV_SEED
        lo, hi = p["win_rate_ci95"]
        assert 0 <= lo <= p["win_rate"] <= hi <= 1
        assert p["beats_heuristic"] == (lo > 1 / 4)
        assert p["searched_decisions"] > 0 and 0 < p["cpu_s_mean"] <= p["cpu_s_max"]
        assert 0 < p["wall_s_mean"] <= p["wall_s_max"]
    assert json.loads((tmp_path / "mcts_budget.json").read_text())["points"] == points
    table = (tmp_path / "mcts_budget.md").read_text()
    assert "`mcts:sims=3,depth=2`" in table and "Load average" in table


def test_the_same_budget_plays_the_same_games(tmp_path):
    args = ["--game", "cubemelt", "--agent", "mcts:sims=2,depth=1", "--games", "3", "--redeals", "none"]
    first = mcts_budget.main([*args, "--out", str(tmp_path / "a")])["points"][0]
    second = mcts_budget.main([*args, "--out", str(tmp_path / "b")])["points"][0]
    keys = ("win_rate", "win_share", "decisions_per_game", "searched_decisions")
    assert {k: first[k] for k in keys} == {k: second[k] for k in keys}
    assert first["redeals"] is None


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(AgentSpecError):
        mcts_budget.build_agent("greedy", "cardiceo", 4, None, None)
    with pytest.raises(OptionError):
        mcts_budget.heuristic_table("no_such_game")
    with pytest.raises(OptionError):
        mcts_budget.main(["--game", "cardiceo", "--agent", "mcts", "--games", "0", "--out", str(tmp_path)])


def test_points_carry_the_paired_heuristic_baseline_and_its_version(tmp_path):
    """The heuristic played in the agent's seat on the same deals; the spec's own width beats --width."""
    report = mcts_budget.main(
        [
            "--game",
            "cubemelt",
            "--agent",
            "mcts:tree=flat,rollout=heuristic,sims=4,depth=2,width=2",
            "--games",
            "3",
            "--width",
            "5",
            "--out",
            str(tmp_path),
        ]
    )
    point = report["points"][0]
    assert point["width"] == 2  # the width the agent searched with, reported as such
    assert 0 <= point["heuristic_win_rate"] <= 1 and len(point["heuristic_version"]) == 12
    only_agent, only_heuristic = point["paired"]["won_only_agent"], point["paired"]["won_only_heuristic"]
    assert point["win_rate"] - point["heuristic_win_rate"] == pytest.approx((only_agent - only_heuristic) / 3)
    agent = mcts_budget.build_agent("mcts:width=2", "cubemelt", 3, None, 5)
    assert agent.width == 2 and mcts_budget.build_agent("mcts", "cubemelt", 3, None, 5).width == 5
