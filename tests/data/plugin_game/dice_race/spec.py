"""Registration of Dice Race, found by ice-envs through this package's ``ice_envs.games`` entry point."""

from ice_envs.core.registry import GameSpec, HeldOutTable, Variant

SPEC = GameSpec(
    name="dice_race",
    env_module="dice_race.env",
    players=(2, 3),
    summary="Roll a die, then step one square or dash the roll; landing on a rival sends it home.",
    version=0,
    variants={"default": Variant(), "short": Variant({"goal": 10, "max_rounds": 10})},
    max_random_decisions=3 * 30,  # max_rounds (default 30) rounds of at most 3 players
    quick=Variant({"goal": 10, "max_rounds": 10}, players=(2,)),
    hidden_information=False,  # every position and the roll are public; resample_hidden returns a copy
    held_out=(HeldOutTable(players=2, opponent="random", games=200),),
)
