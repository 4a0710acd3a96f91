"""Agents decide the same on any CPU: one CubeMelt evaluation, re-run with numpy's SIMD dispatch cut
down to its baseline and OpenBLAS on another kernel, gives the identical report.

The CubeMelt heuristic's values come from ``exp`` and matrix products, whose last bits differ between
those code paths; before its values were quantised, the two runs differed by a few wins in 2000 games.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: numpy's dispatch targets above its x86-64 baseline, and an older OpenBLAS kernel.
REDUCED = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR", "OPENBLAS_CORETYPE": "Haswell"}
GAMES = 150


def _evaluate(out, extra_env: dict[str, str]) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in REDUCED}
    env.update(extra_env)
    command = [sys.executable, "-m", "ice_envs.cli", "evaluate", "cubemelt", "--players", "3"]
    command += ["--agents", "heuristic,heuristic,ppo:checkpoints/cubemelt_ppo/final.npz?players=any"]
    command += ["--games", str(GAMES), "--seed", "0", "--no-progress", "--out", str(out)]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _report(out) -> dict:
    data = json.loads((out / "evaluation.json").read_text())
    return {k: data[k] for k in ("per_agent", "win_rate_by_seat", "mean_decisions", "games")}


@pytest.mark.skipif(sys.platform != "linux" or os.uname().machine != "x86_64", reason="x86-64 dispatch targets")
def test_a_cubemelt_evaluation_is_identical_with_reduced_simd_and_blas(tmp_path) -> None:
    runs = {"full": _evaluate(tmp_path / "full", {}), "reduced": _evaluate(tmp_path / "reduced", REDUCED)}
    for name, proc in runs.items():
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{name}: {err}"
    full, reduced = _report(tmp_path / "full"), _report(tmp_path / "reduced")
    machine = json.loads((tmp_path / "reduced" / "evaluation.json").read_text())["machine"]
    assert machine["numeric_environment"] == REDUCED  # the reduced run did run reduced
    assert full == reduced
