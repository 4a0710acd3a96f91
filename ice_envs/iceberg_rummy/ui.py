"""Terminal-UI hooks of Iceberg Rummy (``ice-envs play``), named by the game's spec (``ui=``).

Each hook is optional; :mod:`ice_envs.play.games` gives the plain answer for a missing one.
"""

from __future__ import annotations

from typing import Any

from ice_envs.iceberg_rummy import rules


def group_path(raw: Any, action: int) -> tuple[str, ...]:
    """The menu groups (outermost first) of legal ``action``."""
    if action < rules.DISCARD_BASE:
        return ("select a card for a meld or lay-off",)
    if action < rules.COMMIT_NEW:
        return ("discard a card face down (ends the turn)",)
    if rules.LAYOFF_BASE <= action < rules.CLEAR_SELECTION:
        return ("lay the selection off onto a table meld",)
    return ()


#: What ``undo`` takes back, for the help text.
SELECTION_HELP = "the cards selected for the meld or lay-off you are composing"


def in_selection(raw: Any) -> bool:
    """The play being composed (``selection`` in the meld phase)."""
    s = raw.game_state
    return bool(s.phase == rules.PHASE_MELD and s.selection)


def public_description(raw: Any, action: int, viewer: int) -> str | None:
    """A discard is passed face down: only the player to the left sees which card it is."""
    seat = raw.current_seat
    if seat != viewer and rules.DISCARD_BASE <= action < rules.COMMIT_NEW:
        left = (seat + 1) % raw.num_players
        if viewer != left:
            return f"discard a card face down to player_{left}"
    return raw.describe_action(action)
