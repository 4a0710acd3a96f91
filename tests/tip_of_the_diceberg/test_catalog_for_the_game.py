"""A custom catalog is checked for the game it is used in (R7.3.1, R7.3.2 of ``docs/rules/tip_of_the_diceberg.md``).

* Every item must be able to go out as the last item of a hand: cards are dealt and never drawn, so
  a player's last card must fit a slot with dice alone beside it, and its last dice with other dice.
  A catalog whose cards go out only in pairs of cards could deal a round that never ends (the pool
  never empties, so the deadlock rule R2.8 cannot end it): such a catalog is refused.
* Fillability and the slot count are checked for the env's own player count.
"""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.masks import sample_legal
from ice_envs.tip_of_the_diceberg.catalog import parse_catalog
from ice_envs.tip_of_the_diceberg.env import TipOfTheDicebergEnv

ONE_DIE = {"id": "S1", "deck": "starter", "pattern": {"count": 1, "dice": 1}}
CARD_PAIR = {"id": "S2", "deck": "starter", "pattern": {"count": 2, "same": "number", "cards": 2}}
PAIRS_ONLY = {"name": "pairs_only", "cards": [ONE_DIE, CARD_PAIR]}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_cards_that_only_go_out_in_pairs_of_cards_are_refused(n):
    """R7.3.2: a card left alone in a hand could never go out (the round could never end)."""
    parse_catalog(PAIRS_ONLY, "pairs")  # every pattern can be filled
    with pytest.raises(OptionError, match=f"card d4:1 .*can never be played with {n} players.*could never go out"):
        TipOfTheDicebergEnv(num_players=n, catalog=PAIRS_ONLY)


def test_a_card_that_goes_out_with_dice_is_accepted_and_rounds_end():
    """The same catalog with pairs of any two items: a lone card goes out with a die of its number."""
    pairs = {**CARD_PAIR, "pattern": {"count": 2, "same": "number"}}
    env = ice_envs.make("tip_of_the_diceberg", num_players=3, catalog={"cards": [ONE_DIE, pairs]}, num_rounds=1)
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(sample_legal(rng, obs["action_mask"]))
        assert all(env.terminations.values()) or not env.agents  # the round ended by the rules, not the cap
        assert not any(env.truncations.values())


def test_dice_that_only_go_out_with_a_card_are_refused():
    """R7.3.2: a player left with only dice must be able to play them with dice."""
    data = {
        "cards": [
            {"id": "S1", "deck": "starter", "pattern": {"count": 1, "cards": 1}},
            {"id": "S2", "deck": "starter", "pattern": {"count": 2, "dice": 1, "cards": 1}},
        ]
    }
    with pytest.raises(OptionError, match="a d4 die showing 1 .*can never be played with 4 players"):
        TipOfTheDicebergEnv(num_players=4, catalog=data)


FIVE_ONLY = {"id": "S5", "deck": "starter", "min_players": 5, "pattern": {"count": 1}}


def test_a_five_player_catalog_is_checked_for_five_players():
    """R7.3: the slot count is checked for the env's player count, and the message names it."""
    parse_catalog({"cards": [FIVE_ONLY]}, "five")
    TipOfTheDicebergEnv(num_players=5, catalog={"cards": [FIVE_ONLY]}).reset(seed=0)
    with pytest.raises(OptionError, match="no Diceberg card would be revealed with 3 players"):
        TipOfTheDicebergEnv(num_players=3, catalog={"cards": [FIVE_ONLY]})
    with pytest.raises(OptionError, match="no Diceberg card would be revealed with 4 players"):
        TipOfTheDicebergEnv(num_players=4, catalog={"cards": [FIVE_ONLY]})


def test_a_card_fillable_only_with_more_players_is_refused_in_a_smaller_game():
    """R7.3.1: three cards numbered 13 or more exist only in the 5-player deck."""
    high = {"id": "T9", "deck": "main", "power": "take", "pattern": {"count": 3, "cards": 3, "values": [13, 20]}}
    data = {"cards": [{"id": "S1", "deck": "starter", "pattern": {"count": 1}}, high]}
    parse_catalog(data, "high")
    TipOfTheDicebergEnv(num_players=5, catalog=data).reset(seed=0)
    for n in (3, 4):
        with pytest.raises(OptionError, match=f"card T9: .*can never be filled with {n} players"):
            TipOfTheDicebergEnv(num_players=n, catalog=data)
