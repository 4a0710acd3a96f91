"""Registration of Iceberg Rummy: player counts and the variants the contract suite covers."""

from ice_envs.core.registry import GameSpec, Variant

SPEC = GameSpec(
    name="iceberg_rummy",
    version=1,
    env_module="ice_envs.iceberg_rummy.env",
    players=(2, 3, 4, 5),
    summary="Rummy where every meld and lay-off scores at once, discards pass left and aces multiply.",
    variants={
        "default": Variant(),
        "single_hand": Variant({"single_hand": True}),
        "ace_fixed": Variant({"single_hand": True, "ace_scoring": "fixed"}),
        "ace_doubling": Variant({"single_hand": True, "ace_scoring": "doubling"}),
        "ace_cats": Variant({"single_hand": True, "ace_scoring": "cats"}),
        "ace_holder_finishes": Variant({"single_hand": True, "ace_holder_finishes": True}),
        # v1: a short full game decided at the hand cap (the default truncates there), with the
        # private selection of allow_clear; 2 players (one deck, passes seen both ways) and 4 (two decks)
        "short_decided_clear": Variant(
            {"max_hands": 3, "max_hands_end": "decide", "allow_clear": True}, players=(2, 4)
        ),
    },
    # measured under random play: a full game (100-hand cap) <= 13,919 decisions (4 players), one hand <= 208
    max_random_decisions=20_000,
    # a whole game under random play is 100 hands of thousands of moves; the demo shows one readable hand
    demo_options={"single_hand": True},
    quick=Variant({"single_hand": True}, players=(2,)),
    heuristic="ice_envs.iceberg_rummy.heuristic:IcebergRummyHeuristic",
    greedy="ice_envs.iceberg_rummy.greedy:value",
    move_features="ice_envs.iceberg_rummy.move_features:move_features",
    ui="ice_envs.iceberg_rummy.ui",
    compiled="ice_envs.iceberg_rummy.compiled:IcebergRummyCompiled",
    compiled_players="ice_envs.iceberg_rummy.compiled_players:PLAYERS",
    smoke_config="smoke.yaml",
    hidden_information=True,
)
