"""The table as the browser shows it: the picture of a seat's view and the legal moves.

:func:`table_picture` draws ``render_view(viewer, "svg")`` (the same drawing as the PNG
pictures) inline, so that its elements tagged ``data-target="<key>"`` can be clicked; a game
without the SVG output is shown as its PNG picture. :func:`move_targets` maps each picture key
to the legal actions it stands for (the env's ``action_target``), and :func:`move_groups`
lays the legal moves out as the terminal menu does (:class:`ice_envs.play.menu.MoveMenu`):
flat when there are few, grouped by the game's ``group_path`` when there are many.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ice_envs.play.games import group_path
from ice_envs.play.menu import MoveMenu

#: The most moves one level of the move list shows before grouping them.
MENU_LIMIT = 16


def table_picture(raw: Any, viewer: int | None) -> str:
    """The table seen by ``viewer`` (``None``: everything) as inline SVG, or a PNG ``<img>`` without SVG."""
    try:
        svg = raw.render_view(viewer, "svg")
    except (ValueError, TypeError, NotImplementedError):
        svg = None
    if isinstance(svg, str) and svg.lstrip().startswith("<svg"):
        return svg
    frame = np.asarray(raw.render_view(viewer, "rgb_array"), dtype=np.uint8)
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img class="table-png" alt="the table" src="data:image/png;base64,{data}">'


def move_targets(raw: Any, legal: list[int]) -> dict[str, list[int]]:
    """Picture key -> the legal actions it stands for (empty where the game tags no moves)."""
    hook = getattr(raw, "action_target", None)
    out: dict[str, list[int]] = {}
    if hook is None:
        return out
    for action in legal:
        key = hook(action)
        if key:
            out.setdefault(str(key), []).append(int(action))
    return out


@dataclass
class MoveGroup:
    """One line of the move list: a move (``action`` set) or a group of moves (``children``)."""

    label: str
    action: int | None = None
    children: list[MoveGroup] = field(default_factory=list)

    @property
    def size(self) -> int:
        return 1 if self.action is not None else sum(c.size for c in self.children)


def move_groups(raw: Any, legal: list[int], limit: int = MENU_LIMIT) -> list[MoveGroup]:
    """The legal moves as nested groups (the terminal menu's layout, every group opened)."""
    menu = MoveMenu(legal, raw.describe_action, lambda a: group_path(raw, a), limit=limit)

    def level(prefix: tuple[str, ...]) -> list[MoveGroup]:
        menu.prefix = prefix
        out = []
        for entry in menu.entries():
            if entry.path is None:
                out.append(MoveGroup(entry.label, action=entry.actions[0]))
            else:
                name = entry.path[-1]
                out.append(MoveGroup(name, children=level(entry.path)))
                menu.prefix = prefix
        return out

    return level(())
