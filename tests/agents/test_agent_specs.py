"""Agent specs: ``greedy`` and ``mcts:...`` with strict options, ``python:module:factory``, and Agent objects
wherever specs are accepted (``load_agent``, ``evaluate()``)."""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction

import pytest

from ice_envs.agents.greedy import GreedyAgent
from ice_envs.agents.mcts import MCTSAgent
from ice_envs.agents.random_agent import RandomAgent
from ice_envs.agents.spec import AgentSpecError, load_agent, parse_agent_list, parse_agent_spec
from ice_envs.evaluation import tournament as ev

SHORT = {"hand_size": 5}


def test_greedy_and_mcts_specs_parse_with_their_options():
    assert parse_agent_spec("greedy").kind == "greedy" and parse_agent_spec("greedy").label == "greedy"
    spec = parse_agent_spec("MCTS:sims=400, rollout=heuristic")
    assert spec.kind == "mcts" and dict(spec.options) == {"sims": 400, "rollout": "heuristic"}
    assert spec.label == "mcts:sims=400,rollout=heuristic"
    assert dict(parse_agent_spec("mcts:seconds=0.5,c=7/10,depth=20").options) == {
        "seconds": 0.5,
        "c": Fraction(7, 10),
        "depth": 20,
    }
    assert dict(parse_agent_spec("mcts:c=1.4").options)["c"] == Fraction(7, 5)  # exactly as written
    assert dict(parse_agent_spec("greedy:samples=2").options) == {"samples": 2}


def test_an_agent_list_continues_the_options_of_the_spec_before():
    specs = parse_agent_list("mcts:sims=50,rollout=random,heuristic", 2)
    assert [s.label for s in specs] == ["mcts:sims=50,rollout=random", "heuristic"]
    specs = parse_agent_list("greedy,mcts:sims=3,depth=2,c=0.5,greedy:samples=1,random", 4)
    assert [s.label for s in specs] == ["greedy", "mcts:sims=3,depth=2,c=0.5", "greedy:samples=1", "random"]
    assert parse_agent_list("ppo:runs/x.zip?players=any,random", 2)[0].any_players


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mcts:sims=0", r"option sims='0' must be an integer >= 1"),
        ("mcts:sims=1.5", r"option sims='1.5' must be an integer >= 1"),
        (
            "mcts:speed=3",
            r"unknown option 'speed' of mcts; mcts options: sims, seconds, rollout, c, depth, redeals, width",
        ),
        ("mcts:redeals=0", r"option redeals='0' must be an integer >= 1, or none"),
        ("mcts:width=-2", r"option width='-2' must be an integer >= 1"),
        ("mcts:rollout=smart", r"option rollout='smart' must be one of random, greedy, heuristic"),
        ("mcts:c=0", r"option c='0' must be a number > 0"),
        ("mcts:c=inf", r"option c='inf' must be a number > 0"),
        ("mcts:c=1/0", r"option c='1/0' must be a number > 0"),
        ("mcts:margin=1/00", r"option margin='1/00' must be a number >= 0"),
        ("mcts:margin=-1", r"option margin='-1' must be a number >= 0"),
        ("mcts:seconds=-1", r"option seconds='-1' must be a number of seconds > 0"),
        ("mcts:sims=5,seconds=1", r"give sims or seconds, not both"),
        ("mcts:sims=5,sims=6", r"option 'sims' is given twice"),
        ("mcts:", r"'' is not an option key=value"),
        ("mcts:sims", r"'sims' is not an option key=value"),
        ("greedy:sims=5", r"unknown option 'sims' of greedy; greedy options: samples"),
        ("greedy:samples=0", r"option samples='0' must be an integer >= 1"),
        ("random:3", r"takes no argument"),
        ("python:onlymodule", r"python:module:factory"),
        ("python:bad-name:f", r"python:module:factory"),
        ("alphazero", r"unknown agent 'alphazero'"),
    ],
)
def test_bad_specs_name_what_is_wrong(text, message):
    with pytest.raises(AgentSpecError, match=message):
        parse_agent_spec(text)


def test_options_after_an_agent_without_options_are_refused():
    with pytest.raises(AgentSpecError, match=r"option 'sims=5' follows 'heuristic', which takes no options"):
        parse_agent_list("heuristic,sims=5", 1)


def test_load_agent_builds_the_agents_with_their_options():
    greedy = load_agent("greedy:samples=3", "cardiceo", seed=1, num_players=2)
    assert isinstance(greedy, GreedyAgent) and greedy.samples == 3 and greedy.needs_view
    mcts = load_agent("mcts:sims=7,rollout=greedy,c=1/2,depth=9", "cubemelt", seed=2, num_players=3)
    assert isinstance(mcts, MCTSAgent) and (mcts.sims, mcts.rollout, mcts.c, mcts.depth) == (
        7,
        "greedy",
        Fraction(1, 2),
        9,
    )
    assert load_agent("mcts", "icebergs").sims == 200  # the default budget
    pooled = load_agent("mcts:sims=5,redeals=4,width=3", "cardiceo", seed=2, num_players=2)
    assert (pooled.redeals, pooled.width) == (4, 3)
    assert load_agent("mcts:redeals=none", "cardiceo", seed=2, num_players=2).redeals is None
    agent = RandomAgent(0)
    assert load_agent(agent, "cardiceo") is agent  # an Agent object is used as it is


FACTORY = """
from ice_envs.agents.random_agent import RandomAgent

CALLS = []


def make(game, num_players, seed):
    CALLS.append((game, num_players, seed))
    agent = RandomAgent(seed)
    agent.name = "mine"
    return agent


def not_an_agent(game, num_players, seed):
    return object()


def wrong_signature(game):
    return RandomAgent(0)
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "my_agents_for_test.py").write_text(textwrap.dedent(FACTORY))
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("my_agents_for_test")
    yield module
    import sys

    sys.modules.pop("my_agents_for_test", None)


def test_python_agent_is_imported_and_built_by_its_factory(user_module):
    spec = parse_agent_spec("python:my_agents_for_test:make")
    assert (
        spec.kind == "python"
        and spec.target == "my_agents_for_test:make"
        and spec.label == "python:my_agents_for_test:make"
    )
    agent = load_agent(spec, "cardiceo", seed=5, num_players=2)
    assert agent.name == "mine" and user_module.CALLS[-1] == ("cardiceo", 2, 5)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_module_xyz:make", r"cannot import module 'no_such_module_xyz'"),
        ("my_agents_for_test:missing", r"has no function 'missing'"),
        ("my_agents_for_test:not_an_agent", r"returned object, not an Agent"),
        ("my_agents_for_test:wrong_signature", r"wrong_signature\(game=..., num_players=..., seed=...\) failed"),
    ],
)
def test_python_agent_errors_name_the_problem(user_module, target, message):
    with pytest.raises(AgentSpecError, match=message):
        load_agent(f"python:{target}", "cardiceo", num_players=2)


def test_evaluate_accepts_agent_objects_and_specs(user_module):
    mcts = MCTSAgent("cardiceo", 2, sims=4, depth=4)
    summary, results = ev.evaluate("cardiceo", 2, [mcts, "greedy"], games=4, options=SHORT, progress=False)
    assert [row["agent"] for row in summary["per_agent"]] == ["mcts", "greedy"]
    assert summary["games"] == 4 and all(r["decisions"] > 0 for r in results)
    with pytest.raises(AgentSpecError, match="the same Agent object is given for two seats"):
        ev.evaluate("cardiceo", 2, [mcts, mcts], games=2, options=SHORT, progress=False)
    with pytest.raises(AgentSpecError, match="neither an agent spec nor an Agent"):
        ev.evaluate("cardiceo", 2, [mcts, 42], games=2, options=SHORT, progress=False)
    with pytest.raises(AgentSpecError, match="1 agents given for 2 players"):
        ev.evaluate("cardiceo", 2, [mcts], games=2, options=SHORT, progress=False)


def test_cli_takes_the_new_specs(user_module, tmp_path):
    from ice_envs.cli import main

    out = tmp_path / "rep"
    agents = "python:my_agents_for_test:make,mcts:sims=3,depth=3"
    argv = ["evaluate", "cardiceo", "--players", "2", "--agents", agents, "--games", "2", "--option", "hand_size=5"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    data = json.loads((out / "evaluation.json").read_text())
    assert [row["spec"] for row in data["per_agent"]] == ["python:my_agents_for_test:make", "mcts:sims=3,depth=3"]
