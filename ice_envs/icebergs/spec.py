"""Registration of Icebergs: player counts and the variants the contract suite covers."""

from ice_envs.core.registry import GameSpec, Variant

SPEC = GameSpec(
    name="icebergs",
    version=1,
    env_module="ice_envs.icebergs.env",
    players=(2, 3, 4, 5, 6),
    summary="Sail a hex map to Alaska and back, pushing ice floes and icebergs into the other ships' way.",
    variants={
        "default": Variant(),
        "fleet": Variant({"fleet": True}, players=(2, 3)),
        "fleet2": Variant({"ships_per_player": 2}, players=(2, 3)),
        "solo": Variant({"solo": True}, players=(1,)),
        "restart": Variant({"restart_on_sink": True}, players=(2, 4)),
        # one variant per rules-fidelity option
        "entry_all_moves": Variant({"entry_cost": "all_moves"}, players=(2,)),
        "fleet_3x3": Variant({"fleet": True, "extra_ships": True}, players=(3,)),
        "solo_choice": Variant({"solo": True, "solo_ice_six": "player"}, players=(1,)),
    },
    max_random_decisions=6_000,
    quick=Variant({"max_turns": 4}, players=(2,)),
    heuristic="ice_envs.icebergs.heuristic:IcebergsHeuristic",
    compiled="ice_envs.icebergs.compiled:IcebergsCompiled",
    compiled_players="ice_envs.icebergs.compiled_players:PLAYERS",
    greedy="ice_envs.icebergs.greedy:value",
    move_features="ice_envs.icebergs.move_features:move_features",
    ui="ice_envs.icebergs.ui",
    potentials={"icebergs_voyage": "ice_envs.icebergs.shaping:voyage"},
    batched_potentials={"icebergs_voyage": "ice_envs.icebergs.shaping:voyage_rows"},
    smoke_config="smoke.yaml",
)
