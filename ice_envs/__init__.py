"""ice-envs: five ice- and dice-themed tabletop games as PettingZoo AEC environments.

>>> import ice_envs
>>> env = ice_envs.make("cardiceo", num_players=3)
>>> env.reset(seed=0)

``ice_envs.GAMES`` lists the registered games; ``ice_envs.<game>_v0`` are
PettingZoo-style modules with ``env()`` and ``raw_env()``.
"""

from __future__ import annotations

import importlib
from typing import Any

from ice_envs import registry as _registry  # noqa: F401  (registers the games)
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.registry import GAMES, get_spec, make

__version__ = "0.1.0"
__all__ = ["GAMES", "IllegalActionError", "OptionError", "get_spec", "make", "__version__"]


def __getattr__(name: str) -> Any:
    if name.endswith("_v0") and name.removesuffix("_v0") in GAMES:
        return importlib.import_module(f"ice_envs.{name}")
    raise AttributeError(f"module 'ice_envs' has no attribute {name!r}")
