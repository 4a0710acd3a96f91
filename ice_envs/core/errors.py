"""Exceptions raised by ice-envs: the ``ValueError`` kinds name a bad input, :class:`MissingExtraError` a missing extra."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class OptionError(ValueError):
    """A bad constructor option: unknown game, player count out of range, unknown variant."""


class IllegalActionError(ValueError):
    """An action that is outside the action space or not legal in the current position."""


class AgentSpecError(ValueError):
    """A bad agent spec string, or an agent that cannot be built for the game asked."""


class MissingExtraError(ImportError):
    """An optional dependency is missing; the message names the ``pip install 'ice-envs[extra]'`` to run."""

    def __init__(self, extra: str, purpose: str, missing: str | None = None) -> None:
        self.extra = extra
        what = f" ({missing} is not installed)" if missing else ""
        super().__init__(f"{purpose} needs the {extra!r} extra{what}: pip install 'ice-envs[{extra}]'")


def require_extra(extra: str, purpose: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` unless every module in ``modules`` can be imported.

    Called before any work starts, so that a missing extra is one line, never a traceback
    after the games were played.
    """
    import importlib.util

    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MissingExtraError(extra, purpose, module)


def closest_name(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to ``word`` (case ignored; :func:`difflib.get_close_matches`), or ``None`` if none is close."""
    by_lower = {choice.lower(): choice for choice in choices}
    close = difflib.get_close_matches(word.strip().lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[close[0]] if close else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the choice closest to ``word``, or ``""`` if none is close.

    Appended to a one-line error about an unknown name (a game, an agent kind).
    """
    close = closest_name(word, choices)
    return f" (did you mean {close!r}?)" if close else ""
