"""Agent digests: proof that a speed-up of an agent (a cache, a faster state copy) changed no decision.

The trajectory digests (:mod:`tests.trajectory_digests`) play random games; the heuristic and greedy
agents also read engine copies and their own searches, which those digests never reach. Here, for every
game at its smallest table (2 players, Tip of the Diceberg 3) and at its suite v1 table size, a few games are played by a table of the game's
heuristic, greedy and random agents (seats rotated, agents and views seeded as in ``ice-envs
evaluate``), and every decision (seat, action) and the final scores are hashed. A digest that changes
means some agent decides differently.

    python -m tests.agent_digests            # compare with tests/data/agent_digests.json
    python -m tests.agent_digests --write    # re-record (only when a decision is meant to change)
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

import ice_envs
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.core.agent import make_view

DIGEST_FILE = Path(__file__).parent / "data" / "agent_digests.json"
#: Game -> (player counts, env options): the smallest table and the suite v1 table size, as the leagues play them.
CASES: dict[str, tuple[tuple[int, ...], dict]] = {
    "cardiceo": ((2, 4), {}),
    "cubemelt": ((2, 3), {}),
    "iceberg_rummy": ((2, 4), {"single_hand": True}),
    "tip_of_the_diceberg": ((3, 4), {}),
    "icebergs": ((2, 4), {"max_turns_end": "decide"}),
}
#: The table, seat 0 first, cut to the player count.
TABLE = ("heuristic", "greedy", "heuristic", "random")
GAMES = 4
SEED = 20261202


def case_key(game: str, n: int) -> str:
    return f"{game}/{n}p"


def digest(game: str, n: int, options: dict, games: int = GAMES, seed: int = SEED) -> str:
    """The SHA-256 of every decision and final score of ``games`` games of ``TABLE[:n]`` (rotated per game)."""
    specs = TABLE[:n]
    agents = [load_agent(parse_agent_spec(spec), game, num_players=n) for spec in specs]
    h = hashlib.sha256()
    for g in range(games):
        env = ice_envs.make(game, num_players=n, **options)
        env.reset(seed=seed + g)
        raw = env.unwrapped
        for k, agent in enumerate(agents):
            agent.reset(seed=seed * 100 + g * 10 + k)
        view_rng = np.random.default_rng([seed, g])
        for agent_name in env.agent_iter():
            _, _, term, trunc, _ = env.last(observe=False)
            if term or trunc:
                env.step(None)
                continue
            seat = raw.possible_agents.index(agent_name)
            agent = agents[(seat - g) % n]
            obs = env.observe(agent_name)
            view = make_view(env, seat, view_rng) if agent.needs_view else None
            action = int(agent.act(obs, view))
            h.update(f"{seat}:{action};".encode())
            env.step(action)
        h.update(np.asarray(raw.scores(), dtype=np.float64).tobytes())
    return h.hexdigest()


def current() -> dict[str, str]:
    return {case_key(game, n): digest(game, n, opts) for game, (counts, opts) in CASES.items() for n in counts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="re-record tests/data/agent_digests.json")
    args = parser.parse_args()
    now = current()
    if args.write:
        DIGEST_FILE.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(now)} digests to {DIGEST_FILE}")
        return 0
    recorded = json.loads(DIGEST_FILE.read_text())
    changed = sorted(key for key in recorded if now.get(key) != recorded[key])
    print(f"agent digests: {len(recorded) - len(changed)} of {len(recorded)} unchanged")
    for key in changed:
        print(f"  changed: {key}")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
