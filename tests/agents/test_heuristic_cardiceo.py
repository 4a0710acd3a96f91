"""Cardiceo heuristic: legal play everywhere, the documented strategy (docs/agents/cardiceo.md)
on hand-built positions, determinism, no hidden information read, beats random."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

import numpy as np
import pytest

from ice_envs import cardiceo_v1
from ice_envs.agents import heuristic_for
from ice_envs.cardiceo import rules, solitaire
from ice_envs.cardiceo.heuristic import CardiceoHeuristic, _help_left, roll_misses
from ice_envs.core.agent import PlayerView, make_view
from ice_envs.core.testing import ScriptedRng
from ice_envs.evaluation import tournament as ev

D4, D8, D12, D4_D8, D4_D12, D8_D12, ALL3 = range(7)
LIMIT = 5_000  # decisions: the spec's bound on a game (a stuck loop fails instead of hanging)
ROLLS = list(product(*(range(1, f + 1) for f in rules.DIE_FACES)))  # the 384 rolls


def counts(values) -> np.ndarray:
    return np.bincount(np.asarray(values, dtype=np.int64), minlength=rules.NUM_VALUES + 1)[1:]


def position(hands, dice, *, start=0, discarded=(), forced=False) -> rules.CardiceoState:
    """A discarding position of ``start``'s turn with three freshly rolled ``dice``."""
    cfg = rules.CardiceoConfig(num_players=len(hands), hand_size=10, forced_discard=forced)
    state = rules.new_game(cfg, ScriptedRng([]), hands=hands, dice=dice, start_player=start)
    state.discarded[:] = counts(discarded)
    assert state.current == start and state.phase == rules.PHASE_DISCARD
    return state


def no_play_position(hands, dice, *, seat=0, discarded=()) -> rules.CardiceoState:
    """``seat`` must choose to keep or re-roll the three middle ``dice``."""
    cfg = rules.CardiceoConfig(num_players=len(hands))
    return rules.CardiceoState(
        config=cfg,
        hands=np.stack([counts(h) for h in hands]),
        discarded=counts(discarded),
        dice=np.array(dice, dtype=np.int64),
        locked=np.ones(3, dtype=bool),
        current=seat,
        phase=rules.PHASE_NO_PLAY_CHOICE,
        turn=1,
    )


def decide(state: rules.CardiceoState, agent: CardiceoHeuristic | None = None) -> int:
    """The heuristic's action for the deciding seat of ``state`` (checked legal, never "end turn")."""
    legal = rules.legal_actions(state)
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    view = PlayerView("cardiceo", state.current, state.config.num_players, state.copy(), legal)
    obs = {"observation": np.zeros(422, np.float32), "action_mask": mask}
    action = (agent or CardiceoHeuristic(0)).act(obs, view)
    assert action in legal and action != rules.END_TURN
    return action


def play_turn(state: rules.CardiceoState) -> list[int]:
    """Let the heuristic play the deciding seat's whole turn; the card values it discarded."""
    seat, turn = state.current, state.turn
    rng = np.random.default_rng(0)
    shed = []
    while state.phase != rules.PHASE_OVER and state.current == seat and state.turn == turn:
        action = decide(state)
        if action < rules.NUM_SUBSETS:
            shed.append(rules.subset_total(state, action))
        rules.apply(state, action, rng)
    return shed


@cache
def max_shed(dice: tuple[int, ...], free: tuple[bool, ...], hand: tuple[int, ...]) -> int:
    """Most cards one turn can discard from ``hand`` with the ``free`` dice (brute force)."""
    best = 0
    for subset in rules.SUBSETS:
        if not all(free[i] for i in subset):
            continue
        total = sum(dice[i] for i in subset)
        if total > rules.NUM_VALUES or hand[total - 1] == 0:
            continue
        rest = list(hand)
        rest[total - 1] -= 1
        rest_free = tuple(f and i not in subset for i, f in enumerate(free))
        best = max(best, 1 + max_shed(dice, rest_free, tuple(rest)))
    return best


def fresh_roll_mean(hand) -> float:
    """Mean of :func:`max_shed` over the 384 fresh rolls of the d4, d8 and d12."""
    hand = tuple(int(c) for c in hand)
    return sum(max_shed(roll, (True, True, True), hand) for roll in ROLLS) / len(ROLLS)


# ------------------------------------------------------------------ machinery
def test_registry_loads_it():
    agent = heuristic_for("cardiceo", seed=0)
    assert isinstance(agent, CardiceoHeuristic) and agent.name == "heuristic" and agent.needs_view


def test_roll_misses_counts_the_fresh_rolls_that_cannot_make_the_value():
    hits = [0] * rules.NUM_VALUES
    for roll in ROLLS:
        made = {sum(roll[i] for i in subset) for subset in rules.SUBSETS}
        for v in range(1, rules.NUM_VALUES + 1):
            hits[v - 1] += v in made
    misses = roll_misses()
    assert misses == tuple(384 - h for h in hits)
    # 15 needs all three dice and a good roll: the hardest value
    assert int(np.argmax(misses)) == 15 - 1 and misses[5 - 1] < misses[15 - 1]


def test_help_left_counts_the_unseen_cards_the_middle_dice_make():
    gone = np.zeros(rules.NUM_VALUES, dtype=np.int64)
    # d4=1, d8=2 left (d12 used): totals 1, 2, 3, four unseen copies each
    assert _help_left(np.array([1, 2, 3]), (True, True, False), gone) == 12
    gone[[0, 2]] = [4, 1]  # every 1 gone, one 3 gone
    assert _help_left(np.array([1, 2, 3]), (True, True, False), gone) == 0 + 4 + 3
    # totals above 15 make no card
    assert _help_left(np.array([4, 8, 12]), (True, True, True), np.zeros(15)) == 12
    assert _help_left(np.array([4, 8, 12]), (False, False, False), np.zeros(15)) == 0


# ------------------------------------------------------------------ legal play
@pytest.mark.parametrize(
    "options", [{}, {"hand_size": 5}, {"forced_discard": True}], ids=["default", "short", "forced"]
)
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_only_legal_actions_and_never_an_early_end(n, options):
    """Heuristic and random moves mixed: every heuristic answer is legal and never "end turn"."""
    rng = np.random.default_rng(n)
    heuristic = CardiceoHeuristic(1)
    env = cardiceo_v1.env(num_players=n, **options)
    asked = 0
    phases = set()
    for game in range(6):
        env.reset(seed=100 * n + game)
        raw = env.unwrapped
        for agent in env.agent_iter(LIMIT):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = raw.possible_agents.index(agent)
            action = heuristic.act(obs, make_view(env, seat, rng))
            assert obs["action_mask"][action] == 1, (raw.game_state, action)
            assert action != rules.END_TURN
            asked += 1
            phases.add(raw.game_state.phase)
            if rng.random() > 0.7:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        assert raw.game_state.phase == rules.PHASE_OVER
    assert asked > 10 * n and phases == {rules.PHASE_DISCARD, rules.PHASE_NO_PLAY_CHOICE}


def test_without_a_view_it_plays_a_seeded_random_legal_move():
    mask = np.array([0, 1, 0, 1, 0, 0, 1, 1, 0, 0], dtype=np.int8)
    obs = {"observation": np.zeros(422, np.float32), "action_mask": mask}
    first, second = CardiceoHeuristic(3).act(obs), CardiceoHeuristic(3).act(obs)
    assert first == second and mask[first] == 1
    agent = CardiceoHeuristic(0)
    assert {agent.act(obs) for _ in range(60)} == {1, 3, 6, 7}


# ------------------------------------------------------------------ rule 1: shed as many cards as possible
OTHER = [1, 1, 2, 2, 5, 5, 6, 6, 7, 7]  # a hand for the other seat, unused by the tests


def expected_turns(hand) -> float:
    """Solitaire E of ``hand`` (card counts), from a lattice of that very hand."""
    return solitaire.Lattice(np.asarray(hand)).expected_turns(np.asarray(hand))


def test_rule1_leaves_the_hand_of_fewest_expected_turns_even_with_fewer_cards():
    # d4=4, d8=8, d12=3 make 4 8 3 12 7 11 15: the 15 needs all three dice; 3, 4 and 8 one die each.
    # Shedding 3, 4 and 8 would leave only hard cards (10 10 13 13 14 14 15), which go one a turn at
    # best; shedding the 15 keeps the small cards that go along with them.
    hand = [15, 4, 8, 3, 13, 13, 14, 14, 10, 10]
    left_15 = counts([4, 8, 3, 13, 13, 14, 14, 10, 10])
    left_348 = counts([15, 13, 13, 14, 14, 10, 10])
    assert expected_turns(left_15) < expected_turns(left_348)
    state = position([hand, OTHER], [4, 8, 3])
    assert decide(state.copy()) == ALL3
    assert play_turn(state) == [15]


def test_rule1_splits_the_dice_over_two_cards():
    # d4=1, d8=2, d12=3: the 3 with d4+d8 would leave the d12 for nothing; 1, 2, 3 one die each
    state = position([[1, 2, 3, 14, 14, 13, 13, 12, 12, 11], OTHER[2:] + [8, 8]], [1, 2, 3])
    assert sorted(play_turn(state)) == [1, 2, 3]


def hands_left(dice: tuple[int, ...], free: tuple[bool, ...], hand: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every hand some sequence of discards with the ``free`` dice leaves (brute force, the hand itself too)."""
    out = {hand}
    for subset in rules.SUBSETS:
        total = sum(dice[i] for i in subset)
        if all(free[i] for i in subset) and total <= rules.NUM_VALUES and hand[total - 1] > 0:
            rest = list(hand)
            rest[total - 1] -= 1
            out |= hands_left(dice, tuple(f and i not in subset for i, f in enumerate(free)), tuple(rest))
    return out


def test_rule1_every_turn_leaves_the_least_expected_turns():
    """Over random deals and rolls the heuristic's whole turn leaves the hand of least E of all it could leave;
    that is often, not always, the most cards the dice allow."""
    rng = np.random.default_rng(0)
    cfg = rules.CardiceoConfig(num_players=3)
    tested, fewer = {}, 0
    for _ in range(150):
        state = rules.new_game(cfg, rng)
        state.dice[:] = [rng.integers(1, f + 1) for f in rules.DIE_FACES]
        state.current = int(rng.integers(3))
        state.phase = rules.PHASE_DISCARD
        state.used[:] = False
        state.locked[:] = False
        if not rules.legal_discards(state):
            continue
        seat, hand = state.current, tuple(state.hands[state.current].tolist())
        lattice = solitaire.Lattice(np.array(hand))
        options = hands_left(tuple(state.dice.tolist()), (True, True, True), hand)
        least = min(lattice.expected_turns(np.array(h)) for h in options)
        shed = play_turn(state)
        assert lattice.expected_turns(state.hands[seat]) == least
        best = max_shed(tuple(state.dice.tolist()), (True, True, True), hand)
        fewer += len(shed) < best
        tested[best] = tested.get(best, 0) + 1
    assert {1, 2, 3} <= set(tested), tested
    assert 0 < fewer < sum(tested.values()), fewer  # 52 of the 150 turns here shed fewer than the most


# ------------------------------------------------------------------ rule 2: hardest values first
def test_rule2_discards_the_harder_value_when_only_one_card_can_go():
    misses = roll_misses()
    assert misses[9 - 1] > misses[5 - 1]
    # d4=1, d8=4, d12=5 make 1 4 5 5 6 9 10: either the 5 or the 9 (d8+d12), never both
    state = position([[5, 9, 13, 13, 14, 14, 15, 15, 12, 12], OTHER], [1, 4, 5])
    assert decide(state.copy()) == D8_D12
    assert play_turn(state) == [9]


def test_rule2_among_two_card_plans_keeps_the_easy_three():
    misses = roll_misses()
    assert misses[2 - 1] + misses[13 - 1] > misses[2 - 1] + misses[3 - 1]
    # d4=2, d8=3, d12=10 make 2 3 10 5 12 13 15: plans {2 (d4), 3 (d8)} and {2 (d4), 13 (d8+d12)}
    state = position([[2, 3, 13, 14, 14, 11, 11, 9, 9, 8], OTHER], [2, 3, 10])
    assert sorted(play_turn(state)) == [2, 13]
    assert state.hands[0, 3 - 1] == 1


# ------------------------------------------------------------------ rule 3: the dice left in the middle
@pytest.mark.parametrize("dice, card", [([1, 2, 3], 3), ([2, 3, 5], 5), ([4, 7, 11], 11)])
def test_rule3_uses_the_pair_and_leaves_the_single_die(dice, card):
    # the card is the d12 alone or d4 + d8: using the d12 would leave d4 and d8 (three totals)
    # for the left neighbour, using d4 + d8 leaves only the d12 (one total)
    hand = [card, 13, 13, 14, 14, 15, 15, 12, 12, 10]
    hand = [v for v in hand if v not in rules.reachable_totals(dice) or v == card][:10]
    state = position([hand, OTHER], dice)
    assert rules.legal_discards(state) == [D12, D4_D8]
    assert decide(state) == D4_D8
    rules.apply(state, D4_D8, ScriptedRng([1, 1]))  # no discard is left: the turn ends
    # the neighbour re-rolls d4 and d8 (1 and 1) and finds the d12 locked in the middle with its value
    assert state.hands[0, card - 1] == 0
    assert state.current == 1 and state.locked.tolist() == [False, False, True]
    assert state.dice.tolist() == [1, 1, dice[2]]


def test_rule3_does_not_override_the_card_count():
    # the 3 with d12 then 1 with d4 and 2 with d8 sheds three cards; leaving the d12 would shed one
    state = position([[1, 2, 3, 15, 15, 14, 14, 13, 13, 12], OTHER[2:] + [8, 8]], [1, 2, 3])
    assert decide(state.copy()) != D4_D8
    assert len(play_turn(state)) == 3


# ------------------------------------------------------------------ rule 4: the "No play" choice
HIGH = [15, 15, 14, 14, 13, 13, 12, 12, 11, 11]


def reroll_reference(hand) -> tuple[Fraction, Fraction]:
    """``(E kept, mean E re-rolled)`` of the "No play" choice for middle dice, by brute force over the
    384 rolls (:func:`hands_left`), E from a lattice of ``hand``."""
    hand = tuple(int(c) for c in hand)
    lattice = solitaire.Lattice(np.array(hand))

    def best(roll: tuple[int, ...]) -> Fraction:
        return min(Fraction(lattice.expected_turns(np.array(h))) for h in hands_left(roll, (True, True, True), hand))

    return lattice, best, sum(best(roll) for roll in ROLLS) / len(ROLLS)


def test_rule4_keeps_middle_dice_that_leave_a_better_hand_than_a_fresh_roll():
    # 4, 3, 8 make 15 (all three), 12 (d4+d8) and 11 (d8+d12) of this hand of high cards; a fresh
    # roll often makes none of them
    _, best, reroll = reroll_reference(counts(HIGH))
    assert best((4, 8, 3)) < reroll
    assert decide(no_play_position([HIGH, [1, 2, 3]], [4, 8, 3])) == rules.KEEP_DICE


def test_rule4_rerolls_middle_dice_that_shed_nothing():
    hand = [1, 1, 2, 2, 3, 3, 5, 6, 7, 9]  # 4, 8, 12 make 4 8 12 12 16 20 24: nothing here
    assert fresh_roll_mean(counts(hand)) > 0
    assert decide(no_play_position([hand, HIGH], [4, 8, 12])) == rules.REROLL_ALL


def test_rule4_rerolls_small_cards_that_a_fresh_roll_serves_better():
    # keeping 1, 2, 3 sheds three cards, but the hand left (4..10) is worse on average than a fresh roll's
    hand = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    _, best, reroll = reroll_reference(counts(hand))
    assert max_shed((1, 2, 3), (True, True, True), tuple(counts(hand).tolist())) == 3
    assert best((1, 2, 3)) > reroll
    assert decide(no_play_position([hand, HIGH], [1, 2, 3])) == rules.REROLL_ALL


def test_rule4_through_the_env_after_the_start_player_could_not_play():
    env = cardiceo_v1.env(num_players=2)
    # the start player's hand makes none of 4 8 3 12 7 11 15, so player 0 faces the middle dice
    stuck = [1, 1, 2, 2, 5, 6, 9, 10, 13, 14]
    env.reset(seed=0, options={"hands": [HIGH, stuck], "start_player": 1, "dice": [4, 8, 3]})
    assert env.agent_selection == "player_0" and env.unwrapped.legal_actions() == [8, 9]
    obs = env.observe("player_0")
    action = CardiceoHeuristic(0).act(obs, make_view(env, 0, np.random.default_rng(0)))
    assert action == rules.KEEP_DICE


def test_rule4_keeps_when_keeping_and_rerolling_are_equal(monkeypatch):
    state = no_play_position([HIGH, [1, 2, 3]], [4, 8, 3])
    roll = solitaire.roll_index((4, 8, 3))
    equal = lambda lattice, hand: 384 * lattice.best_after(hand, roll)  # noqa: E731
    monkeypatch.setattr(solitaire.Lattice, "reroll_sum", equal)
    assert decide(state) == rules.KEEP_DICE  # "unless a fresh roll is better"
    better = lambda lattice, hand: equal(lattice, hand) - 2.0**-solitaire.GRID_BITS  # noqa: E731
    monkeypatch.setattr(solitaire.Lattice, "reroll_sum", better)
    assert decide(state) == rules.REROLL_ALL


def test_rule4_compares_with_the_exact_mean_over_the_384_rolls():
    rng = np.random.default_rng(1)
    decisions = set()
    for _ in range(30):
        deck = np.repeat(np.arange(1, 16), 4)
        rng.shuffle(deck)
        size = int(rng.integers(1, 11))
        hand, other = deck[:size].tolist(), deck[size : size + 10].tolist()
        dice = [int(rng.integers(1, f + 1)) for f in rules.DIE_FACES]
        _, best, reroll = reroll_reference(counts(hand))
        action = decide(no_play_position([hand, other], dice))
        assert action == (rules.KEEP_DICE if best(tuple(dice)) <= reroll else rules.REROLL_ALL), (hand, dice)
        decisions.add(action)
    assert decisions == {rules.KEEP_DICE, rules.REROLL_ALL}


# ------------------------------------------------------------------ rule 5: never end the turn early
def test_rule5_never_ends_the_turn_while_a_discard_is_possible():
    # one 13 left to make from d4=3, d8=4, d12=6 (all three): "end turn" is legal, the heuristic discards
    state = position([[13, 15, 15, 14, 14, 12, 12, 11, 11, 8], OTHER], [3, 4, 6])
    assert rules.legal_actions(state) == [ALL3, rules.END_TURN]
    assert decide(state) == ALL3


# ------------------------------------------------------------------ determinism and hidden information
def _heuristic_game(n: int, seed: int, view_seed: int) -> list[int]:
    env = cardiceo_v1.env(num_players=n)
    env.reset(seed=seed)
    agents = [CardiceoHeuristic(seed * 10 + k) for k in range(n)]
    rng = np.random.default_rng(view_seed)
    actions = []
    for agent in env.agent_iter(LIMIT):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.possible_agents.index(agent)
        actions.append(agents[seat].act(obs, make_view(env, seat, rng)))
        env.step(actions[-1])
    assert env.unwrapped.game_state.phase == rules.PHASE_OVER
    return actions


def test_deterministic_for_a_seed():
    for n in (2, 4):
        first = _heuristic_game(n, 5, 0)
        assert _heuristic_game(n, 5, 0) == first
        # the views' re-dealt hidden hands do not matter either
        assert _heuristic_game(n, 5, 123) == first
        assert _heuristic_game(n, 6, 0) != first


@pytest.mark.parametrize("n", [2, 3, 5])
def test_decisions_do_not_depend_on_the_hidden_hands(n):
    """The same decision from the true state and from views whose other hands were re-dealt."""
    env = cardiceo_v1.env(num_players=n)
    rng = np.random.default_rng(n)
    differing_views = 0
    for seed in range(3):
        env.reset(seed=seed)
        raw = env.unwrapped
        for agent in env.agent_iter(LIMIT):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = raw.possible_agents.index(agent)
            legal = raw.legal_actions()
            truth = PlayerView("cardiceo", seat, n, raw.game_state.copy(), legal)
            action = CardiceoHeuristic(0).act(obs, truth)
            for _ in range(3):
                view = make_view(env, seat, rng)
                assert np.array_equal(view.state.hands[seat], raw.game_state.hands[seat])
                differing_views += not np.array_equal(view.state.hands, raw.game_state.hands)
                assert CardiceoHeuristic(0).act(obs, view) == action
            env.step(action)
        assert raw.game_state.phase == rules.PHASE_OVER
    assert differing_views > 100


def test_a_close_decision_is_the_same_whatever_the_other_hand_holds():
    # Two 1s and two 2s are discarded. Discarding the 3 with the d12 would leave d4=1 and d8=2 for
    # the neighbour: whether the other hand holds the last 1s and 2s is hidden and must not matter.
    hand = [3, 15, 15, 14, 14, 13, 13, 12, 12, 11]
    decisions = set()
    for other in ([1, 1, 2, 2, 5, 5, 6, 6, 7, 7], [5, 5, 6, 6, 7, 7, 8, 8, 9, 9], [4, 4, 4, 4, 8, 8, 9, 9, 10, 10]):
        decisions.add(decide(position([hand, other], [1, 2, 3], discarded=[1, 1, 2, 2])))
    assert decisions == {D4_D8}


# ------------------------------------------------------------------ strength
def test_short_evaluation_beats_random():
    summary, _ = ev.evaluate("cardiceo", 3, "heuristic,random,random", games=60, seed=0, progress=False)
    heuristic = summary["per_agent"][0]
    assert heuristic["agent"] == "heuristic" and heuristic["games"] == 60
    assert heuristic["win_rate_ci95"][0] > 1 / 3
