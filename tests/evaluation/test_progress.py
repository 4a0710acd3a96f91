"""Progress on stderr: the shared helper (tqdm or a plain counter) and ``ice-envs replay``'s."""

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
