"""The headroom probe (``ice-envs probe``): deterministic, common random numbers, finds a planted gain."""

from __future__ import annotations

import json
import math

import pytest

from ice_envs.agents.search import simulator_for
from ice_envs.cli import main
from ice_envs.core.errors import OptionError
from ice_envs.evaluation.probe import (
    ProbeSettings,
    _agents,
    _clustered,
    _sample_values,
    chance_share,
    default_table,
    probe,
    sample_points,
    summarize,
    to_markdown,
)


def test_default_table_is_the_suite_heuristic_table():
    assert default_table("iceberg_rummy") == (4, {"single_hand": True})
    assert default_table("cardiceo") == (4, {})


def test_probe_is_deterministic_for_a_seed_and_the_same_with_workers():
    settings = ProbeSettings("cardiceo", 4, points=3, per_game=2, samples=3, seed=5)
    one = probe(settings)
    again = probe(settings)
    two_workers = probe(settings, workers=2)
    assert json.dumps(one, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert json.dumps(one, sort_keys=True) == json.dumps(two_workers, sort_keys=True)
    other_seed = probe(ProbeSettings("cardiceo", 4, points=3, per_game=2, samples=3, seed=6))
    assert [p["deal"] for p in other_seed["points"]] != [p["deal"] for p in one["points"]]


def test_points_hold_real_decisions_with_the_baseline_move():
    settings = ProbeSettings("iceberg_rummy", 4, {"single_hand": True}, points=3, per_game=1, samples=2).check()
    points = sample_points(settings)
    assert [p.index for p in points] == [0, 1, 2]
    assert len({p.deal for p in points}) == 3  # one point per game
    sim = simulator_for("iceberg_rummy", 4)
    for p in points:
        assert len(p.legal) >= 2 and p.played in p.legal
        assert sim.legal_actions(p.state) == p.legal
        assert sim.deciding_seat(p.state) == p.seat


def test_candidates_share_their_samples():
    """Common random numbers: the same move twice in the candidate list gets the same value on every sample."""
    settings = ProbeSettings("cardiceo", 4, points=1, samples=2).check()
    point = sample_points(settings)[0]
    sim = simulator_for("cardiceo", 4)
    agents = _agents("heuristic", "cardiceo", 4)
    for j in range(4):
        values = _sample_values(sim, point, [point.played, point.played, point.played], agents, 0, 0, j)
        assert len(set(values)) == 1


def test_finds_the_planted_headroom_of_a_random_baseline():
    """Random moves followed by heuristic play: the probe finds validated better moves (the heuristic's kind),
    and a recheck on a third set of samples confirms them."""
    settings = ProbeSettings("cardiceo", 4, baseline="random", points=6, per_game=2, samples=16, recheck=16)
    report = probe(settings)
    summary = report["summary"]["all"]
    assert summary["validated"] >= 1
    assert summary["mean_gain"] > 0
    challenged = sum(r["best"] != r["played"] for r in report["points"])
    assert math.isclose(summary["chance_validated"], challenged * chance_share(2.0))
    assert 1 <= summary["confirmed"] <= summary["validated"]
    for record in report["points"]:
        if record["validated"]:
            assert record["best"] != record["played"] and record["gain"] > 0
            assert record["z"] is None or record["z"] >= 2
            assert record["confirmed"] == (record["recheck_gain"] > 0 and (record["recheck_z"] or math.inf) >= 2)
            assert (record["recheck_gain"], record["recheck_se"]) != (record["gain"], record["gain_se"])
        else:
            assert "confirmed" not in record  # only validated points are rechecked
    text = to_markdown(report)
    assert "| confirmed |" in text and "rechecked on 16 more samples" in text
    # the recheck adds fields and nothing else: the same probe without it reports the same points
    plain = probe(ProbeSettings(**{**settings.__dict__, "recheck": 0}))
    strip = ("recheck_gain", "recheck_se", "recheck_z", "confirmed")
    assert plain["points"] == [{k: v for k, v in r.items() if k not in strip} for r in report["points"]]
    assert "confirmed" not in plain["summary"]["all"] and "| confirmed |" not in to_markdown(plain)


def test_chance_share_is_the_normal_tail():
    assert math.isclose(chance_share(2.0), 0.02275, abs_tol=1e-5)
    assert math.isclose(chance_share(0.0), 0.5)


def test_heuristic_on_cardiceo_finds_no_headroom_on_a_small_sample():
    report = probe(ProbeSettings("cardiceo", 4, points=6, per_game=2, samples=6))
    assert report["summary"]["all"]["validated"] == 0
    text = to_markdown(report)
    assert "| **all** | 6 |" in text


def test_summary_groups_by_kind_and_clusters_by_deal():
    records = [
        {"kind": "a", "deal": 1, "gain": 0.5, "validated": True, "base_value": 0.2, "best": 3, "played": 1},
        {"kind": "a", "deal": 1, "gain": 0.1, "validated": False, "base_value": 0.4, "best": 2, "played": 1},
        {"kind": "b", "deal": 2, "gain": -0.1, "validated": False, "base_value": 0.0, "best": 5, "played": 4},
        {"kind": "b", "deal": 3, "gain": 0.0, "validated": False, "base_value": 0.6, "best": 4, "played": 4},
    ]
    summary = summarize(records)
    assert math.isclose(summary["all"]["chance_validated"], 3 * chance_share(2.0))  # three points challenged
    assert math.isclose(summary["kinds"]["b"]["chance_validated"], chance_share(2.0))
    assert sorted(summary["kinds"]) == ["a", "b"]
    assert summary["kinds"]["a"]["validated"] == 1 and summary["kinds"]["a"]["validated_gains"] == [0.5]
    assert summary["kinds"]["a"]["mean_gain_se"] is None  # one deal: no clustered error
    assert summary["all"]["points"] == 4 and summary["all"]["deals"] == 3
    assert "confirmed" not in summary["all"]  # no recheck ran
    # after a recheck every row counts its confirmed points, 0 where none was validated
    rechecked = summarize([{**records[0], "confirmed": True}, *records[1:]], rechecked=True)
    assert rechecked["kinds"]["a"]["confirmed"] == 1 and rechecked["kinds"]["b"]["confirmed"] == 0
    assert rechecked["all"]["confirmed"] == 1
    mean, se = _clustered([1.0, 3.0], [7, 8])
    assert mean == 2.0 and math.isclose(se, 1.0)  # two clusters of one: the usual error of the mean
    # two points of one deal count as one cluster: the error is that of the deal's sum
    _, se_one = _clustered([1.0, 1.0, 3.0], [7, 7, 8])
    assert se_one is not None and se_one > 0


@pytest.mark.parametrize(
    "argv, words",
    [
        (["probe", "nogame"], "unknown game"),
        (["probe", "cardiceo", "--baseline", "nonsense"], "baseline"),
        (["probe", "cardiceo", "--players", "9"], "num_players"),
        (["probe", "cardiceo", "--samples", "1"], "--samples"),
        (["probe", "cardiceo", "--max-candidates", "1"], "--max-candidates"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, words, capsys, tmp_path):
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err
    assert not (tmp_path / "out").exists()


def test_settings_are_checked():
    with pytest.raises(OptionError, match="points"):
        ProbeSettings("cardiceo", 4, points=0).check()
    with pytest.raises(OptionError, match="continuation"):
        ProbeSettings("cardiceo", 4, continuation="mcts:bogus=1").check()
    with pytest.raises(OptionError, match="recheck"):
        ProbeSettings("cardiceo", 4, recheck=1).check()


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    out = tmp_path / "probe"
    argv = ["probe", "cardiceo", "--points", "2", "--samples", "2", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    report = json.loads((out / "probe.json").read_text())
    assert report["settings"]["players"] == 4 and len(report["points"]) == 2
    assert report["command"].startswith("ice-envs probe cardiceo --players 4")
    assert (out / "probe.md").read_text() in capsys.readouterr().out


def test_kinds_keep_only_those_decisions():
    settings = ProbeSettings("cardiceo", 4, points=3, per_game=2, samples=2, kinds=("keep/re-roll",)).check()
    sim = simulator_for("cardiceo", 4)
    from ice_envs.evaluation.probe import decision_kind

    points = sample_points(settings)
    assert len(points) == 3 and all(decision_kind(sim, p.state, p.legal) == "keep/re-roll" for p in points)
    with pytest.raises(OptionError, match="of kind nothing"):
        sample_points(ProbeSettings("cardiceo", 4, points=1, kinds=("nothing",)).check())
