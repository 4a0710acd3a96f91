"""Terminal-UI hooks of Tip of the Diceberg (``ice-envs play``), named by the game's spec (``ui=``).

Each hook is optional; :mod:`ice_envs.play.games` gives the plain answer for a missing one.
"""

from __future__ import annotations

from typing import Any

from ice_envs.tip_of_the_diceberg import rules


def group_path(raw: Any, action: int) -> tuple[str, ...]:
    """The menu groups (outermost first) of legal ``action``."""
    if action < rules.ADD_DIE:
        return ("add a card to the meld",)
    if action < rules.COMMIT:
        return ("add one of your dice to the meld",)
    if action < rules.PASS:
        return ("play the meld to a Diceberg slot",)
    if rules.PASS_TAKE <= action < rules.DRAFT:
        return ("pass and take a die from the pool",)
    if rules.DISCARD <= action < rules.MARK:
        return ("discard power: discard a card",)
    if rules.MARK <= action < rules.REROLL:
        return ("reroll power: mark a die",)
    return ()


#: What ``undo`` takes back, for the help text.
SELECTION_HELP = "the cards and dice added to the meld you are composing, or the dice marked to re-roll"


def in_selection(raw: Any) -> bool:
    """A meld being composed (``selection`` in the play phase) or dice marked for the reroll power."""
    s = raw.game_state
    return bool((s.phase == rules.PHASE_PLAY and s.selection) or (s.phase == rules.PHASE_REROLL and s.marks))


def public_description(raw: Any, action: int, viewer: int) -> str | None:
    """The meld being composed and the marked dice are shown only when played (``None`` until then)."""
    if raw.current_seat != viewer and (action < rules.COMMIT or rules.MARK <= action < rules.REROLL):
        return None
    return raw.describe_action(action)
