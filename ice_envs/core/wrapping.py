"""PettingZoo-style ``env()`` / ``raw_env()`` factories for a game class."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

from pettingzoo.utils import wrappers

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.options import check_keys


def _init_signature(klass: type) -> inspect.Signature:
    """``klass.__init__``'s signature with its annotations resolved where they can be (as text otherwise)."""
    try:
        return inspect.signature(klass.__init__, eval_str=True)
    except Exception:  # an annotation that names something imported only for type checkers
        return inspect.signature(klass.__init__)


def factory_signature(cls: type[IceAECEnv], returns: Any = inspect.Signature.empty) -> inspect.Signature:
    """The keyword options ``cls(...)`` takes, as the signature of its ``env()`` / ``raw_env()``.

    The game's own options first (``num_players`` and those of ``cls.__init__``), then the common
    ones of :class:`IceAECEnv` (``render_mode``, ``illegal_action``, ``illegal_reward``,
    ``reward_mode``, ``max_cycles``, ``max_decisions``, ``skip_forced``), each with its type and
    default, all keyword-only: what ``help()``, ``inspect.signature`` and IDEs show.
    """
    params: dict[str, inspect.Parameter] = {}
    for klass in (cls, IceAECEnv):
        for p in _init_signature(klass).parameters.values():
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in params:
                params[p.name] = p.replace(kind=p.KEYWORD_ONLY)
    return inspect.Signature(list(params.values()), return_annotation=returns)


def constructor_options(cls: type[IceAECEnv]) -> tuple[str, ...]:
    """The keyword options ``cls(...)`` takes: the game's own and the common ones of :class:`IceAECEnv`."""
    return tuple(factory_signature(cls).parameters)


def factory_doc(cls: type[IceAECEnv], what: str) -> str:
    """The docstring of a factory: ``what`` it returns, every option with its default, the game's docstrings
    (its class's and its env module's, PettingZoo's environment documentation) and the common options'
    descriptions (those of :class:`IceAECEnv`)."""
    own = set(factory_signature(cls).parameters) - set(factory_signature(IceAECEnv).parameters) | {"num_players"}

    def listed(names: list[str]) -> str:
        return ", ".join(f"{p.name}={p.default!r}" if p.default is not p.empty else p.name for p in names)

    params = list(factory_signature(cls).parameters.values())
    common_doc = (IceAECEnv.__doc__ or "").partition("Args (common to every game")[2].partition("\n")[2]
    parts = [
        what,
        "Options (keyword arguments; an unknown one is an OptionError listing the allowed ones):\n\n"
        f"    the game's own: {listed([p for p in params if p.name in own])}\n"
        f"    common to every game: {listed([p for p in params if p.name not in own])}",
        inspect.cleandoc(cls.__doc__ or ""),
        inspect.cleandoc(getattr(sys.modules.get(cls.__module__), "__doc__", None) or ""),
        "Common options:\n\n" + inspect.cleandoc("\n" + common_doc) if common_doc else "",
    ]
    return "\n\n".join(part for part in parts if part)


def make_factories(cls: type[IceAECEnv]) -> tuple[Callable[..., Any], Callable[..., IceAECEnv]]:
    """Return ``(env, raw_env)`` for ``cls``.

    ``raw_env(**options)`` is the bare env; ``env(**options)`` adds PettingZoo's
    ``OrderEnforcingWrapper``, as in PettingZoo classic. Actions are checked by the env itself
    (an :class:`ice_envs.IllegalActionError` naming the action and the legal ones, or the
    ``illegal_action="penalize"`` policy), so PettingZoo's ``AssertOutOfBoundsWrapper`` and its
    bare ``AssertionError`` are not used. An unknown option is an :class:`ice_envs.OptionError`
    listing the allowed ones.

    Both factories carry the game's options as their signature (:func:`factory_signature`) and
    list them in their docstring (:func:`factory_doc`), so ``help(cardiceo_v1.env)`` and IDEs show
    every option with its default.
    """
    allowed = constructor_options(cls)

    def raw_env(**options: Any) -> IceAECEnv:
        check_keys(cls.metadata["name"], "option", options, allowed)
        return cls(**options)

    def env(**options: Any) -> wrappers.OrderEnforcingWrapper:
        return wrappers.OrderEnforcingWrapper(raw_env(**options))

    name = cls.metadata["name"]
    raw_env.__signature__ = factory_signature(cls, cls)  # type: ignore[attr-defined]
    env.__signature__ = factory_signature(cls, wrappers.OrderEnforcingWrapper)  # type: ignore[attr-defined]
    raw_env.__doc__ = factory_doc(cls, f"``{name}`` without wrappers: a bare :class:`{cls.__name__}`.")
    env.__doc__ = factory_doc(cls, f"``{name}`` wrapped like PettingZoo classic (``OrderEnforcingWrapper``).")
    for factory in (env, raw_env):
        factory.__qualname__ = factory.__name__
        factory.__module__ = cls.__module__
    return env, raw_env
