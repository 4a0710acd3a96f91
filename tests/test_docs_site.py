"""The documentation site builds with no warning (``mkdocs build --strict``), environment pages from docstrings."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ice_envs.core.aec import IceAECEnv

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
        # its rules page and the options every game takes are links, checked by the strict build
        assert f'href="../../rules/{game}/"' in page and 'href="../options/"' in page, game
    options = (site / "environments" / "options" / "index.html").read_text()
    for name in inspect.signature(IceAECEnv.__init__).parameters:
        if name != "self":
            assert f"<code>{name}</code>" in options, name
    api = (site / "api" / "engines" / "index.html").read_text()
    assert "SeatPlayers" in api and "CompiledEngine" in api


def test_make_docs_builds_the_site_strictly():
    """``make docs`` (what a user runs) is the build CI checks: the same command, warnings as errors."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "docs"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    commands = [line for line in done.stdout.splitlines() if line.strip() and not line.startswith("make[")]
    assert commands[-1].endswith("python -m mkdocs build --strict"), done.stdout
    assert '".[all,docs]"' in done.stdout or not done.stdout.count("pip install")  # no Ray or Tianshou for the docs
