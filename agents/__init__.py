"""Agents that play ice-envs games: random, greedy, each game's heuristic, MCTS and PPO checkpoints.

``load_agent(spec, game)`` builds one from a spec string (:mod:`ice_envs.agents.spec`): ``random``,
``greedy`` (one-step look-ahead by the game's own value), ``heuristic`` (the game's own, named by its
spec), ``mcts:sims=N,rollout=...`` (information-set Monte Carlo tree search), ``ppo:PATH`` or
``python:module:factory`` (a user's own agent); an :class:`Agent` object is returned as it is. The
:class:`Agent` protocol and :class:`PlayerView` live in :mod:`ice_envs.core.agent` (games' heuristics
implement them).
"""

from ice_envs.agents.greedy import GreedyAgent
from ice_envs.agents.mcts import MCTSAgent
from ice_envs.agents.ppo_agent import PPOAgent
from ice_envs.agents.random_agent import RandomAgent
from ice_envs.agents.spec import AgentSpec, heuristic_for, load_agent, parse_agent_list, parse_agent_spec
from ice_envs.core.agent import Agent, PlayerView
from ice_envs.core.errors import AgentSpecError

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "GreedyAgent",
    "MCTSAgent",
    "PPOAgent",
    "PlayerView",
    "RandomAgent",
    "heuristic_for",
    "load_agent",
    "parse_agent_list",
    "parse_agent_spec",
]
