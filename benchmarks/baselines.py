"""Run the baseline table from a config file and write ``docs/results.md``.

    python -m ice_envs.benchmarks.baselines benchmarks/configs/baselines.yaml [--out docs/results.md] [--games N]

Each row of the config is one tournament (``ice_envs.evaluation.tournament``); the Markdown gives
every row's numbers next to the exact command that reproduces it.

The page opens with the leagues of the config's ``leagues`` list: per game, a league config
(``ice-envs league CONFIG``) and the ``league.json`` it wrote, shipped beside the page
(``docs/leagues/<game>.json``, with its ``league.png`` as ``docs/img/league_<game>.png``). They are
rendered from those files, not played here: a league takes up to an hour a game, so refresh one by
running its command and copying its two files. ``--missing`` with every row measured re-renders the
page without playing anything.

The table is always merged, never rewritten with fewer rows: ``--only GAME`` plays that game's rows
and keeps every other row of the results JSON as it was (in config order). A quick look with
``--games N`` writes ``runs/baselines/results.md`` and ``.json`` (the shipped table with the rows just
played in place of their own) unless ``--out``/``--json`` are given, so it never replaces the
committed figures by accident.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from ice_envs.core.files import load_json, load_yaml, write_atomic
from ice_envs.core.registry import get_spec
from ice_envs.evaluation.tournament import evaluate

#: Where the shipped table lives (the default output of a full-size run).
SHIPPED_PAGE = Path("docs/results.md")
SHIPPED_JSON = Path("docs/results.json")
#: Where a quick look (``--games N``) goes unless ``--out``/``--json`` say otherwise.
QUICK_LOOK_DIR = Path("runs/baselines")

Entry = tuple[dict[str, Any], dict[str, Any], float]

ROW_KEYS = {"game", "players", "agents", "games", "seed", "workers", "options"}
LEAGUE_KEYS = {"config", "results", "image", "note"}


def load_rows(path: Path, games_override: int | None = None) -> list[dict[str, Any]]:
    """Rows of the config with the file's defaults filled in; unknown keys are errors."""
    data = load_yaml(path, what="baselines config")
    defaults = {k: data[k] for k in ("games", "seed", "workers") if k in data}
    rows = []
    for i, row in enumerate(data.get("rows", [])):
        unknown = set(row) - ROW_KEYS
        if unknown:
            raise ValueError(f"{path}: row {i}: unknown keys {sorted(unknown)}; allowed: {sorted(ROW_KEYS)}")
        merged = {"options": {}, **defaults, **row}
        if games_override:
            merged["games"] = games_override
        rows.append(merged)
    return rows


def load_leagues(path: Path) -> list[dict[str, Any]]:
    """The config's ``leagues`` entries (``config``, ``results``, ``image``, optional ``note``); unknown keys are errors."""
    entries = load_yaml(path, what="baselines config").get("leagues", []) or []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) - LEAGUE_KEYS or not {"config", "results", "image"} <= set(entry):
            raise ValueError(f"{path}: leagues[{i}] must map config, results and image (and optionally note)")
    return entries


def leagues_markdown(entries: list[dict[str, Any]], page: Path) -> str:
    """The leagues section of the page: each league's tables, rendered from its shipped ``league.json``."""
    from ice_envs.evaluation.league import to_markdown

    if not entries:
        return ""
    parts = [
        "## Leagues: every agent on one scale (suite v1)\n\n"
        "Per game at its standard table: random, greedy, the heuristic, a search agent (the flat search or MCTS) "
        "and the shipped PPO agent in a round robin of mixed tables on the held-out suite v1's deals, seats rotated "
        "(how a league is played and read: [league.md](league.md); what these show: [leagues.md](leagues.md)). Each "
        "is reproduced by its command (a config with `chance: splitmix` deals the compiled engine's games and plays "
        "them batched); the tables are identical whatever `--workers` is.\n"
    ]
    for entry in entries:
        results = Path(entry["results"])
        if not results.exists():
            parts.append(
                f"\n### {Path(entry['config']).stem}\n\nNot played yet: `ice-envs league {entry['config']}`.\n"
            )
            continue
        summary = load_json(results, what="league report")
        text = to_markdown(summary, summary["command"])
        text = text.replace("### ", "### League: ", 1)
        if entry.get("note"):
            head, rest = text.split("\n", 1)
            text = f"{head}\n\n{entry['note']}\n{rest}"
        image = Path(entry["image"])
        parts.append("\n" + text + f"\n![{summary['game']} league]({_relative(image, page)})\n")
    return "".join(parts) + "\n## Tables against fixed opponents\n\n"


def _relative(target: Path, page: Path) -> str:
    """``target`` as a link from ``page`` (both relative to the repository root)."""
    try:
        return str(target.relative_to(page.parent))
    except ValueError:
        return str(target)


def command_of(row: dict[str, Any]) -> str:
    opts = " ".join(f"--option {k}={v}" for k, v in row["options"].items())
    return (
        f"ice-envs evaluate {row['game']} --players {row['players']} --agents {row['agents']} "
        f"--games {row['games']} --seed {row['seed']} --workers {row['workers']}" + (f" {opts}" if opts else "")
    )


def table(results: list[tuple[dict[str, Any], dict[str, Any], float]]) -> str:
    lines = [
        "| game | N | agents | games | 1/N | first agent's win rate [95% CI] | others' win rates | win rate by seat | "
        "mean decisions | wall s | command |",
        "|---|---:|---|---:|---:|---|---|---|---:|---:|---|",
    ]
    for row, summary, wall in results:
        first, *others = summary["per_agent"]
        lo, hi = first["win_rate_ci95"]
        rest = ", ".join(f"{o['agent']} {o['win_rate']:.3f}" for o in others)
        seats = " / ".join(f"{r['win_rate']:.3f}" for r in summary.get("win_rate_by_seat", []))
        lines.append(
            f"| {row['game']} | {row['players']} | {row['agents']} | {summary['games']} | {1 / row['players']:.3f} | "
            f"{first['agent']} **{first['win_rate']:.3f}** [{lo:.3f}, {hi:.3f}] | {rest} | {seats} | "
            f"{summary['mean_decisions']:.1f} | {wall:.0f} | `{command_of(row)}` |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ice_envs.benchmarks.baselines", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("config", type=Path)
    parser.add_argument(
        "--out", type=Path, default=None, help=f"the page (default: {SHIPPED_PAGE}; {QUICK_LOOK_DIR}/ with --games)"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help=f"the rows (default: {SHIPPED_JSON}; {QUICK_LOOK_DIR}/ with --games)"
    )
    parser.add_argument("--games", type=int, default=None, help="override the games per row (for a quick look)")
    parser.add_argument("--only", nargs="*", default=None, help="run only the rows of these games; keep the others")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (one per row, on stderr)")
    parser.add_argument(
        "--missing", action="store_true", help="run only the rows that the results JSON does not hold yet"
    )
    args = parser.parse_args(argv)
    quick = args.games is not None
    args.out = args.out or (QUICK_LOOK_DIR / SHIPPED_PAGE.name if quick else SHIPPED_PAGE)
    args.json = args.json or (QUICK_LOOK_DIR / SHIPPED_JSON.name if quick else SHIPPED_JSON)
    rows = load_rows(args.config)
    only = None if args.only is None else {get_spec(game).name for game in args.only}  # CubeMelt -> cubemelt
    load_leagues(args.config)  # a bad entry is an error before anything is played
    # a quick look into a new file starts from the shipped rows, so that its page is the whole table
    previous = _previous_results(args.json if args.json.exists() or not quick else SHIPPED_JSON)
    measured: dict[int, Entry] = {}
    start = time.perf_counter()
    for i, config_row in enumerate(rows):
        row = {**config_row, "games": args.games} if args.games else config_row
        if only is not None and row["game"] not in only:
            continue
        if args.missing and command_of(row) in previous:
            continue
        t0 = time.perf_counter()
        summary, _ = evaluate(
            row["game"],
            row["players"],
            row["agents"],
            row["games"],
            row["seed"],
            row["workers"],
            row["options"],
            progress=not args.no_progress,
        )
        measured[i] = (row, summary, time.perf_counter() - t0)
        print(table([measured[i]]).splitlines()[-1], flush=True)
        _write(args, rows, measured, previous)  # after every row, so a long run keeps what it measured
    _write(args, rows, measured, previous)
    print(f"wrote {args.out} and {args.json} ({time.perf_counter() - start:.0f} s this run)")
    return 0


def _write(
    args: argparse.Namespace, rows: list[dict[str, Any]], measured: dict[int, Entry], previous: dict[str, Entry]
) -> None:
    """Write the table in config order: the rows measured by this run, and every other row as kept before."""
    ordered = [measured.get(i) or _kept(row, previous) for i, row in enumerate(rows)]
    ordered = [e for e in ordered if e is not None]
    total = sum(w for _, _, w in ordered)
    title = "# Results: baseline and trained agents\n\n"
    header = (
        f"Produced by `python -m ice_envs.benchmarks.baselines {args.config}`: {total / 60:.1f} minutes of wall time in all "
        f"({rows[0]['workers'] if rows else 1} workers). Each row is reproduced exactly by its command: game `i` is "
        "dealt from seed `seed + i // N` with the agent list rotated `i % N` seats, so every agent plays every seat "
        "equally often. A shared win counts as a win for each winner. The first agent of each row is the one the "
        'row is about; with N-1 random opponents the random baseline is 1/N. "Win rate by seat" is the win rate of '
        "whoever sat in seat 0, 1, ... (which seat starts is each game's rule: see its rules page); in the rows of "
        "heuristics only it measures seat bias.\n\n"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    notes = load_yaml(args.config, what="baselines config").get("notes", [])
    footer = "".join(f"- {n}\n" for n in notes)
    leagues = leagues_markdown(load_leagues(args.config), args.out)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(
        args.out, title + leagues + header + table(ordered) + "\n" + ("\nNotes:\n\n" + footer if footer else "")
    )
    write_atomic(args.json, json.dumps([{"row": r, "summary": s, "wall_seconds": w} for r, s, w in ordered], indent=2))


def _identity(row: dict[str, Any]) -> str:
    """What a row measures, whatever its number of games or workers."""
    return json.dumps([row["game"], row["players"], row["agents"], row["seed"], row["options"]], sort_keys=True)


def _kept(row: dict[str, Any], previous: dict[str, Entry]) -> Entry | None:
    """The earlier measurement of a config row: its exact command, else the same row at another size."""
    exact = previous.get(command_of(row))
    if exact is not None:
        return exact
    return next((e for e in previous.values() if _identity(e[0]) == _identity(row)), None)


def _previous_results(path: Path) -> dict[str, Entry]:
    """Rows measured by an earlier run (kept when ``--only`` re-runs other games)."""
    if not path.exists():
        return {}
    return {
        command_of(e["row"]): (e["row"], e["summary"], e["wall_seconds"])
        for e in load_json(path, what="results file", max_bytes=64 << 20, limit=64)
    }


if __name__ == "__main__":
    raise SystemExit(main())
