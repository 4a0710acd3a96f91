"""Wrappers that take an ice-envs game to the RL libraries people already use.

=====================================================  ===============================================
name                                                   what it is
=====================================================  ===============================================
:class:`~ice_envs.wrappers.single_agent.SingleAgentEnv`  the single-agent Gymnasium env: one learner seat,
                                                       opponents played inside ``step()``,
                                                       ``action_masks()`` (stable-baselines3,
                                                       sb3-contrib's MaskablePPO, CleanRL-style loops)
``gym.make("ice_envs/Cardiceo-v1", ...)``              the same, by Gymnasium id, for every game
                                                       (:mod:`ice_envs.wrappers.registration`)
:class:`~ice_envs.wrappers.opponents.FixedOpponents`   opponents from agent specs or ``Agent`` objects
:class:`~ice_envs.wrappers.opponents.OpponentMix`      opponents drawn per game from weighted kinds
:mod:`ice_envs.wrappers.rllib`                         RLlib's multi-agent env and observation keys
                                                       (needs the ``rllib`` extra; import it by name)
=====================================================  ===============================================

The multi-agent side needs no wrapper: every game is a PettingZoo AEC env (``ice_envs.make`` or
``pettingzoo.make("aec", "ice_envs/cardiceo-v1")`` after ``import ice_envs``), which Tianshou's
``PettingZooEnv``, SuperSuit and PettingZoo's test utilities take as it is. Recipes, one per library,
each run by the tests: ``docs/integrations.md``.

The names above are imported on first use, so ``import ice_envs`` (which registers the Gymnasium
ids through :mod:`ice_envs.wrappers.registration`) does not load the agents.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ice_envs.wrappers.opponents import FixedOpponents, OpponentMix, OpponentSampler, make_opponents
    from ice_envs.wrappers.registration import gym_id, gym_ids, register_envs
    from ice_envs.wrappers.single_agent import SingleAgentEnv

#: public name -> the module that defines it
_EXPORTS = {
    "SingleAgentEnv": "ice_envs.wrappers.single_agent",
    "FixedOpponents": "ice_envs.wrappers.opponents",
    "OpponentMix": "ice_envs.wrappers.opponents",
    "OpponentSampler": "ice_envs.wrappers.opponents",
    "make_opponents": "ice_envs.wrappers.opponents",
    "gym_id": "ice_envs.wrappers.registration",
    "gym_ids": "ice_envs.wrappers.registration",
    "register_envs": "ice_envs.wrappers.registration",
}
__all__ = [
    "FixedOpponents",
    "OpponentMix",
    "OpponentSampler",
    "SingleAgentEnv",
    "gym_id",
    "gym_ids",
    "make_opponents",
    "register_envs",
]


def __getattr__(name: str) -> Any:
    """The public names of the package, imported from their module on first use."""
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ice_envs.wrappers' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
