"""Kill a smoke training run at random moments and check that ``--resume`` finishes it exactly.

    python -m tests.train.crash_campaign --kills 30 --out /tmp/crash [--seed 0]

A reference run trains uninterrupted. Each trial then starts the same run in a fresh directory,
SIGKILLs the learner process (only it: its env workers must end by themselves) at a random
moment, resumes it with ``python -m ice_envs.train --resume RUN`` (killing that session too,
now and then), and lets the last session finish. Kill moments are of three kinds:

* ``random``: a uniformly random time after the session started;
* ``write``: after a random delay, the first moment a temporary file of an atomic write (a
  checkpoint's ``.zip`` or ``.state.json``, ``meta.json``, ``config.yaml``, ``final.zip``...)
  is seen in the run directory, i.e. inside that write;
* ``checkpoint``: the moment a new checkpoint is complete.

A trial passes when the finished run's final weights (every tensor of ``final.zip``'s policy and
optimizer, every array of ``final.npz``), its ``evaluations.jsonl`` (byte for byte, its own
directory's path aside) and its final results equal the reference's, no session but the killed
ones failed or printed a traceback, and no process of a killed session outlived it by more
than :data:`LEFTOVER_SECONDS`. ``tests/train/test_crash_campaign.py`` runs a few kills in CI;
the module's ``main`` runs a campaign of any size and prints the counts.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
#: Seconds a killed learner's processes (env workers, the forkserver) may take to end by themselves.
LEFTOVER_SECONDS = 10.0
#: Seconds any one session may run.
SESSION_TIMEOUT = 600.0
KINDS = ("random", "write", "checkpoint")

#: The smoke run: Cardiceo with 2 players, 2 envs in a worker process, self-play snapshots and a
#: promotion check, evaluations during training, a checkpoint every 128 steps and a final evaluation.
SMOKE: dict[str, Any] = {
    "name": "crash",
    "game": {"name": "cardiceo", "players": 2, "options": {"hand_size": 5}},
    "opponents": {
        "mix": {"random": 0.5, "self_play": 0.5},
        "self_play": {"check_every": 256, "games": 6, "pool_size": 2},
    },
    "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 2, "net_arch": [16, 16]},
    "n_envs": 2,
    "vec_env": "subproc",
    "env_processes": 1,
    "total_timesteps": 640,
    "eval": {"every": 192, "games": 6, "against": ["random"], "final_games": 8},
    "checkpoint_every": 128,
    "seed": 5,
    "torch_threads": 1,
    "curves": False,
}


@dataclass
class Runner:
    """How to start training sessions: the command's prefix and its environment."""

    prefix: list[str] = field(default_factory=lambda: [sys.executable, "-m", "ice_envs.train"])
    env: dict[str, str] | None = None

    def train(self, config: Path, run_dir: Path) -> list[str]:
        return [*self.prefix, str(config), "--run-dir", str(run_dir), "--quiet"]

    def resume(self, run_dir: Path) -> list[str]:
        return [*self.prefix, "--resume", str(run_dir), "--quiet"]


@dataclass
class Session:
    """One training session: how it ended."""

    killed: bool
    kind: str
    returncode: int | None
    stderr: str
    leftovers: list[int]


def session_processes(sid: int) -> list[int]:
    """The processes of session ``sid`` (a session started with ``start_new_session``: all its descendants)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != b"Z":  # field 6 of stat: the session id; zombies are gone
            found.append(int(entry.name))
    return found


def _temporary_file(run_dir: Path) -> str | None:
    """The name of a temporary file of an atomic write in progress in the run directory (``.<name>.<x>.tmp``)."""
    for folder in (run_dir, run_dir / "checkpoints"):
        try:
            with os.scandir(folder) as entries:
                for e in entries:
                    if e.name.startswith(".") and e.name.endswith(".tmp"):
                        return re.sub(r"\d{12}", "N", e.name[1:].rsplit(".", 2)[0])
        except OSError:
            pass
    return None


def _complete_checkpoints(run_dir: Path) -> int:
    try:
        return sum(1 for p in (run_dir / "checkpoints").iterdir() if p.name.endswith(".state.json"))
    except OSError:
        return 0


def run_session(command: list[str], runner: Runner, run_dir: Path, kind: str | None, delay: float) -> Session:
    """Run one session; with ``kind``, SIGKILL its learner at that kind of moment (``delay`` s at the earliest)."""
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(
            command, stdout=devnull, stderr=subprocess.PIPE, env=runner.env, cwd=REPO, start_new_session=True
        )
        start = time.monotonic()
        stderr_chunks: list[bytes] = []
        killed = False
        try:
            if kind is not None:
                checkpoints = _complete_checkpoints(run_dir)
                while proc.poll() is None and time.monotonic() - start < SESSION_TIMEOUT:
                    due = time.monotonic() - start >= delay
                    writing = _temporary_file(run_dir) if kind == "write" and due else None
                    if (
                        (kind == "random" and due)
                        or writing is not None
                        or (kind == "checkpoint" and _complete_checkpoints(run_dir) > checkpoints)
                    ):
                        os.kill(proc.pid, signal.SIGKILL)
                        killed = True
                        if writing is not None:
                            kind = f"write:{writing}"
                        break
                    time.sleep(0.001 if kind != "random" else 0.01)
            _, err = proc.communicate(timeout=SESSION_TIMEOUT)
            stderr_chunks.append(err or b"")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    leftovers = _wait_for_session_end(proc.pid)
    return Session(killed and proc.returncode == -signal.SIGKILL, kind or "none", proc.returncode,
                   b"".join(stderr_chunks).decode(errors="replace"), leftovers)  # fmt: skip


def _wait_for_session_end(sid: int) -> list[int]:
    """The processes of session ``sid`` still there after :data:`LEFTOVER_SECONDS` (then ended here)."""
    deadline = time.monotonic() + LEFTOVER_SECONDS
    while time.monotonic() < deadline:
        alive = session_processes(sid)
        if not alive:
            return []
        time.sleep(0.1)
    alive = session_processes(sid)
    for pid in alive:  # processes this campaign started: end them so that none is left behind
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return alive


def fingerprint(run_dir: Path) -> dict[str, Any]:
    """What must be identical to the reference: final weights, ``evaluations.jsonl``, final results."""
    import numpy as np
    import torch

    digest = hashlib.sha256()
    with zipfile.ZipFile(run_dir / "final.zip") as archive:
        for name in sorted(n for n in archive.namelist() if n.endswith(".pth") and "variables" not in n):
            tensors = torch.load(io.BytesIO(archive.read(name)), map_location="cpu", weights_only=True)
            for key, value in sorted(_flatten(tensors, name)):
                digest.update(key.encode() + value)
    with np.load(run_dir / "final.npz", allow_pickle=False) as npz:
        for key in sorted(npz.files):
            digest.update(key.encode() + np.ascontiguousarray(npz[key]).tobytes())
    evaluations = (run_dir / "evaluations.jsonl").read_bytes().replace(str(run_dir).encode(), b"RUN")
    report = json.loads((run_dir / "evaluation.json").read_text())
    results = {k: {kk: vv for kk, vv in v.items() if kk != "command"} for k, v in report["results"].items()}
    return {"weights": digest.hexdigest(), "evaluations": evaluations, "results": results}


def _flatten(value: Any, prefix: str) -> list[tuple[str, bytes]]:
    import torch

    if isinstance(value, torch.Tensor):
        return [(prefix, value.contiguous().numpy().tobytes())]
    if isinstance(value, dict):
        return [item for k, v in value.items() for item in _flatten(v, f"{prefix}.{k}")]
    if isinstance(value, (list, tuple)):
        return [item for i, v in enumerate(value) for item in _flatten(v, f"{prefix}[{i}]")]
    return [(prefix, repr(value).encode())]


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return [key for key in a if a[key] != b[key]]


@dataclass
class Trial:
    """One run killed ``len(kills)`` times and resumed to its end."""

    kills: list[str]
    problems: list[str]
    #: Kills that came after the run had finished (its last file written): not counted as kills.
    late: int = 0


def reference(out: Path, config: Path, runner: Runner) -> tuple[dict[str, Any], float]:
    """The uninterrupted run's fingerprint and how long its session took."""
    run_dir = out / "reference"
    start = time.monotonic()
    session = run_session(runner.train(config, run_dir), runner, run_dir, None, 0.0)
    if session.returncode != 0:
        raise RuntimeError(f"the reference run failed:\n{session.stderr[-3000:]}")
    return fingerprint(run_dir), time.monotonic() - start


def trial(
    out: Path,
    name: str,
    config: Path,
    runner: Runner,
    ref: dict[str, Any],
    kinds: list[str],
    span: float,
    rng: random.Random,
) -> Trial:
    """Start the run, kill its sessions at moments of ``kinds`` (one per session), resume it to its end, compare."""
    run_dir = out / name
    kills: list[str] = []
    problems: list[str] = []
    sessions = late = 0
    for kind in [*kinds, None]:
        if sessions and not (run_dir / "config.yaml").is_file():  # killed before its config was written:
            command = runner.train(config, run_dir)  # the run never started, start it as the user would
        else:
            command = runner.resume(run_dir) if sessions else runner.train(config, run_dir)
        session = run_session(command, runner, run_dir, kind, rng.uniform(0.0, span))
        sessions += 1
        if session.leftovers:
            problems.append(f"{len(session.leftovers)} process(es) outlived the killed learner ({kind})")
        if "Traceback" in session.stderr:
            problems.append(f"a traceback ({kind}): {session.stderr[-2000:]}")
        if session.killed and _finished(run_dir):  # the kill came after the run's last write: it is done
            late += 1
            break
        if session.killed:
            kills.append(session.kind)
            continue
        if session.returncode != 0:
            problems.append(f"a session failed (status {session.returncode}): {session.stderr[-1500:]}")
        break
    else:  # pragma: no cover - the last session runs without a kill
        pass
    if not problems:
        try:
            got = fingerprint(run_dir)
        except (OSError, KeyError, ValueError) as exc:
            problems.append(f"no finished run to compare: {exc}")
        else:
            problems += [f"{key} differ from the uninterrupted run's" for key in differences(ref, got)]
    if not problems:
        shutil.rmtree(run_dir, ignore_errors=True)
    return Trial(kills, problems, late)


def _finished(run_dir: Path) -> bool:
    """Whether the run's last session recorded its end in ``meta.json`` (its last write)."""
    try:
        sessions = json.loads((run_dir / "meta.json").read_text())["sessions"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return bool(sessions) and "finished" in sessions[-1]


def campaign(
    kills: int, out: Path, seed: int = 0, config: dict[str, Any] | None = None, runner: Runner | None = None,
    kinds: tuple[str, ...] = KINDS, log: Any = print,
) -> dict[str, Any]:  # fmt: skip
    """Kill smoke runs until ``kills`` kills landed; returns the counts (``failed`` lists the trials that failed)."""
    runner = runner or Runner()
    out.mkdir(parents=True, exist_ok=True)
    config_path = out / "config.yaml"
    config_path.write_text(yaml.safe_dump(config or SMOKE, sort_keys=False))
    ref, span = reference(out, config_path, runner)
    log(f"reference run: {span:.1f} s")
    rng = random.Random(seed)
    counts: dict[str, Any] = {
        "kills": 0,
        "by_kind": dict.fromkeys(kinds, 0),
        "late_kills": 0,
        "trials": 0,
        "passed": 0,
        "failed": [],
    }
    while counts["kills"] < kills:
        planned = [rng.choice(kinds) for _ in range(rng.randint(1, 3))]
        result = trial(out, f"trial-{counts['trials']:03d}", config_path, runner, ref, planned, span, rng)
        counts["trials"] += 1
        counts["kills"] += len(result.kills)
        counts["late_kills"] += result.late
        for kind in result.kills:
            counts["by_kind"][kind.partition(":")[0]] += 1
            if kind.startswith("write:"):
                counts.setdefault("writes", {}).setdefault(kind[6:], 0)
                counts["writes"][kind[6:]] += 1
        if result.problems:
            counts["failed"].append({"trial": counts["trials"] - 1, "kills": result.kills, "problems": result.problems})
        else:
            counts["passed"] += 1
        log(
            f"trial {counts['trials'] - 1}: kills {result.kills or 'none'}: {'; '.join(result.problems) or 'identical'}"
        )
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=30, help="kills to land (default 30)")
    parser.add_argument("--out", type=Path, required=True, help="a folder for the runs (failed trials are kept)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"kinds of kill moments (default {','.join(KINDS)})")
    args = parser.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    if not kinds or set(kinds) - set(KINDS):
        parser.error(f"--kinds: choose from {', '.join(KINDS)}")
    counts = campaign(args.kills, args.out, args.seed, kinds=kinds)
    print(json.dumps(counts, indent=2))
    return 0 if not counts["failed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
