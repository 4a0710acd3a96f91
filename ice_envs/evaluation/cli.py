"""``ice-envs evaluate`` and ``ice-envs replay``: the command lines of evaluation.

ice-envs evaluate GAME --players N --agents heuristic,random,random --games 2000 --seed 0 [--workers K]
                  [--max-decisions M]
ice-envs replay RECORD --out DIR [--viewer K] [--every N] [--max-frames M] [--fps F] [--no-gif]

This module also holds what every ``ice-envs`` command line shares (:class:`CommandLineParser`,
:func:`at_least`, :func:`report_user_errors`): a user's mistake is one line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ice_envs.core.errors import AgentSpecError, IllegalActionError, MissingExtraError, OptionError, require_extra
from ice_envs.core.options import parse_option
from ice_envs.core.registry import spec_of
from ice_envs.evaluation.record import RecordError
from ice_envs.evaluation.report import to_markdown, write_report
from ice_envs.evaluation.tournament import evaluate

#: The exceptions that name a user's mistake (``FileFormatError`` and ``train.config.ConfigError``
#: are ``OptionError``\ s); anything else is a bug and keeps its traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    OptionError,
    IllegalActionError,
    AgentSpecError,
    MissingExtraError,
    RecordError,
    OSError,
)


class UsageError(Exception):
    """A command line argparse refused (raised by :meth:`CommandLineParser.error` instead of exiting)."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class CommandLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors raise :class:`UsageError` (reported as one line, exit 2).

    ``add_subparsers`` makes its sub-commands of the same class, so they refuse the same way.
    """

    def error(self, message: str) -> Any:  # argparse's hook: print usage and exit(2)
        raise UsageError(self.prog, message)


def at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer ``>= low`` (checked while parsing, before any work)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def check_record_target(path: str | Path | None) -> None:
    """Refuse a ``--record`` path that is a directory, before the game is played."""
    if path is not None and Path(path).is_dir():
        raise OptionError(f"--record {path}: is a directory, not a file for the game record")


def positive_number(text: str) -> float:
    """An argparse ``type``: a finite number ``> 0``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def option_text(text: str) -> str:
    """An argparse ``type``: ``key=value`` (checked as :func:`parse_option` does), kept as text."""
    parse_option(text)
    return text


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (a file error names the file)."""
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def report_user_errors(prog: str, run: Callable[[], int]) -> int:
    """``run()``; a user's mistake is one line ``PROG: error: ...`` on stderr and status 2.

    Ctrl-C is one line and status 130. Other exceptions (bugs) propagate with their traceback.
    """
    try:
        return int(run() or 0)
    except UsageError as exc:
        hint = f" (see `{exc.prog} --help`)"
        print(f"{prog}: error: {one_line(exc)}{hint}", file=sys.stderr)
        return 2
    except USER_ERRORS as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game")
    parser.add_argument("--players", type=at_least(1), required=True)
    parser.add_argument("--agents", required=True, help="one spec per seat: random, heuristic, ppo:PATH")
    parser.add_argument("--games", type=at_least(1), default=2000)
    parser.add_argument("--seed", type=at_least(0), default=0)
    parser.add_argument("--workers", type=at_least(1), default=1)
    parser.add_argument(
        "--option", type=option_text, action="append", default=[], help="game option key=value (repeatable)"
    )
    parser.add_argument("--out", type=Path, default=None, help="report folder (default runs/eval/<game>-<N>p-<agents>)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--record",
        type=at_least(0),
        default=0,
        metavar="K",
        help="keep the first K games as game records in OUT/records/",
    )
    parser.add_argument(
        "--max-decisions",
        type=at_least(1),
        default=None,
        metavar="N",
        help="truncate each game after N decisions (default: the game's own cap); truncated games have no winner",
    )


def canonical_command(args: argparse.Namespace) -> str:
    """The command that reproduces this evaluation, with every default spelled out."""
    parts = [
        f"ice-envs evaluate {args.game} --players {args.players} --agents {shlex.quote(args.agents)}",
        f"--games {args.games} --seed {args.seed} --workers {args.workers}",
    ]
    parts += [f"--option {shlex.quote(o)}" for o in args.option]
    if args.record:
        parts.append(f"--record {args.record}")
    if getattr(args, "max_decisions", None) is not None:
        parts.append(f"--max-decisions {args.max_decisions}")
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
            max_decisions=args.max_decisions,
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
    """Replay a record; a bad record raises ``RecordError`` (one line and status 2 through ``ice-envs``)."""
    from ice_envs.evaluation.replay import replay

    result = replay(
        args.record,
        args.out,
        viewer=args.viewer,
        every=args.every,
        max_frames=args.max_frames,
        fps=args.fps,
        gif=not args.no_gif,
    )
    checked = "outcome matches the record" if result.checked_outcome else "the record has no outcome line to check"
    print(f"Replayed {result.steps} decisions of {spec_of(result.env).name}: {checked}.")
    if not getattr(result, "finished", True):
        print("the game in the record is unfinished")
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
    r.add_argument(
        "--viewer", type=at_least(0), default=None, help="draw the table as this seat sees it (default: all open)"
    )
    r.add_argument(
        "--every", type=at_least(1), default=None, help="keep every N-th frame (default: at most --max-frames)"
    )
    r.add_argument("--max-frames", type=at_least(1), default=150, help="most frames to keep when --every is not given")
    r.add_argument("--fps", type=positive_number, default=2.0, help="frames per second of the GIF")
    r.add_argument("--no-gif", action="store_true", help="write the PNG frames only")
    r.set_defaults(func=cmd_replay)
