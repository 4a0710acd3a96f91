"""``ice-envs evaluate`` and ``ice-envs replay``: the command lines of evaluation.

ice-envs evaluate GAME --players N --agents heuristic,random,random --games 2000 --seed 0 [--workers K]
                  [--max-decisions M]
ice-envs evaluate --suite v1 [GAME] AGENT [--workers K]      (the held-out suite, :mod:`.suite`)
ice-envs league CONFIG.yaml [--out DIR] [--workers K]         (every agent on one scale, :mod:`.league`)
ice-envs compare GAME A B --players N --opponents SPEC [--games G] [--seed S]   (paired, :mod:`.compare`)
ice-envs compare GAME A B --suite v1 --opponents heuristic [--games G]  (on the suite's deals of that table)
ice-envs evaluate|league ... --backend ray [--address ADDR]    (games as Ray tasks, :mod:`.ray_backend`)
ice-envs evaluate|league|compare ... [--engine scalar|batched|auto] [--chance numpy|splitmix]   (also with --suite)
ice-envs replay RECORD --out DIR [--viewer K] [--every N] [--max-frames M] [--fps F] [--no-gif]

``--out`` of ``evaluate``, ``compare`` and ``league`` is checked before any game is played
(:func:`check_out_folder`, :func:`ice_envs.evaluation.league.check_league_out`): a file is refused,
and a folder in use too unless ``--force``.

This module also holds what every ``ice-envs`` command line shares (:class:`CommandLineParser`,
:func:`at_least`, :func:`report_user_errors`): a user's mistake is one line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ice_envs.core.errors import AgentSpecError, IllegalActionError, MissingExtraError, OptionError, require_extra
from ice_envs.core.files import write_atomic
from ice_envs.core.machine import machine_info
from ice_envs.core.names import portable_name
from ice_envs.core.options import parse_option
from ice_envs.core.registry import get_spec, spec_of
from ice_envs.evaluation.record import RecordError
from ice_envs.evaluation.report import to_markdown, write_report
from ice_envs.evaluation.tournament import CHANCES, ENGINES, GamesFailedError, check_engine, evaluate

#: The exceptions that name a user's mistake (``FileFormatError`` and ``train.config.ConfigError``
#: are ``OptionError``\ s) or a failure outside the program (``GamesFailedError``: Ray tasks that
#: failed after their retries); anything else is a bug and keeps its traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    OptionError,
    IllegalActionError,
    AgentSpecError,
    MissingExtraError,
    RecordError,
    OSError,
    GamesFailedError,
)


class UsageError(Exception):
    """A command line argparse refused (raised by :meth:`CommandLineParser.error` instead of exiting)."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with every option's default, ``(default: X)``, and descriptions kept as written.

    No default is added where there is none to show (``None``, a flag's ``False``, an empty list)
    or where the help text already says it.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if "default" in text or default is None or default is False or default == [] or default == argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


class CommandLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors raise :class:`UsageError` (reported as one line, exit 2).

    ``add_subparsers`` makes its sub-commands of the same class, so they refuse the same way and
    their ``--help`` shows the defaults (:class:`HelpFormatter`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

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


def check_out_folder(out: Path, force: bool) -> None:
    """Refuse ``--out`` before any game is played: a file always, a non-empty folder unless ``force``.

    With ``force`` the command's files replace those of the same names in the folder (each written
    atomically when its games are done); ``evaluate`` also empties the folder's ``records/`` just before
    its games (:func:`clear_files`), so that the folder never mixes two runs' records.
    """
    if out.exists() and not out.is_dir():
        raise OptionError(f"--out {out}: is a file, not a folder for the report")
    if not out.is_dir():
        return
    entries = sorted(p.name for p in out.iterdir())
    if entries and not force:
        shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise OptionError(
            f"--out {out}: is not empty (it holds {shown}); give a new or empty folder, or --force to replace "
            "this command's files in it"
        )


def clear_files(folder: Path) -> None:
    """Remove the files (not the sub-folders) of ``folder``, if it exists."""
    if folder.is_dir() and not folder.is_symlink():
        for item in folder.iterdir():
            if item.is_file() or item.is_symlink():
                item.unlink()


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """``--force``: write into a non-empty ``--out`` (see :func:`check_out_folder`)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty --out folder (this command's files replace those of the same names)",
    )


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
    parser.add_argument(
        "names",
        nargs="+",
        metavar="GAME",
        help="the game; with --suite: [GAME] AGENT after the options (one agent spec)",
    )
    parser.add_argument(
        "--players", type=at_least(1), default=None, help="seats at the table (required; not with --suite)"
    )
    parser.add_argument(
        "--agents",
        default=None,
        help="one spec per seat: random, greedy, heuristic, mcts:..., ppo:PATH (required; not with --suite)",
    )
    parser.add_argument(
        "--suite", default=None, metavar="VERSION", help="play AGENT through the held-out suite VERSION (e.g. v1)"
    )
    parser.add_argument("--games", type=at_least(1), default=2000, help="games to play, seats rotated")
    parser.add_argument("--seed", type=at_least(0), default=0, help="the first deal's seed (game i: seed + i // N)")
    add_workers_argument(parser)
    add_backend_arguments(parser)
    add_engine_arguments(parser)
    parser.add_argument(
        "--option", type=option_text, action="append", default=[], help="game option key=value (repeatable)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="report folder (default: runs/eval/<game>-<N>p-<agents>)"
    )
    add_no_progress_argument(parser)
    add_force_argument(parser)
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


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    """``--workers K``: processes that play the games (results do not depend on it)."""
    parser.add_argument(
        "--workers", type=at_least(1), default=1, help="processes that play the games (results are the same)"
    )


def add_no_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-progress``: no progress bar on stderr."""
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend local|ray`` and ``--address ADDR`` (evaluate and league)."""
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where games run: local processes (--workers) or Ray tasks (a local Ray with --workers CPUs, "
        "or the cluster at --address); results are the same",
    )
    parser.add_argument(
        "--address", default=None, metavar="ADDR", help="with --backend ray: the cluster (auto, ray://HEAD:10001)"
    )


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine scalar|batched|auto`` and ``--chance numpy|splitmix`` (evaluate, suite, league and compare)."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="how games are played: one env per game (scalar), many at once on the compiled engine (batched, "
        "implies --chance splitmix), or batched wherever that plays the scalar engine's games (auto: with "
        "--chance splitmix and the pack's own agents; scalar otherwise, with a note saying why); the results "
        "do not depend on it",
    )
    parser.add_argument(
        "--chance",
        choices=CHANCES,
        default=None,
        help="where the deals and dice come from: the env's generator (numpy, the default but with --engine "
        "batched) or the compiled engines' streams (splitmix: other deals)",
    )


def engine_flags(args: argparse.Namespace) -> str:
    """`` --engine E`` and `` --chance C`` where given other than the defaults (empty otherwise)."""
    flags = ""
    if getattr(args, "engine", "auto") != "auto":
        flags += f" --engine {args.engine}"
    if getattr(args, "chance", None) is not None:
        flags += f" --chance {args.chance}"
    return flags


def backend_flags(args: argparse.Namespace) -> str:
    """`` --backend ray [--address ADDR]`` as given (empty for the local backend)."""
    if getattr(args, "backend", "local") == "local" and getattr(args, "address", None) is None:
        return ""
    flags = f" --backend {args.backend}"
    if args.address is not None:
        flags += f" --address {shlex.quote(args.address)}"
    return flags


def canonical_command(args: argparse.Namespace) -> str:
    """The command that reproduces this evaluation, with every default spelled out."""
    parts = [
        f"ice-envs evaluate {args.game} --players {args.players} --agents {shlex.quote(args.agents)}",
        f"--games {args.games} --seed {args.seed} --workers {args.workers}{backend_flags(args)}{engine_flags(args)}",
    ]
    parts += [f"--option {shlex.quote(o)}" for o in args.option]
    if args.record:
        parts.append(f"--record {args.record}")
    if getattr(args, "max_decisions", None) is not None:
        parts.append(f"--max-decisions {args.max_decisions}")
    return " ".join(parts)


def _split_names(args: argparse.Namespace) -> None:
    """``args.names`` as ``args.game`` (and, with ``--suite``, ``args.agent``); a wrong count is a usage error."""
    names = list(args.names)
    if args.suite is None:
        if len(names) != 1:
            raise UsageError("ice-envs evaluate", f"give one game, got {names}")
        if args.players is None or args.agents is None:
            raise UsageError("ice-envs evaluate", "--players and --agents are required (or --suite VERSION AGENT)")
        args.game = names[0]
        return
    if args.players is not None or args.agents is not None:
        raise UsageError("ice-envs evaluate", "--suite fixes the players and the opponents: drop --players/--agents")
    if len(names) not in (1, 2):
        raise UsageError("ice-envs evaluate", f"with --suite give [GAME] AGENT, got {names}")
    args.game, args.agent = (None, names[0]) if len(names) == 1 else (names[0], names[1])


def run_from_args(args: argparse.Namespace) -> int:
    require_extra("eval", "ice-envs evaluate", "openskill", "matplotlib")
    _split_names(args)
    if args.game is not None:
        args.game = get_spec(args.game).name  # as the registry writes it (CubeMelt -> cubemelt): folders, commands
    if args.suite is not None:
        if args.backend != "local" or args.address is not None:
            raise UsageError("ice-envs evaluate", "--suite runs on local processes: drop --backend/--address")
        return run_suite_from_args(args)
    options = dict(parse_option(o) for o in args.option)
    out = args.out or Path("runs/eval") / portable_name(f"{args.game}-{args.players}p-{args.agents}")
    check_out_folder(out, args.force)
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
            backend=args.backend,
            address=args.address,
            engine=args.engine,
            chance=args.chance,
            before_games=lambda: clear_files(out / "records"),  # --force: no records of an earlier run stay
        )
    except AgentSpecError as exc:
        raise OptionError(str(exc)) from None
    except GamesFailedError as exc:
        raise keep_finished_games(exc, out, canonical_command(args)) from None
    elapsed = time.perf_counter() - start
    command = canonical_command(args)
    write_report(summary, out, command, elapsed, args.workers)
    (out / FINISHED_GAMES).unlink(missing_ok=True)  # an earlier run's, now superseded
    print(to_markdown(summary, command))
    print(f"wall time {elapsed:.1f} s with {args.workers} worker(s); report in {out}/")
    if args.record:
        print(f"{min(args.record, args.games)} game records in {out / 'records'}/ (see them with `ice-envs replay`)")
    return 0


#: The file that keeps the finished games of an evaluation whose Ray tasks failed.
FINISHED_GAMES = "finished_games.json"


def keep_finished_games(exc: GamesFailedError, out: Path, command: str) -> GamesFailedError:
    """Write the games that finished before Ray tasks failed to ``OUT/finished_games.json``; the error to raise."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / FINISHED_GAMES
    payload = {"command": command, "failed_games": exc.failed, "results": exc.results}
    write_atomic(path, json.dumps(payload) + "\n")
    return GamesFailedError(f"{exc}; they are kept in {path}", exc.results, exc.failed)


def run_suite_from_args(args: argparse.Namespace) -> int:
    """``ice-envs evaluate --suite VERSION [GAME] AGENT``: the agent at every table of the suite it can play."""
    from ice_envs.evaluation.suite import get_suite, run_suite, suite_markdown

    suite = get_suite(args.suite)
    check_engine(args.engine, args.chance)
    out = args.out or Path("runs/suite") / portable_name(suite.version) / portable_name(args.agent)
    check_out_folder(out, args.force)
    try:
        report = run_suite(
            suite,
            args.agent,
            args.game,
            workers=args.workers,
            progress=not args.no_progress,
            engine=args.engine,
            chance=args.chance,
        )
    except AgentSpecError as exc:
        raise OptionError(str(exc)) from None
    game = f"{args.game} " if args.game else ""
    command = (
        f"ice-envs evaluate --suite {suite.version} {game}{shlex.quote(args.agent)} --workers {args.workers}"
        f"{engine_flags(args)}"
    )
    out.mkdir(parents=True, exist_ok=True)
    report = {**report, "command": command, "machine": machine_info()}
    write_atomic(out / "suite.json", json.dumps(report, indent=1) + "\n")
    text = suite_markdown(report, command)
    write_atomic(out / "suite.md", text)
    print(text)
    print(f"report in {out}/")
    return 0


def cmd_league(args: argparse.Namespace) -> int:
    """``ice-envs league CONFIG.yaml``: play the missing tables, rate every agent, write the report."""
    require_extra("eval", "ice-envs league", "openskill", "matplotlib")
    from ice_envs.evaluation import league

    cfg = league.load_config(args.config, allow_python=args.allow_python)
    out = args.out or Path(cfg.out or Path("runs/league") / portable_name(f"{cfg.game}-{cfg.players}p"))
    try:
        summary = league.play_league(
            cfg,
            out,
            workers=args.workers,
            progress=not args.no_progress,
            backend=args.backend,
            address=args.address,
            force=args.force,
            engine=args.engine,
            chance=args.chance,
        )
    except AgentSpecError as exc:
        raise OptionError(str(exc)) from None
    python = " --allow-python" if args.allow_python else ""
    command = (
        f"ice-envs league {shlex.quote(str(args.config))} --workers {args.workers}{backend_flags(args)}"
        f"{engine_flags(args)}{python}"
    )
    league.write_report(summary, out, command)
    print(league.to_markdown(summary, command))
    played, reused = summary["tables_played"], summary["tables_reused"]
    print(f"{len(played)} table(s) played, {len(reused)} reused; report in {out}/ (league.json, league.md, league.png)")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """``ice-envs compare GAME A B``: both agents against the same opponents on identical deals, paired."""
    require_extra("eval", "ice-envs compare", "openskill")
    from ice_envs.evaluation import compare

    args.game = get_spec(args.game).name
    players, seed, games, options = args.players, args.seed, args.games, dict(parse_option(o) for o in args.option)
    if args.suite is not None:
        if args.players is not None or args.seed is not None or args.option:
            raise UsageError(
                "ice-envs compare", "--suite fixes the players, deals and options: drop --players/--seed/--option"
            )
        from ice_envs.evaluation.suite import get_suite

        suite = get_suite(args.suite)
        tables = suite.tables_of(args.game)
        if not tables:
            raise OptionError(f"suite {suite.version} has no table of {args.game}")
        # the game's deals, players and options; the game count of the table against these opponents, if any
        kinds = sorted({o.strip() for o in args.opponents.split(",")})
        table = next((t for t in tables if sorted(set(t.opponents)) == kinds), tables[0])
        players, seed, options = table.players, suite.seed_of(table), dict(table.options)
        games = table.games if games is None else games
    elif players is None:
        raise UsageError("ice-envs compare", "--players is required (or --suite VERSION)")
    seed = 0 if seed is None else seed
    games = 2000 if games is None else games
    check_engine(args.engine, args.chance)
    name = f"{args.game}-{players}p-{args.a}-vs-{args.b}"
    out = args.out or Path("runs/compare") / portable_name(name)
    check_out_folder(out, args.force)
    try:
        report = compare.compare(
            args.game,
            players,
            args.a,
            args.b,
            args.opponents,
            games,
            seed,
            args.workers,
            options,
            max_decisions=args.max_decisions,
            progress=not args.no_progress,
            engine=args.engine,
            chance=args.chance,
        )
    except AgentSpecError as exc:
        raise OptionError(str(exc)) from None
    command = compare.canonical_command(report, args.workers, args.max_decisions, args.engine)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(
        out / "compare.json", json.dumps({**report, "command": command, "machine": machine_info()}, indent=1) + "\n"
    )
    text = compare.to_markdown(report, command)
    write_atomic(out / "compare.md", text)
    print(text)
    print(f"report in {out}/")
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
        progress=not args.no_progress,
    )
    checked = "outcome matches the record" if result.checked_outcome else "the record has no outcome line to check"
    print(f"Replayed {result.steps} decisions of {spec_of(result.env).name}: {checked}.")
    if not getattr(result, "finished", True):
        print("the game in the record is unfinished")
    print(f"{len(result.frames)} PNG frames in {args.out}/" + (f", animation {result.gif}" if result.gif else ""))
    return 0


LEAGUE_DESCRIPTION = """\
Rate every agent of a league config on one scale: a round robin of mixed tables on identical
deals, seats rotated; tables already played (same key) are read back, not played again.

A league config (YAML; these keys, no others):

  game: cubemelt
  players: 3
  options: {}                 # game options (optional)
  agents:                     # name -> agent spec (random, greedy, heuristic, mcts:..., ppo:PATH)
    random: random
    heuristic: heuristic
    ppo: ppo:checkpoints/cubemelt_ppo/final.npz
  schedule: round_robin       # every set of `players` distinct agents is one table
  games_per_table: 300        # a multiple of `players`: every deal is played from every seat
  suite: v1                   # the held-out suite's deals (or `seed: S`)
  out: runs/league/cubemelt   # optional; --out overrides it

Writes league.json, league.md and league.png (ratings with intervals, a pairwise matrix) to the
report folder; docs/league.md explains how to read them.
"""


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs evaluate``, ``league``, ``compare`` and ``replay``."""
    p = sub.add_parser("evaluate", help="play a tournament between agents and report win rates with intervals")
    add_arguments(p)
    p.set_defaults(func=run_from_args)

    lg = sub.add_parser(
        "league",
        help="rate every agent of a league config on one scale (mixed tables, same deals)",
        description=LEAGUE_DESCRIPTION,
    )
    lg.add_argument("config", type=Path, help="a league config (YAML, as below)")
    lg.add_argument(
        "--out", type=Path, default=None, help="report folder (default: the config's out, or runs/league/<game>-<N>p)"
    )
    add_workers_argument(lg)
    add_backend_arguments(lg)
    add_engine_arguments(lg)
    add_no_progress_argument(lg)
    lg.add_argument(
        "--force", action="store_true", help="use an --out folder that holds other files or another game's league"
    )
    lg.add_argument(
        "--allow-python",
        action="store_true",
        help="play the config's python:module:factory agents (they import and run code; refused without this flag)",
    )
    lg.set_defaults(func=cmd_league)

    c = sub.add_parser(
        "compare", help="compare two agents, each against the same opponents on identical deals (paired tests)"
    )
    c.add_argument("game", help="the game")
    c.add_argument("a", metavar="A", help="the first agent's spec (random, greedy, heuristic, mcts:..., ppo:PATH)")
    c.add_argument("b", metavar="B", help="the second agent's spec")
    c.add_argument(
        "--opponents", required=True, help="the other seats: one spec for all of them, or one per seat, comma-separated"
    )
    c.add_argument("--players", type=at_least(1), default=None, help="seats at the table (not with --suite)")
    c.add_argument(
        "--suite",
        default=None,
        metavar="VERSION",
        help="the deals, players and options of the game's tables in that suite (any opponents)",
    )
    c.add_argument("--games", type=at_least(1), default=None, help="games per agent (default 2000; the suite's count)")
    c.add_argument("--seed", type=at_least(0), default=None, help="the first deal (default 0; not with --suite)")
    add_workers_argument(c)
    c.add_argument("--option", type=option_text, action="append", default=[], help="game option key=value (repeatable)")
    c.add_argument("--max-decisions", type=at_least(1), default=None, metavar="N", help="as in evaluate")
    add_engine_arguments(c)
    c.add_argument("--out", type=Path, default=None, help="report folder (default runs/compare/<game>-<N>p-<a>-vs-<b>)")
    add_no_progress_argument(c)
    add_force_argument(c)
    c.set_defaults(func=cmd_compare)

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
    add_no_progress_argument(r)
    r.set_defaults(func=cmd_replay)
