"""Reward-shaping potentials of Icebergs (named by the game's spec, used by ``reward_shaping`` in training).

``icebergs_voyage`` (:func:`voyage`): the sparse Cargo reward only arrives when a ship is home,
so the potential tells the learner how far its ships are through the voyage.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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


def voyage_rows(state: np.ndarray, cfg: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """:func:`voyage` of ``seats[i]`` in every game ``i`` of the compiled engine (``state``: its
    ``(n, width)`` state rows, ``cfg``: its config row), as float64, bit for bit :func:`voyage`'s value
    (the same divisions, the ships added in the same order)."""
    from ice_envs.icebergs import compiled as c

    rows = np.arange(len(state))
    seats = np.asarray(seats, dtype=np.int64)
    kps, cols = int(cfg[c.C_KPS]), int(cfg[c.C_COLS])
    total = np.zeros(len(state), dtype=np.float64)
    for j in range(kps):
        ship = seats * kps + j
        status = state[rows, c.STATUS + ship].astype(np.int64)
        col = state[rows, c.POS + ship].astype(np.int64) % cols
        loaded = state[rows, c.LOADED + ship] != 0
        at_sea = np.where(loaded, 1 + (col + 1) / (cols + 1), (cols - col) / (cols + 1))
        value = np.where(status == c.AT_SEA, at_sea, 0.0)
        value = np.where((status == c.ALASKA_LOADING) | (status == c.ALASKA_READY), 1.0, value)
        value = np.where(status == c.HOME, 2.0, value)
        total = total + value
    return total / kps
