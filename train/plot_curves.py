"""Learning curves of a run as a PNG, read from its TensorBoard scalars.

    python -m ice_envs.train.plot_curves runs/train/cardiceo_ppo-seed0 [--out curves.png]
    python -m ice_envs.train.plot_curves runs/train/cubemelt_ppo-seed0 runs/train/cubemelt_ppo-seed1 ... --out seeds.png

Panels: evaluation win rate against each opponent kind with its 95% Wilson band and the
1/N line; the training games' win rate (all games and each fixed opponent) and mean return; game
length; and the league (members, gate promotions, PFSP win-rate estimates of its fixed members), or the
self-play pool (size, promotions), or else the policy entropy. Needs matplotlib (``eval`` extra).

With several run directories (the seeds of one config) it draws :func:`plot_seeds` instead: per opponent
kind, each seed's evaluation win rate and their mean with a 95% interval over the seeds
(``mean +- t(0.975, k-1) * sd / sqrt(k)`` at the evaluation steps every seed has).
"""

from __future__ import annotations

import argparse
from pathlib import Path

Scalars = dict[str, list[tuple[int, float]]]
COLOURS = {
    "random": "#3b7dd8",
    "heuristic": "#d8843b",
    "self_play": "#4caf50",
    "mixed": "#8e59c4",
    "greedy": "#c23b8e",
}


def read_scalars(run_dir: str | Path) -> Scalars:
    """Every scalar of the run's TensorBoard events: tag -> [(step, value)] sorted by step (last value per step)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    merged: dict[str, dict[int, float]] = {}
    files = sorted(Path(run_dir).rglob("events.out.tfevents.*"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    for path in files:
        acc = EventAccumulator(str(path), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags().get("scalars", []):
            series = merged.setdefault(tag, {})
            for event in acc.Scalars(tag):
                series[int(event.step)] = float(event.value)
    return {tag: sorted(points.items()) for tag, points in merged.items()}


def _xy(scalars: Scalars, tag: str) -> tuple[list[int], list[float]]:
    points = scalars.get(tag, [])
    return [p[0] for p in points], [p[1] for p in points]


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Draw the run's curves to ``out`` (default ``<run>/curves.png``); returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    out = Path(out) if out is not None else run_dir / "curves.png"
    s = read_scalars(run_dir)
    kinds = sorted(
        t.removeprefix("eval/win_rate_vs_")
        for t in s
        if t.startswith("eval/win_rate_vs_") and not t.endswith(("_ci_low", "_ci_high"))
    )
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), dpi=100)

    ax = axes[0][0]
    for kind in kinds:
        x, y = _xy(s, f"eval/win_rate_vs_{kind}")
        _, lo = _xy(s, f"eval/win_rate_vs_{kind}_ci_low")
        _, hi = _xy(s, f"eval/win_rate_vs_{kind}_ci_high")
        colour = COLOURS.get(kind, None)
        ax.plot(x, y, marker="o", ms=3, label=f"vs {kind}", color=colour)
        if len(lo) == len(x) and len(hi) == len(x):
            ax.fill_between(x, lo, hi, alpha=0.2, color=colour)
    xb, yb = _xy(s, "eval/random_baseline")
    if yb:
        ax.axhline(yb[-1], color="#d84b3b", linestyle="--", label="1/N")
    if not kinds:
        ax.text(0.5, 0.5, "no evaluations in this run", ha="center", va="center", transform=ax.transAxes)
    ax.set_title("evaluation win rate (95% Wilson band)")
    ax.set_ylim(0, 1)
    _finish(ax)

    ax = axes[0][1]
    for tag in sorted(t for t in s if t.startswith("games/win_rate") and _fixed_opponent(t)):
        label = tag.removeprefix("games/").replace("win_rate_vs_", "vs ").replace("win_rate", "all")
        x, y = _xy(s, tag)
        ax.plot(x, y, label=f"training games {label}", color=COLOURS.get(label.removeprefix("vs "), None), lw=1)
    x, y = _xy(s, "rollout/ep_rew_mean")
    if y:
        ax.plot(x, y, label="mean return (last 100)", color="black", lw=1, alpha=0.6)
    ax.set_title("training games")
    _finish(ax)

    ax = axes[1][0]
    for kind in kinds:
        x, y = _xy(s, f"eval/game_length_vs_{kind}")
        ax.plot(x, y, marker="o", ms=3, label=f"decisions/game vs {kind}", color=COLOURS.get(kind, None))
    x, y = _xy(s, "rollout/ep_len_mean")
    if y:
        ax.plot(x, y, label="learner decisions/game (training)", color="black", lw=1, alpha=0.6)
    ax.set_title("game length")
    _finish(ax)

    ax = axes[1][1]
    if "league/size" in s:
        for tag in ("league/size", "league/gate_promotions"):
            x, y = _xy(s, tag)
            ax.step(x, y, where="post", label=tag.removeprefix("league/"))
        twin = ax.twinx()
        for tag in sorted(t for t in s if t.startswith("league/") and t.endswith("/win_rate")):
            member = tag.removeprefix("league/").removesuffix("/win_rate")
            if not member.startswith("snap_"):
                x, y = _xy(s, tag)
                twin.plot(x, y, lw=1, label=f"win rate vs {member} (PFSP estimate)", color=COLOURS.get(member))
        twin.set_ylim(0, 1)
        twin.legend(loc="lower right", fontsize=8)
        ax.set_title("league: members, gate promotions")
    elif "selfplay/pool_size" in s:
        for tag in ("selfplay/pool_size", "selfplay/promotions"):
            x, y = _xy(s, tag)
            ax.step(x, y, where="post", label=tag.removeprefix("selfplay/"))
        x, y = _xy(s, "selfplay/win_rate_vs_latest")
        if y:
            twin = ax.twinx()
            twin.plot(x, y, "k.", label="win rate vs latest")
            twin.set_ylim(0, 1)
            twin.legend(loc="lower right", fontsize=8)
        ax.set_title("self-play pool")
    else:
        x, y = _xy(s, "train/entropy_loss")
        ax.plot(x, [-v for v in y], label="policy entropy", color="#555555")
        ax.set_title("policy entropy")
    _finish(ax)

    fig.suptitle(run_dir.name)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out


def seed_band(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95% Student t interval (``k - 1`` degrees of freedom) of one evaluation's win rates over
    ``k >= 2`` seeds."""
    from scipy.stats import t

    k = len(values)
    mean = sum(values) / k
    sd = (sum((v - mean) ** 2 for v in values) / (k - 1)) ** 0.5
    half = float(t.ppf(0.975, k - 1)) * sd / k**0.5
    return mean, mean - half, mean + half


def plot_seeds(run_dirs: list[str | Path], out: str | Path) -> Path:
    """The evaluation win rates of several runs (seeds of one config) in one PNG: one panel per opponent
    kind, a thin line per seed, the mean over seeds with its 95% t interval as a band, and 1/N."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(Path(d).name, read_scalars(d)) for d in run_dirs]
    kinds = sorted(
        {
            t.removeprefix("eval/win_rate_vs_")
            for _, s in runs
            for t in s
            if t.startswith("eval/win_rate_vs_") and not t.endswith(("_ci_low", "_ci_high"))
        }
    )
    if not kinds:
        raise ValueError("no evaluation win rates (eval/win_rate_vs_*) in these runs")
    fig, axes = plt.subplots(1, len(kinds), figsize=(5.5 * len(kinds), 4), dpi=100, squeeze=False)
    for ax, kind in zip(axes[0], kinds, strict=True):
        tag = f"eval/win_rate_vs_{kind}"
        series = [dict(s.get(tag, [])) for _, s in runs]
        for (name, _), points in zip(runs, series, strict=True):
            ax.plot(sorted(points), [points[x] for x in sorted(points)], lw=0.8, alpha=0.6, label=name)
        common = sorted(set.intersection(*(set(p) for p in series)))
        if len(runs) >= 2 and common:
            bands = [seed_band([p[x] for p in series]) for x in common]
            colour = COLOURS.get(kind, "#333333")
            ax.plot(common, [b[0] for b in bands], color=colour, lw=2.2, marker="o", ms=4, label=f"mean of {len(runs)}")
            ax.fill_between(common, [b[1] for b in bands], [b[2] for b in bands], color=colour, alpha=0.2)
        _, baseline = _xy(runs[0][1], "eval/random_baseline")
        if baseline:
            ax.axhline(baseline[-1], color="#d84b3b", linestyle="--", label="1/N")
        ax.set_title(f"vs {kind}: win rate per seed, mean with 95% t band")
        ax.set_ylim(0, 1)
        _finish(ax)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out


def _fixed_opponent(tag: str) -> bool:
    """Whether a ``games/win_rate...`` tag is drawn: all games, or games against one fixed opponent kind
    (not the per-seat combinations of a league, nor each snapshot: a league run logs dozens of those)."""
    opponent = tag.removeprefix("games/win_rate").removeprefix("_vs_")
    return "|" not in opponent and not opponent.startswith("snap_")


def _finish(ax: object) -> None:
    ax.set_xlabel("training steps")  # type: ignore[attr-defined]
    ax.grid(alpha=0.3)  # type: ignore[attr-defined]
    handles, _ = ax.get_legend_handles_labels()  # type: ignore[attr-defined]
    if handles:
        ax.legend(fontsize=8)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ice_envs.train.plot_curves", description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, nargs="+", help="a run directory, or several: the seeds of one config")
    parser.add_argument(
        "--out", type=Path, default=None, help="PNG path (default <run>/curves.png; required with several runs)"
    )
    args = parser.parse_args(argv)
    for run_dir in args.run_dir:
        if not run_dir.is_dir():
            parser.error(f"{run_dir} is not a run directory")
    if len(args.run_dir) == 1:
        print(plot_run(args.run_dir[0], args.out))
        return 0
    if args.out is None:
        parser.error("--out is required with several run directories")
    try:
        print(plot_seeds(args.run_dir, args.out))
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
