"""Iceberg Rummy, PettingZoo-style module: ``env()`` and ``raw_env()``."""

from ice_envs.iceberg_rummy.env import IcebergRummyEnv, env, raw_env

__all__ = ["IcebergRummyEnv", "env", "raw_env"]
