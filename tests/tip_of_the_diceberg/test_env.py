"""The AEC adapter: every legal meld reachable through the masks, observations, rewards, options."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import IllegalActionError, OptionError
from ice_envs.tip_of_the_diceberg import env as E
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import example_catalog_path, load_catalog
from ice_envs.tip_of_the_diceberg.patterns import (
    CARD_NUMBER,
    ITEM_DIE0,
    SUIT_FACES,
    SUITS,
    brute_force_melds,
    canonical_key,
    parse_card,
)


def _reachable_plays(env) -> tuple[set, int]:
    """Walk every composition path from the mask; returns ({(slot, canonical meld)}, number of paths)."""
    raw = env.unwrapped
    s = raw.game_state
    by_id = {it[0]: it for it in rules.items_of(s, s.current)}
    found = set()
    paths = 0

    def walk():
        nonlocal paths
        raw._mask = None
        mask = raw.action_mask()
        legal = np.flatnonzero(mask).tolist()
        assert legal, "a composition reached a dead end"
        assert legal == rules.legal_actions(s)
        for a in legal:
            if a < rules.COMMIT:
                s.selection.append(a)
                walk()
                s.selection.pop()
            elif a < rules.PASS:
                paths += 1
                found.add((a - rules.COMMIT, canonical_key(by_id[i] for i in s.selection)))
        raw._mask = None

    walk()
    return found, paths


def _brute_force_plays(s) -> set:
    items = rules.items_of(s, s.current)
    out = set()
    for k, idx in enumerate(s.slots):
        if s.slot_player[k] < 0:
            for key in brute_force_melds(s.config.catalog.cards[idx].pattern, items):
                out.add((k, key))
    return out


def _random_position(rng, n, catalog, main_cards):
    """A position at the start of a turn: random hand of 2-9 cards, 0-6 dice (often identical), slots taken."""
    env = ice_envs.make("tip_of_the_diceberg", num_players=n, catalog=catalog, main_cards=main_cards)
    deck = rules.deck_cards(n)
    cards = rng.choice(deck, int(rng.integers(2, 10)), replace=False).tolist()
    dice_slots = rng.choice(rules.dice_in_game(n), int(rng.integers(0, 7)), replace=False).tolist()
    low = rng.random() < 0.5
    dice = []
    for d in dice_slots:
        t = rules.DIE_TYPE[d]
        v = int(rng.integers(1, 3 if low else SUIT_FACES[t] + 1))
        dice.append(f"{SUITS[t]}:{v}")
    hands = [cards] + [[] for _ in range(n - 1)]
    env.reset(
        seed=int(rng.integers(1 << 30)), options={"start_player": 0, "hands": hands, "dice": [dice] + [[]] * (n - 1)}
    )
    s = env.unwrapped.game_state
    for k in range(len(s.slots)):
        if rng.random() < 0.3:
            s.slot_player[k] = 1  # taken this trick by someone else
    env.unwrapped._mask = None
    return env


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("catalog", ["default", "example"])
def test_reachable_plays_equal_brute_force_enumeration(n, catalog):
    """Every legal (slot, meld) is reachable through the masks, exactly once, and nothing else is."""
    rng = np.random.default_rng(n * 10 + (catalog == "example"))
    cat_option = None if catalog == "default" else example_catalog_path()
    cat = load_catalog(cat_option)
    decks = {p: [c.id for c in cat.cards if c.power == p] for p in ("reroll", "discard", "take", "clear")}
    for _ in range(12):
        main_cards = [str(rng.choice(ids)) for ids in decks.values() if ids]
        env = _random_position(rng, n, cat_option, main_cards)
        reachable, paths = _reachable_plays(env)
        assert reachable == _brute_force_plays(env.unwrapped.game_state)
        assert paths == len(reachable), "some meld is reachable by two action sequences"


def test_reachable_plays_in_random_games():
    rng = np.random.default_rng(7)
    env = ice_envs.make("tip_of_the_diceberg", num_players=4)
    env.reset(seed=3)
    checked = 0
    for agent in env.agent_iter(3000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = env.unwrapped.game_state
        if s.phase == rules.PHASE_PLAY and not s.selection and rng.random() < 0.1:
            reachable, paths = _reachable_plays(env)
            assert reachable == _brute_force_plays(s) and paths == len(reachable)
            checked += 1
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    assert checked >= 20


def test_spaces_and_observation_layout():
    env = ice_envs.make("tip_of_the_diceberg", num_players=4, main_cards=["R1", "D1", "T1", "C1"])
    env.reset(seed=0, options={"start_player": 1})
    assert env.action_space("player_0").n == rules.NUM_ACTIONS == 225
    raw = env.unwrapped
    lay = raw.obs_layout
    assert env.observation_space("player_0")["observation"].shape == (lay.size,) == (3023,)
    s = raw.game_state
    obs = raw.observe("player_2")["observation"]
    assert np.flatnonzero(lay.view(obs, "hand")).tolist() == s.hands[2]
    # pool dice: location "pool", one value each
    for d in rules.pool_dice(s):
        assert lay.view(obs, "die_locations")[d, 1] == 1.0
        assert lay.view(obs, "die_values")[d, s.die_value[d] - 1] == 1.0
    # slot 6 is R1 (catalog index 7): present, power "reroll", catalog one-hot
    slot = lay.view(obs, "slots")[6]
    assert slot.size == E.SLOT_SIZE
    assert slot[0] == 1 and slot[1] == 0 and slot[7 + 1] == 1 and slot[12 + 24 + 7] == 1
    assert lay.view(obs, "slots")[10, 0] == 0, "no eleventh slot with 4 players"
    # the draft: player 1 acts; it is seat +3 for player 2
    assert lay.view(obs, "phase")[0] == 1 and lay.view(obs, "seats")[3, 8] == 1
    assert lay.view(obs, "draft_left")[0] == pytest.approx(8 / 10)


def test_observation_hides_the_meld_being_composed_from_others():
    hands = [["d4:1", "d6:1", "d8:5"], ["d4:2"], ["d4:3"], ["d4:4"]]
    env = ice_envs.make("tip_of_the_diceberg", num_players=4, main_cards=["R1", "D1", "T1", "C1"])
    env.reset(seed=0, options={"start_player": 0, "hands": hands, "dice": [["d10:1"], [], [], []]})
    raw = env.unwrapped
    before = {a: raw.observe(a)["observation"].copy() for a in env.agents}
    env.step(parse_card("d4:1"))  # start composing a pair of 1s
    after = {a: raw.observe(a)["observation"] for a in env.agents}
    for a in ("player_1", "player_2", "player_3"):
        assert np.array_equal(before[a], after[a]), "others cannot see the meld being composed"
    own = after["player_0"]
    lay = raw.obs_layout
    assert lay.view(own, "selection")[parse_card("d4:1")] == 1 and lay.view(own, "phase")[3] == 1
    legal = raw.legal_actions()
    assert parse_card("d6:1") in legal and rules.ADD_DIE + raw.game_state.die_loc.index(0) in legal
    assert rules.PASS not in legal, "a started meld is finished, not abandoned"
    assert rules.COMMIT + 0 in legal, "d4:1 alone fits the one-item starter"


def test_score_mode_rewards_points_when_they_are_earned():
    env = ice_envs.make("tip_of_the_diceberg", num_players=3, reward_mode="score", main_cards=["R1", "D1", "T1", "C1"])
    env.reset(
        seed=0,
        options={"start_player": 0, "hands": [["d8:8"], ["d4:1", "d4:2"], ["d6:1", "d6:2"]], "dice": [[], [], []]},
    )
    env.step(parse_card("d8:8"))
    env.step(rules.COMMIT + 0)  # player 0 goes out first
    assert env.rewards["player_0"] == 3.0 and env.unwrapped.scores().tolist() == [3.0, 0.0, 0.0]
    assert env.rewards["player_1"] == 0.0


def test_outcome_rewards_at_the_end_of_the_game():
    env = ice_envs.make("tip_of_the_diceberg", num_players=3, num_rounds=1, main_cards=["R1", "D1", "T1", "C1"])
    env.reset(
        seed=0,
        options={"start_player": 0, "hands": [["d8:8"], ["d4:1"], ["d6:1", "d6:2"]], "dice": [[], [], []], "pool": []},
    )
    env.step(parse_card("d8:8"))
    env.step(rules.COMMIT + 0)  # player 0 out
    for _ in range(2):  # player 1 and 2 pass: the trick clears, player 1 leads
        env.step(rules.PASS)
    assert env.agent_selection == "player_1"
    env.step(parse_card("d4:1"))
    env.step(rules.COMMIT + 0)  # player 1 out: the 3-player round ends after the second player out
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}


def test_describe_actions_and_illegal_actions():
    env = ice_envs.make("tip_of_the_diceberg", num_players=3, main_cards=["R1", "D1", "T1", "C1"])
    env.reset(
        seed=0,
        options={"start_player": 0, "hands": [["d8:8", "d10:8"], ["d4:1"], ["d6:1"]], "dice": [["d20:8"], [], []]},
    )
    raw = env.unwrapped
    assert raw.describe_action(parse_card("d8:8")) == "add card d8:8 to the meld"
    d20 = raw.game_state.die_loc.index(0)
    assert raw.describe_action(rules.ADD_DIE + d20) == f"add own die #{d20} (d20=8) to the meld"
    env.step(parse_card("d8:8"))
    env.step(parse_card("d10:8"))
    assert "play d8:8 d10:8 to slot 1: S2 Twin Floes" in raw.describe_action(rules.COMMIT + 1)
    assert raw.describe_action(rules.PASS) == "pass"
    assert raw.describe_action(rules.DECLINE) == "decline the power"
    with pytest.raises(IllegalActionError, match="illegal"):
        raw.step(rules.PASS)


def test_bad_options():
    with pytest.raises(OptionError, match="num_players"):
        ice_envs.make("tip_of_the_diceberg", num_players=2)
    with pytest.raises(OptionError, match="num_rounds"):
        ice_envs.make("tip_of_the_diceberg", num_players=3, num_rounds=0)
    with pytest.raises(OptionError, match="start_player"):
        ice_envs.make("tip_of_the_diceberg", num_players=3, start_player=3)
    env = ice_envs.make("tip_of_the_diceberg", num_players=3)
    with pytest.raises(OptionError, match="not in the 3-player deck"):
        env.reset(seed=0, options={"hands": [["d10:9"], [], []]})
    with pytest.raises(OptionError, match="dealt twice"):
        env.reset(seed=0, options={"hands": [["d8:1"], ["d8:1"], []]})
    assert CARD_NUMBER[parse_card("d8:8")] == 8 and ITEM_DIE0 == 60


def test_render_shows_the_table():
    env = ice_envs.make("tip_of_the_diceberg", num_players=4, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "Tip of the Diceberg, 4 players, round 1/3" in text and "Diceberg slots:" in text and "Pool:" in text
    hidden = env.unwrapped.render_view(0)
    assert "## " in hidden and "player_0" in hidden
    picture = env.unwrapped.render_view(None, "rgb_array")
    assert picture.ndim == 3 and picture.shape[2] == 3
