"""The greedy agent and the games' greedy values: the rule each game's value plays, exact expectations,
ties, the simulator it searches with, and decisions that never depend on the hidden information."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.greedy import GreedyAgent, best_action
from ice_envs.agents.search import Simulator, exact, reward_unit, same_state, simulator_for
from ice_envs.core.agent import PlayerView, make_view
from ice_envs.core.registry import get_spec
from ice_envs.core.testing import ScriptedRng

#: The five games at a small table, with short options.
TABLES = (
    ("cardiceo", 3, {"hand_size": 5}),
    ("cubemelt", 2, {"expansion": True}),
    ("iceberg_rummy", 3, {"single_hand": True}),
    ("tip_of_the_diceberg", 3, {"num_rounds": 1}),
    ("icebergs", 2, {}),
)


def decide(agent: GreedyAgent | object, game: str, state: object) -> int:
    """The agent's action for the deciding seat of the engine ``state`` (checked legal)."""
    n = state.config.num_players
    sim = simulator_for(game, n)
    legal = sim.legal_actions(state)
    seat = sim.deciding_seat(state)
    view = PlayerView(game, seat, n, sim.copy(state), legal)
    action = agent.act({"action_mask": sim.mask(legal)}, view)
    assert action in legal
    return action


def decision_points(game: str, n: int, options: dict, seed: int, every: int = 5, count: int = 3):
    """Yield an env at ``count`` decision points with a real choice, reached by random play."""
    env = ice_envs.make(game, raw=True, num_players=n, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    found = 0
    for step in range(2000):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            return
        legal = env.legal_actions()
        if len(legal) > 1 and step % every == every - 1:
            yield env
            found += 1
            if found == count:
                return
        env.step(int(legal[rng.integers(len(legal))]))


# ---------------------------------------------------------------------------- machinery
@pytest.mark.parametrize("game", [t[0] for t in TABLES])
def test_every_game_names_its_greedy_value_and_it_is_exact(game):
    value = get_spec(game).greedy_function()
    assert callable(value)
    env = ice_envs.make(game, raw=True, num_players=3 if game == "tip_of_the_diceberg" else 2)
    env.reset(seed=1)
    for seat in range(env.num_players):
        v = value(env.game_state, seat)
        assert isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def test_best_action_takes_the_highest_value_and_breaks_ties_by_the_lowest_id():
    assert best_action({5: Fraction(1, 3), 2: Fraction(2, 6), 9: Fraction(1, 4)}) == 2
    assert best_action({7: 1, 3: 2, 4: 2}) == 3
    with pytest.raises(ValueError):
        best_action({})


def test_exact_numbers_and_reward_units():
    assert exact(3) == 3 and exact(np.int64(4)) == 4 and exact(0.5) == Fraction(1, 2)
    assert exact(Fraction(2, 3)) == Fraction(2, 3)
    assert [reward_unit(n) for n in (1, 2, 3, 4, 5, 6)] == [1, 2, 6, 12, 60, 60]


def test_simulator_enumerates_a_reroll_exactly():
    from ice_envs.cardiceo import rules

    state = rules.new_game(
        rules.CardiceoConfig(num_players=2), np.random.default_rng(0), hands=[[1, 2], [14, 15]], dice=[4, 8, 12]
    )
    state.current, state.phase = 0, rules.PHASE_NO_PLAY_CHOICE
    outcomes = simulator_for("cardiceo", 2).outcomes(state, rules.REROLL_ALL, limit=1000)
    assert outcomes is not None and len(outcomes) == 4 * 8 * 12
    assert sum(p for p, _ in outcomes) == 1
    assert simulator_for("cardiceo", 2).outcomes(state, rules.REROLL_ALL, limit=100) is None  # over the limit


def test_simulator_takes_a_draw_from_the_state_as_one_outcome_and_never_enumerates_shuffles():
    from ice_envs.core.chance import ChanceLimit, ScriptedDraws
    from ice_envs.iceberg_rummy import rules

    env = ice_envs.make("iceberg_rummy", raw=True, num_players=2)
    env.reset(seed=3)
    sim = simulator_for("iceberg_rummy", 2)
    state = env.game_state
    discard = next(a for a in sim.legal_actions(state) if rules.DISCARD_BASE <= a < rules.COMMIT_NEW)
    ((prob, after),) = sim.outcomes(state, discard, 1000)  # the next draw is the (re-dealt) stock's top card
    assert prob == 1 and after.current == 1 and state.current == 0
    with pytest.raises(ChanceLimit):
        ScriptedDraws([], 100).permutation(5)
    with pytest.raises(ChanceLimit):
        ScriptedDraws([], 100).integers(0, 6, size=3)


@pytest.mark.parametrize(("game", "n", "options"), TABLES, ids=[t[0] for t in TABLES])
def test_copies_are_independent_of_the_original(game, n, options):
    import copy

    env = next(decision_points(game, n, options, seed=2, count=1))
    sim = simulator_for(game, n)
    original = env.game_state
    snapshot = copy.deepcopy(original)
    state = sim.copy(original)
    assert same_state(state, original)
    rng = np.random.default_rng(0)
    for _ in range(30):
        if sim.is_over(state):
            break
        legal = sim.legal_actions(state)
        sim.apply(state, legal[int(rng.integers(len(legal)))], rng)
    assert same_state(original, snapshot) and not same_state(state, original)


def test_same_state_compares_values():
    env = ice_envs.make("cardiceo", raw=True, num_players=2)
    env.reset(seed=0)
    s = env.game_state
    t = Simulator.copy(s)
    assert t is not s and same_state(s, t) and t.config is s.config
    t.hands[0, 0] += 1
    assert not same_state(s, t)


# ---------------------------------------------------------------------------- Cardiceo
def test_cardiceo_discards_with_the_fewest_dice_then_the_highest_card():
    from ice_envs.cardiceo import rules

    # d4=3, d8=5, d12=8: the 3, the 5 and the 8 go with one die each, the 13 needs the d8 and the d12
    state = rules.new_game(
        rules.CardiceoConfig(num_players=2),
        np.random.default_rng(0),
        hands=[[1, 3, 5, 8, 13], [14, 15, 14, 15]],
        dice=[3, 5, 8],
    )
    assert decide(GreedyAgent("cardiceo", 2, seed=0), "cardiceo", state) == rules.SUBSETS.index(
        (2,)
    )  # the 8 by the d12


def test_cardiceo_no_play_keeps_useful_middle_dice_and_rerolls_useless_ones():
    from ice_envs.cardiceo import rules

    def no_play(dice, hand):
        state = rules.new_game(
            rules.CardiceoConfig(num_players=2), np.random.default_rng(0), hands=[hand, [14, 15]], dice=dice
        )
        state.current, state.phase = 0, rules.PHASE_NO_PLAY_CHOICE
        state.used[:] = False
        return state

    agent = GreedyAgent("cardiceo", 2, seed=0)
    assert decide(agent, "cardiceo", no_play([1, 2, 3], [3, 9])) == rules.KEEP_DICE
    useless = no_play([4, 8, 12], [1, 2])
    assert decide(agent, "cardiceo", useless) == rules.REROLL_ALL
    # the re-roll is valued exactly: three free dice times the chance that a fresh roll discards a 1 or a 2
    values = agent.action_values(PlayerView("cardiceo", 0, 2, useless, [8, 9]), [8, 9])
    hits = sum(1 for roll in product(range(1, 5), range(1, 9), range(1, 13)) if rules.reachable_totals(roll) & {1, 2})
    from ice_envs.cardiceo.greedy import CARD, DIE

    assert values[rules.REROLL_ALL] == -2 * CARD - 3 + 3 * DIE * Fraction(hits, 384)
    # ... which is what playing every roll through the engine gives
    assert simulator_for("cardiceo", 2)._enumerated_value(useless, rules.REROLL_ALL, 0, 1000) == values[9]


# ---------------------------------------------------------------------------- CubeMelt
def _cubemelt(dice: str, **kw):
    from ice_envs.cubemelt import rules

    face = {"h": rules.HEART, "s": rules.STAR, "x": rules.SAD, "d": rules.DROOPING}
    rerolls = kw.pop("rerolls", 0)
    state = rules.new_game(
        rules.CubeMeltConfig(num_players=2), np.random.default_rng(0), dice=[face[c] for c in dice], **kw
    )
    state.rerolls = rerolls
    return state


@pytest.mark.parametrize("rerolls", [0, 1])  # the free re-roll; the paid one, after which the dice resolve at once
def test_cubemelt_values_a_reroll_by_its_exact_expected_score_difference(rerolls):
    from ice_envs.cubemelt import greedy, rules

    state = _cubemelt("hhsxdd", rerolls=rerolls)
    action = 0b110000  # re-roll the two Drooping dice
    got = GreedyAgent("cubemelt", 2, seed=0).action_values(
        PlayerView("cubemelt", 0, 2, state, [0, action]), [0, action]
    )
    brute = Fraction(0)
    for code in range(36):  # every roll of the two dice, as the engine draws it; the next turn's roll fixed
        after = state.copy()
        rules.apply(after, action, ScriptedRng([code, 0]))
        brute += Fraction(greedy.value(after, 0), 36)
    assert got[action] == brute
    stopped = state.copy()
    rules.apply(stopped, rules.STOP, ScriptedRng([0]))
    assert got[rules.STOP] == greedy.value(stopped, 0)


def test_cubemelt_stops_on_a_winning_roll_and_rerolls_a_gift_to_the_neighbour():
    from ice_envs.cubemelt import rules

    agent = GreedyAgent("cubemelt", 2, seed=0)
    # four Stars go to the neighbour, the two Hearts to the roller: 18 + 2 Love wins at once
    assert decide(agent, "cubemelt", _cubemelt("sssshh", love=[18, 0])) == rules.STOP
    # six Hearts would all go to the neighbour: anything is better than stopping
    assert decide(agent, "cubemelt", _cubemelt("hhhhhh")) != rules.STOP


# ---------------------------------------------------------------------------- Iceberg Rummy
def _rummy(hands: list[str], stock: str):
    from ice_envs.iceberg_rummy import rules

    cfg = rules.IcebergRummyConfig(num_players=len(hands), single_hand=True)
    return rules.new_game(
        cfg, np.random.default_rng(0), dealer=len(hands) - 1, hands=[h.split() for h in hands], stock=stock.split()
    )


def test_rummy_value_is_the_hand_settled_now():
    from ice_envs.iceberg_rummy import greedy, rules

    state = _rummy(["5H 6H 7H 9C", "2C 3D 4S 8D 10S QC KD"], "JD")
    penalty = rules.hand_penalty(state, 0)[0]
    assert greedy.value(state, 0) == int(state.totals[0]) - penalty


def test_rummy_builds_and_lays_the_meld_before_discarding():
    from ice_envs.iceberg_rummy import melds as M
    from ice_envs.iceberg_rummy import rules

    state = _rummy(["5H 6H 7H 9C", "2C 3D 4S 8D 10S QC KD"], "JD")
    agent = GreedyAgent("iceberg_rummy", 2, seed=0)
    laid = []
    for _ in range(20):
        action = decide(agent, "iceberg_rummy", state)
        if action == rules.COMMIT_NEW:
            laid.append(M.cards_text(tuple(state.selection)))
        if rules.DISCARD_BASE <= action < rules.COMMIT_NEW:
            break
        rules.apply(state, action, np.random.default_rng(0))
    assert laid == ["5H 6H 7H"]


# ---------------------------------------------------------------------------- Tip of the Diceberg
def test_tip_plays_the_largest_meld_rather_than_passing():
    from ice_envs.tip_of_the_diceberg import rules

    cfg = rules.DicebergConfig(num_players=3, main_cards=("R4", "D4", "T3", "C6"))
    state = rules.new_game(
        cfg,
        np.random.default_rng(0),
        start_player=0,
        hands=[["d8:5", "d8:6", "d8:7", "d20:1"], ["d10:8", "d10:7"], ["d10:6", "d10:5"]],
        dice=[[], [], []],
        pool=[],
    )
    agent = GreedyAgent("tip_of_the_diceberg", 3, seed=0)
    for _ in range(10):
        action = decide(agent, "tip_of_the_diceberg", state)
        assert action < rules.PASS  # it never passes with a meld in hand
        if action >= rules.COMMIT:
            played = sorted(rules.item_name(state, x) for x in state.selection)
            break
        rules.apply(state, action, np.random.default_rng(0))
    assert played == ["d8:5", "d8:6", "d8:7"]


# ---------------------------------------------------------------------------- Icebergs
def test_icebergs_sails_west_rather_than_ending_the_turn():
    from ice_envs.icebergs import rules
    from ice_envs.icebergs.hexmap import parse_map

    sea = parse_map("name: open\nspare_floes: 16\ngrid:\n" + "\n".join([". . . . . ."] * 5))
    ship = {"status": "at_sea", "space": sea.space(2, 3), "fuel": 8, "cargo": 0, "loaded": False}
    config = rules.IcebergsConfig(num_players=2, hexmap=sea)
    state = rules.new_game(
        config,
        ScriptedRng([4]),
        start_player=0,
        ships=[ship, {"status": "start"}],
        icebergs=[],
        floes=[],
        spare_floes=4,
    )
    agent = GreedyAgent("icebergs", 2, seed=0)
    for _ in range(4):  # a roll of 4 on open sea: four steps west, one column each
        action = decide(agent, "icebergs", state)
        assert action in (rules.DIRECTIONS.index("NW"), rules.DIRECTIONS.index("SW"), 6)
        rules.apply(state, action, ScriptedRng([3, 3, 3]))
        if state.status[0] != rules.AT_SEA:
            break
    assert state.status[0] == rules.ALASKA_LOADING or sea.coords(state.pos[0])[1] == 0


# ---------------------------------------------------------------------------- every game
@pytest.mark.parametrize(("game", "n", "options"), TABLES, ids=[t[0] for t in TABLES])
def test_greedy_never_looks_at_the_hidden_information(game, n, options):
    """Two re-deals of the hidden state (views built with different generators) give the same decision."""
    differ = 0
    for env in decision_points(game, n, options, seed=11):
        seat = env.current_seat
        obs = {"action_mask": env.action_mask()}
        first = make_view(env, seat, np.random.default_rng(1))
        second = make_view(env, seat, np.random.default_rng(2))
        differ += not same_state(first.state, second.state)
        for agent_seed in (0, 1):
            a = GreedyAgent(game, n, seed=agent_seed, samples=2).act(obs, first)
            b = GreedyAgent(game, n, seed=agent_seed, samples=2).act(obs, second)
            assert a == b and obs["action_mask"][a]
    if game in ("cardiceo", "iceberg_rummy", "tip_of_the_diceberg"):
        assert differ  # the re-deals really differed


def test_tip_redeals_depend_only_on_what_the_seat_knows():
    env = ice_envs.make("tip_of_the_diceberg", raw=True, num_players=3)
    env.reset(seed=4)
    sim = simulator_for("tip_of_the_diceberg", 3)
    first = env.resample_hidden(1, np.random.default_rng(1))
    second = env.resample_hidden(1, np.random.default_rng(2))
    assert not same_state(first, second)
    a = sim.determinize(first, 1, np.random.default_rng(9))
    b = sim.determinize(second, 1, np.random.default_rng(9))
    assert same_state(a, b)


def test_greedy_is_reproducible_from_its_seed_and_beats_random():
    from ice_envs.evaluation import tournament as ev

    def run():
        return ev.evaluate("cardiceo", 2, "greedy,random", games=16, seed=3, options={"hand_size": 5}, progress=False)

    (summary, results), (_, again) = run(), run()
    assert [r["win"] for r in results] == [r["win"] for r in again]
    assert summary["per_agent"][0]["win_rate"] > summary["per_agent"][1]["win_rate"]


@pytest.mark.parametrize("game", [t[0] for t in TABLES])
def test_the_simulator_seats_every_player_count_of_the_game(game):
    """A player count that only a variant seats (solo Icebergs: ``solo=True``) gets a simulator too."""
    for players in sorted({n for _, n, _ in get_spec(game).cases()}):
        assert simulator_for(game, players).num_players == players


def test_the_search_agents_play_solo_icebergs():
    """Greedy, the flat search and MCTS decide in a solo Icebergs game (the scratch env takes ``solo=True``)."""
    from ice_envs.agents import load_agent

    env = ice_envs.make("icebergs", raw=True, num_players=1, solo=True)
    env.reset(seed=3)
    for spec in ("greedy", "flat:rollouts=8", "mcts:sims=8"):
        agent = load_agent(spec, "icebergs", num_players=1, seed=0)
        state = env.game_state
        action = decide(agent, "icebergs", state)
        assert action in env.legal_actions()
