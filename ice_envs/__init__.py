"""ice-envs: five ice- and dice-themed tabletop games as PettingZoo AEC environments.

>>> import ice_envs
>>> env = ice_envs.make("cardiceo", num_players=3)
>>> env.reset(seed=0)

``ice_envs.GAMES`` maps each discovered game (built-in or from a plug-in package, see
:mod:`ice_envs.core.registry`) to its spec; ``from ice_envs import cardiceo_v1`` gives the
PettingZoo-style module of a game, with ``env()`` and ``raw_env()``.
"""

from __future__ import annotations

import importlib
from typing import Any

from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.registry import GAMES, discover, get_spec, make
from ice_envs.wrappers.registration import register_envs

__version__ = "0.1.0"
__all__ = ["GAMES", "IllegalActionError", "OptionError", "get_spec", "make", "__version__"]

discover()
register_envs()


def __getattr__(name: str) -> Any:
    """``ice_envs.<game>_v<version>``: the game's env module (PettingZoo's naming)."""
    for spec in GAMES.values():
        if spec.env_name == name:
            return importlib.import_module(spec.env_module)
    raise AttributeError(f"module 'ice_envs' has no attribute {name!r}")
