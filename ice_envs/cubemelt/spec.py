"""Registration of CubeMelt: player counts and the variants the contract suite covers."""

from ice_envs.core.registry import GameSpec, Variant

SPEC = GameSpec(
    name="cubemelt",
    version=1,
    env_module="ice_envs.cubemelt.env",
    players=(2, 3, 4, 5),
    summary="Roll six dice; the most frequent face goes to your neighbours. Reach 20 Love or Adventure, don't melt.",
    variants={
        "default": Variant(),
        "expansion": Variant({"expansion": True}),
        "uniform_faces": Variant({"faces": ("heart", "star", "sad", "drooping")}),
        "expansion_house": Variant(
            {
                "expansion": True,
                "ninja_targets": "all",
                "per_neighbour": True,
                "paid_rerolls": 2,
                "reroll_can_melt": True,
            }
        ),
        # the other readings of the Cat (I17) and the Ninja (I20): the Cat on real gains of the whole
        # resolution, the Ninja's remaining dice to its neighbours only (the v0 default)
        "expansion_readings": Variant(
            {"expansion": True, "cat_trigger": "actual", "ninja_targets": "neighbours"}, players=(2, 5)
        ),
    },
    max_random_decisions=1_000,
    quick=Variant(players=(2,)),
    heuristic="ice_envs.cubemelt.heuristic:CubeMeltHeuristic",
    greedy="ice_envs.cubemelt.greedy:value",
    move_features="ice_envs.cubemelt.move_features:move_features",
    ui="ice_envs.cubemelt.ui",
    smoke_config="smoke.yaml",
    vector="ice_envs.cubemelt.batched:CubeMeltBatched",
    compiled="ice_envs.cubemelt.compiled:CubeMeltCompiled",
    compiled_players="ice_envs.cubemelt.compiled_players:PLAYERS",
)
