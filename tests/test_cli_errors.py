"""A user's mistake on any ``ice-envs`` command line is one line on stderr and exit status 2.

Every case runs ``ice_envs.cli.main`` in-process and checks: status 2, exactly one line on
stderr (``ice-envs: error: ...``) naming the problem, no traceback. A few run through a real
process (``python -m ice_envs.cli``, ``python -m ice_envs.train``) to show that no traceback
reaches the terminal. Every mistake is found before any game is played.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ice_envs.cli as cli
from ice_envs.cli import main
from ice_envs.train.cli import main as train_main

ROOT = Path(__file__).resolve().parents[1]
SMOKE = str(ROOT / "ice_envs" / "cardiceo" / "smoke.yaml")
EVAL = ["evaluate", "cardiceo", "--players", "2", "--agents", "random,random", "--games", "1", "--no-progress"]
CMP = ["compare", "cardiceo", "random", "greedy", "--players", "2", "--opponents", "random", "--no-progress"]

#: (id, argv with {tmp} for the folder of bad files, a piece of the expected message)
CASES = [
    # game, variant, options
    ("demo-unknown-game", ["demo", "nope"], "unknown game 'nope'"),
    ("demo-unknown-variant", ["demo", "cardiceo", "--variant", "nope"], "unknown variant 'nope'"),
    ("demo-unknown-option", ["demo", "cardiceo", "--option", "foo=1"], "unknown option 'foo'"),
    ("demo-bad-option-value", ["demo", "cardiceo", "--option", "hand_size=abc"], "hand_size"),
    ("demo-option-not-key-value", ["demo", "cardiceo", "--option", "noequals"], "'noequals' is not key=value"),
    ("demo-players-out-of-range", ["demo", "cardiceo", "--players", "9"], "num_players=9 is out of range"),
    ("demo-players-zero", ["demo", "cardiceo", "--players", "0"], "--players: must be at least 1, got 0"),
    ("demo-players-not-int", ["demo", "cardiceo", "--players", "x"], "--players: 'x' is not an integer"),
    ("demo-negative-seed", ["demo", "cardiceo", "--seed", "-1"], "--seed: must be at least 0, got -1"),
    ("demo-missing-map", ["demo", "icebergs", "--option", "map={tmp}/no_map.txt"], "no_map.txt"),
    ("demo-bad-map", ["demo", "icebergs", "--option", "map={tmp}/bad.txt"], "bad.txt, line 1"),
    ("demo-record-is-a-folder", ["demo", "cardiceo", "--quiet", "--record", "{tmp}/folder"], "is a directory"),
    ("unknown-command", ["nonsense"], "invalid choice: 'nonsense'"),
    ("no-command", [], "required: command"),
    # evaluate
    ("eval-unknown-game", ["evaluate", "nope", *EVAL[2:]], "unknown game 'nope'"),
    ("eval-unknown-agent", [*EVAL[:5], "alphazero,random", *EVAL[6:]], "unknown agent 'alphazero'"),
    ("eval-too-few-agents", [*EVAL[:5], "random", *EVAL[6:]], "1 agents given"),
    ("eval-missing-checkpoint", [*EVAL[:5], "ppo:{tmp}/none.zip,random", *EVAL[6:]], "checkpoint not found"),
    ("eval-bad-checkpoint", [*EVAL[:5], "ppo:{tmp}/bad.zip,random", *EVAL[6:]], "not a MaskablePPO checkpoint"),
    ("eval-players-out-of-range", [*EVAL[:3], "9", *EVAL[4:]], "num_players=9 is out of range"),
    ("eval-players-zero", [*EVAL[:3], "0", *EVAL[4:]], "--players: must be at least 1, got 0"),
    ("eval-games-zero", [*EVAL[:7], "0", *EVAL[8:]], "--games: must be at least 1, got 0"),
    ("eval-games-not-int", [*EVAL[:7], "many", *EVAL[8:]], "--games: 'many' is not an integer"),
    ("eval-workers-zero", [*EVAL, "--workers", "0"], "--workers: must be at least 1, got 0"),
    ("eval-workers-negative", [*EVAL, "--workers", "-2"], "--workers: must be at least 1, got -2"),
    ("eval-negative-seed", [*EVAL, "--seed", "-1"], "--seed: must be at least 0, got -1"),
    ("eval-negative-record", [*EVAL, "--record", "-1"], "--record: must be at least 0, got -1"),
    ("eval-max-decisions-zero", [*EVAL, "--max-decisions", "0"], "--max-decisions: must be at least 1, got 0"),
    ("eval-unknown-option", [*EVAL, "--option", "foo=1"], "unknown option 'foo'"),
    ("eval-bad-option-value", [*EVAL, "--option", "hand_size=abc"], "hand_size"),
    ("eval-option-not-key-value", [*EVAL, "--option", "noeq"], "'noeq' is not key=value"),
    ("eval-missing-map", ["evaluate", "icebergs", *EVAL[2:], "--option", "map={tmp}/no_map.txt"], "no_map.txt"),
    (
        "eval-max-decisions-contradicts-option",
        [*EVAL, "--max-decisions", "5", "--option", "max_decisions=7"],
        "contradicts --option max_decisions=7",
    ),
    ("eval-out-not-empty", [*EVAL, "--out", "{tmp}"], "is not empty (it holds bad.jsonl, bad.txt, bad.yaml, ...)"),
    ("eval-out-is-a-file", [*EVAL, "--out", "{tmp}/bad.txt"], "--out {tmp}/bad.txt: is a file"),
    ("eval-out-is-a-file-force", [*EVAL, "--out", "{tmp}/bad.txt", "--force"], "is a file"),
    ("suite-out-not-empty", ["evaluate", "--suite", "v1", "cardiceo", "random", "--out", "{tmp}"], "is not empty"),
    # league
    ("league-missing-config", ["league", "{tmp}/none.yaml"], "league config {tmp}/none.yaml: no such file"),
    ("league-out-not-a-league", ["league", "{tmp}/league.yaml", "--out", "{tmp}"], "not a league's"),
    ("league-out-is-a-file", ["league", "{tmp}/league.yaml", "--out", "{tmp}/bad.txt"], "is a file"),
    ("league-python-agent", ["league", "{tmp}/python_league.yaml"], "only with --allow-python"),
    ("league-bad-table", ["league", "{tmp}/league.yaml", "--out", "{tmp}/badleague"], "badleague/tables/a__b.json"),
    # replay
    ("replay-missing-record", ["replay", "{tmp}/none.jsonl", "--out", "{tmp}/out"], "none.jsonl"),
    ("replay-bad-record", ["replay", "{tmp}/bad.jsonl", "--out", "{tmp}/out"], "bad.jsonl, line 1"),
    ("replay-record-is-a-folder", ["replay", "{tmp}/folder", "--out", "{tmp}/out"], "folder"),
    ("replay-every-zero", ["replay", "{tmp}/bad.jsonl", "--out", "{tmp}/out", "--every", "0"], "--every"),
    ("replay-max-frames-zero", ["replay", "{tmp}/bad.jsonl", "--out", "{tmp}/o", "--max-frames", "0"], "--max-frames"),
    ("replay-fps-zero", ["replay", "{tmp}/bad.jsonl", "--out", "{tmp}/out", "--fps", "0"], "--fps: must be a number"),
    ("replay-negative-viewer", ["replay", "{tmp}/bad.jsonl", "--out", "{tmp}/out", "--viewer", "-1"], "--viewer"),
    # compare
    ("compare-unknown-agent", [*CMP[:3], "alphazero", *CMP[4:]], "unknown agent 'alphazero'"),
    ("compare-missing-checkpoint", [*CMP[:3], "ppo:{tmp}/none.zip", *CMP[4:]], "checkpoint not found"),
    ("compare-bad-checkpoint", [*CMP[:3], "ppo:{tmp}/bad.zip", *CMP[4:]], "not a MaskablePPO checkpoint"),
    ("compare-no-opponents", CMP[:6], "the following arguments are required: --opponents"),
    ("compare-too-many-opponents", [*CMP[:7], "random,random"], "one agent for every other seat"),
    ("compare-games-zero", [*CMP, "--games", "0"], "--games: must be at least 1, got 0"),
    ("compare-unknown-option", [*CMP, "--option", "foo=1"], "unknown option 'foo'"),
    ("compare-out-not-empty", [*CMP, "--out", "{tmp}"], "is not empty"),
    ("compare-out-is-a-file", [*CMP, "--out", "{tmp}/bad.txt"], "is a file"),
    ("compare-suite-and-players", ["compare", "cardiceo", "random", "random", "--suite", "v1", *CMP[4:]], "--suite"),
    # play
    ("play-unknown-game", ["play", "nope"], "unknown game 'nope'"),
    ("play-unknown-variant", ["play", "cardiceo", "--variant", "nope"], "unknown variant 'nope'"),
    ("play-unknown-option", ["play", "cardiceo", "--option", "foo=1"], "unknown option 'foo'"),
    ("play-bad-option-value", ["play", "cardiceo", "--option", "hand_size=abc"], "hand_size"),
    ("play-seat-too-high", ["play", "cardiceo", "--seat", "5"], "--seat 5 is not a seat of a 2-player game"),
    ("play-seat-negative", ["play", "cardiceo", "--seat", "-1"], "--seat -1 is not a seat"),
    ("play-seat-not-int", ["play", "cardiceo", "--seat", "one"], "--seat: invalid int value: 'one'"),
    ("play-players-out-of-range", ["play", "cardiceo", "--players", "9"], "num_players=9 is out of range"),
    ("play-record-is-a-folder", ["play", "cardiceo", "--record", "{tmp}/folder"], "is a directory"),
    ("play-negative-seed", ["play", "cardiceo", "--seed", "-1"], "--seed: must be at least 0, got -1"),
    ("play-max-decisions-zero", ["play", "cardiceo", "--max-decisions", "0"], "--max-decisions: must be at least 1"),
    ("play-unknown-agent", ["play", "cardiceo", "--opponents", "alphazero"], "unknown agent 'alphazero'"),
    ("play-too-many-agents", ["play", "cardiceo", "--opponents", "random,random,random"], "give one spec per other"),
    ("play-missing-checkpoint", ["play", "cardiceo", "--opponents", "ppo:{tmp}/none.zip"], "checkpoint not found"),
    ("play-bad-checkpoint", ["play", "cardiceo", "--opponents", "ppo:{tmp}/bad.zip"], "not a MaskablePPO checkpoint"),
    # train
    ("train-no-config", ["train"], "a config file is required"),
    ("train-missing-config", ["train", "{tmp}/none.yaml"], "config file not found"),
    ("train-bad-yaml", ["train", "{tmp}/bad.yaml", "--print-config"], "not valid YAML"),
    ("train-unknown-game", ["train", "{tmp}/nogame.yaml", "--print-config"], "unknown game 'nope'"),
    ("train-unknown-key", ["train", SMOKE, "--set", "nope=1", "--print-config"], "nope: unknown key"),
    ("train-bad-value", ["train", SMOKE, "--set", "ppo.n_steps=abc", "--print-config"], "ppo.n_steps"),
    ("train-override-not-key-value", ["train", SMOKE, "--set", "noeq", "--print-config"], "'noeq' is not key=value"),
    ("train-config-and-resume", ["train", SMOKE, "--resume", "{tmp}/run"], "not both"),
    ("train-resume-missing-run", ["train", "--resume", "{tmp}/run"], "--resume"),
    ("train-resume-bad-checkpoint", ["train", "--resume", "{tmp}/bad.zip"], "--resume"),
]


@pytest.fixture
def bad_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of bad files; also the working directory, and stdin is empty."""
    (tmp_path / "bad.jsonl").write_text("not json\n")
    (tmp_path / "bad.txt").write_text("not a map\n")
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    (tmp_path / "bad.yaml").write_text("game: [unclosed\n")
    (tmp_path / "nogame.yaml").write_text("game: {name: nope}\n")
    (tmp_path / "folder").mkdir()
    league = {"game": "cardiceo", "players": 2, "agents": {"a": "random", "b": "random"}, "games_per_table": 2}
    (tmp_path / "league.yaml").write_text(json.dumps(league))
    (tmp_path / "python_league.yaml").write_text(
        json.dumps({**league, "agents": {"a": "random", "b": "python:os:getcwd"}})
    )
    (tmp_path / "badleague" / "tables").mkdir(parents=True)
    (tmp_path / "badleague" / "tables" / "a__b.json").write_text('{"format": 1, "results": "flipped"}')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return tmp_path


def _argv(argv: list[str], tmp: Path) -> list[str]:
    return [a.replace("{tmp}", str(tmp)) for a in argv]


def _assert_one_error_line(err: str, expected: str, prog: str = "ice-envs") -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: error: "), err
    assert expected in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize(("argv", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_mistake_is_one_line_and_status_2(argv, expected, bad_files, capsys):
    assert main(_argv(argv, bad_files)) == 2
    captured = capsys.readouterr()
    _assert_one_error_line(captured.err, expected.replace("{tmp}", str(bad_files)))
    assert "Game over" not in captured.out and "Scores:" not in captured.out  # found before any game


def test_python_m_train_reports_mistakes_the_same_way(bad_files, capsys):
    assert train_main([str(bad_files / "none.yaml")]) == 2
    _assert_one_error_line(capsys.readouterr().err, "config file not found", "python -m ice_envs.train")
    assert train_main([SMOKE, "--bogus-flag"]) == 2
    _assert_one_error_line(capsys.readouterr().err, "unrecognized arguments: --bogus-flag", "python -m ice_envs.train")


def test_ctrl_c_is_one_line_and_status_130(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_list", interrupted)
    assert main(["list"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "ice-envs: interrupted"


def test_interrupted_input_while_playing(monkeypatch, capsys):
    class Interrupted(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", Interrupted())
    assert main(["play", "cardiceo", "--seed", "1", "--opponents", "random", "--plain"]) == 130
    captured = capsys.readouterr()
    assert "Interrupted. You left the game" in captured.out and "Traceback" not in captured.err


def test_a_bug_still_raises(monkeypatch):
    def buggy(args):
        raise RuntimeError("a real bug")

    monkeypatch.setattr(cli, "cmd_list", buggy)
    with pytest.raises(RuntimeError, match="a real bug"):
        main(["list"])


@pytest.mark.parametrize(
    ("argv", "expected", "prog"),
    [
        (["-m", "ice_envs.cli", "demo", "cardiceo", "--option", "foo=1"], "unknown option 'foo'", "ice-envs"),
        (["-m", "ice_envs.cli", *EVAL, "--workers", "0"], "--workers: must be at least 1", "ice-envs"),
        (["-m", "ice_envs.cli", "replay", "{tmp}/bad.jsonl", "--out", "{tmp}/out"], "bad.jsonl", "ice-envs"),
        (["-m", "ice_envs.train", "{tmp}/bad.yaml"], "not valid YAML", "python -m ice_envs.train"),
    ],
    ids=["demo-option", "evaluate-workers", "replay-bad-record", "python-m-train-bad-yaml"],
)
def test_no_traceback_reaches_the_terminal(argv, expected, prog, bad_files):
    proc = subprocess.run(
        [sys.executable, *_argv(argv, bad_files)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        cwd=bad_files,
    )
    assert proc.returncode == 2, proc.stderr
    _assert_one_error_line(proc.stderr, expected, prog)


# ---------------------------------------------------------------------------- games stopped at the cap
def test_evaluate_reports_games_truncated_at_max_decisions(tmp_path, capsys):
    import json

    from ice_envs.evaluation.record import load_record

    out = tmp_path / "rep"
    argv = [*EVAL[:7], "4", "--no-progress", "--max-decisions", "5", "--record", "1", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    data = json.loads((out / "evaluation.json").read_text())
    assert data["truncated_games"] == 4 and data["max_decisions"] == 5 and data["no_winner_games"] == 4
    assert data["mean_decisions"] == 5.0
    assert all(r["truncated"] == 4 and r["wins"] == 0 and r["win_rate"] == 0.0 for r in data["per_agent"])
    assert "--max-decisions 5" in data["command"]
    markdown = (out / "evaluation.md").read_text()
    for text in (markdown, printed):
        assert "4 truncated at the cap of 5 decisions (no winner)" in text
        assert "| openskill μ ± σ | truncated |" in text
        assert text.count(" | 4 |") == 2  # the truncated column of both agent rows
    record = load_record(out / "records" / "game_00000.jsonl")
    assert record.header["options"]["max_decisions"] == 5  # a replay is stopped at the same cap
    assert record.outcome["truncated"]


def test_evaluate_without_max_decisions_uses_the_games_cap(tmp_path, capsys):
    import json

    out = tmp_path / "rep"
    assert main([*EVAL[:7], "2", "--no-progress", "--out", str(out)]) == 0
    data = json.loads((out / "evaluation.json").read_text())
    assert data["truncated_games"] == 0 and "--max-decisions" not in data["command"]
    assert data["max_decisions"] == 5_000  # Cardiceo's declared maximum length
    assert "none truncated" in (out / "evaluation.md").read_text()


def test_play_stopped_at_max_decisions_says_truncated(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 200))
    argv = ["play", "cardiceo", "--seed", "1", "--opponents", "random", "--plain", "--max-decisions", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Game stopped after 3 decisions: truncated at the cap of 3 decisions, no result." in out
