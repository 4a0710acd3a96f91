"""Decisions per CPU-second of a game's Python players against their compiled twins, on the same positions.

Plays ``--games`` games of heuristic self-play through the scalar env, keeping every decision's
position: the observation and the :class:`~ice_envs.core.agent.PlayerView` as evaluation builds them,
and the compiled engine's state row (``engine.pack_state``). Then, for each player named, it times

* ``python``: the Python player's ``act(observation, view)`` on every position, in play order, one
  player per seat and game (as evaluation seats them; views built beforehand, outside the timing);
* ``compiled``: the compiled player's ``act`` on every packed row in one numba loop, with a memory row
  per seat and game zeroed at each new game (as the compiled engine keeps it),

in decisions per CPU-second of this process (``time.process_time``), the compiled loop repeated until it
has run ``--seconds``. The compiled player is called once first, so compilation is not timed.

    python benchmarks/prototypes/players_speed.py cardiceo [--players 4] [--games 20] [--agents greedy,heuristic]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from ice_envs.agents.spec import load_agent
from ice_envs.core import vector
from ice_envs.core.agent import make_view
from ice_envs.core.compiled import njit
from ice_envs.core.compiled_players import compiled_player
from ice_envs.core.player_parity import player_seed_streams
from ice_envs.core.registry import make as make_env


def positions(game: str, players: int, games: int, seed: int) -> list[dict[str, Any]]:
    """Every decision of ``games`` games of heuristic self-play (observation, view, packed row, seat, game)."""
    engine = vector.make(game, 1, players, seed=seed, engine="compiled")
    view_rng = np.random.default_rng([seed, 1])
    out = []
    for g in range(games):
        env = make_env(game, raw=True, num_players=players)
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


@njit
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


def time_compiled(game: str, name: str, players: int, found: list[dict[str, Any]], seconds: float) -> float:
    """The compiled player's decisions per CPU-second on ``found`` (module docstring)."""
    player = compiled_player(game, name)
    engine = vector.make(game, 1, players, seed=0, engine="compiled")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--agents", default="greedy,heuristic")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    found = positions(args.game, args.players, args.games, args.seed)
    print(f"{args.game}, {args.players} players: {len(found)} positions of heuristic self-play")
    for name in args.agents.split(","):
        python = time_python(args.game, name, args.players, found)
        compiled = time_compiled(args.game, name, args.players, found, args.seconds)
        print(f"{name:>12}: python {python:10.0f}/s  compiled {compiled:12.0f}/s  x{compiled / python:8.1f}")


if __name__ == "__main__":
    main()
