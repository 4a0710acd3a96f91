"""PettingZoo-style ``env()`` / ``raw_env()`` factories for a game class."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pettingzoo.utils import wrappers

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.options import check_keys


def constructor_options(cls: type[IceAECEnv]) -> tuple[str, ...]:
    """The keyword options ``cls(...)`` takes: the game's own and the common ones of :class:`IceAECEnv`."""
    names: list[str] = []
    for klass in (cls, IceAECEnv):
        for p in inspect.signature(klass.__init__).parameters.values():
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in names:
                names.append(p.name)
    return tuple(names)


def make_factories(cls: type[IceAECEnv]) -> tuple[Callable[..., Any], Callable[..., IceAECEnv]]:
    """Return ``(env, raw_env)`` for ``cls``.

    ``raw_env(**options)`` is the bare env; ``env(**options)`` adds PettingZoo's
    ``OrderEnforcingWrapper``, as in PettingZoo classic. Actions are checked by the env itself
    (an :class:`ice_envs.IllegalActionError` naming the action and the legal ones, or the
    ``illegal_action="penalize"`` policy), so PettingZoo's ``AssertOutOfBoundsWrapper`` and its
    bare ``AssertionError`` are not used. An unknown option is an :class:`ice_envs.OptionError`
    listing the allowed ones.
    """
    allowed = constructor_options(cls)

    def raw_env(**options: Any) -> IceAECEnv:
        check_keys(cls.metadata["name"], "option", options, allowed)
        return cls(**options)

    def env(**options: Any):
        return wrappers.OrderEnforcingWrapper(raw_env(**options))

    raw_env.__doc__ = f"The bare {cls.__name__} (no wrappers). " + (cls.__doc__ or "")
    env.__doc__ = f"{cls.__name__} wrapped like PettingZoo classic. " + (cls.__doc__ or "")
    return env, raw_env
