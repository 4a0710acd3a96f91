"""Dice Race keeps the env contract of ice-envs: every check of the kit on every case of its spec."""

from ice_envs.testing import check_game


def test_dice_race_keeps_the_env_contract():
    check_game("dice_race")
