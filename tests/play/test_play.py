"""``ice-envs play`` driven through stdin: every game to the end, bad input, help, undo, quit."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ice_envs
from ice_envs.cli import main
from ice_envs.evaluation.record import load_record
from ice_envs.evaluation.replay import replay
from ice_envs.play.console import Console
from ice_envs.play.games import in_selection
from ice_envs.play.menu import MoveMenu
from ice_envs.play.terminal import PlaySetup, TerminalGame
from tests.play.helpers import short_game

GAMES = sorted(ice_envs.GAMES)


def _play_args(game: str, seed: int, *extra: str) -> list[str]:
    n, args, _ = short_game(game)
    return ["play", game, "--players", str(n), "--seed", str(seed), "--opponents", "random", *args, *extra]


@pytest.mark.parametrize("game", GAMES)
def test_a_scripted_person_plays_every_game_to_the_end(game, monkeypatch, capsys, tmp_path):
    """The person always types 1 (the first move, opening groups on the way); the record replays."""
    path = tmp_path / "game.jsonl"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 20000))
    assert main(_play_args(game, 5, "--record", str(path))) == 0
    out = capsys.readouterr().out
    assert re.search(r"Game (over after \d+ decisions|stopped after \d+ decisions)", out)
    assert "You are player_0." in out and "Your moves" in out
    assert "player_0 (you): score" in out
    record = load_record(path)
    assert record.outcome is not None and record.outcome["finished"]
    assert record.header["agents"][0] == "human"
    result = replay(record)
    assert result.checked_outcome
    assert result.outcome["state_digest"] == record.outcome["state_digest"]


def test_real_stdin_with_bad_input_help_back_and_undo():
    """A separate process reading a script on its stdin, with every kind of bad line."""
    script = "\n".join(["", "foo", "0", "99", "-1", "help", "back", "undo", "table"] + ["1"] * 400) + "\n"
    proc = subprocess.run(
        [sys.executable, "-m", "ice_envs.cli", *_play_args("cardiceo", 3)],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Please type a move number" in out
    assert "'foo' is not a move number or a command" in out
    assert "There is no move 0" in out and "There is no move 99" in out
    assert "'-1' is not a move number" in out
    assert "Commands:" in out and "Rules: docs/rules/cardiceo.md" in out
    assert "Already at the top of the menu." in out
    assert "Nothing to undo: in this game every move is final" in out
    assert "Game over after" in out


def test_quit_and_end_of_input(monkeypatch, capsys, tmp_path):
    path = tmp_path / "quit.jsonl"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n1\nquit\n"))
    assert main(_play_args("cubemelt", 1, "--record", str(path))) == 0
    out = capsys.readouterr().out
    assert "You quit. You left the game after" in out
    record = load_record(path)
    assert record.outcome is not None and not record.outcome["finished"]
    assert replay(record).checked_outcome  # an unfinished game replays too

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(_play_args("cubemelt", 1)) == 1
    assert "End of input." in capsys.readouterr().out


def test_bad_command_lines_are_clear(capsys):
    assert main(["play", "cardiceo", "--players", "3", "--opponents", "random,random,random"]) == 2
    assert "give one spec per other seat" in capsys.readouterr().err
    assert main(["play", "cardiceo", "--players", "2", "--seat", "2"]) == 2
    assert "--seat 2 is not a seat" in capsys.readouterr().err
    assert main(["play", "cardiceo", "--opponents", "alphazero"]) == 2
    assert "unknown agent 'alphazero'" in capsys.readouterr().err
    assert main(["play", "nonsense"]) == 2
    assert "unknown game" in capsys.readouterr().err
    assert main(["play", "cardiceo", "--option", "colour=blue"]) == 2
    assert "unknown option 'colour'; allowed: [" in capsys.readouterr().err


class UndoScript:
    """A stdin that types 1, but types ``undo`` the first time the person is mid-selection.

    It checks that the undo restored the game (and the record) to the moment before the
    selection began.
    """

    def __init__(self, max_lines: int = 20000) -> None:
        self.game: TerminalGame | None = None
        self.left = max_lines
        self.before: tuple[dict, int] | None = None
        self.undone = False
        self.checked = False

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        assert self.game is not None
        self.left -= 1
        if self.left < 0:
            return ""
        raw = self.game.raw
        steps = len(self.game.recorder.record.steps)
        if self.undone and not self.checked:
            state, before_steps = self.before
            assert raw.state_dict() == state and steps == before_steps
            self.checked = True
        if not in_selection(raw) and raw.current_seat == self.game.seat:
            self.before = (raw.state_dict(), steps)
        elif in_selection(raw) and not self.undone:
            self.undone = True
            return "undo\n"
        return "1\n"


@pytest.mark.parametrize("game", ["tip_of_the_diceberg", "iceberg_rummy"])
def test_undo_takes_back_the_selection(game, tmp_path):
    n, _, options = short_game(game)
    script = UndoScript()
    out = io.StringIO()
    setup = PlaySetup(game, n, 0, ["random"] * (n - 1), seed=2, options=options, record=tmp_path / "u.jsonl")
    tg = TerminalGame(setup, script, Console(out, fancy=False))
    script.game = tg
    assert tg.run() == 0
    assert script.undone and script.checked
    assert "Undone: your selection is taken back." in out.getvalue()
    assert replay(load_record(tmp_path / "u.jsonl")).checked_outcome  # the undone steps are not in the record


def test_opponents_hidden_moves_are_not_shown():
    """Others' meld composition (Diceberg) and face-down passes (Rummy) stay hidden."""
    for game, seed in (("tip_of_the_diceberg", 4), ("iceberg_rummy", 4)):
        _, _, options = short_game(game)
        n = 3  # with 3 players, player_1 passes to player_2: the person must not see that card
        out = io.StringIO()
        setup = PlaySetup(game, n, 0, ["random"] * (n - 1), seed=seed, options=options)
        tg = TerminalGame(setup, io.StringIO("1\n" * 20000), Console(out, fancy=False))
        assert tg.run() == 0
        text = out.getvalue()
        assert not re.search(r"player_\d \(random\): add (card|own die)", text)
        assert not re.search(r"player_\d \(random\): reroll power: mark", text)
        assert not re.search(r"player_\d \(random\): discard \w+ face down to player_[1-9]", text)
        if game == "iceberg_rummy":
            assert "discard a card face down to player_" in text
        else:
            assert "(random): play " in text


def test_move_menu_groups_long_lists():
    paths = {a: (("group a",) if a < 30 else ("group b", f"sub {a % 2}")) if a < 60 else () for a in range(62)}
    menu = MoveMenu(list(range(62)), lambda a: f"move {a}", paths.__getitem__, limit=10)
    entries = menu.entries()
    assert [e.label for e in entries] == [
        "group a ... (30 choices)",
        "group b ... (30 choices)",
        "move 60",
        "move 61",
    ]
    assert menu.choose(3) == 60
    assert menu.choose(2) is None and menu.title == "Your moves > group b"
    assert [e.label for e in menu.entries()] == ["sub 0 ... (15 choices)", "sub 1 ... (15 choices)"]
    assert menu.choose(2) is None
    assert menu.choose(1) == 31
    with pytest.raises(IndexError):
        menu.choose(16)
    assert menu.back() and menu.back() and not menu.back()
    flat = MoveMenu([1, 2, 3], str, lambda a: ("g",), limit=10)
    assert [e.actions for e in flat.entries()] == [(1,), (2,), (3,)]
    single = MoveMenu(list(range(12)), str, lambda a: ("one",) if a == 0 else ("many",), limit=5)
    assert single.entries()[0].label == "0" and not single.entries()[0].is_group


def test_rich_console_on_a_terminal_frames_the_table():
    out = io.StringIO()
    setup = PlaySetup("cardiceo", 2, 1, ["random"], seed=0, options={"hand_size": 5})
    tg = TerminalGame(setup, io.StringIO("1\n" * 500), Console(out, fancy=True))
    assert tg.console.fancy
    assert tg.run() == 0
    text = out.getvalue()
    assert "╭─ player_1 (you) to move" in text and "Game over after" in text


USER_AGENT = '''
import numpy as np

MOVES = []


class FirstLegal:
    """A minimal user agent: the lowest legal action (the Agent protocol, nothing inherited)."""

    name = "first_legal"
    needs_view = False
    needs_observation = False

    def reset(self, seed=None):
        pass

    def act(self, observation, view=None):
        action = int(np.flatnonzero(observation["action_mask"])[0])
        MOVES.append(action)
        return action


def make(game, num_players, seed):
    return FirstLegal()
'''


def test_a_user_agent_written_here_plays_against_a_person(monkeypatch, capsys, tmp_path):
    """``--opponents python:module:factory`` seats the user's own Agent at the table."""
    (tmp_path / "user_agent_for_play.py").write_text(USER_AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 20000))
    path = tmp_path / "game.jsonl"
    n, args, _ = short_game("cardiceo")
    argv = ["play", "cardiceo", "--players", str(n), "--seed", "2", *args]
    try:
        assert main([*argv, "--opponents", "python:user_agent_for_play:make", "--record", str(path)]) == 0
        moves = sys.modules["user_agent_for_play"].MOVES
    finally:
        sys.modules.pop("user_agent_for_play", None)
    assert re.search(r"Game (over|stopped) after \d+ decisions", capsys.readouterr().out)
    assert moves, "the user's agent never moved"
    record = load_record(path)
    assert record.header["agents"][1:] == ["python:user_agent_for_play:make"] * (n - 1)
    assert replay(record).checked_outcome
