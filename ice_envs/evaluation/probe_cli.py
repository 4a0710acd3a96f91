"""``ice-envs probe GAME``: the headroom probe on the command line (:mod:`ice_envs.evaluation.probe`).

ice-envs probe GAME [--players N] [--option K=V ...] [--baseline SPEC] [--continuation SPEC]
                    [--points P] [--per-game K] [--samples S] [--max-candidates C] [--z Z] [--kind KIND ...]
                    [--recheck R] [--seed S] [--workers W] [--out DIR]

Prints the Markdown table and writes ``probe.json`` and ``probe.md`` to ``--out`` (default
``runs/probe/GAME-Np-BASELINE-CONTINUATION-seedS``). Without ``--players`` the table is the game's
heuristic table of suite v1 (players and options; ``--option`` adds to them).
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from ice_envs.core.files import write_atomic
from ice_envs.core.machine import machine_info
from ice_envs.core.names import portable_name
from ice_envs.core.options import parse_option
from ice_envs.core.progress import progress_bar
from ice_envs.evaluation.cli import (
    add_no_progress_argument,
    add_workers_argument,
    at_least,
    option_text,
    positive_number,
)

__all__ = ["add_subcommand", "cmd_probe"]


def cmd_probe(args: argparse.Namespace) -> int:
    """Run the probe from parsed arguments; bad input raises a user error (one line, status 2)."""
    from ice_envs.core.registry import get_spec
    from ice_envs.evaluation.probe import ProbeSettings, default_table, probe, to_markdown

    game = get_spec(args.game).name
    players, options = default_table(game)
    if args.players is not None:
        players = args.players
    options = {**options, **dict(parse_option(o) for o in args.option)}
    settings = ProbeSettings(
        game,
        players,
        options,
        baseline=args.baseline,
        continuation=args.continuation,
        points=args.points,
        per_game=args.per_game,
        samples=args.samples,
        max_candidates=args.max_candidates,
        z_min=args.z,
        seed=args.seed,
        kinds=tuple(args.kind),
        recheck=args.recheck,
    ).check()
    bar = progress_bar(settings.points, f"probe {game}", "point", enabled=not args.no_progress, terminal_only=True)
    report = probe(settings, workers=args.workers, progress=bar.update)
    bar.close()
    command = "ice-envs probe " + " ".join(shlex.quote(a) for a in _canonical(settings, args.workers))
    out = args.out or Path("runs/probe") / portable_name(
        f"{game}-{players}p-{settings.baseline}-{settings.continuation}-seed{settings.seed}"
    )
    out.mkdir(parents=True, exist_ok=True)
    text = to_markdown(report, command)
    write_atomic(out / "probe.json", json.dumps({**report, "command": command, "machine": machine_info()}, indent=1))
    write_atomic(out / "probe.md", text)
    print(text)
    print(f"report in {out}/")
    return 0


def _canonical(settings: Any, workers: int) -> list[str]:
    argv = [settings.game, "--players", str(settings.players)]
    for key, value in settings.options.items():
        argv += ["--option", f"{key}={value}"]
    argv += ["--baseline", settings.baseline, "--continuation", settings.continuation]
    argv += ["--points", str(settings.points), "--per-game", str(settings.per_game), "--samples", str(settings.samples)]
    if settings.max_candidates is not None:
        argv += ["--max-candidates", str(settings.max_candidates)]
    for kind in settings.kinds:
        argv += ["--kind", kind]
    argv += ["--z", f"{settings.z_min:g}"]
    if settings.recheck:
        argv += ["--recheck", str(settings.recheck)]
    argv += ["--seed", str(settings.seed), "--workers", str(workers)]
    return argv


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs probe``."""
    p = sub.add_parser(
        "probe",
        help="measure one-step policy-improvement headroom per decision kind (validated better moves, gains)",
    )
    p.add_argument("game", help="the game")
    p.add_argument("--players", type=at_least(1), default=None, help="seats (default: the game's suite v1 table)")
    p.add_argument("--option", type=option_text, action="append", default=[], help="extra game option key=value")
    p.add_argument("--baseline", default="heuristic", help="the agent whose self-play gives the decision points")
    p.add_argument("--continuation", default="heuristic", help="the agent that plays every seat after a candidate")
    p.add_argument("--points", type=at_least(1), default=20, help="decision points (default 20)")
    p.add_argument("--per-game", type=at_least(1), default=2, help="points drawn from each baseline game (default 2)")
    p.add_argument("--samples", type=at_least(2), default=16, help="samples to select, and again to validate")
    p.add_argument("--max-candidates", type=at_least(2), default=None, help="candidates a point (default: all legal)")
    p.add_argument("--z", type=positive_number, default=2.0, help="standard errors a validated gain needs (default 2)")
    p.add_argument("--kind", action="append", default=[], help="only decisions of this kind, e.g. draft (repeatable)")
    p.add_argument(
        "--recheck",
        type=at_least(0),
        default=0,
        help="re-measure every validated point on this many more samples (default 0: no recheck)",
    )
    p.add_argument("--seed", type=at_least(0), default=0, help="the first baseline game's seed")
    add_workers_argument(p)
    p.add_argument(
        "--out", type=Path, default=None, help="report folder (default: runs/probe/<game>-<N>p-<agents>-seed<S>)"
    )
    add_no_progress_argument(p)
    p.set_defaults(func=cmd_probe)
