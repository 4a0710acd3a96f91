"""Throughput of every game under uniformly random legal play, next to the floor env.

    python -m benchmarks.throughput [--games cardiceo cubemelt] [--seconds 2] [--out DIR]

For each game and player count (default variant; ``--all-variants`` for every one) it
plays random legal actions, picked with numpy from the action mask, through ``env()``
(PettingZoo wrappers) and through ``raw_env()``, and reports decision steps/s, games/s,
mean decisions per game and reset cost. The floor env (2 agents, one action, 100
decisions, the same base class and wrappers) is measured in the same run, so each
game's speed is also given as a ratio to the pure API overhead. Results are printed
and written as JSON and Markdown. It is a benchmark, not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core import floor
from ice_envs.core.masks import sample_legal

DEFAULT_OUT = Path("benchmarks/results")


@dataclass
class Measurement:
    """One env configuration measured through one API layer."""

    game: str
    variant: str
    players: int
    api: str  # "env" (wrapped) or "raw_env"
    steps_per_s: float
    games_per_s: float
    decisions_per_game: float
    reset_ms: float
    games: int
    seconds: float
    ratio_to_floor: float = float("nan")


def measure(make: Callable[[], Any], seconds: float, seed: int = 0, min_games: int = 1) -> dict[str, float]:
    """Play random legal games for about ``seconds``; return rates and counts."""
    env = make()
    rng = np.random.default_rng(seed)
    steps = games = 0
    reset_time = 0.0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        t0 = time.perf_counter()
        env.reset(seed=seed + games)
        reset_time += time.perf_counter() - t0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(sample_legal(rng, obs["action_mask"]))
            steps += 1
        games += 1
        if games >= min_games and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return {
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_game": steps / games,
        "reset_ms": 1000 * reset_time / games,
        "games": games,
        "seconds": elapsed,
    }


def machine_info() -> dict[str, str]:
    """Where the numbers were measured."""
    import gymnasium
    import pettingzoo

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "gymnasium": gymnasium.__version__,
        "ice_envs": ice_envs.__version__,
    }


def run(games: list[str], seconds: float, all_variants: bool = False, seed: int = 0) -> list[Measurement]:
    """Measure the floor env, then every requested game, through both API layers."""
    results: list[Measurement] = []
    floor_rates = {}
    for api, factory in (("env", floor.env), ("raw_env", floor.raw_env)):
        rates = measure(factory, seconds, seed)
        floor_rates[api] = rates["steps_per_s"]
        results.append(Measurement("floor", "default", 2, api, ratio_to_floor=1.0, **rates))
    for name in games:
        spec = ice_envs.get_spec(name)
        module = spec.load()
        for vname, n, options in spec.cases():
            if vname != "default" and not all_variants:
                continue
            for api, factory in (("env", module.env), ("raw_env", module.raw_env)):
                rates = measure(lambda f=factory, o=options, k=n: f(num_players=k, **o), seconds, seed)
                ratio = rates["steps_per_s"] / floor_rates[api]
                results.append(Measurement(name, vname, n, api, ratio_to_floor=ratio, **rates))
    return results


def to_markdown(results: list[Measurement], info: dict[str, str], command: str) -> str:
    """A Markdown table of ``results``."""
    lines = [
        "| game | variant | players | API | decision steps/s | games/s | decisions/game | reset ms | x floor |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.game} | {r.variant} | {r.players} | {r.api} | {r.steps_per_s:,.0f} | {r.games_per_s:,.1f} | "
            f"{r.decisions_per_game:,.1f} | {r.reset_ms:.3f} | {r.ratio_to_floor:.2f} |"
        )
    machine = ", ".join(f"{k} {v}" for k, v in info.items())
    return f"Command: `{command}`\n\nMachine: {machine}\n\n" + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=None, help="games to measure (default: all registered)")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per configuration and API (default 2)")
    parser.add_argument("--all-variants", action="store_true", help="measure every variant, not only the default")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for throughput.json / .md")
    args = parser.parse_args(argv)
    games = args.games or list(ice_envs.GAMES)
    for g in games:
        ice_envs.get_spec(g)  # clear error for an unknown game before measuring anything
    results = run(games, args.seconds, args.all_variants, args.seed)
    info = machine_info()
    command = "python -m benchmarks.throughput " + " ".join(argv if argv is not None else __import__("sys").argv[1:])
    markdown = to_markdown(results, info, command.strip())
    print(markdown)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "throughput.json").write_text(
        json.dumps({"machine": info, "command": command.strip(), "results": [asdict(r) for r in results]}, indent=2)
    )
    (args.out / "throughput.md").write_text(markdown)
    print(f"wrote {args.out / 'throughput.json'} and {args.out / 'throughput.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
