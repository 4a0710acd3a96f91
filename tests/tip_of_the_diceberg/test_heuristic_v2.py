"""Tip of the Diceberg ``heuristic@v2``: registered beside v1, legal and deterministic, and its draft in built positions."""

from __future__ import annotations

import numpy as np

import ice_envs
from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import PlayerView
from ice_envs.tip_of_the_diceberg import heuristic, rules
from ice_envs.tip_of_the_diceberg.heuristic import DicebergHeuristic, DicebergHeuristicV2, solo_value
from ice_envs.tip_of_the_diceberg.patterns import DIE_TYPE, SUITS

#: 4 players; slots 0-5 are the starters S1-S6, then 6 = R1 (2 of a suit, reroll), 7 = D3 (one item showing
#: 10-20, discard), 8 = T1 (1-3 items showing 1, take), 9 = C5 (one d20 showing 15-20, clear)
MAIN = ("R1", "D3", "T1", "C5")


def draft_position(hand: list[str], pool: list[str]) -> rules.DicebergState:
    """Seat 0 to draft first in a 4-player game with ``MAIN``; the other seats hold two cards each."""
    spare = [c for c in ("d10:8", "d10:7", "d10:6", "d10:5", "d8:8", "d8:4", "d8:7", "d8:6") if c not in hand][:6]
    cfg = rules.DicebergConfig(num_players=4, main_cards=MAIN)
    return rules.new_game(
        cfg,
        np.random.default_rng(0),
        start_player=0,
        hands=[hand, spare[:2], spare[2:4], spare[4:6]],
        pool=list(pool),
    )


def decide(agent: DicebergHeuristic, state: rules.DicebergState) -> int:
    """The agent's action for the deciding seat (checked legal)."""
    legal = rules.legal_actions(state)
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    view = PlayerView("tip_of_the_diceberg", state.current, state.config.num_players, state.copy(), legal)
    action = agent.act({"action_mask": mask}, view)
    assert action in legal
    return int(action)


def die_of(state: rules.DicebergState, action: int) -> str:
    d = action - rules.DRAFT
    return f"{SUITS[DIE_TYPE[d]]}:{state.die_value[d]}"


def test_versions_are_registered():
    assert type(load_agent("heuristic", "tip_of_the_diceberg", seed=0)) is DicebergHeuristic
    assert type(load_agent("heuristic@v1", "tip_of_the_diceberg", seed=0)) is DicebergHeuristic
    assert type(load_agent("heuristic@v2", "tip_of_the_diceberg", seed=0)) is DicebergHeuristicV2
    assert heuristic.VERSIONS == {"v1": DicebergHeuristic, "v2": DicebergHeuristicV2}


def test_tied_draft_takes_the_bigger_die_not_the_lowest_id():
    # two 3s in hand: any die showing 3 makes three of a number (S5) at the same cost; v1 takes the d4
    state = draft_position(["d6:3", "d8:3", "d10:9", "d12:11"], ["d4:3", "d12:3", "d6:5", "d8:1"])
    assert die_of(state, decide(DicebergHeuristic(0), state)) == "d4:3"
    assert die_of(state, decide(DicebergHeuristicV2(0), state)) == "d12:3"


def test_draft_keeps_a_clearly_cheaper_die():
    # a d6 showing 2 completes the run 1-2-3 of d6 cards; nothing else helps the hand that much
    state = draft_position(["d6:1", "d6:3", "d12:11", "d10:9"], ["d6:2", "d20:7", "d12:5", "d4:4"])
    assert die_of(state, decide(DicebergHeuristic(0), state)) == "d6:2"
    assert die_of(state, decide(DicebergHeuristicV2(0), state)) == "d6:2"


def test_solo_value_reads_the_revealed_powers():
    state = draft_position(["d6:3"], ["d20:17", "d12:11", "d4:2"])
    by_name = {f"{SUITS[DIE_TYPE[d]]}:{state.die_value[d]}": d for d in rules.pool_dice(state)}
    assert solo_value(state, by_name["d20:17"]) == 1.0 - heuristic.POWER_TURN_COST["clear"]
    assert solo_value(state, by_name["d12:11"]) == 1.0 - heuristic.POWER_TURN_COST["discard"]
    assert solo_value(state, by_name["d4:2"]) == 0.0


def _game(seed: int) -> list[int]:
    """One round, 4 players, v2 in every seat: every action legal; returns the actions."""
    env = ice_envs.make("tip_of_the_diceberg", raw=True, num_players=4, num_rounds=1)
    env.reset(seed=seed)
    agents = [DicebergHeuristicV2(seed * 4 + k) for k in range(4)]
    actions = []
    while not env._game_over():
        seat = env.current_seat
        legal = env.legal_actions()
        view = PlayerView("tip_of_the_diceberg", seat, 4, env.game_state, legal)
        action = agents[seat].act({"action_mask": env.action_mask()}, view)
        assert action in legal
        actions.append(int(action))
        env.step(action)
        if not env.agents:
            break
    return actions


def test_v2_plays_legal_and_deterministic_games():
    first = _game(3)
    assert len(first) > 20
    assert _game(3) == first


def _first_action(option: tuple, selection: tuple) -> int:
    """The first action of a play option ``(cost, tie-break, slot, meld)`` from an empty selection."""
    _, _, k, meld = option
    return rules.COMMIT + k if len(meld) == len(selection) else meld[len(selection)]


def test_v2_plays_where_v1_passes_unless_a_pass_is_play_margin_turns_better():
    """At the turns' first decisions of version 1's games: version 2 decides as version 1 except where
    version 1 passes and its best play costs at most ``PLAY_MARGIN`` turns more than the pass; there
    version 2 starts that best play."""
    env = ice_envs.make("tip_of_the_diceberg", raw=True, num_players=4, num_rounds=1)
    v2_played = same = 0
    for seed in (0, 1):
        env.reset(seed=seed)
        v1 = [DicebergHeuristic(seed * 4 + k) for k in range(4)]
        while not env._game_over() and env.agents:
            seat, state, legal = env.current_seat, env.game_state, env.legal_actions()
            view = PlayerView("tip_of_the_diceberg", seat, 4, state, legal)
            action = v1[seat].act({"action_mask": env.action_mask()}, view)
            if state.phase == rules.PHASE_PLAY and not state.selection and len(legal) > 1:
                judge = DicebergHeuristicV2(0)
                mine = decide(judge, state)
                options = judge.play_options(state, seat)
                pass_cost = 1.0 + judge.hand(state, rules.items_of(state, seat)).value()
                passes = action == rules.PASS or rules.PASS_TAKE <= action < rules.PASS_TAKE + rules.NUM_DICE
                if mine == action:
                    same += 1
                    if passes and options:
                        assert options[0][0] - heuristic.PLAY_MARGIN >= pass_cost - heuristic.EPS
                else:
                    assert passes and options
                    assert options[0][0] - heuristic.PLAY_MARGIN < pass_cost - heuristic.EPS
                    assert mine == _first_action(options[0], ())
                    v2_played += 1
            env.step(action)
    assert v2_played > 0 and same > v2_played
