"""The element-wise observation encoding computes every value as float32 array operations would."""

from __future__ import annotations

import numpy as np

from ice_envs.icebergs import env as icebergs_env


def test_next_third_replays_float32_additions_of_a_third() -> None:
    plane = np.zeros(1, dtype=np.float32)
    for _ in range(icebergs_env.SHIP_SLOTS):
        before = float(plane[0])
        plane[0] += 1.0 / 3.0
        assert icebergs_env._NEXT_THIRD[before] == float(plane[0])


def test_piled_up_ice_is_capped_like_the_observation_box() -> None:
    e = icebergs_env.raw_env(num_players=2)
    # every floe and every iceberg of the map piled into one space each (the most a position may hold)
    m = e.hexmap
    e.reset(
        seed=0,
        options={
            "floes": [5] * (len(m.floe_starts) + m.spare_floes),
            "icebergs": [30] * len(m.iceberg_starts),
            "spare_floes": 0,
        },
    )
    obs = e.observe("player_0")["observation"]
    s = e.hexmap.num_spaces
    high = e.observation_space("player_0")["observation"].high
    assert obs[4 * s + 5] == high[4 * s + 5]
    assert obs[5 * s + 30] == high[5 * s + 30]
    assert obs.dtype == np.float32 and (obs <= high).all()
