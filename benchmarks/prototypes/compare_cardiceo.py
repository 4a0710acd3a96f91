"""The compiled-engine prototype: Cardiceo's step loop in numba (the shipped engine) and in plain C, side by side.

Builds ``cardiceo.c`` with the system's C compiler into a temporary folder, checks that both
candidates produce identical batches (observations, masks, seats, rewards, ends) from the same
streams and actions, then measures random play at several batch sizes, alternating the two
candidates in slices, in decisions per CPU-second of this process:

* ``numba engine``: :class:`ice_envs.cardiceo.compiled.CardiceoCompiled` through its public
  ``step`` (argument checks and the ``info`` arrays included);
* ``numba loop`` / ``C loop``: the bare compiled step loop of each candidate on the same buffers.

Actions come from :func:`ice_envs.core.vector.random_actions`, drawn inside the timed loop (the same cost for every
candidate).

    python benchmarks/prototypes/compare_cardiceo.py [--seconds 2] [--players 4]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ice_envs.cardiceo.compiled import CardiceoCompiled
from ice_envs.core.vector import random_actions

HERE = Path(__file__).resolve().parent
BATCHES = (1, 64, 1024, 8192)


def build_c(folder: Path) -> ctypes.CDLL:
    """``cardiceo.c`` compiled with ``cc -O2`` (the same flags numba's LLVM is compared against)."""
    lib = folder / "cardiceo_proto.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(HERE / "cardiceo.c")], check=True)
    return ctypes.CDLL(str(lib))


def ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


class CBatch:
    """The C candidate's buffers, started from a numba engine's state and streams."""

    def __init__(self, lib: ctypes.CDLL, engine: CardiceoCompiled) -> None:
        self.lib, self.n, p, d = lib, engine.num_envs, engine.num_players, engine.obs_dim
        self.state = engine.state.copy()
        self.rng = engine._rng[:, :2].copy()
        self.cfg = engine._cfg.copy()
        self.max_length = engine.max_game_length
        self.num_steps = engine.num_steps.copy()
        self.last_scores = engine.last_scores.copy()
        self.mask, self.seat, self.obs = engine.mask.copy(), engine.seat.copy(), engine.obs.copy()
        self.rewards = np.zeros((self.n, p))
        self.terminated = np.zeros(self.n, np.uint8)
        self.truncated = np.zeros(self.n, np.uint8)
        self.fin_index = np.zeros(self.n, np.int64)
        self.fin_obs = np.zeros((self.n, p, d), np.float32)
        self.fin_rewards = np.zeros((self.n, p))
        self.fin_scores = np.zeros((self.n, p))
        self.fin_outcome = np.zeros((self.n, p))
        self.fin_length = np.zeros(self.n, np.int64)
        self.args = [
            ptr(self.state), ptr(self.rng), ptr(self.cfg), ctypes.c_int64(self.max_length), ptr(self.num_steps),
            ptr(self.last_scores), ptr(self.mask), ptr(self.seat), ptr(self.obs), ctypes.c_int(d), ptr(self.rewards),
            ptr(self.terminated), ptr(self.truncated), ptr(self.fin_index), ptr(self.fin_obs), ptr(self.fin_rewards),
            ptr(self.fin_scores), ptr(self.fin_outcome), ptr(self.fin_length),
        ]  # fmt: skip

    def step(self, actions: np.ndarray) -> int:
        return self.lib.step_all(ctypes.c_int(self.n), ptr(actions), *self.args)


def numba_loop(engine: CardiceoCompiled):
    """The bare numba step loop of ``engine`` (no argument checks, no ``info``)."""
    active = np.ones(engine.num_envs, dtype=bool)
    return lambda actions: engine._run_step(actions, active)


def check_identical(lib: ctypes.CDLL, players: int, steps: int = 3000) -> int:
    """Both candidates from the same start and actions: identical batches at every step; returns games ended."""
    engine = CardiceoCompiled(64, players, seed=7, copy=False)
    engine.reset()
    c = CBatch(lib, engine)
    rng = np.random.default_rng(1)
    ended = 0
    for t in range(steps):
        actions = random_actions(engine.mask, rng).astype(np.int64)
        _, _, _, rewards, terminated, truncated, info = engine.step(actions)
        k = c.step(actions)
        same = (
            np.array_equal(engine.obs, c.obs)
            and np.array_equal(engine.mask, c.mask)
            and np.array_equal(engine.seat, c.seat)
            and np.array_equal(rewards, c.rewards)
            and np.array_equal(terminated, c.terminated.astype(bool))
            and np.array_equal(info["final_obs"], c.fin_obs[:k])
        )
        if not same:
            raise AssertionError(f"the C and numba candidates differ at step {t}")
        ended += k
    return ended


def measure(seconds: float, players: int, lib: ctypes.CDLL) -> list[dict[str, float]]:
    rows = []
    for batch in BATCHES:
        engines = {name: CardiceoCompiled(batch, players, seed=0, copy=False) for name in ("engine", "loop", "c")}
        for e in engines.values():
            e.reset()
        c = CBatch(lib, engines["c"])
        candidates = {
            "numba engine": lambda a, e=engines["engine"]: e.step(a),
            "numba loop": numba_loop(engines["loop"]),
            "C loop": c.step,
        }
        masks = {"numba engine": engines["engine"].mask, "numba loop": engines["loop"].mask, "C loop": c.mask}
        spent = dict.fromkeys(candidates, 0.0)
        done = dict.fromkeys(candidates, 0)
        rng = np.random.default_rng(0)
        while min(spent.values()) < seconds:
            for name, step in candidates.items():
                mask = masks[name]  # each candidate steps its own buffers in place
                start = time.process_time()
                slice_end = start + 0.1
                while True:
                    step(random_actions(mask, rng).astype(np.int64))
                    done[name] += batch
                    now = time.process_time()
                    if now >= slice_end:
                        break
                spent[name] += now - start
        row = {"batch": batch}
        row.update({name: done[name] / spent[name] for name in candidates})
        rows.append(row)
        print(json.dumps(row))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per candidate and batch size")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        lib = build_c(Path(folder))
        lib.step_all.restype = ctypes.c_int
        ended = check_identical(lib, args.players)
        print(f"identical batches over 3000 steps of 64 games ({ended} games ended)")
        measure(args.seconds, args.players, lib)
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
