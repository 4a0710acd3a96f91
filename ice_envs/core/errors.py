"""Exceptions raised by ice-envs; both are ``ValueError`` so callers can catch either."""

from __future__ import annotations


class OptionError(ValueError):
    """A bad constructor option: unknown game, player count out of range, unknown variant."""


class IllegalActionError(ValueError):
    """An action that is outside the action space or not legal in the current position."""
