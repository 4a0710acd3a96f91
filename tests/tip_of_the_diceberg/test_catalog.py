"""The meld-card catalogs: the default one (shape, every card playable, variety) and custom ones.

Rule numbers (R2.5, I14, ...) refer to ``docs/rules/tip_of_the_diceberg.md``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import (
    POWERS,
    default_catalog,
    example_catalog_path,
    load_catalog,
    parse_catalog,
)
from ice_envs.tip_of_the_diceberg.patterns import (
    CARD_NUMBER,
    CARD_SUIT,
    ITEM_DIE0,
    SUIT_FACES,
    SUITS,
    enumerate_melds,
    matches,
)

TEST_CATALOG_FILE = Path(__file__).parent / "data" / "test_catalog.json"


def test_default_catalog_shape():
    """R7.4: the default catalog."""
    cat = default_catalog()
    starters = [c for c in cat.cards if c.deck == "starter"]
    main = [c for c in cat.cards if c.deck == "main"]
    assert len(starters) == 7 and len(main) == 25
    assert [c.id for c in starters if c.min_players == 5] == ["S7"], "one 5-player-only starter"
    assert all(not c.power for c in starters)
    per_power = Counter(c.power for c in main)
    assert set(per_power) == set(POWERS) and sum(per_power.values()) == 25 and min(per_power.values()) >= 6
    assert len(cat.starters(3)) == len(cat.starters(4)) == 6 and len(cat.starters(5)) == 7
    sizes = {c.pattern.count_max for c in cat.cards}
    assert sizes >= {1, 2, 3, 4, 5}, "melds of various sizes"


def test_default_catalog_is_package_data_found_by_importlib_resources():
    """R7.4."""
    from importlib import resources

    files = resources.files("ice_envs.tip_of_the_diceberg").joinpath("data")
    assert json.loads(files.joinpath("catalog.json").read_text(encoding="utf-8"))["cards"]
    assert Path(example_catalog_path()).is_file()


def _witness(pattern, n):
    """A meld of ``pattern`` that some hand can hold with ``n`` players: (cards, dice as (type, value)).

    The search universe is the reduced deck plus one die item per (type, number); a meld is
    kept if it needs no more dice of a type than the game has.
    """
    universe = [(c, CARD_SUIT[c], CARD_NUMBER[c], False) for c in rules.deck_cards(n)]
    die_items = {}
    for t in range(len(SUITS)):
        for v in range(1, SUIT_FACES[t] + 1):
            item_id = ITEM_DIE0 + 100 + 20 * t + v
            universe.append((item_id, t, v, True))
            die_items[item_id] = (t, v)
    for meld in enumerate_melds(pattern, universe, limit=5000):
        cards = [i for i in meld if i < ITEM_DIE0]
        dice = [die_items[i] for i in meld if i >= ITEM_DIE0]
        per_type = Counter(t for t, _ in dice)
        if len(cards) <= rules.HAND_SIZE and all(k <= rules.DICE_PER_TYPE_FOR[n] for k in per_type.values()):
            return cards, dice
    return None


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_default_card_is_playable_with_some_hand(n):
    """R7.4: For every card revealed with ``n`` players: a real position in which the engine offers a meld for it."""
    cat = default_catalog()
    for index, card in enumerate(cat.cards):
        if card.deck == "starter" and card.min_players > n:
            continue
        witness = _witness(card.pattern, n)
        assert witness is not None, f"{card.id} cannot be played with {n} players"
        cards, dice = witness
        assert len(cards) <= rules.HAND_SIZE
        assert all(count <= rules.DICE_PER_TYPE_FOR[n] for count in Counter(t for t, _ in dice).values())
        assert matches(
            card.pattern, [(CARD_SUIT[c], CARD_NUMBER[c], False) for c in cards] + [(t, v, True) for t, v in dice]
        )
        # build that position and check the engine offers the meld on this card's slot
        main_cards = tuple(card.id for _ in [0] if card.deck == "main")
        cfg = rules.DicebergConfig(num_players=n, main_cards=main_cards)
        hands = [cards] + [[] for _ in range(n - 1)]
        dice_specs = [[f"{SUITS[t]}:{v}" for t, v in dice]] + [[] for _ in range(n - 1)]
        s = rules.new_game(cfg, np.random.default_rng(0), start_player=0, hands=hands, dice=dice_specs, pool=[])
        slot = s.slots.index(index)
        assert any(k == slot for k, _ in rules.legal_melds(s)), f"{card.id}: the engine offers no meld"


def _play_rates(n, hands=150):
    """Fraction of random deals (12 cards and 2 random dice) in which each card has a meld."""
    cat = default_catalog()
    rng = np.random.default_rng(n)
    hits = Counter()
    dice_types = rules.dice_in_game(n)
    for _ in range(hands):
        cards = sorted(rng.choice(rules.deck_cards(n), rules.HAND_SIZE, replace=False).tolist())
        dice = sorted(rng.choice(dice_types, 2, replace=False).tolist())
        items = [(c, CARD_SUIT[c], CARD_NUMBER[c], False) for c in cards]
        items += [
            (ITEM_DIE0 + d, rules.DIE_TYPE[d], int(rng.integers(1, SUIT_FACES[rules.DIE_TYPE[d]] + 1)), True)
            for d in dice
        ]
        for card in cat.cards:
            if enumerate_melds(card.pattern, items, limit=1):
                hits[card.id] += 1
    return {card.id: hits[card.id] / hands for card in cat.cards}


def test_default_catalog_has_easy_and_hard_cards():
    """R7.4: the playable-at-the-deal column."""
    rates = _play_rates(4)
    del rates["S7"]  # not revealed with 4 players
    easy = [cid for cid, r in rates.items() if r >= 0.9]
    hard = [cid for cid, r in rates.items() if r <= 0.45]
    middle = [cid for cid, r in rates.items() if 0.45 < r < 0.9]
    assert len(easy) >= 5 and len(hard) >= 5 and len(middle) >= 5, rates
    assert rates["S1"] == 1.0
    for power in POWERS:  # every power deck has an easy-ish and a hard card
        deck = [c.id for c in default_catalog().cards if c.power == power]
        assert max(rates[c] for c in deck) >= 0.8 and min(rates[c] for c in deck) <= 0.5, (power, rates)


def test_load_custom_catalog_from_a_file_and_use_it_in_the_env():
    """R7.3: a custom catalog."""
    cat = load_catalog(TEST_CATALOG_FILE)
    assert [c.id for c in cat.cards] == ["S1", "S2", "S3", "R1", "D1", "T1", "C1"]
    env = ice_envs.make("tip_of_the_diceberg", num_players=5, catalog=str(TEST_CATALOG_FILE))
    env.reset(seed=0)
    slots = [env.unwrapped.game_state.config.catalog.cards[i].id for i in env.unwrapped.game_state.slots]
    assert slots == ["S1", "S2", "S3", "R1", "D1", "T1", "C1"]
    env = ice_envs.make("tip_of_the_diceberg", num_players=3, catalog=example_catalog_path())
    env.reset(seed=0)
    assert env.unwrapped.game_state.config.catalog.name == "example_custom"
    inline = ice_envs.make("tip_of_the_diceberg", num_players=3, catalog=json.loads(TEST_CATALOG_FILE.read_text()))
    inline.reset(seed=1)
    assert len(inline.unwrapped.game_state.slots) == 6


def test_bad_catalogs_are_refused_clearly(tmp_path):
    """R7.1, R7.3: catalog validation."""
    good = json.loads(TEST_CATALOG_FILE.read_text())
    cases = [
        ({"cards": good["cards"] + [good["cards"][0]]}, "duplicate card id"),
        ({"cards": [{**good["cards"][0], "deck": "side"}]}, "'deck'"),
        ({"cards": [{**good["cards"][3], "power": "freeze"}]}, "'power'"),
        ({"cards": [{"id": "M", "deck": "main", "pattern": {"count": 1}}]}, "needs a 'power'"),
        ({"cards": [{**good["cards"][0], "pattern": {"count": 2, "colour": 1}}]}, r"S1.*unknown pattern key"),
        ({"cards": [{**good["cards"][0], "size": 3}]}, "unknown key"),
        ({"cards": []}, "no player count can use it: no Diceberg card would be revealed with 3 players"),
        (
            {"cards": [{"id": f"S{i}", "deck": "starter", "pattern": {"count": 1}} for i in range(13)]},
            "at most 12",
        ),
        ({"deck": []}, "'cards' list"),
    ]
    for data, match in cases:
        with pytest.raises(ValueError, match=match):
            parse_catalog(data, "bad")
    with pytest.raises(OptionError, match="does not exist"):
        ice_envs.make("tip_of_the_diceberg", num_players=3, catalog=str(tmp_path / "missing.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(OptionError, match="not valid JSON"):
        ice_envs.make("tip_of_the_diceberg", num_players=3, catalog=str(broken))
    with pytest.raises(OptionError, match="main_cards"):
        ice_envs.make("tip_of_the_diceberg", num_players=3, main_cards=["S1"])
