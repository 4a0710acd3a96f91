"""The command line's help for users: did-you-mean for names, --version, defaults in --help, ``list`` width."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import ice_envs
from ice_envs.cli import main
from ice_envs.core.errors import AgentSpecError, OptionError, did_you_mean

TYPO = "cardico"
SUGGESTION = "(did you mean 'cardiceo'?)"


# ---------------------------------------------------------------------------- did you mean
@pytest.mark.parametrize("name", ["cardico", "Cardico", "CARDICO", "cardiceo_v0", "cardicoe"])
def test_a_mistyped_game_gets_the_closest_name(name):
    for call in (ice_envs.get_spec, ice_envs.make):
        with pytest.raises(OptionError) as info:
            call(name)
        message = str(info.value)
        assert message.startswith(f"unknown game {name!r} {SUGGESTION}; known games: ")
        assert "\n" not in message


def test_a_name_close_to_nothing_gets_no_guess():
    with pytest.raises(OptionError) as info:
        ice_envs.get_spec("chess")
    assert "did you mean" not in str(info.value) and "known games" in str(info.value)
    assert did_you_mean("zzz", ["cardiceo"]) == ""


def test_a_mistyped_agent_kind_gets_the_closest_kind():
    from ice_envs.agents.spec import parse_agent_spec

    with pytest.raises(AgentSpecError, match=r"unknown agent 'heurstic' \(did you mean 'heuristic'\?\)"):
        parse_agent_spec("heurstic")
    with pytest.raises(AgentSpecError, match=r"unknown agent 'mtcs:sims=5' \(did you mean 'mcts'\?\)"):
        parse_agent_spec("mtcs:sims=5")


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    league = {"game": TYPO, "players": 2, "agents": {"a": "random", "b": "random"}, "games_per_table": 2}
    (tmp_path / "league.yaml").write_text(json.dumps(league))
    (tmp_path / "train.yaml").write_text(f"game: {{name: {TYPO}}}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", TYPO],
        ["evaluate", TYPO, "--players", "2", "--agents", "random,random", "--games", "1", "--no-progress"],
        ["evaluate", "--suite", "v1", TYPO, "random", "--no-progress"],
        ["compare", TYPO, "random", "greedy", "--players", "2", "--opponents", "random", "--no-progress"],
        ["play", TYPO],
        ["probe", TYPO],
        ["league", "league.yaml"],
        ["train", "train.yaml", "--print-config"],
    ],
    ids=["demo", "evaluate", "suite", "compare", "play", "probe", "league", "train"],
)
def test_every_command_suggests_the_game(argv, in_tmp, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ice-envs: error: "), err
    assert f"{TYPO!r} {SUGGESTION}" in err[0], err
    assert not (in_tmp / "runs").exists()  # refused before anything was written


# ---------------------------------------------------------------------------- names in any case
SPELLINGS = {
    "cubemelt": ["cubemelt", "CubeMelt", "CUBEMELT", "Cube Melt", "cube-melt", "cubemelt_v1", "CubeMelt_V1"],
    "iceberg_rummy": ["Iceberg_Rummy", "IcebergRummy", "iceberg-rummy", "Iceberg Rummy", "ICEBERG_RUMMY_V1"],
    "tip_of_the_diceberg": ["TipOfTheDiceberg", "Tip of the Diceberg", "tip-of-the-diceberg"],
}


@pytest.mark.parametrize("game", sorted(SPELLINGS))
def test_a_game_is_found_whatever_its_case_and_separators(game):
    for typed in SPELLINGS[game]:
        assert ice_envs.get_spec(typed).name == game, typed
        assert ice_envs.core.registry.resolve_name(typed) == game
        players = ice_envs.get_spec(game).players[0]
        assert ice_envs.make(typed, num_players=players).unwrapped.metadata["name"] == ice_envs.get_spec(game).env_name
    # the registry's own names and PettingZoo ids are as they were
    assert game in ice_envs.GAMES and all(name == name.lower() for name in ice_envs.GAMES)


def test_the_gymnasium_camel_case_name_is_a_game_name_too():
    from ice_envs.wrappers.registration import gym_id

    for name in ice_envs.GAMES:
        camel = gym_id(name).split("/", 1)[1].rsplit("-v", 1)[0]
        assert ice_envs.get_spec(camel).name == name


def test_a_name_that_matches_two_games_loosely_is_refused(monkeypatch):
    from ice_envs.core import registry

    twin = dataclasses.replace(registry.GAMES["cubemelt"], name="cube_melt")
    monkeypatch.setitem(registry.GAMES, "cube_melt", twin)
    assert ice_envs.get_spec("cube_melt") is twin and ice_envs.get_spec("cubemelt").name == "cubemelt"
    with pytest.raises(
        OptionError, match=r"^game name 'CubeMelt' is ambiguous: it matches \['cube_melt', 'cubemelt'\]"
    ):
        ice_envs.get_spec("CubeMelt")


def test_commands_write_the_registry_name_whatever_was_typed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert (
        main(["evaluate", "CubeMelt", "--players", "2", "--agents", "random,random", "--games", "2", "--no-progress"])
        == 0
    )
    out = capsys.readouterr().out
    assert "`ice-envs evaluate cubemelt --players 2" in out
    (folder,) = (tmp_path / "runs" / "eval").iterdir()
    assert folder.name.startswith("cubemelt-2p-")
    argv = ["compare", "Cube_Melt", "random", "greedy", "--players", "2", "--opponents", "random", "--games", "2"]
    assert main([*argv, "--no-progress"]) == 0
    assert [p.name for p in (tmp_path / "runs" / "compare").iterdir()] == ["cubemelt-2p-random-vs-greedy"]
    (tmp_path / "league.yaml").write_text(
        json.dumps({"game": "CubeMelt", "players": 2, "agents": {"a": "random", "b": "greedy"}, "games_per_table": 2})
    )
    assert main(["league", "league.yaml", "--no-progress"]) == 0
    assert [p.name for p in (tmp_path / "runs" / "league").iterdir()] == ["cubemelt-2p"]
    assert main(["demo", "ICEBERGS", "--players", "2", "--quiet"]) == 0
    assert main(["evaluate", "--suite", "v1", "Cube_Melt", "bogus"]) == 2  # the game is taken, the agent refused
    assert "unknown agent 'bogus'" in capsys.readouterr().err


def test_the_results_table_tool_takes_the_games_in_any_case(tmp_path):
    from ice_envs.benchmarks import baselines

    config = tmp_path / "table.yaml"
    rows = "".join(f'  - {{game: {g}, players: 2, agents: "random,random"}}\n' for g in ("cardiceo", "cubemelt"))
    config.write_text(f"games: 2\nseed: 0\nworkers: 1\nrows:\n{rows}")
    out, js = tmp_path / "r.md", tmp_path / "r.json"
    assert (
        baselines.main([str(config), "--out", str(out), "--json", str(js), "--only", "CubeMelt", "--no-progress"]) == 0
    )
    assert [e["row"]["game"] for e in json.loads(js.read_text())] == ["cubemelt"]
    with pytest.raises(OptionError, match="did you mean 'cubemelt'"):
        baselines.main([str(config), "--out", str(out), "--json", str(js), "--only", "cubmelt"])


def test_the_training_config_takes_the_game_in_any_case(tmp_path, capsys):
    (tmp_path / "train.yaml").write_text("game: {name: CubeMelt, players: 2}\n")
    assert main(["train", str(tmp_path / "train.yaml"), "--print-config"]) == 0
    assert "name: cubemelt" in capsys.readouterr().out


# ---------------------------------------------------------------------------- report folder names
WINDOWS_INVALID = set('<>:"/\\|?*') | {chr(c) for c in range(32)}


@pytest.mark.parametrize(
    "text",
    ["ppo:runs/x/final.zip", "mcts:sims=50,random", 'a<b>c:"d"|e?f*g\\h', "heuristic@v2", "x.", " ", "é" * 300],
)
def test_portable_names_have_no_character_windows_refuses(text):
    from ice_envs.core.names import MAX_NAME, portable_name

    name = portable_name(text)
    assert not set(name) & WINDOWS_INVALID and name.isascii()
    assert 0 < len(name) <= MAX_NAME and not name.endswith((".", " "))
    assert portable_name(text) == name  # deterministic


def test_portable_names_keep_plain_names_and_never_collide():
    from ice_envs.core.names import portable_name

    assert portable_name("cardiceo-2p") == "cardiceo-2p"
    texts = ["ppo:a/b", "ppo:a_b", "ppo_a_b", "ppo:a:b", "ppo/a/b", "heuristic,random", "heuristic_random"]
    assert len({portable_name(t) for t in texts}) == len(texts)
    assert portable_name("ppo:a/b").startswith("ppo_a_b-")


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "cardiceo", "--players", "2", "--agents", "greedy:samples=2,random", "--games", "1"],
        [
            "compare",
            "cardiceo",
            "greedy:samples=2",
            "random",
            "--players",
            "2",
            "--opponents",
            "random",
            "--games",
            "1",
        ],
    ],
    ids=["evaluate", "compare"],
)
def test_default_report_folders_are_portable(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--no-progress", "--option", "hand_size=5"]) == 0
    (folder,) = (tmp_path / "runs").glob("*/*")
    assert folder.is_dir() and not set(folder.name) & WINDOWS_INVALID
    assert folder.name.startswith("cardiceo-2p-greedy_samples_2")
    assert f"report in {folder.relative_to(tmp_path)}/" in capsys.readouterr().out


# ---------------------------------------------------------------------------- --version and --help
def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"ice-envs {version('ice-envs')}"


def _subcommands() -> dict:
    import argparse

    from ice_envs.cli import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_option_has_help_and_shows_its_default(command):
    parser = _subcommands()[command]
    formatter = parser._get_formatter()
    text = parser.format_help()
    assert "ice_envs." not in text  # users are pointed at commands and docs, not at Python modules
    for action in parser._actions:
        assert action.help, (command, action.dest)
        default = action.default
        shown = not (default is None or default is False or default == [] or default == "==SUPPRESS==")
        if action.option_strings and shown:
            assert "default" in formatter._get_help_string(action), (command, action.option_strings)


def test_evaluate_help_shows_the_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag, default in (("--games", "2000"), ("--seed", "0"), ("--workers", "1")):
        option = text.split(f"{flag} {flag.strip('-').upper()} ", 1)[1]
        assert option.split(" --", 1)[0].endswith(f"(default: {default})"), flag
    assert "--players PLAYERS seats at the table (required; not with --suite)" in text


def test_league_help_describes_the_config_and_points_at_the_command(capsys):
    with pytest.raises(SystemExit):
        main(["league", "--help"])
    text = capsys.readouterr().out
    assert "usage: ice-envs league" in text and "ice_envs.evaluation" not in text
    for key in ("game:", "players:", "agents:", "games_per_table:", "suite:", "out:"):
        assert key in text


def test_the_league_config_in_the_help_loads(tmp_path, monkeypatch):
    from ice_envs.evaluation import league
    from ice_envs.evaluation.cli import LEAGUE_DESCRIPTION

    example = LEAGUE_DESCRIPTION.split("no others):\n\n", 1)[1].split("\n\n", 1)[0]
    (tmp_path / "league.yaml").write_text(example + "\n")
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # the shipped checkpoint it names
    cfg = league.load_config(tmp_path / "league.yaml")
    assert cfg.game == "cubemelt" and cfg.players == 3 and len(cfg.agents) == 3


# ---------------------------------------------------------------------------- list
@pytest.mark.parametrize("columns", [80, 100, 200])
def test_list_fits_the_terminal_and_shows_everything(columns, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= columns
    words = " ".join(out.split())
    for name, spec in ice_envs.GAMES.items():
        assert any(line.startswith(f"{name} ") for line in out.splitlines())
        assert " ".join(spec.summary.split()) in words
        for variant in spec.variants:
            assert variant in words
