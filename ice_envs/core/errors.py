"""Exceptions raised by ice-envs: the ``ValueError`` kinds name a bad input, :class:`MissingExtraError` a missing extra."""

from __future__ import annotations


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
