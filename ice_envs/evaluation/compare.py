"""Two agents compared on identical deals: ``ice-envs compare``.

Each agent takes one seat against the same opponents, on the same deals, seats and agent seeds (two
tournaments of :func:`~ice_envs.evaluation.tournament.evaluate` with one seed: game ``i`` deals from
``seed + i // N`` and puts the agent under test in seat ``i mod N``), so game ``i`` differs between the
two runs only by the agent in that seat. The comparison is then paired, game by game:

- each agent's wins with a 95% Wilson interval (a shared win counts for each winner, as in ``evaluate``),
  its win share (a shared win split) and mean score;
- the games won by only one of the two (``only_a``, ``only_b``) and the exact two-sided sign test on
  them (McNemar's exact test: under "equally strong" each such game is a fair coin);
- the difference in win rate ``a - b`` and in mean score with 95% paired bootstrap intervals, the unit of
  resampling being the deal (the N games of one deal share its cards and dice), generated from ``seed``.

The figures depend only on the arguments, not on ``workers`` (the games are the same; the bootstrap
draws from its own seeded generator). ``docs/league.md`` ("Two agents on the same deals") shows a report.

    ice-envs compare iceberg_rummy ppo:A.npz ppo:B.npz --opponents heuristic --suite v1 --games 2000
    ice-envs compare cubemelt greedy heuristic --players 3 --opponents heuristic --games 3000 --seed 0
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ice_envs.core.agent import Agent
from ice_envs.core.errors import OptionError
from ice_envs.core.registry import get_spec
from ice_envs.evaluation.tournament import check_engine, checked_agents, entry_label, evaluate

#: Bootstrap resamples of the paired differences.
RESAMPLES = 4000


def sign_test_p(only_a: int, only_b: int) -> float:
    """Exact two-sided sign test: the chance, with ``n = only_a + only_b`` fair coins, of a split at
    least as uneven as this one (1.0 when ``n == 0``). Computed in exact fractions, then rounded once."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


def paired_bootstrap(diff: np.ndarray, groups: np.ndarray, seed: int) -> tuple[float, float]:
    """95% percentile interval of the mean of ``diff``, resampling whole groups (deals) with replacement."""
    _, group_of = np.unique(groups, return_inverse=True)
    sums = np.bincount(group_of, weights=np.asarray(diff, dtype=np.float64))
    sizes = np.bincount(group_of).astype(np.float64)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, sums.size, size=(RESAMPLES, sums.size))
    means = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def _opponent_list(opponents: str | Sequence[str | Agent], num_players: int) -> list[str | Agent]:
    """``opponents`` as one entry per other seat: one spec for all of them, or exactly ``N - 1``."""
    if isinstance(opponents, str):
        parts = [p.strip() for p in opponents.split(",") if p.strip()]
    else:
        parts = list(opponents)
    if len(parts) == 1:
        parts = parts * (num_players - 1)
    if len(parts) != num_players - 1:
        raise OptionError(
            f"--opponents: give one agent for every other seat or {num_players - 1} (one per seat), got {len(parts)}"
        )
    return parts


def _agent_row(label: str, spec: str, summary: dict[str, Any]) -> dict[str, Any]:
    """The agent under test's row of its tournament's summary (entry 0)."""
    row = summary["per_agent"][0]
    keys = ("games", "wins", "win_rate", "win_rate_ci95", "win_share", "mean_score")
    return {"agent": label, "spec": spec, **{key: row[key] for key in keys}}


def compare(
    game: str,
    num_players: int,
    agent_a: str | Agent,
    agent_b: str | Agent,
    opponents: str | Sequence[str | Agent],
    games: int,
    seed: int = 0,
    workers: int = 1,
    options: dict[str, Any] | None = None,
    max_decisions: int | None = None,
    progress: bool = True,
    engine: str = "auto",
    chance: str | None = None,
) -> dict[str, Any]:
    """Play ``agent_a`` and then ``agent_b`` in one seat against ``opponents`` on the same ``games``
    deals and seats; returns both rows and the paired statistics (see the module docstring).

    ``opponents``: one spec (every other seat) or ``num_players - 1`` of them, as a comma-separated
    string or a sequence of specs and :class:`~ice_envs.core.agent.Agent` objects.
    ``engine`` and ``chance``: as in :func:`~ice_envs.evaluation.tournament.evaluate` (each agent's tournament
    on its own engine, :func:`~ice_envs.evaluation.tournament.engine_for`); the report says ``chance`` unless
    it is ``numpy``, and does not depend on the engine.
    """
    chance = check_engine(engine, chance)
    others = _opponent_list(opponents, num_players)

    def check_agent_b() -> None:
        """``agent_b``'s table loads too (a misspelt spec or a missing checkpoint), before ``agent_a``'s first game."""
        checked_agents(get_spec(game).name, [agent_b, *others], num_players)

    runs = []
    for index, agent in enumerate((agent_a, agent_b)):
        summary, results = evaluate(
            game,
            num_players,
            [agent, *others],
            games,
            seed,
            workers,
            options,
            max_decisions=max_decisions,
            progress=progress,
            engine=engine,
            chance=chance,
            before_games=check_agent_b if index == 0 else None,
        )
        runs.append((summary, results))
    (summary_a, res_a), (summary_b, res_b) = runs
    win_a = np.array([bool(r["win"][0]) for r in res_a])
    win_b = np.array([bool(r["win"][0]) for r in res_b])
    score_a = np.array([r["score"][0] for r in res_a], dtype=np.float64)
    score_b = np.array([r["score"][0] for r in res_b], dtype=np.float64)
    deals = np.array([r["deal_seed"] for r in res_a], dtype=np.uint64)
    only_a = int((win_a & ~win_b).sum())
    only_b = int((win_b & ~win_a).sum())
    win_diff = win_a.astype(np.float64) - win_b.astype(np.float64)
    return {
        "game": summary_a["game"],
        "num_players": num_players,
        "options": summary_a["options"],
        "opponents": [entry_label_of(o) for o in others],
        "seed": seed,
        "games": len(res_a),
        "deals": int(np.unique(deals).size),
        "random_baseline": 1.0 / num_players,
        "a": _agent_row("a", entry_label_of(agent_a), summary_a),
        "b": _agent_row("b", entry_label_of(agent_b), summary_b),
        "paired": {
            "both_won": int((win_a & win_b).sum()),
            "only_a": only_a,
            "only_b": only_b,
            "neither": int((~win_a & ~win_b).sum()),
            "sign_test_p": sign_test_p(only_a, only_b),
            "win_rate_difference": float(win_diff.mean()),
            "win_rate_difference_ci95": list(paired_bootstrap(win_diff, deals, seed)),
            "mean_score_difference": float((score_a - score_b).mean()),
            "mean_score_difference_ci95": list(paired_bootstrap(score_a - score_b, deals, seed + 1)),
        },
        "truncated_games": [summary_a["truncated_games"], summary_b["truncated_games"]],
        # other deals than numpy chance's: said where it applies (numpy chance's reports stay as they were)
        **({"chance": chance} if chance != "numpy" else {}),
    }


def entry_label_of(agent: str | Agent) -> str:
    """The label of an agent entry: its spec text, or an object's name."""
    return agent if isinstance(agent, str) else entry_label(agent)


def to_markdown(report: dict[str, Any], command: str) -> str:
    """The comparison as a Markdown table and a paragraph of paired statistics."""
    n, paired = report["games"], report["paired"]
    lines = [
        f"# {report['game']}, {report['num_players']} players: two agents against "
        f"{', '.join(report['opponents'])} on the same {n} games ({report['deals']} deals)",
        "",
        "| | agent | wins | win rate | 95% CI | win share | mean score |",
        "|---|---|---:|---:|---|---:|---:|",
    ]
    for key in ("a", "b"):
        row = report[key]
        lo, hi = row["win_rate_ci95"]
        lines.append(
            f"| {key} | `{row['spec']}` | {row['wins']} | {row['win_rate']:.3f} | [{lo:.3f}, {hi:.3f}] | "
            f"{row['win_share']:.3f} | {row['mean_score']:.2f} |"
        )
    d_lo, d_hi = paired["win_rate_difference_ci95"]
    s_lo, s_hi = paired["mean_score_difference_ci95"]
    lines += [
        "",
        f"1/N = {report['random_baseline']:.3f}; a shared win counts for each winner (win share: split).",
        "",
        f"Paired, game by game: both won {paired['both_won']}, only a {paired['only_a']}, only b "
        f"{paired['only_b']}, neither {paired['neither']}; exact sign test on the games only one won: "
        f"p = {paired['sign_test_p']:.3g}. Win rate a - b: {paired['win_rate_difference']:+.4f} "
        f"[{d_lo:+.4f}, {d_hi:+.4f}]; mean score a - b: {paired['mean_score_difference']:+.3f} "
        f"[{s_lo:+.3f}, {s_hi:+.3f}] (95% paired bootstrap over deals).",
        "",
        f"Command: `{command}`",
        "",
    ]
    return "\n".join(lines)


def canonical_command(report: dict[str, Any], workers: int, max_decisions: int | None, engine: str = "auto") -> str:
    """The command that reproduces ``report``, every default spelled out (``--engine`` where not ``auto``,
    ``--chance`` where not ``numpy``)."""
    parts = [
        f"ice-envs compare {report['game']} {shlex.quote(report['a']['spec'])} {shlex.quote(report['b']['spec'])}",
        f"--players {report['num_players']} --opponents {shlex.quote(','.join(report['opponents']))}",
        f"--games {report['games']} --seed {report['seed']} --workers {workers}",
    ]
    for key, value in report["options"].items():
        parts.append(f"--option {shlex.quote(f'{key}={value}')}")
    if max_decisions is not None:
        parts.append(f"--max-decisions {max_decisions}")
    if engine != "auto":
        parts.append(f"--engine {engine}")
    if report.get("chance", "numpy") != "numpy":
        parts.append(f"--chance {report['chance']}")
    return " ".join(parts)
