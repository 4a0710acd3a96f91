"""Reward-shaping potentials of Icebergs (named by the game's spec, used by ``reward_shaping`` in training).

``icebergs_voyage`` (:func:`voyage`): the sparse Cargo reward only arrives when a ship is home,
so the potential tells the learner how far its ships are through the voyage.
"""

from __future__ import annotations

from typing import Any

from ice_envs.icebergs import rules


def voyage(env: Any, seat: int) -> float:
    """How far the seat's ships are through the voyage to Alaska and home, in [0, 2].

    Per ship: 0 in Newfoundland (or sunk); at sea on the way out, the share of the map's
    columns already crossed westward; 1 in Alaska; at sea loaded, 1 plus the share crossed
    back eastward; 2 home. The seat's potential is the mean over its ships.
    """
    state = env.game_state
    cfg = state.config
    cols = cfg.hexmap.cols
    ships = range(seat * cfg.ships_per_player, (seat + 1) * cfg.ships_per_player)
    total = 0.0
    for k in ships:
        status = state.status[k]
        if status == rules.AT_SEA:
            col = state.pos[k] % cols
            total += 1 + (col + 1) / (cols + 1) if state.loaded[k] else (cols - col) / (cols + 1)
        elif status in (rules.ALASKA_LOADING, rules.ALASKA_READY):
            total += 1.0
        elif status == rules.HOME:
            total += 2.0
    return total / cfg.ships_per_player
