"""``ice-envs compare``: two agents on identical deals, paired statistics, the command line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ice_envs.cli import main
from ice_envs.core.errors import OptionError
from ice_envs.evaluation import tournament
from ice_envs.evaluation.compare import compare, paired_bootstrap, sign_test_p
from ice_envs.evaluation.tournament import evaluate

pytest.importorskip("openskill")


def _binomial_two_sided(k: int, n: int) -> float:
    """The sign test by its definition: twice the smaller tail of Binomial(n, 1/2), at most 1."""
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1)) / 2**n
    return min(1.0, 2 * tail)


@pytest.mark.parametrize("only_a,only_b", [(0, 0), (1, 0), (0, 10), (5, 5), (3, 9), (145, 156), (40, 12)])
def test_sign_test_is_the_exact_binomial_test(only_a: int, only_b: int) -> None:
    expected = 1.0 if only_a + only_b == 0 else _binomial_two_sided(only_a, only_a + only_b)
    assert sign_test_p(only_a, only_b) == pytest.approx(expected, rel=1e-12)
    assert sign_test_p(only_a, only_b) == sign_test_p(only_b, only_a)
    assert sign_test_p(0, 10) == 2 / 1024


def test_sign_test_agrees_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for only_a, only_b in [(7, 19), (169, 158), (0, 6), (30, 30)]:
        assert sign_test_p(only_a, only_b) == pytest.approx(stats.binomtest(only_a, only_a + only_b).pvalue, rel=1e-9)


def test_paired_bootstrap_resamples_whole_deals() -> None:
    # two deals: all of the difference is in deal 0, so every resample's mean is one of three values
    diff = np.array([1.0, 1.0, 0.0, 0.0])
    groups = np.array([0, 0, 1, 1])
    lo, hi = paired_bootstrap(diff, groups, seed=3)
    assert (lo, hi) == (0.0, 1.0)
    assert paired_bootstrap(diff, groups, seed=3) == (lo, hi)  # seeded: the same interval every time
    assert paired_bootstrap(np.zeros(6), np.arange(6) // 3, seed=0) == (0.0, 0.0)


def test_an_agent_against_itself_is_level_game_for_game() -> None:
    report = compare("cubemelt", 3, "greedy", "greedy", "random", games=12, seed=7, progress=False)
    paired = report["paired"]
    assert paired["only_a"] == paired["only_b"] == 0
    assert paired["sign_test_p"] == 1.0
    assert paired["win_rate_difference"] == 0.0
    assert paired["win_rate_difference_ci95"] == [0.0, 0.0]
    assert report["a"]["wins"] == report["b"]["wins"]
    assert report["deals"] == 4  # 12 games of 3 seats: each deal played from every seat


def test_each_row_is_the_evaluate_tournament_of_that_agent() -> None:
    report = compare("cubemelt", 3, "heuristic", "random", "greedy", games=15, seed=11, progress=False)
    for key, spec in (("a", "heuristic"), ("b", "random")):
        summary, _ = evaluate("cubemelt", 3, f"{spec},greedy,greedy", 15, 11, progress=False)
        assert report[key]["wins"] == summary["per_agent"][0]["wins"]
        assert report[key]["mean_score"] == pytest.approx(summary["per_agent"][0]["mean_score"])
    paired = report["paired"]
    assert paired["both_won"] + paired["only_a"] + paired["only_b"] + paired["neither"] == 15
    assert report["a"]["wins"] - report["b"]["wins"] == paired["only_a"] - paired["only_b"]
    assert paired["win_rate_difference"] == pytest.approx((report["a"]["wins"] - report["b"]["wins"]) / 15)
    lo, hi = paired["win_rate_difference_ci95"]
    assert lo <= paired["win_rate_difference"] <= hi


def test_workers_do_not_change_the_report() -> None:
    one = compare("cardiceo", 4, "heuristic", "greedy", "random", games=8, seed=2, workers=1, progress=False)
    two = compare("cardiceo", 4, "heuristic", "greedy", "random", games=8, seed=2, workers=2, progress=False)
    assert one == two


def test_opponents_must_fill_the_other_seats() -> None:
    with pytest.raises(OptionError, match="one agent for every other seat or 2"):
        compare("cubemelt", 3, "random", "greedy", "random,random,random", games=3, progress=False)
    compare("cubemelt", 3, "random", "greedy", "random,greedy", games=3, progress=False)


def test_command_line_writes_a_report_that_reproduces(tmp_path, capsys) -> None:
    out = tmp_path / "cmp"
    args = ["compare", "cubemelt", "heuristic", "greedy", "--players", "3", "--opponents", "random", "--games", "9"]
    assert main([*args, "--seed", "4", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "exact sign test" in text
    report = json.loads((out / "compare.json").read_text())
    assert report["command"] == (
        "ice-envs compare cubemelt heuristic greedy --players 3 --opponents random,random --games 9 --seed 4 --workers 1"
    )
    assert (out / "compare.md").read_text().startswith("# cubemelt, 3 players")
    again = tmp_path / "again"
    assert main([*report["command"].split()[1:], "--out", str(again), "--no-progress"]) == 0
    repeated = json.loads((again / "compare.json").read_text())
    assert {k: v for k, v in repeated.items() if k != "machine"} == {k: v for k, v in report.items() if k != "machine"}


def test_suite_takes_the_tables_deals_players_and_options(tmp_path) -> None:
    from ice_envs.evaluation.suite import SUITE_V1

    out = tmp_path / "suite"
    argv = ["compare", "iceberg_rummy", "random", "greedy", "--suite", "v1", "--opponents", "heuristic"]
    assert main([*argv, "--games", "4", "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "compare.json").read_text())
    table = next(t for t in SUITE_V1.tables_of("iceberg_rummy") if t.opponents[0] == "heuristic")
    assert report["seed"] == SUITE_V1.seed_of(table)
    assert report["num_players"] == table.players
    assert report["options"] == {"single_hand": True}
    assert report["games"] == 4
    # opponents the suite has no table against meet the same deals, with the game's table size
    greedy = tmp_path / "greedy"
    argv = ["compare", "cubemelt", "random", "heuristic", "--suite", "v1", "--opponents", "greedy", "--no-progress"]
    assert main([*argv, "--games", "3", "--out", str(greedy)]) == 0
    report = json.loads((greedy / "compare.json").read_text())
    table = SUITE_V1.tables_of("cubemelt")[0]
    assert (report["seed"], report["num_players"], report["opponents"]) == (SUITE_V1.seed_of(table), 3, ["greedy"] * 2)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["cubemelt", "random", "greedy", "--opponents", "random"], "--players is required"),
        (["cubemelt", "random", "nope", "--players", "3", "--opponents", "random"], "unknown agent 'nope'"),
        (
            ["cubemelt", "random", "greedy", "--suite", "v1", "--players", "3", "--opponents", "heuristic"],
            "--suite fixes",
        ),
        (["cubemelt", "random", "greedy", "--suite", "v9", "--opponents", "heuristic"], "unknown suite"),
        (["nogame", "random", "greedy", "--players", "3", "--opponents", "random"], "unknown game"),
        (
            ["cubemelt", "random", "greedy", "--players", "3", "--opponents", "random", "--games", "0"],
            "must be at least 1",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, message, tmp_path, capsys, monkeypatch) -> None:
    """Found before any game, the second agent's mistakes included (not after the first agent's games)."""

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before the mistake was found")

    monkeypatch.setattr(tournament, "run_games", no_games)
    status = main(["compare", *argv, "--out", str(tmp_path / "x"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
