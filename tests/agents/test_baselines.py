"""The baseline-table runner: config validation, commands, incremental merge."""

from __future__ import annotations

import json

import pytest

from ice_envs.benchmarks import baselines


def _config(tmp_path, rows: str, notes: str = "") -> object:
    path = tmp_path / "table.yaml"
    path.write_text(f"games: 2\nseed: 0\nworkers: 1\n{notes}rows:\n{rows}")
    return path


def test_unknown_row_keys_are_refused(tmp_path):
    path = _config(tmp_path, '  - {game: cardiceo, players: 2, agents: "random,random", seeds: 3}\n')
    with pytest.raises(ValueError, match=r"row 0: unknown keys \['seeds'\]"):
        baselines.load_rows(path)


def test_command_reproduces_the_row():
    row = {
        "game": "icebergs",
        "players": 2,
        "agents": "heuristic,random",
        "games": 10,
        "seed": 1,
        "workers": 2,
        "options": {"max_turns_end": "decide"},
    }
    assert baselines.command_of(row) == (
        "ice-envs evaluate icebergs --players 2 --agents heuristic,random --games 10 --seed 1 --workers 2 "
        "--option max_turns_end=decide"
    )


def test_table_is_written_and_other_games_are_kept(tmp_path):
    rows = (
        '  - {game: cardiceo, players: 2, agents: "heuristic,random"}\n'
        '  - {game: cubemelt, players: 2, agents: "heuristic,random"}\n'
    )
    path = _config(tmp_path, rows, notes='notes:\n  - "a note"\n')
    out, js = tmp_path / "results.md", tmp_path / "results.json"
    common = [str(path), "--out", str(out), "--json", str(js)]
    assert baselines.main([*common, "--only", "cardiceo"]) == 0
    assert [e["row"]["game"] for e in json.loads(js.read_text())] == ["cardiceo"]
    assert baselines.main([*common, "--only", "cubemelt"]) == 0
    entries = json.loads(js.read_text())
    assert [e["row"]["game"] for e in entries] == ["cardiceo", "cubemelt"]  # config order, both kept
    text = out.read_text()
    assert "| cardiceo | 2 | heuristic,random | 2 |" in text and "| cubemelt | 2 |" in text
    assert "`ice-envs evaluate cardiceo --players 2 --agents heuristic,random --games 2 --seed 0 --workers 1`" in text
    assert text.rstrip().endswith("- a note")


def test_missing_runs_only_rows_not_yet_measured(tmp_path):
    path = _config(tmp_path, '  - {game: cubemelt, players: 2, agents: "heuristic,random"}\n')
    out, js = tmp_path / "results.md", tmp_path / "results.json"
    common = [str(path), "--out", str(out), "--json", str(js)]
    assert baselines.main(common) == 0
    first = json.loads(js.read_text())
    path.write_text(path.read_text() + '  - {game: cubemelt, players: 2, agents: "random,heuristic"}\n')
    assert baselines.main([*common, "--missing"]) == 0
    entries = json.loads(js.read_text())
    assert [e["row"]["agents"] for e in entries] == ["heuristic,random", "random,heuristic"]
    assert entries[0] == first[0]  # kept as measured, not re-run


def test_the_page_opens_with_the_leagues_rendered_from_their_shipped_results(tmp_path):
    from ice_envs.evaluation import league

    cfg_path = tmp_path / "league_cardiceo.yaml"
    cfg_path.write_text(
        "game: cardiceo\nplayers: 2\noptions: {hand_size: 5}\nagents: {r: random, h: heuristic}\n"
        "games_per_table: 4\nseed: 3\n"
    )
    cfg = league.load_config(cfg_path)
    summary = league.play_league(cfg, tmp_path / "run", workers=1, progress=False, echo=lambda *_: None)
    results = tmp_path / "leagues" / "cardiceo.json"
    league.write_report(summary, results.parent, f"ice-envs league {cfg_path}")
    (results.parent / "league.json").rename(results)
    played = tmp_path / "league_cubemelt.yaml"
    entries = (
        f"leagues:\n  - {{config: {cfg_path}, results: {results}, image: {tmp_path}/img/league_cardiceo.png, "
        'note: "A note on the league."}\n'
        f"  - {{config: {played}, results: {tmp_path}/leagues/cubemelt.json, image: {tmp_path}/img/x.png}}\n"
    )
    path = _config(tmp_path, '  - {game: cubemelt, players: 2, agents: "heuristic,random"}\n', notes=entries)
    out, js = tmp_path / "results.md", tmp_path / "results.json"
    assert baselines.main([str(path), "--out", str(out), "--json", str(js)]) == 0
    text = out.read_text()
    leagues, rows = text.split("## Tables against fixed opponents")
    assert "### League: cardiceo" in leagues and "A note on the league." in leagues
    assert f"`ice-envs league {cfg_path}`" in leagues and "](img/league_cardiceo.png)" in leagues
    for row in summary["ratings"]:
        assert f"| {row['agent']} | `{row['spec']}` | {row['games']} |" in leagues
    assert f"Not played yet: `ice-envs league {played}`" in leagues
    assert "| cubemelt | 2 | heuristic,random |" in rows


def test_a_bad_league_entry_is_refused_before_anything_is_played(tmp_path):
    path = _config(
        tmp_path,
        '  - {game: cubemelt, players: 2, agents: "heuristic,random"}\n',
        notes="leagues:\n  - {config: x.yaml}\n",
    )
    with pytest.raises(ValueError, match=r"leagues\[0\] must map config, results and image"):
        baselines.main([str(path), "--out", str(tmp_path / "r.md"), "--json", str(tmp_path / "r.json")])
    assert not (tmp_path / "r.json").exists()


def _two_game_table(tmp_path) -> object:
    rows = (
        '  - {game: cardiceo, players: 2, agents: "heuristic,random"}\n'
        '  - {game: cubemelt, players: 2, agents: "heuristic,random"}\n'
    )
    path = tmp_path / "table.yaml"
    path.write_text(f"games: 4\nseed: 0\nworkers: 1\nrows:\n{rows}")
    return path


def test_a_quick_look_at_one_game_keeps_the_other_games_rows(tmp_path):
    path = _two_game_table(tmp_path)
    out, js = tmp_path / "results.md", tmp_path / "results.json"
    common = [str(path), "--out", str(out), "--json", str(js)]
    assert baselines.main(common) == 0
    full = json.loads(js.read_text())
    assert baselines.main([*common, "--games", "2", "--only", "cardiceo"]) == 0
    entries = json.loads(js.read_text())
    assert [(e["row"]["game"], e["summary"]["games"]) for e in entries] == [("cardiceo", 2), ("cubemelt", 4)]
    assert entries[1] == full[1]  # the other game's row as it was
    text = out.read_text()
    assert (
        "--games 2 --seed 0" in text
        and "ice-envs evaluate cubemelt --players 2 --agents heuristic,random --games 4" in text
    )


def test_a_quick_look_without_out_leaves_the_shipped_table_alone(tmp_path, monkeypatch):
    path = _two_game_table(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert baselines.main([str(path)]) == 0  # a full-size run writes the shipped table (here: a temp copy)
    shipped = {p: (tmp_path / p).read_bytes() for p in ("docs/results.md", "docs/results.json")}
    assert baselines.main([str(path), "--games", "2", "--only", "cubemelt"]) == 0
    assert {p: (tmp_path / p).read_bytes() for p in shipped} == shipped
    quick = json.loads((tmp_path / "runs" / "baselines" / "results.json").read_text())
    assert [(e["row"]["game"], e["summary"]["games"]) for e in quick] == [("cardiceo", 4), ("cubemelt", 2)]
    assert quick[0] == json.loads(shipped["docs/results.json"])[0]
