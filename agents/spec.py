"""Agent spec strings: ``random``, ``heuristic``, ``ppo:PATH``.

A PPO checkpoint plays only the game and player count it was trained for (its meta says which);
``ppo:PATH?players=any`` lets it play another player count of the same game when the observation and
action sizes allow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ice_envs.agents.ppo_agent import PPOAgent
from ice_envs.agents.random_agent import RandomAgent
from ice_envs.core.agent import Agent
from ice_envs.core.errors import AgentSpecError
from ice_envs.core.registry import get_spec

__all__ = [
    "KINDS",
    "AgentSpec",
    "AgentSpecError",
    "heuristic_for",
    "load_agent",
    "parse_agent_list",
    "parse_agent_spec",
]


KINDS = ("random", "heuristic", "ppo")


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: its kind and, for ``ppo``, the checkpoint path."""

    kind: str
    path: str | None = None
    #: ``ppo`` only: play at a player count other than the checkpoint's (``?players=any``).
    any_players: bool = False

    @property
    def label(self) -> str:
        return f"ppo:{Path(self.path).name}" if self.kind == "ppo" and self.path else self.kind


def parse_agent_spec(text: str) -> AgentSpec:
    """Parse one spec; a clear :class:`AgentSpecError` names what is wrong."""
    raw = text.strip()
    kind, sep, arg = raw.partition(":")
    kind = kind.lower()
    if kind not in KINDS:
        raise AgentSpecError(f"unknown agent {text!r}; use one of: random, heuristic, ppo:PATH")
    if kind == "ppo":
        if not sep or not arg:
            raise AgentSpecError(f"agent {text!r}: a PPO agent needs a checkpoint path, as in ppo:runs/x/final.zip")
        path, _, query = arg.partition("?")
        if query not in ("", "players=any") or not path:
            raise AgentSpecError(
                f"agent {text!r}: the only option of a PPO agent is ?players=any, as in ppo:PATH?players=any"
            )
        return AgentSpec("ppo", path, any_players=bool(query))
    if sep:
        raise AgentSpecError(f"agent {text!r}: {kind} takes no argument")
    return AgentSpec(kind)


def parse_agent_list(text: str, num_players: int | None = None) -> list[AgentSpec]:
    """Comma-separated specs, one per seat (checked against ``num_players`` if given)."""
    specs = [parse_agent_spec(part) for part in text.split(",") if part.strip()]
    if not specs:
        raise AgentSpecError("no agents given")
    if num_players is not None and len(specs) != num_players:
        raise AgentSpecError(f"{len(specs)} agents given ({text!r}) for {num_players} players; give one per seat")
    return specs


def load_agent(spec: AgentSpec | str, game: str, seed: int | None = None, num_players: int | None = None) -> Agent:
    """Build the agent that ``spec`` names for ``game``."""
    if isinstance(spec, str):
        spec = parse_agent_spec(spec)
    if spec.kind == "random":
        return RandomAgent(seed)
    if spec.kind == "heuristic":
        return heuristic_for(game, seed)
    return PPOAgent.load(spec.path, game=game, num_players=num_players, seed=seed, check_meta=not spec.any_players)


def heuristic_for(game: str, seed: int | None = None) -> Agent:
    """The heuristic agent of ``game``, as its spec names it."""
    game_spec = get_spec(game)
    cls = game_spec.heuristic_class()
    if cls is None:
        raise AgentSpecError(f"game {game_spec.name!r} has no heuristic agent; use random or ppo:PATH")
    return cls(seed)
