"""The compiled greedy and heuristic players of Tip of the Diceberg decide as the Python players do.

Decision by decision (:func:`ice_envs.core.player_parity.run_player_parity`) over every player count,
every variant of the spec (the default catalog, the shipped custom catalog, compulsory powers) and an
inline custom catalog without some power decks; then positions where the greedy player's re-deals
decide (a pass that may deadlock the round) and its one-action shortcut.
"""

from __future__ import annotations

from typing import Any

import pytest

from ice_envs.agents.spec import load_agent
from ice_envs.core.player_parity import run_player_parity
from ice_envs.tip_of_the_diceberg.catalog import example_catalog_path

GAME = "tip_of_the_diceberg"

#: A custom catalog as data: no discard or clear deck, a starter with a power, a dice-only card.
INLINE_CATALOG = {
    "name": "inline",
    "cards": [
        {"id": "S1", "deck": "starter", "pattern": {"count": 1}},
        {"id": "S2", "deck": "starter", "power": "take", "pattern": {"count": [2, 3], "sum": [9, 14]}},
        {"id": "R1", "deck": "main", "power": "reroll", "pattern": {"count": 3, "run": True, "distinct": "suit"}},
        {"id": "R2", "deck": "main", "power": "reroll", "pattern": {"count": [2, 4], "parity": "same"}},
        {"id": "T1", "deck": "main", "power": "take", "pattern": {"count": 2, "dice": 2, "same": "suit"}},
    ],
}

#: (player count, options, games) of each parity run.
CONFIGS: list[tuple[int, dict[str, Any], int]] = [
    (3, {}, 18),
    (4, {}, 12),
    (5, {}, 10),
    (3, {"compulsory_powers": True}, 16),
    (4, {"catalog": example_catalog_path()}, 12),
    (3, {"catalog": INLINE_CATALOG}, 14),
]


def _label(config: tuple[int, dict[str, Any], int]) -> str:
    n, options, _ = config
    return f"{n}p-" + ("-".join(options) or "default")


@pytest.mark.parametrize("player", ["greedy", "heuristic"])
@pytest.mark.parametrize("config", CONFIGS, ids=_label)
def test_compiled_player_decides_as_the_python_player(player: str, config: tuple[int, dict[str, Any], int]) -> None:
    n, options, games = config
    decisions, played = run_player_parity(
        GAME,
        player,
        num_players=n,
        games=games,
        seed=3,
        options=options,
        python_player=lambda seat: load_agent(player, GAME, seed=seat, num_players=n),
    )
    assert played == games
    assert decisions >= 100 * games
