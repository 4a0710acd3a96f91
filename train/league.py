"""League self-play with prioritised fictitious self-play (PFSP), in the training process.

The league is a list of *members*: fixed agents (agent specs such as ``random``, ``greedy``,
``heuristic``, ``mcts:sims=50``, ``ppo:PATH``) and frozen snapshots of the learner (``.npz``
policies in ``<run>/pool``). Each training game's opponents are drawn from the members by the
envs' :class:`~ice_envs.wrappers.opponents.LeagueOpponents`, with integer weights that this
module computes and the training callback pushes to every env (``VecEnv.env_method``), after
each rollout (``VecEnv.set_attr("opponents", ...)``).

Win rates. The learner's win rate ``p`` against a member is estimated from its own training
games (``info["opponents"]`` names the member at episode end; a table of several members
credits each): exponentially decayed counts (``decay = 1 - 1/window``) with a prior of
``prior_games`` games at ``prior_win_rate`` (default 1/N)::

    p = (wins + prior_games * prior_win_rate) / (games + prior_games)

Draw weights. PFSP gives each member ``f(p)``: ``hard`` ``(1 - p) ** power`` (the members the
learner beats least are drawn most), ``variance`` ``p * (1 - p)`` (the members it beats about
half the time), ``uniform`` ``1``. The probabilities are ``floor + (1 - M * floor) * f / sum(f)``
for ``M`` members (so that nobody starves), quantised to integers out of :data:`QUANTUM` (each
at least 1 while ``floor > 0``): the draws depend on those integers only, never on the last
bits of a float.

Snapshots. The learner joins the league as a snapshot every ``snapshot_every`` steps and/or
when the *gate* is met: its estimated win rate against the latest snapshot (``gate_against:
latest``) or against the PFSP-weighted mix of all members (``mix``, ``sum(prob * p)``) reaches
``gate_win_rate`` after at least ``gate_min_games`` games since the last snapshot. At most
``max_snapshots`` snapshots stay members (the oldest leaves; its file stays). The state is
plain JSON (:meth:`League.state_dict`) in each checkpoint's ``.state.json``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ice_envs.wrappers.opponents import SEAT_SEPARATOR

__all__ = ["PFSP_MODES", "QUANTUM", "League", "Member", "pfsp_weights"]

#: Draw weights are integers out of this.
QUANTUM = 2**16
#: The PFSP weightings ``f(p)``.
PFSP_MODES = ("hard", "variance", "uniform")


def pfsp_weights(win_rates: list[float], mode: str, power: float = 2.0, floor: float = 0.0) -> list[int]:
    """The integer draw weights (out of about :data:`QUANTUM`) of members with the given win rates.

    Args:
        win_rates: the learner's estimated win rate against each member, in ``[0, 1]``.
        mode: ``hard`` (``(1 - p) ** power``), ``variance`` (``p * (1 - p)``) or ``uniform``.
        power: the exponent of ``hard``.
        floor: each member's least draw probability (capped at ``1/M``).

    Returns:
        One non-negative integer per member, not all 0; with ``floor > 0`` every one is >= 1.
    """
    if mode not in PFSP_MODES:
        raise ValueError(f"pfsp mode {mode!r} is not one of {list(PFSP_MODES)}")
    m = len(win_rates)
    if m == 0:
        return []
    if mode == "hard":
        f = [(1.0 - p) ** power for p in win_rates]
    elif mode == "variance":
        f = [p * (1.0 - p) for p in win_rates]
    else:
        f = [1.0] * m
    total = math.fsum(f)
    share = [x / total for x in f] if total > 0 else [1.0 / m] * m
    floor = min(max(floor, 0.0), 1.0 / m)
    probs = [floor + (1.0 - m * floor) * s for s in share]
    least = 1 if floor > 0 else 0
    weights = [max(least, int(round(p * QUANTUM))) for p in probs]
    return weights if sum(weights) > 0 else [1] * m


@dataclass
class Member:
    """One league member: ``kind`` ``agent`` (``ref`` an agent spec) or ``snapshot`` (``ref`` a file in the pool)."""

    name: str
    kind: str
    ref: str
    #: The training step a snapshot was taken at (0 for fixed agents).
    step: int = 0


class League:
    """The league of a training run: members, win-rate estimates, PFSP weights, snapshots.

    Args:
        directory: where snapshot files are written (``<run>/pool``).
        fixed: agent specs of the fixed members (their labels name them).
        num_players: seats at the table (the default prior win rate is 1/N).
        cfg: the ``opponents.league`` config (:class:`ice_envs.train.config.LeagueConfig`).
    """

    def __init__(self, directory: str | Path, fixed: list[str], num_players: int, cfg: Any) -> None:
        self.directory = Path(directory)
        self.cfg = cfg
        self.num_players = num_players
        self.prior = cfg.prior_win_rate if cfg.prior_win_rate is not None else 1.0 / num_players
        self.decay = 1.0 - 1.0 / cfg.window
        self.members: list[Member] = fixed_members(fixed)
        #: Per member name: ``[decayed wins, decayed games, games counted since it joined]``.
        self.stats: dict[str, list[float]] = {m.name: [0.0, 0.0, 0] for m in self.members}
        self.snapshots_taken = 0
        self.gate_promotions = 0
        self.scheduled = 0
        #: Games counted (every member) since the latest snapshot joined (the ``mix`` gate's evidence).
        self.games_since_snapshot = 0
        self.history: list[dict[str, Any]] = []
        self.weights: list[int] = self.compute_weights()

    # ------------------------------------------------------------------ estimates and weights
    def record(self, label: str, won: bool) -> None:
        """Count one finished training game against the table ``label`` (``info["opponents"]``)."""
        names = set(label.split(SEAT_SEPARATOR))
        known = [m.name for m in self.members if m.name in names]
        for name in known:
            s = self.stats[name]
            s[0] = s[0] * self.decay + (1.0 if won else 0.0)
            s[1] = s[1] * self.decay + 1.0
            s[2] = int(s[2]) + 1
        if known:
            self.games_since_snapshot += 1

    def win_rate(self, name: str) -> float:
        """The learner's estimated win rate against member ``name`` (see the module docstring)."""
        wins, games, _ = self.stats[name]
        k = self.cfg.prior_games
        return (wins + k * self.prior) / (games + k)

    def compute_weights(self) -> list[int]:
        """The PFSP weights of the members from the current estimates."""
        rates = [self.win_rate(m.name) for m in self.members]
        return pfsp_weights(rates, self.cfg.pfsp, self.cfg.pfsp_power, self.cfg.floor)

    def probs(self) -> list[float]:
        """Each member's draw probability (its weight over the weights' sum: exactly what the envs draw)."""
        total = sum(self.weights)
        return [w / total for w in self.weights]

    def mix_win_rate(self) -> float:
        """The learner's estimated win rate against the PFSP-weighted mix of all members."""
        return math.fsum(p * self.win_rate(m.name) for p, m in zip(self.probs(), self.members))

    # ------------------------------------------------------------------ snapshots
    @property
    def latest(self) -> Member | None:
        snaps = [m for m in self.members if m.kind == "snapshot"]
        return snaps[-1] if snaps else None

    def gate_met(self) -> bool:
        """Whether the win-rate gate admits the learner now (``gate_win_rate: null``: never)."""
        bound = self.cfg.gate_win_rate
        if bound is None:
            return False
        latest = self.latest
        if self.cfg.gate_against == "latest" and latest is not None:
            if self.stats[latest.name][2] < self.cfg.gate_min_games:
                return False
            return _quantised(self.win_rate(latest.name)) >= _quantised(bound)
        if self.games_since_snapshot < self.cfg.gate_min_games:
            return False
        return _quantised(self.mix_win_rate()) >= _quantised(bound)

    def add_snapshot(self, net: Any, step: int, reason: str) -> Member:
        """Write the learner's policy ``net`` (a :class:`PolicyNet`) as a snapshot member taken at ``step``."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"snap_{step:012d}"
        net.save_npz(self.directory / f"{name}.npz")
        member = Member(name, "snapshot", f"{name}.npz", step)
        self.members = [m for m in self.members if m.name != name] + [member]
        self.stats[name] = [0.0, 0.0, 0]
        snaps = [m for m in self.members if m.kind == "snapshot"]
        for old in snaps[: max(0, len(snaps) - self.cfg.max_snapshots)]:
            self.members.remove(old)
            del self.stats[old.name]
        self.snapshots_taken += 1
        self.gate_promotions += int(reason == "gate")
        self.scheduled += int(reason == "schedule")
        self.games_since_snapshot = 0
        self.history.append({"step": step, "member": name, "reason": reason})
        self.weights = self.compute_weights()
        return member

    def update(self, step: int, previous: int, net_fn: Any) -> str | None:
        """The league's events at a rollout boundary: a snapshot on the schedule or the gate, new weights.

        ``net_fn()`` gives the learner's current :class:`PolicyNet` (called only for a snapshot);
        ``previous`` is the step of the last events (the schedule fires when a multiple of
        ``snapshot_every`` lies in ``(previous, step]``). Returns the reason of a snapshot taken
        (``schedule`` or ``gate``), or ``None``.
        """
        every = self.cfg.snapshot_every
        reason = None
        if every > 0 and previous >= 0 and step // every > previous // every:
            reason = "schedule"
        elif step > 0 and self.gate_met():
            reason = "gate"
        if reason is not None:
            self.add_snapshot(net_fn(), step, reason)
        self.weights = self.compute_weights()
        return reason

    # ------------------------------------------------------------------ what the envs and TensorBoard get
    def table(self) -> tuple[list[tuple[str, str, str]], list[int]]:
        """``(members, weights)`` as :meth:`LeagueOpponents.set_league` takes them (snapshot paths absolute)."""
        members = [
            (m.name, m.kind, str(self.directory / m.ref) if m.kind == "snapshot" else m.ref) for m in self.members
        ]
        return members, list(self.weights)

    def scalars(self) -> dict[str, float]:
        """TensorBoard scalars: ``league/size``, ``league/snapshots``, ... and per member ``win_rate``, ``prob``, ``games``."""
        out = {
            "league/size": float(len(self.members)),
            "league/snapshots": float(sum(m.kind == "snapshot" for m in self.members)),
            "league/snapshots_taken": float(self.snapshots_taken),
            "league/gate_promotions": float(self.gate_promotions),
            "league/mix_win_rate": self.mix_win_rate(),
        }
        for m, p in zip(self.members, self.probs()):
            out[f"league/{m.name}/win_rate"] = self.win_rate(m.name)
            out[f"league/{m.name}/prob"] = p
            out[f"league/{m.name}/games"] = float(self.stats[m.name][2])
        return out

    # ------------------------------------------------------------------ state (plain JSON)
    def state_dict(self) -> dict[str, Any]:
        """The whole league as plain JSON data (what a checkpoint's ``.state.json`` holds under ``league``)."""
        return {
            "members": [asdict(m) for m in self.members],
            "stats": {k: [float(v[0]), float(v[1]), int(v[2])] for k, v in self.stats.items()},
            "weights": list(self.weights),
            "snapshots_taken": self.snapshots_taken,
            "gate_promotions": self.gate_promotions,
            "scheduled": self.scheduled,
            "games_since_snapshot": self.games_since_snapshot,
            "history": list(self.history),
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` (checked by ``train.checkpoints`` before it gets here)."""
        self.members = [Member(**m) for m in data["members"]]
        self.stats = {k: [float(v[0]), float(v[1]), int(v[2])] for k, v in data["stats"].items()}
        self.weights = [int(w) for w in data["weights"]]
        self.snapshots_taken = int(data["snapshots_taken"])
        self.gate_promotions = int(data["gate_promotions"])
        self.scheduled = int(data["scheduled"])
        self.games_since_snapshot = int(data["games_since_snapshot"])
        self.history = [dict(h) for h in data["history"]]


def fixed_members(specs: list[str]) -> list[Member]:
    """The fixed members of agent specs, named by their labels (``heuristic``, ``mcts:sims=50``, ``ppo:final.zip``)."""
    from ice_envs.agents.spec import parse_agent_spec

    return [Member(parse_agent_spec(s).label, "agent", s, 0) for s in specs]


def initial_table(specs: list[str]) -> tuple[list[tuple[str, str, str]], list[int]]:
    """The envs' first league: the fixed members, equally weighted (as every estimate starts at the prior)."""
    return [(m.name, m.kind, m.ref) for m in fixed_members(specs)], [1] * len(specs)


def _quantised(x: float) -> int:
    """A win rate as an integer out of :data:`QUANTUM` (the gate compares these, not float bits)."""
    return int(round(x * QUANTUM))
