"""Kill a league again and again, finish it, and check that its tables are those of an uninterrupted league.

    python -m ice_envs.benchmarks.league_kills [--kills 10] [--seed 0] [--workers 2] [--folder DIR]

A small league (Cardiceo, two players, five agents: ten tables) is played once without interruption,
then played again in another folder and stopped with SIGKILL ``--kills`` times before it is let
finish (a run that ends before its kill is counted, and another run is started). Every other run is
killed at a random moment; the others kill themselves inside a file write, at a chosen call of
``os.replace`` in :mod:`ice_envs.core.files` — after the new content is written and fsynced to its
temporary file, before it replaces the old file: the run's first or second table while tables are
missing, else ``league.json``, ``league.md`` or ``league.png``. After the last kill the league is run
to the end. The check:

* every table and ``league.json`` equal the uninterrupted league's, the wall times (and the
  temporary files that a kill left behind: there must be none once the league has finished) aside;
* no process of a killed league is left (each runs in a session of its own, with ``--workers``
  worker processes);
* every run exits with status 0 or is killed, and no run prints a traceback.

It prints one line per run and a summary; the exit status is 1 if any check fails.
``tests/evaluation/test_league_kills.py`` runs a small campaign of it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ice_envs.core.files import load_json

#: The league of the campaign: ten tables of a second or two each.
CONFIG = {
    "game": "cardiceo",
    "players": 2,
    "options": {"hand_size": 5},
    "agents": {
        "random": "random",
        "greedy": "greedy",
        "greedy2": "greedy:samples=2",
        "heuristic": "heuristic",
        "mcts": "mcts:sims=8",
    },
    "games_per_table": 16,
    "seed": 5,
}

#: Runs the league; with KILL_AT_REPLACE=N the process SIGKILLs itself at the N-th os.replace of
#: ice_envs.core.files (its temporary file written and fsynced, the target not yet replaced).
DRIVER = """
import os, signal, sys
import ice_envs.core.files as files
target = int(os.environ.get("KILL_AT_REPLACE", "0"))
if target:
    real, calls = files.os.replace, [0]

    class _Os:
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def replace(src, dst):
            calls[0] += 1
            if calls[0] == target:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(src, dst)

    files.os = _Os()
from ice_envs.cli import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass
class Campaign:
    """What a campaign saw."""

    kills: int = 0
    kills_in_writes: int = 0
    kills_at_random: int = 0
    temporary_files_left_by_kills: int = 0
    runs_finished_before_their_kill: int = 0
    problems: list[str] = field(default_factory=list)


def league_command(config: Path, out: Path, workers: int) -> list[str]:
    return [sys.executable, "-c", DRIVER, "league", str(config), "--out", str(out), "--workers", str(workers)]


def start(config: Path, out: Path, workers: int, kill_at_replace: int = 0) -> subprocess.Popen[str]:
    env = {**os.environ, "KILL_AT_REPLACE": str(kill_at_replace)}
    return subprocess.Popen(
        [*league_command(config, out, workers), "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group: what is left of it after a kill can be found
    )


def survivors(pgid: int) -> list[int]:
    """Processes still in the process group ``pgid`` (a killed league's workers, if they outlived it)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[2]) == pgid and stat[0] != "Z":
                alive.append(int(entry.name))
    return alive


def wait_for_group(pgid: int, seconds: float = 10.0) -> list[int]:
    """The processes of group ``pgid`` still alive after up to ``seconds`` (workers notice their parent's death)."""
    deadline = time.monotonic() + seconds
    while (alive := survivors(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def comparable(out: Path) -> dict[str, Any]:
    """The league's tables and league.json, without the fields that describe the run (wall times, machine)."""
    tables = {}
    for path in sorted((out / "tables").iterdir()):
        data = load_json(path, what="league table", max_bytes=64 << 20, limit=64)
        if isinstance(data, dict):
            data.pop("wall_seconds", None)
        tables[path.name] = data
    report = load_json(out / "league.json", what="league report", max_bytes=64 << 20, limit=64)
    for table in report.get("tables", []):
        table.pop("wall_seconds", None)
    for key in ("machine", "tables_played", "tables_reused"):  # the run, not the league
        report.pop(key, None)
    return {"tables": tables, "league.json": report}


def temporary_files(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob(".*.tmp"))


def table_count(out: Path) -> int:
    return len(list((out / "tables").glob("*.json"))) if (out / "tables").is_dir() else 0


def run_campaign(
    kills: int, seed: int, workers: int, folder: Path, echo: Any = print, games_per_table: int | None = None
) -> Campaign:
    """The campaign (see the module docstring) in ``folder``; its counts and the problems found.

    Each killed run is aimed at the work still left: a kill inside a write picks the run's first or
    second table write while tables are missing, else one of the three report files; a kill at a random
    moment comes within the run's start-up time plus two tables' time, as the uninterrupted league
    measured them.
    """
    rng = random.Random(seed)
    config = folder / "league.yaml"
    config.write_text(
        json.dumps({**CONFIG, **({} if games_per_table is None else {"games_per_table": games_per_table})})
    )
    reference, killed = folder / "reference", folder / "killed"
    t0 = time.perf_counter()
    done = subprocess.run(
        [*league_command(config, reference, workers), "--no-progress"], capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    result = Campaign()
    if done.returncode != 0:
        result.problems.append(f"the uninterrupted league failed: {done.stderr.strip()[-300:]}")
        return result
    total_tables = table_count(reference)
    table_seconds = [t["wall_seconds"] for t in load_json(reference / "league.json", what="league report")["tables"]]
    startup = max(0.0, wall - sum(table_seconds))
    per_table = sum(table_seconds) / max(1, len(table_seconds))
    for k in range(3 * kills):  # a run may finish before its kill: go on until ``kills`` kills
        if result.kills >= kills:
            break
        in_write = k % 2 == 0
        tables_left = total_tables - table_count(killed)
        # the run's first or second table write while tables are missing, else one of the three report files
        at = rng.randint(1, min(2, tables_left)) if tables_left else rng.randint(1, 3)
        proc = start(config, killed, workers, kill_at_replace=at if in_write else 0)
        if not in_write:
            try:
                proc.wait(timeout=rng.uniform(0.5 * startup, startup + 2 * per_table))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        status = proc.wait()
        err = proc.stderr.read() if proc.stderr else ""
        if "Traceback" in err:
            result.problems.append(f"run {k + 1}: a traceback: {err.strip()[-300:]}")
        alive = wait_for_group(proc.pid)
        if alive:
            result.problems.append(f"run {k + 1}: processes {alive} outlived the killed league")
            for pid in alive:
                os.kill(pid, signal.SIGKILL)
        left = temporary_files(killed) if killed.exists() else []
        if status == -signal.SIGKILL:
            result.kills += 1
            result.kills_in_writes += in_write
            result.kills_at_random += not in_write
            result.temporary_files_left_by_kills += len(left)
        elif status == 0:
            result.runs_finished_before_their_kill += 1
        else:
            result.problems.append(f"run {k + 1}: the league exited with status {status}: {err.strip()[-300:]}")
        how = "inside a write" if in_write else "at a random moment"
        echo(
            f"run {k + 1}, kill {result.kills}/{kills} {how}: status {status}, {table_count(killed)}/{total_tables} tables, "
            f"temporary files left: {left}"
        )
    final = subprocess.run([*league_command(config, killed, workers), "--no-progress"], capture_output=True, text=True)
    if final.returncode != 0:
        result.problems.append(f"the league did not finish after the kills: {final.stderr.strip()[-300:]}")
        return result
    if comparable(killed) != comparable(reference):
        result.problems.append("the tables or league.json differ from the uninterrupted league's")
    if temporary_files(killed):
        result.problems.append(f"temporary files left after the league finished: {temporary_files(killed)}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games-per-table", type=int, default=None, help=f"default {CONFIG['games_per_table']}")
    parser.add_argument("--folder", type=Path, default=None, help="where the leagues are played (default: a temp dir)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        result = run_campaign(args.kills, args.seed, args.workers, folder, games_per_table=args.games_per_table)
    print(
        f"{result.kills} kills ({result.kills_in_writes} inside a write, {result.kills_at_random} at a random moment; "
        f"{result.runs_finished_before_their_kill} run(s) finished before their kill), "
        f"{result.temporary_files_left_by_kills} temporary file(s) left by kills and cleared; "
        + ("final tables identical to the uninterrupted league's" if not result.problems else "PROBLEMS:")
    )
    for problem in result.problems:
        print(f"  {problem}")
    return 1 if result.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
