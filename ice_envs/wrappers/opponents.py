"""Who plays the other seats of a :class:`~ice_envs.wrappers.single_agent.SingleAgentEnv`.

At every ``reset`` the env asks an *opponent sampler* for the agents of the seats the learner
does not hold (:class:`OpponentSampler`, one method: ``draw``). Two samplers ship here:

* :class:`FixedOpponents`: the same agents every game, from agent spec strings (``"random"``,
  ``"heuristic"``, ``"greedy"``, ``"mcts:sims=50"``, ``"ppo:PATH"``, ``"python:module:factory"``;
  see :mod:`ice_envs.agents.spec`) or :class:`~ice_envs.core.agent.Agent` objects, one for every
  opponent seat or one per seat. :func:`make_opponents` builds one from what a user passes as
  ``opponents=`` (and returns a sampler as it is).
* :class:`OpponentMix`: each game's opponents drawn from a weighted mix of kinds (``random``,
  ``heuristic``, ``self_play`` over ``.npz`` snapshots of the learner), as the training code uses it.
* :class:`LeagueOpponents`: each game's opponents drawn from league members (fixed agents and
  snapshots) by integer weights, as league self-play with PFSP uses it (``ice_envs.train.league``).

Opponents listed one per seat are placed in seat order from the learner's left: the ``k``-th sits
at seat ``(learner_seat + 1 + k) % num_players``. So with a drawn learner seat, the agent "after"
the learner is always the same one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ice_envs.agents.spec import AgentSpec, is_agent, load_agent, parse_agent_list, parse_agent_spec
from ice_envs.core.agent import Agent
from ice_envs.core.errors import AgentSpecError, OptionError

__all__ = [
    "KINDS",
    "MEMBER_KINDS",
    "SEAT_SEPARATOR",
    "FixedOpponents",
    "LeagueOpponents",
    "OpponentMix",
    "OpponentSampler",
    "OpponentsLike",
    "make_opponents",
]

#: The kinds an :class:`OpponentMix` weighs.
KINDS = ("random", "heuristic", "self_play")


@runtime_checkable
class OpponentSampler(Protocol):
    """Anything that seats opponents for a game (the wrapper calls ``draw`` at every reset)."""

    def draw(self, rng: np.random.Generator, seats: Sequence[int]) -> tuple[str, dict[int, Agent]]:
        """A label of the table (``random``, ``self_play``, ``mixed``...) and an agent per opponent seat.

        ``seats`` are the seats the learner does not hold, in ascending order; ``rng`` is the
        env's generator (draw from it only, so that the same seed seats the same table).
        """


#: What ``SingleAgentEnv(opponents=...)`` takes: a spec string (or a comma-separated list of them),
#: an :class:`Agent`, a list of specs and agents, or an :class:`OpponentSampler`.
OpponentsLike = str | Agent | Sequence["str | AgentSpec | Agent"] | OpponentSampler


class FixedOpponents:
    """The same opponents every game, from agent specs or :class:`Agent` objects.

    Args:
        game: the game's registry name (specs such as ``heuristic`` are built for it).
        num_players: seats at the table.
        agents: one spec or agent for every opponent seat, or ``num_players - 1`` of them (one per
            seat, from the learner's left; see the module docstring). A spec string is built into a
            fresh agent per seat (``load_agent(spec, game, num_players=num_players)``); an
            :class:`Agent` object is used as it is — given once for all seats, that one object
            plays them all, so give one object per seat for agents that keep state within a game.

    Every agent is reseeded by the env at each game start (``agent.reset(seed=...)``, seeds
    drawn from the env's generator), so a seeded env replays the same games.

    Raises:
        AgentSpecError: a bad spec, or a number of agents that is neither 1 nor ``num_players - 1``.
    """

    def __init__(self, game: str, num_players: int, agents: Sequence[str | AgentSpec | Agent]) -> None:
        items = list(agents)
        opponents = num_players - 1
        if not items:
            raise AgentSpecError("opponents: no agent given; give one for every seat or one per opponent seat")
        if len(items) not in (1, opponents):
            raise AgentSpecError(
                f"opponents: {len(items)} agents given for the {opponents} opponent seats of a {num_players}-player "
                f"game; give one for every seat or {opponents} (one per seat, from the learner's left)"
            )
        self.game = game
        self.num_players = num_players
        if len(items) == 1:
            items = items * opponents
        self.agents: list[Agent] = [load_agent(item, game, num_players=num_players) for item in items]
        self.labels = [_label(item, agent) for item, agent in zip(items, self.agents)]
        self.label = self.labels[0] if len(set(self.labels)) == 1 else ",".join(self.labels)

    def draw(self, rng: np.random.Generator, seats: Sequence[int]) -> tuple[str, dict[int, Agent]]:
        """The fixed agents at ``seats``, placed from the learner's left (``rng`` is not used)."""
        if not seats:  # a solo game
            return "solo", {}
        learner = next(s for s in range(self.num_players) if s not in seats)
        table = {(learner + 1 + k) % self.num_players: agent for k, agent in enumerate(self.agents)}
        return self.label, table


def _label(item: str | AgentSpec | Agent, agent: Agent) -> str:
    if isinstance(item, AgentSpec):
        return item.label
    if isinstance(item, str):
        return parse_agent_spec(item).label
    return str(getattr(agent, "name", type(agent).__name__))


def make_opponents(opponents: OpponentsLike | None, game: str, num_players: int) -> OpponentSampler:
    """The :class:`OpponentSampler` that ``opponents`` names (``None``: uniformly random agents).

    A string is read as a comma-separated agent list (:func:`ice_envs.agents.spec.parse_agent_list`,
    so ``"mcts:sims=50,rollout=random"`` is one agent and ``"heuristic,random"`` two); a sampler
    (anything with ``draw``) is returned as it is.
    """
    if opponents is None:
        return OpponentMix(game, {"random": 1.0})
    if is_agent(opponents) or isinstance(opponents, AgentSpec):
        return FixedOpponents(game, num_players, [opponents])  # type: ignore[list-item]
    if isinstance(opponents, str):
        return FixedOpponents(game, num_players, parse_agent_list(opponents))
    if isinstance(opponents, OpponentSampler):
        return opponents
    if isinstance(opponents, Sequence):
        return FixedOpponents(game, num_players, opponents)
    raise AgentSpecError(
        f"opponents={opponents!r}: give agent specs (e.g. 'heuristic' or ['heuristic', 'random']), Agent objects "
        "or an OpponentSampler (an object with draw(rng, seats))"
    )


class OpponentMix:
    """Draws each game's opponents from weighted kinds: ``random``, ``heuristic``, ``self_play``.

    Args:
        game: the game name (for the heuristic agent).
        mix: weight per kind (normalised; kinds with weight 0 are never drawn).
        per_seat: draw a kind per opponent seat (``True``) or one kind for the whole table.
        pool: ``.npz`` snapshot paths, oldest first (see :meth:`set_pool`).
        latest_share: chance that a self-play opponent is the latest snapshot; otherwise a
            snapshot is drawn uniformly from the pool.
        snapshot_deterministic: snapshots play their greedy action instead of sampling.

    Self-play opponents are :class:`~ice_envs.agents.ppo_agent.PPOAgent` copies of ``.npz``
    snapshots (numpy only, no torch in ``SubprocVecEnv`` workers); the training process keeps the
    pool (``ice_envs.train.opponents.SelfPlayPool``) and hands it over with :meth:`set_pool`.
    """

    def __init__(
        self,
        game: str,
        mix: dict[str, float],
        per_seat: bool = True,
        pool: Sequence[str] = (),
        latest_share: float = 0.5,
        snapshot_deterministic: bool = False,
    ) -> None:
        unknown = set(mix) - set(KINDS)
        if unknown:
            raise OptionError(f"unknown opponent kinds {sorted(unknown)}; use {list(KINDS)}")
        self.game = game
        self.kinds = [k for k in KINDS if mix.get(k, 0) > 0]
        if not self.kinds:
            raise OptionError("opponent mix: at least one kind needs a weight > 0")
        weights = np.array([mix[k] for k in self.kinds], dtype=np.float64)
        self.probs = weights / weights.sum()
        self.per_seat = per_seat
        self.latest_share = latest_share
        self.snapshot_deterministic = snapshot_deterministic
        self.pool: list[str] = []
        self._agents: dict[tuple[int, str, str], Agent] = {}
        self.set_pool(pool)

    def set_pool(self, paths: Sequence[str]) -> None:
        """Replace the self-play pool (oldest first; the last is the latest snapshot)."""
        self.pool = [str(p) for p in paths]
        keep = set(self.pool) | {""}
        self._agents = {key: a for key, a in self._agents.items() if key[2] in keep}

    def draw(self, rng: np.random.Generator, seats: Sequence[int]) -> tuple[str, dict[int, Agent]]:
        """A kind per seat (or one for the table) from the weights, and its agent."""
        if not seats:  # a solo game
            return "solo", {}
        if self.per_seat:
            kinds = [self.kinds[rng.choice(len(self.kinds), p=self.probs)] for _ in seats]
        else:
            kinds = [self.kinds[rng.choice(len(self.kinds), p=self.probs)]] * len(seats)
        table = {seat: self._agent(seat, kind, rng) for seat, kind in zip(seats, kinds)}
        label = kinds[0] if len(set(kinds)) == 1 else "mixed"
        return label, table

    def _agent(self, seat: int, kind: str, rng: np.random.Generator) -> Agent:
        path = ""
        if kind == "self_play":
            if not self.pool:
                raise RuntimeError("self-play opponent drawn but the snapshot pool is empty")
            use_latest = len(self.pool) == 1 or rng.random() < self.latest_share
            path = self.pool[-1] if use_latest else self.pool[int(rng.integers(len(self.pool)))]
        key = (seat, kind, path)
        if key not in self._agents:
            self._agents[key] = _mix_agent(self.game, kind, path, self.snapshot_deterministic)
        return self._agents[key]


def _mix_agent(game: str, kind: str, path: str, deterministic: bool) -> Any:
    if kind == "random":
        from ice_envs.agents.random_agent import RandomAgent

        return RandomAgent()
    if kind == "heuristic":
        return load_agent("heuristic", game)
    from ice_envs.agents.ppo_agent import PPOAgent, load_policy_net

    return PPOAgent(load_policy_net(path), deterministic=deterministic, label=f"snapshot:{Path(path).stem}")


#: What a league member is: a fixed agent from an agent spec, or a frozen snapshot of the learner.
MEMBER_KINDS = ("agent", "snapshot")
#: Separates the members of a table in the label of a :class:`LeagueOpponents` draw with ``per_seat``.
SEAT_SEPARATOR = "|"


class LeagueOpponents:
    """Draws each game's opponents from league members by integer weights (PFSP's draws).

    Args:
        game: the game's registry name.
        num_players: seats at the table.
        members: ``(name, kind, ref)`` per member: ``kind`` ``"agent"`` builds ``ref`` as an agent
            spec (``random``, ``greedy``, ``heuristic``, ``mcts:...``, ``ppo:PATH``); ``"snapshot"``
            loads the ``.npz`` policy file ``ref`` (a frozen copy of the learner, numpy only).
        weights: a non-negative integer draw weight per member (the training process quantises
            its PFSP probabilities, e.g. to integers out of ``2**16``); at least one above 0.
        per_seat: draw a member per opponent seat (``True``) or one member for the whole table.
        snapshot_deterministic: snapshots play their greedy action instead of sampling.

    A draw takes ``r = rng.integers(sum(weights))`` and seats the first member whose running
    weight sum exceeds ``r``: integer arithmetic only, so a seeded env seats the same tables on
    every machine. The label of a table is the member's name (one member for the table) or the
    seats' member names from the learner's left joined by :data:`SEAT_SEPARATOR`; the training
    process reads it from ``info["opponents"]`` at episode end to estimate its win rate against
    each member. :meth:`set_league` replaces members and weights (``VecEnv.env_method``).

    Raises:
        OptionError: a bad member list or weights.
    """

    def __init__(
        self,
        game: str,
        num_players: int,
        members: Sequence[tuple[str, str, str]],
        weights: Sequence[int],
        per_seat: bool = False,
        snapshot_deterministic: bool = False,
    ) -> None:
        self.game = game
        self.num_players = num_players
        self.per_seat = per_seat
        self.snapshot_deterministic = snapshot_deterministic
        self.members: list[tuple[str, str, str]] = []
        self.weights: list[int] = []
        self._cumulative: list[int] = []
        self._agents: dict[tuple[int, str, str, str], Agent] = {}
        self.set_league(members, weights)

    def set_league(self, members: Sequence[tuple[str, str, str]], weights: Sequence[int]) -> None:
        """Replace the members and their integer draw weights (agents of members still present are kept)."""
        members = [(str(n), str(k), str(r)) for n, k, r in members]
        weights = [int(w) for w in weights]
        if not members:
            raise OptionError("league: no member to draw opponents from")
        if len(weights) != len(members):
            raise OptionError(f"league: {len(weights)} weights for {len(members)} members")
        names = [m[0] for m in members]
        if len(set(names)) != len(names):
            raise OptionError(f"league: member names must be distinct, got {names}")
        for name, kind, _ in members:
            if kind not in MEMBER_KINDS:
                raise OptionError(f"league member {name!r}: kind {kind!r} is not one of {list(MEMBER_KINDS)}")
            if SEAT_SEPARATOR in name:
                raise OptionError(f"league member {name!r}: a name may not contain {SEAT_SEPARATOR!r}")
        if any(w < 0 for w in weights) or sum(weights) <= 0:
            raise OptionError(f"league: weights must be >= 0 and not all 0, got {weights}")
        self.members = members
        self.weights = weights
        self._cumulative = np.cumsum(np.asarray(weights, dtype=np.int64)).tolist()
        keep = set(members)
        self._agents = {key: a for key, a in self._agents.items() if key[1:] in keep}

    def draw(self, rng: np.random.Generator, seats: Sequence[int]) -> tuple[str, dict[int, Agent]]:
        """Members for the opponent seats by the integer weights, and their agents."""
        if not seats:  # a solo game
            return "solo", {}
        learner = next(s for s in range(self.num_players) if s not in seats)
        order = sorted(seats, key=lambda s: (s - learner) % self.num_players)  # from the learner's left
        picks = [self._pick(rng) for _ in order] if self.per_seat else [self._pick(rng)] * len(order)
        table = {seat: self._agent(seat, self.members[i]) for seat, i in zip(order, picks)}
        names = [self.members[i][0] for i in picks]
        label = names[0] if len(set(names)) == 1 else SEAT_SEPARATOR.join(names)
        return label, table

    def _pick(self, rng: np.random.Generator) -> int:
        r = int(rng.integers(self._cumulative[-1]))
        return next(i for i, c in enumerate(self._cumulative) if c > r)

    def _agent(self, seat: int, member: tuple[str, str, str]) -> Agent:
        key = (seat, *member)
        if key not in self._agents:
            name, kind, ref = member
            if kind == "agent":
                agent = load_agent(ref, self.game, num_players=self.num_players)
            else:
                from ice_envs.agents.ppo_agent import PPOAgent, load_policy_net

                agent = PPOAgent(load_policy_net(ref), deterministic=self.snapshot_deterministic, label=name)
            self._agents[key] = agent
        return self._agents[key]
