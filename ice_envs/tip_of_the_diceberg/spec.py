"""Registration of Tip of the Diceberg: player counts and the variants the contract suite covers."""

from ice_envs.core.registry import GameSpec, Variant
from ice_envs.tip_of_the_diceberg.catalog import example_catalog_path

SPEC = GameSpec(
    name="tip_of_the_diceberg",
    version=1,
    env_module="ice_envs.tip_of_the_diceberg.env",
    players=(3, 4, 5),
    summary="Draft dice, then shed cards and dice as melds on Diceberg cards with powers; three rounds.",
    variants={
        "default": Variant(),
        # a user's own catalog (the game's blank cards), loaded from a JSON file shipped as package data
        "custom_catalog": Variant({"catalog": example_catalog_path()}),
        # the take, discard and reroll powers cannot be declined (docs/rules/tip_of_the_diceberg.md, I8)
        "compulsory_powers": Variant({"compulsory_powers": True}, players=(3,)),
    },
    max_random_decisions=60_000,
    quick=Variant({"num_rounds": 1}, players=(3,)),
    heuristic="ice_envs.tip_of_the_diceberg.heuristic:DicebergHeuristic",
    greedy="ice_envs.tip_of_the_diceberg.greedy:value",
    move_features="ice_envs.tip_of_the_diceberg.move_features:move_features",
    ui="ice_envs.tip_of_the_diceberg.ui",
    compiled="ice_envs.tip_of_the_diceberg.compiled:TipOfTheDicebergCompiled",
    compiled_players="ice_envs.tip_of_the_diceberg.compiled_players:PLAYERS",
    smoke_config="smoke.yaml",
    hidden_information=True,
)
