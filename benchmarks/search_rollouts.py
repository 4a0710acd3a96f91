"""Flat search throughput: rollouts per CPU-second of the ``flat`` agent's decisions, per game and rollout policy.

    python -m ice_envs.benchmarks.search_rollouts [--games cardiceo cubemelt iceberg_rummy] [--players 4]
                                                  [--rollouts 4096 ...] [--depth D] [--width K] [--positions 20]
                                                  [--rollout-policies random heuristic] [--heuristic v1]
                                                  [--out FILE.json]

Positions: decision points with more than one legal move from games of the Python heuristic at every seat
(every third such point, ``--positions`` per game; Iceberg Rummy plays one hand, ``single_hand=True``). At each
the :class:`~ice_envs.agents.flat.FlatMonteCarloAgent` decides once with each budget of ``--rollouts`` (and
``--depth``, rollouts cut after that many decisions; ``--width``, only the base move and the best others by greedy
value searched; after one untimed
decision that compiles the engine and the players; ``--heuristic v2`` searches on the second heuristic, the
agent's ``heuristic=v2``). Reported per game and rollout policy: rollouts per
CPU-second of whole decisions (re-deals, packing, the heuristic's base move and the playouts), CPU ms per
decision (mean and maximum), the shares of the time spent inside the compiled playouts and in loading the
positions into the batch (``CompiledEngine.load``), and the decisions those playouts made per CPU-second. A rollout policy the game has no compiled player for is left out.
Timed in CPU seconds of this process (``time.process_time``), load average recorded: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np

import ice_envs
from ice_envs.agents.flat import DEFAULT_ROLLOUTS, FlatMonteCarloAgent
from ice_envs.core.agent import make_view
from ice_envs.core.compiled import CompiledEngine
from ice_envs.core.compiled_opponents import SeatPlayers
from ice_envs.core.compiled_players import compiled_player_names
from ice_envs.core.files import write_atomic
from ice_envs.core.registry import HEURISTIC_VERSIONS, get_spec

#: Options of each game's table (Iceberg Rummy: one hand, as the suite plays it).
OPTIONS: dict[str, dict[str, Any]] = {"iceberg_rummy": {"single_hand": True}}


def positions(game: str, players: int, count: int, seed: int = 0) -> list[tuple[Any, Any]]:
    """``count`` ``(env copy's view, observation)`` pairs at heuristic-play decision points with a real choice."""
    heuristic = get_spec(game).heuristic_class()
    found: list[tuple[Any, Any]] = []
    rng = np.random.default_rng(seed)
    game_seed = seed
    while len(found) < count:
        env = ice_envs.make(game, raw=True, num_players=players, **OPTIONS.get(game, {}))
        env.reset(seed=game_seed)
        agents = [heuristic(game_seed * 10 + s) for s in range(players)]
        points = 0
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            seat = env.current_seat
            mask = env.action_mask()
            view = make_view(env, seat, rng)
            if mask.sum() > 1:
                points += 1
                if points % 3 == 0 and len(found) < count:
                    found.append((view, {"action_mask": mask.copy()}))
            env.step(int(agents[seat].act({"action_mask": mask}, view)))
        game_seed += 1
    return found


class PlayoutClock:
    """Adds up the CPU time and the decisions of every :meth:`SeatPlayers.playout`, and the CPU time of every
    :meth:`CompiledEngine.load <ice_envs.core.compiled.CompiledEngine.load>`, while installed."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.load_seconds = 0.0
        self.decisions = 0
        self._original = SeatPlayers.playout
        self._load = CompiledEngine.load

    def __enter__(self) -> PlayoutClock:
        clock, original, load = self, self._original, self._load

        def timed(players: SeatPlayers, *args: Any, **kw: Any) -> dict[str, np.ndarray]:
            start = time.process_time()
            out = original(players, *args, **kw)
            clock.seconds += time.process_time() - start
            clock.decisions += int(out["length"].sum())
            return out

        def timed_load(engine: CompiledEngine, *args: Any, **kw: Any) -> Any:
            start = time.process_time()
            out = load(engine, *args, **kw)
            clock.load_seconds += time.process_time() - start
            return out

        SeatPlayers.playout = timed  # type: ignore[method-assign]
        CompiledEngine.load = timed_load  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        SeatPlayers.playout = self._original  # type: ignore[method-assign]
        CompiledEngine.load = self._load  # type: ignore[method-assign]


def measure(
    game: str,
    players: int,
    rollout: str,
    rollouts: int,
    points: list[tuple[Any, Any]],
    depth: int | None = None,
    heuristic: str = "v1",
    width: int | None = None,
) -> dict[str, Any]:
    """One row of the table: ``rollout`` policy, ``rollouts`` a decision (cut at ``depth``, ``width`` candidates),
    at ``points``, the search built on heuristic version ``heuristic``."""
    agent = FlatMonteCarloAgent(
        game, players, seed=0, rollouts=rollouts, rollout=rollout, depth=depth, heuristic=heuristic, width=width
    )
    agent.act(points[0][1], points[0][0])  # compiles
    times: list[float] = []
    played = 0
    with PlayoutClock() as clock:
        for view, obs in points:
            start = time.process_time()
            agent.act(obs, view)
            times.append(time.process_time() - start)
            played += sum(s for s, _ in agent.last_search.values())
    total = sum(times)
    return {
        "game": game,
        "players": players,
        "rollout": agent.rollout_player,
        "heuristic": agent.heuristic,
        "rollouts_per_decision": rollouts,
        "depth": depth,
        "width": width,
        "decisions": len(points),
        "rollouts_per_cpu_s": played / total,
        "ms_per_decision_mean": 1000 * total / len(points),
        "ms_per_decision_max": 1000 * max(times),
        "playout_share": clock.seconds / total,
        "load_share": clock.load_seconds / total,
        "playout_decisions_per_cpu_s": clock.decisions / clock.seconds if clock.seconds else 0.0,
        "decisions_per_rollout": clock.decisions / played,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["cardiceo", "cubemelt", "iceberg_rummy"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rollouts", type=int, nargs="+", default=[DEFAULT_ROLLOUTS])
    parser.add_argument("--depth", type=int, default=None)
    parser.add_argument("--width", type=int, default=None)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--rollout-policies", nargs="+", default=["random", "heuristic"])
    parser.add_argument("--heuristic", choices=HEURISTIC_VERSIONS, default="v1")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    rows = []
    print(
        "| game | rollout | rollouts | rollouts/CPU-s | ms/decision (mean, max) | in playouts | in load "
        "| playout decisions/CPU-s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for game in args.games:
        points = positions(game, args.players, args.positions)
        for rollout in args.rollout_policies:
            if rollout not in compiled_player_names(game):
                print(f"| {game} | {rollout} | (no compiled {rollout} player) | | | | | |")
                continue
            for rollouts in args.rollouts:
                row = measure(game, args.players, rollout, rollouts, points, args.depth, args.heuristic, args.width)
                rows.append(row)
                print(
                    f"| {game} | {row['rollout']} | {rollouts} | {row['rollouts_per_cpu_s']:,.0f} | "
                    f"{row['ms_per_decision_mean']:.0f}, {row['ms_per_decision_max']:.0f} | "
                    f"{row['playout_share']:.0%} | {row['load_share']:.0%} | "
                    f"{row['playout_decisions_per_cpu_s']:,.0f} |",
                    flush=True,
                )
    load = {"before": load_before, "after": os.getloadavg()}
    print(f"load average before {load_before[0]:.2f}, after {load['after'][0]:.2f}")
    if args.out:
        write_atomic(args.out, json.dumps({"rows": rows, "load": load, "args": vars(args)}, indent=2))


if __name__ == "__main__":
    main()
