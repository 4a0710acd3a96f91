"""PettingZoo-style ``env()`` / ``raw_env()`` factories for a game class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo.utils import wrappers

from ice_envs.core.aec import IceAECEnv


def make_factories(cls: type[IceAECEnv]) -> tuple[Callable[..., Any], Callable[..., IceAECEnv]]:
    """Return ``(env, raw_env)`` for ``cls``.

    ``raw_env(**options)`` is the bare env; ``env(**options)`` adds PettingZoo's
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``, as in PettingZoo
    classic. Illegal moves are handled by the env itself (``illegal_action``).
    """

    def raw_env(**options: Any) -> IceAECEnv:
        return cls(**options)

    def env(**options: Any):
        wrapped = wrappers.AssertOutOfBoundsWrapper(cls(**options))
        return wrappers.OrderEnforcingWrapper(wrapped)

    raw_env.__doc__ = f"The bare {cls.__name__} (no wrappers). " + (cls.__doc__ or "")
    env.__doc__ = f"{cls.__name__} wrapped like PettingZoo classic. " + (cls.__doc__ or "")
    return env, raw_env
