"""The compiled Icebergs engine makes exactly the scalar env's transitions (:mod:`ice_envs.core.engine_parity`).

Every (variant, player count) of the spec is covered, plus score rewards with a short decision cap,
``illegal_action="penalize"``, a ``max_turns`` truncation and a ``max_turns_end="decide"`` end, the
packaged small map and a custom map text. Random play on the default map almost never brings a ship
home (games end by ``max_turns``), so the small maps carry the game ends: arrivals home, Cargo lost
at sea, the fleet ends, the decision by Cargo, sinking and restarting.

``ICE_ICEBERGS_PARITY_TRANSITIONS`` (default 110,000) sets the number of transitions in all.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import ice_envs
from ice_envs import vector
from ice_envs.core.compiled import CompiledEngine
from ice_envs.core.engine_parity import run_parity
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.icebergs.compiled import IcebergsCompiled

TOTAL_TRANSITIONS = int(os.environ.get("ICE_ICEBERGS_PARITY_TRANSITIONS", "110000"))
NUM_ENVS = 8

#: A 3 x 3 map on which random play brings ships home: two icebergs and two floes in some spaces.
TINY_MAP = """name: tiny
spare_floes: 3
grid:
.   BB  F
FF  #   .
.   BF  .
"""


def _cases() -> list[tuple[str, int, dict[str, Any]]]:
    cases = list(ice_envs.get_spec("icebergs").cases())
    cases += [
        ("score+cap", 3, {"reward_mode": "score", "max_decisions": 60}),
        ("penalize", 4, {"illegal_action": "penalize", "illegal_reward": -2.0}),
        ("max_turns", 3, {"max_turns": 5}),
        ("strait", 2, {"map": "strait"}),
        ("strait_solo", 1, {"map": "strait", "solo": True}),
        ("tiny", 3, {"map_text": TINY_MAP, "reward_mode": "score"}),
        ("tiny_decide", 2, {"map_text": TINY_MAP, "max_turns": 10, "max_turns_end": "decide"}),
        ("tiny_fleet", 2, {"map_text": TINY_MAP, "fleet": True, "fleet_end": "all_ships", "exit_penalties": False}),
        ("tiny_fleet3", 3, {"map_text": TINY_MAP, "fleet": True}),
        ("tiny_restart", 4, {"map_text": TINY_MAP, "restart_on_sink": True, "entry_cost": "all_moves"}),
        ("tiny_solo", 1, {"map_text": TINY_MAP, "solo": True, "solo_ice_six": "player"}),
        ("tiny_solo_random", 1, {"map_text": TINY_MAP, "solo": True}),
    ]
    return cases


CASES = _cases()
STEPS = max(8, TOTAL_TRANSITIONS // (NUM_ENVS * len(CASES)))


@pytest.mark.parametrize(("variant", "num_players", "options"), CASES, ids=[f"{c[0]}-{c[1]}p" for c in CASES])
def test_compiled_transitions_equal_the_scalar_engine(variant, num_players, options):
    transitions, games = run_parity(
        "icebergs", num_players, options, STEPS, seed=len(variant) * 7 + num_players, kind="compiled", num_envs=NUM_ENVS
    )
    assert transitions == NUM_ENVS * STEPS


def test_the_parity_run_covers_every_variant_and_enough_transitions():
    assert NUM_ENVS * STEPS * len(CASES) >= TOTAL_TRANSITIONS * 0.99
    spec = ice_envs.get_spec("icebergs")
    covered = {(v, n) for v, n, _ in CASES}
    assert covered >= {(v, n) for v, n, _ in spec.cases()}


def test_the_small_maps_reach_every_kind_of_game_end():
    """Random play on the tiny map ends games every way: decided (with a winner), by max_turns, by a cap."""
    engine = vector.make("icebergs", 64, 3, seed=5, engine="compiled", map_text=TINY_MAP, max_turns=30)
    _, mask, _ = engine.reset()
    rng = np.random.default_rng(5)
    terminated = truncated = won = 0
    for _ in range(400):
        _, mask, _, _, term, trunc, info = engine.step(vector.random_actions(mask, rng))
        terminated += int(term.sum())
        truncated += int(trunc.sum())
        won += int((info["final_outcome"].max(axis=1) > 0).sum())
    assert terminated and truncated and won


# ---------------------------------------------------------------------------- API
def test_the_compiled_engine_is_the_auto_engine():
    cls = vector.engine_class("icebergs")
    assert cls is IcebergsCompiled and issubclass(cls, CompiledEngine)


def test_reset_step_shapes_and_auto_reset():
    engine = vector.make("icebergs", 5, 2, seed=1, engine="compiled", max_turns=3)
    obs, mask, seat = engine.reset()
    assert obs.shape == (5, engine.obs_dim) and obs.dtype == np.float32
    assert mask.shape == (5, engine.n_actions) and mask.dtype == np.int8
    assert engine.n_actions == 1392 and engine.obs_dim == 1531
    assert seat.shape == (5,) and mask.any(axis=1).all()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        obs, mask, seat, rewards, term, trunc, info = engine.step(vector.random_actions(mask, rng))
        assert rewards.shape == (5, 2)
        assert info["final_obs"].shape == (len(info["final_index"]), 2, engine.obs_dim)
        assert np.array_equal(info["final_index"], np.flatnonzero(term | trunc))
        ended += len(info["final_index"])
        assert mask.any(axis=1).all()  # every game, a new one included, has a legal action
    assert ended > 0


def test_the_map_sets_the_spaces_and_the_state_width():
    small = vector.make("icebergs", 2, 2, engine="compiled", map="strait")
    large = vector.make("icebergs", 2, 2, engine="compiled")
    assert small.n_actions < large.n_actions and small.obs_dim < large.obs_dim
    assert small.state.shape[1] < large.state.shape[1]
    assert small.state.dtype == np.int16


def test_an_illegal_action_raises_and_changes_nothing():
    engine = vector.make("icebergs", 3, 2, seed=2, engine="compiled")
    _, mask, _ = engine.reset()
    before = engine.state.copy()
    actions = np.argmax(mask, axis=1)
    actions[1] = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 1"):
        engine.step(actions)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        engine.step(np.full(3, engine.n_actions))
    assert np.array_equal(engine.state, before)


def test_games_do_not_depend_on_the_batch_size():
    small = vector.make("icebergs", 2, 3, seed=4, engine="compiled", map="strait")
    large = vector.make("icebergs", 6, 3, seed=4, engine="compiled", map="strait")
    obs_s, mask_s, _ = small.reset()
    obs_l, mask_l, _ = large.reset()
    for _ in range(50):
        actions = np.argmax(mask_s, axis=1)
        obs_s, mask_s, *_ = small.step(actions)
        obs_l, mask_l, *_ = large.step(np.concatenate([actions, np.argmax(mask_l[2:], axis=1)]))
        assert np.array_equal(obs_s, obs_l[:2]) and np.array_equal(mask_s, mask_l[:2])


def test_a_bad_option_is_one_clear_error():
    with pytest.raises(OptionError, match="render"):
        vector.make("icebergs", 2, 2, engine="compiled", render_mode="ansi")
    with pytest.raises(OptionError, match="map"):
        vector.make("icebergs", 2, 2, engine="compiled", map_text="grid:\n. #\n")
