"""Cardiceo, PettingZoo-style module: ``env()`` and ``raw_env()``."""

from ice_envs.cardiceo.env import CardiceoEnv, env, raw_env

__all__ = ["CardiceoEnv", "env", "raw_env"]
