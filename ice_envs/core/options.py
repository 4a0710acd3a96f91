"""Game options: written as text (``--option key=value``) and checked strictly, one type per option."""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ice_envs.core.errors import OptionError


def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as int, float, bool or str."""
    key, sep, raw = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"option {text!r} is not key=value")
    value: Any = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    else:
        for cast in (int, float):
            try:
                value = cast(raw)
                break
            except ValueError:
                continue
    return key, value


# ---------------------------------------------------------------------------- strict option checks
def check_flag(owner: str, option: str, value: Any) -> bool:
    """``value`` if it is a ``bool`` (or ``numpy.bool_``); anything else is an :class:`OptionError`.

    ``bool("no")`` is True, so strings, numbers and ``None`` are refused rather than converted.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise OptionError(f"{owner}: {option} must be True or False, got {value!r}")


def check_int(
    owner: str, option: str, value: Any, *, low: int | None = None, high: int | None = None, allow_none: bool = False
) -> int | None:
    """``value`` as an ``int`` if it is an integer (``int`` or ``numpy.integer``, never ``bool`` or ``float``)
    within ``[low, high]``; ``None`` passes when ``allow_none``."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise OptionError(f"{owner}: {option} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"at most {high}" if low is None else f"in {low}..{high}"
        raise OptionError(f"{owner}: {option} must be {bounds}, got {value}")
    return value


def check_number(owner: str, option: str, value: Any, *, low: float | None = None, high: float | None = None) -> float:
    """``value`` as a finite ``float`` (ints and floats, never ``bool``) within ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise OptionError(f"{owner}: {option} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise OptionError(f"{owner}: {option} must be finite, got {value}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise OptionError(f"{owner}: {option} must be in [{low}, {high}], got {value}")
    return value


def check_choice(owner: str, option: str, value: Any, allowed: Iterable[Any]) -> Any:
    """``value`` if it is one of ``allowed`` (compared by type and value: ``1`` is not ``True``)."""
    allowed = list(allowed)
    if not any(type(value) is type(a) and value == a for a in allowed):
        raise OptionError(f"{owner}: {option}={value!r} is not one of {allowed}")
    return value


def check_keys(owner: str, what: str, given: Mapping[str, Any], allowed: Iterable[str]) -> None:
    """Refuse keys of ``given`` that are not in ``allowed``, listing the allowed ones."""
    allowed = sorted(allowed)
    unknown = sorted(str(k) for k in given if k not in allowed)
    if unknown:
        raise OptionError(f"{owner}: unknown {what} {', '.join(map(repr, unknown))}; allowed: {allowed}")
