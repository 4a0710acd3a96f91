"""The side-by-side throughput benchmark: peers, memory figures, ratios and targets."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ice_envs.benchmarks import memory, peers, throughput
from ice_envs.core import floor


def _row(game: str, api: str, rate: float, players: int = 2, peer: bool = False) -> throughput.Measurement:
    return throughput.Measurement(game, "default", players, api, rate, 1.0, 10.0, 0.1, 1, 1.0, peer=peer)


def test_ratios_and_targets_use_the_slowest_player_count():
    rows = [
        _row("floor", "env", 10_000),
        _row("floor", "raw_env", 40_000),
        _row("cubemelt", "raw_env", 33_000, players=2),
        _row("cubemelt", "raw_env", 25_000, players=5),
        _row("cubemelt", "env", 6_000, players=2),
        _row("icebergs", "raw_env", 12_000, players=4),
        _row("icebergs", "env", 4_000, players=4),
        _row("gin_rummy", "openspiel", 10_000, peer=True),
    ]
    throughput.add_ratios(rows)
    assert rows[2].ratio_to_floor == pytest.approx(33_000 / 40_000)
    assert rows[3].ratio_to_gin_rummy == pytest.approx(2.5)
    goals = {(t.game, t.target): t for t in throughput.targets(rows, ["cubemelt", "icebergs"])}
    dice = goals["cubemelt", "raw_env >= 3x gin_rummy"]
    assert (dice.worst_players, dice.met, dice.shortfall) == (5, False, pytest.approx(3 / 2.5))
    assert goals["icebergs", "raw_env >= 1x gin_rummy"].met
    assert goals["cubemelt", "env >= 0.5x floor env"].met
    assert not goals["icebergs", "env >= 0.5x floor env"].met


def test_memory_figures_of_an_aec_env_are_positive():
    build = throughput.aec_instance(floor.raw_env)
    heap = memory.python_heap_peak(build, decisions=50)
    per_instance = memory.memory_per_instance(build, count=20, decisions=50)
    assert heap > 0
    assert math.isnan(per_instance) or per_instance >= 0


def test_report_without_peers_or_memory(tmp_path):
    args = ["--games", "cubemelt", "--seconds", "0.02", "--no-peers", "--no-memory", "--out", str(tmp_path)]
    assert throughput.main(args) == 0
    data = json.loads((tmp_path / "throughput.json").read_text())
    assert {r["game"] for r in data["results"]} == {"floor", "cubemelt"}
    assert [t["target"] for t in data["targets"]] == ["env >= 0.5x floor env"]  # no gin_rummy without peers
    assert data["skipped_peers"] == []
    text = (tmp_path / "throughput.md").read_text()
    assert "| cubemelt | default | 3 | raw_env |" in text and "Machine:" in text


def test_env_vs_floor_target_is_reported_without_peers():
    rows = [_row("floor", "env", 10_000), _row("cardiceo", "env", 4_000, players=4)]
    throughput.add_ratios(rows)
    (goal,) = throughput.targets(rows, ["cardiceo"])
    assert goal.target == "env >= 0.5x floor env" and not goal.met and goal.shortfall == pytest.approx(1.25)


@pytest.mark.parametrize("label", list(peers.PETTINGZOO_PEERS))
def test_pettingzoo_peers_run_through_the_same_loop(label):
    module, why = peers.pettingzoo_peer(label)
    if module is None:
        pytest.skip(why)
    rates = throughput.measure(module.raw_env, seconds=0.05)
    assert rates["steps_per_s"] > 0 and rates["games"] >= 1


def test_openspiel_gin_rummy_builds_observation_and_mask():
    player, why = peers.openspiel_peer()
    if player is None:
        pytest.skip(why)
    state = player.new_game()
    steps = player.play(state, np.random.default_rng(0), max_decisions=30)
    assert steps == 30 and not state.is_terminal()
    rates = peers.measure_openspiel(player, seconds=0.05)
    assert rates["steps_per_s"] > 0 and rates["decisions_per_game"] > 0


def test_evaluation_scaling_reports_both_worker_counts():
    scaling = throughput.eval_scaling(games=8, game="cubemelt", players=2)
    assert scaling["games_per_s_1_worker"] > 0 and scaling["games_per_s_2_workers"] > 0
    assert scaling["scaling"] == pytest.approx(scaling["games_per_s_2_workers"] / scaling["games_per_s_1_worker"])


def test_batched_engine_rows_sit_next_to_raw_env_of_the_same_run(tmp_path):
    args = ["--games", "cubemelt", "cardiceo", "--seconds", "0.01", "--batched-only", "--out", str(tmp_path)]
    assert throughput.main(args) == 0
    data = json.loads((tmp_path / "throughput_batched.json").read_text())
    rows = data["batched"]["results"]
    assert {(r["game"], r["batch"]) for r in rows} == {
        (g, b) for g in ("cardiceo", "cubemelt") for b in throughput.BATCH_SIZES
    }
    assert {r["players"] for r in rows if r["game"] == "cubemelt"} == {2, 3, 4, 5}
    for r in rows:
        assert r["steps_per_s"] > 0 and r["raw_env_steps_per_s"] > 0 and r["steps"] >= 5
        assert r["ratio_to_raw_env"] == pytest.approx(r["steps_per_s"] / r["raw_env_steps_per_s"])
        assert 50 < r["bytes_per_game"] < 400
    assert [t["game"] for t in data["batched"]["targets"]] == ["cubemelt", "cardiceo"]
    text = (tmp_path / "throughput_batched.md").read_text()
    assert "| cardiceo | 2 | 1024 |" in text and "x raw_env" in text


def test_batched_target_uses_the_worst_player_count_at_batch_1024():
    def row(players: int, batch: int, rate: float) -> throughput.BatchedMeasurement:
        return throughput.BatchedMeasurement(
            "cardiceo", "default", players, batch, rate, 1.0, 1.0, 100.0, 10, 1.0, 20_000.0
        )

    rows = [row(2, 1024, 400_000), row(3, 1024, 150_000), row(3, 8192, 900_000), row(2, 1, 3_000)]
    (goal,) = throughput.batched_targets(rows)
    assert (goal.worst_players, goal.measured, goal.met) == (3, pytest.approx(7.5), False)
    assert "**no**" in throughput.batched_markdown(rows, [goal])


def test_paired_median_decides_the_gin_rummy_target_at_the_worst_player_count():
    rows = [
        _row("tip_of_the_diceberg", "raw_env", 20_000, players=3),
        _row("gin_rummy", "openspiel", 10_000, peer=True),
    ]
    throughput.add_ratios(rows)  # the single-shot ratio would say 2.0x
    paired = [
        throughput.PairedRatio(
            "tip_of_the_diceberg", "default", 3, 1.0, [(9_000, 10_000), (11_000, 10_000), (8_000, 10_000)]
        ),
        throughput.PairedRatio(
            "tip_of_the_diceberg", "default", 5, 1.0, [(7_000, 10_000), (9_500, 10_000), (7_600, 8_000)]
        ),
    ]
    assert paired[0].median == pytest.approx(0.9) and paired[1].median == pytest.approx(0.95)
    (goal,) = throughput.targets(rows, ["tip_of_the_diceberg"], paired)
    assert goal.target == "raw_env >= 1x gin_rummy (paired median)"
    assert (goal.worst_players, goal.measured, goal.met) == (3, pytest.approx(0.9), False)


def test_paired_rounds_alternate_which_side_goes_first_on_fresh_deals():
    calls = []

    def side(name, rate):
        def run(seed):
            calls.append((name, seed))
            return rate

        return run

    rates = throughput.alternate(side("mine", 30.0), side("peer", 20.0), rounds=4, seed=5)
    assert rates == [(30.0, 20.0)] * 4
    stride = throughput.PAIRED_SEED_STRIDE
    assert [name for name, _ in calls] == ["mine", "peer", "peer", "mine", "mine", "peer", "peer", "mine"]
    assert [seed for _, seed in calls] == [5 + (i // 2) * stride for i in range(8)]


def test_paired_rows_reach_the_report(tmp_path):
    player, why = peers.openspiel_peer()
    if player is None:
        pytest.skip(why)
    args = ["--games", "cubemelt", "--seconds", "0.04", "--no-memory", "--paired-rounds", "2", "--out", str(tmp_path)]
    assert throughput.main(args) == 0
    data = json.loads((tmp_path / "throughput.json").read_text())
    assert [(p["players"], len(p["rates"])) for p in data["paired"]] == [(n, 2) for n in (2, 3, 4, 5)]
    assert all(mine > 0 and gin > 0 for p in data["paired"] for mine, gin in p["rates"])
    (gin_goal,) = [t for t in data["targets"] if "gin_rummy" in t["target"]]
    assert gin_goal["measured"] == pytest.approx(min(p["median"] for p in data["paired"]))
    assert "alternating slices" in (tmp_path / "throughput.md").read_text()


def test_negative_paired_rounds_are_refused_before_measuring(tmp_path, monkeypatch):
    def measured(*args, **kwargs):
        raise AssertionError("measured before the bad option was refused")

    monkeypatch.setattr(throughput, "batched_rows", measured)
    monkeypatch.setattr(throughput, "run", measured)
    with pytest.raises(SystemExit) as exit_info:
        throughput.main(["--games", "cubemelt", "--batched", "--paired-rounds", "-1", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert not any(tmp_path.iterdir())


def test_the_batched_table_measures_every_engine_kind_beside_raw_env_and_the_floor(tmp_path):
    from ice_envs.benchmarks import batched

    assert batched.main(["--games", "cardiceo", "--batches", "1", "64", "--seconds", "0.05", "--slice", "0.02",
                         "--no-pgx", "--out", str(tmp_path)]) == 0  # fmt: skip
    report = json.loads((tmp_path / "batched.json").read_text())
    kinds = {(r["kind"], r["batch"]) for r in report["rows"]}
    assert kinds == {("floor", 1), ("raw_env", 1), ("compiled", 1), ("compiled", 64), ("numpy", 1), ("numpy", 64)}
    for row in report["rows"]:
        assert row["decisions"] > 0 and row["cpu_seconds"] >= 0.05 and row["per_cpu_second"] > 0
    text = (tmp_path / "batched.md").read_text()
    assert "cardiceo compiled @64" in text and "Load average before" in text
