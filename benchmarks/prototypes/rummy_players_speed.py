"""Iceberg Rummy's Python players against their compiled twins, in decisions per CPU-second, on the same positions.

Plays ``--games`` games with the Python ``--player`` at every seat (views built as evaluation builds them,
:func:`ice_envs.core.agent.make_view`) and records every decision: the observation and view the Python
player was given, and the compiled engine's state row of the position (``engine.pack_state``). Then it
times, in CPU seconds of this process (``time.process_time``):

* ``python``: the Python players' ``act`` on the recorded observations and views, replayed in order (one
  player per seat, each on its :class:`~ice_envs.core.splitmix.SplitMixRng` stream, so plans and streams
  are as in play);
* ``compiled``: the compiled player's ``act`` on the recorded rows in one numba loop (memory rows and
  streams per seat, as in play).

Both must choose the recorded actions (checked). The two are timed ``--repeats`` times in turn and the
fastest pass of each is reported (on a shared machine the slower passes measure the other load). Also
prints how often the compiled player asked the Python rules
(:data:`ice_envs.iceberg_rummy.compiled_players.PYTHON_CALLS`).

    python benchmarks/prototypes/rummy_players_speed.py --player heuristic --players 4 --variant single_hand
"""

from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np

from ice_envs.agents.spec import load_agent
from ice_envs.core import vector
from ice_envs.core.agent import make_view
from ice_envs.core.compiled_players import compiled_player
from ice_envs.core.player_parity import player_seed_streams
from ice_envs.core.registry import make as make_env
from ice_envs.core.splitmix import SplitMixRng
from ice_envs.iceberg_rummy import compiled_players as CP
from ice_envs.iceberg_rummy.spec import SPEC

GAME = "iceberg_rummy"


def record(player: str, n: int, options: dict, games: int, seed: int) -> list[dict]:
    """Every decision of ``games`` games played by the Python ``player`` at every seat."""
    engine = vector.make(GAME, 1, n, seed=seed, engine="compiled", **options)
    view_rng = np.random.default_rng([seed, 0xB1E])
    out = []
    for g in range(games):
        env = make_env(GAME, raw=True, num_players=n, **options)
        env.reset(seed=seed * 100_003 + g)
        streams = player_seed_streams(seed * 100_003 + g, n)
        agents = [load_agent(player, GAME, seed=0, num_players=n) for _ in range(n)]
        for seat, agent in enumerate(agents):
            agent.rng = SplitMixRng(int(streams[seat]))
        first = True
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            seat = env.current_seat
            observation = env.observe(env.agent_selection)
            view = make_view(env, seat, view_rng)
            row = np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype)
            action = int(agents[seat].act(observation, view))
            out.append(
                {
                    "game": g,
                    "first": first,
                    "seat": seat,
                    "obs": observation,
                    "view": view,
                    "row": row,
                    "action": action,
                }
            )
            first = False
            env.step(action)
    return out


def time_python(player: str, n: int, positions: list[dict], seed: int) -> float:
    """CPU seconds of the Python players' ``act`` over the positions (replayed in order)."""
    spent = 0.0
    agents: list = []
    for pos in positions:
        if pos["first"]:
            streams = player_seed_streams(seed * 100_003 + pos["game"], n)
            agents = [load_agent(player, GAME, seed=0, num_players=n) for _ in range(n)]
            for seat, agent in enumerate(agents):
                agent.rng = SplitMixRng(int(streams[seat]))
        start = time.process_time()
        action = int(agents[pos["seat"]].act(pos["obs"], pos["view"]))
        spent += time.process_time() - start
        assert action == pos["action"]
    return spent


@numba.njit
def _loop(act, rows, masks, seats, firsts, streams, cfg, width, out):
    n = streams.shape[1]
    prng = np.zeros((n, 2), dtype=np.uint64)
    memory = np.zeros((n, max(width, 1)), dtype=np.int64)
    g = -1
    for i in range(rows.shape[0]):
        if firsts[i]:
            g += 1
            prng[:, 0] = streams[g]
            memory[:] = 0
        seat = seats[i]
        out[i] = act(rows[i], cfg, masks[i], prng[seat], memory[seat])


def time_compiled(player: str, n: int, options: dict, positions: list[dict], seed: int, games: int) -> float:
    """CPU seconds of the compiled player over the positions, in one numba loop (checked against the record;
    the first position is played once before, to compile)."""
    compiled = compiled_player(GAME, player)
    engine = vector.make(GAME, 1, n, seed=seed, engine="compiled", **options)
    rows = np.stack([p["row"] for p in positions])
    masks = np.stack([np.asarray(p["obs"]["action_mask"], dtype=np.int8) for p in positions])
    seats = np.array([p["seat"] for p in positions], dtype=np.int64)
    firsts = np.array([p["first"] for p in positions], dtype=np.bool_)
    streams = np.stack([player_seed_streams(seed * 100_003 + g, n) for g in range(games)])
    out = np.zeros(len(positions), dtype=np.int64)
    _loop(compiled.act, rows[:1], masks[:1], seats[:1], firsts[:1], streams, engine._cfg, compiled.memory_width, out)
    calls = dict(CP.PYTHON_CALLS)
    start = time.process_time()
    _loop(compiled.act, rows, masks, seats, firsts, streams, engine._cfg, compiled.memory_width, out)
    spent = time.process_time() - start
    assert out.tolist() == [p["action"] for p in positions], "the compiled player chose other actions"
    print("python calls from the compiled player:", {k: CP.PYTHON_CALLS[k] - calls[k] for k in calls})
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="heuristic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="single_hand", choices=sorted(SPEC.variants))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    options = dict(SPEC.variants[args.variant].options)
    positions = record(args.player, args.players, options, args.games, args.seed)
    python = compiled = float("inf")
    for _ in range(args.repeats):
        python = min(python, time_python(args.player, args.players, positions, args.seed))
        compiled = min(compiled, time_compiled(args.player, args.players, options, positions, args.seed, args.games))
    result = {
        "player": args.player,
        "players": args.players,
        "variant": args.variant,
        "decisions": len(positions),
        "python_per_s": round(len(positions) / python, 1),
        "compiled_per_s": round(len(positions) / compiled, 1),
        "speedup": round(python / compiled, 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
