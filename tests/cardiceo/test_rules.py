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


# ------------------------------------------------------------------ the public record (R7.6)
def _missing(state: rules.CardiceoState, p: int) -> list[int]:
    return (np.flatnonzero(state.known_missing[p]) + 1).tolist()


def test_worked_example_leaves_the_public_record():
    """R2.8 with R7.6: B's turn ends by itself with the 4 and the 8 left, so B holds no 4, 8 or 12;
    C cannot play at all with 4, 8, 10: those are C's stuck dice, and C holds no 4, 8, 10, 12 or 14."""
    cfg = rules.CardiceoConfig(num_players=3)
    rng = ScriptedRng([4, 8, 12, 10])
    s = rules.new_game(cfg, rng, hands=EXAMPLE_HANDS, dice=[3, 4, 6])
    assert not s.stuck_dice.any() and not s.known_missing.any()
    rules.apply(s, D4, rng)
    rules.apply(s, D8_D12, rng)  # all three dice used: A's turn ends with nothing learnt about A
    assert not s.known_missing.any()
    rules.apply(s, D12, rng)
    assert _missing(s, 0) == [] and s.stuck_dice[0].tolist() == [0, 0, 0]
    assert _missing(s, 1) == [4, 8, 12] and s.stuck_dice[1].tolist() == [0, 0, 0]  # B discarded first
    assert _missing(s, 2) == [4, 8, 10, 12, 14] and s.stuck_dice[2].tolist() == [4, 8, 10]
    rules.check_state(s, cfg)


def test_a_voluntary_end_records_nothing_and_a_stuck_no_play_choice_records_the_kept_dice():
    """R3.2 (I3): stopping while a discard is possible tells the table nothing; R3.3: keeping the
    middle dice and being unable to play makes those dice the seat's stuck dice."""
    cfg = rules.CardiceoConfig(num_players=2)
    hands = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 15, 11, 12, 13, 14, 15]]
    rng = ScriptedRng([])
    s = rules.new_game(cfg, rng, hands=hands, dice=[1, 2, 3])
    rules.apply(s, rules.END_TURN, rng)  # seat 0 could play: nothing learnt
    assert not s.stuck_dice.any() and not s.known_missing.any()
    rules.apply(s, rules.KEEP_DICE, rng)  # seat 1 keeps 1, 2, 3 and cannot play
    assert s.stuck_dice.tolist() == [[0, 0, 0], [1, 2, 3]]
    assert _missing(s, 1) == [1, 2, 3, 4, 5, 6] and _missing(s, 0) == []
    assert s.current == 0 and s.phase == rules.PHASE_NO_PLAY_CHOICE


def test_a_later_stuck_turn_replaces_the_stuck_dice_and_adds_to_the_missing_values():
    """R7.6: the stuck dice are the last ones; the missing values accumulate (hands never grow)."""
    cfg = rules.CardiceoConfig(num_players=2)
    hands = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [15, 15, 15, 15, 14, 14, 14, 14, 13, 13]]
    rng = ScriptedRng([2, 2, 2])
    s = rules.new_game(cfg, rng, hands=hands, dice=[1, 1, 1], start_player=1)  # seat 1 stuck on 1, 1, 1
    assert s.stuck_dice[1].tolist() == [1, 1, 1] and _missing(s, 1) == [1, 2, 3]
    rules.apply(s, rules.KEEP_DICE, rng)  # seat 0 keeps 1, 1, 1 and stops at once ...
    rules.apply(s, rules.END_TURN, rng)
    rules.apply(s, rules.REROLL_ALL, rng)  # ... seat 1 re-rolls all three: 2, 2, 2
    assert s.stuck_dice[1].tolist() == [2, 2, 2] and _missing(s, 1) == [1, 2, 3, 4, 6]


def _expected_record(before: rules.CardiceoState, action: int, after: rules.CardiceoState) -> tuple:
    """The record after ``action``, worked out from the positions before and after only (an oracle
    independent of the engine's bookkeeping): which turns ended by themselves, with which free dice."""
    stuck, missing = before.stuck_dice.copy(), before.known_missing.copy()
    n = before.config.num_players
    ended = after.turn - before.turn
    p = before.current

    def note(seat: int, values: list[int], all_free: bool) -> None:
        made = rules.reachable_totals(values)
        missing[seat, [t - 1 for t in made if t <= rules.NUM_VALUES]] = True
        if all_free:
            stuck[seat] = values

    if ended and after.phase != rules.PHASE_OVER:
        if action < rules.NUM_SUBSETS:  # the discarder's turn ended by itself with the dice left
            free = ~before.used
            free[list(rules.SUBSETS[action])] = False
            note(p, [int(d) for d, f in zip(before.dice, free) if f], False)
        elif action in (rules.KEEP_DICE, rules.REROLL_ALL):  # unable to play with the dice now in the middle
            assert ended == 1
            note(p, after.dice.tolist(), True)
        if ended == 2:  # the next seat could not use the dice passed on: they all lie in the middle
            note((p + 1) % n, after.dice.tolist(), True)
    return stuck, missing


@pytest.mark.parametrize("n, options", [(2, {}), (3, {"forced_discard": True}), (5, {"hand_size": 5}), (6, {})])
def test_the_record_follows_every_turn_that_ends_by_itself(n, options):
    """R2.3, R2.6, R7.6 over random games: the record equals the oracle's after every action, it never
    contradicts a hand, and ``check_state`` accepts every position."""
    cfg = rules.CardiceoConfig(num_players=n, **options)
    rng = np.random.default_rng(n)
    seen = {"stuck": 0, "partial": 0}
    for _ in range(8):
        s = rules.new_game(cfg, rng)
        if s.turn:  # the start player was stuck on the opening roll
            assert s.stuck_dice[0].tolist() == s.dice.tolist()
        while not rules.is_over(s):
            before = s.copy()
            legal = rules.legal_actions(s)
            action = legal[rng.integers(len(legal))]
            rules.apply(s, action, rng)
            stuck, missing = _expected_record(before, action, s)
            assert np.array_equal(s.stuck_dice, stuck), (before, action, s)
            assert np.array_equal(s.known_missing, missing), (before, action, s)
            assert not (s.known_missing & (s.hands > 0)).any()
            rules.check_state(s, cfg)
            seen["stuck"] += int(not np.array_equal(stuck, before.stuck_dice))
            seen["partial"] += int(action < rules.NUM_SUBSETS and s.turn > before.turn)
    assert seen["stuck"] > 5 and seen["partial"] > 5, seen


def _unseen_ok(new: rules.CardiceoState, state: rules.CardiceoState, seat: int) -> None:
    """``new`` is a re-deal of ``state`` for ``seat``: own hand, sizes, public parts kept, the record honoured."""
    assert np.array_equal(new.hands[seat], state.hands[seat])
    assert new.hands.sum(axis=1).tolist() == state.hands.sum(axis=1).tolist()
    assert np.array_equal(new.discarded, state.discarded) and np.array_equal(new.dice, state.dice)
    assert np.array_equal(new.stuck_dice, state.stuck_dice)
    assert np.array_equal(new.known_missing, state.known_missing)
    assert not (new.known_missing & (new.hands > 0)).any(), "a seat was dealt a value it is known to lack"
    rules.check_state(new, state.config)


@pytest.mark.parametrize("n", [2, 4, 6])
def test_resample_hidden_honours_the_public_record(n):
    """R7.5, R7.6: the re-dealt hands avoid every value their seat is known to lack."""
    cfg = rules.CardiceoConfig(num_players=n)
    rng = np.random.default_rng(10 + n)
    constrained = changed = 0
    for _ in range(4):
        s = rules.new_game(cfg, rng)
        while not rules.is_over(s):
            seat = int(rng.integers(n))
            new = rules.resample_hidden(s, seat, rng)
            _unseen_ok(new, s, seat)
            others = [p for p in range(n) if p != seat]
            constrained += int(s.known_missing[others].any())
            changed += int(not np.array_equal(new.hands[others], s.hands[others]))
            legal = rules.legal_actions(s)
            rules.apply(s, legal[rng.integers(len(legal))], rng)
    assert constrained > 20 and changed > 20, (constrained, changed)


def _tight_state(n: int = 2) -> rules.CardiceoState:
    """Seat 0 observes and holds the four 15s; seats 1.. hold one card each; the unseen cards are
    1, 2, 3, 3 (seat 1 actually holds a 3, seat 2 a 2) and seat 1 lacks 1s, seat 2 lacks 3s."""
    cfg = rules.CardiceoConfig(num_players=n, hand_size=5)
    discarded = np.full(rules.NUM_VALUES, 4, dtype=np.int64)
    discarded[:3] = [3, 3, 2]
    discarded[14] = 0
    hands = np.zeros((n, rules.NUM_VALUES), dtype=np.int64)
    hands[0, 14] = 4
    hands[1, 2] = 1
    s = rules.CardiceoState(config=cfg, hands=hands, discarded=discarded, turn=3)
    s.known_missing[1, 0] = True
    if n == 3:
        hands[2, 1] = 1
        s.known_missing[2, 2] = True
    rules.check_state(s, cfg)
    return s


def _unseen(state: rules.CardiceoState, seat: int) -> np.ndarray:
    """The cards ``seat`` has not seen, counts per value."""
    return rules.full_deck_counts() - state.discarded - state.hands[seat]


def _frequencies(deal, trials: int) -> np.ndarray:
    """``(seats, 15)``: how often each seat gets each value over ``trials`` calls of ``deal()``."""
    return sum(deal() for _ in range(trials)) / trials


def test_resample_hidden_is_uniform_over_the_consistent_deals():
    """One constrained seat: its card is the 2 or one of the two 3s (never the 1 it lacks), 1/3 and 2/3, for
    the re-deal and for the swap walk of the last resort alike. Two constrained seats (seat 2 lacks 3s):
    the 5 consistent deals give seat 1 a 3 with 4/5 and seat 2 a 1 with 3/5 (a plain sequential deal,
    seat 2 first, would give 1/2: the weights correct it)."""
    rng = np.random.default_rng(0)
    trials = 3000
    s = _tight_state()
    for freq in (
        _frequencies(lambda: rules.resample_hidden(s, 0, rng).hands[1:], trials),
        _frequencies(lambda: rules._walk_deal(_unseen(s, 0), [1], s.known_missing[[1]], rng), trials),
    ):
        assert freq[0, [0, *range(3, 15)]].sum() == 0
        assert freq[0, 1:3].tolist() == pytest.approx([1 / 3, 2 / 3], abs=0.04)
    s = _tight_state(3)
    freq = _frequencies(lambda: rules.resample_hidden(s, 0, rng).hands[1:], trials)
    assert freq[0, :3].tolist() == pytest.approx([0, 1 / 5, 4 / 5], abs=0.04)
    assert freq[1, :3].tolist() == pytest.approx([3 / 5, 2 / 5, 0], abs=0.04)


def test_resample_hidden_falls_back_on_the_walk_when_no_proposal_fits(monkeypatch):
    """With every proposal refused the re-deal still honours the record (the walk from a consistent deal)."""
    monkeypatch.setattr(rules, "_constrained_deal", lambda *args: None)
    cfg = rules.CardiceoConfig(num_players=4)
    rng = np.random.default_rng(7)
    walked = 0
    s = rules.new_game(cfg, rng)
    while not rules.is_over(s):
        seat = int(rng.integers(4))
        _unseen_ok(rules.resample_hidden(s, seat, rng), s, seat)
        walked += int(s.known_missing[[p for p in range(4) if p != seat]].any())
        legal = rules.legal_actions(s)
        rules.apply(s, legal[rng.integers(len(legal))], rng)
    assert walked > 5


def test_the_walk_depends_only_on_what_the_seat_knows(monkeypatch):
    """The last resort's swap walk starts from a deal built from the seat's knowledge: two states that differ
    only in how the hidden cards are arranged give the same re-deal for the same generator."""
    monkeypatch.setattr(rules, "_constrained_deal", lambda *args: None)
    checked = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        s = rules.new_game(rules.CardiceoConfig(num_players=4), rng)
        while not rules.is_over(s):
            legal = rules.legal_actions(s)
            rules.apply(s, legal[rng.integers(len(legal))], rng)
            if s.current == 0 or not s.known_missing[1:].any():
                continue
            other = rules.resample_hidden(s, 0, np.random.default_rng(1000 + seed))  # another arrangement
            if np.array_equal(other.hands, s.hands):
                continue
            a = rules.resample_hidden(s, 0, np.random.default_rng(seed))
            b = rules.resample_hidden(other, 0, np.random.default_rng(seed))
            assert np.array_equal(a.hands, b.hands)
            _unseen_ok(a, s, 0)
            checked += 1
            break
    assert checked >= 15


def test_the_consistent_deal_moves_cards_to_make_room():
    """The flow places every unseen card, moving placed cards on when a constrained hand needs room: here the
    lowest values go first to seat 1, which then has to give them up for seat 2, who lacks the high ones."""
    unseen = np.zeros(rules.NUM_VALUES, dtype=np.int64)
    unseen[[0, 1, 13, 14]] = 1  # a 1, a 2, a 14 and a 15
    lacks = np.zeros((2, rules.NUM_VALUES), dtype=bool)
    lacks[1, 12:] = True  # seat 2 (row 1) lacks 13-15
    deal = rules._consistent_deal(unseen, [2, 2], lacks)
    assert sum(deal[0]) == 2 and sum(deal[1]) == 2 and sum(deal[2]) == 0
    assert deal[1][0] == deal[1][1] == 1 and deal[0][13] == deal[0][14] == 1
    with pytest.raises(ValueError, match="no deal"):
        lacks[0, :] = True
        rules._consistent_deal(unseen, [2, 2], lacks)
