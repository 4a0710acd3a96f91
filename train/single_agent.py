"""The learner's single-agent Gymnasium view of a game: now public as :mod:`ice_envs.wrappers.single_agent`.

The training code imports it from :mod:`ice_envs.wrappers` (the import graph points one way: the
wrappers never import the training code). This module re-exports the names it used to define, so
that ``from ice_envs.train.single_agent import SingleAgentEnv`` keeps working.
"""

from __future__ import annotations

from ice_envs.wrappers.single_agent import (
    ILLEGAL_ACTION_POLICIES,
    ILLEGAL_REWARD,
    MAX_SKIPPED_GAMES,
    LazyObservation,
    Shaping,
    SingleAgentEnv,
)

__all__ = [
    "ILLEGAL_ACTION_POLICIES",
    "ILLEGAL_REWARD",
    "MAX_SKIPPED_GAMES",
    "LazyObservation",
    "Shaping",
    "SingleAgentEnv",
]
