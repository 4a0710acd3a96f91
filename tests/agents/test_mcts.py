"""ISMCTS: exact UCB1, the final choice, budgets, rollouts, off-turn decisions, every game, and decisions
that never depend on the hidden information."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from ice_envs.agents.mcts import MCTSAgent, _ln_fixed, _Node, ucb_score
from ice_envs.agents.search import simulator_for
from ice_envs.core.agent import PlayerView, make_view
from ice_envs.core.registry import get_spec
from tests.agents.test_greedy import TABLES, decide, decision_points

#: A tiny budget: enough to exercise every part, quick in every game.
TINY = {"sims": 6, "depth": 6, "redeals": None}
#: The same with a pool of two re-deals and the three best root actions by greedy value.
TINY_POOLED = {"sims": 6, "depth": 6, "redeals": 2, "width": 3}
#: The flat search: heuristic rollouts of the root actions, successive halving, common random numbers.
TINY_FLAT = {"sims": 8, "depth": 6, "redeals": 2, "width": 3, "tree": "flat", "rollout": "heuristic"}


def test_ucb_score_is_the_integer_form_of_ucb1():
    unit, c = 60, Fraction(7, 10)
    for reward, visits, available in [(30, 1, 1), (45, 3, 7), (600, 20, 400), (0, 5, 9)]:
        got = ucb_score(reward, visits, available, unit, c * c)
        want = reward / (unit * visits) + 0.7 * math.sqrt(math.log(available) / visits)
        assert isinstance(got, int) and abs(got / 2**24 - want) < 1e-6
    assert _ln_fixed(1) == 0 and _ln_fixed(2) == math.floor(math.log(2) * 2**48)  # the decimal table agrees


def test_final_choice_is_most_visited_then_best_mean_then_lowest_id():
    root = _Node(0)
    for action, (visits, reward) in {4: (5, 3), 2: (5, 3), 7: (5, 4), 9: (4, 4)}.items():
        child = root.children[(0, action)] = _Node(0)
        child.visits, child.reward = visits, reward
    assert MCTSAgent._final_choice(root, [2, 4, 7, 9]) == 7
    root.children[(0, 7)].reward = 3
    assert MCTSAgent._final_choice(root, [2, 4, 7, 9]) == 2
    assert MCTSAgent._final_choice(_Node(0), [3, 5]) == 3  # nothing visited


def test_options_are_checked():
    for bad in [{"sims": 0}, {"sims": 2, "seconds": 1.0}, {"seconds": 0}, {"rollout": "smart"}, {"c": 0}, {"depth": 0}]:
        with pytest.raises(ValueError):
            MCTSAgent("cardiceo", 2, **bad)


def _cardiceo_win():
    from ice_envs.cardiceo import rules

    # seat 0 holds one 7 and the d12 shows 7: discarding it wins; ending the turn instead hands the dice on
    return rules.new_game(
        rules.CardiceoConfig(num_players=2, hand_size=5),
        np.random.default_rng(0),
        hands=[[7], [1, 2, 3, 4, 5]],
        dice=[1, 6, 7],
    )


def test_mcts_takes_the_immediate_win_and_spends_its_budget():
    from ice_envs.cardiceo import rules

    agent = MCTSAgent("cardiceo", 2, seed=0, sims=40)
    action = decide(agent, "cardiceo", _cardiceo_win())
    assert rules.subset_total(_cardiceo_win(), action) == 7
    assert agent.last_iterations == 40 and sum(v for v, _ in agent.last_search.values()) == 40
    unit = agent.unit
    assert unit == simulator_for("cardiceo", 2).unit * 2  # win shares times 2 * (n - 1): graded leaves are whole
    visits, reward = agent.last_search[action]
    assert reward == visits * unit  # every iteration through the winning discard won


def test_seconds_budget_runs_at_least_one_iteration():
    agent = MCTSAgent("cardiceo", 2, seed=0, seconds=0.02)
    decide(agent, "cardiceo", _cardiceo_win())
    assert agent.last_iterations >= 1


@pytest.mark.parametrize("rollout", ["greedy", "heuristic"])
def test_greedy_and_heuristic_rollouts(rollout):
    agent = MCTSAgent("cardiceo", 2, seed=0, sims=12, rollout=rollout)
    action = decide(agent, "cardiceo", _cardiceo_win())
    assert action != 7  # the win, not the end of the turn


def test_off_turn_decision_of_the_knight():
    from ice_envs.cubemelt import rules

    # seat 0 rolls four Sad faces: they go to seat 1, whose Knight converts one lost Melt (its choice)
    cfg = rules.CubeMeltConfig(num_players=2, expansion=True)
    face = {"h": rules.HEART, "x": rules.SAD}
    state = rules.new_game(
        cfg, np.random.default_rng(0), abilities=["cat", "knight"], dice=[face[c] for c in "xxxxhh"], love=[0, 19]
    )
    rules.apply(state, rules.STOP, np.random.default_rng(0))
    assert state.phase == rules.PHASE_CHOOSE and state.decider == 1 and state.active == 0
    agent = MCTSAgent("cubemelt", 2, seed=0, sims=16)
    assert decide(agent, "cubemelt", state) == rules.CHOOSE_LOVE  # 19 + 1 Love wins at once


def test_depth_capped_rollouts_are_scored_by_the_leaders_greedy_value():
    from ice_envs.cubemelt import rules

    sim = simulator_for("cubemelt", 3)
    state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(0), love=[5, 9, 9])
    assert sim.leader_rewards(state) == [0, 3, 3]  # two leaders share the win: units of 1/6


@pytest.mark.parametrize("budget", [TINY, TINY_POOLED, TINY_FLAT], ids=["fresh", "pooled", "flat"])
@pytest.mark.parametrize(("game", "n", "options"), TABLES, ids=[t[0] for t in TABLES])
def test_mcts_never_looks_at_the_hidden_information(game, n, options, budget):
    """Two re-deals of the hidden state (views built with different generators) give the same decision and
    the same search statistics, for a fixed seed; the decision is legal."""
    for env in decision_points(game, n, options, seed=5, count=2):
        seat = env.current_seat
        obs = {"action_mask": env.action_mask()}
        first = make_view(env, seat, np.random.default_rng(1))
        second = make_view(env, seat, np.random.default_rng(2))
        a, b = MCTSAgent(game, n, seed=3, **budget), MCTSAgent(game, n, seed=3, **budget)
        assert a.act(obs, first) == b.act(obs, second)
        assert a.last_search == b.last_search
        assert obs["action_mask"][a.act(obs, first)]


def test_mcts_is_reproducible_and_reads_the_seat_from_the_view():
    env = next(decision_points("tip_of_the_diceberg", 3, {"num_rounds": 1}, seed=8, count=1))
    view = make_view(env, env.current_seat, np.random.default_rng(0))
    obs = {"action_mask": env.action_mask()}
    first = MCTSAgent("tip_of_the_diceberg", seed=4, **TINY)  # no player count: taken from the view
    second = MCTSAgent("tip_of_the_diceberg", seed=4, **TINY)
    assert first.act(obs, view) == second.act(obs, view) and first.last_search == second.last_search


def test_single_legal_action_is_played_at_once():
    agent = MCTSAgent("cardiceo", 2, seed=0, sims=5)
    mask = np.zeros(10, dtype=np.int8)
    mask[3] = 1
    view = PlayerView("cardiceo", 0, 2, _cardiceo_win(), [3])
    assert agent.act({"action_mask": mask}, view) == 3 and agent.last_iterations == 0


def test_redeals_pool_cycles_through_its_redeals():
    """``redeals=K`` draws at most K re-deals a decision and cycles through them; ``None`` draws one an iteration."""
    env = next(decision_points("cardiceo", 3, {"hand_size": 5}, seed=5, count=1))
    obs = {"action_mask": env.action_mask()}
    view = make_view(env, env.current_seat, np.random.default_rng(1))
    pooled = MCTSAgent("cardiceo", 3, seed=0, sims=20, depth=4, redeals=3)
    pooled.act(obs, view)
    assert pooled.last_iterations == 20 and pooled.last_deals == 3
    fresh = MCTSAgent("cardiceo", 3, seed=0, sims=20, depth=4, redeals=None)
    fresh.act(obs, view)
    assert fresh.last_deals == 20


def test_one_redeal_serves_a_game_without_hidden_information():
    from ice_envs.cubemelt import rules

    state = rules.new_game(rules.CubeMeltConfig(num_players=2), np.random.default_rng(0))
    agent = MCTSAgent("cubemelt", 2, seed=0, sims=10, depth=4, redeals=8)
    decide(agent, "cubemelt", state)
    assert agent.last_deals == 1  # CubeMelt is public: the second re-deal equals the first


def test_width_keeps_the_best_root_actions_by_greedy_value():
    """``width=1`` plays the greedy agent's action (CubeMelt: public, exact expectations); ``width=K``
    searches only the K best root actions by greedy value and expands them best first."""
    from ice_envs.agents.greedy import GreedyAgent
    from ice_envs.cubemelt import rules

    for seed in range(3):
        state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(seed))
        greedy = decide(GreedyAgent("cubemelt", 3, seed=0), "cubemelt", state)
        assert decide(MCTSAgent("cubemelt", 3, seed=1, sims=4, depth=2, width=1), "cubemelt", state) == greedy
        wide = MCTSAgent("cubemelt", 3, seed=1, sims=5, depth=2, width=5)
        decide(wide, "cubemelt", state)
        assert len(wide.last_search) == 5 and all(visits == 1 for visits, _ in wide.last_search.values())
        assert greedy in wide.last_search


def test_new_options_are_checked():
    for bad in [{"redeals": 0}, {"redeals": 1.5}, {"width": 0}, {"width": True}]:
        with pytest.raises(ValueError):
            MCTSAgent("cardiceo", 2, **bad)


def test_tree_option_is_checked():
    with pytest.raises(ValueError, match="tree must be one of"):
        MCTSAgent("cardiceo", 2, tree="deep")
    with pytest.raises(ValueError, match="not seconds"):
        MCTSAgent("cardiceo", 2, tree="flat", seconds=1.0)
    for margin in ("1/0", "x", -1):
        with pytest.raises(ValueError, match="margin must be"):
            MCTSAgent("cardiceo", 2, tree="flat", margin=margin)


@pytest.mark.parametrize("rollout", ["random", "greedy", "heuristic"])
def test_flat_search_takes_the_immediate_win(rollout):
    from ice_envs.cardiceo import rules

    agent = MCTSAgent("cardiceo", 2, seed=0, sims=12, tree="flat", rollout=rollout)
    action = decide(agent, "cardiceo", _cardiceo_win())
    assert rules.subset_total(_cardiceo_win(), action) == 7
    unit = agent.unit
    visits, reward = agent.last_search[action]
    assert visits >= 1 and reward == visits * unit  # every rollout after the winning discard won


def test_flat_search_halves_the_candidates_on_common_samples():
    """K candidates: ceil(log2 K) rounds; round r rolls each survivor out sims // (survivors * rounds)
    times on the same samples, keeps the better half and the base action (the heuristic's), which so
    has the most visits."""
    from ice_envs.cubemelt import rules

    for seed in range(3):
        state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(seed))
        heuristic = decide(get_spec("cubemelt").heuristic_class()(0), "cubemelt", state)
        agent = MCTSAgent("cubemelt", 3, seed=0, sims=60, tree="flat", rollout="heuristic", width=4, depth=3)
        decide(agent, "cubemelt", state)
        visits = {a: v for a, (v, _) in agent.last_search.items()}
        k = len(visits)  # 4, or 5 when the heuristic's action is not among the 4 best by greedy value
        rounds = (k - 1).bit_length()
        assert min(visits.values()) == 60 // (k * rounds)  # the first round's losers
        assert visits[heuristic] == max(visits.values())
        assert len(set(visits.values())) == rounds  # one count per round reached
        assert agent.last_iterations == sum(visits.values())


def test_flat_search_always_weighs_the_base_action():
    """The rollout policy's own choice is a candidate even when ``width`` leaves it out."""
    from ice_envs.agents.greedy import GreedyAgent
    from ice_envs.cubemelt import rules

    for seed in range(4):
        state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(seed))
        best_greedy = decide(GreedyAgent("cubemelt", 3, seed=0), "cubemelt", state)
        heuristic = decide(get_spec("cubemelt").heuristic_class()(0), "cubemelt", state)
        agent = MCTSAgent("cubemelt", 3, seed=1, sims=4, tree="flat", rollout="heuristic", width=1, depth=2)
        decide(agent, "cubemelt", state)
        assert set(agent.last_search) == {best_greedy, heuristic}


def test_flat_choice_keeps_the_base_action_unless_beaten_by_the_margin():
    """Best reward sum, ties to the earliest survivor; a challenger replaces the base action only if its
    paired advantage is more than ``margin`` standard errors."""
    stats = {5: [4, 10, 0, 0], 2: [4, 10, 0, 0], 9: [4, 8, -2, 4]}
    assert MCTSAgent._flat_choice([5, 2, 9], stats, 5, Fraction(0)) == 5
    assert MCTSAgent._flat_choice([2, 9], stats, None, Fraction(0)) == 2
    stats[9] = [4, 11, 1, 1]  # one sample better than the base by 1, the others level: S = 1, Q = 1
    assert MCTSAgent._flat_choice([5, 2, 9], stats, 5, Fraction(0)) == 9
    assert MCTSAgent._flat_choice([5, 2, 9], stats, 5, Fraction(1, 2)) == 9  # 1 > 1/4
    assert MCTSAgent._flat_choice([5, 2, 9], stats, 5, Fraction(1)) == 5  # 1 > 1 fails
    stats[9] = [4, 14, 4, 4]  # better by 1 on all four samples: S = 4, Q = 4; S**2 > margin**2 * Q iff margin < 2
    assert MCTSAgent._flat_choice([5, 2, 9], stats, 5, Fraction(19, 10)) == 9
    assert MCTSAgent._flat_choice([5, 2, 9], stats, 5, Fraction(2)) == 5


def test_reward_win_counts_a_shared_win_as_a_whole_win():
    from ice_envs.cubemelt import rules

    state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(0), love=[5, 9, 9])
    sim = simulator_for("cubemelt", 3)
    share, win = (MCTSAgent("cubemelt", 3, seed=0, reward=r, leaf="leader") for r in ("share", "win"))
    # no rollout budget left: the two leaders share the win (units of 1/6, times 2 * (n - 1) = 4)
    assert share.unit == 24 and sim.unit == 6
    assert share._rollout(sim.copy(state), sim.max_decisions) == [0, 12, 12]
    assert win._rollout(sim.copy(state), sim.max_decisions) == [0, 24, 24]
    with pytest.raises(ValueError, match="reward must be one of"):
        MCTSAgent("cubemelt", 3, reward="score")


def test_distinct_width_keeps_one_action_per_greedy_value():
    """CubeMelt re-rolls that keep the same faces have the same exact expected value: ``distinct`` keeps
    the lowest id of each and fills ``width`` with the next values."""
    from ice_envs.agents.greedy import GreedyAgent
    from ice_envs.cubemelt import rules

    state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(0))
    sim = simulator_for("cubemelt", 3)
    legal = sim.legal_actions(state)
    view = PlayerView("cubemelt", sim.deciding_seat(state), 3, state, legal)
    values = GreedyAgent("cubemelt", 3, seed=0).action_values(view, legal)
    kept = MCTSAgent("cubemelt", 3, seed=0, width=5, distinct=True).root_order(view, legal)
    assert len(kept) == 5 and len({values[a] for a in kept}) == 5
    assert kept == [min(a for a in legal if values[a] == values[k]) for k in kept]
    assert [values[a] for a in kept] == sorted(set(values.values()), reverse=True)[:5]


def test_flat_options_parse_from_a_spec():
    from ice_envs.agents.spec import load_agent
    from ice_envs.core.errors import AgentSpecError

    spec = "mcts:tree=flat,rollout=heuristic,sims=30,width=3,distinct=yes,margin=3/2,reward=win"
    agent = load_agent(spec, "cubemelt", seed=0, num_players=3)
    assert (agent.tree, agent.width, agent.distinct, agent.margin, agent.reward) == (
        "flat",
        3,
        True,
        Fraction(3, 2),
        "win",
    )
    for bad, message in [
        ("mcts:tree=deep", "tree='deep' must be one of ucb, flat"),
        ("mcts:distinct=1", "distinct='1' must be yes or no"),
        ("mcts:margin=-1", "margin='-1' must be a number >= 0"),
        ("mcts:reward=score", "reward='score' must be one of share, win"),
        ("mcts:tree=flat,seconds=1", "not seconds"),
    ]:
        with pytest.raises(AgentSpecError, match=message):
            load_agent(bad, "cubemelt", seed=0, num_players=3)


def test_flat_search_with_one_candidate_rolls_nothing_out():
    """``width=1`` where the heuristic's action is also the best greedy one: nothing to compare."""
    from ice_envs.agents.greedy import GreedyAgent
    from ice_envs.cubemelt import rules

    for seed in range(8):
        state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(seed))
        best_greedy = decide(GreedyAgent("cubemelt", 3, seed=0), "cubemelt", state)
        heuristic = decide(get_spec("cubemelt").heuristic_class()(0), "cubemelt", state)
        if best_greedy == heuristic:
            agent = MCTSAgent("cubemelt", 3, seed=1, sims=50, tree="flat", rollout="heuristic", width=1)
            assert decide(agent, "cubemelt", state) == heuristic
            assert agent.last_iterations == 0 and agent.last_search == {heuristic: (0, 0)}
            return
    pytest.fail("no deal where the heuristic plays the best greedy action")
