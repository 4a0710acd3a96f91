"""Engine unit tests on hand-built positions: every line of the rulebook's scoring table,
each special meld, the ace multiplier and variants, the end-of-hand penalties, the turn
structure, the three ways a hand ends, and the game end.

Rule numbers (R4.2, I12, ...) refer to ``docs/rules/iceberg_rummy.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules as R

RNG = np.random.default_rng(0)


def game(n=2, hands=None, stock=None, melds=None, dealer=None, decks=None, single_hand=True, **cfg):
    """A position: player 0 is to play (dealer n-1) and has drawn ``stock[0]``."""
    config = R.IcebergRummyConfig(num_players=n, num_decks=decks, single_hand=single_hand, **cfg)
    return R.new_game(
        config,
        np.random.default_rng(0),
        dealer=n - 1 if dealer is None else dealer,
        hands=hands,
        stock=stock,
        melds=melds,
    )


def play(state, cards, target=-1):
    """Compose ``cards`` (selected in id order) and commit; returns the points earned."""
    p = state.current
    before = int(state.hand_points[p])
    for c in sorted(M.parse_cards(cards)):
        assert c in R.legal_actions(state), f"cannot select {M.card_name(c)}"
        R.apply(state, c, RNG)
    action = R.COMMIT_NEW if target < 0 else R.LAYOFF_BASE + target
    assert action in R.legal_actions(state), f"cannot commit {cards} to {target}"
    hand_no = state.hand_no
    R.apply(state, action, RNG)
    if state.hand_no != hand_no:  # the play ended the hand: the points are in its record
        return int(state.last_hand["meld_points"][p]) - before
    return int(state.hand_points[p]) - before


def discard(state, card):
    R.apply(state, R.DISCARD_BASE + M.parse_card(card), RNG)


def can_commit(state, cards, target=-1):
    """Whether ``cards`` can be composed and committed to ``target`` (leaves state as it was)."""
    ids = sorted(M.parse_cards(cards))
    saved = list(state.selection)
    try:
        for c in ids:
            if c not in R.legal_actions(state):
                return False
            state.selection.append(c)
        action = R.COMMIT_NEW if target < 0 else R.LAYOFF_BASE + target
        return action in R.legal_actions(state)
    finally:
        state.selection = saved


FILLER = "2C 4D 9H"  # cards that meld with nothing below


# ---------------------------------------------------------------------------- deal and turn
@pytest.mark.parametrize("n,decks", [(2, 1), (3, 1), (4, 2), (5, 2)])
def test_deal_seven_cards_one_or_two_decks_left_of_dealer_starts(n, decks):
    """R1.2, R1.6, R2.1, R3.1: seven cards each from one deck or two; the dealer's left starts, with nothing to pick up."""
    config = R.IcebergRummyConfig(num_players=n)
    assert config.decks == decks
    s = R.new_game(config, np.random.default_rng(n), dealer=1)
    assert s.current == 2 % n
    sizes = R.hand_sizes(s)
    for p in range(n):
        expected = 8 if p == s.current else 7  # the first player has drawn
        assert sizes[p] + s.aces[p] == expected
    assert s.stock_size == 52 * decks - 7 * n - 1
    total = s.hands.sum() + s.table_aces.sum() + s.stock_size
    assert total == 52 * decks
    assert s.pending == -1 and s.last_received[s.current] == -1  # nothing to pick up on the first turn


def test_discard_is_passed_face_down_to_the_left_and_picked_up_next_turn():
    """R3.6, R3.1 (I7): the discard goes face down to the left and is picked up next turn."""
    s = game(3, hands=["5S 6S 9H 2C 4D 10H QC", "3D 5C 7H 9C JD KH 2H", "3S 4S 8D 8H JC QS KS"], stock=["7C", "8C"])
    assert R.hand_sizes(s).tolist() == [8, 7, 7]
    discard(s, "QC")
    assert s.current == 1
    assert R.hand_sizes(s).tolist() == [7, 9, 7]  # picked up QC and drew 8C
    assert s.hands[1, M.parse_card("QC")] == 1 and s.hands[1, M.parse_card("8C")] == 1
    assert s.last_passed[0] == M.parse_card("QC") and s.last_received[1] == M.parse_card("QC")
    assert s.known_left[0] == M.parse_card("QC")
    discard(s, "QC")  # passed on: player 0 no longer knows where it is
    assert s.known_left[0] == -1 and s.current == 2 and s.hands[2, M.parse_card("QC")] == 1


def test_aces_are_placed_face_up_at_once_and_never_selectable():
    """R3.3 (I8): aces, dealt or drawn, are placed at once and never selected."""
    s = game(2, hands=["AS AH 5S 6S 9H 2C 4D", "3D 5C 7H 9C JD KH 2H"], stock=["AD"])
    assert s.aces.tolist() == [3, 0]
    assert s.table_aces.tolist() == [0, 1, 1, 1]
    assert not s.hands[0, list(M.ACE_IDS)].any()
    assert not set(R.legal_actions(s)) & set(M.ACE_IDS)


# ---------------------------------------------------------------------------- the scoring table
SCORING_TABLE = [
    ("Pair 10", {}, "7S 7H", -1, 10),
    ("Adding third card to an existing pair 20", {"melds": [(1, "7S 7H")]}, "7D", 0, 20),
    ("Three card Sequence 30", {}, "5S 6S 7S", -1, 30),
    ("Three card Set 30", {}, "7S 7H 7D", -1, 30),
    ("Fourth card in a Sequence 40", {"melds": [(1, "5S 6S 7S")]}, "8S", 0, 40),
    ("Fourth card in a Set 40", {"melds": [(1, "7S 7H 7D")]}, "7C", 0, 40),
]
_SET_CARDS = "7C 7D 7H 7S 7C 7D 7H 7S".split()
for _k in range(5, 9):  # two decks: sets up to eight cards
    SCORING_TABLE.append(
        (f"{_k}th card in a Set {10 * _k}", {"melds": [(1, " ".join(_SET_CARDS[: _k - 1]))], "decks": 2},
         _SET_CARDS[_k - 1], 0, 10 * _k)
    )  # fmt: skip
_RUN = [M.card_name(M.card_id(r, 3)) for r in range(1, 13)]  # 2S .. KS
for _k in range(5, 13):  # runs up to twelve cards (2 to K)
    SCORING_TABLE.append(
        (f"{_k}th card in a Sequence {10 * _k}", {"melds": [(1, " ".join(_RUN[: _k - 1]))]}, _RUN[_k - 1], 0, 10 * _k)
    )


@pytest.mark.parametrize("line,position,cards,target,points", SCORING_TABLE, ids=[t[0] for t in SCORING_TABLE])
def test_every_line_of_the_scoring_table(line, position, cards, target, points):
    """R4.2: every line of the value table; R3.5 (I6): a lay-off keeps the meld's owner."""
    decks = position.get("decks")
    s = game(2, hands=[cards + " " + FILLER, ""], stock=["JD"], melds=position.get("melds"), decks=decks)
    assert play(s, cards, target) == points
    assert s.hand_points[0] == points
    if target >= 0:
        assert s.melds[0][1] == 1  # the meld keeps its owner; the points go to the player


def test_a_meld_laid_at_once_scores_as_if_built_card_by_card():
    """R4.3 (house rule I1); R3.4.2: a five-card set has every suit."""
    s = game(2, decks=2, hands=["7C 7D 7H 7S 7C 5S 6S 7S 8S 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD", ""], stock=["9C"])
    assert play(s, "7C 7D 7H 7S") == 10 + 20 + 40  # four at once = 30 + 40
    assert play(s, "5S 6S 7S 8S") == 30 + 40  # a four-card run at once
    assert play(s, "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD") == 30 + sum(10 * k for k in range(4, 13))  # 750
    s = game(2, decks=2, hands=["7C 7D 7H 7S 7C 9H", ""], stock=["9C"])
    assert play(s, "7C 7C 7D 7H 7S") == 10 + 20 + 40 + 50  # five-card set, all suits present


def test_multi_card_lay_offs_score_card_by_card():
    """R4.4, R3.5 (I2): several cards at once, a run extended at both ends, a set made whole."""
    s = game(2, decks=2, hands=["7D 7H 4S 8S 9C 9D " + FILLER, ""], stock=["JD"],
             melds=[(1, "7S 7C"), (1, "5S 6S 7S"), (1, "9S 9H 9D")])  # fmt: skip
    assert play(s, "7D 7H", 0) == 20 + 40  # pair -> four-card set
    assert play(s, "4S 8S", 1) == 40 + 50  # a run extended at both ends
    assert can_commit(s, "9C", 2)  # 9C alone completes the four suits: legal
    assert not can_commit(s, "9D", 2)  # a duplicate suit in a set of four is not a set
    assert play(s, "9C 9D", 2) == 40 + 50  # missing suit + duplicate: a five-card set with every suit


def test_special_melds_score_their_fixed_values_and_are_never_extended():
    """R3.4.4-R3.4.7, R4.5 and I5: fixed values, no lay-offs onto special melds."""
    hands = [
        "3S 5S 7S 9S JS KS 2H 4H 6H 8H 10H QH 3C 5S 7C 9C JS KC 2D 4H 6D 8H 10D QD",
        "",
    ]
    s = game(2, decks=2, hands=hands, stock=["9D"])
    assert play(s, "3S 5S 7S 9S JS KS") == 700  # odds in one suit
    assert play(s, "2H 4H 6H 8H 10H QH") == 700  # evens in one suit
    assert play(s, "3C 5S 7C 9C JS KC") == 300  # odds in one colour, not all one suit
    assert play(s, "2D 4H 6D 8H 10D QD") == 200  # evens in one colour
    kinds = [m[0] for m in s.melds]
    assert kinds == [M.ODDS_SUIT, M.EVENS_SUIT, M.ODDS_COLOUR, M.EVENS_COLOUR]
    s = game(2, hands=["4S 6S 3C 2H " + FILLER, ""], stock=["9D"], melds=[(1, "3S 5S 7S 9S JS KS")])
    assert not any(a >= R.LAYOFF_BASE for a in _all_commits(s))  # nothing fits onto a special meld


def test_mixed_colours_and_wrong_ranks_are_not_special_melds():
    """R3.4.4-R3.4.7 (I5): exactly the six ranks, one colour."""
    assert M.meld_kind(M.parse_cards("3S 5H 7S 9S JS KS")) is None
    assert M.meld_kind(M.parse_cards("3S 5S 7S 9S JS QS")) is None
    assert M.meld_kind(M.parse_cards("2D 4D 6D 8D 10D QD")) == M.EVENS_SUIT
    assert M.meld_kind(M.parse_cards("3S 5C 7S 9S JS KS")) == M.ODDS_COLOUR


def _all_commits(state):
    """Every commit action reachable from the empty selection."""
    found = []

    def walk():
        for a in R.legal_actions(state):
            if a < R.DISCARD_BASE:
                state.selection.append(a)
                walk()
                state.selection.pop()
            elif a >= R.COMMIT_NEW:
                found.append(a)

    walk()
    return found


@pytest.mark.parametrize(
    "hand,cards,decks",
    [
        ("7S 7S 9H", "7S 7S", 2),  # a pair needs two different suits
        ("7S 7S 7H 7D", "7S 7S 7H 7D", 2),  # a set of four needs four suits
        ("7S 7S 7H 7H 7D", "7S 7S 7H 7H 7D", 2),  # a set of five needs every suit
        ("5S 6S 8S", "5S 6S 8S", 1),  # not consecutive
        ("5S 6S 7H", "5S 6S 7H", 1),  # not one suit
        ("QS KS 2S", "QS KS 2S", 1),  # no wrap-around: K is high, 2 low
        ("5S 6S", "5S 6S", 1),  # a run needs three cards
    ],
)
def test_illegal_melds_cannot_be_composed(hand, cards, decks):
    """R3.4.1-R3.4.3 (I3, I4): suit conditions of pairs and sets, runs consecutive, no wrap-around."""
    s = game(2, decks=decks, hands=[hand + " " + FILLER, ""], stock=["JD"])
    assert not can_commit(s, cards)


def test_aces_are_never_in_melds():
    """R1.3, R3.4 (I4): no meld contains an ace."""
    assert M.meld_kind(M.parse_cards("AS 2S 3S")) is None
    assert M.meld_kind(M.parse_cards("AS AH")) is None


def test_lay_off_onto_another_players_meld_scores_for_the_player():
    """R3.5 (I6): lay-offs onto any player's meld score for the player who lays off."""
    s = game(3, hands=["8S 9S " + FILLER, "", ""], stock=["JD"], melds=[(2, "5S 6S 7S")])
    assert play(s, "8S 9S", 0) == 40 + 50
    assert s.melds[0] == (M.RUN, 2, tuple(M.parse_cards("5S 6S 7S 8S 9S")))
    assert s.hand_points.tolist() == [90, 0, 0]


# ---------------------------------------------------------------------------- end of the hand
def test_going_out_by_the_last_meld_ends_the_hand_at_once():
    """R5.1 (I9), R4.6.2, R6.3: going out by a meld ends the hand at once."""
    s = game(2, hands=["5S 6S", "2C 4D 6H 8C 10D QH KC"], stock=["7S"])
    assert play(s, "5S 6S 7S") == 30
    assert R.is_over(s)
    assert s.last_hand["reason"] == "went out"
    assert s.last_hand["penalties"] == [0, 70]  # seven cards that fit nowhere
    assert s.totals.tolist() == [30, -70]
    assert s.winners == [0] and R.outcome(s).tolist() == [1.0, -1.0]


def test_going_out_by_the_last_discard():
    """R3.6, R5.1 (I9): going out by discarding the last card."""
    s = game(2, hands=["5S 6S 9H", "2C 4D 6H 8C 10D QH KC"], stock=["7S"])
    play(s, "5S 6S 7S")
    discard(s, "9H")
    assert R.is_over(s) and s.last_hand["reason"] == "went out"
    assert s.totals.tolist() == [30, -70]


def _last_ace_position(**cfg):
    return game(
        2,
        hands=["AS 2C 4D 6H 8C 10D QH", "AC AD AH 3C 5D 7H JS"],
        stock=["9C", "8D", "KD"],
        **cfg,
    )


def test_the_last_ace_placed_ends_the_hand_at_once_and_multiplies():
    """R5.2 (I10), R4.7: the last ace ends the hand in step 3; aces multiply."""
    s = _last_ace_position()
    assert s.aces.tolist() == [1, 0]
    discard(s, "QH")
    # player 1 picks up QH, draws 8D, places three aces: all four are out, the hand ends
    assert R.is_over(s)
    assert s.last_hand["reason"] == "the last ace was placed"
    assert s.aces.tolist() == [1, 3]
    # player 0: 2C 4D 6H 8C 9C 10D dead (-60) x 2; player 1: 3C 5D 7H JS QH 8D dead (-60) x 4
    assert s.last_hand["penalties"] == [60, 60]
    assert s.totals.tolist() == [-120, -240]


def test_variant_the_ace_holder_finishes_the_turn():
    """R7.2 (I10, I21): the ace holder melds and discards, then the hand ends."""
    s = _last_ace_position(ace_holder_finishes=True)
    discard(s, "QH")
    assert not R.is_over(s) and s.current == 1 and s.end_after_turn
    assert s.aces.tolist() == [1, 3]
    discard(s, "QH")  # player 1 may still meld; it discards, and the hand ends
    assert R.is_over(s)
    assert s.last_hand["reason"] == "the last ace was placed"
    assert s.last_hand["penalties"] == [60, 50]
    assert s.totals.tolist() == [-120, -200]


def test_the_hand_ends_when_a_player_cannot_draw():
    """R5.3 (house rule I11): the card passed is picked up before the failed draw."""
    s = game(2, hands=["5S 6S 9H 2C", "3D 5C 7H JS"], stock=["KD"])
    s.stock = s.stock[: s.stock_pos]  # the stock is now empty
    discard(s, "9H")
    assert R.is_over(s)
    assert s.last_hand["reason"] == "the stock ran out"
    assert s.hands[1, M.parse_card("9H")] == 1  # picked up the passed card before failing to draw


# ---------------------------------------------------------------------------- penalties and aces
def _end_position(hand_1, melds=None, decks=None, **cfg):
    return game(2, hands=["2C", hand_1], stock=["4D"], melds=melds, decks=decks, **cfg)


@pytest.mark.parametrize(
    "hand,melds,penalty",
    [
        ("3C 5D 9H", None, 30),  # nothing fits: -10 each
        ("7S 7H", None, 10),  # a pair that could have been laid: -10 for both cards
        ("8S", [(0, "5S 6S 7S")], 40),  # would have been the fourth card of a run
        ("7D 9H", [(0, "7S 7H")], 20 + 10),  # third card to a pair, and a dead card
        ("5H 5D 5C 6H 7H", None, 30 + 10),  # best play-out: run 5-7H and pair 5D 5C
        ("3S 5S 7S 9S JS KS 10D", None, 700 + 10),  # a special meld left in hand
    ],
)
def test_end_of_hand_penalties(hand, melds, penalty):
    """R4.6.1, R4.6.2 (I12 and its examples): the best play-out, 10 per dead card."""
    s = _end_position(hand, melds)
    assert R.hand_penalty(s, 1)[0] == penalty


def test_penalties_and_the_ace_multiplier_apply_when_the_hand_ends():
    """R5.4, R4.6, R4.7 (I14): penalties and the multiplier at the end of the hand."""
    # player 0 has placed two aces, melds 30 and goes out by discarding; player 1 (no turn yet)
    # keeps 8S, which fits the new run (-40), and a dead 9H (-10)
    s = game(2, hands=["AS AH 5S 6S 10C", "8S 9H"], stock=["7S", "KD"])
    assert s.aces[0] == 2
    play(s, "5S 6S 7S")
    discard(s, "10C")
    assert R.is_over(s)
    assert s.last_hand["penalties"] == [0, 40 + 10]
    assert s.totals.tolist() == [30 * 3, -50]  # two aces: x3


def test_negative_hand_scores_are_multiplied_too():
    """R4.7 (I14): a negative hand score is multiplied too."""
    s = game(2, hands=["AS 2C 4D", "5S 6S"], stock=["9H", "7S"])
    discard(s, "2C")
    play(s, "5S 6S 7S")
    assert R.is_over(s) is False
    discard(s, "2C")  # player 1 goes out
    assert R.is_over(s)
    assert s.totals.tolist() == [-(10 + 10) * 2, 30]  # 4D 9H dead, one ace doubles the loss


@pytest.mark.parametrize(
    "scoring,aces,bonus",
    [("fixed", 2, 60), ("doubling", 3, 20 + 40 + 80), ("cats", 3, 3 * 30), ("cats", 5, 250)],
)
def test_ace_scoring_variants_give_a_bonus_when_placed(scoring, aces, bonus):
    """R7.1.1-R7.1.3 (I15), R4.1: ace bonuses recorded when placed, no multiplier."""
    cards = " ".join(["AS", "AH", "AD", "AC", "AS"][:aces])
    s = game(2, decks=2, hands=[cards + " 5S 6S 9H", "2C 4D"], stock=["7S"], ace_scoring=scoring)
    assert s.ace_bonus[0] == bonus  # recorded at once
    assert R.running_scores(s)[0] == bonus
    play(s, "5S 6S 7S")
    discard(s, "9H")
    assert R.is_over(s)
    assert s.totals[0] == 30 + bonus  # no multiplier under the variants


def test_unplaced_aces_cost_10_or_their_variant_value():
    """R4.6.3 (I13): an unplaced ace costs 10, or its variant value."""
    # player 1 has not had a turn yet when player 0 goes out: its ace was never placed
    s = game(2, hands=["5S 6S", "AC 9H"], stock=["7S"])
    play(s, "5S 6S 7S")
    assert s.last_hand["penalties"] == [0, 20]
    s = game(2, hands=["5S 6S", "AC 9H"], stock=["7S"], ace_scoring="fixed", ace_value=40)
    play(s, "5S 6S 7S")
    assert s.last_hand["penalties"] == [0, 40 + 10]


# ---------------------------------------------------------------------------- the game
def test_a_full_game_deals_again_with_the_next_dealer_until_5000():
    """R5.5: the next hand is dealt by the next dealer to the left."""
    s = game(2, hands=["5S 6S", "2C 4D 6H 8C 10D QH KC"], stock=["7S"], single_hand=False)
    play(s, "5S 6S 7S")
    assert not R.is_over(s)
    assert s.hand_no == 1 and s.dealer == 0 and s.current == 1  # dealer rotates, left of dealer starts
    assert s.totals.tolist() == [30, -70]
    assert not s.melds and R.hand_sizes(s).sum() + s.aces.sum() == 15


def test_the_game_ends_when_a_player_reaches_5000_and_the_highest_total_wins():
    """R5.6, R6.1 (I16): the game ends at 5000 and the highest total wins."""
    s = game(2, hands=["5S 6S", "2C 4D 6H 8C 10D QH KC"], stock=["7S"], single_hand=False)
    s.totals[:] = [4980, 0]
    play(s, "5S 6S 7S")
    assert R.is_over(s) and s.winners == [0]
    s = game(2, hands=["5S 6S", "2C 4D 6H 8C 10D QH KC"], stock=["7S"], single_hand=False)
    s.totals[:] = [4980, 6000]
    play(s, "5S 6S 7S")
    assert R.is_over(s) and s.winners == [1]  # both over 5000: the highest total wins


def test_max_hands_stops_a_full_game_undecided():
    """R7.4 (I17): nobody has reached 5000 when the cap is reached: the game stops with no winner and no outcome."""
    s = game(2, hands=["5S 6S", "3D 3H 4C"], stock=["7S"], single_hand=False, max_hands=1)
    play(s, "5S 6S 7S")
    assert R.is_over(s) and R.is_truncated(s) and s.hand_no == 1
    assert s.totals.tolist() == [30, -20]  # the last hand is settled all the same
    assert s.winners == [] and R.outcome(s).tolist() == [0.0, 0.0]


def test_reaching_the_target_in_the_capped_hand_decides_the_game():
    """R5.6, R6.1 (I16, I17): the rulebook's end ("5000 or more points" at the end of a hand) wins over the cap."""
    s = game(2, hands=["5S 6S", "3D 3H 4C"], stock=["7S"], single_hand=False, max_hands=1)
    s.totals[:] = [4980, 0]
    play(s, "5S 6S 7S")
    assert R.is_over(s) and not R.is_truncated(s)
    assert s.winners == [0] and R.outcome(s).tolist() == [1.0, -1.0]


def test_max_hands_decide_caps_a_full_game_and_ties_all_win():
    """R7.4 (I17) with ``max_hands_end="decide"`` (the v0 rule), R6.2 (I16): tied leaders all win."""
    s = game(2, hands=["5S 6S", "3D 3H 4C"], stock=["7S"], single_hand=False, max_hands=1, max_hands_end="decide")
    s.totals[:] = [0, 30 + 10 + 10]
    play(s, "5S 6S 7S")  # player 1 keeps a pair (-10) and a dead card (-10)
    assert R.is_over(s) and not R.is_truncated(s)
    assert s.totals.tolist() == [30, 30]
    assert s.winners == [0, 1] and R.outcome(s).tolist() == [1.0, 1.0]


def test_bad_options_are_refused():
    """R1.1, R7.1.1, R1.2: player count, ace scoring, ace value and card counts are checked."""
    with pytest.raises(ValueError, match="num_players"):
        R.IcebergRummyConfig(num_players=6)
    with pytest.raises(ValueError, match="ace_scoring"):
        R.IcebergRummyConfig(ace_scoring="triple")
    with pytest.raises(ValueError, match="ace_value"):
        R.IcebergRummyConfig(ace_value=60)
    with pytest.raises(ValueError, match="max_hands_end"):
        R.IcebergRummyConfig(max_hands_end="stop")
    with pytest.raises(ValueError, match="more copies"):
        game(2, hands=["7S 7S", ""], stock=["9C"])
