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

#: Values that are immutable, so a copy may share them.
_IMMUTABLE = (int, float, bool, str, bytes, tuple, frozenset, type(None))


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


def shares_mutable(original: object, duplicate: object, keep: tuple[object, ...] = ()) -> list[str]:
    """The paths of the mutable objects that ``duplicate`` shares with ``original`` (a test helper).

    Walks both objects' fields, lists, tuples, dicts and sets in step; an object reached at the same path in
    both that is the same object and is mutable (not a number, string, tuple, frozenset or an object in
    ``keep``, e.g. the shared config) is reported.
    """
    found: list[str] = []

    def walk(a: object, b: object, path: str) -> None:
        if any(a is k for k in keep):
            return
        if isinstance(a, _IMMUTABLE) and not isinstance(a, tuple):
            return
        if a is b and not isinstance(a, tuple):
            found.append(path)
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            for i, (x, y) in enumerate(zip(a, b, strict=False)):
                walk(x, y, f"{path}[{i}]")
        elif isinstance(a, dict) and isinstance(b, dict):
            for key in a:
                if key in b:
                    walk(a[key], b[key], f"{path}[{key!r}]")
        elif hasattr(a, "__dict__") and hasattr(b, "__dict__") and not isinstance(a, np.ndarray):
            for key, value in vars(a).items():
                walk(value, vars(b).get(key), f"{path}.{key}")

    walk(original, duplicate, "state")
    return found
