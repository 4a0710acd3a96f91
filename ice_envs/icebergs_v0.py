"""Icebergs, PettingZoo-style module: ``env()`` and ``raw_env()``."""

from ice_envs.icebergs.env import IcebergsEnv, env, raw_env

__all__ = ["IcebergsEnv", "env", "raw_env"]
