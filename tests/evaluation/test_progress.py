"""Progress on stderr: the shared helper (tqdm or a plain counter), and every command that may run long."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from ice_envs.cli import main
from ice_envs.core.progress import progress_bar
from ice_envs.evaluation.record import load_record
from ice_envs.evaluation.replay import replay

RECORD = Path(__file__).resolve().parents[2] / "docs" / "img" / "records" / "icebergs.jsonl"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_without_tqdm_a_counter_shows_the_progress(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm fails
    out = Terminal()
    bar = progress_bar(3, "replay", "decisions", file=out)
    for _ in range(3):
        bar.update(1)
    bar.close()
    assert out.getvalue().startswith("\rreplay: 1/3 decisions") and out.getvalue().endswith("replay: 3/3 decisions\n")
    out = Terminal()
    bar = progress_bar(3, "replay", "decisions", file=out, transient=True)
    bar.update(3)
    bar.close()
    assert "3/3" in out.getvalue() and out.getvalue().endswith("\r") and "\n" not in out.getvalue()


def test_disabled_or_not_a_terminal_shows_nothing():
    out = io.StringIO()
    for bar in (
        progress_bar(3, "x", "y", enabled=False, file=out),
        progress_bar(3, "x", "y", terminal_only=True, file=out),
    ):
        bar.update(3)
        bar.close()
    assert out.getvalue() == ""


@pytest.mark.parametrize("tqdm", [True, False], ids=["tqdm", "counter"])
def test_replay_shows_its_progress_on_a_terminal(tqdm, monkeypatch):
    if not tqdm:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    total = len(load_record(RECORD).steps)
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    result = replay(RECORD, progress=True)
    assert result.steps == total and result.checked_outcome
    assert "replay" in err.getvalue() and f"/{total}" in err.getvalue()
    assert "\n" not in err.getvalue()  # erased once done: the command's own lines follow


def test_replay_command_progress_and_no_progress(tmp_path, monkeypatch, capsys):
    argv = ["replay", str(RECORD), "--no-gif", "--every", "1000"]
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert f"/{len(load_record(RECORD).steps)}" in err.getvalue()
    err.seek(0)
    err.truncate()
    assert main([*argv, "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    assert err.getvalue() == ""
    assert "Replayed" in capsys.readouterr().out


# ---------------------------------------------------------------------------- every long command
def _tiny_suite(monkeypatch) -> str:
    from ice_envs.evaluation import suite

    tiny = suite.Suite("tiny", suite.SUITE_SEEDS.start, (suite.SuiteTable("cubemelt", 2, ("random",), 2),))
    monkeypatch.setitem(suite.SUITES, "tiny", tiny)
    return "tiny"


def _baselines(tmp_path: Path, argv: list[str]) -> int:
    from ice_envs.benchmarks import baselines

    config = tmp_path / "table.yaml"
    config.write_text(
        'games: 2\nseed: 0\nworkers: 1\nrows:\n  - {game: cubemelt, players: 2, agents: "random,random"}\n'
    )
    out = tmp_path / f"results{len(argv)}"
    return baselines.main([str(config), "--out", str(out / "r.md"), "--json", str(out / "r.json"), *argv])


LONG_COMMANDS = {
    "evaluate": (
        ["evaluate", "cubemelt", "--players", "2", "--agents", "random,random", "--games", "2"],
        "cubemelt 2p",
    ),
    "suite": (["evaluate", "--suite", "tiny", "cubemelt", "random"], "cubemelt 2p"),
    "compare": (
        ["compare", "cubemelt", "random", "greedy", "--players", "2", "--opponents", "random", "--games", "2"],
        "cubemelt 2p",
    ),
    "league": (["league", "league.yaml"], "cubemelt 2p"),
    "probe": (
        ["probe", "cubemelt", "--players", "2", "--points", "1", "--per-game", "1", "--samples", "2"]
        + ["--baseline", "random", "--continuation", "random", "--max-candidates", "2"],
        "probe cubemelt",
    ),
    "baselines": (None, "cubemelt 2p"),
}


@pytest.mark.parametrize("command", sorted(LONG_COMMANDS))
def test_every_long_command_shows_progress_on_stderr_unless_told_not_to(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _tiny_suite(monkeypatch)
    (tmp_path / "league.yaml").write_text(
        '{"game": "cubemelt", "players": 2, "agents": {"a": "random", "b": "greedy"}, "games_per_table": 2}\n'
    )
    argv, label = LONG_COMMANDS[command]
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)

    def run(*extra: str) -> str:
        err.seek(0)
        err.truncate()
        if argv is None:
            assert _baselines(tmp_path, list(extra)) == 0
        else:
            assert main([*argv, "--out", str(tmp_path / f"out{len(extra)}"), *extra]) == 0
        return err.getvalue()

    shown = run()
    assert f"{label}:" in shown and ("2/2" in shown or "1/1" in shown), shown
    out = capsys.readouterr().out
    assert out and f"{label}:" not in out  # the report on stdout, the progress on stderr only
    assert run("--no-progress") == ""
