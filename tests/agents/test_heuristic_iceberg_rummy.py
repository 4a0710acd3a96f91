"""Iceberg Rummy heuristic: legal play everywhere, sensible choices in hand-built positions, beats random."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs import iceberg_rummy_v1
from ice_envs.agents import heuristic_for
from ice_envs.core.agent import PlayerView
from ice_envs.evaluation import tournament as ev
from ice_envs.iceberg_rummy import heuristic, rules
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy.heuristic import IcebergRummyHeuristic, choose_play, special_bonus, unseen_counts
from tests.agents.mixed_play import play_mixed_game

OBS_SIZE = iceberg_rummy_v1.raw_env().obs_layout.size


def position(
    hands: list[str],
    *,
    melds: list[tuple[int, str]] | None = None,
    stock: str = "",
    known_left: str | None = None,
    single_hand: bool = True,
) -> rules.IcebergRummyState:
    """A position at the start of seat 0's melding (dealer is the last seat).

    ``hands`` are the hands before the automatic draw; the stock's first card is drawn by
    seat 0 at once (give a harmless card first). ``single_hand=False``: a full game, where the
    heuristic holds no plays back.
    """
    n = len(hands)
    cfg = rules.IcebergRummyConfig(num_players=n, single_hand=single_hand)
    state = rules.new_game(
        cfg,
        np.random.default_rng(0),
        dealer=n - 1,
        hands=[h.split() for h in hands],
        stock=stock.split(),
        melds=[(owner, cards.split()) for owner, cards in melds or []],
    )
    if known_left is not None:
        state.known_left[0] = M.parse_card(known_left)
        state.last_passed[0] = M.parse_card(known_left)
    return state


def decide(state: rules.IcebergRummyState, agent: IcebergRummyHeuristic | None = None) -> int:
    """The heuristic's action for the acting seat of ``state`` (checked legal)."""
    legal = list(rules.legal_actions(state))
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    view = PlayerView("iceberg_rummy", state.current, state.num_players, state.copy(), legal)
    action = (agent or IcebergRummyHeuristic(0)).act(
        {"observation": np.zeros(OBS_SIZE, np.float32), "action_mask": mask}, view
    )
    assert action in legal
    return action


def turn(state: rules.IcebergRummyState) -> tuple[list[tuple[tuple[int, ...], int]], int]:
    """Play seat 0's whole melding phase: the plays committed ``(cards, target)`` and the discard."""
    agent = IcebergRummyHeuristic(0)
    plays = []
    seat = state.current
    for _ in range(200):
        action = decide(state, agent)
        if rules.DISCARD_BASE <= action < rules.COMMIT_NEW:
            return plays, action - rules.DISCARD_BASE
        if action >= rules.COMMIT_NEW:
            target = -1 if action == rules.COMMIT_NEW else action - rules.LAYOFF_BASE
            plays.append((tuple(state.selection), target))
        rules.apply(state, action, np.random.default_rng(0))
        if state.phase == rules.PHASE_OVER or state.current != seat:
            return plays, -1
    raise AssertionError("the turn never ended")


def names(cards: tuple[int, ...]) -> str:
    return M.cards_text(cards)


# ------------------------------------------------------------------ machinery
def test_registry_loads_it():
    agent = heuristic_for("iceberg_rummy", seed=0)
    assert isinstance(agent, IcebergRummyHeuristic) and agent.name == "heuristic" and agent.needs_view


@pytest.mark.parametrize("options", [{"single_hand": True}, {"single_hand": True, "ace_holder_finishes": True}, {}])
def test_only_legal_actions_over_random_positions(options):
    rng = np.random.default_rng(7)
    heuristic = IcebergRummyHeuristic(1)
    for game in range(8 if options.get("single_hand") else 2):
        n = 2 + game % 4
        env = iceberg_rummy_v1.env(num_players=n, max_hands=2, **options)
        env.reset(seed=game)
        play_mixed_game(env, heuristic, rng)


def test_continues_a_selection_it_did_not_start():
    state = position(["5H 6H 7H 9C", "2C 3D 4S 8D 10S QC KD"], stock="JD")
    rules.apply(state, M.parse_card("5H"), np.random.default_rng(0))  # selected by someone else
    assert decide(state) == M.parse_card("6H")


# ------------------------------------------------------------------ sensible choices
def test_lays_a_run_and_a_set():
    state = position(["6H 7H 8H 9C 9D 9S 2C", "2D 3D 4S 8D 10S QC KD"], stock="JD", single_hand=False)
    plays, _ = turn(state)
    laid = sorted(names(cards) for cards, target in plays if target < 0)
    assert laid == ["6H 7H 8H", "9C 9D 9S"]


def test_prefers_run_and_pair_to_the_set():
    # 5H 5D 5C 6H 7H: run 5-7H (30) and pair 5D 5C (10) beat the set of fives (30)
    state = position(["5H 5D 5C 6H 7H 2S", "2D 3D 4S 8D 10S QC KD"], stock="JD", single_hand=False)
    plays, _ = turn(state)
    laid = sorted(names(cards) for cards, _ in plays)
    assert laid == ["5C 5D", "5H 6H 7H"]


def test_lays_off_onto_a_table_meld():
    state = position(["8S 2C 10D", "2D 3D 4S 8D 10S QC KD"], melds=[(1, "5S 6S 7S")], stock="JH", single_hand=False)
    plays, _ = turn(state)
    assert ((M.parse_card("8S"),), 0) in plays


def test_lays_a_special_meld():
    # a single hand, and the hand cannot go out (2C 4C are dead): the special meld is laid at once all the same
    state = position(["3H 5H 7H 9H JH KH 2C", "2D 3D 4S 8D 10S QC KD"], stock="4C")
    assert heuristic.holding(state, 0)
    plays, _ = turn(state)
    assert plays == [(tuple(M.parse_cards("3H 5H 7H 9H JH KH")), -1)]


# a single hand where seat 0 could lay a run, a set and a lay-off but not go out (2C and the drawn JD are dead)
HOLD_HAND = "6H 7H 8H 9C 9D 9S 2C 5S"
HOLD_TABLE = [(1, "2S 3S 4S")]


def test_holds_its_plays_while_no_one_is_about_to_go_out():
    state = position([HOLD_HAND, "2D 3D 4C 8D 10S QC KD"], melds=HOLD_TABLE, stock="JD")
    assert heuristic.holding(state, 0)
    plays, discard = turn(state)
    assert plays == []
    assert discard in M.parse_cards("2C JD")


@pytest.mark.parametrize(
    "hands",
    [
        [HOLD_HAND, "KD"],  # the other seat is down to one card
        ["AC AD AH " + HOLD_HAND, "2D 3D 4C 8D 10S QC KD"],  # three of the four aces placed: the last one is due
    ],
)
def test_plays_what_it_held_when_the_hand_may_end(hands):
    state = position(hands, melds=HOLD_TABLE, stock="JD")
    assert not heuristic.holding(state, 0)
    plays, discard = turn(state)
    laid = sorted(names(cards) for cards, _ in plays)
    assert laid == ["5S", "6H 7H 8H", "9C 9D 9S"]
    assert discard in M.parse_cards("2C JD")


def test_plays_everything_when_the_hand_can_go_out():
    # the drawn 9H is playable too: every card but 2C is played, and the discard of 2C ends the hand
    state = position([HOLD_HAND, "2D 3D 4C 8D 10S QC KD"], melds=HOLD_TABLE, stock="9H")
    assert heuristic.holding(state, 0)
    plays, discard = turn(state)
    assert sorted(c for cards, _ in plays for c in cards) == sorted(M.parse_cards("6H 7H 8H 9H 9C 9D 9S 5S"))
    assert discard == M.parse_card("2C")


def test_the_hold_does_not_depend_on_the_hidden_hands():
    """Views with the other hand and the stock re-dealt give the same decisions as the true state."""
    for hands in ([HOLD_HAND, "2D 3D 4C 8D 10S QC KD"], [HOLD_HAND, "KD"]):
        truth = decide(position(hands, melds=HOLD_TABLE, stock="JD"))
        for k in range(4):
            view = rules.resample_hidden(position(hands, melds=HOLD_TABLE, stock="JD"), 0, np.random.default_rng(k))
            assert decide(view) == truth, (hands, k)


def test_lays_a_small_run_now_rather_than_wait_for_a_special_meld():
    # odds of hearts missing only KH is in reach, but the run 3H 4H 5H scores now (cards are never held back)
    hand = M.counts_of(M.parse_cards("3H 4H 5H 7H 9H JH 2C 8D"))
    unseen = np.ones(M.NUM_CARDS, dtype=np.int64) - hand
    unseen[list(M.ACE_IDS)] = 0
    assert special_bonus(hand, unseen, 20.0) > 100
    play = choose_play(hand, ())
    assert play is not None and names(play[0]) == "3H 4H 5H"


def test_choose_play_scores_the_settlement_after_the_play_out():
    # 5H 5D 5C 6H 7H 5S: the set of four fives (70) leaves 6H 7H dead (-20): 50; the run 5-7H (30) and
    # the set 5C 5D 5S (30) play every card: 60. The first play is the run (its cards come first in id order).
    hand = M.counts_of(M.parse_cards("5H 5D 5C 6H 7H 5S"))
    play = choose_play(hand, ())
    assert play is not None
    assert sorted(names(play[0]).split()) in (["5H", "6H", "7H"], ["5C", "5D", "5S"])
    assert choose_play(M.counts_of(M.parse_cards("2C 9D")), ()) is None


def _going_out_position(other_points: int) -> rules.IcebergRummyState:
    # seat 0 holds 5H 6H 7H and draws 2C: the run 5-7H and the discard of 2C would end the hand
    state = position(["5H 6H 7H", "2D 3D 4S 8D 10S QC KD"], stock="2C")
    state.hand_points[1] = other_points
    return state


def test_goes_out_when_going_out_wins():
    state = _going_out_position(0)  # 30 for the run against the other seat's penalty for seven cards
    assert decide(state) in M.parse_cards("5H 6H 7H")


def test_keeps_two_cards_rather_than_go_out_into_a_loss():
    state = _going_out_position(500)  # the other seat is far ahead: ending the hand now loses
    action = decide(state)
    assert rules.DISCARD_BASE <= action < rules.COMMIT_NEW  # no play: the run would leave one card
    assert rules.hand_sizes(state)[0] == 4


def test_the_going_out_judgement_does_not_depend_on_the_hidden_hands():
    """Views with the other hand and the stock re-dealt give the same decisions as the true state."""
    for points in (0, 40, 60, 500):
        truth = decide(_going_out_position(points))
        for k in range(4):
            view = rules.resample_hidden(_going_out_position(points), 0, np.random.default_rng(k))
            assert decide(view) == truth, (points, k)


def test_passes_the_card_whose_only_use_the_neighbour_holds():
    # table run 5-7S: 9S would go onto it with 8S, but the neighbour holds the only 8S (I passed it to
    # them), so 9S is dead for me; QD can still pair with three unseen queens: 9S goes.
    state = position(["9S QD 2C", "2D 3D 4C 10S QC KD 8S"], melds=[(1, "5S 6S 7S")], stock="4H", known_left="8S")
    plays, discard = turn(state)
    assert not plays
    assert discard == M.parse_card("9S")


def test_discards_a_dead_card_before_a_near_run():
    # 6D 7D wait for 5D or 8D; KS fits nothing
    state = position(["6D 7D KS 2H", "2D 3D 4S 8C 10S QC JC"], stock="9C")
    _, discard = turn(state)
    assert discard not in M.parse_cards("6D 7D")


def test_unseen_counts_exclude_hand_table_and_aces():
    state = position(["5H 6H", "2D 3D"], melds=[(1, "5S 6S 7S")], stock="4H")
    unseen = unseen_counts(state, 0)
    for c in M.parse_cards("5H 6H 4H 5S 6S 7S AC AD AH AS"):
        assert unseen[c] == 0
    assert unseen[M.parse_card("2D")] == 1  # the other hand is unseen


# ------------------------------------------------------------------ strength
def test_short_evaluation_beats_random():
    summary, _ = ev.evaluate(
        "iceberg_rummy", 2, "heuristic,random", games=40, seed=0, options={"single_hand": True}, progress=False
    )
    heuristic = summary["per_agent"][0]
    assert heuristic["agent"] == "heuristic"
    assert heuristic["win_rate_ci95"][0] > 1 / 2
