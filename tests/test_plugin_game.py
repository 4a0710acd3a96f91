"""A sixth game as a separate package: installed beside ice-envs, found, checked by the public test kit,
evaluated, played in a league and through its Gymnasium id, replayed as pictures; and a broken, misnamed
or duplicate plug-in, or a leaky one, never gets past the host.

The toy game ``dice_race`` lives in ``tests/data/plugin_game/`` (its ``pyproject.toml`` declares the
``ice_envs.games`` entry point; its own test file ``tests/test_dice_race.py`` is the one line a plug-in's
tests need). It is copied to a temporary folder and installed there with
``pip install --no-deps --no-build-isolation --no-index --target <tmp>/site`` (offline, with the
setuptools of the running environment; the environment itself is left unchanged). Every check then
runs in a subprocess with ``<tmp>/site`` first on ``PYTHONPATH``, the steps of ``docs/CONTRIBUTING_GAMES.md``.
Training and resuming a plug-in are checked with the training tests (``tests/train``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import ice_envs
from ice_envs.cardiceo.env import CardiceoEnv
from ice_envs.core import registry
from ice_envs.core.registry import GAMES, PluginWarning, discover
from ice_envs.testing import ContractError, check_game
from tests import leaky_game

REPO = Path(__file__).resolve().parent.parent
PLUGIN_SOURCE = REPO / "tests" / "data" / "plugin_game"
GAME = "dice_race"
TIMEOUT = 300
#: The one check a plug-in cannot pass before training checkpoints hold declared state only: until then
#: ``train/checkpoints.py`` refuses to save a plug-in's env, and the kit's training smoke run names that.


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
    assert "skipped" not in proc.stderr, proc.stderr


def test_the_plugins_own_one_line_test_file_passes(plugin):
    """``tests/test_dice_race.py`` of the plug-in (``check_game("dice_race")``) runs the whole kit."""
    test_file = plugin.root / "dice-race" / "tests" / "test_dice_race.py"
    assert 'check_game("dice_race")' in test_file.read_text()
    proc = plugin.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)])
    assert proc.returncode == 0, _report(proc)


def test_check_game_runs_every_check_on_every_case_of_the_plugin(plugin):
    script = (
        "import json\n"
        "from ice_envs.testing import contract_items\n"
        "print(json.dumps(sorted({i.id for i in contract_items('dice_race')})))\n"
        "from ice_envs.testing import check_game\n"
        "print('skipped', check_game('dice_race', skip=['training']))\n"
    )
    proc = plugin.run([sys.executable, "-c", script])
    assert proc.returncode == 0, _report(proc)
    ids = json.loads(proc.stdout.splitlines()[0])
    cases = {"default-2p", "default-3p", "short-2p", "short-3p", "skip_forced-3p"}
    assert {f"dice_race-{c}-pettingzoo_api_test" for c in cases} <= set(ids)
    assert {f"dice_race-{c}-random_play-raw_env" for c in cases} <= set(ids)
    assert {"dice_race-registration", "dice_race-gym_id", "dice_race-training", "dice_race-layout_table"} <= set(ids)
    assert proc.stdout.splitlines()[-1] == "skipped []"


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
    shapes = {np.asarray(Image.open(frame)).shape for frame in sorted(frames.glob("frame_*.png"))}
    assert shapes == {(480, 720, 3)}, shapes  # the default picture: one fixed size, whatever the text


def test_a_league_and_the_held_out_suite_take_the_plugin(plugin):
    """A league of the plug-in on the deals of suite v1, whose table the plug-in's spec brings (held_out)."""
    config = plugin.root / "league.yaml"
    config.write_text(
        f"game: {GAME}\nplayers: 2\nagents:\n  random: random\n  greedy: greedy\n"
        "schedule: round_robin\ngames_per_table: 20\nsuite: v1\n"
    )
    out = plugin.root / "league"
    proc = plugin.cli("league", str(config), "--out", str(out), "--workers", "1", "--no-progress")
    assert proc.returncode == 0, _report(proc)
    league = json.loads((out / "league.json").read_text())
    assert league["suite"] == "v1" and {r["agent"] for r in league["ratings"]} == {"random", "greedy"}
    suite = plugin.root / "suite"
    proc = plugin.cli("evaluate", "--suite", "v1", GAME, "random", "--no-progress", "--out", str(suite))
    assert proc.returncode == 0, _report(proc)
    assert "dice_race-2p-vs-random" in proc.stdout + "".join(p.read_text() for p in suite.glob("*.md"))


def test_the_gymnasium_id_of_the_plugin(plugin):
    script = (
        "import gymnasium as gym, numpy as np, ice_envs\n"
        "env = gym.make('ice_envs/DiceRace-v0', num_players=3, opponents='random')\n"
        "obs, info = env.reset(seed=0)\n"
        "done = False\n"
        "while not done:\n"
        "    mask = env.unwrapped.action_masks()\n"
        "    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))\n"
        "    done = term or trunc\n"
        "print(env.spec.id, env.unwrapped.game, env.observation_space.shape, reward)\n"
    )
    proc = plugin.run([sys.executable, "-c", script])
    assert proc.returncode == 0, _report(proc)
    gym_id, game, shape, *_ = proc.stdout.split(maxsplit=3)
    assert (gym_id, game, shape) == ("ice_envs/DiceRace-v0", GAME, "(13,)"), proc.stdout


# ------------------------------------------------------------------ what the host refuses
def _entry(name: str, value: str) -> registry.importlib_metadata.EntryPoint:
    return registry.importlib_metadata.EntryPoint(name, value, registry.ENTRY_POINT_GROUP)


#: A spec that reuses a built-in game's name, one whose entry point has another name, and one that is no spec.
DUPLICATE = registry.GameSpec(name="cardiceo", env_module="somebody_else.env", players=(2,), summary="a rival")
MISNAMED = registry.GameSpec(name="misnamed_game", env_module="somebody_else.env", players=(2,), summary="?")
NOT_A_SPEC = {"name": "dict_game"}


@pytest.mark.parametrize(
    "entry,problem",
    [
        (_entry("cardiceo", "tests.test_plugin_game:DUPLICATE"), "is registered twice"),
        (_entry("other_name", "tests.test_plugin_game:MISNAMED"), "must be the game's name 'misnamed_game'"),
        (_entry("dict_game", "tests.test_plugin_game:NOT_A_SPEC"), "it is a dict, not a GameSpec"),
        (_entry("broken_game", "no_such_module_anywhere.spec:SPEC"), "failed to load: ModuleNotFoundError"),
    ],
    ids=["duplicate", "misnamed", "not_a_spec", "broken"],
)
def test_a_bad_plugin_is_warned_about_and_skipped(monkeypatch, entry, problem):
    real = list(registry.importlib_metadata.entry_points(group=registry.ENTRY_POINT_GROUP))
    before = dict(GAMES)
    monkeypatch.setattr(registry.importlib_metadata, "entry_points", lambda group: [entry, *real])
    with pytest.warns(PluginWarning, match=rf"game plug-in {entry.name!r} .* skipped: .*{re.escape(problem)}"):
        discover()
    assert GAMES == before and GAMES["cardiceo"].env_module == "ice_envs.cardiceo.env"


def test_a_duplicate_plugin_leaves_ice_envs_list_working(tmp_path):
    """An installed package claiming the name ``cardiceo``: ``ice-envs list`` warns, and lists the built-in game."""
    site = tmp_path / "site"
    (site / "rival").mkdir(parents=True)
    (site / "rival" / "__init__.py").write_text("")
    (site / "rival" / "spec.py").write_text(
        "from ice_envs.core.registry import GameSpec\n"
        "SPEC = GameSpec(name='cardiceo', env_module='rival.env', players=(2,), summary='a rival cardiceo')\n"
    )
    info = site / "rival-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rival\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ice_envs.games]\ncardiceo = rival.spec:SPEC\n")
    plugin = Plugin(tmp_path, site)
    proc = plugin.cli("list")
    assert proc.returncode == 0, _report(proc)
    assert "game plug-in 'cardiceo' (rival.spec:SPEC) skipped: game 'cardiceo' is registered twice" in proc.stderr
    rows = [line.split()[0] for line in proc.stdout.splitlines()[1:] if line.strip()]
    assert rows.count("cardiceo") == 1 and "Shed your hand" in proc.stdout


def test_a_leaky_game_fails_the_kit():
    """A game whose observation shows another seat's hand and whose resample_hidden re-deals nothing."""
    with leaky_game.registered():
        env = ice_envs.make("leaky_cardiceo", raw=True, num_players=2, hand_size=5)
        env.reset(seed=0)
        hand = env.obs_layout.slice("hand")
        shown = env.observe("player_0")["observation"][hand]
        assert np.array_equal(shown, CardiceoEnv._encode(env, 1)[hand])  # player_0 sees player_1's hand
        with pytest.raises(ContractError, match=r"declares hidden_information=True, but resample_hidden returned"):
            check_game("leaky_cardiceo", checks=["random_play-raw_env"], num_players=2, hand_size=5)
    assert "leaky_cardiceo" not in GAMES
