"""One heuristic agent per game, each a documented strategy a decent human would recognise."""

from __future__ import annotations

import importlib

from agents.base import Agent
from agents.spec import AgentSpecError

HEURISTICS: dict[str, str] = {
    "cardiceo": "agents.heuristics.cardiceo:CardiceoHeuristic",
    "cubemelt": "agents.heuristics.cubemelt:CubeMeltHeuristic",
    "iceberg_rummy": "agents.heuristics.iceberg_rummy:IcebergRummyHeuristic",
    "tip_of_the_diceberg": "agents.heuristics.tip_of_the_diceberg:DicebergHeuristic",
    "icebergs": "agents.heuristics.icebergs:IcebergsHeuristic",
}


def heuristic_for(game: str, seed: int | None = None) -> Agent:
    """The heuristic agent of ``game``."""
    key = game.removesuffix("_v0")
    if key not in HEURISTICS:
        raise AgentSpecError(f"no heuristic agent for game {game!r}; games with one: {sorted(HEURISTICS)}")
    module_name, _, cls_name = HEURISTICS[key].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise AgentSpecError(f"the heuristic agent for {game!r} is not written yet") from None
        raise
    return getattr(module, cls_name)(seed)
