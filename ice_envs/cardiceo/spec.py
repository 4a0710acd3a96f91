"""Registration of Cardiceo: player counts and the variants the contract suite covers."""

from ice_envs.core.registry import GameSpec, Variant, register

register(
    GameSpec(
        name="cardiceo",
        module="ice_envs.cardiceo_v0",
        players=(2, 3, 4, 5, 6),
        summary="Shed your hand by matching card values with totals of a d4, d8 and d12.",
        variants={
            "default": Variant(),
            "short": Variant({"hand_size": 5}),
            "forced_discard": Variant({"forced_discard": True}),
        },
        max_random_decisions=5_000,
    )
)
