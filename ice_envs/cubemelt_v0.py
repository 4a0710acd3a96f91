"""CubeMelt: Getting Dicey, PettingZoo-style module: ``env()`` and ``raw_env()``."""

from ice_envs.cubemelt.env import CubeMeltEnv, env, raw_env

__all__ = ["CubeMeltEnv", "env", "raw_env"]
