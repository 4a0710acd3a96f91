"""Every kind of input file, made hostile, is one error line naming the file (status 2), at once.

Four hostile files — a 342-byte YAML alias bomb (a billion values once expanded), ``/dev/zero``, a FIFO
with no writer and a 50 MB file — are given as each kind of file a user hands ice-envs, through the
real command lines: a training config, a league config, an agent checkpoint (evaluate and league), a
game record, a map, a catalog, and the files of a run that ``--resume`` reads (``config.yaml``,
``meta.json``). A read that hangs (a FIFO opened for reading) fails the test through an alarm instead
of hanging it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ice_envs.cli import main

ROOT = Path(__file__).resolve().parents[2]
LEVELS = "abcdefghi"
#: Nine levels of nine: 9**9 = 387,420,489 strings once every alias is expanded.
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in zip(LEVELS, LEVELS[1:])
)
HOSTILE = ("alias-bomb", "dev-zero", "fifo", "50MB")
EVAL = ["evaluate", "cardiceo", "--players", "2", "--games", "2", "--no-progress"]


def make_hostile(kind: str, path: Path) -> Path:
    """``path`` made into the hostile file ``kind`` (``/dev/zero`` as a symbolic link to it)."""
    if kind == "alias-bomb":
        path.write_text(ALIAS_BOMB)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        with open(path, "wb") as handle:
            handle.truncate(50 << 20)
    return path


@contextlib.contextmanager
def alarm(seconds: int) -> Iterator[None]:
    """Fail instead of hanging (a FIFO read blocks until a writer comes)."""

    def hung(*_args: object) -> None:
        raise AssertionError(f"no answer within {seconds} s: the read hangs")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with alarm(60), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    return status, err.getvalue()


def league_config(tmp: Path, agent: str | None = None) -> Path:
    path = tmp / "agent_league.yaml"
    agents = {"a": "random", "b": agent or "greedy"}
    path.write_text(json.dumps({"game": "cardiceo", "players": 2, "agents": agents, "games_per_table": 2, "seed": 0}))
    return path


#: kind of file -> (its file name, the command line given the hostile file's path and the tmp folder)
INPUTS: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    "training-config": ("config.yaml", lambda f, tmp: ["train", str(f), "--print-config"]),
    "league-config": ("league.yaml", lambda f, tmp: ["league", str(f), "--out", str(tmp / "out"), "--no-progress"]),
    "ppo-checkpoint": ("agent.zip", lambda f, tmp: [*EVAL, "--agents", f"ppo:{f},random", "--out", str(tmp / "out")]),
    "ppo-policy": ("agent.npz", lambda f, tmp: [*EVAL, "--agents", f"ppo:{f},random", "--out", str(tmp / "out")]),
    "rllib-policy": ("agent.npz", lambda f, tmp: [*EVAL, "--agents", f"rllib:{f},random", "--out", str(tmp / "out")]),
    "league-agent": (
        "agent.zip",
        lambda f, tmp: ["league", str(league_config(tmp, f"ppo:{f}")), "--out", str(tmp / "out"), "--no-progress"],
    ),
    "record": ("game.jsonl", lambda f, tmp: ["replay", str(f), "--out", str(tmp / "frames")]),
    "map": ("map.txt", lambda f, tmp: ["demo", "icebergs", "--option", f"map={f}"]),
    "catalog": ("catalog.json", lambda f, tmp: ["demo", "tip_of_the_diceberg", "--option", f"catalog={f}"]),
}


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("kind", list(INPUTS))
def test_a_hostile_input_file_is_one_line_naming_it(kind: str, hostile: str, tmp_path: Path) -> None:
    name, argv = INPUTS[kind]
    path = make_hostile(hostile, tmp_path / name)
    status, err = run_cli(argv(path, tmp_path))
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("ice-envs: error: "), err
    assert str(path) in lines[0], err
    assert not (tmp_path / "out" / "tables").exists()  # nothing was played


#: A training run small enough for a test: checkpoints at 256 and 512 steps of 512.
TINY_RUN = [
    "--set",
    "total_timesteps=512",
    "--set",
    "checkpoint_every=256",
    "--set",
    "eval.every=256",
    "--set",
    "eval.games=2",
    "--set",
    "eval.final_games=2",
    "--set",
    "vec_env=dummy",
    "--set",
    "opponents.mix={random: 1.0}",
    "--set",
    "ppo.n_steps=128",
    "--set",
    "ppo.batch_size=64",
    "--set",
    "ppo.n_epochs=1",
    "--set",
    "curves=false",
]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny training run (its config.yaml and meta.json are what --resume reads first)."""
    folder = tmp_path_factory.mktemp("run")
    run_dir = folder / "run-seed0"
    smoke = str(ROOT / "ice_envs" / "cardiceo" / "smoke.yaml")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["train", smoke, *TINY_RUN, "--set", f"out_dir={folder}", "--set", "name=run"]) == 0
    return run_dir


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("name", ["config.yaml", "meta.json"])
def test_a_hostile_run_file_on_resume_is_named_in_one_line_and_the_run_goes_on(
    finished_run: Path, name: str, hostile: str, tmp_path: Path
) -> None:
    """A run's own config.yaml or meta.json that cannot be read is named in one line, never read whole or
    waited on: the config comes from the checkpoint (which records it), meta.json starts a new record."""
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir, symlinks=True)
    (run_dir / name).unlink()
    make_hostile(hostile, run_dir / name)
    out = io.StringIO()
    with alarm(60), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(["train", "--resume", str(run_dir), "--set", "total_timesteps=768"])
    named = [line for line in out.getvalue().splitlines() if str(run_dir / name) in line]
    assert status == 0 and len(named) == 1, out.getvalue()
    assert (run_dir / "checkpoints" / "step_000000000768.zip").is_file()  # it trained on to the new total
    assert (run_dir / name).is_file() and not (run_dir / name).is_symlink()  # written anew, atomically
