"""A league trusts no stored table: each is checked against its key, and its folder against the league."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ice_envs.core.errors import OptionError
from ice_envs.core.files import FileFormatError
from ice_envs.evaluation import league

BASE = {
    "game": "cardiceo",
    "players": 2,
    "options": {"hand_size": 5},
    "agents": {"rand": "random", "heur": "heuristic"},
    "games_per_table": 6,
    "seed": 3,
}
TABLE = "rand__heur.json"


def _quiet(*_args) -> None:
    pass


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A league played once: its folder and its summary."""
    out = tmp_path_factory.mktemp("league")
    summary = league.play_league(league.config_from_dict(BASE), out, progress=False, echo=_quiet)
    return out, summary


def _flip(t: dict) -> None:
    t["results"][0]["rank"] = t["results"][0]["rank"][::-1]


def _duplicate(t: dict) -> None:
    t["results"][1] = copy.deepcopy(t["results"][0])


def _rename(t: dict) -> None:
    t["agents"] = ["heur", "rand"]


def _cut(t: dict) -> None:
    del t["results"][-1]


def _empty(t: dict) -> None:
    t["results"] = []


def _string_score(t: dict) -> None:
    t["results"][2]["score"] = ["a lot", 0]


def _string_index(t: dict) -> None:
    t["results"][2]["game_index"] = "2"


def _results_not_a_list(t: dict) -> None:
    t["results"] = {"0": 1}


def _swap_wins(t: dict) -> None:
    r = t["results"][0]
    r["win"] = [not w for w in r["win"]]


def _reorder(t: dict) -> None:
    t["results"][0], t["results"][2] = t["results"][2], t["results"][0]


def _extra_field(t: dict) -> None:
    t["results"][0]["note"] = "hand-edited"


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (_flip, "game 0: ranks"),
        (_duplicate, "game 1: it is numbered 0"),
        (_rename, "agents"),
        (_cut, "5 games where its key has 6"),
        (_empty, "0 games where its key has 6"),
        (_string_score, "game 2: score must be 2 float values"),
        (_string_index, "game 2: game_index must be an integer"),
        (_results_not_a_list, "dict games where its key has 6"),
        (_swap_wins, "game 0: win and win_share disagree"),
        (_reorder, "game 0: it is numbered 2"),
        (_extra_field, "game 0: not a game result"),
    ],
)
def test_a_tampered_table_with_the_current_key_is_refused_naming_it(played, tmp_path, tamper, message) -> None:
    out, _ = played
    folder = tmp_path / "league"
    (folder / "tables").mkdir(parents=True)
    table = json.loads((out / "tables" / TABLE).read_text())
    tamper(table)
    path = folder / "tables" / TABLE
    path.write_text(json.dumps(table))
    with pytest.raises(FileFormatError, match=f"league table {path}: .*{message}"):
        league.play_league(league.config_from_dict(BASE), folder, progress=False, echo=_quiet)
    assert sorted(p.name for p in (folder / "tables").iterdir()) == [TABLE]  # nothing played, nothing written


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '{"format": 1}', '{"format": 1, "key": 7}'])
def test_a_table_that_is_not_one_is_refused_naming_it(tmp_path, text) -> None:
    path = tmp_path / "tables" / TABLE
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(FileFormatError, match=f"league table {path}"):
        league.play_league(league.config_from_dict(BASE), tmp_path, progress=False, echo=_quiet)


def test_a_table_of_another_key_is_played_again(played, tmp_path) -> None:
    out, summary = played
    folder = tmp_path / "league"
    (folder / "tables").mkdir(parents=True)
    table = json.loads((out / "tables" / TABLE).read_text())
    table["key"]["seed"] = 99  # stale: another deal range
    table["results"] = []
    (folder / "tables" / TABLE).write_text(json.dumps(table))
    again = league.play_league(league.config_from_dict(BASE), folder, progress=False, echo=_quiet)
    assert again["tables_played"] == ["rand__heur"] and again["ratings"] == summary["ratings"]
    assert (
        json.loads((folder / "tables" / TABLE).read_text())["results"]
        == json.loads((out / "tables" / TABLE).read_text())["results"]
    )


def test_an_untouched_table_is_reused(played) -> None:
    out, summary = played
    again = league.play_league(league.config_from_dict(BASE), out, progress=False, echo=_quiet)
    assert again["tables_reused"] == ["rand__heur"] and again["ratings"] == summary["ratings"]


def test_the_finished_games_of_an_unfinished_table_are_kept_and_the_rest_played(played, tmp_path) -> None:
    out, summary = played
    table = json.loads((out / "tables" / TABLE).read_text())
    folder = tmp_path / "league"
    (folder / "tables").mkdir(parents=True)
    partial = folder / "tables" / f"rand__heur{league.PARTIAL_SUFFIX}"
    kept = [table["results"][i] for i in (0, 1, 4)]
    partial.write_text(json.dumps({"format": league.TABLE_FORMAT, "key": table["key"], "results": kept}))
    lines: list[str] = []
    again = league.play_league(league.config_from_dict(BASE), folder, progress=False, echo=lines.append)
    assert lines == [lines[0]] and lines[0].startswith("[league] rand__heur: 3 games in")
    assert again["ratings"] == summary["ratings"] and not partial.exists()
    assert json.loads((folder / "tables" / TABLE).read_text())["results"] == table["results"]


def test_an_out_folder_that_is_no_league_is_refused_before_any_game(played, tmp_path) -> None:
    cfg = league.config_from_dict(BASE)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(OptionError, match="holds files that are not a league's \\(notes.txt\\)"):
        league.play_league(cfg, tmp_path, progress=False, echo=_quiet)
    assert not (tmp_path / "tables").exists()
    with pytest.raises(OptionError, match="is a file"):
        league.play_league(cfg, tmp_path / "notes.txt", progress=False, echo=_quiet)
    other = tmp_path / "other"
    other.mkdir()
    (other / "league.json").write_text(json.dumps({"game": "cubemelt", "players": 3}))
    with pytest.raises(OptionError, match="holds a league of cubemelt, 3 players, not cardiceo with 2 players"):
        league.play_league(cfg, other, progress=False, echo=_quiet)
    assert league.play_league(cfg, other, progress=False, echo=_quiet, force=True)["tables_played"] == ["rand__heur"]


def test_python_agents_of_a_config_file_need_allow_python(tmp_path) -> None:
    config = tmp_path / "league.yaml"
    agents = {"mine": "python:os:getcwd", "rand": "random"}
    config.write_text(json.dumps({**BASE, "agents": agents}))
    with pytest.raises(OptionError, match="'mine' is 'python:os:getcwd', which imports and runs code.*--allow-python"):
        league.load_config(config)
    assert league.load_config(config, allow_python=True).agents["mine"] == "python:os:getcwd"
    assert league.config_from_dict({**BASE, "agents": agents}).agents["mine"] == "python:os:getcwd"  # the API


def test_report_files_are_written_whole(played, tmp_path) -> None:
    _, summary = played
    league.write_report(summary, tmp_path, "ice-envs league x.yaml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["league.json", "league.md", "league.png"]
    assert (tmp_path / "league.png").read_bytes()[:4] == b"\x89PNG"
