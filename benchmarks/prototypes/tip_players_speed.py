"""Tip of the Diceberg's Python players against their compiled twins, in decisions per CPU-second.

Plays ``--games`` games of heuristic self-play through the scalar env and records every decision: the
observation, the :class:`~ice_envs.core.agent.PlayerView` that evaluation builds (``make_view``), the
packed state row and the deciding seat. Then, for ``greedy`` and ``heuristic``:

* ``python``: fresh agents (one per seat and game, as evaluation keeps them) ``act()`` on those
  positions in play order; only ``act()`` is timed;
* ``compiled``: the compiled player on the same packed rows, called from one numba loop over all of
  them (each seat with its own memory row and stream, as the parity harness keeps them).

Both are measured with ``time.process_time`` (CPU time of this process), and the two must agree on
every decision (the compiled one is checked against the Python one's choices).

    python benchmarks/prototypes/tip_players_speed.py [--games 20] [--players 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numba
import numpy as np

from ice_envs import vector
from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import make_view
from ice_envs.core.compiled_players import compiled_player
from ice_envs.core.player_parity import player_seed_streams
from ice_envs.core.registry import make as make_env
from ice_envs.core.splitmix import SplitMixRng

GAME = "tip_of_the_diceberg"


def record(games: int, players: int, seed: int) -> list[dict[str, Any]]:
    """Every decision of ``games`` games of heuristic self-play (one dict per game)."""
    engine = vector.make(GAME, 1, players, seed=seed, engine="compiled")
    view_rng = np.random.default_rng([seed, 7])
    out = []
    for g in range(games):
        env = make_env(GAME, raw=True, num_players=players)
        env.reset(seed=seed * 1000 + g)
        agents = [load_agent("heuristic", GAME, seed=p, num_players=players) for p in range(players)]
        obs, views, rows, seats = [], [], [], []
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            seat = env.current_seat
            observation = env.observe(env.agent_selection)
            view = make_view(env, seat, view_rng)
            obs.append(observation)
            views.append(view)
            rows.append(np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype))
            seats.append(seat)
            env.step(int(agents[seat].act(observation, view)))
        out.append({"obs": obs, "views": views, "rows": np.stack(rows), "seats": np.asarray(seats)})
    return out


def python_rate(name: str, games: list[dict[str, Any]], players: int, seed: int) -> tuple[float, list[int]]:
    """Decisions per CPU-second of the Python player ``name`` on the recorded positions, and its choices."""
    chosen: list[int] = []
    spent = 0.0
    for g, game in enumerate(games):
        streams = player_seed_streams(seed * 1000 + g, players)
        agents = []
        for p in range(players):
            agent = load_agent(name, GAME, seed=p, num_players=players)
            agent.rng = SplitMixRng(int(streams[p]))
            agents.append(agent)
        for observation, view, seat in zip(game["obs"], game["views"], game["seats"], strict=True):
            start = time.process_time()
            action = agents[seat].act(observation, view)
            spent += time.process_time() - start
            chosen.append(int(action))
    return len(chosen) / spent, chosen


def compiled_loop(act: Any) -> Any:
    """A numba loop calling ``act`` on every recorded row (seat ``seats[i]`` of game ``game_of[i]``)."""

    @numba.njit(nogil=True)
    def loop(rows, cfg, masks, seats, game_of, prng, memory, out):  # type: ignore[no-untyped-def]
        for i in range(rows.shape[0]):
            g, p = game_of[i], seats[i]
            out[i] = act(rows[i], cfg, masks[i], prng[g, p], memory[g, p])

    return loop


def compiled_rate(
    name: str, games: list[dict[str, Any]], players: int, seed: int, repeat: int
) -> tuple[float, list[int]]:
    """Decisions per CPU-second of the compiled player ``name`` (best of ``repeat``), and its choices."""
    player = compiled_player(GAME, name)
    engine = vector.make(GAME, 1, players, seed=seed, engine="compiled")
    rows = np.concatenate([g["rows"] for g in games])
    masks = np.stack([o["action_mask"] for g in games for o in g["obs"]]).astype(np.int8)
    seats = np.concatenate([g["seats"] for g in games]).astype(np.int64)
    game_of = np.concatenate([np.full(len(g["seats"]), i, dtype=np.int64) for i, g in enumerate(games)])
    loop = compiled_loop(player.act)
    out = np.zeros(rows.shape[0], dtype=np.int64)
    best = 0.0
    for r in range(repeat + 1):  # the first run compiles the loop (not counted)
        prng = np.zeros((len(games), players, 2), dtype=np.uint64)
        for g in range(len(games)):
            prng[g, :, 0] = player_seed_streams(seed * 1000 + g, players)
        memory = np.zeros((len(games), players, max(player.memory_width, 1)), dtype=np.int64)
        start = time.process_time()
        loop(rows, engine._cfg, masks, seats, game_of, prng, memory, out)
        spent = time.process_time() - start
        if r:
            best = max(best, rows.shape[0] / spent)
    return best, out.tolist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    games = record(args.games, args.players, args.seed)
    report: dict[str, Any] = {
        "games": args.games,
        "players": args.players,
        "decisions": sum(len(g["seats"]) for g in games),
    }
    for name in ("greedy", "heuristic"):
        py, py_choices = python_rate(name, games, args.players, args.seed)
        co, co_choices = compiled_rate(name, games, args.players, args.seed, args.repeat)
        agree = sum(a == b for a, b in zip(py_choices, co_choices, strict=True))
        report[name] = {
            "python_per_s": round(py, 1),
            "compiled_per_s": round(co, 1),
            "speedup": round(co / py, 1),
            "agree": f"{agree}/{len(py_choices)}",
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
