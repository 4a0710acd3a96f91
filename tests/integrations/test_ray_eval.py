"""Tournaments and leagues on Ray tasks give exactly the local results (one local Ray, 2 CPUs, per module)."""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from ice_envs.cli import main as cli_main  # noqa: E402
from ice_envs.core.errors import OptionError  # noqa: E402
from ice_envs.evaluation import league  # noqa: E402
from ice_envs.evaluation.tournament import evaluate  # noqa: E402

#: The fields of evaluation.json that describe the run, not its games.
RUN_FIELDS = ("wall_seconds", "workers", "command")


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        from ice_envs.evaluation.ray_backend import init_ray

        init_ray(None, 2)
    yield
    if started:
        ray.shutdown()


class FirstLegalAgent:
    """A minimal user agent: the lowest legal action id, or a random legal one with probability 1/4."""

    name = "first_legal"
    needs_view = False
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, view=None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(self.rng.choice(legal)) if self.rng.random() < 0.25 else int(legal[0])


def make_agent(game: str, num_players: int | None, seed: int | None) -> FirstLegalAgent:
    """The ``python:tests.integrations.test_ray_eval:make_agent`` factory."""
    return FirstLegalAgent(seed)


def read_report(path) -> tuple[dict, str]:
    data = json.loads(path.read_text())
    run = {k: data.pop(k) for k in RUN_FIELDS}
    return run, json.dumps(data, indent=2)


def test_ray_evaluation_json_is_byte_identical_to_one_worker(local_ray, tmp_path):
    args = ["evaluate", "cubemelt", "--players", "3", "--agents", "heuristic,greedy,random", "--games", "60"]
    args += ["--seed", "7", "--no-progress"]
    assert cli_main([*args, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert cli_main([*args, "--workers", "2", "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    run_local, local = read_report(tmp_path / "local" / "evaluation.json")
    run_ray, remote = read_report(tmp_path / "ray" / "evaluation.json")
    assert remote == local  # every byte but the run's own fields
    assert "--backend ray" in run_ray["command"] and "--backend" not in run_local["command"]


def test_python_api_takes_agent_objects_on_ray(local_ray):
    agents = [FirstLegalAgent(), "random"]
    local, _ = evaluate("cardiceo", 2, agents, 24, seed=3, progress=False)
    remote, _ = evaluate("cardiceo", 2, [FirstLegalAgent(), "random"], 24, seed=3, progress=False, backend="ray")
    assert remote == local and local["per_agent"][0]["agent"] == "first_legal"


def test_user_agent_plays_the_league_through_ray(local_ray, tmp_path):
    cfg = league.config_from_dict(
        {
            "game": "cardiceo",
            "players": 2,
            "agents": {
                "mine": "python:tests.integrations.test_ray_eval:make_agent",
                "random": "random",
                "greedy": "greedy",
            },
            "games_per_table": 8,
            "seed": 11,
        }
    )
    quiet = lambda *a, **k: None  # noqa: E731
    remote = league.play_league(cfg, tmp_path / "ray", progress=False, echo=quiet, backend="ray")
    local = league.play_league(cfg, tmp_path / "local", progress=False, echo=quiet)
    assert len(remote["tables_played"]) == 3
    for summary in (remote, local):
        for table in summary["tables"]:
            table.pop("wall_seconds")  # the only field that describes the run
    assert remote == local
    assert "mine" in [row["agent"] for row in remote["ratings"]]
    tables = sorted(p.name for p in (tmp_path / "ray" / "tables").iterdir())
    assert len(tables) == 3
    for name in tables:
        a = json.loads((tmp_path / "ray" / "tables" / name).read_text())
        b = json.loads((tmp_path / "local" / "tables" / name).read_text())
        assert a["results"] == b["results"] and a["key"] == b["key"]


def test_address_needs_the_ray_backend():
    with pytest.raises(OptionError, match="--address needs --backend ray"):
        evaluate("cardiceo", 2, "random,random", 2, progress=False, address="auto")
    with pytest.raises(OptionError, match="--backend must be"):
        evaluate("cardiceo", 2, "random,random", 2, progress=False, backend="dask")
