"""Tip of the Diceberg heuristic: legal play everywhere, sensible choices in hand-built positions, beats random."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs import tip_of_the_diceberg_v1
from ice_envs.agents import heuristic_for
from ice_envs.core.agent import PlayerView, make_view
from ice_envs.evaluation import tournament as ev
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import example_catalog_path
from ice_envs.tip_of_the_diceberg.heuristic import DicebergHeuristic, HandPlan, describe, turn_cost_of_slots
from ice_envs.tip_of_the_diceberg.patterns import ITEM_DIE0, parse_card

#: 3 players, these main cards: slots 0-5 are the starters S1-S6, then
#: 6 = R4 (2 dice, reroll), 7 = D4 (4 of a number, discard), 8 = T3 (5-run, take), 9 = C6 (3 dice, clear)
MAIN = ("R4", "D4", "T3", "C6")
SLOT_TAKE = 8


def position(
    hand: list[str], dice: list[str] = (), pool: list[str] = (), draft: bool = False, compulsory: bool = False
) -> rules.DicebergState:
    """Seat 0 to act in a 3-player game with ``MAIN``; the other seats hold two cards each."""
    spare = [c for c in ("d10:8", "d10:7", "d10:6", "d10:5", "d8:8", "d8:4") if c not in hand][:4]
    cfg = rules.DicebergConfig(num_players=3, main_cards=MAIN, compulsory_powers=compulsory)
    return rules.new_game(
        cfg,
        np.random.default_rng(0),
        start_player=0,
        hands=[hand, spare[:2], spare[2:]],
        dice=None if draft else [list(dice), [], []],
        pool=list(pool),
    )


def decide(state: rules.DicebergState, agent: DicebergHeuristic | None = None) -> int:
    """The heuristic's action for the deciding seat (checked legal)."""
    legal = rules.legal_actions(state)
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    view = PlayerView("tip_of_the_diceberg", state.current, state.config.num_players, state.copy(), legal)
    action = (agent or DicebergHeuristic(0)).act({"observation": np.zeros(2047, np.float32), "action_mask": mask}, view)
    assert action in legal
    return action


def play_turn(state: rules.DicebergState) -> tuple[int, list[str]]:
    """Let seat 0 compose and commit; returns (slot, items played) or (-1, []) for a pass."""
    agent = DicebergHeuristic(0)
    rng = np.random.default_rng(1)
    while True:
        action = decide(state, agent)
        if action >= rules.PASS:
            return -1, []
        if action >= rules.COMMIT:
            items = [rules.item_name(state, x) for x in state.selection]
            rules.apply(state, action, rng)
            return action - rules.COMMIT, items
        rules.apply(state, action, rng)


def pool_die(state: rules.DicebergState, name: str) -> int:
    """The slot of the pool die ``name`` (e.g. ``"d8:6"``)."""
    t, v = rules.parse_die(name)
    return next(d for d in rules.pool_dice(state) if rules.DIE_TYPE[d] == t and state.die_value[d] == v)


def own_die(state: rules.DicebergState, seat: int, name: str) -> int:
    t, v = rules.parse_die(name)
    return next(d for d in rules.own_dice(state, seat) if rules.DIE_TYPE[d] == t and state.die_value[d] == v)


# ------------------------------------------------------------------ machinery
def test_registry_loads_it():
    agent = heuristic_for("tip_of_the_diceberg", seed=0)
    assert isinstance(agent, DicebergHeuristic) and agent.name == "heuristic" and agent.needs_view


def test_meld_cost_model():
    # one plain card: a turn plus the waiting for it; several cards that take it: cheaper
    one, two = turn_cost_of_slots([""]), turn_cost_of_slots(["", ""])
    assert one > two > 1.0
    # a clear card lets the player lead again at once: far cheaper than a turn
    assert turn_cost_of_slots(["clear"]) < 0.6 < turn_cost_of_slots(["discard"]) < one
    assert turn_cost_of_slots([]) == float("inf")


def test_plan_finds_the_cheapest_split():
    # items 0-3; melds {0,1}, {2,3}, {0,1,2,3} (one slot each) and singles
    items = tuple((i, 0, i + 1, False) for i in range(4))
    per_slot = [[(0,), (1,), (2,), (3,)], [(0, 1), (2, 3)], [(0, 1, 2, 3)]]
    plan = HandPlan(items, per_slot, ["", "", ""])
    c = turn_cost_of_slots([""])
    assert plan.value() == pytest.approx(c)  # the four in one meld
    assert plan.value(0b0111) == pytest.approx(2 * c)  # {0,1} and {2}
    assert plan.value(0b0101) == pytest.approx(2 * c)  # two singles
    assert plan.value(0) == 0.0


def test_identical_dice_are_interchangeable_in_the_plan():
    # two identical dice (slots 0 and 1): the engine lists melds with the first copy only
    items = ((ITEM_DIE0, 0, 2, True), (ITEM_DIE0 + 1, 0, 2, True), (5, 1, 3, False))
    per_slot = [[(ITEM_DIE0,), (ITEM_DIE0 + 1,), (5,)], [(5, ITEM_DIE0)]]
    plan = HandPlan(items, per_slot, ["", ""])
    # {second die, card} is a meld too
    assert plan.value(0b110) == pytest.approx(turn_cost_of_slots([""]))


@pytest.mark.parametrize("num_players", [3, 4, 5])
@pytest.mark.parametrize("catalog", [None, "custom", "compulsory_powers"])
def test_only_legal_actions_over_random_positions(num_players, catalog):
    rng = np.random.default_rng(num_players)
    heuristic = DicebergHeuristic(1)
    options = {"catalog": example_catalog_path()} if catalog == "custom" else {}
    if catalog == "compulsory_powers":
        options = {"compulsory_powers": True}
    env = tip_of_the_diceberg_v1.env(num_players=num_players, **options)
    env.reset(seed=num_players)
    raw = env.unwrapped
    for decisions, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if decisions > 1500:
            break
        seat = raw.possible_agents.index(agent)
        if seat == 0 or rng.random() < 0.5:
            action = heuristic.act(obs, make_view(env, seat, rng))
            assert obs["action_mask"][action] == 1, (raw.game_state.phase, action)
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)


# ------------------------------------------------------------------ choices
def test_goes_out_with_a_whole_hand_meld():
    state = position(["d8:5", "d8:6", "d8:7"])
    slot, items = play_turn(state)
    assert sorted(items) == ["d8:5", "d8:6", "d8:7"]
    assert state.out_order == [0]


def test_sheds_the_awkward_run_into_the_hard_slot_while_it_is_open():
    # A 5-run fits only Avalanche (T3); the pair of fives fits Twin Floes and Ten Below.
    # Both take a turn, but the run's slot is the one that may not be open next time.
    state = position(["d4:1", "d6:2", "d4:3", "d4:4", "d8:5", "d6:5", "d10:5"])
    slot, items = play_turn(state)
    assert slot == SLOT_TAKE  # any of the fives ends the run; the other two stay a pair
    assert sorted(items)[:4] == ["d4:1", "d4:3", "d4:4", "d6:2"] and items[4].endswith(":5")


def test_bigger_meld_when_it_breaks_nothing():
    # three threes: Three Seals sheds all three in one turn rather than a pair (Twin Floes)
    state = position(["d6:3", "d8:3", "d10:3", "d6:6"])
    slot, items = play_turn(state)
    assert sorted(items) == ["d10:3", "d6:3", "d8:3"] and slot == 4


def test_discards_the_card_that_fits_nothing():
    # d4:1 fits no meld with the others; the d8 run is one meld
    state = position(["d4:1", "d8:5", "d8:6", "d8:7"])
    state.phase = rules.PHASE_DISCARD
    assert decide(state) == rules.DISCARD + parse_card("d4:1")


def test_take_power_takes_the_die_that_completes_a_meld_else_declines():
    state = position(["d8:5", "d8:7"], pool=["d8:6", "d20:17", "d12:11"])
    state.phase = rules.PHASE_TAKE
    assert decide(state) == rules.TAKE + pool_die(state, "d8:6")
    state = position(["d8:5", "d8:6", "d8:7"], pool=["d20:17", "d12:11"])
    state.phase = rules.PHASE_TAKE
    assert decide(state) == rules.DECLINE


def test_passes_with_a_helpful_die_when_every_slot_is_taken():
    state = position(["d8:5", "d8:7"], pool=["d8:6", "d20:17"])
    state.slot_player = [1] * len(state.slots)
    state.last_player = 1
    assert decide(state) == rules.PASS_TAKE + pool_die(state, "d8:6")
    state = position(["d8:5", "d8:7"], pool=["d20:17", "d12:11"])
    state.slot_player = [1] * len(state.slots)
    state.last_player = 1
    assert decide(state) == rules.PASS


def test_drafts_the_die_that_fits_the_hand():
    # three triples, d8:5 and d8:7 waiting for a 6, and d6:6; the d8:6 makes the run
    hand = ["d8:5", "d8:7", "d4:1", "d6:1", "d10:1", "d4:2", "d6:2", "d10:2", "d4:3", "d6:3", "d10:3", "d6:6"]
    state = position(hand, pool=["d20:17", "d8:6", "d12:11", "d10:8"], draft=True)
    assert state.phase == rules.PHASE_DRAFT and state.current == 0
    assert decide(state) == rules.DRAFT + pool_die(state, "d8:6")


def test_rerolls_the_die_that_fits_nothing_and_keeps_the_one_that_fits():
    # d8:6 completes a run; d20:17 fits nothing, re-rolled it may pair with d4:2 / d6:4 or make ten
    state = position(["d8:5", "d8:7", "d4:2", "d6:4"], dice=["d8:6", "d20:17"])
    state.phase = rules.PHASE_REROLL
    agent = DicebergHeuristic(0)
    first = decide(state, agent)
    assert first == rules.MARK + own_die(state, 0, "d20:17")
    rules.apply(state, first, np.random.default_rng(0))
    assert decide(state, agent) == rules.REROLL
    # nothing to gain: decline
    state = position(["d8:5", "d8:7"], dice=["d8:6"])
    state.phase = rules.PHASE_REROLL
    assert decide(state) == rules.DECLINE


def test_compulsory_powers_are_used_at_the_least_cost():
    """With ``compulsory_powers`` the positions where it would decline: it takes, discards and re-rolls
    the item that leaves the cheapest (expected) hand, never falling back to a random action."""
    agent = DicebergHeuristic(0)
    state = position(["d8:5", "d8:6", "d8:7"], pool=["d20:17", "d12:11"], compulsory=True)
    state.phase = rules.PHASE_TAKE
    assert rules.DECLINE not in rules.legal_actions(state)
    hand = agent.hand(state, rules.items_of(state, 0))
    cost = {d: agent.value_with_die(state, hand, d) for d in rules.pool_dice(state)}
    assert decide(state, agent) == rules.TAKE + min(cost, key=cost.get)
    state = position(["d8:5", "d8:6", "d8:7"], compulsory=True)
    state.phase = rules.PHASE_DISCARD
    action = decide(state, agent)
    plan_hand = agent.hand(state, rules.items_of(state, 0))
    left = {c: plan_hand.plan.value(plan_hand.mask ^ (1 << i)) for i, c in enumerate(state.hands[0])}
    assert action == rules.DISCARD + min(left, key=left.get)
    state = position(["d8:5", "d8:7"], dice=["d8:6"], compulsory=True)
    state.phase = rules.PHASE_REROLL
    first = decide(state, agent)
    assert first == rules.MARK + own_die(state, 0, "d8:6"), "the one die must be re-rolled"
    rules.apply(state, first, np.random.default_rng(0))
    assert decide(state, agent) == rules.REROLL


def test_describe_reports_the_plan():
    info = describe(position(["d8:5", "d8:6", "d8:7"]), 0)
    assert info["items"] == ["d8:5", "d8:6", "d8:7"] and info["options"][0][0] == 0.0


# ------------------------------------------------------------------ strength
def test_short_evaluation_beats_random():
    summary, _ = ev.evaluate("tip_of_the_diceberg", 3, "heuristic,random,random", games=15, seed=0, progress=False)
    heuristic = summary["per_agent"][0]
    assert heuristic["agent"] == "heuristic"
    assert heuristic["win_rate_ci95"][0] > 1 / 3
