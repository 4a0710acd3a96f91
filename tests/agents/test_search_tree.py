"""The search tree done right: children keyed by (deciding seat, move), chance outcomes apart, graded
leaves, a root never wider than its budget, and the heuristic's move guarded."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from ice_envs.agents.mcts import AUTO_WIDTH_VISITS, MCTSAgent, _Draws, _Node
from ice_envs.agents.search import simulator_for
from ice_envs.core.agent import make_view
from ice_envs.core.registry import get_spec
from tests.agents.test_greedy import decide, decision_points


def _walk(node: _Node):
    """Every ``(outcome key, (seat, action), child)`` of the tree below ``node``."""
    for outcome, children in node.branches.items():
        for key, child in children.items():
            yield outcome, key, child
            yield from _walk(child)


def _search(game: str, n: int, options: dict, seed: int, **kwargs) -> MCTSAgent:
    env = next(decision_points(game, n, options, seed=seed, count=1))
    agent = MCTSAgent(game, n, seed=0, **kwargs)
    agent.act({"action_mask": env.action_mask()}, make_view(env, env.current_seat, np.random.default_rng(0)))
    return agent


@pytest.mark.parametrize(
    ("game", "n", "options"),
    [("tip_of_the_diceberg", 4, {"num_rounds": 1}), ("cubemelt", 2, {"expansion": True}), ("cardiceo", 3, {})],
)
def test_every_node_is_credited_to_the_seat_that_decided_there(game, n, options):
    agent = _search(game, n, options, seed=3, sims=120, redeals=4, depth=12)
    nodes = list(_walk(agent.last_root))
    assert len(nodes) > 10
    assert all(child.mover == seat for _, (seat, _), child in nodes)
    assert all(child.visits >= 1 and 0 <= child.reward <= child.visits * agent.unit for _, _, child in nodes)


class _Spy(MCTSAgent):
    """Records, per child table, the deciding seats and legal sets met there."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.met: dict[int, set] = {}

    def _select(self, children, mover, legal):
        self.met.setdefault(id(children), set()).add((mover, tuple(legal)))
        return super()._select(children, mover, legal)


def test_a_reroll_leads_to_the_children_of_its_outcome():
    """CubeMelt is public, so the only thing that changes a situation is the dice: below each outcome of a
    re-roll the same deciding seat and the same legal moves are met every time (keyed by move id alone,
    a re-roll would land on children made for other faces)."""
    from ice_envs.cubemelt import rules

    for seed in range(3):
        state = rules.new_game(rules.CubeMeltConfig(num_players=2, expansion=True), np.random.default_rng(seed))
        spy = _Spy("cubemelt", 2, seed=seed, sims=200, depth=6, width=3)
        decide(spy, "cubemelt", state)
        assert spy.met and all(len(situations) == 1 for situations in spy.met.values())
        outcomes = [outcome for outcome, _, _ in _walk(spy.last_root)]
        assert any(outcome != () for outcome in outcomes)  # re-rolls split the tree


def test_draws_record_the_outcome_and_change_nothing():
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    draws = _Draws(a)
    assert draws.integers(0, 6) == b.integers(0, 6)
    assert list(draws.permutation(5)) == list(b.permutation(5))
    arr = [1, 2, 3]
    draws.shuffle(arr)
    assert len(draws.drawn) == 3 and draws.drawn[1][0] == "permutation" and draws.drawn[2] == ("shuffle", tuple(arr))
    assert hash(tuple(draws.drawn)) is not None


def test_rank_leaf_is_graded():
    """An unfinished rollout: the leader 1, the last 0, ties halved, and the seats' values sum to n(n-1)/2 wins."""
    from ice_envs.cubemelt import rules

    sim = simulator_for("cubemelt", 3)
    agent = MCTSAgent("cubemelt", 3, seed=0)
    state = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(0), love=[2, 9, 15])
    values = [sim.value(state, p) for p in range(3)]
    ranks = agent.rank_rewards(state)
    assert sum(ranks) == agent.unit * 3 // 2
    order = sorted(range(3), key=lambda p: values[p])
    assert [ranks[p] for p in order] == sorted(ranks)
    if len(set(values)) == 3:
        assert ranks[order[-1]] == agent.unit and ranks[order[0]] == 0 and ranks[order[1]] == agent.unit // 2
    tied = rules.new_game(rules.CubeMeltConfig(num_players=3), np.random.default_rng(0), love=[9, 9, 9])
    tied_values = [sim.value(tied, p) for p in range(3)]
    if len(set(tied_values)) == 1:
        assert agent.rank_rewards(tied) == [agent.unit // 2] * 3


def test_depth_capped_heuristic_rollouts_tell_root_moves_apart():
    """A Tip seat behind the leader: with graded leaves a depth-capped heuristic rollout scores its root moves
    differently; winner-takes-all (``leaf=leader``) gives it 0 after every move."""
    env = next(decision_points("tip_of_the_diceberg", 4, {}, seed=2, count=1, every=60))
    obs = {"action_mask": env.action_mask()}
    view = make_view(env, env.current_seat, np.random.default_rng(0))
    means = {}
    for leaf in ("rank", "margin", "leader"):
        agent = MCTSAgent("tip_of_the_diceberg", 4, seed=0, sims=48, depth=6, rollout="heuristic", redeals=4, leaf=leaf)
        agent.act(obs, view)
        means[leaf] = {Fraction(r, v) for v, r in agent.last_search.values() if v}
    assert len(means["rank"]) > 1
    assert means["leader"] == {0}
    assert all(0 <= m <= agent.unit for m in means["margin"])


def test_the_root_is_never_wider_than_its_budget():
    """Icebergs offers about a hundred moves: the tree keeps ``sims // 4`` of them (best greedy values), so
    every root move gets visits; the flat search keeps ``sims // 2``; an explicit width is capped at sims."""
    env = next(decision_points("icebergs", 4, {}, seed=1, count=1, every=3))
    legal = env.legal_actions()
    assert len(legal) > 25
    obs = {"action_mask": env.action_mask()}
    view = make_view(env, env.current_seat, np.random.default_rng(0))
    tree = MCTSAgent("icebergs", 4, seed=0, sims=25, depth=2)
    tree.act(obs, view)
    assert len(tree.last_search) == 25 // AUTO_WIDTH_VISITS
    assert sum(v for v, _ in tree.last_search.values()) == 25 and min(v for v, _ in tree.last_search.values()) >= 1
    flat = MCTSAgent("icebergs", 4, seed=0, sims=8, depth=2, tree="flat", rollout="greedy")
    flat.act(obs, view)
    assert len(flat.last_search) <= 8 // 2 + 1  # the pruned root and the rollout policy's own move
    assert MCTSAgent("icebergs", 4, sims=10, width=50).root_width() == 10


def test_guard_keeps_the_heuristic_move_unless_beaten_by_the_margin():
    def node(visits, reward, squares):
        n = _Node(0)
        n.visits, n.reward, n.squares = visits, reward, squares
        return n

    # the challenger wins 8 of 10, the guarded move 5 of 10 (rewards 0 or 1)
    children = {1: node(10, 8, 8), 2: node(10, 5, 5)}
    assert MCTSAgent._guard_choice(children, 1, 2, Fraction(0)) == 1
    assert MCTSAgent._guard_choice(children, 1, 2, Fraction(1)) == 1  # 0.3 against an error of about 0.21
    assert MCTSAgent._guard_choice(children, 1, 2, Fraction(2)) == 2
    children[1] = node(10, 4, 4)  # worse: kept
    assert MCTSAgent._guard_choice(children, 1, 2, Fraction(0)) == 2
    assert MCTSAgent._guard_choice({1: node(1, 1, 1), 2: node(10, 5, 5)}, 1, 2, Fraction(0)) == 2  # one visit


def test_guarded_search_plays_the_heuristic_move_under_a_high_margin():
    for seed in range(3):
        env = next(decision_points("tip_of_the_diceberg", 3, {"num_rounds": 1}, seed=seed, count=1))
        obs = {"action_mask": env.action_mask()}
        view = make_view(env, env.current_seat, np.random.default_rng(0))
        heuristic = get_spec("tip_of_the_diceberg").heuristic_class()(0)
        agent = MCTSAgent("tip_of_the_diceberg", 3, seed=0, sims=12, depth=3, guard=True, margin=1000)
        agent._guard_agent = heuristic  # the same heuristic object: its move, on the same view
        expected = int(get_spec("tip_of_the_diceberg").heuristic_class()(0).act(obs, view))
        assert agent.act(obs, view) == expected
        assert expected in agent.last_search


def test_guard_and_leaf_options_are_checked():
    from ice_envs.agents.spec import load_agent
    from ice_envs.core.errors import AgentSpecError

    agent = load_agent("mcts:guard=yes,margin=2,leaf=leader,sims=8", "cardiceo", seed=0, num_players=2)
    assert agent.guard and agent.leaf == "leader" and agent.margin == 2
    for bad, message in [
        ("mcts:leaf=score", "leaf='score' must be one of rank, margin, leader"),
        ("mcts:guard=1", "guard='1' must be yes or no"),
        ("mcts:guard=yes,tree=flat", "guard is for tree=ucb"),
    ]:
        with pytest.raises(AgentSpecError, match=message):
            load_agent(bad, "cardiceo", seed=0, num_players=2)


def test_whole_moves_stop_at_chance_or_the_next_seat():
    """Tip of the Diceberg: a meld is built item by item; its whole moves carry the seat's decisions up to
    the next chance draw or the next seat's turn, and nothing else."""
    from ice_envs.agents.mcts import WHOLE_MOVE_LENGTH, WHOLE_MOVES_MAX, _Draws

    sim = simulator_for("tip_of_the_diceberg", 4)
    agent = MCTSAgent("tip_of_the_diceberg", 4, seed=0, tree="flat", whole=True)
    longest = 0
    for env in decision_points("tip_of_the_diceberg", 4, {}, seed=1, count=3, every=7):
        seat = env.current_seat
        moves = agent.whole_moves(sim.copy(env.game_state), seat)
        assert len(moves) < WHOLE_MOVES_MAX // 2  # far below the cap: every move is complete
        assert len({m for m, _ in moves}) == len(moves) and {m[0] for m, _ in moves} == set(env.legal_actions())
        for actions, _ in moves[:40]:
            state = sim.copy(env.game_state)
            for i, a in enumerate(actions):
                assert sim.deciding_seat(state) == seat and a in sim.legal_actions(state)
                draws = _Draws(np.random.default_rng(0))
                sim.apply(state, a, draws)
                last = i == len(actions) - 1
                assert last or not draws.drawn  # chance only at a move's end
            ended = draws.drawn or sim.is_over(state) or sim.deciding_seat(state) != seat
            assert ended or len(actions) == WHOLE_MOVE_LENGTH
            longest = max(longest, len(actions))
    assert longest > 1


def test_whole_move_search_plays_the_rest_of_its_move_without_searching():
    env = next(decision_points("tip_of_the_diceberg", 4, {}, seed=1, count=1, every=14))
    agent = MCTSAgent("tip_of_the_diceberg", 4, seed=0, sims=6, depth=4, tree="flat", rollout="heuristic", whole=True)
    seat = env.current_seat
    first = agent.act({"action_mask": env.action_mask()}, make_view(env, seat, np.random.default_rng(0)))
    plan = list(agent._plan)
    assert all(isinstance(k, tuple) for k in agent.last_search)
    env.step(first)
    searched = agent.last_iterations
    for step in plan:
        if env.current_seat != seat:
            break
        agent.last_iterations = -1
        action = agent.act({"action_mask": env.action_mask()}, make_view(env, seat, np.random.default_rng(0)))
        assert action == step and agent.last_iterations == -1  # played from the plan, no search
        env.step(action)
    assert searched > 0
    with pytest.raises(ValueError, match="whole is for tree=flat"):
        MCTSAgent("tip_of_the_diceberg", 4, whole=True)
