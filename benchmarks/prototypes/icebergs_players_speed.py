"""Decisions per CPU-second of Icebergs' Python greedy and heuristic players against their compiled twins.

The positions are those of heuristic self-play through the scalar env (every decision of ``--games``
games); each Python player acts on them with the views evaluation builds (``make_view``), the compiled
player on the same positions packed into state rows, in one numba loop. Times are ``time.process_time``
(CPU seconds of this process)::

    .venv/bin/python benchmarks/prototypes/icebergs_players_speed.py --players 3 --games 4
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ice_envs import vector
from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import make_view
from ice_envs.core.compiled import njit
from ice_envs.core.registry import make as make_env
from ice_envs.icebergs.compiled_players import PLAYERS


@njit
def _act_all(act, rows, cfg, masks, prng, memory, out):
    for i in range(rows.shape[0]):
        out[i] = act(rows[i], cfg, masks[i], prng, memory)


def positions(num_players: int, games: int, seed: int) -> tuple[list, np.ndarray, np.ndarray, object]:
    """Every decision of ``games`` heuristic self-play games: (observation, view) pairs, rows, masks, engine."""
    engine = vector.make("icebergs", 1, num_players, seed=seed, engine="compiled")
    agents = [load_agent("heuristic", "icebergs", seed=seat, num_players=num_players) for seat in range(num_players)]
    rng = np.random.default_rng(seed)
    pairs, rows, masks = [], [], []
    for g in range(games):
        env = make_env("icebergs", raw=True, num_players=num_players)
        env.reset(seed=seed * 1000 + g)
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            seat = env.current_seat
            observation = env.observe(env.agent_selection)
            view = make_view(env, seat, rng)
            pairs.append((observation, view))
            rows.append(np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype))
            masks.append(observation["action_mask"].astype(np.int8))
            env.step(int(agents[seat].act(observation, view)))
    return pairs, np.stack(rows), np.stack(masks), engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--greedy-positions", type=int, default=600, help="the greedy players act on the first N")
    args = parser.parse_args()
    pairs, rows, masks, engine = positions(args.players, args.games, args.seed)
    cfg = engine.config_row()
    print(f"{len(pairs)} positions of {args.games} heuristic self-play games, {args.players} players")
    for name in ("heuristic", "greedy"):
        count = len(pairs) if name == "heuristic" else min(len(pairs), args.greedy_positions)
        agent = load_agent(name, "icebergs", seed=0, num_players=args.players)
        start = time.process_time()
        for observation, view in pairs[:count]:
            agent.act(observation, view)
        python_rate = count / (time.process_time() - start)
        player = PLAYERS[name]
        prng = np.zeros(2, dtype=np.uint64)
        memory = np.zeros(max(player.memory_width, 1), dtype=np.int64)
        rows_n, masks_n = rows[:count], masks[:count]  # the positions the Python player acted on
        out = np.zeros(count, dtype=np.int64)
        _act_all(player.act, rows_n[:2], cfg, masks_n[:2], prng, memory, out)  # compile
        repeat = 1
        while True:
            start = time.process_time()
            for _ in range(repeat):
                _act_all(player.act, rows_n, cfg, masks_n, prng, memory, out)
            spent = time.process_time() - start
            if spent > 1.0:
                break
            repeat *= 4
        compiled_rate = repeat * count / spent
        print(
            f"{name:9s}  python {python_rate:10.1f} decisions/s   compiled {compiled_rate:10.1f} decisions/s"
            f"   ratio {compiled_rate / python_rate:7.1f}x"
        )


if __name__ == "__main__":
    main()
