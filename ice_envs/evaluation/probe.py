"""The headroom probe: how far a policy is from its own one-step improvement, per kind of decision.

    ice-envs probe iceberg_rummy --points 40 --samples 16          # heuristic self-play, heuristic continuation
    ice-envs probe tip_of_the_diceberg --baseline random --continuation heuristic

For a multiplayer game of hidden information there is no exact best response to measure a policy
against; what can be measured is whether *one* decision, changed and then followed by the policy
again, wins more often. That is one step of policy improvement (Bertsekas' rollout algorithm), and
a decision where it finds a better move with confidence is headroom that a search, a better
heuristic or a learner can take.

1. **Decision points.** Games of the **baseline** (an agent spec, default ``heuristic``) against
   itself at the table (by default the game's table of the held-out suite v1: its players and
   options) are played on deals ``seed * 2**32 + g``; of each game's decisions with two or more
   legal moves (and, with ``kinds``, of those kinds only), ``per_game`` are drawn at random. Each keeps the engine state, the deciding seat,
   its legal moves and the move the baseline played there.
2. **Candidates.** Every legal move (with ``max_candidates``: the baseline's move and
   ``max_candidates - 1`` others drawn at random).
3. **Samples.** A sample re-deals everything the deciding seat cannot see, consistently with what
   it has seen (the engine's ``resample_hidden``, :meth:`~ice_envs.agents.search.Simulator.determinize`),
   and fixes a seed for chance and for the continuation agents. Every candidate of the point is
   played on the same samples (common random numbers): the move, then the **continuation** policy
   (an agent spec, default ``heuristic``) in every seat to the end of the game. A sample's value is
   the deciding seat's win share (a win shared by ``k`` seats is worth ``1/k``). The continuation
   agents are handed the sampled state as their view, as the search agents' rollouts are.
4. **Select, then validate.** The best candidate is picked by its mean on one set of ``samples``
   samples (ties: the baseline's move, then the lowest id); on a fresh set of ``samples`` samples
   its paired difference to the baseline's move is measured. The point **has a validated better
   move** when that difference is above 0 by at least ``z_min`` (default 2) standard errors. The
   point's **gain** is the difference on the fresh set (0 when the baseline's move is picked): an
   unbiased estimate of what playing the picked move there is worth, positive or negative.

   At ``z_min = 2`` a point where a challenger is picked validates by chance about 2.3% of the time
   even where no move is better (the one-sided normal tail): the report gives that expectation
   (``chance_validated``: 0.023 times the points where a challenger was picked) beside the count.
   With ``recheck`` > 0 every validated point is measured once more, on a third, independent set of
   ``recheck`` samples; it is **confirmed** when that difference too is above 0 by ``z_min``
   standard errors. A point with no real gain passes both with probability about 0.023 squared, so
   confirmed points are headroom, and validated ones that fail the recheck were most likely chance.
5. **Report.** Per decision kind (the first words of the game's ``describe_action`` over the legal
   moves, e.g. ``play/pass``): points, how many have a validated better move and their share, the
   mean gain per decision with its standard error clustered by deal (the points of one game are not
   independent), the validated gains, the count expected by chance and (with ``recheck``) the
   confirmed points; the same over all points.

Everything is deterministic for a seed: each point's samples are drawn from
``SeedSequence([seed, point, set, sample])``, so ``workers`` changes the time, not the report.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

import ice_envs
from ice_envs.agents.search import Simulator, simulator_for
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.core.agent import Agent, PlayerView, make_view
from ice_envs.core.errors import OptionError
from ice_envs.core.registry import get_spec

__all__ = [
    "ProbeSettings",
    "chance_share",
    "decision_kind",
    "default_table",
    "probe",
    "probe_point",
    "sample_points",
    "summarize",
    "to_markdown",
]

#: Deals of probe game ``g`` under seed ``s``: ``s * DEAL_STRIDE + g`` (training seeds, never a suite's).
#: Sampling gives up (an ``OptionError``) when 20 games give no point of the kinds asked for.
DEAL_STRIDE = 2**32


@dataclass(frozen=True)
class ProbeSettings:
    """What one probe measures (see the module docstring)."""

    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    baseline: str = "heuristic"
    continuation: str = "heuristic"
    points: int = 20
    per_game: int = 2
    samples: int = 16
    max_candidates: int | None = None
    z_min: float = 2.0
    seed: int = 0
    #: Only decision points of these kinds (:func:`decision_kind`); empty: every kind.
    kinds: tuple[str, ...] = ()
    #: Samples of the third set that re-measures every validated point (0: no recheck).
    recheck: int = 0

    def check(self) -> ProbeSettings:
        """These settings with the game's registry name; ``OptionError`` names a bad value."""
        spec = get_spec(self.game)
        for name in ("points", "per_game", "samples"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise OptionError(f"probe: {name} must be an integer >= 1, got {value!r}")
        if self.samples < 2:
            raise OptionError(f"probe: samples must be >= 2 (a standard error needs two), got {self.samples}")
        if isinstance(self.recheck, bool) or not isinstance(self.recheck, int) or self.recheck == 1 or self.recheck < 0:
            raise OptionError(f"probe: recheck must be 0 or an integer >= 2, got {self.recheck!r}")
        if self.max_candidates is not None and self.max_candidates < 2:
            raise OptionError(f"probe: max_candidates must be >= 2, got {self.max_candidates}")
        if self.seed < 0:
            raise OptionError(f"probe: seed must be >= 0, got {self.seed}")
        if not self.z_min > 0:
            raise OptionError(f"probe: z_min must be > 0, got {self.z_min}")
        for role in ("baseline", "continuation"):
            spec_text = getattr(self, role)
            try:
                parse_agent_spec(spec_text)
            except ValueError as exc:
                raise OptionError(f"probe: {role}: {exc}") from None
        ice_envs.make(spec.name, raw=True, num_players=self.players, **self.options)  # checks players and options
        return ProbeSettings(**{**asdict(self), "game": spec.name, "kinds": tuple(self.kinds)})


def default_table(game: str) -> tuple[int, dict[str, Any]]:
    """``(players, options)`` of the game's heuristic table in suite v1, else its smallest table."""
    from ice_envs.evaluation.suite import SUITE_V1

    spec = get_spec(game)
    tables = [t for t in SUITE_V1.tables_of(spec.name) if set(t.opponents) == {"heuristic"}]
    if tables:
        return tables[0].players, dict(tables[0].options)
    return min(spec.players), {}


def decision_kind(sim: Simulator, state: Any, legal: Sequence[int]) -> str:
    """The kind of a decision: the distinct first words of its legal moves' descriptions, sorted, joined by ``/``."""
    words = {(sim.describe(state, a).split() or ["?"])[0] for a in legal}
    return "/".join(sorted(words))


# ---------------------------------------------------------------------------- decision points
@dataclass
class Point:
    """A decision point of baseline play."""

    index: int
    deal: int
    game_index: int
    step: int
    seat: int
    legal: list[int]
    played: int
    state: Any


def chance_share(z_min: float) -> float:
    """The one-sided normal tail above ``z_min``: the share of points where a challenger is picked that
    validate by chance alone."""
    return 0.5 * math.erfc(z_min / math.sqrt(2.0))


def _seed(*parts: int) -> int:
    """A seed in ``[0, 2**63)`` drawn from ``parts`` (NumPy's ``SeedSequence``)."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _agents(spec: str, game: str, players: int) -> list[Agent]:
    return [load_agent(spec, game, seed=0, num_players=players) for _ in range(players)]


def sample_points(settings: ProbeSettings) -> list[Point]:
    """``settings.points`` decision points of baseline self-play (see the module docstring, step 1)."""
    game, n = settings.game, settings.players
    agents = _agents(settings.baseline, game, n)
    sim = simulator_for(game, n)
    points: list[Point] = []
    g = 0
    while len(points) < settings.points:
        deal = settings.seed * DEAL_STRIDE + g
        env = ice_envs.make(game, num_players=n, **settings.options)
        env.reset(seed=deal)
        raw = env.unwrapped
        for k, agent in enumerate(agents):
            agent.reset(seed=_seed(settings.seed, g, k))
        view_rng = np.random.default_rng([settings.seed, g])
        found: list[tuple[int, int, list[int], int, Any]] = []
        step = 0
        for name in env.agent_iter():
            _, _, term, trunc, _ = env.last(observe=False)
            if term or trunc:
                env.step(None)
                continue
            seat = raw.possible_agents.index(name)
            agent = agents[seat]
            obs = env.observe(name)
            legal = sorted(int(a) for a in np.flatnonzero(obs["action_mask"]))
            state = Simulator.copy(raw.game_state) if len(legal) > 1 else None
            if state is not None and settings.kinds and decision_kind(sim, state, legal) not in settings.kinds:
                state = None
            view = make_view(env, seat, view_rng) if agent.needs_view else None
            action = int(agent.act(obs, view))
            if state is not None:
                found.append((step, seat, legal, action, state))
            env.step(action)
            step += 1
        rng = np.random.default_rng([settings.seed, g, 1])
        take = min(settings.per_game, len(found), settings.points - len(points))
        for i in sorted(rng.choice(len(found), size=take, replace=False).tolist()):
            st, seat, legal, action, state = found[i]
            points.append(Point(len(points), deal, g, st, seat, legal, action, state))
        g += 1
        if g > 100 * settings.points or (g >= 20 and not points):
            raise OptionError(
                f"probe: {game} baseline games have no decision with two or more legal moves"
                + (f" of kind {' or '.join(settings.kinds)}" if settings.kinds else "")
            )
    return points


# ---------------------------------------------------------------------------- one point
def _play_out(sim: Simulator, state: Any, agents: list[Agent], rng: np.random.Generator) -> None:
    """Play ``state`` on to the end (or the engine's declared maximum length) with ``agents`` per seat,
    chance drawn from ``rng``."""
    for _ in range(sim.max_decisions):
        if sim.is_over(state):
            return
        legal = sim.legal_actions(state)
        seat = sim.deciding_seat(state)
        if len(legal) == 1:
            action = legal[0]
        else:
            agent = agents[seat]
            observation = {"action_mask": sim.mask(legal)}
            if agent.needs_observation:
                observation["observation"] = sim.observation(state, seat)
            view = PlayerView(sim.game, seat, sim.num_players, state, list(legal)) if agent.needs_view else None
            action = int(agent.act(observation, view))
        sim.apply(state, action, rng)


def _sample_values(
    sim: Simulator, point: Point, candidates: list[int], agents: list[Agent], seed: int, set_index: int, j: int
) -> list[int]:
    """Each candidate's value (win share of the deciding seat, units of ``1/sim.unit``) on one sample."""
    base = _seed(seed, point.index, set_index, j)
    deal = sim.determinize(point.state, point.seat, np.random.default_rng(base))
    values = []
    for action in candidates:
        state = sim.copy(deal)
        rng = np.random.default_rng(_seed(base, 1))
        for k, agent in enumerate(agents):
            agent.reset(seed=_seed(base, 2, k))
        sim.apply(state, action, rng)
        _play_out(sim, state, agents, rng)
        values.append(sim.win_rewards(state)[point.seat])
    return values


def _candidates(settings: ProbeSettings, point: Point) -> list[int]:
    """The baseline's move first, then the other candidates ascending."""
    others = [a for a in point.legal if a != point.played]
    if settings.max_candidates is not None and len(others) > settings.max_candidates - 1:
        rng = np.random.default_rng(_seed(settings.seed, point.index, 9))
        others = sorted(rng.choice(others, size=settings.max_candidates - 1, replace=False).tolist())
    return [point.played, *others]


def probe_point(settings: ProbeSettings, point: Point) -> dict[str, Any]:
    """The probe of one decision point (steps 2-4 of the module docstring) as a JSON-ready record."""
    sim = simulator_for(settings.game, settings.players)
    agents = _agents(settings.continuation, settings.game, settings.players)
    candidates = _candidates(settings, point)
    unit = sim.unit
    select = np.array(
        [_sample_values(sim, point, candidates, agents, settings.seed, 0, j) for j in range(settings.samples)],
        dtype=np.int64,
    )
    sums = select.sum(axis=0)
    best_i = max(range(len(candidates)), key=lambda i: (int(sums[i]), -i))  # ties: the baseline's move, lowest id
    best = candidates[best_i]
    n = settings.samples
    recheck: dict[str, Any] = {}
    if best_i == 0:
        gain, se, z, base_sum = 0.0, 0.0, 0.0, int(sums[0])
        validated = False
        base_value = base_sum / (unit * n)
    else:
        pair = [best, point.played]
        gain, se, z, base_value = _paired(sim, point, pair, agents, settings.seed, 1, n)
        validated = gain > 0 and z >= settings.z_min
        if validated and settings.recheck:
            r_gain, r_se, r_z, _ = _paired(sim, point, pair, agents, settings.seed, 2, settings.recheck)
            recheck = {
                "recheck_gain": r_gain,
                "recheck_se": r_se,
                "recheck_z": None if math.isinf(r_z) else r_z,
                "confirmed": bool(r_gain > 0 and r_z >= settings.z_min),
            }
    return {
        "index": point.index,
        "deal": point.deal,
        "game_index": point.game_index,
        "step": point.step,
        "seat": point.seat,
        "kind": decision_kind(sim, point.state, point.legal),
        "legal": len(point.legal),
        "candidates": len(candidates),
        "played": point.played,
        "played_text": sim.describe(point.state, point.played),
        "best": best,
        "best_text": sim.describe(point.state, best),
        "selection_means": {str(a): float(s) / (unit * n) for a, s in zip(candidates, sums, strict=True)},
        "base_value": base_value,
        "gain": gain,
        "gain_se": se,
        "z": None if math.isinf(z) else z,
        "validated": bool(validated),
        **recheck,
    }


def _paired(
    sim: Simulator, point: Point, pair: list[int], agents: list[Agent], seed: int, set_index: int, n: int
) -> tuple[float, float, float, float]:
    """``pair[0]`` against ``pair[1]`` on ``n`` samples of set ``set_index``: the mean paired difference,
    its standard error, its z (``inf`` when every difference is the same positive number) and the
    mean value of ``pair[1]``."""
    values = np.array([_sample_values(sim, point, pair, agents, seed, set_index, j) for j in range(n)], dtype=np.int64)
    diffs = (values[:, 0] - values[:, 1]) / sim.unit
    gain = float(diffs.mean())
    se = float(diffs.std(ddof=1) / math.sqrt(n))
    z = math.inf if se == 0 and gain > 0 else (gain / se if se > 0 else 0.0)
    return gain, se, z, float(values[:, 1].mean() / sim.unit)


# ---------------------------------------------------------------------------- summary
def _clustered(gains: list[float], clusters: list[int]) -> tuple[float, float | None]:
    """Mean of ``gains`` and its standard error clustered by ``clusters`` (``None`` with one cluster)."""
    n = len(gains)
    mean = sum(gains) / n
    by: dict[int, float] = defaultdict(float)
    for g, c in zip(gains, clusters, strict=True):
        by[c] += g - mean
    k = len(by)
    if k < 2:
        return mean, None
    return mean, math.sqrt(k / (k - 1) * sum(v * v for v in by.values())) / n


def _row(records: list[dict[str, Any]], z_min: float, rechecked: bool) -> dict[str, Any]:
    gains = [r["gain"] for r in records]
    mean, se = _clustered(gains, [r["deal"] for r in records])
    validated = [r for r in records if r["validated"]]
    challenged = sum(r["best"] != r["played"] for r in records)
    row = {
        "points": len(records),
        "deals": len({r["deal"] for r in records}),
        "validated": len(validated),
        "share": len(validated) / len(records),
        "chance_validated": challenged * chance_share(z_min),
        "mean_gain": mean,
        "mean_gain_se": se,
        "validated_gains": sorted(r["gain"] for r in validated),
        "base_value": sum(r["base_value"] for r in records) / len(records),
    }
    if rechecked:
        row["confirmed"] = sum(bool(r.get("confirmed")) for r in records)
    return row


def summarize(records: list[dict[str, Any]], z_min: float = 2.0, rechecked: bool = False) -> dict[str, Any]:
    """Per decision kind and over all points: see the module docstring, step 5. ``rechecked``: the validated
    points were rechecked, so every row counts its confirmed points (0 where none was validated)."""
    kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        kinds[r["kind"]].append(r)
    return {
        "kinds": {k: _row(v, z_min, rechecked) for k, v in sorted(kinds.items())},
        "all": _row(records, z_min, rechecked),
    }


def probe(settings: ProbeSettings, workers: int = 1, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Run the probe; the report (settings, every point's record, the summary), JSON-ready."""
    settings = settings.check()
    points = sample_points(settings)
    if workers <= 1:
        records = []
        for point in points:
            records.append(probe_point(settings, point))
            if progress is not None:
                progress(1)
    else:
        import multiprocessing as mp
        import sys

        ctx = mp.get_context("spawn" if sys.platform == "darwin" else "fork")
        with ctx.Pool(workers) as pool:
            records = []
            for record in pool.imap_unordered(_probe_job, [(settings, p) for p in points]):
                records.append(record)
                if progress is not None:
                    progress(1)
        records.sort(key=lambda r: r["index"])
    return {
        "settings": asdict(settings),
        "summary": summarize(records, settings.z_min, settings.recheck > 0),
        "points": records,
    }


def _probe_job(job: tuple[ProbeSettings, Point]) -> dict[str, Any]:
    return probe_point(*job)


def _fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:+.{digits}f}"


def to_markdown(report: dict[str, Any], command: str | None = None) -> str:
    """The report as a Markdown page: the settings and the table per decision kind."""
    s = report["settings"]
    opts = ", ".join(f"{k}={v}" for k, v in s["options"].items()) or "none"
    lines = [
        f"# Headroom probe: {s['game']}, {s['players']} players",
        "",
        f"Baseline `{s['baseline']}`, continuation `{s['continuation']}`, options: {opts}; "
        f"{s['points']} points ({s['per_game']} per game, seed {s['seed']}), {s['samples']} samples to select "
        f"and {s['samples']} fresh ones to validate (z >= {s['z_min']:g})"
        + (f", at most {s['max_candidates']} candidates a point" if s["max_candidates"] else "")
        + (f", only decisions of kind {', '.join(s['kinds'])}" if s.get("kinds") else "")
        + (f"; every validated point rechecked on {s['recheck']} more samples" if s.get("recheck") else "")
        + ".",
        "",
    ]
    if command:
        lines += ["```", command, "```", ""]
    rechecked = bool(s.get("recheck"))
    lines += [
        "| decision kind | points | deals | validated better | by chance | "
        + ("confirmed | " if rechecked else "")
        + "share | mean gain | SE (by deal) | validated gains | baseline value |",
        "|---|---:|---:|---:|---:|" + ("---:|" if rechecked else "") + "---:|---:|---:|---|---:|",
    ]
    rows = [*report["summary"]["kinds"].items(), ("**all**", report["summary"]["all"])]
    for kind, row in rows:
        gains = ", ".join(f"{g:+.2f}" for g in row["validated_gains"]) or "-"
        lines.append(
            f"| {kind} | {row['points']} | {row['deals']} | {row['validated']} | {row['chance_validated']:.1f} | "
            + (f"{row.get('confirmed', 0)} | " if rechecked else "")
            + f"{row['share']:.2f} | {_fmt(row['mean_gain'])} | {_fmt(row['mean_gain_se']).lstrip('+')} | {gains} | "
            f"{row['base_value']:.3f} |"
        )
    lines += [
        "",
        "Gains are in win shares of the deciding seat per decision (1 = a whole game won); the mean gain "
        "is measured on the validation samples at every point (0 where the baseline's move was picked). "
        '"By chance": the validated points expected where no move is better (the normal tail above z '
        "at every point where a challenger was picked)"
        + ('; "confirmed": validated again on the recheck\'s samples.' if rechecked else "."),
        "",
    ]
    validated = [r for r in report["points"] if r["validated"]]
    if validated:
        lines += [
            "| point | deal | step | seat | baseline's move | better move | gain | z |"
            + (" recheck | recheck z |" if rechecked else ""),
            "|---:|---:|---:|---:|---|---|---:|---:|" + ("---:|---:|" if rechecked else ""),
        ]
        for r in validated:
            z = "inf" if r["z"] is None else f"{r['z']:.1f}"
            line = (
                f"| {r['index']} | {r['deal']} | {r['step']} | {r['seat']} | {r['played_text']} | {r['best_text']} "
                f"| {r['gain']:+.3f} ± {r['gain_se']:.3f} | {z} |"
            )
            if rechecked:
                rz = "inf" if r["recheck_z"] is None else f"{r['recheck_z']:.1f}"
                line += f" {r['recheck_gain']:+.3f} ± {r['recheck_se']:.3f} | {rz} |"
            lines.append(line)
        lines.append("")
    return "\n".join(lines)
