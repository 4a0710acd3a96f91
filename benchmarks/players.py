"""Decisions per CPU-second of a game's Python players against their compiled twins, on the same positions.

Plays ``--games`` games of heuristic self-play through the scalar env, keeping every decision's
position: the observation and the :class:`~ice_envs.core.agent.PlayerView` as evaluation builds them,
and the compiled engine's state row (``engine.pack_state``). Then, for each player named, it times

* ``python``: the Python player's ``act(observation, view)`` on every position, in play order, one
  player per seat and game (as evaluation seats them; views built beforehand, outside the timing);
* ``compiled``: the compiled player's ``act`` on every packed row in one numba loop, with a memory row
  per seat and game zeroed at each new game (as the compiled engine keeps it),

in decisions per CPU-second of this process (``time.process_time``), the compiled loop repeated until it
has run ``--seconds``. The compiled player is called once first, so compilation is not timed. The Python
player's views are built beforehand: the re-deal of hidden cards that evaluation pays for each of its
decisions is not counted against it.

    python -m ice_envs.benchmarks.players [--games cardiceo ...] [--decks 20] [--agents greedy,heuristic]
                                          [--option single_hand=True ...] [--out DIR]

Each game at its suite table's player count (:data:`TABLES`), with the game's default options or those given
by ``--option`` (e.g. Iceberg Rummy's suite table plays one hand: ``--option single_hand=True``). It is a
benchmark, not a test: nothing asserts a time; the parity tests (``tests/<game>/test_compiled_players.py``)
check that the decisions agree.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from ice_envs.agents.spec import load_agent
from ice_envs.core import vector
from ice_envs.core.agent import make_view
from ice_envs.core.compiled_players import compiled_player
from ice_envs.core.options import parse_option
from ice_envs.core.player_parity import player_seed_streams
from ice_envs.core.registry import make as make_env

#: Players per game: each game's table in the held-out suite.
TABLES = {"cardiceo": 4, "cubemelt": 3, "iceberg_rummy": 4, "tip_of_the_diceberg": 4, "icebergs": 2}


def positions(
    game: str, players: int, games: int, seed: int, options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every decision of ``games`` games of heuristic self-play (observation, view, packed row, seat, game)."""
    options = options or {}
    engine = vector.make(game, 1, players, seed=seed, engine="compiled", **options)
    view_rng = np.random.default_rng([seed, 1])
    out = []
    for g in range(games):
        env = make_env(game, raw=True, num_players=players, **options)
        env.reset(seed=seed * 1000 + g)
        agents = [load_agent("heuristic", game, seed=seed + p, num_players=players) for p in range(players)]
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            seat = env.current_seat
            observation = env.observe(env.agent_selection)
            view = make_view(env, seat, view_rng)
            row = np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype)
            out.append({"observation": observation, "view": view, "row": row, "seat": seat, "game": g})
            env.step(int(agents[seat].act(observation, view)))
    return out


@numba.njit(nogil=True, error_model="numpy")  # no disk cache: it takes the player function as an argument
def _compiled_loop(act, rows, cfg, masks, slots, new_game, prng, memory) -> int:
    """Ask ``act`` at every row; ``slots[i]`` is the (game, seat) slot of row ``i``'s memory and stream."""
    total = 0
    for i in range(rows.shape[0]):
        if new_game[i]:
            memory[:] = 0
        total += act(rows[i], cfg, masks[i], prng[slots[i]], memory[slots[i]])
    return total


def time_python(game: str, name: str, players: int, found: list[dict[str, Any]]) -> float:
    """The Python player's decisions per CPU-second on ``found``."""
    agents: dict[tuple[int, int], Any] = {}
    start = time.process_time()
    for pos in found:
        key = (pos["game"], pos["seat"])
        if key not in agents:
            agents[key] = load_agent(name, game, seed=0, num_players=players)
        agents[key].act(pos["observation"], pos["view"])
    return len(found) / (time.process_time() - start)


def time_compiled(
    game: str, name: str, players: int, found: list[dict[str, Any]], seconds: float, options: dict[str, Any]
) -> float:
    """The compiled player's decisions per CPU-second on ``found`` (module docstring)."""
    player = compiled_player(game, name)
    engine = vector.make(game, 1, players, seed=0, engine="compiled", **options)
    rows = np.stack([pos["row"] for pos in found])
    masks = np.stack([pos["observation"]["action_mask"] for pos in found]).astype(np.int8)
    slots = np.array([pos["seat"] for pos in found], dtype=np.int64)
    new_game = np.array([i == 0 or found[i - 1]["game"] != pos["game"] for i, pos in enumerate(found)])
    prng = np.zeros((players, 2), dtype=np.uint64)
    prng[:, 0] = player_seed_streams(0, players)
    memory = np.zeros((players, max(player.memory_width, 1)), dtype=np.int64)
    _compiled_loop(player.act, rows[:1], engine._cfg, masks[:1], slots[:1], new_game[:1], prng, memory)
    done, start = 0, time.process_time()
    while True:
        _compiled_loop(player.act, rows, engine._cfg, masks, slots, new_game, prng, memory)
        done += len(found)
        spent = time.process_time() - start
        if spent >= seconds:
            return done / spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--decks", type=int, default=20, help="games of heuristic self-play per game (default: 20)")
    parser.add_argument("--agents", default="greedy,heuristic", help="players compared (default: greedy,heuristic)")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of each compiled loop (default: 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--option", action="append", type=parse_option, default=[], metavar="KEY=VALUE", help="game option (repeatable)"
    )
    parser.add_argument("--out", type=Path, default=None, help="write players.json here")
    args = parser.parse_args(argv)
    options = dict(args.option)
    rows = []
    load = os.getloadavg()[0]
    for game in args.games:
        players = TABLES[game]
        found = positions(game, players, args.decks, args.seed, options)
        print(f"{game}, {players} players: {len(found)} positions of heuristic self-play", flush=True)
        for name in args.agents.split(","):
            python = time_python(game, name, players, found)
            compiled = time_compiled(game, name, players, found, args.seconds, options)
            rows.append(
                {"game": game, "players": players, "options": options, "agent": name, "positions": len(found),
                 "python": python, "compiled": compiled, "ratio": compiled / python}
            )  # fmt: skip
            print(f"{name:>12}: python {python:10.0f}/s  compiled {compiled:12.0f}/s  x{compiled / python:8.1f}")
    if args.out is not None:
        from ice_envs.core.files import write_atomic

        args.out.mkdir(parents=True, exist_ok=True)
        result = {"rows": rows, "load_before": load, "load_after": os.getloadavg()[0]}
        write_atomic(args.out / "players.json", json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
