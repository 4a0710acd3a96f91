"""Terminal-UI hooks of Cardiceo (``ice-envs play``), named by the game's spec (``ui=``).

Each hook is optional; :mod:`ice_envs.play.games` gives the plain answer for a missing one.
"""

from __future__ import annotations


def group_path(raw: object, action: int) -> tuple[str, ...]:
    """Cardiceo's menus are short (at most a few dozen moves): no groups."""
    return ()
