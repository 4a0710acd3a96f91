"""Terminal-UI hooks of Icebergs (``ice-envs play``), named by the game's spec (``ui=``).

Each hook is optional; :mod:`ice_envs.play.games` gives the plain answer for a missing one.
"""

from __future__ import annotations

from typing import Any


def group_path(raw: Any, action: int) -> tuple[str, ...]:
    """The menu groups (outermost first) of legal ``action``."""
    lay = raw.layout
    m = raw.hexmap
    if lay.enter <= action < lay.floe:
        return ("enter the map",)
    if lay.floe <= action < lay.place:
        is_floe = action < lay.berg
        space = (action - (lay.floe if is_floe else lay.berg)) // 7
        piece = "ice floe" if is_floe else "iceberg"
        return (f"move an {piece}", f"the {piece} at {m.label(space)}")
    if lay.place <= action < lay.drift:
        row = (action - lay.place) // m.cols
        return ("place a spare ice floe", f"on row {row}")
    if lay.drift <= action < lay.decline:
        return ("drift",)
    return ()
