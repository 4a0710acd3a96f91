"""Terminal-UI hooks of CubeMelt (``ice-envs play``), named by the game's spec (``ui=``).

Each hook is optional; :mod:`ice_envs.play.games` gives the plain answer for a missing one.
"""

from __future__ import annotations

from typing import Any

from ice_envs.cubemelt import rules


def group_path(raw: Any, action: int) -> tuple[str, ...]:
    """The menu groups (outermost first) of legal ``action``."""
    if not 0 < action < rules.NUM_SUBSETS:
        return ()
    k = bin(action).count("1")
    head = "pay 1 Melt and re-roll some dice" if rules.next_reroll_paid(raw.game_state) else "re-roll some dice (free)"
    return (head, f"re-roll {k} {'die' if k == 1 else 'dice'}")
