"""Tip of the Diceberg engine: setup, draft, tricks, going out, rounds, powers, hidden information.

Rule numbers (R2.5, I14, ...) refer to ``docs/rules/tip_of_the_diceberg.md``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ice_envs.core.testing import ScriptedRng
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import load_catalog
from ice_envs.tip_of_the_diceberg.patterns import CARD_NUMBER, ITEM_DIE0, enumerate_melds, parse_card

TEST_CATALOG = load_catalog(Path(__file__).parent / "data" / "test_catalog.json")
# Slots with 3-4 players: 0 Single, 1 Pair, 2 R1 suited pair (reroll), 3 D1 one item 10+ (discard),
# 4 T1 two items summing 7 (take), 5 C1 run of three (clear). With 5 players S3 (triple) is slot 2.
SINGLE, PAIR, SUITED, HIGH, SEVEN, RUN = range(6)


def c(name: str) -> int:
    return parse_card(name)


def position(n=4, hands=None, dice=None, pool=(), start=0, catalog=TEST_CATALOG, rolls=(), rounds=3, compulsory=False):
    """A hand-built position in the play phase (no draft); ``rolls`` script the dice rolls."""
    cfg = rules.DicebergConfig(num_players=n, catalog=catalog, num_rounds=rounds, compulsory_powers=compulsory)
    rng = ScriptedRng(list(rolls))
    hands = hands if hands is not None else [[] for _ in range(n)]
    dice = dice if dice is not None else [[] for _ in range(n)]
    state = rules.new_game(cfg, rng, start_player=start, hands=hands, dice=dice, pool=list(pool))
    return state, rng


def die_of(state, seat, name):
    """The die slot of ``seat``'s die ``name`` (e.g. ``"d6:4"``)."""
    t, v = rules.parse_die(name)
    for d in rules.own_dice(state, seat):
        if rules.DIE_TYPE[d] == t and state.die_value[d] == v:
            return d
    raise AssertionError(f"seat {seat} holds no die {name}")


def play(state, rng, items, slot):
    """Compose ``items`` (card names / own die names) and commit to ``slot``, checking every mask."""
    seat = state.current
    ids = []
    for it in items:
        if it.startswith("die "):
            ids.append(ITEM_DIE0 + die_of(state, seat, it[4:]))
        else:
            ids.append(c(it))
    for it in sorted(ids):
        assert it in rules.legal_actions(state), f"{it} not legal; legal {rules.legal_actions(state)}"
        rules.apply(state, it, rng)
    assert rules.COMMIT + slot in rules.legal_actions(state)
    rules.apply(state, rules.COMMIT + slot, rng)


# ---------------------------------------------------------------------------- setup
@pytest.mark.parametrize("n,top,deck_size,dice", [(3, 8, 42, 12), (4, 12, 52, 18), (5, 20, 60, 18)])
def test_deck_reduction_and_dice_per_player_count(n, top, deck_size, dice):
    """R1.2, R1.3, R1.5 (I3, I4, I25, I26)."""
    deck = rules.deck_cards(n)
    assert len(deck) == deck_size
    assert max(CARD_NUMBER[x] for x in deck) == top
    assert len(rules.dice_in_game(n)) == dice
    s = rules.new_game(rules.DicebergConfig(num_players=n), np.random.default_rng(0))
    assert all(len(h) == 12 for h in s.hands)
    dealt = sorted(x for h in s.hands for x in h) + s.undealt
    assert sorted(dealt) == deck and len(s.undealt) == deck_size - 12 * n
    assert s.die_loc.count(rules.POOL) == dice and s.die_loc.count(rules.UNUSED) == 18 - dice
    for d in range(18):
        if s.die_loc[d] == rules.POOL:
            assert 1 <= s.die_value[d] <= rules.SUIT_FACES[rules.DIE_TYPE[d]]


def test_setup_reveals_starters_and_one_card_per_power_deck():
    """R1.7 (I2, I27)."""
    for n, starters in ((3, 6), (4, 6), (5, 7)):
        s = rules.new_game(rules.DicebergConfig(num_players=n), np.random.default_rng(n))
        cards = [s.config.catalog.cards[i] for i in s.slots]
        assert [x.deck for x in cards] == ["starter"] * starters + ["main"] * 4
        assert [x.power for x in cards[starters:]] == ["reroll", "discard", "take", "clear"]
        assert ("S7" in [x.id for x in cards]) == (n == 5)
    drawn = {tuple(rules.new_game(rules.DicebergConfig(), np.random.default_rng(i)).slots) for i in range(12)}
    assert len(drawn) > 1, "the main cards should be drawn by the rng"
    fixed = rules.DicebergConfig(main_cards=("R3", "C4"))
    s = rules.new_game(fixed, np.random.default_rng(0))
    ids = [s.config.catalog.cards[i].id for i in s.slots]
    assert ids[6] == "R3" and ids[9] == "C4" and ids[7].startswith("D") and ids[8].startswith("T")
    with pytest.raises(ValueError, match="starter"):
        rules.DicebergConfig(main_cards=("S1",))
    with pytest.raises(ValueError, match="two 'reroll'"):
        rules.DicebergConfig(main_cards=("R1", "R2"))
    with pytest.raises(ValueError, match="no card"):
        rules.DicebergConfig(main_cards=("X9",))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_snake_draft_two_dice_each_keeping_their_numbers(n):
    """R1.9, R1.10 (I5): the snake draft."""
    assert rules.snake_order(1, 4) == [1, 2, 3, 0, 0, 3, 2, 1]
    s = rules.new_game(rules.DicebergConfig(num_players=n, start_player=n - 1), np.random.default_rng(5))
    values = list(s.die_value)
    order = []
    rng = np.random.default_rng(0)
    while s.phase == rules.PHASE_DRAFT:
        order.append(s.current)
        legal = rules.legal_actions(s)
        assert legal and all(rules.DRAFT <= a < rules.TAKE for a in legal)
        # only the lowest slot of identical pool dice is offered
        keys = [(rules.DIE_TYPE[a - rules.DRAFT], s.die_value[a - rules.DRAFT]) for a in legal]
        assert len(keys) == len(set(keys))
        rules.apply(s, legal[int(rng.integers(len(legal)))], rng)
    assert order == rules.snake_order(n - 1, n)
    assert all(rules.dice_count(s, p) == 2 for p in range(n))
    assert s.die_value == values, "drafted dice keep their numbers (no roll during the draft)"
    assert s.phase == rules.PHASE_PLAY and s.current == n - 1 and s.last_player == -1
    assert s.die_loc.count(rules.POOL) == len(rules.dice_in_game(n)) - 2 * n


# ---------------------------------------------------------------------------- tricks
def test_play_pass_and_take_and_trick_clearing():
    """R2.1, R2.4, R2.5, R3.4 (I13, I14)."""
    hands = [["d4:1", "d6:1", "d8:5"], ["d4:2", "d6:2", "d8:6"], ["d8:1", "d10:3", "d12:4"], ["d4:4", "d6:6", "d8:8"]]
    s, rng = position(hands=hands, pool=["d10:9", "d20:11"])
    assert s.current == 0 and s.phase == rules.PHASE_PLAY and s.last_player == -1
    play(s, rng, ["d4:1", "d6:1"], PAIR)
    assert s.slot_player[PAIR] == 0 and s.slot_meld[PAIR] == [c("d4:1"), c("d6:1")]
    assert s.last_player == 0 and s.current == 1
    # the Pair slot takes one meld per trick: player 1's pair of 2s cannot go there now
    assert all(k != PAIR for k, _ in rules.legal_melds(s))
    pool_d10 = [d for d in rules.pool_dice(s) if rules.DIE_TYPE[d] == 3][0]
    rules.apply(s, rules.PASS_TAKE + pool_d10, rng)  # player 1 passes and takes the d10 showing 9
    assert s.die_loc[pool_d10] == 1 and s.die_value[pool_d10] == 9 and s.passes == 1
    rules.apply(s, rules.PASS, rng)  # player 2 passes
    assert s.current == 3 and s.passes == 2 and s.tricks == 0
    rolls = ScriptedRng([17])  # the pool (the d20 alone) is re-rolled when the trick clears
    rules.apply(s, rules.PASS, rolls)  # every other player passed in succession: the trick clears
    assert s.tricks == 1 and s.current == 0 and s.leader == 0 and s.last_player == -1 and s.passes == 0
    assert s.slot_player == [-1] * 6 and all(not m for m in s.slot_meld)
    assert s.removed == [c("d4:1"), c("d6:1")], "played cards leave the round"
    assert rolls.remaining == [] and s.die_value[rules.pool_dice(s)[0]] == 17


def test_played_dice_return_to_the_pool_and_the_whole_pool_is_rerolled():
    """R2.5 (I14)."""
    hands = [["d8:5", "d8:6"], ["d4:2"], ["d8:1"], ["d4:4"]]
    dice = [["d6:3"], [], [], []]
    s, rng = position(hands=hands, dice=dice, pool=["d20:20"])
    play(s, rng, ["die d6:3"], SINGLE)
    d6 = [d for d in range(18) if s.die_loc[d] == rules.PLAYED]
    assert len(d6) == 1
    rolls = ScriptedRng([2, 19])  # re-roll in slot order: the d6 (slot 3) then the d20 (slot 15)
    for _ in range(3):
        rules.apply(s, rules.PASS, rolls)
    assert s.die_loc[d6[0]] == rules.POOL and s.die_value[d6[0]] == 2
    assert s.die_value[rules.pool_dice(s)[-1]] == 19 and rolls.remaining == []
    assert s.current == 0, "the last player to play leads"


def test_a_player_who_passed_may_play_later_in_the_same_trick():
    """R2.4."""
    hands = [["d4:1", "d6:1"], ["d4:3", "d6:4", "d8:5"], ["d8:1", "d10:1", "d12:7"], ["d4:4", "d6:5"]]
    s, rng = position(hands=hands)
    play(s, rng, ["d4:1"], SINGLE)
    rules.apply(s, rules.PASS, rng)  # player 1 passes
    play(s, rng, ["d8:1", "d10:1"], PAIR)  # player 2 plays: the pass streak starts again
    assert s.passes == 0 and s.last_player == 2
    rules.apply(s, rules.PASS, rng)  # player 3
    rules.apply(s, rules.PASS, rng)  # player 0
    assert s.current == 1 and s.tricks == 0
    assert {k for k, _ in rules.legal_melds(s)} == {SEVEN, RUN}, "the open slots player 1 can fill"
    play(s, rng, ["d4:3", "d6:4"], SEVEN)
    assert s.slot_player[SEVEN] == 1 and s.last_player == 1 and s.current == 2


def test_pass_of_the_lead_with_a_take_and_the_empty_trick():
    """R2.6, R2.7 (I13, I17)."""
    hands = [["d4:1"], ["d4:2"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands, pool=["d12:5", "d12:5", "d20:7"])
    legal = rules.legal_actions(s)
    assert rules.PASS in legal
    takes = [a - rules.PASS_TAKE for a in legal if rules.PASS_TAKE <= a < rules.DRAFT]
    assert len(takes) == 2, "identical pool dice are one choice"
    rules.apply(s, rules.PASS_TAKE + takes[0], rng)  # the lead passes and takes a d12=5
    assert rules.dice_count(s, 0) == 1
    for _ in range(2):
        rules.apply(s, rules.PASS, rng)
    assert s.tricks == 0
    rolls = ScriptedRng([3, 8])
    rules.apply(s, rules.PASS, rolls)  # all four passed in succession without a play
    assert s.tricks == 1 and s.leader == 1 and s.current == 1, "the lead moves on clockwise"
    assert rolls.remaining == []


def test_trick_clearing_with_a_player_out():
    """R2.5, R2.6 (I14, I16)."""
    # player 1 goes out with its last card; the lead then goes clockwise from player 1
    hands = [["d4:1", "d6:2"], ["d8:8"], ["d4:3", "d6:3"], ["d4:4", "d6:4"]]
    s, rng = position(hands=hands, start=1)
    play(s, rng, ["d8:8"], SINGLE)
    assert s.out_order == [1] and s.points[1] == 3 and s.current == 2
    rules.apply(s, rules.PASS, rng)  # 2
    rules.apply(s, rules.PASS, rng)  # 3
    assert s.tricks == 0, "the player who went out does not count: player 0 must pass too"
    rules.apply(s, rules.PASS, rng)  # 0
    assert s.tricks == 1 and s.current == 2 and s.leader == 2


def test_players_out_are_skipped_and_the_last_player_leads():
    """R2.1, R2.6 (I15, I16)."""
    hands = [["d4:1", "d6:2"], ["d8:8"], ["d4:3", "d6:3", "d8:4"], ["d4:4", "d6:4"]]
    s, rng = position(hands=hands, start=1)
    play(s, rng, ["d8:8"], SINGLE)  # player 1 goes out
    play(s, rng, ["d4:3", "d6:3"], PAIR)  # player 2 plays
    rules.apply(s, rules.PASS, rng)  # player 3
    assert s.current == 0
    rules.apply(s, rules.PASS, rng)  # player 0: every other player still in has passed
    assert s.tricks == 1 and s.current == 2, "the last player to play leads"
    rules.apply(s, rules.PASS, rng)  # 2 passes the lead
    rules.apply(s, rules.PASS, rng)  # 3
    assert s.current == 0
    rules.apply(s, rules.PASS, rng)  # 0
    assert s.tricks == 2 and s.current == 3, "an empty trick clears; the lead moves on, skipping player 1"


# ---------------------------------------------------------------------------- going out, rounds, game
def _go_out_in_order(s, rng, order):
    """Each seat of ``order`` plays its one card to Single when it is open; everyone else passes."""
    for seat in order:
        while s.current != seat or s.slot_player[SINGLE] >= 0:
            rules.apply(s, rules.PASS, rng)
        assert s.hands[seat] and not rules.own_dice(s, seat)
        rules.apply(s, s.hands[seat][0], rng)
        rules.apply(s, rules.COMMIT + SINGLE, rng)


def _lone_cards(n, order):
    """One distinct card each for the seats of ``order``, two cards for the others."""
    suits = (4, 6, 8, 10, 12)
    return [[f"d{suits[i]}:1"] if i in order else [f"d20:{i + 1}", f"d20:{i + 5}"] for i in range(n)]


@pytest.mark.parametrize(
    "n,order,points",
    [
        (3, [2, 0], [2, 0, 3]),
        (4, [1, 3, 0], [1, 3, 0, 2]),
        (5, [4, 0, 2], [2, 0, 1, 0, 3]),
    ],
)
def test_scoring_and_round_end_per_player_count(n, order, points):
    """R4.2, R5.1 (I19, I20)."""
    s, rng = position(n=n, hands=_lone_cards(n, order), rounds=1)
    _go_out_in_order(s, rng, order[:-1])
    assert s.phase == rules.PHASE_PLAY, "the round goes on until only one (5 players: two) is left"
    _go_out_in_order(s, rng, order[-1:])
    assert s.phase == rules.PHASE_OVER
    assert s.history == [order]
    assert s.points == points
    assert s.winners == [order[0]]
    assert rules.outcome(s) == [1.0 if p == order[0] else -1.0 for p in range(n)]
    assert rules.scores(s) == [float(x) for x in points]


def test_next_round_start_player_lowest_points_ties_to_the_later_finisher():
    """R5.3 (I21)."""
    s, _ = position(n=4, hands=[["d4:1"], ["d4:2"], ["d4:3"], ["d4:4"]])
    s.points, s.out_order = [3, 2, 0, 0], [0, 1, 3]
    assert rules.next_start_player(s) == 2, "tied on 0: player 2 did not go out"
    s.points, s.out_order = [0, 3, 0, 2], [2, 0, 1]
    assert rules.next_start_player(s) == 0, "tied on 0: player 0 went out later than player 2"
    s.points, s.out_order = [1, 4, 1, 1], [2, 0, 3]
    assert rules.next_start_player(s) == 3
    s.points, s.out_order = [0, 5, 5, 5], [1, 2, 3]
    assert rules.next_start_player(s) == 0, "lowest points alone"
    s5, _ = position(n=5, hands=[[] for _ in range(5)])
    s5.points, s5.out_order = [3, 0, 2, 1, 0], [0, 2, 3]
    assert rules.next_start_player(s5) == 4, "1 and 4 tied and both stayed in: first clockwise from player 3"


def _rig_round(s, cards):
    """Replace the fresh deal by one card each and skip the draft."""
    s.hands = [[c(x)] for x in cards]
    for d in range(18):
        if s.die_loc[d] >= 0:
            s.die_loc[d] = rules.POOL
    s.draft_order = []
    rules._begin_play(s, s.start_player)


def test_three_rounds_new_deal_and_draft_and_winner():
    """R5.2, R5.4, R5.5 (I22)."""
    s, _ = position(n=3, hands=[["d4:1"], ["d6:1"], ["d8:2", "d8:3"]], rounds=3)
    rng = np.random.default_rng(0)
    _go_out_in_order(s, rng, [0, 1])
    assert s.round == 1 and s.history == [[0, 1]] and s.points == [3, 2, 0]
    # round 2: a fresh deal and draft, started by the lowest scorer (player 2)
    assert s.phase == rules.PHASE_DRAFT and s.start_player == 2 and s.current == 2
    assert all(len(h) == 12 for h in s.hands) and s.out_order == [] and s.removed == [] and s.tricks == 0
    assert s.draft_order == rules.snake_order(2, 3) and s.die_loc.count(rules.POOL) == 12
    _rig_round(s, ["d4:1", "d6:1", "d8:2"])
    _go_out_in_order(s, rng, [2, 1])
    assert s.points == [3, 4, 3] and s.round == 2
    assert s.start_player == 0, "players 0 and 2 tied on 3: player 0 did not go out in round 2"
    _rig_round(s, ["d4:1", "d6:1", "d8:2"])
    _go_out_in_order(s, rng, [1, 2])
    assert s.phase == rules.PHASE_OVER and s.points == [3, 7, 5] and s.winners == [1]
    assert s.history == [[0, 1], [2, 1], [1, 2]]


def test_tie_on_points_goes_to_the_earliest_finisher_of_the_last_round():
    """R6.1 (I23)."""
    s, _ = position(n=4, hands=[["d4:1"], ["d4:2"], ["d4:3"], ["d4:4"]])
    s.points = [5, 5, 2, 5]
    s.history = [[2, 3, 0], [3, 1, 0], [1, 3, 2]]
    assert rules.game_winners(s) == [1]
    s.history[-1] = [2, 0, 1]  # player 3 did not go out
    assert rules.game_winners(s) == [0]
    s5, _ = position(n=5, hands=[[] for _ in range(5)])
    s5.points = [4, 4, 1, 1, 1]
    s5.history = [[2, 3, 4]]  # players 0 and 1 both stayed in: shared win
    assert rules.game_winners(s5) == [0, 1]


# ---------------------------------------------------------------------------- powers
def test_reroll_power_marks_dice_then_rerolls_them():
    """R3.8 (house rule I9)."""
    hands = [["d8:1", "d8:2", "d10:5"], ["d4:2"], ["d4:3"], ["d4:4"]]
    dice = [["d6:4", "d6:4", "d20:3"], [], [], []]
    s, rng = position(hands=hands, dice=dice)
    play(s, rng, ["d8:1", "d8:2"], SUITED)
    assert s.phase == rules.PHASE_REROLL and s.current == 0
    legal = rules.legal_actions(s)
    d6a, d6b = sorted(d for d in rules.own_dice(s, 0) if rules.DIE_TYPE[d] == 1)
    d20 = [d for d in rules.own_dice(s, 0) if rules.DIE_TYPE[d] == 5][0]
    assert legal == [rules.MARK + d6a, rules.MARK + d20, rules.DECLINE], "identical dice are marked in slot order"
    rules.apply(s, rules.MARK + d6a, rng)
    assert rules.legal_actions(s) == [rules.MARK + d6b, rules.MARK + d20, rules.REROLL]
    rules.apply(s, rules.MARK + d20, rng)
    assert rules.legal_actions(s) == [rules.REROLL]
    rolls = ScriptedRng([6, 20])
    rules.apply(s, rules.REROLL, rolls)
    assert s.die_value[d6a] == 6 and s.die_value[d20] == 20 and s.die_value[d6b] == 4
    assert s.phase == rules.PHASE_PLAY and s.current == 1 and s.marks == []


def test_reroll_power_may_be_declined_and_is_skipped_without_dice():
    """R2.9, R3.8, R3.9 (I8, I9)."""
    hands = [["d8:1", "d8:2", "d10:5"], ["d4:2"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands, dice=[["d6:4"], [], [], []])
    play(s, rng, ["d8:1", "d8:2"], SUITED)
    rules.apply(s, rules.DECLINE, rng)
    assert s.phase == rules.PHASE_PLAY and s.current == 1 and s.die_value[rules.own_dice(s, 0)[0]] == 4
    s, rng = position(hands=hands)
    play(s, rng, ["d8:1", "d8:2"], SUITED)
    assert s.phase == rules.PHASE_PLAY and s.current == 1, "no dice: nothing to re-roll, no decision"


def test_discard_power():
    """R3.7 (house rule I10)."""
    hands = [["d12:11", "d6:3", "d8:4"], ["d4:2"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands)
    play(s, rng, ["d12:11"], HIGH)
    assert s.phase == rules.PHASE_DISCARD
    assert rules.legal_actions(s) == [rules.DISCARD + c("d6:3"), rules.DISCARD + c("d8:4"), rules.DECLINE]
    rules.apply(s, rules.DISCARD + c("d8:4"), rng)
    assert s.hands[0] == [c("d6:3")] and c("d8:4") in s.removed and s.current == 1


def test_discard_power_can_make_the_player_go_out():
    """R3.7, R4.1 (I10)."""
    hands = [["d12:11", "d6:3"], ["d4:2"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands)
    play(s, rng, ["d12:11"], HIGH)
    rules.apply(s, rules.DISCARD + c("d6:3"), rng)
    assert s.out_order == [0] and s.points[0] == 3 and s.current == 1


def test_take_power():
    """R3.6 (house rule I11)."""
    hands = [["d4:3", "d6:4", "d8:8"], ["d4:2"], ["d8:3"], ["d4:4"]]
    s, rng = position(hands=hands, pool=["d10:9", "d10:9", "d4:1"])
    play(s, rng, ["d4:3", "d6:4"], SEVEN)
    assert s.phase == rules.PHASE_TAKE and s.current == 0
    d4, d10 = sorted(rules.pool_dice(s))[0], sorted(rules.pool_dice(s))[1]
    assert rules.legal_actions(s) == [rules.TAKE + d4, rules.TAKE + d10, rules.DECLINE]
    rules.apply(s, rules.TAKE + d10, rng)
    assert s.die_loc[d10] == 0 and s.die_value[d10] == 9 and s.current == 1 and s.phase == rules.PHASE_PLAY
    # declining keeps the pool as it is
    s, rng = position(hands=hands, pool=["d10:9"])
    play(s, rng, ["d4:3", "d6:4"], SEVEN)
    rules.apply(s, rules.DECLINE, rng)
    assert rules.dice_count(s, 0) == 0 and len(rules.pool_dice(s)) == 1 and s.current == 1
    # with an empty pool the power does nothing and asks nothing
    s, rng = position(hands=hands)
    play(s, rng, ["d4:3", "d6:4"], SEVEN)
    assert s.phase == rules.PHASE_PLAY and s.current == 1


def test_compulsory_take_power_must_take_a_die():
    """R2.9, R3.9 with ``compulsory_powers``: "activate it immediately after playing your meld" read as a must."""
    hands = [["d4:3", "d6:4", "d8:8"], ["d4:2"], ["d8:3"], ["d4:4"]]
    s, rng = position(hands=hands, pool=["d10:9", "d4:1"], compulsory=True)
    play(s, rng, ["d4:3", "d6:4"], SEVEN)
    assert s.phase == rules.PHASE_TAKE
    d4, d10 = sorted(rules.pool_dice(s))
    assert rules.legal_actions(s) == [rules.TAKE + d4, rules.TAKE + d10], "no decline"
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(s, rules.DECLINE, rng)
    rules.apply(s, rules.TAKE + d4, rng)
    assert s.die_loc[d4] == 0 and s.current == 1
    # a power that cannot act is still skipped without a decision
    s, rng = position(hands=hands, compulsory=True)
    play(s, rng, ["d4:3", "d6:4"], SEVEN)
    assert s.phase == rules.PHASE_PLAY and s.current == 1


def test_compulsory_discard_power_must_discard_a_card():
    """R3.7, R3.9 with ``compulsory_powers``."""
    hands = [["d12:11", "d6:3", "d8:4"], ["d4:2"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands, compulsory=True)
    play(s, rng, ["d12:11"], HIGH)
    assert rules.legal_actions(s) == [rules.DISCARD + c("d6:3"), rules.DISCARD + c("d8:4")]
    rules.apply(s, rules.DISCARD + c("d6:3"), rng)
    assert s.hands[0] == [c("d8:4")] and c("d6:3") in s.removed and s.current == 1


def test_compulsory_reroll_power_must_reroll_at_least_one_die():
    """R3.8, R3.9 with ``compulsory_powers``: some own die must be marked; then as usual."""
    hands = [["d8:1", "d8:2", "d10:5"], ["d4:2"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands, dice=[["d6:4", "d20:3"], [], [], []], compulsory=True)
    play(s, rng, ["d8:1", "d8:2"], SUITED)
    d6, d20 = sorted(rules.own_dice(s, 0))
    assert rules.legal_actions(s) == [rules.MARK + d6, rules.MARK + d20], "no decline before a die is marked"
    rules.apply(s, rules.MARK + d20, rng)
    assert rules.legal_actions(s) == [rules.REROLL]
    rules.apply(s, rules.REROLL, ScriptedRng([17]))
    assert s.die_value[d20] == 17 and s.die_value[d6] == 4 and s.current == 1


def test_clear_power_clears_the_trick_and_the_player_leads():
    """R3.10 (house rule I12)."""
    hands = [["d4:1", "d6:2", "d8:3", "d10:9"], ["d4:2", "d6:1"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands, pool=["d20:5"])
    rules.apply(s, rules.PASS, rng)  # player 0 passes the lead
    play(s, rng, ["d4:2"], SINGLE)  # player 1 plays
    rules.apply(s, rules.PASS, rng)  # 2
    rules.apply(s, rules.PASS, rng)  # 3
    assert s.current == 0 and s.tricks == 0
    rolls = ScriptedRng([12])
    play(s, rolls, ["d4:1", "d6:2", "d8:3"], RUN)
    assert s.tricks == 1 and s.current == 0 and s.leader == 0, "the trick clears at once and the player leads"
    assert s.slot_player == [-1] * 6 and c("d4:2") in s.removed and c("d8:3") in s.removed
    assert rolls.remaining == [] and s.die_value[rules.pool_dice(s)[0]] == 12


def test_clear_power_when_the_player_goes_out():
    """R2.9, R3.10 (I8, I12)."""
    hands = [["d4:1", "d6:2", "d8:3"], ["d4:2", "d6:1"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands)
    play(s, rng, ["d4:1", "d6:2", "d8:3"], RUN)
    assert s.out_order == [0] and s.tricks == 1 and s.current == 1, "the lead goes clockwise from the player out"


def test_power_is_not_used_by_a_player_who_went_out():
    """R2.9 (I8)."""
    hands = [["d8:1", "d8:2"], ["d4:2"], ["d4:3"], ["d4:4"]]
    s, rng = position(hands=hands, pool=["d4:1"])
    play(s, rng, ["d8:1", "d8:2"], SUITED)
    assert s.out_order == [0] and s.phase == rules.PHASE_PLAY and s.current == 1


# ---------------------------------------------------------------------------- deadlock, caches, hidden info
def test_deadlock_with_a_custom_catalog_ends_the_round():
    """R2.8 (I18)."""
    catalog = load_catalog(
        {
            "name": "quads",
            "cards": [
                {"id": "Q", "deck": "starter", "pattern": {"count": 4, "same": "number"}},
                {"id": "C", "deck": "main", "power": "clear", "pattern": {"count": 4, "run": True}},
            ],
        }
    )
    s, rng = position(n=3, hands=[["d4:1"], ["d4:2"], ["d4:3"]], catalog=catalog, rounds=1)
    assert rules.legal_actions(s) == [rules.PASS], "nobody can meld and the pool is empty"
    for _ in range(2):
        rules.apply(s, rules.PASS, rng)
    assert rules.deadlocked(s)
    rules.apply(s, rules.PASS, rng)
    assert s.phase == rules.PHASE_OVER and s.history == [[]] and s.points == [0, 0, 0]


def test_seeded_meld_caches_equal_fresh_enumeration():
    """R3.1: the cached melds behind the masks equal a fresh enumeration."""
    rng = np.random.default_rng(3)
    for game in range(3):
        s = rules.new_game(rules.DicebergConfig(num_players=4), rng)
        for _ in range(400):
            if rules.is_over(s):
                break
            legal = rules.legal_actions(s)
            rules.apply(s, legal[int(rng.integers(len(legal)))], rng)
            for seat in range(4):
                items = rules.items_of(s, seat)
                cached = rules.slot_melds(s, seat)
                for k, idx in enumerate(s.slots):
                    fresh = enumerate_melds(s.config.catalog.cards[idx].pattern, items)
                    assert sorted(cached[k].melds) == sorted(fresh)


def _four_players_after_random_play(decisions: int = 60):
    """A 4-player game after ``decisions`` random legal actions (seed 9), and the generator that played them."""
    rng = np.random.default_rng(9)
    s = rules.new_game(rules.DicebergConfig(num_players=4), rng)
    for _ in range(decisions):
        legal = rules.legal_actions(s)
        rules.apply(s, legal[int(rng.integers(len(legal)))], rng)
    return s, rng


def test_resample_hidden_keeps_counts_and_own_view():
    """R1.11 (I24)."""
    s, rng = _four_players_after_random_play()
    for seat in range(4):
        t = rules.resample_hidden(s, seat, rng)
        assert t.hands[seat] == s.hands[seat] and t.removed == s.removed and t.die_value == s.die_value
        assert [len(h) for h in t.hands] == [len(h) for h in s.hands] and len(t.undealt) == len(s.undealt)
        unseen_before = sorted([x for h in s.hands for x in h] + s.undealt)
        assert sorted([x for h in t.hands for x in h] + t.undealt) == unseen_before
    changed = any(rules.resample_hidden(s, 0, rng).hands[1] != s.hands[1] for _ in range(5))
    assert changed


def test_resample_hidden_depends_only_on_what_the_seat_knows():
    """Two positions that differ only in how the unseen cards lie give the same re-deal from the same
    generator (search agents re-deal a re-deal; the first must not show through, I24)."""
    s, rng = _four_players_after_random_play()
    for seat in range(4):
        other = rules.resample_hidden(s, seat, np.random.default_rng(1))
        assert other.hands != s.hands or other.undealt != s.undealt
        a = rules.resample_hidden(s, seat, np.random.default_rng(2))
        b = rules.resample_hidden(other, seat, np.random.default_rng(2))
        assert a.hands == b.hands and a.undealt == b.undealt
