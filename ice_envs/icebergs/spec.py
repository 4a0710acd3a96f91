"""Registration of Icebergs: player counts and the variants the contract suite covers."""

from ice_envs.core.registry import GameSpec, Variant, register

register(
    GameSpec(
        name="icebergs",
        module="ice_envs.icebergs_v0",
        players=(2, 3, 4, 5, 6),
        summary="Sail a hex map to Alaska and back, pushing ice floes and icebergs into the other ships' way.",
        variants={
            "default": Variant(),
            "fleet": Variant({"fleet": True}, players=(2, 3)),
            "fleet2": Variant({"ships_per_player": 2}, players=(2, 3)),
            "solo": Variant({"solo": True}, players=(1,)),
            "restart": Variant({"restart_on_sink": True}, players=(2, 4)),
        },
        max_random_decisions=6_000,
    )
)
