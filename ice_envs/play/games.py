"""What the terminal player needs to know about a game beyond the env API, from the game's UI hooks.

Three questions, each answered by the game's own ``ui`` module (named by its spec; see
``ice_envs/<game>/ui.py``), with the plain answer where a game has no such hook:

* :func:`group_path` — where an action sits in the menu of legal moves, so that long
  lists are offered as groups (Icebergs' floe moves by floe, CubeMelt's re-rolls by the
  number of dice, the composition steps of a meld...);
* :func:`in_selection` — whether the acting player is part-way through composing a
  move (a Tip of the Diceberg or Iceberg Rummy meld, dice marked for a re-roll) that
  ``undo`` may take back;
* :func:`public_description` — how an opponent's action is shown to a seat: the full
  ``describe_action`` text, a redacted one when it would reveal hidden cards (a card
  passed face down, a meld still being composed), or ``None`` to show nothing yet.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ice_envs.core.registry import spec_of

GroupPath = tuple[str, ...]


def _hook(raw: Any, name: str) -> Any:
    module: ModuleType | None = spec_of(raw).ui_module()
    return getattr(module, name, None) if module is not None else None


def group_path(raw: Any, action: int) -> GroupPath:
    """The menu groups (outermost first) of legal ``action`` in env ``raw``'s state."""
    fn = _hook(raw, "group_path")
    return tuple(fn(raw, action)) if fn else ()


def in_selection(raw: Any) -> bool:
    """Whether the acting player is composing a move that is not committed yet."""
    fn = _hook(raw, "in_selection")
    return bool(fn(raw)) if fn else False


def selection_help(raw: Any) -> str:
    """What ``undo`` takes back in this game ("" where moves are never composed)."""
    return str(_hook(raw, "SELECTION_HELP") or "")


def public_description(raw: Any, action: int, viewer: int) -> str | None:
    """The text of the selected agent's ``action`` as seat ``viewer`` may see it.

    Call before the action is taken. ``None``: nothing to show yet (the step only
    becomes public later, e.g. a meld shown when it is played).
    """
    fn = _hook(raw, "public_description")
    return fn(raw, action, viewer) if fn else raw.describe_action(action)
