"""Agents that play ice-envs games: random, a heuristic per game, and PPO checkpoints.

``load_agent(spec, game)`` builds one from a spec string: ``random``, ``heuristic``
or ``ppo:PATH``.
"""

from agents.base import Agent, PlayerView
from agents.random_agent import RandomAgent
from agents.spec import AgentSpecError, load_agent, parse_agent_list, parse_agent_spec

__all__ = [
    "Agent",
    "AgentSpecError",
    "PlayerView",
    "RandomAgent",
    "load_agent",
    "parse_agent_list",
    "parse_agent_spec",
]
