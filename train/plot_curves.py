"""Learning curves of a run as a PNG, read from its TensorBoard scalars.

    python -m ice_envs.train.plot_curves runs/train/cardiceo_ppo-seed0 [--out curves.png]

Panels: evaluation win rate against each opponent kind with its 95% Wilson band and the
1/N line; the training games' win rate and mean return; game length; and either the
self-play pool (size, promotions) or the policy entropy. Needs matplotlib (``eval`` extra).
"""

from __future__ import annotations

import argparse
from pathlib import Path

Scalars = dict[str, list[tuple[int, float]]]
COLOURS = {"random": "#3b7dd8", "heuristic": "#d8843b", "self_play": "#4caf50", "mixed": "#8e59c4"}


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
    ax.set_title("evaluation win rate (95% Wilson band)")
    ax.set_ylim(0, 1)
    _finish(ax)

    ax = axes[0][1]
    for tag in sorted(t for t in s if t.startswith("games/win_rate")):
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
    if "selfplay/pool_size" in s:
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


def _finish(ax: object) -> None:
    ax.set_xlabel("training steps")  # type: ignore[attr-defined]
    ax.grid(alpha=0.3)  # type: ignore[attr-defined]
    handles, _ = ax.get_legend_handles_labels()  # type: ignore[attr-defined]
    if handles:
        ax.legend(fontsize=8)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ice_envs.train.plot_curves", description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="PNG path (default <run>/curves.png)")
    args = parser.parse_args(argv)
    if not args.run_dir.is_dir():
        parser.error(f"{args.run_dir} is not a run directory")
    print(plot_run(args.run_dir, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
