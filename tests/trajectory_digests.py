"""Trajectory digests: proof that an optimisation or an addition changed no behaviour.

For every registered case (game x variant x player count) and a few seeds, a random-legal
game is played through ``env()`` (the action picked from the mask by a generator seeded
like the game) and everything an agent can see at every step is hashed: the agent to
move, its observation and action mask, its reward, termination and truncation, and the
action taken.

Two files hold them:

* ``tests/data/trajectory_digests.json`` — the **golden** digests, recorded before the
  performance work and never re-recorded. An env may since have gained observation pieces
  and options, so a golden digest is replayed on what existed when it was recorded: the
  observation is cut down to the pieces of that time (``trajectory_digest_layouts.json``,
  by name, in their order; each must still exist with its size), options whose default
  changed are pinned to the old default (:data:`GOLDEN_PINS`), and forced steps are not
  skipped. A golden digest that changes means the rules or an existing observation piece
  changed.
* ``tests/data/trajectory_digests_current.json`` — the whole observation under the current
  defaults, and the same with ``skip_forced=True`` (``<case>/skip_forced``), for every case;
  re-recorded (``--write``) whenever an observation piece or a default is added on purpose.

    python -m tests.trajectory_digests            # compare both files
    python -m tests.trajectory_digests --write    # re-record the current file (never the golden one)
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.masks import sample_legal
from ice_envs.core.registry import all_cases

DATA = Path(__file__).parent / "data"
GOLDEN_FILE = DATA / "trajectory_digests.json"
GOLDEN_LAYOUTS_FILE = DATA / "trajectory_digest_layouts.json"
CURRENT_FILE = DATA / "trajectory_digests_current.json"
SEEDS = (0, 1)
#: Decisions hashed per game (long games are cut; the digest covers their opening).
MAX_DECISIONS = 600
#: Options whose default changed since the golden digests were recorded: game -> {option: old default}.
GOLDEN_PINS: dict[str, dict[str, Any]] = {
    "cubemelt": {"ninja_targets": "neighbours"},  # v1: the Ninja sends its dice to all other players
    "icebergs": {"extra_ships": True},  # v1: a 3-player fleet has the box's 6 ships (2 each) unless extra_ships
}
#: The suffix of a current-file key whose game skips forced steps.
SKIP_FORCED = "skip_forced"


def case_key(game: str, variant: str, n: int, seed: int, suffix: str = "") -> str:
    key = f"{game}/{variant}/{n}p/seed{seed}"
    return f"{key}/{suffix}" if suffix else key


def layout_key(game: str, variant: str, n: int) -> str:
    return f"{game}/{variant}/{n}p"


@functools.cache
def golden_layouts() -> dict[str, list[tuple[str, int]]]:
    """Observation pieces (name, size) of each case when the golden digests were recorded."""
    raw = json.loads(GOLDEN_LAYOUTS_FILE.read_text())
    return {key: [(str(name), int(size)) for name, size in pieces] for key, pieces in raw.items()}


def piece_indices(env: Any, pieces: Sequence[tuple[str, int]]) -> np.ndarray:
    """Indices of ``pieces`` (name, size) in the env's observation vector, in their order."""
    return env.unwrapped.obs_layout.indices(pieces)


def digest(game: str, n: int, options: dict, seed: int, pieces: Sequence[tuple[str, int]] | None = None) -> str:
    """The SHA-256 of one random game's visible trajectory (only ``pieces`` of each observation, if given)."""
    env = ice_envs.make(game, num_players=n, **options)
    env.reset(seed=seed)
    take = None if pieces is None else piece_indices(env, pieces)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        vector = obs["observation"] if take is None else obs["observation"][take]
        h.update(agent.encode())
        h.update(np.ascontiguousarray(vector).tobytes())
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


def golden_options(game: str, options: dict) -> dict:
    """A case's options as the golden digests played them: old defaults pinned, no forced-step skipping."""
    return {**GOLDEN_PINS.get(game, {}), "skip_forced": False, **options}


def golden_digest(game: str, variant: str, n: int, options: dict, seed: int) -> str:
    pieces = golden_layouts()[layout_key(game, variant, n)]
    return digest(game, n, golden_options(game, options), seed, pieces)


def current_digests() -> dict[str, str]:
    out = {}
    for g, v, n, opts in all_cases(built_in_only=True):
        for seed in SEEDS:
            out[case_key(g, v, n, seed)] = digest(g, n, {**opts, "skip_forced": False}, seed)
            out[case_key(g, v, n, seed, SKIP_FORCED)] = digest(g, n, {**opts, "skip_forced": True}, seed)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"re-record {CURRENT_FILE.name} (never the golden file)")
    args = parser.parse_args(argv)
    current = current_digests()
    if args.write:
        CURRENT_FILE.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(current)} digests to {CURRENT_FILE}")
    golden = json.loads(GOLDEN_FILE.read_text())
    layouts = golden_layouts()
    cases = {layout_key(g, v, n): (g, v, n, o) for g, v, n, o in all_cases(built_in_only=True)}
    changed = []
    for key, (g, v, n, opts) in cases.items():
        if key not in layouts:
            continue
        for seed in SEEDS:
            if golden_digest(g, v, n, opts, seed) != golden[case_key(g, v, n, seed)]:
                changed.append(case_key(g, v, n, seed))
    print(f"golden: {len(golden) - len(changed)} of {len(golden)} unchanged; changed: {changed}")
    if args.write:
        return 1 if changed else 0
    recorded = json.loads(CURRENT_FILE.read_text()) if CURRENT_FILE.exists() else {}
    differ = sorted(k for k in current if recorded.get(k) != current[k])
    print(f"current: {len(current) - len(differ)} of {len(current)} unchanged; changed: {differ}")
    return 1 if changed or differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
