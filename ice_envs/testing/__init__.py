"""The env contract as a library: every check a game of ice-envs must pass, for any game.

A game's own test file needs one line (here the toy plug-in Dice Race)::

    from ice_envs.testing import check_game


    def test_dice_race_keeps_the_env_contract():
        check_game("dice_race")

:func:`check_game` runs every check of :data:`CHECKS` on every case of the game's spec (each
variant at each player count, and the base env's ``skip_forced=True`` once) and raises
:class:`ContractError` naming each failed check and case. The checks: PettingZoo's ``api_test``
and seed test; the same seed giving the same game; exact action masks and only the acting agent
holding one; ``state_dict()`` / ``load_state_dict()``, pickle and ``reset(options={"state": ...})``
round trips; hidden information (where the spec declares ``hidden_information=True``,
``resample_hidden`` must change the state at some point of a random game while every seat's
observation stays the same; where it declares ``False``, it must return an equal state);
episodes ending within ``max_random_decisions``; illegal actions and bad options refused with a
clear error that changes nothing; score rewards; both render modes, the picture keeping one shape;
the observation layout and its docstring table; the module names and registries; the Gymnasium id;
and a two-update PPO training run when the ``train`` extra is installed (skipped with a warning
saying so otherwise).

``check_game("dice_race", num_players=3, goal=10)`` runs the checks on one configuration;
``checks=[...]`` / ``skip=[...]`` choose checks by name (:data:`CHECK_NAMES`). For one pytest test
per check and case, as ice-envs' own ``tests/test_contract.py``::

    import pytest
    from ice_envs.testing import contract_params


    @pytest.mark.parametrize("item", contract_params(["dice_race"]))
    def test_contract(item):
        item.run()
"""

from __future__ import annotations

from ice_envs.testing.cases import Case, game_cases, quick_case
from ice_envs.testing.checks_game import CheckSkipped
from ice_envs.testing.kit import (
    CHECK_NAMES,
    CHECKS,
    Check,
    ContractError,
    ContractItem,
    check_game,
    contract_items,
    contract_params,
)

__all__ = [
    "CHECKS",
    "CHECK_NAMES",
    "Case",
    "Check",
    "CheckSkipped",
    "ContractError",
    "ContractItem",
    "check_game",
    "contract_items",
    "contract_params",
    "game_cases",
    "quick_case",
]
