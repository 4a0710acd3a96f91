"""Agents that play ice-envs games: random, each game's heuristic, and PPO checkpoints.

``load_agent(spec, game)`` builds one from a spec string: ``random``, ``heuristic``
(the game's own, named by its spec) or ``ppo:PATH``. The :class:`Agent` protocol and
:class:`PlayerView` live in :mod:`ice_envs.core.agent` (games' heuristics implement them).
"""

from ice_envs.agents.random_agent import RandomAgent
from ice_envs.agents.spec import AgentSpec, heuristic_for, load_agent, parse_agent_list, parse_agent_spec
from ice_envs.core.agent import Agent, PlayerView
from ice_envs.core.errors import AgentSpecError

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "PlayerView",
    "RandomAgent",
    "heuristic_for",
    "load_agent",
    "parse_agent_list",
    "parse_agent_spec",
]
