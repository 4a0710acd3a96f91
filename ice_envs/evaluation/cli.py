"""``ice-envs evaluate`` and ``ice-envs replay``: the command lines of evaluation.

ice-envs evaluate GAME --players N --agents heuristic,random,random --games 2000 --seed 0 [--workers K]
ice-envs replay RECORD --out DIR [--viewer K] [--every N] [--max-frames M] [--fps F] [--no-gif]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ice_envs.core.errors import AgentSpecError, OptionError, require_extra
from ice_envs.core.options import parse_option
from ice_envs.core.registry import spec_of
from ice_envs.evaluation.report import to_markdown, write_report
from ice_envs.evaluation.tournament import evaluate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--agents", required=True, help="one spec per seat: random, heuristic, ppo:PATH")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--option", action="append", default=[], help="game option key=value (repeatable)")
    parser.add_argument("--out", type=Path, default=None, help="report folder (default runs/eval/<game>-<N>p-<agents>)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--record", type=int, default=0, metavar="K", help="keep the first K games as game records in OUT/records/"
    )


def canonical_command(args: argparse.Namespace) -> str:
    """The command that reproduces this evaluation, with every default spelled out."""
    parts = [
        f"ice-envs evaluate {args.game} --players {args.players} --agents {args.agents}",
        f"--games {args.games} --seed {args.seed} --workers {args.workers}",
    ]
    parts += [f"--option {o}" for o in args.option]
    if args.record:
        parts.append(f"--record {args.record}")
    return " ".join(parts)


def run_from_args(args: argparse.Namespace) -> int:
    require_extra("eval", "ice-envs evaluate", "openskill", "matplotlib")
    options = dict(parse_option(o) for o in args.option)
    out = (
        args.out or Path("runs/eval") / f"{args.game}-{args.players}p-{args.agents.replace(',', '_').replace('/', '_')}"
    )
    start = time.perf_counter()
    try:
        summary, _ = evaluate(
            args.game,
            args.players,
            args.agents,
            args.games,
            args.seed,
            args.workers,
            options,
            progress=not args.no_progress,
            record=args.record,
            record_dir=out / "records",
        )
    except AgentSpecError as exc:
        raise OptionError(str(exc)) from None
    elapsed = time.perf_counter() - start
    command = canonical_command(args)
    write_report(summary, out, command, elapsed, args.workers)
    print(to_markdown(summary, command))
    print(f"wall time {elapsed:.1f} s with {args.workers} worker(s); report in {out}/")
    if args.record:
        print(f"{min(args.record, args.games)} game records in {out / 'records'}/ (see them with `ice-envs replay`)")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from ice_envs.evaluation.record import RecordError
    from ice_envs.evaluation.replay import replay

    try:
        result = replay(
            args.record,
            args.out,
            viewer=args.viewer,
            every=args.every,
            max_frames=args.max_frames,
            fps=args.fps,
            gif=not args.no_gif,
        )
    except RecordError as exc:
        print(f"ice-envs replay: error: {exc}", file=sys.stderr)
        return 1
    checked = "outcome matches the record" if result.checked_outcome else "the record has no outcome line to check"
    print(f"Replayed {result.steps} decisions of {spec_of(result.env).name}: {checked}.")
    print(f"{len(result.frames)} PNG frames in {args.out}/" + (f", animation {result.gif}" if result.gif else ""))
    return 0


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs evaluate`` and ``ice-envs replay``."""
    p = sub.add_parser("evaluate", help="play a tournament between agents and report win rates with intervals")
    add_arguments(p)
    p.set_defaults(func=run_from_args)

    r = sub.add_parser("replay", help="replay a game record to PNG frames and an animated GIF")
    r.add_argument("record", type=Path, help="a game record (JSON lines) from play, demo or evaluate --record")
    r.add_argument("--out", type=Path, required=True, help="folder for the frames and replay.gif")
    r.add_argument("--viewer", type=int, default=None, help="draw the table as this seat sees it (default: all open)")
    r.add_argument("--every", type=int, default=None, help="keep every N-th frame (default: at most --max-frames)")
    r.add_argument("--max-frames", type=int, default=150, help="most frames to keep when --every is not given")
    r.add_argument("--fps", type=float, default=2.0, help="frames per second of the GIF")
    r.add_argument("--no-gif", action="store_true", help="write the PNG frames only")
    r.set_defaults(func=cmd_replay)
