"""The batched table: every batched engine at batch 1, 64, 1024 and 8192, beside the scalar env and PGX, in one run.

    python -m ice_envs.benchmarks.batched [--games cardiceo cubemelt] [--seconds 2] [--players 4]
                                          [--batches 1 64 1024 8192] [--no-pgx] [--out DIR]

Subjects, each a loop of random legal play that counts decisions:

* every game's batched engines (:mod:`ice_envs.core.vector`), each kind it has (``compiled``:
  :mod:`ice_envs.core.compiled`; ``numpy``), at each batch size: a uniformly random legal action per
  game chosen from the mask (:func:`ice_envs.core.vector.sample_legal`, inside the timed loop),
  then ``step`` (finished games restart inside it; observations, masks and ``info`` built every step);
* every game's scalar ``raw_env()`` (``env.last()``, a random legal action, ``env.step``), and the
  floor env (the API's own cost: one legal action, nothing else);
* the peers, where ``pip install pgx`` installed them: PGX's ``leduc_holdem`` and ``connect_four``
  on the CPU, ``jax.jit(jax.vmap(step))`` with auto-reset and the random legal action drawn inside
  the same compiled function (PGX's own benchmark loop), at the same batch sizes.

Every subject is timed in CPU seconds of this process (``time.process_time``: all its threads, so
a multi-threaded peer is charged for every core it uses) in slices of ``--slice`` seconds, taken in
turn until each subject has ``--seconds`` in all: a busy machine slows every subject alike, and the
load average before and after is recorded. Figures are decisions per CPU-second. It is a benchmark,
not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.benchmarks.random_play import play_aec
from ice_envs.core import floor

DEFAULT_OUT = Path("benchmarks/results")
BATCH_SIZES = (1, 64, 1024, 8192)
PGX_GAMES = ("leduc_holdem", "connect_four")

#: A subject's slice: run it until at least ``seconds`` of CPU time passed, return the decisions made.
Slice = Callable[[float], int]


@dataclass
class Row:
    """One subject's total over its slices."""

    subject: str
    kind: str  # compiled / numpy / raw_env / floor / pgx
    game: str
    players: int
    batch: int
    decisions: int = 0
    cpu_seconds: float = 0.0
    slices: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def per_cpu_second(self) -> float:
        return self.decisions / self.cpu_seconds if self.cpu_seconds else float("nan")


def batched_slice(game: str, kind: str, players: int, batch: int, seed: int) -> tuple[Slice, dict[str, Any]]:
    """A batched engine of ``kind`` playing random legal actions."""
    from ice_envs.core.vector import make, sample_legal

    engine = make(game, batch, players, seed=seed, copy=False, engine=kind)
    rng = np.random.default_rng(seed)
    engine.reset()
    engine.step(sample_legal(engine.mask, rng))  # compile / warm up outside the clock

    def run(seconds: float) -> int:
        done = 0
        end = time.process_time() + seconds
        while True:
            engine.step(sample_legal(engine.mask, rng))
            done += batch
            if time.process_time() >= end:
                return done

    return run, {"bytes_per_game": engine.bytes_per_game}


def aec_slice(make: Callable[[], Any], seed: int) -> Slice:
    """Random legal play of an AEC env, game after game."""
    env = make()
    rng = np.random.default_rng(seed)
    games = [0]

    def run(seconds: float) -> int:
        done = 0
        end = time.process_time() + seconds
        while time.process_time() < end:
            env.reset(seed=seed + games[0])
            games[0] += 1
            done += play_aec(env, rng)
        return done

    return run


def pgx_slice(name: str, batch: int, seed: int) -> Slice:
    """PGX's ``name`` on the CPU: vmapped, jitted step with auto-reset and random legal actions, one call per step."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name)

    def act_and_step(state: Any, key: Any) -> tuple[Any, Any]:
        key, pick, reset_key = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(pick, logits, axis=-1)
        keys = jax.random.split(reset_key, batch)
        return jax.vmap(auto_reset(env.step, env.init))(state, action, keys), key

    step = jax.jit(act_and_step)
    key = jax.random.PRNGKey(seed)
    key, init_key = jax.random.split(key)
    box = {"state": jax.jit(jax.vmap(env.init))(jax.random.split(init_key, batch)), "key": key}
    box["state"], box["key"] = step(box["state"], box["key"])  # compile outside the clock
    jax.block_until_ready(box["state"])

    def run(seconds: float) -> int:
        done = 0
        end = time.process_time() + seconds
        while True:
            box["state"], box["key"] = step(box["state"], box["key"])
            jax.block_until_ready(box["state"].legal_action_mask)
            done += batch
            if time.process_time() >= end:
                return done

    return run


def subjects(
    games: list[str], players: int, batches: tuple[int, ...], seed: int, with_pgx: bool
) -> tuple[list[tuple[Row, Slice]], list[str]]:
    """Every subject of the table (built and warmed up) and the peers skipped, with why."""
    out: list[tuple[Row, Slice]] = []
    skipped: list[str] = []
    out.append((Row("floor raw_env", "floor", "floor", 2, 1), aec_slice(floor.raw_env, seed)))
    for game in games:
        spec = ice_envs.get_spec(game)
        n = players if players in spec.players else spec.players[len(spec.players) // 2]
        module = spec.load()
        out.append(
            (
                Row(f"{game} raw_env", "raw_env", game, n, 1),
                aec_slice(lambda m=module, k=n: m.raw_env(num_players=k), seed),
            )
        )
        kinds = [k for k, attr in (("compiled", spec.compiled), ("numpy", spec.vector)) if attr]
        for kind in kinds:
            for batch in batches:
                run, extra = batched_slice(game, kind, n, batch, seed)
                out.append((Row(f"{game} {kind} @{batch}", kind, game, n, batch, extra=extra), run))
    if with_pgx:
        try:
            import jax

            jax.config.update("jax_platforms", "cpu")
            for name in PGX_GAMES:
                for batch in batches:
                    out.append((Row(f"pgx {name} @{batch}", "pgx", name, 2, batch), pgx_slice(name, batch, seed)))
        except ImportError as err:
            skipped.append(f"PGX unavailable ({err}); pip install pgx")
    return out, skipped


def measure(table: list[tuple[Row, Slice]], seconds: float, slice_seconds: float) -> None:
    """Run the subjects' slices in turn until each has ``seconds`` of CPU time."""
    while any(row.cpu_seconds < seconds for row, _ in table):
        for row, run in table:
            if row.cpu_seconds >= seconds:
                continue
            start = time.process_time()
            row.decisions += run(slice_seconds)
            row.cpu_seconds += time.process_time() - start
            row.slices += 1


def markdown(rows: list[Row], info: dict[str, Any]) -> str:
    """The table, with each subject's ratio to the scalar raw_env of its game and to PGX leduc_holdem."""
    raw = {r.game: r.per_cpu_second for r in rows if r.kind == "raw_env"}
    leduc = {r.batch: r.per_cpu_second for r in rows if r.kind == "pgx" and r.game == "leduc_holdem"}
    lines = [
        "| subject | players | batch | decisions per CPU-second | x raw_env (same game) | x PGX leduc_holdem (same batch) "
        "| CPU s | slices |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        x_raw = f"{r.per_cpu_second / raw[r.game]:.1f}" if r.game in raw and r.kind not in ("raw_env",) else ""
        x_leduc = (
            f"{r.per_cpu_second / leduc[r.batch]:.2f}"
            if r.batch in leduc and r.kind in ("compiled", "numpy", "pgx")
            else ""
        )
        lines.append(
            f"| {r.subject} | {r.players} | {r.batch} | {r.per_cpu_second:,.0f} | {x_raw} | {x_leduc} | "
            f"{r.cpu_seconds:.1f} | {r.slices} |"
        )
    lines += ["", f"Load average before {info['load_before']}, after {info['load_after']}; CPU: {info['cpu']}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=None, help="games (default: every game with a batched engine)")
    parser.add_argument("--players", type=int, default=4, help="seats per game (the middle count where not allowed)")
    parser.add_argument("--batches", type=int, nargs="+", default=list(BATCH_SIZES))
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per subject")
    parser.add_argument("--slice", type=float, default=0.25, help="CPU seconds per slice")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-pgx", action="store_true", help="leave out the PGX peers")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    from ice_envs.benchmarks.throughput import machine_info
    from ice_envs.core.registry import GAMES

    games = args.games or [name for name, s in GAMES.items() if s.vector or s.compiled]
    table, skipped = subjects(games, args.players, tuple(args.batches), args.seed, not args.no_pgx)
    info: dict[str, Any] = dict(machine_info(), load_before=[round(x, 2) for x in os.getloadavg()])
    measure(table, args.seconds, args.slice)
    info["load_after"] = [round(x, 2) for x in os.getloadavg()]
    rows = [row for row, _ in table]
    text = markdown(rows, info) + "".join(f"\nSkipped: {s}\n" for s in skipped)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    from ice_envs.core.files import write_atomic

    report = {
        "machine": info,
        "skipped": skipped,
        "rows": [dict(asdict(r), per_cpu_second=r.per_cpu_second) for r in rows],
    }
    write_atomic(args.out / "batched.json", json.dumps(report, indent=2) + "\n")
    write_atomic(args.out / "batched.md", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
