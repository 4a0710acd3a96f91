"""Agent spec strings: ``random``, ``heuristic``, ``ppo:PATH``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agents.base import Agent


class AgentSpecError(ValueError):
    """A bad agent spec string."""


KINDS = ("random", "heuristic", "ppo")


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: its kind and, for ``ppo``, the checkpoint path."""

    kind: str
    path: str | None = None

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
        return AgentSpec("ppo", arg)
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
        from agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if spec.kind == "heuristic":
        from agents.heuristics import heuristic_for

        return heuristic_for(game, seed)
    try:
        from agents.ppo_agent import PPOAgent
    except ImportError as exc:  # torch / sb3-contrib missing
        raise AgentSpecError(f"ppo agents need the train extra (pip install -e '.[train]'): {exc}") from None
    return PPOAgent.load(spec.path, game=game, num_players=num_players, seed=seed)
