"""A sixth game as a separate package: installed beside ice-envs, found, tested, evaluated, played and replayed.

The toy game ``dice_race`` lives in ``tests/data/plugin_game/`` (its ``pyproject.toml`` declares the
``ice_envs.games`` entry point). It is copied to a temporary folder and installed there with
``pip install --no-deps --no-build-isolation --no-index --target <tmp>/site`` (offline, with the
setuptools of the running environment; the environment itself is left unchanged). Every check then
runs ``ice-envs`` in a subprocess with ``<tmp>/site`` first on ``PYTHONPATH``, exactly the steps of
``docs/CONTRIBUTING_GAMES.md``: list, the contract suite, evaluate, play, replay.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PLUGIN_SOURCE = REPO / "tests" / "data" / "plugin_game"
GAME = "dice_race"
#: (variant, players) of every case the contract suite must run for the plug-in (its spec's cases).
#: The plug-in's variants at each player count, and the base env's skip_forced case the suite adds per game.
PLUGIN_CASES = {("default", 2), ("default", 3), ("short", 2), ("short", 3), ("skip_forced", 3)}
TIMEOUT = 300


class Plugin:
    """The installed plug-in: where it lives and how to run ice-envs with it."""

    def __init__(self, root: Path, site: Path) -> None:
        self.root = root
        self.site = site
        self.work = root / "work"  # an empty folder to run commands in (nothing importable there)
        self.work.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
        self.env = env

    def run(self, args: list[str], cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            args,
            cwd=cwd or self.work,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    def cli(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        """``ice-envs ARGS`` (the console script next to this Python; ``python -m ice_envs.cli`` without one)."""
        script = Path(sys.executable).with_name("ice-envs")
        command = [str(script)] if script.exists() else [sys.executable, "-m", "ice_envs.cli"]
        return self.run([*command, *args], stdin=stdin)


def _report(proc: subprocess.CompletedProcess) -> str:
    return f"exit status {proc.returncode}\n--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Plugin:
    root = tmp_path_factory.mktemp("plugin")
    project = root / "dice-race"  # not an importable name: the source copy never shadows the installed package
    shutil.copytree(PLUGIN_SOURCE, project, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    site = root / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--no-cache-dir", "--disable-pip-version-check", "--quiet", "--target", str(site), str(project)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, "installing the plug-in failed (it needs setuptools in this environment)\n" + _report(
        proc
    )
    assert (site / GAME / "spec.py").is_file()
    return Plugin(root, site)


def test_list_shows_the_plugin(plugin):
    proc = plugin.cli("list")
    assert proc.returncode == 0, _report(proc)
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    assert GAME in rows, proc.stdout
    assert rows[GAME].split()[1:3] == ["2-3", "2"], rows[GAME]  # players, actions
    assert "failed to load" not in proc.stderr, proc.stderr


def test_contract_suite_passes_for_the_plugin(plugin):
    junit = plugin.root / "contract.xml"
    proc = plugin.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(REPO / "tests" / "test_contract.py")]
        + ["-k", GAME, f"--junitxml={junit}"],
        cwd=REPO,
    )
    assert junit.is_file(), _report(proc)
    cases = ET.parse(junit).getroot().iter("testcase")
    results = {
        case.get("name"): [child for child in case if child.tag in ("failure", "error", "skipped")] for case in cases
    }
    assert results, "-k dice_race selected no contract test\n" + _report(proc)
    assert all(GAME in name for name in results), sorted(results)
    # every test function of the suite ran on every case of the plug-in's spec (some through env() and raw_env() both)
    factories = ("-env", "-raw_env")
    params = {name.partition("[")[2].rstrip("]") for name in results}
    ran = {next((p.removesuffix(f) for f in factories if p.endswith(f)), p) for p in params}
    assert ran == {f"{GAME}-{v}-{n}p" for v, n in PLUGIN_CASES}, sorted(ran)
    for function in {name.partition("[")[0] for name in results}:
        mine = {name.partition("[")[2].rstrip("]") for name in results if name.partition("[")[0] == function}
        assert len(mine) in (len(PLUGIN_CASES), 2 * len(PLUGIN_CASES)), (function, sorted(mine))
    assert len({name.partition("[")[0] for name in results}) >= 8, sorted(results)
    failed = sorted(name for name, problems in results.items() if problems)
    assert not failed and proc.returncode == 0, _report(proc)


def test_evaluate_the_plugin(plugin):
    out = plugin.root / "eval"
    proc = plugin.cli(
        *("evaluate", GAME, "--players", "2", "--agents", "random,random", "--games", "20", "--workers", "1"),
        *("--no-progress", "--out", str(out)),
    )
    assert proc.returncode == 0, _report(proc)
    summary = json.loads((out / "evaluation.json").read_text())
    assert summary["game"] == GAME and summary["games"] == 20
    assert [row["games"] for row in summary["per_agent"]] == [20, 20]
    # win_shares() of a game sum to 1 when it has a winner, else 0: every game has a winner
    # and the mean shares of the agents sum to 1, so each game's shares sum to 1
    assert summary["no_winner_games"] == 0 and summary["truncated_games"] == 0
    assert sum(row["win_share"] for row in summary["per_agent"]) == pytest.approx(1.0)
    assert sum(row["wins"] for row in summary["per_agent"]) >= 20


def test_play_the_plugin_then_replay_the_record(plugin):
    record = plugin.root / "g.jsonl"
    # the person always types 1 (step one square); the game ends within max_rounds (30) of their turns
    proc = plugin.cli(
        *("play", GAME, "--players", "2", "--opponents", "random", "--seed", "3", "--record", str(record), "--plain"),
        stdin="1\n" * 100,
    )
    assert proc.returncode == 0, _report(proc)
    assert "Game over after" in proc.stdout, proc.stdout[-3000:]
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0]["game"] == GAME and lines[0]["agents"] == ["human", "random"]
    assert lines[-1]["outcome"]["finished"] is True
    assert any(line.get("agent") == "player_0" for line in lines[1:-1])

    frames = plugin.root / "replay"
    proc = plugin.cli("replay", str(record), "--out", str(frames), "--no-gif")
    assert proc.returncode == 0, _report(proc)
    assert f"Replayed {len(lines) - 2} decisions of {GAME}: outcome matches the record." in proc.stdout, proc.stdout
    assert (frames / "frame_00000.png").is_file()
