"""Evaluation: seat rotation, determinism across worker counts, interval maths, spec parsing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ice_envs.agents import AgentSpecError, load_agent, parse_agent_list, parse_agent_spec
from ice_envs.core.errors import OptionError
from ice_envs.evaluation import tournament as ev
from ice_envs.evaluation.stats import bootstrap_interval, wilson_interval


def test_spec_parser():
    assert parse_agent_spec("random").kind == "random"
    assert parse_agent_spec(" Heuristic ").kind == "heuristic"
    spec = parse_agent_spec("ppo:runs/x/final.zip")
    assert spec.kind == "ppo" and spec.path == "runs/x/final.zip" and spec.label == "ppo:final.zip"
    assert [s.kind for s in parse_agent_list("heuristic,random,random", 3)] == ["heuristic", "random", "random"]
    with pytest.raises(AgentSpecError, match="unknown agent 'alphazero'"):
        parse_agent_spec("alphazero")
    with pytest.raises(AgentSpecError, match="checkpoint path"):
        parse_agent_spec("ppo:")
    with pytest.raises(AgentSpecError, match="takes no argument"):
        parse_agent_spec("random:3")
    with pytest.raises(AgentSpecError, match="2 agents given .* for 3 players"):
        parse_agent_list("random,random", 3)


def test_wilson_interval_matches_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bootstrap_interval_covers_the_mean_and_shrinks_with_n():
    rng = np.random.default_rng(0)
    small = rng.normal(5, 1, 50)
    large = rng.normal(5, 1, 5000)
    lo_s, hi_s = bootstrap_interval(small, np.random.default_rng(1))
    lo_l, hi_l = bootstrap_interval(large, np.random.default_rng(1))
    assert lo_s < small.mean() < hi_s and lo_l < large.mean() < hi_l
    assert (hi_l - lo_l) < (hi_s - lo_s) / 5
    assert all(math.isnan(x) for x in bootstrap_interval(np.array([]), rng))


def test_seat_rotation_gives_every_agent_every_seat_equally():
    summary, results = ev.evaluate("cardiceo", 3, "heuristic,random,random", games=12, progress=False)
    for k in range(3):
        seats = [r["seat"][k] for r in results]
        assert sorted(seats) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    # every rotation of a deal is played: games 0..2 share a deal seed
    assert {r["deal_seed"] for r in results[:3]} == {0} and results[3]["deal_seed"] == 1
    assert summary["games"] == 12 and len(summary["per_agent"]) == 3


def test_same_numbers_whatever_the_number_of_workers():
    one, res1 = ev.evaluate("cardiceo", 2, "heuristic,random", games=16, seed=3, workers=1, progress=False)
    two, res2 = ev.evaluate("cardiceo", 2, "heuristic,random", games=16, seed=3, workers=2, progress=False)
    assert res1 == res2
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_same_deals_for_two_agent_lists():
    _, a = ev.evaluate("cardiceo", 2, "random,random", games=4, seed=9, progress=False)
    _, b = ev.evaluate("cardiceo", 2, "heuristic,random", games=4, seed=9, progress=False)
    assert [r["deal_seed"] for r in a] == [r["deal_seed"] for r in b]


def test_ranks_wins_and_shares_are_consistent():
    summary, results = ev.evaluate("cardiceo", 4, "random,random,random,random", games=8, progress=False)
    by_seat = summary["win_rate_by_seat"]
    assert [s["seat"] for s in by_seat] == [0, 1, 2, 3]
    assert sum(s["win_rate"] for s in by_seat) == pytest.approx(1.0)  # one winner per game
    for s in by_seat:
        wins = sum(r["win"][r["seat"].index(s["seat"])] for r in results)
        assert s["win_rate"] == pytest.approx(wins / 8)
    for r in results:
        assert sum(r["win"]) == 1 and sum(r["win_share"]) == pytest.approx(1.0)
        winner = r["win"].index(True)
        assert r["rank"][winner] == 1 and r["reward"][winner] == 1.0


def test_bad_inputs_get_clear_errors():
    with pytest.raises(OptionError, match="num_players=9"):
        ev.evaluate("cardiceo", 9, "random," * 8 + "random", games=1, progress=False)
    with pytest.raises(AgentSpecError, match="for 3 players"):
        ev.evaluate("cardiceo", 3, "random,random", games=1, progress=False)
    with pytest.raises(OptionError, match="unknown game"):
        ev.evaluate("nope", 2, "random,random", games=1, progress=False)
    with pytest.raises(AgentSpecError):
        load_agent("ppo:/no/such/file.zip", "cardiceo", num_players=2)


def test_cli_writes_json_markdown_and_png(tmp_path, capsys):
    from ice_envs.cli import main

    out = tmp_path / "rep"
    argv = ["evaluate", "cardiceo", "--players", "2", "--agents", "heuristic,random", "--games", "6"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    data = json.loads((out / "evaluation.json").read_text())
    assert data["games"] == 6 and data["command"].startswith("ice-envs evaluate cardiceo --players 2")
    assert (out / "evaluation.md").read_text().count("| heuristic |") == 1
    assert (out / "evaluation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["evaluate", "cardiceo", "--players", "2", "--agents", "alphazero,random", "--games", "1"]) == 2
    assert "unknown agent 'alphazero'" in capsys.readouterr().err
