"""Engine tests of CubeMelt: every worked example (R4.5), the turn, the end and
each expansion ability's condition, on hand-built positions.

Rule numbers (R4.5, I17, ...) refer to ``docs/rules/cubemelt.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.cubemelt import rules
from ice_envs.cubemelt.rules import (
    CAT,
    CHOOSE_ADVENTURE,
    CHOOSE_LOVE,
    DRAGON,
    KNIGHT,
    NINJA,
    NINJA_APPLY,
    NINJA_DECLINE,
    STOP,
    UNICORN,
    Delta,
    resolve_dice,
)

H, S, SAD, D = "heart", "star", "sad", "drooping"
# Face indices of the default die (Heart, Heart, Star, Star, Sad, Drooping) for scripted rolls.
FH, FS, FSAD, FD = 0, 2, 4, 5


class ScriptedRng:
    """Rolls pre-set die-face indices (in die order), then falls back to a seeded generator.

    The engine draws one number below ``F**k`` per roll of k dice (F faces each) whose base-F
    digits, least significant first, are the face indices; this packs the scripted faces so.
    """

    def __init__(self, values=(), seed: int = 0, faces_per_die: int = 6) -> None:
        self.values = list(values)
        self.faces = faces_per_die
        self.fallback = np.random.default_rng(seed)

    def integers(self, low, high, size=None):
        assert low == 0 and size is None
        k = 0
        while self.faces**k < high:
            k += 1
        assert self.faces**k == high, "a roll draws one number below faces**dice"
        code = 0
        for i in range(k):
            v = self.values.pop(0) if self.values else int(self.fallback.integers(0, self.faces))
            assert 0 <= v < self.faces
            code += v * self.faces**i
        return code

    def permutation(self, n):
        return self.fallback.permutation(n)


def game(dice, n=3, *, abilities=None, rng_values=(), **kwargs):
    opts = {k: kwargs.pop(k) for k in list(kwargs) if k in ("love", "adventure", "melt", "start_player")}
    config = rules.CubeMeltConfig(num_players=n, expansion=abilities is not None, **kwargs)
    rng = ScriptedRng(rng_values)
    state = rules.new_game(config, rng, dice=dice, abilities=abilities, **opts)
    return state, rng


def stop(state, rng):
    return rules.apply(state, STOP, rng)


def tracks(state, seat):
    return (state.love[seat], state.adventure[seat], state.melt[seat])


# ---------------------------------------------------------------------------- the four worked examples
def test_example_four_hearts_two_stars():
    """R4.5 worked example 1 (R4.2, R4.3).

    Four Heart-eyes and two Star-eyes: neighbours +4 Love, active +2 Adventure."""
    deltas = resolve_dice([H, H, H, H, S, S], num_players=4, active=0)
    assert deltas == [Delta(0, 2, 0), Delta(4, 0, 0), Delta(0, 0, 0), Delta(4, 0, 0)]


def test_example_three_sad_one_heart_two_drooping():
    """R4.5 worked example 2 (R4.2, R4.3).

    Three Sad, one Heart, two Drooping: neighbours Melt -3, active +1 Love and Melt -2."""
    deltas = resolve_dice([SAD, H, SAD, D, SAD, D], num_players=4, active=2)
    assert deltas == [Delta(0, 0, 0), Delta(0, 0, -3), Delta(1, 0, -2), Delta(0, 0, -3)]


def test_example_two_two_two_tie_all_to_active():
    """R4.5 worked example 3 (R4.4).

    Two Heart, two Star, two Sad: the active player +2 Love, +2 Adventure, Melt -2."""
    deltas = resolve_dice([H, S, SAD, H, S, SAD], num_players=3, active=1)
    assert deltas == [Delta(), Delta(2, 2, -2), Delta()]


def test_example_three_three_tie_all_to_active():
    """R4.5 worked example 4 (R4.4, I8).

    Three Heart and three Drooping: the active player +3 Love and Melt -3."""
    deltas = resolve_dice([H, H, H, D, D, D], num_players=5, active=4)
    assert deltas == [Delta()] * 4 + [Delta(3, 0, -3)]


def test_sad_and_drooping_count_as_different_faces():
    """R4.1 (I8): Sad and Drooping are different faces with one effect."""
    # 3 Sad + 3 Drooping is a tie (six Melt dice, but no most frequent face)
    assert resolve_dice([SAD] * 3 + [D] * 3, 3) == [Delta(0, 0, -6), Delta(), Delta()]
    # 2 Sad + 2 Drooping + 1 Heart + 1 Star: four faces, two tied at two -> tie
    assert resolve_dice([SAD, SAD, D, D, H, S], 3)[0] == Delta(1, 1, -4)
    # 3 Heart + 2 Sad + 1 Drooping: Heart (3) is unique most frequent even though 3 dice melt
    assert resolve_dice([H, H, H, SAD, SAD, D], 3) == [Delta(0, 0, -3), Delta(3, 0, 0), Delta(3, 0, 0)]


def test_two_players_single_opponent_receives_once():
    """R1.6, R4.2 (house rule I4): with two players the opponent receives once."""
    assert resolve_dice([H, H, H, H, S, S], 2, active=1) == [Delta(4, 0, 0), Delta(0, 2, 0)]


def test_most_frequent_of_five_and_six():
    """R4.2: a unique most frequent face of five or six dice."""
    assert resolve_dice([S] * 6, 3) == [Delta(), Delta(0, 6, 0), Delta(0, 6, 0)]
    assert resolve_dice([S] * 5 + [SAD], 3) == [Delta(0, 0, -1), Delta(0, 5, 0), Delta(0, 5, 0)]


def test_worked_examples_through_the_engine():
    """R4.5 worked examples through the engine (R2.4, R4.2-R4.4)."""
    state, rng = game([H, H, H, H, S, S], n=4)
    stop(state, rng)
    assert [tracks(state, p) for p in range(4)] == [(0, 2, 20), (4, 0, 20), (0, 0, 20), (4, 0, 20)]
    assert state.active == 1 and state.turn == 1 and state.phase == rules.PHASE_REROLL

    state, rng = game([SAD, H, SAD, D, SAD, D], n=3)
    stop(state, rng)
    assert [tracks(state, p) for p in range(3)] == [(1, 0, 18), (0, 0, 17), (0, 0, 17)]

    state, rng = game([H, S, SAD, H, S, SAD], n=3)
    stop(state, rng)
    assert [tracks(state, p) for p in range(3)] == [(2, 2, 18), (0, 0, 20), (0, 0, 20)]

    state, rng = game([H, H, H, D, D, D], n=3)
    stop(state, rng)
    assert [tracks(state, p) for p in range(3)] == [(3, 0, 17), (0, 0, 20), (0, 0, 20)]


def test_neighbours_left_is_next_clockwise():
    """R1.6 (I3): the left neighbour is the next seat clockwise."""
    assert rules.neighbours(0, 5) == (1, 4)
    assert rules.neighbours(4, 5) == (0, 3)
    assert rules.neighbours(1, 2) == (0,)
    assert rules.most_frequent([0, 0, 1, 1, 2, 3]) is None
    assert rules.most_frequent([0, 0, 0, 1, 2, 3]) == rules.HEART


# ---------------------------------------------------------------------------- the turn
def test_free_then_paid_reroll_then_resolve():
    """R2.2-R2.4, R3.2: a free re-roll, a paid one, then the dice resolve."""
    # re-roll dice 4 and 5 (Sad, Drooping) for free into Heart, Heart
    state, rng = game([H, H, H, S, SAD, D], n=3, rng_values=[FH, FH, FH])
    assert rules.legal_actions(state) == tuple(range(64))
    assert not rules.next_reroll_paid(state)
    rules.apply(state, 0b110000, rng)
    assert state.dice == [0, 0, 0, 1, 0, 0] and state.melt[0] == 20
    assert state.phase == rules.PHASE_REROLL and rules.next_reroll_paid(state)
    # the paid re-roll of die 3 (Star) costs 1 Melt, then the dice resolve at once
    rules.apply(state, 0b001000, rng)
    assert state.melt[0] == 19
    assert tracks(state, 1) == (6, 0, 20) and tracks(state, 2) == (6, 0, 20)
    assert state.active == 1 and state.rerolls == 0


def test_stop_at_once_resolves_the_first_roll():
    """R3.1 (I5): stopping at once resolves the first roll."""
    state, rng = game([H, H, H, H, S, S], n=3)
    stop(state, rng)
    assert tracks(state, 0) == (0, 2, 20)


def test_paid_reroll_not_offered_when_it_would_melt():
    """R2.3 (house rule I6): no paid re-roll that would melt the payer."""
    state, rng = game([H, H, H, H, S, SAD], n=3, melt=[1, 20, 20], rng_values=[FS])
    rules.apply(state, 0b100000, rng)  # free re-roll of the Sad die into a Star
    # at Melt 1 no paid re-roll can follow: the dice resolved at once
    assert tracks(state, 0) == (0, 2, 1) and state.active == 1 and not rules.is_over(state)
    assert tracks(state, 1) == (4, 0, 20) and tracks(state, 2) == (4, 0, 20)


def test_paid_reroll_at_melt_two_leaves_one():
    """R2.3 (I6): paying at Melt 2 leaves Melt 1."""
    state, rng = game([S, S, H, H, SAD, D], n=3, melt=[2, 20, 20], rng_values=[FS, FS])
    rules.apply(state, 0b010000, rng)
    assert state.phase == rules.PHASE_REROLL and state.melt[0] == 2 and state.dice == [1, 1, 0, 0, 1, 3]
    rules.apply(state, 0b100000, rng)  # pay: Melt 2 -> 1, then Star x4 resolves
    assert tracks(state, 0) == (2, 0, 1) and tracks(state, 1) == (0, 4, 20) and state.active == 1


def test_reroll_can_melt_option_ends_the_game_at_once():
    """R7.9, R5.1 (I6): reroll_can_melt lets the payer melt, ending the game."""
    state, rng = game([S, S, H, H, SAD, D], n=3, melt=[1, 20, 20], reroll_can_melt=True, rng_values=[FS])
    state.love[1], state.adventure[1] = 4, 6
    state.love[2], state.adventure[2] = 5, 5
    rules.apply(state, 0b010000, rng)
    assert state.phase == rules.PHASE_REROLL  # may pay the last Melt
    rules.apply(state, 0b100000, rng)
    assert rules.is_over(state) and state.melted == [0] and state.winners == [2]


def test_paid_rerolls_option_allows_more():
    """R7.9 (I6): paid_rerolls allows more paid re-rolls."""
    state, rng = game([S, S, H, H, SAD, D], n=3, paid_rerolls=2, rng_values=[FS, FS, FS])
    for expected_melt in (20, 19, 18):
        rules.apply(state, 0b100000, rng)
        if state.active == 0:
            assert state.melt[0] == expected_melt
    # Star x3 goes to the neighbours; the active player keeps Heart, Heart, Sad
    assert tracks(state, 0) == (2, 0, 17) and state.active == 1

    state, rng = game([S, S, H, H, SAD, D], n=3, paid_rerolls=0, rng_values=[FS])
    rules.apply(state, 0b100000, rng)  # the free re-roll is the last one: resolves, nothing paid
    assert state.active == 1 and tracks(state, 0) == (2, 0, 19)


def test_illegal_action_is_refused():
    """Section 3: an action outside the legal ones is refused."""
    state, rng = game([H] * 6, n=3)
    with pytest.raises(ValueError, match="not legal"):
        rules.apply(state, CHOOSE_LOVE, rng)


# ---------------------------------------------------------------------------- end of the game
def test_reaching_twenty_wins_at_once_several_together():
    """R5.1, R5.2, R6.1 (I11): 20 wins at once, several players together."""
    state, rng = game([H, H, H, H, S, S], n=4, love=[0, 16, 0, 17])
    stop(state, rng)
    assert rules.is_over(state) and state.winners == [1, 3]
    assert rules.outcome(state).tolist() == [-1.0, 1.0, -1.0, 1.0]
    assert state.love[1] == 20 and state.love[3] == 20  # the track stops at 20


def test_active_reaching_twenty_adventure_wins():
    """R5.2: the active player reaching 20 Adventure wins."""
    state, rng = game([H, H, H, H, S, S], n=3, adventure=[18, 0, 0])
    stop(state, rng)
    assert state.winners == [0]


def test_melt_ends_game_and_others_score_min_of_love_and_adventure():
    """R5.3 (I13): the melt ending scores min(Love, Adventure)."""
    state, rng = game([SAD, SAD, SAD, H, S, H], n=4, melt=[20, 3, 20, 20], love=[9, 0, 7, 2], adventure=[1, 0, 6, 15])
    stop(state, rng)
    # player 1 melts (and player 3 loses 3 Melt); scores: p0 min(11, 2)=2, p2 min(7,6)=6, p3 min(2,15)=2
    assert rules.is_over(state) and state.melted == [1]
    assert state.winners == [2]
    assert rules.final_scores(state) == [2, 0, 6, 2]


def test_melt_end_tie_wins_together():
    """R6.2: equal best scores in the melt ending win together."""
    state, rng = game([SAD, SAD, SAD, H, S, SAD], n=3, melt=[20, 2, 20], love=[3, 0, 4], adventure=[5, 0, 4])
    stop(state, rng)
    # active (p0) gains +1 Love +1 Adventure: min(4, 6) = 4; p2 min(4, 4) = 4
    assert state.melted == [1] and state.winners == [0, 2]


def test_twenty_beats_a_simultaneous_melt():
    """R5.4 (house rule I12): 20 beats a simultaneous melt."""
    state, rng = game([H, H, H, H, SAD, SAD], n=3, melt=[2, 20, 20], love=[0, 16, 0])
    stop(state, rng)
    assert state.melted == [0] and state.winners == [1]
    assert rules.outcome(state).tolist() == [-1.0, 1.0, -1.0]


def test_everyone_melting_means_nobody_wins():
    """R6.3 (I13): every token melting at once means nobody wins."""
    state, rng = game([SAD, SAD, SAD, SAD, D, D], n=2, melt=[2, 4])
    stop(state, rng)
    assert state.melted == [0, 1] and state.winners == []
    assert rules.outcome(state).tolist() == [-1.0, -1.0]


def test_score_is_sum_of_track_changes():
    """R4.7 (I14): the score is the sum of the track changes."""
    state, rng = game([SAD, H, SAD, D, SAD, D], n=3)
    before = rules.scores(state)
    stop(state, rng)
    assert (rules.scores(state) - before).tolist() == [-1.0, -3.0, -3.0]


# ---------------------------------------------------------------------------- expansion: Cat
@pytest.mark.parametrize("cat_trigger", rules.CAT_TRIGGERS)
def test_cat_gains_when_a_neighbour_gains_three_of_a_kind(cat_trigger):
    """R7.2 (I17), under both readings of ``cat_trigger``."""
    # p0 active rolls four Heart: p1 and p3 gain 4 Love; the Cat at p2 sits next to both
    state, rng = game(
        [H, H, H, H, S, S], n=4, abilities=["dragon", "knight", "cat", "unicorn"], cat_trigger=cat_trigger
    )
    stop(state, rng)
    assert tracks(state, 2) == (1, 0, 20)


@pytest.mark.parametrize("cat_trigger", rules.CAT_TRIGGERS)
def test_cat_per_neighbour_option(cat_trigger):
    """R7.2, R7.10 (I17): per_neighbour, under both readings of ``cat_trigger``."""
    state, rng = game(
        [H, H, H, H, S, S],
        n=4,
        abilities=["dragon", "knight", "cat", "unicorn"],
        per_neighbour=True,
        cat_trigger=cat_trigger,
    )
    stop(state, rng)
    assert tracks(state, 2) == (2, 0, 20)


def test_cat_trigger_default_is_planned():
    """R7.2, R7.10 (I17): the default reads the planned dice gain."""
    assert rules.CubeMeltConfig().cat_trigger == "planned"


def _dragon_gains_four_love(cat_trigger):
    # p0 (Dragon) rolls three Sad, two Heart, one Star: p1 (Cat) and p2 lose 3 Melt, the Dragon's own
    # dice give it 2 Love and 1 Adventure, and its gain (Love) 2 more: 4 Love in the resolution
    state, rng = game([SAD, SAD, SAD, H, H, S], n=3, abilities=["dragon", "cat", "unicorn"], cat_trigger=cat_trigger)
    stop(state, rng)
    assert state.pending == DRAGON and state.love[1] == 0  # no Cat gain yet under either reading
    rules.apply(state, CHOOSE_LOVE, rng)
    assert state.love[0] == 4 and state.active == 1
    return state


def test_cat_planned_ignores_a_neighbours_own_ability_gain():
    """R7.2 (I17), ``cat_trigger="planned"``: 2 Love from the dice and 2 from the Dragon are not "3 or more"."""
    state = _dragon_gains_four_love("planned")
    assert tracks(state, 1) == (0, 0, 17)


def test_cat_actual_counts_the_whole_resolution():
    """R7.2 (I17), ``cat_trigger="actual"``: the neighbour's real gain (dice + its Dragon gain) is 4 Love."""
    state = _dragon_gains_four_love("actual")
    assert tracks(state, 1) == (1, 0, 17)
    assert state.last_events[-2:] == [(0, DRAGON, 2, 0, 0), (1, CAT, 1, 0, 0)]  # the Cat comes last


@pytest.mark.parametrize(("cat_trigger", "cat_love"), [("planned", 0), ("actual", 1)])
def test_cat_and_a_knights_conversion(cat_trigger, cat_love):
    """R7.2, R7.4 (I17, I19): a tie gives the Knight 2 Love and 3 Melt; it converts one Melt into Love.

    Planned dice: 2 Love (no Cat gain); real gain of the resolution: 3 Love (the Cat gains 1)."""
    state, rng = game([H, H, SAD, SAD, S, D], n=3, abilities=["knight", "cat", "dragon"], cat_trigger=cat_trigger)
    stop(state, rng)
    assert state.pending == KNIGHT and state.decider == 0
    rules.apply(state, CHOOSE_LOVE, rng)
    assert tracks(state, 0) == (3, 1, 18)
    assert tracks(state, 1) == (cat_love, 0, 20)


def _capped_gain(cat_trigger):
    # p0 rolls four Heart: its neighbours p1 and p3 (at 18 Love) are planned +4 Love but move 2 each to
    # 20; the Cat at p2 (19 Love) sits between them
    state, rng = game(
        [H, H, H, H, S, S],
        n=4,
        abilities=["knight", "unicorn", "cat", "dragon"],
        love=[0, 18, 19, 18],
        cat_trigger=cat_trigger,
    )
    stop(state, rng)
    assert rules.is_over(state) and state.love[1] == state.love[3] == 20
    return state


def test_cat_planned_counts_a_gain_cut_by_the_cap():
    """R7.2, R1.2 (I10, I17), ``cat_trigger="planned"``: the planned +4 counts; the Cat reaches 20 too."""
    state = _capped_gain("planned")
    assert state.love[2] == 20 and state.winners == [1, 2, 3]


def test_cat_actual_reads_the_gain_after_the_cap():
    """R7.2, R1.2 (I10, I17), ``cat_trigger="actual"``: each neighbour really gained 2: no Cat gain."""
    state = _capped_gain("actual")
    assert state.love[2] == 19 and state.winners == [1, 3]


def test_cat_does_not_gain_below_three_or_from_a_non_neighbour():
    """R7.2 (I17)."""
    # two-two-two tie: active (p0, the Cat's neighbour) gains only 2 Love
    state, rng = game([H, H, S, S, SAD, SAD], n=4, abilities=["dragon", "cat", "knight", "unicorn"])
    stop(state, rng)
    assert tracks(state, 1) == (0, 0, 20)
    # five players: p0 rolls, p1 and p4 gain 4 Love; the Cat at p2 neighbours p1 -> +1; at p3 it would too
    state, rng = game([H, H, H, H, S, S], n=5, abilities=["dragon", "knight", "unicorn", "cat", "ninja"])
    stop(state, rng)
    assert tracks(state, 3) == (1, 0, 20)  # p3's neighbours are p2 and p4; p4 gained 4
    state, rng = game([H, H, H, H, S, S], n=5, abilities=["dragon", "knight", "cat", "unicorn", "ninja"])
    stop(state, rng)
    assert tracks(state, 2) == (1, 0, 20)  # p2's neighbours p1 (gained) and p3
    state, rng = game([H, H, H, H, S, S], n=5, abilities=["dragon", "cat", "knight", "unicorn", "ninja"])
    stop(state, rng)
    assert tracks(state, 1) == (4, 0, 20)  # the Cat itself gained; its neighbours p0 (+2 Adv) and p2 did not


def test_cat_same_kind_both_kinds_in_a_tie():
    """R7.2 (I17): both kinds in one tie."""
    # p1 active rolls 3 Heart + 3 Star (tie): p1 gains 3 Love and 3 Adventure; the Cat at p0 gains 1 of each
    state, rng = game([H, H, H, S, S, S], n=3, abilities=["cat", "knight", "unicorn"], start_player=1)
    stop(state, rng)
    assert tracks(state, 0) == (1, 1, 20)


# ---------------------------------------------------------------------------- expansion: Dragon
def test_dragon_reducing_neighbours_melt_chooses_two_love_or_adventure():
    """R7.3 (I18, I22)."""
    state, rng = game([SAD, SAD, SAD, H, S, H], n=4, abilities=["dragon", "cat", "unicorn", "ninja"])
    stop(state, rng)
    assert state.phase == rules.PHASE_CHOOSE and state.pending == DRAGON and state.decider == 0
    assert rules.legal_actions(state) == (CHOOSE_LOVE, CHOOSE_ADVENTURE)
    assert state.melt[1] == 17 and state.melt[3] == 17  # the dice are already applied
    rules.apply(state, CHOOSE_ADVENTURE, rng)
    assert tracks(state, 0) == (2, 3, 20) and state.active == 1


def test_dragon_per_neighbour_option_triggers_twice():
    """R7.3, R7.10 (I18): per_neighbour."""
    state, rng = game(
        [SAD, SAD, SAD, H, S, H], n=4, abilities=["dragon", "cat", "unicorn", "ninja"], per_neighbour=True
    )
    stop(state, rng)
    rules.apply(state, CHOOSE_LOVE, rng)
    assert state.pending == DRAGON and state.decider == 0
    rules.apply(state, CHOOSE_ADVENTURE, rng)
    assert tracks(state, 0) == (4, 3, 20)


def test_dragon_no_trigger_without_neighbour_melt():
    """R7.3 (I18)."""
    for dice in ([H, H, H, SAD, SAD, S], [SAD, SAD, H, H, S, S]):  # Heart most frequent; tie
        state, rng = game(dice, n=3, abilities=["dragon", "cat", "unicorn"])
        stop(state, rng)
        assert state.active == 1 and state.phase == rules.PHASE_REROLL
    # the Dragon is a neighbour of the active player, not the one reducing Melt
    state, rng = game([SAD, SAD, SAD, H, S, H], n=3, abilities=["cat", "dragon", "unicorn"])
    stop(state, rng)
    assert state.active == 1 and tracks(state, 1) == (0, 0, 17)


# ---------------------------------------------------------------------------- expansion: Knight
def test_knight_off_turn_converts_one_melt():
    """R7.4, R7.7 (I19): the Knight's off-turn conversion."""
    state, rng = game([SAD, SAD, SAD, H, S, H], n=3, abilities=["cat", "knight", "unicorn"])
    stop(state, rng)
    assert state.phase == rules.PHASE_CHOOSE and state.pending == KNIGHT
    assert state.decider == 1 and state.active == 0  # off-turn decision
    assert state.melt[1] == 20  # not applied yet: the conversion comes first
    rules.apply(state, CHOOSE_LOVE, rng)
    assert tracks(state, 1) == (1, 0, 18) and tracks(state, 2) == (0, 0, 17)


def test_knight_active_with_sad_and_drooping_remaining():
    """R7.4 (I8, I19)."""
    state, rng = game([H, H, H, H, SAD, D], n=3, abilities=["knight", "cat", "unicorn"])
    stop(state, rng)
    assert state.pending == KNIGHT and state.decider == 0
    rules.apply(state, CHOOSE_ADVENTURE, rng)
    assert tracks(state, 0) == (0, 1, 19)


def test_knight_needs_two_melt_and_can_save_itself():
    """R7.4, R4.6 (I19)."""
    state, rng = game([H, H, H, H, SAD, S], n=3, abilities=["knight", "cat", "unicorn"])
    stop(state, rng)
    assert tracks(state, 0) == (0, 1, 19) and state.active == 1  # one Melt: no conversion
    state, rng = game([SAD, SAD, H, S, H, S], n=3, abilities=["cat", "knight", "unicorn"], melt=[20, 2, 20])
    # tie 2-2-2: everything to the active player, nothing to the Knight
    stop(state, rng)
    assert tracks(state, 1) == (0, 0, 2)
    state, rng = game([D, D, D, H, S, SAD], n=3, abilities=["cat", "knight", "unicorn"], melt=[20, 3, 20])
    stop(state, rng)
    rules.apply(state, CHOOSE_LOVE, rng)
    assert tracks(state, 1) == (1, 0, 1) and not rules.is_over(state)


# ---------------------------------------------------------------------------- expansion: Ninja
def test_ninja_may_apply_five_of_a_face_to_itself():
    """R7.5 (I20), default ``ninja_targets="all"``: the remaining die goes to "the other players' boards"."""
    assert rules.CubeMeltConfig().ninja_targets == "all"
    state, rng = game([H, H, H, H, H, S], n=4, abilities=["ninja", "dragon", "cat", "unicorn"])
    stop(state, rng)
    assert state.phase == rules.PHASE_NINJA and state.decider == 0
    assert rules.legal_actions(state) == (NINJA_APPLY, NINJA_DECLINE)
    rules.apply(state, NINJA_APPLY, rng)
    # p2 sits across the table: not a neighbour of the Ninja, still one of "the other players"
    assert [tracks(state, p) for p in range(4)] == [(5, 0, 20), (0, 1, 20), (0, 1, 20), (0, 1, 20)]


def test_ninja_targets_neighbours_option():
    """R7.5, R7.10 (I20), ``ninja_targets="neighbours"`` (the v0 default): only the Ninja's neighbours."""
    state, rng = game(
        [H, H, H, H, H, S], n=4, abilities=["ninja", "dragon", "cat", "unicorn"], ninja_targets="neighbours"
    )
    stop(state, rng)
    rules.apply(state, NINJA_APPLY, rng)
    assert [tracks(state, p) for p in range(4)] == [(5, 0, 20), (0, 1, 20), (0, 0, 20), (0, 1, 20)]


def test_ninja_decline_resolves_normally():
    """R7.5 (I20)."""
    state, rng = game([SAD] * 5 + [S], n=3, abilities=["ninja", "cat", "dragon"])
    stop(state, rng)
    rules.apply(state, NINJA_DECLINE, rng)
    assert [tracks(state, p) for p in range(3)] == [(0, 1, 20), (0, 0, 15), (0, 0, 15)]


@pytest.mark.parametrize(("ninja_targets", "loves"), [("all", [0, 1, 1, 1, 1]), ("neighbours", [0, 1, 0, 0, 1])])
def test_ninja_targets_with_five_players_and_six_of_a_face(ninja_targets, loves):
    """R7.5, R7.10 (I20): both values of ninja_targets with five players; six of a face leaves nothing."""
    state, rng = game(
        [S] * 5 + [H], n=5, abilities=["ninja", "cat", "dragon", "unicorn", "knight"], ninja_targets=ninja_targets
    )
    stop(state, rng)
    rules.apply(state, NINJA_APPLY, rng)
    assert [state.love[p] for p in range(5)] == loves and state.adventure[0] == 5
    state, rng = game([S] * 6, n=3, abilities=["ninja", "cat", "dragon"])
    stop(state, rng)
    rules.apply(state, NINJA_APPLY, rng)
    # no dice remain for the others; the Cat (p1) gains 1 as its neighbour gained 6 Adventure
    assert [tracks(state, p) for p in range(3)] == [(0, 6, 20), (0, 1, 20), (0, 0, 20)]


def test_ninja_needs_five_and_its_own_turn():
    """R7.5 (I20)."""
    state, rng = game([H, H, H, H, S, S], n=3, abilities=["ninja", "cat", "dragon"])
    stop(state, rng)
    assert state.active == 1 and state.phase == rules.PHASE_REROLL
    state, rng = game([H, H, H, H, H, S], n=3, abilities=["cat", "ninja", "dragon"])
    stop(state, rng)
    assert state.active == 1 and state.phase == rules.PHASE_REROLL and state.love[1] == 5


# ---------------------------------------------------------------------------- expansion: Unicorn
def test_unicorn_all_four_faces_gains_two():
    """R7.6 (I21, I22)."""
    state, rng = game([H, H, S, S, SAD, D], n=3, abilities=["unicorn", "cat", "dragon"])
    stop(state, rng)
    assert state.pending == UNICORN and state.decider == 0
    rules.apply(state, CHOOSE_LOVE, rng)
    assert tracks(state, 0) == (4, 2, 18)


def test_unicorn_needs_all_four_faces_on_its_own_turn():
    """R7.6 (I21)."""
    state, rng = game([H, H, S, S, SAD, SAD], n=3, abilities=["unicorn", "cat", "dragon"])
    stop(state, rng)
    assert state.active == 1 and state.phase == rules.PHASE_REROLL
    state, rng = game([H, H, S, S, SAD, D], n=3, abilities=["cat", "unicorn", "dragon"])
    stop(state, rng)
    assert state.active == 1 and state.phase == rules.PHASE_REROLL


# ---------------------------------------------------------------------------- expansion: trigger order
def test_simultaneous_triggers_resolve_in_documented_order():
    """R4.6: the order of one resolution."""
    # p0 Dragon rolls 3 Sad: p1 (Knight) and p3 (Cat) lose Melt. Knight first (before the
    # dice are applied), then the Dragon (after). The Unicorn (p2) is not active.
    state, rng = game([SAD, SAD, SAD, H, S, D], n=4, abilities=["dragon", "knight", "unicorn", "cat"])
    stop(state, rng)
    order = []
    while state.phase == rules.PHASE_CHOOSE:
        order.append((state.decider, state.pending))
        rules.apply(state, CHOOSE_LOVE, rng)
    assert order == [(1, KNIGHT), (0, DRAGON)]
    assert [tracks(state, p) for p in range(4)] == [(3, 1, 19), (1, 0, 18), (0, 0, 20), (0, 0, 17)]


def test_ninja_then_knight_then_unicorn_free_cat():
    """R4.6: Ninja, Knight, dice, then triggered gains."""
    # p0 Ninja declines five Sad: the Knight (p1) converts; then next turn
    state, rng = game([SAD] * 5 + [H], n=3, abilities=["ninja", "knight", "cat"])
    stop(state, rng)
    seen = [(state.phase, state.decider)]
    rules.apply(state, NINJA_DECLINE, rng)
    seen.append((state.phase, state.decider, state.pending))
    rules.apply(state, CHOOSE_ADVENTURE, rng)
    assert seen == [(rules.PHASE_NINJA, 0), (rules.PHASE_CHOOSE, 1, KNIGHT)]
    assert [tracks(state, p) for p in range(3)] == [(1, 0, 20), (0, 1, 16), (0, 0, 15)]
    # Unicorn rolls 3 Heart + Star + Sad + Drooping: neighbours +3 Love, the Cat next to one gains 1
    state, rng = game([H, H, H, S, SAD, D], n=4, abilities=["unicorn", "knight", "cat", "dragon"])
    stop(state, rng)
    assert state.love[2] == 1 and state.pending == UNICORN  # the Cat gains before the Unicorn's choice
    rules.apply(state, CHOOSE_ADVENTURE, rng)
    assert tracks(state, 0) == (0, 3, 18)


def test_ability_gains_can_win_and_are_capped():
    """R4.6 step 5, R1.2 (I10, I11): ability gains count for the end check; tracks cap at 20."""
    state, rng = game([H, H, S, S, SAD, D], n=3, abilities=["unicorn", "cat", "dragon"], love=[17, 0, 0])
    stop(state, rng)
    rules.apply(state, CHOOSE_LOVE, rng)
    assert rules.is_over(state) and state.winners == [0] and state.love[0] == 20


def test_random_abilities_are_distinct_and_from_the_rng():
    """R7.1 (house rule I15): distinct abilities dealt from the generator."""
    config = rules.CubeMeltConfig(num_players=5, expansion=True)
    a = rules.new_game(config, np.random.default_rng(3)).abilities
    b = rules.new_game(config, np.random.default_rng(3)).abilities
    assert a == b and sorted(a) == [CAT, DRAGON, KNIGHT, NINJA, UNICORN]
    seen = {
        tuple(rules.new_game(rules.CubeMeltConfig(num_players=3, expansion=True), np.random.default_rng(s)).abilities)
        for s in range(20)
    }
    assert len(seen) > 5 and all(len(set(t)) == 3 for t in seen)


def test_bad_configs_are_refused():
    """R1.1, R7.8-R7.10: bad options are refused."""
    with pytest.raises(ValueError, match="num_players"):
        rules.CubeMeltConfig(num_players=6)
    with pytest.raises(ValueError, match="faces"):
        rules.CubeMeltConfig(faces=("heart", "moon"))
    with pytest.raises(ValueError, match="distinct"):
        rules.CubeMeltConfig(num_players=2, expansion=True, abilities=("cat", "cat"))
    with pytest.raises(ValueError, match="expansion"):
        rules.CubeMeltConfig(num_players=2, abilities=("cat", "dragon"))
    with pytest.raises(ValueError, match="ninja_targets"):
        rules.CubeMeltConfig(ninja_targets="left")
    with pytest.raises(ValueError, match="cat_trigger"):
        rules.CubeMeltConfig(cat_trigger="real")


def test_custom_faces_are_rolled():
    """R7.8 (I2): custom faces."""
    config = rules.CubeMeltConfig(num_players=2, faces=("star",))
    state = rules.new_game(config, np.random.default_rng(0))
    assert state.dice == [rules.STAR] * 6
    rules.apply(state, 0b111111, np.random.default_rng(1))
    assert state.dice == [rules.STAR] * 6


def test_random_play_invariants():
    """R1.2, R5.6: track bounds and game length under random play."""
    rng = np.random.default_rng(5)
    for n in (2, 3, 4, 5):
        for expansion in (False, True):
            config = rules.CubeMeltConfig(num_players=n, expansion=expansion)
            for _ in range(30):
                state = rules.new_game(config, rng)
                steps = 0
                while not rules.is_over(state):
                    legal = rules.legal_actions(state)
                    assert legal and 0 <= state.decider < n
                    rules.apply(state, int(legal[rng.integers(len(legal))]), rng)
                    assert all(0 <= v <= 20 for v in state.love + state.adventure + state.melt)
                    steps += 1
                    assert steps < 1000
                if state.winners and all(max(state.love[p], state.adventure[p]) < 20 for p in state.winners):
                    assert all(max(state.love[p], state.adventure[p]) < 20 for p in range(n))
                    assert state.melted
                assert set(state.winners).isdisjoint(state.melted) or any(
                    max(state.love[p], state.adventure[p]) >= 20 for p in state.winners
                )
