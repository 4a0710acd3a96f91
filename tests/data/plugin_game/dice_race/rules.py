"""Dice Race — the pure game engine (no PettingZoo).

Every player starts on square 0 of a track of ``goal`` squares. At the start of a turn the
player's die is rolled (the roll is public). The player then chooses:

======  ================================================================
action  meaning
======  ================================================================
0       step: move one square forward
1       dash: move the rolled number of squares forward (offered when the roll is above 1)
======  ================================================================

Landing on the square of another player (before the goal) sends that player back to 0.
The first to reach ``goal`` wins. After ``max_rounds`` rounds the game ends anyway and the
players furthest along share the win. Nothing is hidden, so the game always ends.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

STEP = 0
DASH = 1
NUM_ACTIONS = 2
DIE_SIDES = 6


@dataclass
class DiceRaceState:
    """The whole game: options, positions, whose turn, the current roll and the result."""

    goal: int
    max_rounds: int
    positions: list[int]
    current: int = 0
    roll: int = 1
    decisions: int = 0
    over: bool = False
    winners: tuple[int, ...] = ()


def new_game(num_players: int, goal: int, max_rounds: int, rng: np.random.Generator) -> DiceRaceState:
    """A fresh game; player 0 starts, with a roll already made."""
    return DiceRaceState(goal, max_rounds, [0] * num_players, roll=int(rng.integers(1, DIE_SIDES + 1)))


def legal_actions(state: DiceRaceState) -> tuple[int, ...]:
    """The deciding player's actions (a roll of 1 makes the dash the same move as the step)."""
    return (STEP,) if state.roll == 1 else (STEP, DASH)


def target(state: DiceRaceState, action: int) -> int:
    """The square the deciding player reaches with ``action``."""
    return min(state.goal, state.positions[state.current] + (1 if action == STEP else state.roll))


def apply(state: DiceRaceState, action: int, rng: np.random.Generator) -> None:
    """Take ``action`` for the deciding player and roll for the next one."""
    if state.over or action not in legal_actions(state):
        raise ValueError(f"action {action} is not legal; legal actions: {list(legal_actions(state))}")
    me, square = state.current, target(state, action)
    for p, pos in enumerate(state.positions):
        if p != me and pos == square and square < state.goal:
            state.positions[p] = 0
    state.positions[me] = square
    state.decisions += 1
    n = len(state.positions)
    if square >= state.goal:
        state.over, state.winners = True, (me,)
    elif state.decisions >= state.max_rounds * n:
        best = max(state.positions)
        state.over, state.winners = True, tuple(p for p in range(n) if state.positions[p] == best)
    else:
        state.current = (me + 1) % n
        state.roll = int(rng.integers(1, DIE_SIDES + 1))


def is_over(state: DiceRaceState) -> bool:
    return state.over


def outcome(state: DiceRaceState) -> np.ndarray:
    """+1 for each winner, -1 for everyone else."""
    return np.array([1.0 if p in state.winners else -1.0 for p in range(len(state.positions))])


def scores(state: DiceRaceState) -> np.ndarray:
    """The squares reached."""
    return np.array(state.positions, dtype=np.float64)


def resample_hidden(state: DiceRaceState, seat: int, rng: np.random.Generator) -> DiceRaceState:
    """Nothing is hidden (future rolls come from the env's generator): an identical copy."""
    return copy.deepcopy(state)
