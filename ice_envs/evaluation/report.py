"""Reports of a tournament: the Markdown table, the win-rate chart and the report folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.core.files import atomic_path, write_atomic
from ice_envs.core.machine import machine_info


def truncation_note(summary: dict[str, Any]) -> str:
    """``"N truncated at the cap of M decisions (no winner)"``, or ``"none truncated"``."""
    truncated = int(summary.get("truncated_games", 0))
    cap = summary.get("max_decisions")
    at = f" at the cap of {cap} decisions" if cap else " at the decision cap"
    return f"{truncated} truncated{at} (no winner)" if truncated else "none truncated"


def to_markdown(summary: dict[str, Any], command: str) -> str:
    """The per-agent table as Markdown.

    The header line says how many games were truncated at the decision cap (they have no
    winner); the ``truncated`` column counts, per agent entry, the games it played that
    were stopped at the cap.
    """
    lines = [
        f"**{summary['game']}**, {summary['num_players']} players, {summary['games']} games, "
        f"random baseline {summary['random_baseline']:.3f}, mean {summary['mean_decisions']:.1f} decisions/game, "
        + truncation_note(summary),
        "",
        "| agent | win rate | 95% CI | mean score | 95% CI | mean rank | 95% CI | openskill μ ± σ | truncated |",
        "|---|---:|---|---:|---|---:|---|---|---:|",
    ]
    for r in summary["per_agent"]:
        lines.append(
            f"| {r['agent']} | {r['win_rate']:.3f} | [{r['win_rate_ci95'][0]:.3f}, {r['win_rate_ci95'][1]:.3f}] | "
            f"{r['mean_score']:.2f} | [{r['mean_score_ci95'][0]:.2f}, {r['mean_score_ci95'][1]:.2f}] | "
            f"{r['mean_rank']:.2f} | [{r['mean_rank_ci95'][0]:.2f}, {r['mean_rank_ci95'][1]:.2f}] | "
            f"{r['rating']['mu']:.1f} ± {r['rating']['sigma']:.1f} | {int(r.get('truncated', 0))} |"
        )
    seats = ", ".join(f"seat {r['seat']} {r['win_rate']:.3f}" for r in summary["win_rate_by_seat"])
    lines += ["", f"Win rate by seat (whoever sat there): {seats}", "", f"Command: `{command}`", ""]
    return "\n".join(lines)


def plot(summary: dict[str, Any], path: Path) -> None:
    """Bar chart of win rates with their 95% intervals and the random baseline."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["per_agent"]
    rates = [r["win_rate"] for r in rows]
    err = np.array([[r["win_rate"] - r["win_rate_ci95"][0], r["win_rate_ci95"][1] - r["win_rate"]] for r in rows]).T
    err = np.clip(err, 0.0, None)
    fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(rows), 3.6), dpi=100)
    ax.bar([r["agent"] for r in rows], rates, yerr=err, capsize=6, color="#3b7dd8")
    ax.axhline(summary["random_baseline"], color="#d84b3b", linestyle="--", label="1/N")
    ax.set_ylabel("win rate (95% Wilson CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{summary['game']}, {summary['num_players']} players, {summary['games']} games")
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def write_report(summary: dict[str, Any], out: Path, command: str, elapsed: float, workers: int) -> None:
    """``evaluation.json``, ``evaluation.md`` and ``evaluation.png`` in ``out``, each written atomically."""
    out.mkdir(parents=True, exist_ok=True)
    summary = {**summary, "command": command, "wall_seconds": elapsed, "workers": workers, "machine": machine_info()}
    write_atomic(out / "evaluation.json", json.dumps(summary, indent=2))
    write_atomic(out / "evaluation.md", to_markdown(summary, command))
    with atomic_path(out / "evaluation.png") as tmp:
        plot(summary, tmp)
