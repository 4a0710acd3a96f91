"""The registered games.

Each game package registers itself in its own ``spec.py`` (one ``register(GameSpec(...))``
call with its player counts and variants); this module imports them in a fixed order.
Registering a game puts it under the env contract suite, the CLI and the benchmarks.
"""

from __future__ import annotations

import importlib

GAME_PACKAGES: tuple[str, ...] = (
    "cardiceo",
    "cubemelt",
    "iceberg_rummy",
    "tip_of_the_diceberg",
    "icebergs",
)

for _package in GAME_PACKAGES:
    try:
        importlib.import_module(f"ice_envs.{_package}.spec")
    except ModuleNotFoundError as exc:  # a game still being written has no spec yet
        if exc.name not in (f"ice_envs.{_package}", f"ice_envs.{_package}.spec"):
            raise
