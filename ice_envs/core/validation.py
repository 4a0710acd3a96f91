"""Checks for given positions and loaded engine states, shared by the games' ``check_position`` / ``check_state``.

Each check returns the value (converted where said) or raises ``ValueError`` naming ``what`` and the problem;
the env turns that into an :class:`ice_envs.OptionError`. No check converts a value of the wrong kind: a
``bool`` is never an integer, a float never an integer, a string never a list.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def integer(what: str, value: object, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is an integer (``int`` or numpy integer, never ``bool`` or ``float``) in ``low..high``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{what} must be in {low}..{high}, got {value}")
    return value


def flag(what: str, value: object) -> bool:
    """``value`` if it is a ``bool`` (or numpy bool)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be True or False, got {value!r}")
    return bool(value)


def sequence(what: str, value: object, length: int | None = None) -> list:
    """``value`` as a list if it is a list, tuple or 1-D array (of ``length`` entries if given)."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{what} must be a list, got {value!r}")
    if length is not None and len(value) != length:
        raise ValueError(f"{what} must have {length} entries, got {len(value)}")
    return list(value)


def integers(what: str, value: Any, length: int | None, low: int, high: int) -> list[int]:
    """``value`` if it is a list (of ``length`` entries if given) of integers in ``low..high`` (a state's own list)."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise ValueError(f"{what} must have {length} entries, got {len(value)}")
    for i, x in enumerate(value):
        integer(f"{what}[{i}]", x, low, high)
    return value


def array(
    what: str, value: object, dtype: type, shape: tuple[int, ...], low: int | None = None, high: int | None = None
) -> np.ndarray:
    """``value`` if it is a numpy array of exactly ``dtype`` and ``shape`` with values in ``low..high`` (if given)."""
    if not isinstance(value, np.ndarray) or value.dtype != np.dtype(dtype) or value.shape != shape:
        got = f"{value.dtype} array of shape {value.shape}" if isinstance(value, np.ndarray) else repr(value)
        raise ValueError(f"{what} must be a {np.dtype(dtype)} array of shape {shape}, got {got}")
    if value.size and ((low is not None and value.min() < low) or (high is not None and value.max() > high)):
        raise ValueError(f"{what} must hold values in {low}..{high}, got {value.min()}..{value.max()}")
    return value
