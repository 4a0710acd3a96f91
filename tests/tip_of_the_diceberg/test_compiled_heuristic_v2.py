"""The compiled ``heuristic@v2`` of Tip of the Diceberg decides as the Python player does, decision by decision
(:func:`ice_envs.core.player_parity.run_player_parity`), on the tables of the v1 parity tests.

Version 2 differs from version 1 at draft picks (eight a round with 4 players) and at the pass-or-play choice
that starts a turn (its play margin, met in every game: ``test_heuristic_v2.py``), and every other decision is
version 1's code, whose parity ``test_compiled_players.py`` checks at length: a third of its games suffice."""

from __future__ import annotations

from typing import Any

import pytest

from ice_envs.agents.spec import load_agent
from ice_envs.core.compiled_players import compiled_player_names
from ice_envs.core.player_parity import run_player_parity
from tests.tip_of_the_diceberg.test_compiled_players import CONFIGS, GAME, _label


def test_v2_is_registered_as_a_compiled_player():
    assert "heuristic@v2" in compiled_player_names(GAME)


@pytest.mark.parametrize("config", CONFIGS, ids=_label)
def test_compiled_v2_decides_as_the_python_v2(config: tuple[int, dict[str, Any], int]) -> None:
    n, options, v1_games = config
    games = max(4, v1_games // 3)
    decisions, played = run_player_parity(
        GAME,
        "heuristic@v2",
        num_players=n,
        games=games,
        seed=5,
        options=options,
        python_player=lambda seat: load_agent("heuristic@v2", GAME, seed=seat, num_players=n),
    )
    assert played == games
    assert decisions >= 100 * games
