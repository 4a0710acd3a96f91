"""``ice_envs.vector``: the batched engines (many games per numpy call); see :mod:`ice_envs.core.vector`."""

from ice_envs.core.vector import STAGE_RESET, STAGE_STEP, BatchedEngine, engine_class, make, random_actions

__all__ = ["STAGE_RESET", "STAGE_STEP", "BatchedEngine", "engine_class", "make", "random_actions"]
