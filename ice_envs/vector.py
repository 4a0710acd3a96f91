"""``ice_envs.vector``: the batched engines (many games per call: compiled or numpy); see :mod:`ice_envs.core.vector`."""

from ice_envs.core.vector import (
    ENGINES,
    STAGE_RESET,
    STAGE_STEP,
    BatchedEngine,
    compiled_available,
    engine_class,
    make,
    random_actions,
    sample_legal,
)

__all__ = [
    "ENGINES",
    "STAGE_RESET",
    "STAGE_STEP",
    "BatchedEngine",
    "compiled_available",
    "engine_class",
    "make",
    "random_actions",
    "sample_legal",
]
