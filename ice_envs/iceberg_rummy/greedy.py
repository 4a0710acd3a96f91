"""Iceberg Rummy's greedy value: the seat's game score if the hand ended now.

:func:`value` is what the seat's total would be if the hand were settled at once, by the
game's own scoring (R4.1-R4.8): the game total so far plus this hand's meld points minus the
end-of-hand penalty of the cards it still holds (:func:`ice_envs.iceberg_rummy.rules.hand_penalty`:
cards that could still be played cost what playing them would earn, the others 10 each),
times the ace multiplier (or plus the ace bonus under the ace-scoring variants). So a meld or
lay-off is worth its points plus the penalty it saves, and a discard the penalty of the card
passed (the deadest card goes first).

A play is composed card by card (the action space), so the play being composed counts as
the best legal play it can still become, laid: while the seat is composing, the value adds that
play's points and charges the penalty of the hand without its cards. Selecting a card is thus
worth what the play it leads to is worth, and the greedy agent builds the most valuable play.

A finished game is worth ``WIN`` to each winner (the highest total, R6) and ``-WIN`` to the
others; a game stopped undecided at the hand cap is worth the seat's total. The value reads
the seat's own hand, its meld points and the public table only.
"""

from __future__ import annotations

import copy

from ice_envs.iceberg_rummy import rules

#: Weight of a finished game's result (far above any score).
WIN = 10**9


def value(state: rules.IcebergRummyState, seat: int) -> int:
    """The greedy value of ``state`` for ``seat`` (higher is better; see the module docstring)."""
    if state.phase == rules.PHASE_OVER:
        if state.winners:
            return WIN if seat in state.winners else -WIN
        return int(state.totals[seat])
    points = int(state.hand_points[seat])
    held = state
    if state.current == seat and state.selection:
        best = best_completion(state)
        if best is not None:
            cards, play_points = best
            points += play_points
            held = copy.copy(state)
            held.hands = state.hands.copy()
            for c in cards:
                held.hands[seat, c] -= 1
    penalty = rules.hand_penalty(held, seat)[0]
    raw = points - penalty
    if state.config.ace_scoring == "multiplier":
        hand = raw * (1 + int(state.aces[seat]))
    else:
        hand = raw + int(state.ace_bonus[seat])
    return int(state.totals[seat]) + hand


def best_completion(state: rules.IcebergRummyState) -> tuple[tuple[int, ...], int] | None:
    """The most valuable legal play ``(cards, points)`` whose cards start with the selection being
    composed; among equal points the one with fewer cards, then the lowest cards. ``None`` if none."""
    sel = tuple(state.selection)
    k = len(sel)
    best_key: tuple | None = None
    best: tuple[tuple[int, ...], int] | None = None
    for cards, _target, points in rules.analysis(state).plays:
        if cards[:k] != sel:
            continue
        key = (points, -len(cards), tuple(-c for c in cards))
        if best_key is None or key > best_key:
            best_key, best = key, (tuple(cards), int(points))
    return best
