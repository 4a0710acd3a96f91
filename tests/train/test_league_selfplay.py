"""League self-play with PFSP: weights, draws, estimates, snapshots, TensorBoard, resume, configs, workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ice_envs.train.config import ConfigError, LeagueConfig, config_from_dict
from ice_envs.train.league import QUANTUM, League, pfsp_weights
from ice_envs.train.run import torch_cpu_kernels
from ice_envs.wrappers.opponents import LeagueOpponents
from tests.train.conftest import tiny_config_dict


def league_config(**changes: Any) -> dict[str, Any]:
    """The tiny config with a league of random and greedy opponents."""
    league = {"fixed": ["random", "greedy"], "snapshot_every": 128, "max_snapshots": 3, **changes}
    data = tiny_config_dict()
    data["opponents"] = {"league": league}
    return data


# ---------------------------------------------------------------------------- PFSP weights


def test_hard_weights_favour_the_members_the_learner_beats_least() -> None:
    w = pfsp_weights([0.9, 0.5, 0.1], "hard", power=2.0, floor=0.0)
    assert w[0] < w[1] < w[2]
    f = [(1 - p) ** 2 for p in (0.9, 0.5, 0.1)]
    assert w == [round(x / sum(f) * QUANTUM) for x in f]


def test_variance_weights_peak_at_even_odds() -> None:
    w = pfsp_weights([0.0, 0.5, 1.0, 0.25], "variance", floor=0.0)
    assert w[0] == 0 and w[2] == 0 and w[1] == max(w) and 0 < w[3] < w[1]


def test_the_floor_keeps_every_member_drawn() -> None:
    w = pfsp_weights([1.0, 0.0], "hard", floor=0.1)
    assert w == [round(0.1 * QUANTUM), round(0.9 * QUANTUM)]
    assert min(pfsp_weights([1.0, 1.0, 0.0], "hard", floor=0.01)) >= 1
    # a floor above 1/M is capped there: every member equally likely
    assert pfsp_weights([1.0, 0.0], "hard", floor=0.9) == [QUANTUM // 2, QUANTUM // 2]


def test_weights_are_integers_out_of_the_quantum() -> None:
    w = pfsp_weights([0.3, 0.31, 0.7], "hard", floor=0.05)
    assert all(type(x) is int for x in w) and abs(sum(w) - QUANTUM) <= len(w)
    assert pfsp_weights([1.0, 1.0], "hard", floor=0.0) == [QUANTUM // 2] * 2  # all f = 0: uniform, not all 0
    assert pfsp_weights([0.2, 0.8], "uniform") == [QUANTUM // 2, QUANTUM // 2]


# ---------------------------------------------------------------------------- draws


def _sampler(weights: list[int], per_seat: bool = False) -> LeagueOpponents:
    members = [("random", "agent", "random"), ("greedy", "agent", "greedy"), ("heuristic", "agent", "heuristic")]
    return LeagueOpponents("cardiceo", 3, members, weights, per_seat=per_seat)


def test_draws_are_the_same_for_the_same_seed_and_follow_the_weights() -> None:
    def labels(seed: int, weights: list[int]) -> list[str]:
        rng = np.random.default_rng(seed)
        sampler = _sampler(weights)
        return [sampler.draw(rng, [1, 2])[0] for _ in range(300)]

    assert labels(5, [1, 2, 3]) == labels(5, [1, 2, 3])
    assert labels(5, [1, 2, 3]) != labels(6, [1, 2, 3])
    assert set(labels(5, [0, 1, 0])) == {"greedy"}
    counts = {k: labels(7, [1, 1, 6]).count(k) for k in ("random", "greedy", "heuristic")}
    assert counts["heuristic"] > counts["random"] + counts["greedy"]


def test_per_seat_draws_name_each_seat_from_the_learners_left() -> None:
    sampler = _sampler([1, 1, 1], per_seat=True)
    rng = np.random.default_rng(0)
    for _ in range(20):
        label, table = sampler.draw(rng, [0, 2])  # learner at seat 1: seat 2 is on its left
        names = label.split("|")
        assert set(table) == {0, 2}
        assert len(names) in (1, 2)
        if len(names) == 2:
            assert [table[2].name, table[0].name] != [None, None]


def test_bad_league_tables_raise() -> None:
    from ice_envs.core.errors import OptionError

    with pytest.raises(OptionError, match="not all 0"):
        _sampler([0, 0, 0])
    with pytest.raises(OptionError, match="3 members"):
        _sampler([1, 1])


# ---------------------------------------------------------------------------- estimates and snapshots


class FakeNet:
    """Stands in for a PolicyNet: writes a file so that the snapshot exists."""

    def save_npz(self, path: Path) -> None:
        Path(path).write_bytes(b"fake")


def _league(tmp_path: Path, **changes: Any) -> League:
    cfg = LeagueConfig(**{"fixed": ["random", "greedy"], "prior_games": 10.0, "window": 100.0, **changes})
    return League(tmp_path / "pool", list(cfg.fixed), 2, cfg)


def test_win_rates_from_episode_infos(tmp_path: Path) -> None:
    league = _league(tmp_path, window=1e9)
    assert league.win_rate("random") == pytest.approx(0.5)  # the prior, 1/N
    for won in [True] * 30:
        league.record("random", won)
    for won in [False] * 30:
        league.record("greedy", won)
    league.record("random|greedy", True)  # a mixed table credits both
    league.record("snap_000000000099", True)  # not a member: ignored
    assert league.win_rate("random") == pytest.approx((31 + 5) / (31 + 10), rel=1e-6)
    assert league.win_rate("greedy") == pytest.approx((1 + 5) / (31 + 10), rel=1e-6)
    league.weights = league.compute_weights()
    assert league.weights[1] > league.weights[0]  # hard PFSP: greedy, beaten less, drawn more


def test_the_window_forgets_old_games(tmp_path: Path) -> None:
    league = _league(tmp_path, window=10.0, prior_games=1.0)
    for _ in range(200):
        league.record("random", False)
    for _ in range(30):
        league.record("random", True)
    assert league.win_rate("random") > 0.8


def test_snapshots_join_on_the_schedule(tmp_path: Path) -> None:
    league = _league(tmp_path, snapshot_every=100, max_snapshots=2)
    reasons = [league.update(step, step - 50, FakeNet) for step in range(50, 401, 50)]
    assert reasons == [None, "schedule", None, "schedule", None, "schedule", None, "schedule"]
    snaps = [m.name for m in league.members if m.kind == "snapshot"]
    assert snaps == ["snap_000000000300", "snap_000000000400"]  # the oldest left the league
    assert (tmp_path / "pool" / "snap_000000000100.npz").exists()  # its file stays
    assert league.scheduled == 4 and len(league.weights) == 4


@pytest.mark.parametrize("against", ["latest", "mix"])
def test_snapshots_join_on_the_gate(tmp_path: Path, against: str) -> None:
    league = _league(tmp_path, gate_win_rate=0.6, gate_min_games=20, gate_against=against)
    league.add_snapshot(FakeNet(), 0, "initial")
    assert league.update(10, 0, FakeNet) is None
    label = "snap_000000000000" if against == "latest" else "random"
    for _ in range(19):
        league.record(label, True)
    if against == "mix":
        for _ in range(19):
            league.record("snap_000000000000", True)
            league.record("greedy", True)
    assert (league.update(20, 10, FakeNet) is None) == (against == "latest")  # latest: 19 < 20 games
    if against == "latest":
        league.record(label, True)
        assert league.update(30, 20, FakeNet) == "gate"
    assert league.gate_promotions == 1 and league.latest is not None and league.latest.step in (20, 30)
    assert league.update(40, 30, FakeNet) is None  # the new snapshot starts from the prior


def test_state_dict_round_trips_through_json(tmp_path: Path) -> None:
    league = _league(tmp_path, snapshot_every=10)
    league.update(10, 0, FakeNet)
    for k in range(15):
        league.record("random" if k % 2 else "snap_000000000010", k % 3 == 0)
    league.update(15, 10, FakeNet)
    data = json.loads(json.dumps(league.state_dict()))
    other = _league(tmp_path, snapshot_every=10)
    other.load_state_dict(data)
    assert other.state_dict() == league.state_dict()
    assert other.table() == league.table() and other.scalars() == league.scalars()


# ---------------------------------------------------------------------------- configs


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("fixed", ["nope"], "opponents.league.fixed[0]"),
        ("fixed", ["random", "random"], "opponents.league.fixed[1]"),
        ("pfsp", "soft", "opponents.league.pfsp"),
        ("pfsp_power", 0, "opponents.league.pfsp_power"),
        ("floor", 1.0, "opponents.league.floor"),
        ("window", 0.5, "opponents.league.window"),
        ("snapshot_every", -1, "opponents.league.snapshot_every"),
        ("gate_win_rate", 1.5, "opponents.league.gate_win_rate"),
        ("gate_against", "best", "opponents.league.gate_against"),
        ("max_snapshots", 0, "opponents.league.max_snapshots"),
        ("fixd", [], "opponents.league.fixd"),
    ],
)
def test_config_errors_name_the_key(key: str, value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("[", r"\[").replace("]", r"\]")):
        config_from_dict(league_config(**{key: value}))


def test_device_key() -> None:
    from ice_envs.train.run import resolve_device

    assert config_from_dict(tiny_config_dict(device="auto")).device == "auto"
    with pytest.raises(ConfigError, match="device"):
        config_from_dict(tiny_config_dict(device="tpu"))
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") in ("cpu", "cuda")
    assert resolve_device("auto", imitation=True) == "cpu"  # the warm start trains on the CPU
    with pytest.raises(ConfigError, match="imitation"):
        resolve_device("cuda", imitation=True)


# ---------------------------------------------------------------------------- training runs


@pytest.fixture(scope="module")
def league_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny league run: schedule every 128 steps, checkpoints every 128, 384 steps."""
    from ice_envs.train.run import train

    run_dir = tmp_path_factory.mktemp("league") / "run"
    cfg = config_from_dict({**league_config(), "total_timesteps": 384})
    cfg.eval.background = True  # evaluations in a worker process (see callbacks)
    train(cfg, run_dir, command="pytest league", echo=False)
    return run_dir


def _scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out: dict[str, list[tuple[int, float]]] = {}
    for events in sorted((run_dir / "tb").rglob("events.out.tfevents.*")):
        acc = EventAccumulator(str(events), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            out.setdefault(tag, []).extend((e.step, e.value) for e in acc.Scalars(tag))
    return out


def test_a_league_run_promotes_on_the_schedule_and_logs_the_league(league_run: Path) -> None:
    report = json.loads((league_run / "evaluation.json").read_text())
    history = report["league"]["history"]
    assert [(h["step"], h["reason"]) for h in history] == [(0, "initial"), (128, "schedule"), (256, "schedule")]
    scalars = _scalars(league_run)
    for tag in ("league/size", "league/snapshots", "league/random/win_rate", "league/greedy/prob"):
        assert tag in scalars, tag
    assert "league/snap_000000000128/prob" in scalars
    assert max(v for _, v in scalars["league/size"]) == 5  # random, greedy and three snapshots
    meta = json.loads((league_run / "meta.json").read_text())
    assert meta["sessions"][0]["device"] == "cpu"
    assert meta["sessions"][0]["torch_cpu_kernels"] == torch_cpu_kernels()  # what the trained weights depend on


def test_a_gate_run_promotes(tmp_path: Path) -> None:
    from ice_envs.train.run import train

    # a low bar, so that a 512-step run (which learns next to nothing) passes it
    data = league_config(snapshot_every=0, gate_win_rate=0.3, gate_against="latest", gate_min_games=8)
    data.update(total_timesteps=512, checkpoint_every=0)
    data["eval"] = {"every": 0, "games": 4, "against": ["random"], "final_games": 0}
    result = train(config_from_dict(data), tmp_path / "gate", command="pytest gate", echo=False)
    reasons = [h["reason"] for h in result.report["league"]["history"]]
    assert reasons[0] == "initial" and "gate" in reasons[1:]


def test_resume_keeps_the_league_state_exactly(league_run: Path, tmp_path: Path) -> None:
    import shutil

    from ice_envs.train.checkpoints import read_state
    from ice_envs.train.run import resume

    copy = tmp_path / "copy"
    shutil.copytree(league_run, copy)
    for path in (copy / "checkpoints").glob("step_000000000384*"):
        path.unlink()
    (copy / "final.zip").unlink()
    log = copy / "evaluations.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["step"] for r in rows] == [0, 128, 256]  # the final step has the final evaluation only
    # the checkpoint at 256 records the rows logged by then and the background evaluations still out
    # (how many came back first depends on the machine's load); stop the run as if none came back after it
    state = read_state(copy / "checkpoints" / "step_000000000256.zip")
    logged, pending = state["evaluations"], state["pending_evals"]
    assert [r["step"] for r in rows[:logged]] + [e["step"] for e in pending] == [0, 128, 256]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows[:logged]))
    resume(copy / "checkpoints" / "step_000000000256.zip", command="pytest resume", echo=False)
    again = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["step"] for r in again] == [0, 128, 256]

    def numbers(row: dict[str, Any]) -> dict[str, Any]:  # the results, without the command naming the directory
        return {k: {f: v for f, v in r.items() if f != "command"} for k, r in row["results"].items()}

    assert [numbers(r) for r in again] == [numbers(r) for r in rows]
    original = read_state(league_run / "checkpoints" / "step_000000000384.zip")
    resumed = read_state(copy / "checkpoints" / "step_000000000384.zip")

    def local(state: dict[str, Any]) -> dict[str, Any]:
        return state["league"]

    assert local(resumed) == local(original)
    assert json.loads((copy / "evaluation.json").read_text())["league"] == local(original)


def test_subproc_workers_draw_the_same_opponents_as_dummy(tmp_path: Path) -> None:
    from ice_envs.train.callbacks import push_league
    from ice_envs.train.run import make_vec_env

    cfg_d = config_from_dict(league_config())
    cfg_s = config_from_dict({**league_config(), "vec_env": "subproc"})
    league = League(tmp_path / "pool", ["random", "greedy"], 2, cfg_d.opponents.league)
    league.record("greedy", False)
    league.weights = [3, 1]
    labels = {}
    for name, cfg in (("dummy", cfg_d), ("subproc", cfg_s)):
        venv = make_vec_env(cfg, [])
        try:
            push_league(venv, league)
            venv.seed(11)
            venv.reset()
            seen = []
            for _ in range(60):
                masks = np.stack(venv.env_method("action_masks"))
                actions = [int(np.flatnonzero(m)[0]) for m in masks]
                _, _, dones, infos = venv.step(np.array(actions))
                seen += [(i, info["opponents"]) for i, (d, info) in enumerate(zip(dones, infos)) if d]
            labels[name] = seen
        finally:
            venv.close()
    assert labels["dummy"] and labels["dummy"] == labels["subproc"]
    assert {lab for _, lab in labels["dummy"]} <= {"random", "greedy"}


def test_background_evaluations_give_the_foreground_results(league_run: Path, tmp_path: Path) -> None:
    from ice_envs.train.run import train

    cfg = config_from_dict({**league_config(), "total_timesteps": 384})  # no eval.background: in the foreground
    train(cfg, tmp_path / "fg", command="pytest foreground", echo=False)

    def rows(run_dir: Path) -> list[tuple[int, dict[str, Any]]]:
        out = []
        for line in (run_dir / "evaluations.jsonl").read_text().splitlines():
            row = json.loads(line)
            out.append((row["step"], {k: r["win_rate"] for k, r in row["results"].items()}))
        return out

    assert rows(tmp_path / "fg") == rows(league_run)
    assert (
        json.loads((tmp_path / "fg" / "evaluation.json").read_text())["league"]
        == json.loads((league_run / "evaluation.json").read_text())["league"]
    )
