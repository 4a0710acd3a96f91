"""Golden trajectory digests: proof that an optimisation changed no behaviour.

For every registered case (game x variant x player count) and a few seeds, a random-legal
game is played through ``env()`` (the action picked from the mask by a generator seeded
like the game) and everything an agent can see at every step is hashed: the agent to
move, its observation and action mask, its reward, termination and truncation, and the
action taken. ``tests/data/trajectory_digests.json`` holds the digests recorded before the
performance work; ``tests/test_trajectory_digests.py`` replays them.

    python -m tests.trajectory_digests --write    # re-record (only for a deliberate rules change)
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

import ice_envs
from ice_envs.core.masks import sample_legal
from ice_envs.core.registry import all_cases

DIGEST_FILE = Path(__file__).parent / "data" / "trajectory_digests.json"
SEEDS = (0, 1)
#: Decisions hashed per game (long games are cut; the digest covers their opening).
MAX_DECISIONS = 600


def case_key(game: str, variant: str, n: int, seed: int) -> str:
    return f"{game}/{variant}/{n}p/seed{seed}"


def digest(game: str, n: int, options: dict, seed: int) -> str:
    """The SHA-256 of one random game's visible trajectory."""
    env = ice_envs.make(game, num_players=n, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        h.update(agent.encode())
        h.update(np.ascontiguousarray(obs["observation"]).tobytes())
        h.update(np.ascontiguousarray(obs["action_mask"]).tobytes())
        h.update(repr((float(reward), bool(term), bool(trunc))).encode())
        if term or trunc:
            env.step(None)
            continue
        action = sample_legal(rng, obs["action_mask"])
        h.update(action.to_bytes(4, "little"))
        env.step(action)
        decisions += 1
        if decisions >= MAX_DECISIONS:
            break
    return h.hexdigest()


def all_digests() -> dict[str, str]:
    return {case_key(g, v, n, seed): digest(g, n, opts, seed) for g, v, n, opts in all_cases() for seed in SEEDS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"record the digests into {DIGEST_FILE}")
    args = parser.parse_args(argv)
    digests = all_digests()
    if args.write:
        DIGEST_FILE.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(digests)} digests to {DIGEST_FILE}")
        return 0
    recorded = json.loads(DIGEST_FILE.read_text())
    changed = sorted(k for k in digests if recorded.get(k) != digests[k])
    print(f"{len(digests) - len(changed)} of {len(digests)} digests unchanged; changed: {changed}")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
