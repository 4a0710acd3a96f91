"""``compare`` and the held-out suite on either engine, ``--engine auto`` and its fallback to the scalar path.

With splitmix chance the batched engine plays the scalar path's games result for result, so a comparison or a
suite report must not depend on the engine: each is computed for every game on ``scalar``, ``batched`` and
``auto`` and the three reports must be equal (small tables: the compiled loops are built once per process).
``auto`` plays batched only where that gives the scalar path's results and the pack's own agents sit at the
table; elsewhere it plays scalar and says why in one line on stderr. Numpy chance (the default) stays the
scalar path's, whatever the engine option.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.cli import main
from ice_envs.evaluation import suite as suites
from ice_envs.evaluation.compare import compare
from ice_envs.evaluation.suite import SUITE_SEEDS, Suite, SuiteTable, run_suite
from ice_envs.evaluation.tournament import Match, agent_entries, engine_for, evaluate, fallback_note, run_games
from tests.evaluation.test_batched_evaluation import TABLES

pytest.importorskip("openskill")
pytest.importorskip("numba")

#: ``auto`` is ``batched`` at these tables (every agent is the pack's own: ``engine_for``, tested below).
ENGINES = ("scalar", "batched")


def compare_on(game: str, engine: str) -> dict[str, Any]:
    """A small comparison of ``heuristic`` and ``greedy`` against random seats, with splitmix chance."""
    players, options, max_decisions = TABLES[game]
    return compare(
        game,
        players,
        "heuristic",
        "greedy",
        "random",
        players,
        seed=7,
        options=options,
        max_decisions=max_decisions,
        progress=False,
        engine=engine,
        chance="splitmix",
    )


@pytest.mark.parametrize("game", sorted(TABLES))
def test_compare_is_the_same_on_every_engine(game: str) -> None:
    scalar, batched = (compare_on(game, engine) for engine in ENGINES)
    assert scalar["chance"] == "splitmix" and scalar["games"] == TABLES[game][0]
    assert batched == scalar


def small_suite() -> Suite:
    """One short table per game against heuristic seats, on suite deals (seeds above ``2**63``)."""
    tables = tuple(
        SuiteTable(game, players, ("heuristic",) * (players - 1), players, options)
        for game, (players, options, _) in sorted(TABLES.items())
    )
    return Suite("small", SUITE_SEEDS.start, tables)


def without_wall_time(report: dict[str, Any]) -> dict[str, Any]:
    return {**report, "tables": [{k: v for k, v in row.items() if k != "wall_seconds"} for row in report["tables"]]}


def test_the_suite_is_the_same_on_every_engine() -> None:
    suite = small_suite()
    scalar, batched = (
        without_wall_time(run_suite(suite, "greedy", progress=False, engine=e, chance="splitmix")) for e in ENGINES
    )
    assert scalar["chance"] == "splitmix"
    assert [row["game"] for row in scalar["tables"]] == sorted(TABLES)
    assert batched == scalar


def test_search_agents_play_the_scalar_games_in_a_batched_table() -> None:
    """MCTS and flat Monte Carlo (agents of the pack, called from Python) beside in-engine seats."""
    players, options, _ = TABLES["cubemelt"]
    agents = agent_entries("mcts:sims=8,rollout=random,redeals=none,flat:rollouts=64,rollout=random,heuristic", 3)
    match = Match("cubemelt", players, options, agents, seed=3, chance="splitmix")
    assert engine_for(replace(match, engine="auto")) == ("batched", None)
    scalar = run_games(match, players, progress=False)
    assert run_games(replace(match, engine="auto"), players, progress=False) == scalar


def test_auto_plays_numpy_chance_on_the_scalar_path() -> None:
    match = Match("cardiceo", 2, {}, agent_entries("random,heuristic", 2), seed=1)
    assert engine_for(replace(match, engine="auto")) == ("scalar", None)
    assert fallback_note(replace(match, engine="auto")) is None
    assert engine_for(replace(match, engine="auto", chance="splitmix")) == ("batched", None)
    default, _ = evaluate("cardiceo", 2, "random,heuristic", 4, seed=1, progress=False)
    scalar, _ = evaluate("cardiceo", 2, "random,heuristic", 4, seed=1, progress=False, engine="scalar")
    assert default == scalar and "chance" not in default


def test_auto_falls_back_for_agents_from_outside_the_pack(capsys: pytest.CaptureFixture[str]) -> None:
    players = 2
    outside = parse_agent_spec("python:my_agents:make")
    match = Match("cardiceo", players, {}, (parse_agent_spec("random"), outside), seed=1, chance="splitmix")
    engine, why = engine_for(replace(match, engine="auto"))
    assert engine == "scalar" and "'python:my_agents:make'" in why
    assert engine_for(replace(match, engine="batched")) == ("batched", None)  # asked for: played batched
    # an Agent object: played on the scalar path, with one line on stderr naming it; the same results
    heuristic = load_agent("heuristic", "cardiceo", num_players=players)
    auto, auto_games = evaluate("cardiceo", players, ["random", heuristic], 4, 1, progress=False, chance="splitmix")
    note = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert len(note) == 1 and f"agent {heuristic.name!r}" in note[0] and "scalar engine" in note[0]
    scalar, scalar_games = evaluate(
        "cardiceo", players, ["random", heuristic], 4, 1, progress=False, engine="scalar", chance="splitmix"
    )
    assert auto_games == scalar_games
    assert not [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]


def test_score_rewards_fall_back_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    match = Match("iceberg_rummy", 2, {"reward_mode": "score"}, agent_entries("random,random", 2), 0, chance="splitmix")
    for engine in ("batched", "auto"):
        assert engine_for(replace(match, engine=engine))[0] == "scalar"
        assert "reward_mode=score" in fallback_note(replace(match, engine=engine))
    run_games(replace(match, engine="auto", max_decisions=60), 2, progress=False)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "reward_mode=score" in err[0]


def test_compare_command_line_on_the_batched_engine_reproduces(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    args = ["compare", "cubemelt", "heuristic", "greedy", "--players", "3", "--opponents", "random", "--games", "6"]
    assert main([*args, "--chance", "splitmix", "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "compare.json").read_text())
    assert report["chance"] == "splitmix"
    assert report["command"].endswith("--seed 0 --workers 1 --chance splitmix")
    scalar = tmp_path / "scalar"
    assert main([*report["command"].split()[1:], "--engine", "scalar", "--out", str(scalar), "--no-progress"]) == 0
    again = json.loads((scalar / "compare.json").read_text())
    assert again["command"] == report["command"].replace("--chance", "--engine scalar --chance")
    assert {k: v for k, v in again.items() if k not in ("machine", "command")} == {
        k: v for k, v in report.items() if k not in ("machine", "command")
    }


def test_suite_command_line_takes_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tiny = Suite("v1", SUITE_SEEDS.start, (SuiteTable("cubemelt", 3, ("heuristic", "heuristic"), 3),))
    monkeypatch.setitem(suites.SUITES, "v1", tiny)
    reports = []
    for engine in ("batched", "scalar"):
        out = tmp_path / engine
        argv = ["evaluate", "--suite", "v1", "greedy", "--engine", engine, "--chance", "splitmix", "--out", str(out)]
        assert main([*argv, "--no-progress"]) == 0
        data = json.loads((out / "suite.json").read_text())
        assert data["command"] == f"ice-envs evaluate --suite v1 greedy --workers 1 --engine {engine} --chance splitmix"
        assert "splitmix chance: other deals" in (out / "suite.md").read_text()
        reports.append(without_wall_time({k: v for k, v in data.items() if k not in ("machine", "command")}))
    assert reports[0] == reports[1] and reports[0]["chance"] == "splitmix"


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "cubemelt", "random", "greedy", "--players", "3", "--opponents", "random"],
        ["evaluate", "--suite", "v1", "cubemelt", "random"],
        ["evaluate", "cubemelt", "--players", "3", "--agents", "random,random,random"],
    ],
)
def test_batched_engine_with_numpy_chance_is_refused_in_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main([*argv, "--engine", "batched", "--chance", "numpy", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--engine batched plays the compiled engine's chance" in err[0]
    assert not out.exists()
    assert main([*argv, "--engine", "gpu", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--engine" in err[0]
    assert not out.exists()
