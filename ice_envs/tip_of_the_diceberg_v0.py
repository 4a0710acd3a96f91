"""Tip of the Diceberg, PettingZoo-style module: ``env()`` and ``raw_env()``."""

from ice_envs.tip_of_the_diceberg.env import TipOfTheDicebergEnv, env, raw_env

__all__ = ["TipOfTheDicebergEnv", "env", "raw_env"]
