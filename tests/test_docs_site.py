"""The documentation site builds with no warning (``mkdocs build --strict``), environment pages from docstrings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_site_builds_strictly_with_every_environment_page(tmp_path: Path):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
    pytest.importorskip("mkdocstrings", reason="the docs extra is not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for game in ("cardiceo", "cubemelt", "iceberg_rummy", "tip_of_the_diceberg", "icebergs"):
        page = (site / "environments" / game / "index.html").read_text()
        # the page is the env's docstring: its argument section and its observation table are there
        assert "Arguments" in page and "Observation Shape" in page, game
    api = (site / "api" / "engines" / "index.html").read_text()
    assert "SeatPlayers" in api and "CompiledEngine" in api
