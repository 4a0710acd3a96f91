"""The env contract suite: every check of the public test kit (:mod:`ice_envs.testing`) on every case of
every built-in game (each variant at each player count, and ``skip_forced=True`` once).

A game is done when it passes the kit. A plug-in game runs the same kit from its own test file
(``check_game("<name>")``, docs/CONTRIBUTING_GAMES.md); ice-envs' own suite covers its own games,
so installing a plug-in changes nothing here.
"""

from __future__ import annotations

import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.testing import contract_params


@pytest.mark.parametrize("item", contract_params(built_in_only=True))
def test_contract(item):
    item.run()


def test_unknown_game_is_refused():
    with pytest.raises(OptionError, match="unknown game"):
        ice_envs.make("no_such_game")
