"""Fixtures of the web app's tests: a runs folder with real files, the app, a Starlette test client.

The runs folder holds what a user's would: a record written by ``ice-envs play --record``'s writer
(one of the shipped records, copied), an ``evaluate --record 2`` folder and a small league, both
made by the real commands (a few quick games).
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from ice_envs.cli import main
from ice_envs.web.library import SHIPPED_RECORDS


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: end-to-end tests in headless Chromium (select with -m browser)")


LEAGUE_YAML = """\
game: cubemelt
players: 2
agents:
  random: random
  greedy: greedy
  heuristic: heuristic
schedule: round_robin
games_per_table: 2
seed: 5
"""


@pytest.fixture(scope="session")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runs folder: a copied record, an evaluation with two sample games and a league."""
    runs = tmp_path_factory.mktemp("runs")
    (runs / "games").mkdir()
    shutil.copy(SHIPPED_RECORDS / "cardiceo.jsonl", runs / "games" / "cardiceo.jsonl")
    evaluation = ["evaluate", "cubemelt", "--players", "2", "--agents", "heuristic,random", "--games", "4"]
    assert main([*evaluation, "--record", "2", "--out", str(runs / "eval"), "--no-progress"]) == 0
    (runs / "league.yaml").write_text(LEAGUE_YAML)
    assert main(["league", str(runs / "league.yaml"), "--out", str(runs / "league"), "--no-progress"]) == 0
    return runs


@pytest.fixture(scope="session")
def app(runs_dir: Path):
    from ice_envs.web.app import create_app

    return create_app(runs_dir)


@pytest.fixture(scope="session")
def client(app):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Starlette's note on httpx versions
        from starlette.testclient import TestClient

        return TestClient(app, base_url="http://127.0.0.1:8000", raise_server_exceptions=False)
