"""Flat Monte Carlo on the compiled engines: legal and reproducible decisions, common random numbers across the
candidate moves, decisions that never depend on the hidden information, strict options, and immediate wins found."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.agents.flat import Check, FlatMonteCarloAgent, _ranked, beats
from ice_envs.agents.search import reward_unit, same_state, simulator_for
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.core.agent import make_view
from ice_envs.core.compiled import CompiledEngine
from ice_envs.core.compiled_opponents import SeatPlayers
from ice_envs.core.compiled_players import compiled_player_names
from ice_envs.core.errors import AgentSpecError
from ice_envs.core.registry import built_in_games
from ice_envs.core.vector import engine_class
from tests.agents.test_greedy import _cubemelt, decide, decision_points
from tests.agents.test_mcts import _cardiceo_win

#: The tables whose compiled engines load positions.
TABLES = (
    ("cardiceo", 3, {"hand_size": 5}),
    ("cubemelt", 2, {"expansion": True}),
    ("iceberg_rummy", 3, {"single_hand": True}),
)
IDS = [t[0] for t in TABLES]
#: A small budget: every part runs, quickly.
SMALL = {"rollouts": 96, "redeals": 4, "rollout": "random"}


def _needs_compiled_heuristic(game: str) -> None:
    if "heuristic" not in compiled_player_names(game):
        pytest.skip(f"{game} has no compiled heuristic player yet (compiled players: {compiled_player_names(game)})")


def _play(game: str, n: int, options: dict, agent: FlatMonteCarloAgent, seed: int, decisions: int) -> list[int]:
    """Seat 0 played by ``agent``, the others at random, for ``decisions`` of the agent; its actions (checked legal)."""
    import ice_envs

    env = ice_envs.make(game, raw=True, num_players=n, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    chosen: list[int] = []
    while len(chosen) < decisions and not (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        seat = env.current_seat
        mask = env.action_mask()
        if seat == 0:
            action = agent.act({"action_mask": mask}, make_view(env, seat, rng))
            assert mask[action], f"{game}: flat chose illegal action {action}"
            chosen.append(action)
        else:
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(len(legal))])
        env.step(action)
    return chosen


# ---------------------------------------------------------------------------- legal, reproducible
@pytest.mark.parametrize(("game", "n", "options"), TABLES, ids=IDS)
def test_flat_plays_legal_moves_and_a_seed_gives_the_same_game(game, n, options):
    first = _play(game, n, options, FlatMonteCarloAgent(game, n, seed=3, **SMALL), seed=1, decisions=6)
    second = _play(game, n, options, FlatMonteCarloAgent(game, n, seed=3, **SMALL), seed=1, decisions=6)
    assert first and first == second


@pytest.mark.parametrize(("game", "n", "options"), TABLES, ids=IDS)
def test_flat_with_heuristic_rollouts_plays_legal_reproducible_moves(game, n, options):
    _needs_compiled_heuristic(game)
    budget = {**SMALL, "rollout": "heuristic"}
    first = _play(game, n, options, FlatMonteCarloAgent(game, n, seed=5, **budget), seed=2, decisions=4)
    second = _play(game, n, options, FlatMonteCarloAgent(game, n, seed=5, **budget), seed=2, decisions=4)
    assert first and first == second


# ---------------------------------------------------------------------------- common random numbers
@pytest.mark.parametrize(("game", "n", "options"), TABLES, ids=IDS)
def test_every_candidate_is_played_on_the_same_samples(game, n, options, monkeypatch):
    """Instrumented playouts: in every batch each candidate's rows hold the same positions, chance streams and
    rollout-player streams in the same order; the samples differ from each other and from round to round."""
    calls: list[tuple[np.ndarray, ...]] = []
    original = SeatPlayers.playout

    def recording(self, first_actions=None, **kw):
        e = self.engine
        calls.append((np.asarray(first_actions).copy(), e.state.copy(), e._rng[:, 0].copy(), self.prng[..., 0].copy()))
        return original(self, first_actions, **kw)

    monkeypatch.setattr(SeatPlayers, "playout", recording)
    env = next(decision_points(game, n, options, seed=5, count=1))
    agent = FlatMonteCarloAgent(game, n, seed=0, rollouts=64, redeals=3, rollout="random")
    agent.act({"action_mask": env.action_mask()}, make_view(env, env.current_seat, np.random.default_rng(0)))
    assert len(calls) == agent.last_rounds >= 1
    seen: set[int] = set()
    for first, states, chance, players in calls:
        candidates = list(dict.fromkeys(first.tolist()))
        rows = [np.flatnonzero(first == c) for c in candidates]
        assert len({len(r) for r in rows}) == 1 and len(candidates) > 1
        for r in rows[1:]:
            assert np.array_equal(states[r], states[rows[0]])
            assert np.array_equal(chance[r], chance[rows[0]])
            assert np.array_equal(players[r], players[rows[0]])
        streams = set(chance[rows[0]].tolist())
        assert len(streams) == len(rows[0])  # one stream per sample
        assert not streams & seen  # fresh samples every round
        seen |= streams
    # the last round checks the challenger against the base move, alone, on samples of their own
    assert set(calls[-1][0].tolist()) == {agent.last_check.challenger, agent.last_base}


# ---------------------------------------------------------------------------- information
@pytest.mark.parametrize(("game", "n", "options"), TABLES, ids=IDS)
def test_flat_never_looks_at_the_hidden_information(game, n, options):
    """Two views differing only in their re-deal of the hidden cards give the same decision and statistics."""
    for env in decision_points(game, n, options, seed=5, count=2):
        seat = env.current_seat
        obs = {"action_mask": env.action_mask()}
        first = make_view(env, seat, np.random.default_rng(1))
        second = make_view(env, seat, np.random.default_rng(2))
        if game != "cubemelt":  # CubeMelt hides nothing
            assert not same_state(first.state, second.state)
        a, b = FlatMonteCarloAgent(game, n, seed=3, **SMALL), FlatMonteCarloAgent(game, n, seed=3, **SMALL)
        assert a.act(obs, first) == b.act(obs, second)
        assert a.last_search == b.last_search and a.last_base == b.last_base


# ---------------------------------------------------------------------------- the search
def test_flat_takes_the_immediate_win_in_cardiceo():
    from ice_envs.cardiceo import rules

    agent = FlatMonteCarloAgent("cardiceo", 2, seed=0, **SMALL)
    action = decide(agent, "cardiceo", _cardiceo_win())
    assert rules.subset_total(_cardiceo_win(), action) == 7
    unit = reward_unit(2)
    samples, total = agent.last_search[action]
    assert samples >= 1 and total == samples * unit  # every rollout after the winning discard won


@pytest.mark.parametrize("rollout", ["random", "heuristic"])
def test_flat_stops_on_a_winning_roll_and_never_stops_on_a_gift_in_cubemelt(rollout):
    from ice_envs.cubemelt import rules

    if rollout == "heuristic":
        _needs_compiled_heuristic("cubemelt")
    agent = FlatMonteCarloAgent("cubemelt", 2, seed=0, rollouts=256, rollout=rollout)
    # four Stars go to the neighbour, the two Hearts to the roller: 18 + 2 Love wins at once
    assert decide(agent, "cubemelt", _cubemelt("sssshh", love=[18, 0])) == rules.STOP
    samples, total = agent.last_search[rules.STOP]
    assert total == samples * reward_unit(2)
    # six Hearts would all go to the neighbour, who then wins: anything is better than stopping
    assert decide(agent, "cubemelt", _cubemelt("hhhhhh", love=[0, 15])) != rules.STOP


def test_successive_halving_selects_a_challenger_and_checks_it_on_fresh_samples():
    """K candidates: the K - 1 challengers halved over ceil(log2(K - 1)) rounds of rollouts // rounds games each,
    then one round of the challenger and the base move alone; value=score sums the seat's final scores."""
    env = next(decision_points("cubemelt", 2, {"expansion": True}, seed=6, count=1))
    obs = {"action_mask": env.action_mask()}
    view = make_view(env, env.current_seat, np.random.default_rng(0))
    for value in ("win", "score"):
        agent = FlatMonteCarloAgent("cubemelt", 2, seed=1, rollouts=600, rollout="random", value=value, margin=0)
        action = agent.act(obs, view)
        samples = {a: s for a, (s, _) in agent.last_search.items()}
        k = len(samples)
        base, check = agent.last_base, agent.last_check
        assert k == int(obs["action_mask"].sum()) and agent.last_rounds == (k - 2).bit_length() + 1
        per_round = 600 // agent.last_rounds
        assert samples[base] == per_round // 2 == check.samples  # the base move: the check round only
        assert samples[check.challenger] == max(samples.values()) and sum(samples.values()) <= 600
        assert action == (check.challenger if check.passed else base)
    flat = FlatMonteCarloAgent("cubemelt", 2, seed=1, rollouts=600, rollout="random", halving=False)
    flat.act(obs, view)
    assert flat.last_rounds == 2 and len({s for a, (s, _) in flat.last_search.items() if a != flat.last_base}) == 2


def _game(game: str, n: int, options: dict, first, seed: int) -> list[int]:
    """Every action of one game: seat 0 played by ``first``, the others by heuristics, views re-dealt from one
    seeded generator per seat."""
    import ice_envs
    from ice_envs.agents.spec import heuristic_for

    env = ice_envs.make(game, raw=True, num_players=n, **options)
    env.reset(seed=seed)
    agents = [first] + [heuristic_for(game, seed + s) for s in range(1, n)]
    view_rngs = [np.random.default_rng(seed * 10 + s) for s in range(n)]
    actions: list[int] = []
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        seat = env.current_seat
        view = make_view(env, seat, view_rngs[seat])
        actions.append(int(agents[seat].act({"action_mask": env.action_mask()}, view)))
        env.step(actions[-1])
    return actions


@pytest.mark.parametrize(
    ("game", "n", "options"),
    [("iceberg_rummy", 4, {"single_hand": True}), ("icebergs", 3, {}), ("cubemelt", 3, {})],
    ids=["iceberg_rummy", "icebergs", "cubemelt"],
)
def test_width_one_plays_the_heuristics_game_exactly(game, n, options):
    """With only the base move searched the agent is the heuristic: its generator stream (Iceberg Rummy's
    going-out samples) and its memory (Icebergs' places sailed through this turn) included."""
    from ice_envs.agents.spec import heuristic_for

    for seed in (1, 2):
        flat = FlatMonteCarloAgent(game, n, seed=seed, width=1, rollout="random")
        assert _game(game, n, options, flat, seed) == _game(game, n, options, heuristic_for(game, seed), seed)
        assert flat.last_search == {}  # no rollouts were spent


@pytest.mark.parametrize(("game", "n"), [("iceberg_rummy", 4), ("tip_of_the_diceberg", 3), ("cubemelt", 2)])
def test_heuristic_v2_gives_the_base_move_and_plays_the_rollouts(game, n):
    """``heuristic=v2``: with ``width=1`` the agent plays ``heuristic@v2``'s game exactly; its rollouts are played by
    the compiled ``heuristic@v2`` player (``heuristic`` where the game has no second version)."""
    from ice_envs.agents.spec import heuristic_for

    options = {"single_hand": True} if game == "iceberg_rummy" else {}
    flat = FlatMonteCarloAgent(game, n, seed=3, width=1, rollout="random", heuristic="v2")
    assert _game(game, n, options, flat, 3) == _game(game, n, options, heuristic_for(game, 3, "v2"), 3)
    searching = FlatMonteCarloAgent(game, n, seed=3, heuristic="v2")
    second = game != "cubemelt"
    assert (searching.heuristic, searching.rollout_player) == (
        ("v2", "heuristic@v2") if second else ("v1", "heuristic")
    )
    assert FlatMonteCarloAgent(game, n, seed=3, rollout="greedy", heuristic="v2").rollout_player == "greedy"


def test_a_margin_no_noisy_gain_passes_keeps_the_heuristics_moves():
    """margin=10**6: the agent leaves the heuristic only where the challenger gained the same on every fresh
    sample of its check (no noise at all); everywhere else it plays the base move."""
    env_points = list(decision_points("cubemelt", 2, {"expansion": True}, seed=3, every=2, count=6))
    for env in env_points:
        agent = FlatMonteCarloAgent("cubemelt", 2, seed=0, rollouts=128, rollout="random", margin=10**6)
        view = make_view(env, env.current_seat, np.random.default_rng(0))
        action = agent.act({"action_mask": env.action_mask()}, view)
        check = agent.last_check
        noiseless = check.gain > 0 and check.squares * check.samples == check.gain**2
        assert action == (check.challenger if noiseless else agent.last_base)


def test_a_clearly_better_move_passes_the_guard(monkeypatch):
    """With the base move forced to a stop that hands the neighbour six Hearts and the game, the default guard
    plays a re-roll instead."""
    from ice_envs.cubemelt import rules

    monkeypatch.setattr(FlatMonteCarloAgent, "_base_move", lambda self, view, legal, obs: rules.STOP)
    agent = FlatMonteCarloAgent("cubemelt", 2, seed=0, rollouts=1024, rollout="random")
    assert decide(agent, "cubemelt", _cubemelt("hhhhhh", love=[0, 15])) != rules.STOP
    check = agent.last_check
    assert agent.last_search[rules.STOP][1] == 0 and check.passed and check.z > 2


def test_the_guard_compares_exactly():
    """Differences 1, 1, 1, 0: mean 3/4, sample standard deviation 1/2, standard error 1/4: exactly 3 of them."""
    from fractions import Fraction

    check = Check.of(7, np.array([1, 1, 1, 0]), Fraction(3))
    assert (check.gain, check.squares, check.samples, check.z) == (3, 3, 4, 3.0)
    assert not check.passed  # not more than 3 standard errors
    assert beats(3, 3, 4, Fraction(299, 100)) and not beats(3, 3, 4, Fraction(3))
    assert beats(1, 1, 1, Fraction(0)) and not beats(1, 1, 1, Fraction(1))  # one sample: only margin 0
    assert not beats(0, 4, 4, Fraction(0)) and not beats(-2, 4, 4, Fraction(0))
    assert beats(4, 4, 4, Fraction(10**9))  # the same gain on every sample: no noise
    third = Fraction(1, 3)
    assert beats(3 * third, 3 * third * third, 4, Fraction(2)) == beats(3, 3, 4, Fraction(2))  # scale-free


def test_depth_cuts_the_rollouts_and_values_them_by_the_running_scores(monkeypatch):
    """depth=D: every playout stops after D decisions; a game still going is won by its score leaders."""
    outs: list[dict] = []
    original = SeatPlayers.playout

    def recording(self, first_actions=None, **kw):
        out = original(self, first_actions, **kw)
        outs.append({"max": kw.get("max_decisions"), "first": np.asarray(first_actions).copy(), **out})
        return out

    monkeypatch.setattr(SeatPlayers, "playout", recording)
    env = next(decision_points("cubemelt", 3, {}, seed=4, count=1))
    view = make_view(env, env.current_seat, np.random.default_rng(0))
    agent = FlatMonteCarloAgent("cubemelt", 3, seed=0, rollouts=64, rollout="random", depth=2, margin=0)
    agent.act({"action_mask": env.action_mask()}, view)
    unit = reward_unit(3)
    totals: dict[int, int] = {}
    for out in outs:
        assert out["max"] == 2 and (out["length"] <= 2).all()
        going = ~(out["outcome"] != 0).any(axis=1)
        lead = out["scores"] == out["scores"].max(axis=1, keepdims=True)
        won = np.where(going[:, None], lead, out["outcome"] > 0)
        share = np.where(won[:, view.seat], unit // won.sum(axis=1), 0)
        for a, v in zip(out["first"].tolist(), share.tolist(), strict=True):
            totals[a] = totals.get(a, 0) + v
    assert totals == {a: t for a, (_, t) in agent.last_search.items()}


def test_ties_go_to_the_base_move_then_the_lowest_id():
    totals = {5: 10, 2: 10, 9: 8}
    assert _ranked([5, 2, 9], totals, 5) == [5, 2, 9]
    assert _ranked([5, 2, 9], totals, None) == [2, 5, 9]
    assert _ranked([5, 2, 9], totals, 9) == [2, 5, 9]


def test_one_legal_move_is_played_without_search():
    agent = FlatMonteCarloAgent("cardiceo", 2, seed=0, **SMALL)
    mask = np.zeros(simulator_for("cardiceo", 2).num_actions, dtype=np.int8)
    mask[3] = 1
    assert agent.act({"action_mask": mask}, None) == 3 and agent.last_search == {}


# ---------------------------------------------------------------------------- options
def test_the_spec_builds_the_agent_with_its_options():
    agent = load_agent("flat:rollouts=128,redeals=2,rollout=random,value=score,width=3,halving=no", "cardiceo", 0, 3)
    assert isinstance(agent, FlatMonteCarloAgent)
    assert (agent.rollouts, agent.redeals, agent.rollout, agent.value, agent.width, agent.halving) == (
        128,
        2,
        "random",
        "score",
        3,
        False,
    )
    assert parse_agent_spec("flat").kind == "flat"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("flat:rollouts=0", "rollouts='0' must be an integer >= 1"),
        ("flat:redeals=x", "redeals='x' must be an integer >= 1"),
        ("flat:rollout=smart", "rollout='smart' must be one of heuristic, greedy, random"),
        ("flat:value=rank", "value='rank' must be one of win, score"),
        ("flat:halving=maybe", "halving='maybe' must be yes or no"),
        ("flat:margin=-1", "margin='-1' must be a number >= 0"),
        ("flat:depth=0", "depth='0' must be an integer >= 1"),
        ("flat:heuristic=v9", "heuristic='v9' must be one of v1, v2"),
        ("flat:sims=5", "unknown option 'sims' of flat"),
        ("flat:width=2,width=3", "given twice"),
    ],
)
def test_bad_spec_options_are_refused(text, message):
    with pytest.raises(AgentSpecError, match=message):
        parse_agent_spec(text)


def test_bad_constructor_options_are_refused():
    for kwargs, message in [
        ({"rollouts": 0}, "rollouts must be"),
        ({"redeals": True}, "redeals must be"),
        ({"width": 0}, "width must be"),
        ({"depth": 0}, "depth must be"),
        ({"margin": -1}, "margin must be"),
        ({"margin": "x"}, "margin must be"),
        ({"rollout": "smart"}, "rollout must be one of"),
        ({"value": "rank"}, "value must be one of"),
        ({"heuristic": "v9"}, "heuristic must be one of v1, v2"),
    ]:
        with pytest.raises(ValueError, match=message):
            FlatMonteCarloAgent("cardiceo", 2, **kwargs)


def test_a_missing_compiled_player_or_engine_is_named():
    if "heuristic" in compiled_player_names("cardiceo"):
        assert FlatMonteCarloAgent("cardiceo", 2).rollout == "heuristic"
    else:
        with pytest.raises(AgentSpecError, match="needs a compiled heuristic player"):
            load_agent("flat", "cardiceo", 0, 2)
    unloadable = [g for g in built_in_games() if engine_class(g, "compiled").pack_state is CompiledEngine.pack_state]
    if not unloadable:
        pytest.skip("every compiled engine loads positions")
    for game in unloadable:
        with pytest.raises(ValueError, match="cannot load positions"):
            FlatMonteCarloAgent(game, rollout="random")


def test_fractional_scores_are_summed_exactly():
    """Iceberg Rummy's scores are hundredths (binary floats): value=score sums their exact values as fractions."""
    from fractions import Fraction

    env = next(decision_points("iceberg_rummy", 3, {"single_hand": True}, seed=5, count=1))
    view = make_view(env, env.current_seat, np.random.default_rng(0))
    agent = FlatMonteCarloAgent("iceberg_rummy", 3, seed=0, rollouts=64, rollout="random", value="score")
    action = agent.act({"action_mask": env.action_mask()}, view)
    totals = {a: t for a, (_, t) in agent.last_search.items()}
    assert all(isinstance(t, (int, Fraction)) for t in totals.values())
    assert any(isinstance(t, Fraction) and t.denominator > 1 for t in totals.values())
    check = agent.last_check
    assert isinstance(check.gain, Fraction) and isinstance(check.squares, Fraction)
    assert action == (check.challenger if check.passed else agent.last_base)


def test_a_rummy_redeal_loads_into_the_compiled_engine_with_its_stock_intact():
    """A re-deal's stock holds only the cards still in it; loaded into the compiled engine (whose stock has a
    fixed length) and read back, it is a valid position with the same cards still to draw, in order."""
    from ice_envs.iceberg_rummy import rules

    for env in decision_points("iceberg_rummy", 4, {"single_hand": True}, seed=2, every=3, count=4):
        deal = env.unwrapped.resample_hidden(env.current_seat, np.random.default_rng(0))
        assert deal.stock.size - deal.stock_pos < 104 - 28  # cards were drawn: the re-deal's stock is short
        engine = engine_class("iceberg_rummy", "compiled")(1, 4, single_hand=True)
        engine.state[0] = engine.pack_state(deal)
        back = engine.state_of(0)
        rules.check_state(back, back.config)
        assert back.stock[back.stock_pos :].tolist() == deal.stock[deal.stock_pos :].tolist()


def _renamed_default_map() -> str:
    from ice_envs.icebergs.hexmap import default_map

    return default_map().to_text().replace("name: ", "name: renamed ", 1)


@pytest.mark.parametrize(
    ("n", "options"),
    [(4, {}), (2, {"fleet": True, "exit_penalties": False}), (3, {"map_text": _renamed_default_map()})],
    ids=["standard", "fleet", "map_text"],
)
def test_flat_rebuilds_an_icebergs_table_with_its_map_and_options(n, options):
    """The rollouts' compiled engine is configured from the position's config, whose map is not an env option
    itself (it travels as ``map_text``): the search runs, legal and reproducible, on every kind of table."""
    budget = {**SMALL, "width": 4, "rollout": "heuristic"}
    first = _play("icebergs", n, options, FlatMonteCarloAgent("icebergs", n, seed=7, **budget), seed=3, decisions=3)
    second = _play("icebergs", n, options, FlatMonteCarloAgent("icebergs", n, seed=7, **budget), seed=3, decisions=3)
    assert first and first == second


@pytest.mark.parametrize(("n", "options"), [(4, {"max_turns_end": "decide"}), (3, {"fleet": True, "map": "strait"})])
def test_the_compiled_greedy_values_rank_the_candidates_as_the_python_agent(n, options, monkeypatch):
    """With ``width``, Icebergs' candidates come from the compiled greedy values (the Python agent's for the
    actions it samples): the same candidates, and the same draws of the agent's stream, as from the Python agent's
    values alone."""
    fast = FlatMonteCarloAgent("icebergs", n, seed=4, width=6)
    slow = FlatMonteCarloAgent("icebergs", n, seed=4, width=6)
    monkeypatch.setattr(slow, "_compiled_greedy_values", lambda view, legal: None)
    rng = np.random.default_rng(0)
    compared = 0
    for env in decision_points("icebergs", n, options, seed=11, every=3, count=6):
        view = make_view(env, env.current_seat, rng)
        legal = sorted(int(a) for a in view.legal_actions)
        base = legal[len(legal) // 2]
        assert fast._candidates(view, legal, base) == slow._candidates(view, legal, base)
        assert fast.rng.integers(0, 2**62) == slow.rng.integers(0, 2**62)
        compared += len(legal) > 6
    assert compared >= 3
