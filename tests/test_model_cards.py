"""Every shipped checkpoint has a model card (``checkpoints/<agent>/README.md``), and has what its card claims.

The card names the game, the config and seed, the training budget, the suite v1 results with intervals, the
known weaknesses and the folder's files; the checks hold the card to the folder: the files it lists are exactly
the files there, its config and seed are the run's, its commands parse and name files that exist.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

from ice_envs.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
AGENTS = sorted(p for p in (REPO / "checkpoints").iterdir() if p.is_dir())
SECTIONS = ("## Results on suite v1", "## Known weaknesses", "## Files")
ROWS = ("| game |", "| agent spec |", "| config |", "| method |", "| training budget |", "| chosen |")


def _card(folder: Path) -> str:
    return (folder / "README.md").read_text(encoding="utf-8")


def test_there_are_shipped_agents():
    assert len(AGENTS) >= 5


@pytest.mark.parametrize("folder", AGENTS, ids=lambda p: p.name)
def test_the_card_has_every_part(folder):
    card = _card(folder)
    assert card.startswith("# Model card: ")
    for part in (*SECTIONS, *ROWS):
        assert part in card, part
    weaknesses = card.split("## Known weaknesses", 1)[1].split("\n## ", 1)[0]
    assert weaknesses.count("\n- ") >= 1


@pytest.mark.parametrize("folder", AGENTS, ids=lambda p: p.name)
def test_the_folder_holds_exactly_the_files_the_card_lists(folder):
    files_part = _card(folder).split("## Files", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| \[`([^`]+)`\]\(\1\) \|", files_part, flags=re.MULTILINE))
    present = {p.name for p in folder.iterdir() if p.is_file() and p.name != "README.md"}
    assert listed == present, f"listed {sorted(listed)}, present {sorted(present)}"


@pytest.mark.parametrize("folder", AGENTS, ids=lambda p: p.name)
def test_the_cards_game_config_and_seed_are_the_runs(folder):
    card = _card(folder)
    resolved = yaml.safe_load((folder / "config.yaml").read_text())
    game = re.search(r"^\| game \| `(\w+)`, (\d+) players", card, flags=re.MULTILINE)
    assert game and game.groups() == (_game(resolved), str(_players(resolved)))
    config = re.search(r"^\| config \| \[`([^`]+)`\]\(\.\./\.\./\1\) with seed (\d+)", card, flags=re.MULTILINE)
    assert config and (REPO / config.group(1)).is_file()
    assert int(config.group(2)) == resolved["seed"]
    shipped = yaml.safe_load((REPO / config.group(1)).read_text())
    assert _game(shipped) == _game(resolved) and shipped.get("name") == resolved.get("name")
    if (folder / "meta.json").is_file():
        assert json.loads((folder / "meta.json").read_text())["seed"] == resolved["seed"]
    assert (
        f"`ppo:checkpoints/{folder.name}/final.npz`" in card or f"`moves:checkpoints/{folder.name}/model.npz`" in card
    )


def _game(config: dict) -> str:
    """The game of a PPO config (``game: {name: ...}``) or a move learner's (``game: NAME``)."""
    return config["game"]["name"] if isinstance(config["game"], dict) else config["game"]


def _players(config: dict) -> int:
    return config["game"]["players"] if isinstance(config["game"], dict) else config["players"]


@pytest.mark.parametrize("folder", AGENTS, ids=lambda p: p.name)
def test_the_suite_rows_are_rates_with_intervals_around_them(folder):
    part = _card(folder).split("## Results on suite v1", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+) \| (\d+) \| ([\d.]+) \[([\d.]+), ([\d.]+)\]", part, flags=re.MULTILINE)
    assert {r[0].split(" ")[0] for r in rows} >= {"random", "heuristic"}, rows
    for _, games, rate, low, high in rows:
        assert int(games) > 0 and 0 <= float(low) <= float(rate) <= float(high) <= 1


@pytest.mark.parametrize("folder", AGENTS, ids=lambda p: p.name)
def test_the_cards_commands_parse_and_name_files_that_exist(folder):
    card = _card(folder)
    commands = [line for line in card.splitlines() if line.startswith("ice-envs ")]
    commands += re.findall(r"`(ice-envs [^`]+)`", card)
    assert commands
    for command in commands:
        words = shlex.split(command)
        build_parser().parse_args(words[1:])
        for path in re.findall(r"(?:ppo|moves):([^,\s]+)", command):
            assert (REPO / path).is_file(), path
