"""Fast, independent copies of the engines' dataclass states.

``copy.deepcopy`` of a game state walks every object it holds, the frozen config (and what it caches)
included, through the generic memo machinery: in CubeMelt it was most of what a heuristic opponent's
view costs (the view is a copy of the state). The engines' states are plain data of a known shape, so a
copy needs far less: :func:`copy_state` copies each field by its type, one level deep, and shares what no
rule ever changes.
"""

from __future__ import annotations

import copy
from typing import TypeVar

import numpy as np

StateT = TypeVar("StateT")


def copy_state(state: StateT, nested: tuple[str, ...] = ()) -> StateT:
    """An independent copy of the dataclass ``state``, field by field.

    - a ``list`` field is copied one level: its items must be immutable (numbers, strings, tuples),
      or the field must be named in ``nested``, whose lists are copied two levels (a list of lists of
      immutable items);
    - a numpy array is copied (``ndarray.copy``);
    - a ``dict`` or a ``set`` is deep-copied;
    - anything else is shared: numbers, strings, tuples and the game's frozen config, which no rule
      ever changes.

    The copy holds no mutable object of ``state``; ``tests/core/test_state_copy.py`` checks that it equals
    ``copy.deepcopy(state)`` and shares nothing mutable with it, for positions of every game that uses it.
    Fields that alias one another are not aliased in the copy (no engine state aliases its fields).
    """
    new = object.__new__(type(state))
    attrs = new.__dict__
    for name, value in state.__dict__.items():
        kind = type(value)
        if kind is list:
            attrs[name] = [item[:] for item in value] if name in nested else value[:]
        elif kind is np.ndarray:
            attrs[name] = value.copy()
        elif kind is dict or kind is set:
            attrs[name] = copy.deepcopy(value)
        else:
            attrs[name] = value
    return new
