"""``evaluate``/``compare`` never mix two runs in one ``--out`` folder: a non-empty one needs ``--force``."""

from __future__ import annotations

import json
from pathlib import Path

from ice_envs.cli import main


def _evaluate(game: str, players: int, out: Path, *extra: str) -> int:
    agents = ",".join(["random"] * players)
    argv = ["evaluate", game, "--players", str(players), "--agents", agents, "--games", "3", "--no-progress"]
    return main([*argv, "--record", "3", "--out", str(out), *extra])


def test_a_second_evaluation_into_the_same_folder_needs_force_and_then_replaces_the_first(tmp_path, capsys) -> None:
    out = tmp_path / "eval"
    assert _evaluate("cardiceo", 2, out) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert _evaluate("cubemelt", 3, out) == 2
    assert "is not empty" in capsys.readouterr().err
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # untouched
    assert _evaluate("cubemelt", 3, out, "--force") == 0
    assert json.loads((out / "evaluation.json").read_text())["game"] == "cubemelt"
    records = sorted(out.joinpath("records").iterdir())
    assert len(records) == 3 and all('"game": "cubemelt"' in p.read_text().splitlines()[0] for p in records)


def test_compare_refuses_a_folder_in_use_before_playing(tmp_path, capsys) -> None:
    out = tmp_path / "cmp"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    argv = ["compare", "cardiceo", "random", "greedy", "--players", "2", "--opponents", "random", "--games", "2"]
    assert main([*argv, "--no-progress", "--out", str(out)]) == 2
    assert "is not empty (it holds mine.txt)" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    assert main([*argv, "--no-progress", "--out", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["compare.json", "compare.md", "mine.txt"]


def test_a_failed_forced_evaluation_changes_nothing(tmp_path, capsys) -> None:
    out = tmp_path / "eval"
    assert _evaluate("cardiceo", 2, out) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    argv = ["evaluate", "cardiceo", "--players", "2", "--agents", "random,wizard", "--games", "3", "--no-progress"]
    assert main([*argv, "--record", "3", "--out", str(out), "--force"]) == 2
    assert "unknown agent 'wizard'" in capsys.readouterr().err
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
