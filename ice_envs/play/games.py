"""What the terminal player needs to know about each game, beyond the env API.

Three questions, answered per game (a game not listed gets the plain answers):

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

from collections.abc import Callable
from typing import Any

GroupPath = tuple[str, ...]


def game_key(raw: Any) -> str:
    """The registry name of the game of env ``raw`` (``"cardiceo"``...)."""
    return str(raw.metadata["name"]).removesuffix("_v0")


# ---------------------------------------------------------------------------- menu groups
def _cubemelt_path(raw: Any, action: int) -> GroupPath:
    from ice_envs.cubemelt import rules

    if not 0 < action < rules.NUM_SUBSETS:
        return ()
    k = bin(action).count("1")
    head = "pay 1 Melt and re-roll some dice" if rules.next_reroll_paid(raw.state) else "re-roll some dice (free)"
    return (head, f"re-roll {k} {'die' if k == 1 else 'dice'}")


def _diceberg_path(raw: Any, action: int) -> GroupPath:
    from ice_envs.tip_of_the_diceberg import rules

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


def _rummy_path(raw: Any, action: int) -> GroupPath:
    from ice_envs.iceberg_rummy import rules

    if action < rules.DISCARD_BASE:
        return ("select a card for a meld or lay-off",)
    if action < rules.COMMIT_NEW:
        return ("discard a card face down (ends the turn)",)
    if rules.LAYOFF_BASE <= action < rules.CLEAR_SELECTION:
        return ("lay the selection off onto a table meld",)
    return ()


def _icebergs_path(raw: Any, action: int) -> GroupPath:
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


_PATHS: dict[str, Callable[[Any, int], GroupPath]] = {
    "cubemelt": _cubemelt_path,
    "tip_of_the_diceberg": _diceberg_path,
    "iceberg_rummy": _rummy_path,
    "icebergs": _icebergs_path,
}


def group_path(raw: Any, action: int) -> GroupPath:
    """The menu groups (outermost first) of legal ``action`` in env ``raw``'s state."""
    fn = _PATHS.get(game_key(raw))
    return fn(raw, action) if fn else ()


# ---------------------------------------------------------------------------- selections
def in_selection(raw: Any) -> bool:
    """Whether the acting player is composing a move that is not committed yet.

    Tip of the Diceberg: a meld being composed (``state.selection`` in the play phase)
    or dice marked for the reroll power (``state.marks``). Iceberg Rummy: the play being
    composed (``state.selection``). The other games take every move in one action.
    """
    key = game_key(raw)
    s = raw.state
    if key == "tip_of_the_diceberg":
        from ice_envs.tip_of_the_diceberg import rules

        return bool((s.phase == rules.PHASE_PLAY and s.selection) or (s.phase == rules.PHASE_REROLL and s.marks))
    if key == "iceberg_rummy":
        from ice_envs.iceberg_rummy import rules

        return bool(s.phase == rules.PHASE_MELD and s.selection)
    return False


SELECTION_HELP = {
    "tip_of_the_diceberg": "the cards and dice added to the meld you are composing, or the dice marked to re-roll",
    "iceberg_rummy": "the cards selected for the meld or lay-off you are composing",
}


# ---------------------------------------------------------------------------- what others see
def public_description(raw: Any, action: int, viewer: int) -> str | None:
    """The text of the selected agent's ``action`` as seat ``viewer`` may see it.

    Call before the action is taken. ``None``: nothing to show yet (the step only
    becomes public later, e.g. a meld shown when it is played).
    """
    seat = raw.current_seat
    text = raw.describe_action(action)
    if seat == viewer:
        return text
    key = game_key(raw)
    if key == "tip_of_the_diceberg":
        from ice_envs.tip_of_the_diceberg import rules

        if action < rules.COMMIT or rules.MARK <= action < rules.REROLL:
            return None  # the meld being composed and the marked dice are shown when played
    elif key == "iceberg_rummy":
        from ice_envs.iceberg_rummy import rules

        if rules.DISCARD_BASE <= action < rules.COMMIT_NEW:
            left = (seat + 1) % raw.num_players
            if viewer != left:
                return f"discard a card face down to player_{left}"
    return text
