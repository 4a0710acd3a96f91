"""What every ice-envs game shares: the AEC base class, the registry, the agent protocol, helpers."""

from ice_envs.core.aec import IceAECEnv, agent_name
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.core.registry import GAMES, GameSpec, Variant, get_spec, make, register

__all__ = [
    "GAMES",
    "GameSpec",
    "IceAECEnv",
    "IllegalActionError",
    "OptionError",
    "Variant",
    "agent_name",
    "get_spec",
    "make",
    "register",
]
