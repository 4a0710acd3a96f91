"""Cardiceo engine: the worked example, the "No play" rule, the end of game.

Rule numbers (R2.6, I3, ...) refer to ``docs/rules/cardiceo.md``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ice_envs.cardiceo import rules
from ice_envs.core.testing import ScriptedRng

D4, D8, D12, D4_D8, D4_D12, D8_D12, ALL3 = range(7)

# Three hands for the worked example of R2.8 (every value at most four times in all).
EXAMPLE_HANDS = [
    [3, 10, 1, 1, 2, 2, 5, 5, 6, 6],
    [12, 1, 2, 3, 5, 6, 7, 9, 11, 13],
    [1, 2, 3, 5, 7, 7, 9, 9, 11, 15],
]


def _hand(state: rules.CardiceoState, p: int) -> list[int]:
    return [v + 1 for v in range(rules.NUM_VALUES) for _ in range(int(state.hands[p, v]))]


def test_reachable_totals():
    """R3.1: the totals that sets of dice make."""
    assert rules.reachable_totals([3, 4, 6]) == {3, 4, 6, 7, 9, 10, 13}
    assert rules.reachable_totals([4, 8, 10]) == {4, 8, 10, 12, 14, 18, 22}
    assert rules.reachable_totals([2]) == {2}
    assert rules.reachable_totals([]) == set()
    assert rules.reachable_totals([1, 1, 1]) == {1, 2, 3}


def test_rulebook_worked_example():
    """R2.8 worked example (R2.2-R2.6): discards, dice passed on, dice kept in the middle, "No play"."""
    cfg = rules.CardiceoConfig(num_players=3)
    # Second player rolls 4, 8, 12; third player re-rolls only the 12 and gets a 10.
    rng = ScriptedRng([4, 8, 12, 10])
    s = rules.new_game(cfg, rng, hands=EXAMPLE_HANDS, dice=[3, 4, 6])
    # First player rolls 3, 4, 6: the 3 discards the 3 card ...
    assert s.current == 0 and s.phase == rules.PHASE_DISCARD
    assert rules.subset_total(s, D4) == 3 and D4 in rules.legal_actions(s)
    rules.apply(s, D4, rng)
    assert 3 not in _hand(s, 0)
    # ... and the 4 and 6 together discard a 10, then all three dice go to the next player.
    assert rules.subset_total(s, D8_D12) == 10
    rules.apply(s, D8_D12, rng)
    assert _hand(s, 0) == [1, 1, 2, 2, 5, 5, 6, 6]
    assert s.discarded[3 - 1] == 1 and s.discarded[10 - 1] == 1
    # The second player rolled all three: 4, 8, 12, none from the middle.
    assert s.current == 1 and s.dice.tolist() == [4, 8, 12] and not s.locked.any()
    rules.apply(s, D12, rng)  # uses the 12 to discard a 12
    # The 4 and 8 cannot be used: they go to the middle, locking their values, and the turn ends by itself.
    # The third player may only roll the 12 (one scripted value left: it comes up 10) and keeps the 4 and 8:
    # with 4, 8, 10 they cannot play, so all three dice go to the middle and the turn ends by itself too.
    assert s.turn == 3
    assert s.dice.tolist() == [4, 8, 10]
    # The next player (the first again, with three players) has the "No play" choice on the locked dice.
    assert s.current == 0 and s.phase == rules.PHASE_NO_PLAY_CHOICE and s.locked.all()
    assert rules.legal_actions(s) == [rules.KEEP_DICE, rules.REROLL_ALL]
    assert _hand(s, 1) == sorted(EXAMPLE_HANDS[1][1:]) and _hand(s, 2) == sorted(EXAMPLE_HANDS[2])
    assert rng.remaining == []


def test_no_play_keep_uses_the_middle_dice_as_they_are():
    """R2.3, R2.6, R3.3: a turn without a play; the next player keeps the middle dice."""
    cfg = rules.CardiceoConfig(num_players=2)
    hands = [[4, 1, 1, 1, 1, 2, 2, 2, 2, 3], [15, 15, 15, 15, 14, 14, 14, 14, 13, 13]]
    rng = ScriptedRng([])
    s = rules.new_game(cfg, rng, hands=hands, dice=[4, 8, 12], start_player=1)
    # player 1 holds 13-15: totals of 4, 8, 12 are 4, 8, 12, 12, 16, 20, 24 → no play, turn ends by itself.
    assert s.current == 0 and s.phase == rules.PHASE_NO_PLAY_CHOICE
    rules.apply(s, rules.KEEP_DICE, rng)
    assert s.phase == rules.PHASE_DISCARD and s.dice.tolist() == [4, 8, 12] and s.locked.all()
    assert rules.legal_actions(s) == [D4, rules.END_TURN]


def test_no_play_reroll_rolls_all_three():
    """R2.6, R3.4 (and I4: two sets with the same total are two actions)."""
    cfg = rules.CardiceoConfig(num_players=2)
    hands = [[4, 1, 1, 1, 1, 2, 2, 2, 2, 3], [15, 15, 15, 15, 14, 14, 14, 14, 13, 13]]
    rng = ScriptedRng([1, 2, 3])
    s = rules.new_game(cfg, rng, hands=hands, dice=[4, 8, 12], start_player=1)
    rules.apply(s, rules.REROLL_ALL, rng)
    assert s.dice.tolist() == [1, 2, 3] and not s.locked.any() and not s.used.any()
    # totals 1, 2, 3, 3, 4, 5, 6: cards 1, 2, 3 (twice: d4+d8 or d12) and 4 are playable
    assert rules.legal_actions(s) == [D4, D8, D12, D4_D8, D4_D12, rules.END_TURN]


def test_voluntary_end_turn_sends_all_unused_dice_to_the_middle():
    """R3.2 (house rule I3), R2.4 and I5: a voluntary end leaves all dice to the "No play" choice."""
    cfg = rules.CardiceoConfig(num_players=2)
    hands = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]
    rng = ScriptedRng([])
    s = rules.new_game(cfg, rng, hands=hands, dice=[1, 2, 3])
    rules.apply(s, rules.END_TURN, rng)
    assert s.current == 1 and s.phase == rules.PHASE_NO_PLAY_CHOICE


def test_forced_discard_variant_has_no_voluntary_end():
    """R7.2: the forced_discard variant removes the voluntary end of R3.2."""
    cfg = rules.CardiceoConfig(num_players=2, forced_discard=True)
    hands = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]
    s = rules.new_game(cfg, ScriptedRng([]), hands=hands, dice=[1, 2, 3])
    assert rules.END_TURN not in rules.legal_actions(s)
    assert rules.legal_actions(s) == list(range(7))


def test_dice_used_pass_to_the_next_player_and_unused_keep_their_values():
    """R2.4, R2.5: used dice are re-rolled by the next player, unused ones keep their values."""
    cfg = rules.CardiceoConfig(num_players=2)
    hands = [[2, 1, 1, 1, 1, 3, 3, 3, 3, 15], [4, 15, 15, 15, 14, 14, 14, 14, 13, 13]]
    rng = ScriptedRng([4])
    s = rules.new_game(cfg, rng, hands=hands, dice=[2, 8, 12])
    rules.apply(s, D4, rng)  # discards the 2 with the d4; the 8 and 12 make no other card of player 0
    assert s.current == 1
    assert s.dice.tolist() == [4, 8, 12]
    assert s.locked.tolist() == [False, True, True]


def test_discarding_the_last_card_wins():
    """R5.1, R5.2, R4.2 (I9): the last card wins at once; outcome and score."""
    cfg = rules.CardiceoConfig(num_players=3, hand_size=5)
    hands = [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]]
    s = rules.new_game(cfg, ScriptedRng([]), hands=hands, dice=[1, 2, 3])
    s.hands[0] = 0
    s.hands[0, 5 - 1] = 1  # one card left: a 5
    rules.apply(s, D8_D12, ScriptedRng([]))
    assert rules.is_over(s) and s.winner == 0
    assert rules.outcome(s).tolist() == [1.0, -1.0, -1.0]
    assert rules.legal_actions(s) == []
    assert rules.scores(s).tolist() == [5.0, 0.0, 0.0]


def test_bad_setups_are_refused():
    """R1.1, R1.2, R7.1, R7.3: player count, hand size, deal and legality checks."""
    with pytest.raises(ValueError, match="num_players"):
        rules.CardiceoConfig(num_players=7)
    with pytest.raises(ValueError, match="hand_size"):
        rules.CardiceoConfig(hand_size=7)
    with pytest.raises(ValueError, match="four cards"):
        rules.new_game(rules.CardiceoConfig(), ScriptedRng([]), hands=[[1] * 5, [1] * 5], dice=[1, 1, 1])
    with pytest.raises(ValueError, match="not legal"):
        s = rules.new_game(rules.CardiceoConfig(), np.random.default_rng(0))
        rules.apply(s, rules.KEEP_DICE, np.random.default_rng(0))


@given(
    dice=st.tuples(st.integers(1, 4), st.integers(1, 8), st.integers(1, 12)),
    hand=st.lists(st.integers(1, 15), min_size=1, max_size=10),
)
def test_legal_discards_are_exactly_the_reachable_cards(dice, hand):
    """R3.1 (I4, I8): a discard is legal exactly when a set of dice totals a card in hand."""
    counts = np.bincount(hand, minlength=16)[1:]
    if (counts > 4).any():
        return
    cfg = rules.CardiceoConfig(num_players=2)
    s = rules.CardiceoState(
        config=cfg,
        hands=np.stack([counts, np.zeros(15, np.int64)]),
        discarded=np.zeros(15, np.int64),
        dice=np.array(dice),
    )
    legal = rules.legal_discards(s)
    expected = {sid for sid, subset in enumerate(rules.SUBSETS) if sum(dice[i] for i in subset) in set(hand)}
    assert set(legal) == expected
    assert {rules.subset_total(s, a) for a in legal} == rules.reachable_totals(dice) & set(hand)


def test_resample_hidden_keeps_own_hand_sizes_and_public_cards():
    """R7.5 (I10): only what the observer cannot see is re-dealt."""
    cfg = rules.CardiceoConfig(num_players=4)
    s = rules.new_game(cfg, np.random.default_rng(3))
    r = rules.resample_hidden(s, 1, np.random.default_rng(4))
    assert np.array_equal(r.hands[1], s.hands[1])
    assert r.hands.sum(axis=1).tolist() == s.hands.sum(axis=1).tolist()
    assert (r.hands.sum(axis=0) + r.discarded <= 4).all()
    assert not np.array_equal(r.hands, s.hands)
