"""The MCTS budget curve: win rate against the heuristic and decision time, per budget and game.

    python -m ice_envs.benchmarks.mcts_budget --game cardiceo --game cubemelt \\
        --agent mcts:sims=100,rollout=random,depth=8 --agent mcts:sims=300,rollout=random,depth=8 \\
        --agent mcts:sims=1000,rollout=random,depth=8 --games 300 --out runs/mcts_budget

Each point is one ``mcts`` spec in one game, played at that game's suite v1 table against the
heuristic (the table size and options of ``SUITE_V1``'s "vs heuristic" table; the agent under test
takes one seat, heuristic agents the others, seats rotated as in ``ice-envs evaluate``: game ``i``
is dealt from seed ``seed + i // N`` and the agent sits in seat ``i % N``). Deals come from the
development range (``--seed``, default ``10**6``) or, with ``--suite``, from the table's own suite
deals (``SUITE_V1.seed_of(table)``).

For every point it reports the agent's win rate (a shared win counts as a win, as in ``evaluate``)
with its 95% Wilson interval, whether the interval's lower bound is above ``1/N``, its mean win share,
the paired baseline (the same games, a heuristic agent in the agent's seat: its win rate, and how many
games only the agent won and only the heuristic won), which heuristic it played against (a hash of the
heuristic module's source, :func:`heuristic_version`), and the time of the agent's decisions that searched (more than one legal action): wall-clock seconds
and CPU seconds of the process (``time.process_time``), mean and max. On a shared machine the wall
time grows with the load and the CPU time does not: both are written, with the load average at the
start and the end. Results go to ``OUT/mcts_budget.json`` and ``OUT/mcts_budget.md``.

``--redeals`` and ``--width`` set the :class:`~ice_envs.agents.mcts.MCTSAgent` options of the same
names for every point whose spec does not give them (see ``docs/agents/mcts.md``). ``--progress``
reports every 10 games on stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.agents.mcts import DEFAULT_REDEALS, MCTSAgent
from ice_envs.agents.spec import heuristic_for, load_agent, parse_agent_spec
from ice_envs.core.errors import AgentSpecError, OptionError
from ice_envs.core.registry import get_spec
from ice_envs.evaluation.stats import wilson_interval
from ice_envs.evaluation.suite import SUITE_V1, SuiteTable
from ice_envs.evaluation.tournament import Match, play_game

#: First deal of the development range (not a suite's deals).
DEV_SEED = 10**6


class TimedAgent:
    """An agent that plays as ``inner`` does and records the time of every decision that searched."""

    def __init__(self, inner: MCTSAgent) -> None:
        self.inner = inner
        self.name = inner.name
        self.needs_view = inner.needs_view
        self.needs_observation = inner.needs_observation
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed=seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        searched = int(np.count_nonzero(observation["action_mask"])) > 1
        wall, cpu = time.perf_counter(), time.process_time()
        action = self.inner.act(observation, view)
        if searched:
            self.wall.append(time.perf_counter() - wall)
            self.cpu.append(time.process_time() - cpu)
        return action


def heuristic_table(game: str) -> SuiteTable:
    """Suite v1's table of ``game`` against the heuristic."""
    for table in SUITE_V1.tables_of(game):
        if set(table.opponents) == {"heuristic"}:
            return table
    raise OptionError(f"suite v1 has no table of {game!r} against the heuristic")


def build_agent(spec: str, game: str, players: int, redeals: int | None, width: int | None) -> MCTSAgent:
    """The ``mcts`` agent of ``spec`` (parsed and checked by the spec parser); ``redeals`` and ``width``
    apply where the spec does not give them."""
    parsed = parse_agent_spec(spec)
    if parsed.kind != "mcts":
        raise AgentSpecError(f"agent {spec!r}: the budget curve is of mcts specs")
    return MCTSAgent(game, players, 0, **{"redeals": redeals, "width": width, **dict(parsed.options)})


def heuristic_version(game: str) -> str:
    """The first 12 hex digits of the SHA-256 of the game's heuristic module's source: which heuristic a
    figure was measured against."""
    cls = get_spec(game).heuristic_class()
    source = Path(inspect.getsourcefile(cls)).read_bytes()
    return hashlib.sha256(source).hexdigest()[:12]


def run_point(
    game: str,
    spec: str,
    games: int,
    seed: int | None,
    redeals: int | None,
    width: int | None,
    progress: bool = False,
) -> dict[str, Any]:
    """Play one point of the curve (see the module docstring); its figures."""
    table = heuristic_table(game)
    n = table.players
    first = SUITE_V1.seed_of(table) if seed is None else seed
    searcher = build_agent(spec, game, n, redeals, width)
    agent = TimedAgent(searcher)
    opponents = [load_agent(o, game, num_players=n) for o in table.opponents]
    match = Match(game, n, dict(table.options), (parse_agent_spec(spec), *table.opponents), first)
    baseline = heuristic_for(game)
    wins = share = base_wins = 0.0
    decisions = truncated = 0
    paired = {"won_only_agent": 0, "won_only_heuristic": 0}
    start = time.perf_counter()
    for i in range(games):
        result = play_game(match, i, [agent, *opponents])
        base = play_game(match, i, [baseline, *opponents])
        wins += result["win"][0]
        share += result["win_share"][0]
        base_wins += base["win"][0]
        paired["won_only_agent"] += result["win"][0] and not base["win"][0]
        paired["won_only_heuristic"] += base["win"][0] and not result["win"][0]
        decisions += result["decisions"]
        truncated += bool(result["truncated"])
        if progress and (i + 1) % 10 == 0:
            print(f"{game} {spec}: {i + 1} games, agent {wins:.0f} wins, heuristic {base_wins:.0f}", file=sys.stderr)
    lo, hi = wilson_interval(wins, games)
    return {
        "game": game,
        "players": n,
        "options": dict(table.options),
        "spec": spec,
        "redeals": searcher.redeals,  # what the agent used: the spec's own option, else the command's
        "width": searcher.width,
        "games": games,
        "first_seed": first,
        "seeds": "suite" if seed is None else "development",
        "win_rate": wins / games,
        "win_rate_ci95": [lo, hi],
        "beats_heuristic": lo > 1 / n,
        "win_share": share / games,
        "heuristic_win_rate": base_wins / games,
        "paired": paired,
        "heuristic_version": heuristic_version(game),
        "truncated_games": truncated,
        "decisions_per_game": decisions / games,
        "searched_decisions": len(agent.wall),
        "wall_s_mean": float(np.mean(agent.wall)) if agent.wall else 0.0,
        "wall_s_max": float(np.max(agent.wall)) if agent.wall else 0.0,
        "cpu_s_mean": float(np.mean(agent.cpu)) if agent.cpu else 0.0,
        "cpu_s_max": float(np.max(agent.cpu)) if agent.cpu else 0.0,
        "wall_s": time.perf_counter() - start,
    }


def markdown(points: list[dict[str, Any]], load: dict[str, list[float]]) -> str:
    """The curve as a Markdown table (one row per point)."""
    lines = [
        "| game | N | spec | redeals | width | games | seeds from | win rate [95%] | > 1/N | win share | "
        "heuristic in its seat | won only agent / only heuristic | "
        "s/decision wall mean / max | CPU s/decision mean / max | wall s | heuristic |",
        "|---|---:|---|---:|---:|---:|---|---|---|---:|---:|---|---|---|---:|---|",
    ]
    for p in points:
        lo, hi = p["win_rate_ci95"]
        lines.append(
            f"| {p['game']} | {p['players']} | `{p['spec']}` | {p['redeals']} | {p['width']} | {p['games']} | "
            f"{p['first_seed']} ({p['seeds']}) | {p['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | "
            f"{'yes' if p['beats_heuristic'] else 'no'} | {p['win_share']:.3f} | {p['heuristic_win_rate']:.3f} | "
            f"{p['paired']['won_only_agent']} / {p['paired']['won_only_heuristic']} | "
            f"{p['wall_s_mean']:.3f} / {p['wall_s_max']:.3f} | {p['cpu_s_mean']:.3f} / {p['cpu_s_max']:.3f} | "
            f"{p['wall_s']:.0f} | {p['heuristic_version']} |"
        )
    lines.append("")
    lines.append(
        "Load average (1, 5, 15 min) at the start: "
        + ", ".join(f"{v:.2f}" for v in load["start"])
        + "; at the end: "
        + ", ".join(f"{v:.2f}" for v in load["end"])
        + "."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", required=True, help="a game (repeat for several)")
    parser.add_argument("--agent", action="append", required=True, help="an mcts spec, one per budget (repeat)")
    parser.add_argument("--games", type=int, default=300, help="games per point (default 300)")
    seeds = parser.add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=int, default=DEV_SEED, help=f"first deal seed (default {DEV_SEED})")
    seeds.add_argument("--suite", action="store_true", help="play the suite v1 table's own deals")
    parser.add_argument("--redeals", default=str(DEFAULT_REDEALS), help="re-deals per decision, or 'none'")
    parser.add_argument("--width", type=int, default=None, help="root actions kept by greedy value")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--progress", action="store_true", help="report every 10 games on stderr")
    args = parser.parse_args(argv)
    if args.games < 1:
        raise OptionError(f"--games must be at least 1, got {args.games}")
    redeals = None if args.redeals == "none" else int(args.redeals)
    load = {"start": list(os.getloadavg())}
    points = []
    for game in args.game:
        for spec in args.agent:
            seed = None if args.suite else args.seed
            point = run_point(game, spec, args.games, seed, redeals, args.width, args.progress)
            points.append(point)
            print(json.dumps(point), flush=True)
    load["end"] = list(os.getloadavg())
    report = {"points": points, "load_average": load}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "mcts_budget.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "mcts_budget.md").write_text(markdown(points, load))
    return report


if __name__ == "__main__":
    main()
