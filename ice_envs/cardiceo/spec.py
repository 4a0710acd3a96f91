"""Registration of Cardiceo: player counts and the variants the contract suite covers."""

from ice_envs.core.registry import GameSpec, Variant

SPEC = GameSpec(
    name="cardiceo",
    version=1,
    env_module="ice_envs.cardiceo.env",
    players=(2, 3, 4, 5, 6),
    summary="Shed your hand by matching card values with totals of a d4, d8 and d12.",
    variants={
        "default": Variant(),
        "short": Variant({"hand_size": 5}),
        "forced_discard": Variant({"forced_discard": True}),
    },
    max_random_decisions=5_000,
    quick=Variant({"hand_size": 5}, players=(2,)),
    heuristic="ice_envs.cardiceo.heuristic:CardiceoHeuristic",
    greedy="ice_envs.cardiceo.greedy:value",
    move_features="ice_envs.cardiceo.move_features:move_features",
    ui="ice_envs.cardiceo.ui",
    smoke_config="smoke.yaml",
    vector="ice_envs.cardiceo.batched:CardiceoBatched",
    compiled="ice_envs.cardiceo.compiled:CardiceoCompiled",
    compiled_players="ice_envs.cardiceo.compiled_players:PLAYERS",
    hidden_information=True,
)
