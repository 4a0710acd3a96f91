"""A Ray task that still fails after Ray's retries: one error line naming its games; the finished games kept."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from ice_envs.cli import main  # noqa: E402
from ice_envs.evaluation import league  # noqa: E402
from ice_envs.evaluation.tournament import GamesFailedError, evaluate  # noqa: E402

#: The game whose worker dies, every time it is tried.
DOOMED_GAME = 5


class DiesInOneGame:
    """Plays the lowest legal action; the worker process running game ``DOOMED_GAME`` dies (no exception)."""

    name = "dies_in_one_game"
    needs_view = False
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def reset(self, seed: int | None = None) -> None:
        # the agent seed of game DOOMED_GAME (seed 0, agent 0), as tournament._agent_seed derives it
        doomed = int(np.random.SeedSequence([0, DOOMED_GAME, 0]).generate_state(1)[0])
        if seed == doomed:
            os._exit(1)

    def act(self, observation: dict, view=None) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def make_agent(game: str, num_players: int | None, seed: int | None) -> DiesInOneGame:
    """``python:tests.evaluation.test_ray_failures:make_agent``."""
    return DiesInOneGame(seed)


@pytest.fixture(scope="module")
def local_ray():
    if ray.is_initialized():
        pytest.skip("needs a Ray of its own (one started by this module)")
    from ice_envs.evaluation import ray_backend

    ray_backend.init_ray(None, 2)
    # one retry, not Ray's three: each retry starts a worker process afresh, and one shows the failure is final
    retries, ray_backend.TASK_RETRIES = ray_backend.TASK_RETRIES, 1
    yield
    ray_backend.TASK_RETRIES = retries
    ray.shutdown()


def test_a_game_that_kills_its_worker_is_named_and_the_rest_are_kept(local_ray, tmp_path, capsys) -> None:
    out = tmp_path / "eval"
    agents = "python:tests.evaluation.test_ray_failures:make_agent,random"
    argv = ["evaluate", "cardiceo", "--players", "2", "--agents", agents, "--games", "8", "--seed", "0"]
    assert main([*argv, "--backend", "ray", "--workers", "2", "--no-progress", "--out", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ice-envs: error: games {DOOMED_GAME} of cardiceo failed after")
    assert lines[0].endswith(f"7 game(s) finished; they are kept in {out / 'finished_games.json'}")
    kept = json.loads((out / "finished_games.json").read_text())
    assert kept["failed_games"] == [DOOMED_GAME]
    assert [r["game_index"] for r in kept["results"]] == [i for i in range(8) if i != DOOMED_GAME]
    _, results = evaluate("cardiceo", 2, [DiesInOneGame(), "random"], 5, seed=0, progress=False)
    assert kept["results"][:5] == json.loads(json.dumps(results))  # the kept games are the games


def test_the_league_keeps_the_finished_games_of_a_failed_table(local_ray, tmp_path) -> None:
    cfg = league.config_from_dict(
        {
            "game": "cardiceo",
            "players": 2,
            "agents": {"dies": "python:tests.evaluation.test_ray_failures:make_agent", "random": "random"},
            "games_per_table": 8,
            "seed": 0,
        }
    )
    with pytest.raises(GamesFailedError, match=r"games 5 of cardiceo .*7 finished games are kept in .*partial"):
        league.play_league(cfg, tmp_path, progress=False, echo=lambda *_: None, backend="ray")
    kept = json.loads((tmp_path / "tables" / f"dies__random{league.PARTIAL_SUFFIX}").read_text())
    assert [r["game_index"] for r in kept["results"]] == [0, 1, 2, 3, 4, 6, 7]
    assert not (tmp_path / "tables" / "dies__random.json").exists()
