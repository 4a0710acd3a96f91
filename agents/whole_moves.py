"""Whole moves: a seat's own decisions up to the next chance draw or the next seat's turn.

An AEC action is often part of a move a player at the table thinks of as one: a meld laid card by card
and committed to a slot, a power's choices, the dice of one roll moved one by one. A *whole move* is the
sequence of one seat's decisions from a position until the engine draws chance, another seat decides, the
game ends or :data:`WHOLE_MOVE_LENGTH` decisions are made. :func:`whole_moves` lists them all (depth
first, in ascending action order); :func:`follow` plays one policy's whole move. Both work on any
registered game through the :class:`~ice_envs.agents.search.Simulator`, plug-ins included.

The searches (``mcts:tree=flat,whole=yes``) and the move-scoring learner
(:mod:`ice_envs.agents.move_scorer`) choose among whole moves, then play the chosen move's actions one
per AEC step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ice_envs.agents.search import Simulator

__all__ = ["WHOLE_MOVES_MAX", "WHOLE_MOVE_LENGTH", "RecordingDraws", "follow", "whole_moves"]

#: The most whole moves listed at a decision, and the most decisions in one whole move.
WHOLE_MOVES_MAX = 512
WHOLE_MOVE_LENGTH = 16


class RecordingDraws:
    """A generator that forwards every call to ``rng`` and records what it returned: the chance outcome
    of an engine call, as a hashable key (equal draws, equal key)."""

    __slots__ = ("rng", "drawn")

    def __init__(self, rng: Any) -> None:
        self.rng = rng
        self.drawn: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.rng, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            out = attr(*args, **kwargs)
            self.drawn.append((name, _hashable(args[0] if out is None and args else out)))
            return out

        return call


def _hashable(value: Any) -> Any:
    """``value`` as a hashable key: arrays and lists as tuples of their items."""
    if isinstance(value, np.ndarray):
        return tuple(value.ravel().tolist())
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _move_ends(
    sim: Simulator,
    action: int,
    after: Any,
    seat: int,
    draws: RecordingDraws,
    length: int,
    ends: Callable[[int, Any], bool] | None,
) -> bool:
    return (
        bool(draws.drawn)
        or sim.is_over(after)
        or sim.deciding_seat(after) != seat
        or length >= WHOLE_MOVE_LENGTH
        or (ends is not None and ends(action, after))
    )


def whole_moves(
    sim: Simulator, state: Any, seat: int, limit: int = WHOLE_MOVES_MAX, ends: Callable[[int, Any], bool] | None = None
) -> list[tuple[tuple[int, ...], Any]]:
    """The whole moves of ``seat`` in ``state``, ``(actions, state after)`` in the order found.

    ``state`` is not changed. Past ``limit`` sequences the ones still open stop where they are (partial
    moves, which whoever plays them completes later). The state after a move that drew chance is one
    sample of it: move ``i``'s draws come from ``numpy.random.default_rng(i)``, so the listing is a
    function of ``state`` alone. ``ends(action, state after)``, if given, ends a move after ``action``
    too (a game's own notion of a move: each pick of a draft, say).
    """
    done: list[tuple[tuple[int, ...], Any]] = []
    stack: list[tuple[tuple[int, ...], Any]] = [((a,), state) for a in reversed(sim.legal_actions(state))]
    while stack:
        seq, parent = stack.pop()
        after = sim.copy(parent)
        draws = RecordingDraws(np.random.default_rng(len(done)))
        sim.apply(after, seq[-1], draws)
        if _move_ends(sim, seq[-1], after, seat, draws, len(seq), ends):
            done.append((seq, after))
            continue
        following = sim.legal_actions(after)
        if len(done) + len(stack) + len(following) > limit:
            done.append((seq, after))
            continue
        stack.extend(((*seq, a), after) for a in reversed(following))
    return done


def follow(
    sim: Simulator,
    state: Any,
    seat: int,
    choose: Callable[[Any, list[int]], int],
    rng: np.random.Generator,
    ends: Callable[[int, Any], bool] | None = None,
) -> tuple[int, ...]:
    """The whole move ``choose(state, legal)`` makes from ``state`` for ``seat`` (``state`` is changed:
    pass a copy). Chance is drawn from ``rng``; the move ends as in :func:`whole_moves`."""
    seq: list[int] = []
    legal = sim.legal_actions(state)
    while True:
        action = int(choose(state, legal))
        seq.append(action)
        draws = RecordingDraws(rng)
        sim.apply(state, action, draws)
        if _move_ends(sim, action, state, seat, draws, len(seq), ends):
            return tuple(seq)
        legal = sim.legal_actions(state)
