"""Agent spec strings: ``random``, ``heuristic``, ``greedy``, ``mcts:...``, ``flat:...``, ``ppo:PATH``, ``moves:PATH``, ``rllib:PATH``, ``python:module:factory``.

==========================  ===========================================================================
spec                        agent
==========================  ===========================================================================
``random``                  uniformly random legal actions
``heuristic``               the game's heuristic agent (named by its spec)
``heuristic@vN``            a version of it: ``heuristic@v1`` is ``heuristic``; ``heuristic@v2`` is
                            the newest version up to v2 (a game's module lists them in ``VERSIONS``;
                            a game without a v2 plays v1)
``greedy[:samples=K]``      one-step look-ahead by the game's greedy value (:mod:`ice_envs.agents.greedy`)
``mcts[:OPTIONS]``          information-set MCTS (:mod:`ice_envs.agents.mcts`); options ``sims=N`` or
                            ``seconds=S``, ``rollout=random|greedy|heuristic``, ``c=X``, ``depth=D``,
                            ``redeals=R|none`` (re-deals per decision; ``none``: one per iteration),
                            ``width=K`` (root pruned to the K best greedy actions),
                            ``distinct=yes|no`` (width counts equal greedy values once),
                            ``tree=ucb|flat`` (flat: rollouts of the root actions only),
                            ``margin=Z`` (standard errors a challenger must beat the
                            rollout policy's own action by, or with ``guard=yes`` the
                            heuristic's), ``reward=share|win`` (a shared win counts 1/k or 1),
                            ``leaf=rank|margin|leader`` (a cut rollout graded by rank or value, or won by
                            the leaders), ``guard=yes|no`` (tree: keep the heuristic's move
                            unless beaten by ``margin``),
                            ``whole=yes|no`` (flat: candidates are whole moves, up to
                            the next chance draw or the next seat's turn),
                            e.g. ``mcts:sims=400,rollout=heuristic``
``flat[:OPTIONS]``          flat Monte Carlo with common random numbers on the compiled engine
                            (:mod:`ice_envs.agents.flat`); options ``rollouts=N`` (games played out
                            per decision), ``redeals=K``, ``rollout=heuristic|greedy|random``,
                            ``value=win|score``, ``width=W``, ``halving=yes|no``, ``margin=Z``
                            (standard errors a challenger must beat the heuristic's move by),
                            ``depth=D`` (rollouts cut after D decisions, valued by running score),
                            ``heuristic=v1|v2`` (the heuristic version giving the base move and
                            playing heuristic rollouts),
                            e.g. ``flat:rollouts=8192,rollout=random``
``ppo:PATH[?players=any]``  a PPO checkpoint
``moves:PATH``              a move-scoring learner's model (:mod:`ice_envs.agents.move_scorer`): scores
                            every whole move; plays only the game and player count it was trained for
``rllib:PATH``              a run of the RLlib backend (its directory or a policy ``.npz``,
                            :mod:`ice_envs.agents.rllib_agent`; ``?players=any`` as for ``ppo``)
``python:module:factory``   a user's own agent: ``module`` is imported by name and
                            ``factory(game=..., num_players=..., seed=...)`` must return an object
                            satisfying the :class:`~ice_envs.core.agent.Agent` protocol
==========================  ===========================================================================

Options are ``key=value`` pairs separated by commas. In a comma-separated list of agents (one per
seat, :func:`parse_agent_list`) a ``key=value`` item continues the options of the spec before it, so
``mcts:sims=50,rollout=random,heuristic`` is two agents. Options are checked strictly: an unknown
option, a repeated one or a bad value raises :class:`AgentSpecError` naming it.

A PPO checkpoint plays only the game and player count it was trained for (its meta says which);
``ppo:PATH?players=any`` lets it play another player count of the same game when the observation and
action sizes allow it.

:func:`load_agent` also accepts an :class:`~ice_envs.core.agent.Agent` object and returns it as it is,
so the Python API (e.g. :func:`ice_envs.evaluation.tournament.evaluate`) takes agents and specs alike.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ice_envs.agents.flat import ROLLOUTS as FLAT_ROLLOUTS
from ice_envs.agents.flat import VALUES as FLAT_VALUES
from ice_envs.agents.flat import FlatMonteCarloAgent
from ice_envs.agents.greedy import GreedyAgent
from ice_envs.agents.mcts import LEAVES, REWARDS, ROLLOUTS, TREES, MCTSAgent
from ice_envs.agents.ppo_agent import PPOAgent
from ice_envs.agents.random_agent import RandomAgent
from ice_envs.core.agent import Agent
from ice_envs.core.errors import AgentSpecError, did_you_mean
from ice_envs.core.registry import HEURISTIC_VERSIONS, get_spec

__all__ = [
    "AGENT_MEMBERS",
    "KINDS",
    "OPTIONS",
    "AgentSpec",
    "AgentSpecError",
    "heuristic_for",
    "is_agent",
    "load_agent",
    "parse_agent_list",
    "parse_agent_spec",
]


KINDS = ("random", "heuristic", "greedy", "mcts", "flat", "ppo", "moves", "rllib", "python")
#: What an object needs to be an :class:`~ice_envs.core.agent.Agent`.
AGENT_MEMBERS = ("name", "needs_view", "needs_observation", "reset", "act")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
_INTEGER = re.compile(r"[0-9]+\Z")
_DECIMAL = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


def _positive_int(text: str) -> int:
    if not _INTEGER.match(text) or int(text) < 1:
        raise ValueError("an integer >= 1")
    return int(text)


def _positive_seconds(text: str) -> float:
    if not _DECIMAL.match(text) or float(text) <= 0:
        raise ValueError("a number of seconds > 0")
    return float(text)


def _fraction(text: str, what: str) -> Fraction:
    """``text`` as an exact number, a decimal or ``p/q`` with ``q > 0`` (``ValueError`` saying ``what`` is allowed)."""
    if not (_DECIMAL.match(text) or re.fullmatch(r"[0-9]+/[0-9]*[1-9][0-9]*", text)):
        raise ValueError(what)
    return Fraction(text)


def _positive_fraction(text: str) -> Fraction:
    what = "a number > 0 (decimal or fraction, e.g. 0.7 or 7/10)"
    value = _fraction(text, what)
    if value <= 0:
        raise ValueError(what)
    return value


def _non_negative_fraction(text: str) -> Fraction:
    return _fraction(text, "a number >= 0 (decimal or fraction, e.g. 1.5 or 3/2)")


def _redeals(text: str) -> int | None:
    if text == "none":
        return None
    try:
        return _positive_int(text)
    except ValueError:
        raise ValueError("an integer >= 1, or none (a fresh re-deal every iteration)") from None


def _one_of(choices: tuple[str, ...]) -> Callable[[str], str]:
    """A parser of a value that must be one of ``choices``."""

    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"one of {', '.join(choices)}")
        return text

    return parse


def _flag(text: str) -> bool:
    if text not in ("yes", "no"):
        raise ValueError("yes or no")
    return text == "yes"


#: The options of each option-taking kind: name -> parser (raises ``ValueError`` saying what is allowed).
OPTIONS: dict[str, dict[str, Callable[[str], Any]]] = {
    "greedy": {"samples": _positive_int},
    "mcts": {
        "sims": _positive_int,
        "seconds": _positive_seconds,
        "rollout": _one_of(ROLLOUTS),
        "c": _positive_fraction,
        "depth": _positive_int,
        "redeals": _redeals,
        "width": _positive_int,
        "tree": _one_of(TREES),
        "distinct": _flag,
        "margin": _non_negative_fraction,
        "reward": _one_of(REWARDS),
        "leaf": _one_of(LEAVES),
        "guard": _flag,
        "whole": _flag,
    },
    "flat": {
        "rollouts": _positive_int,
        "redeals": _positive_int,
        "rollout": _one_of(FLAT_ROLLOUTS),
        "value": _one_of(FLAT_VALUES),
        "width": _positive_int,
        "halving": _flag,
        "margin": _non_negative_fraction,
        "depth": _positive_int,
        "heuristic": _one_of(HEURISTIC_VERSIONS),
    },
}


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: its kind and, for ``ppo``, the checkpoint path."""

    kind: str
    path: str | None = None
    #: ``ppo``/``rllib`` only: play at a player count other than the checkpoint's (``?players=any``).
    any_players: bool = False
    #: ``greedy`` / ``mcts`` / ``flat``: the options given, ``(name, value)`` in the order written.
    options: tuple[tuple[str, Any], ...] = ()
    #: ``python`` only: ``"module:factory"``.
    target: str | None = None
    #: ``greedy`` / ``mcts`` / ``flat``: the options as written (for the label).
    option_text: str = ""
    #: ``heuristic`` only: the version asked for (``heuristic@v2``), ``None`` for plain ``heuristic``.
    version: str | None = None

    @property
    def label(self) -> str:
        if self.kind in ("ppo", "moves", "rllib") and self.path:
            return f"{self.kind}:{Path(self.path).name}"
        if self.kind == "python":
            return f"python:{self.target}"
        if self.option_text:
            return f"{self.kind}:{self.option_text}"
        if self.version:
            return f"{self.kind}@{self.version}"
        return self.kind


def parse_agent_spec(text: str) -> AgentSpec:
    """Parse one spec; a clear :class:`AgentSpecError` names what is wrong."""
    raw = text.strip()
    kind, sep, arg = raw.partition(":")
    kind = kind.lower()
    if kind.startswith("heuristic@"):
        version = kind.partition("@")[2]
        if version not in HEURISTIC_VERSIONS or sep:
            raise AgentSpecError(
                f"agent {text!r}: a heuristic version is one of {', '.join('heuristic@' + v for v in HEURISTIC_VERSIONS)}"
            )
        return AgentSpec("heuristic", version=version)
    if kind not in KINDS:
        raise AgentSpecError(
            f"unknown agent {text!r}{did_you_mean(kind, KINDS)}; use one of: random, heuristic, greedy, mcts[:OPTIONS], "
            "flat[:OPTIONS], ppo:PATH, moves:PATH, "
            "rllib:PATH, python:module:factory"
        )
    if kind == "ppo":
        if not sep or not arg:
            raise AgentSpecError(f"agent {text!r}: a PPO agent needs a checkpoint path, as in ppo:runs/x/final.zip")
        path, _, query = arg.partition("?")
        if query not in ("", "players=any") or not path:
            raise AgentSpecError(
                f"agent {text!r}: the only option of a PPO agent is ?players=any, as in ppo:PATH?players=any"
            )
        return AgentSpec("ppo", path, any_players=bool(query))
    if kind == "moves":
        if not sep or not arg:
            raise AgentSpecError(
                f"agent {text!r}: a move-scoring agent needs its model file, as in moves:checkpoints/cardiceo_moves/model.npz"
            )
        return AgentSpec("moves", arg)
    if kind == "rllib":
        path, _, query = arg.partition("?")
        if not sep or not path or query not in ("", "players=any"):
            raise AgentSpecError(
                f"agent {text!r}: an RLlib agent is rllib:PATH[?players=any], PATH a run directory of the RLlib "
                "backend or its final.npz, as in rllib:runs/train/cardiceo_rllib_ppo-seed0"
            )
        return AgentSpec("rllib", path, any_players=bool(query))
    if kind == "python":
        module, colon, factory = arg.partition(":")
        if not sep or not colon or not _DOTTED.match(module) or not _DOTTED.match(factory):
            raise AgentSpecError(
                f"agent {text!r}: a Python agent is python:module:factory (an importable module name and the "
                "name of a function in it), as in python:my_agents:make_agent"
            )
        return AgentSpec("python", target=f"{module}:{factory}")
    if kind in OPTIONS:
        if not sep:
            return AgentSpec(kind)
        options = _parse_options(text, kind, arg)
        written = ",".join(f"{key}={value.strip()}" for key, value in (i.partition("=")[::2] for i in arg.split(",")))
        return AgentSpec(kind, options=options, option_text=written.replace(" ", ""))
    if sep:
        raise AgentSpecError(f"agent {text!r}: {kind} takes no argument")
    return AgentSpec(kind)


def _parse_options(text: str, kind: str, arg: str) -> tuple[tuple[str, Any], ...]:
    """The ``key=value,...`` options of a ``greedy``/``mcts``/``flat`` spec, checked one by one."""
    known = OPTIONS[kind]
    names = ", ".join(known)
    seen: dict[str, Any] = {}
    for item in arg.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key:
            raise AgentSpecError(
                f"agent {text!r}: {item.strip()!r} is not an option key=value; {kind} options: {names}"
            )
        if key not in known:
            raise AgentSpecError(f"agent {text!r}: unknown option {key!r} of {kind}; {kind} options: {names}")
        if key in seen:
            raise AgentSpecError(f"agent {text!r}: option {key!r} is given twice")
        try:
            seen[key] = known[key](value)
        except ValueError as exc:
            raise AgentSpecError(f"agent {text!r}: option {key}={value!r} must be {exc}") from None
    if "sims" in seen and "seconds" in seen:
        raise AgentSpecError(f"agent {text!r}: give sims or seconds, not both")
    return tuple(seen.items())


def _continues_options(part: str) -> bool:
    """Whether a list item is a ``key=value`` option of the spec before it (not a spec of its own)."""
    key, eq, _ = part.strip().partition("=")
    return bool(eq) and _WORD.match(key.strip()) is not None


def parse_agent_list(text: str, num_players: int | None = None) -> list[AgentSpec]:
    """Comma-separated specs, one per seat (checked against ``num_players`` if given).

    An item ``key=value`` continues the options of the ``greedy``/``mcts``/``flat`` spec before it.
    """
    texts: list[str] = []
    for part in text.split(","):
        if not part.strip():
            continue
        if texts and _continues_options(part):
            kind = texts[-1].strip().partition(":")[0].lower()
            if kind not in OPTIONS:
                raise AgentSpecError(
                    f"agent list {text!r}: option {part.strip()!r} follows {texts[-1].strip()!r}, which takes no options"
                )
            texts[-1] += ("," if ":" in texts[-1] else ":") + part
            continue
        texts.append(part)
    specs = [parse_agent_spec(part) for part in texts]
    if not specs:
        raise AgentSpecError("no agents given")
    if num_players is not None and len(specs) != num_players:
        raise AgentSpecError(f"{len(specs)} agents given ({text!r}) for {num_players} players; give one per seat")
    return specs


def is_agent(obj: Any) -> bool:
    """Whether ``obj`` satisfies the :class:`~ice_envs.core.agent.Agent` protocol (and is not a spec)."""
    return not isinstance(obj, (str, AgentSpec)) and isinstance(obj, Agent)


def load_agent(
    spec: AgentSpec | str | Agent, game: str, seed: int | None = None, num_players: int | None = None
) -> Agent:
    """Build the agent that ``spec`` names for ``game`` (an :class:`Agent` object is returned as it is)."""
    if is_agent(spec):
        return spec  # type: ignore[return-value]
    if isinstance(spec, str):
        spec = parse_agent_spec(spec)
    if not isinstance(spec, AgentSpec):
        missing = [m for m in AGENT_MEMBERS if not hasattr(spec, m)]
        raise AgentSpecError(f"{spec!r} is neither an agent spec nor an Agent (it lacks {', '.join(missing)})")
    if spec.kind == "random":
        return RandomAgent(seed)
    if spec.kind == "heuristic":
        return heuristic_for(game, seed, spec.version)
    if spec.kind == "greedy":
        return _build(spec, GreedyAgent, game, seed, num_players)
    if spec.kind == "mcts":
        return _build(spec, MCTSAgent, game, seed, num_players)
    if spec.kind == "flat":
        return _build(spec, FlatMonteCarloAgent, game, seed, num_players)
    if spec.kind == "python":
        return _python_agent(spec, game, seed, num_players)
    if spec.kind == "moves":
        from ice_envs.agents.move_scorer import MoveScorerAgent, load_move_scorer

        net = load_move_scorer(spec.path)
        players = num_players if num_players is not None else int(net.meta.get("players", 0)) or None
        if players is None:
            raise AgentSpecError(f"agent {spec.label!r}: the player count is not known")
        trained = net.meta.get("players")
        if trained is not None and int(trained) != players:
            raise AgentSpecError(f"agent {spec.label!r}: trained for {trained} players, asked to play {players}")
        return MoveScorerAgent(net, game, players, seed)
    if spec.kind == "rllib":
        from ice_envs.agents.rllib_agent import RLlibAgent

        return RLlibAgent.load(
            spec.path, game=game, num_players=num_players, seed=seed, check_meta=not spec.any_players
        )
    return PPOAgent.load(spec.path, game=game, num_players=num_players, seed=seed, check_meta=not spec.any_players)


def _build(spec: AgentSpec, cls: type, game: str, seed: int | None, num_players: int | None) -> Agent:
    """A ``greedy``, ``mcts`` or ``flat`` agent; a bad combination (e.g. heuristic rollouts without a heuristic) names it."""
    try:
        return cls(game, num_players, seed, **dict(spec.options))
    except ValueError as exc:
        raise AgentSpecError(f"agent {spec.label!r}: {exc}") from None


def _python_agent(spec: AgentSpec, game: str, seed: int | None, num_players: int | None) -> Agent:
    """Import ``module``, call ``factory(game=, num_players=, seed=)`` and check the result is an Agent."""
    assert spec.target is not None
    module_name, _, factory_name = spec.target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentSpecError(f"agent {spec.label!r}: cannot import module {module_name!r}: {exc}") from None
    factory: Any = module
    for part in factory_name.split("."):
        factory = getattr(factory, part, None)
    if not callable(factory):
        raise AgentSpecError(f"agent {spec.label!r}: module {module_name!r} has no function {factory_name!r}")
    try:
        agent = factory(game=get_spec(game).name, num_players=num_players, seed=seed)
    except TypeError as exc:
        raise AgentSpecError(
            f"agent {spec.label!r}: {factory_name}(game=..., num_players=..., seed=...) failed: {exc}"
        ) from exc
    if not is_agent(agent):
        missing = [m for m in AGENT_MEMBERS if not hasattr(agent, m)]
        raise AgentSpecError(
            f"agent {spec.label!r}: {factory_name}() returned {type(agent).__name__}, not an Agent "
            f"(missing: {', '.join(missing) or 'callable reset/act'}); see ice_envs.core.agent.Agent"
        )
    return agent


def heuristic_for(game: str, seed: int | None = None, version: str | None = None) -> Agent:
    """The heuristic agent of ``game``, as its spec names it; ``version`` (``"v2"``) picks the newest of the
    versions its module lists in ``VERSIONS`` up to that one (``None`` or ``"v1"``: the spec's class)."""
    game_spec = get_spec(game)
    cls = game_spec.heuristic_class(version)
    if cls is None:
        raise AgentSpecError(f"game {game_spec.name!r} has no heuristic agent; use random, greedy, mcts or ppo:PATH")
    return cls(seed)
