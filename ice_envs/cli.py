"""The ``ice-envs`` command line: the top layer, which imports every other one.

ice-envs list                                  every game: players, variants, sizes
ice-envs demo GAME [--players N] [--seed S]    one random game, rendered as text
                [--record FILE]                (and its game record, for `ice-envs replay`)

A user's mistake (a bad option, game, agent spec, file or number) is one line on stderr,
``ice-envs: error: ...``, and exit status 2; Ctrl-C is one line and status 130. Bugs keep
their traceback.
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
from importlib import metadata as importlib_metadata

import numpy as np

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.masks import sample_legal
from ice_envs.core.options import parse_option
from ice_envs.evaluation import cli as evaluation_cli
from ice_envs.evaluation import probe_cli
from ice_envs.evaluation.cli import CommandLineParser, at_least, check_record_target, report_user_errors
from ice_envs.evaluation.record import GameRecorder, take
from ice_envs.play import cli as play_cli
from ice_envs.train import cli as train_cli
from ice_envs.train import move_learner
from ice_envs.web import cli as web_cli


def package_version() -> str:
    """The installed distribution's version (``importlib.metadata``; the source's own without an install)."""
    try:
        return importlib_metadata.version("ice-envs")
    except importlib_metadata.PackageNotFoundError:
        return ice_envs.__version__


def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for name, spec in ice_envs.GAMES.items():
        env = spec.load().raw_env(num_players=spec.players[0])
        agent = env.possible_agents[0]
        n_actions = env.action_space(agent).n
        obs_shape = env.observation_space(agent)["observation"].shape
        players = f"{min(spec.players)}-{max(spec.players)}"
        variants = ", ".join(
            v + (f" ({min(var.players)}-{max(var.players)}p)" if var.players else "")
            for v, var in spec.variants.items()
        )
        rows.append((name, players, str(n_actions), "x".join(map(str, obs_shape)), variants, spec.summary))
    print("\n".join(games_table(rows, shutil.get_terminal_size((100, 24)).columns)))
    return 0


_KEEP = "\x00"
#: The narrowest the last column of ``ice-envs list`` is wrapped to, however narrow the terminal.
MIN_WRAP = 24


def games_table(rows: list[tuple[str, ...]], width: int) -> list[str]:
    """The lines of ``ice-envs list`` fitted to ``width`` columns.

    Each game is one line of its short columns with the variants wrapped in the last column,
    then its summary wrapped on lines of their own, indented. Lines are longer than ``width``
    only where the terminal is narrower than the short columns plus :data:`MIN_WRAP`.
    """
    header = ("game", "players", "actions", "observation", "variants")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    indent = sum(widths) + 2 * len(widths)
    wrap = max(width - indent, MIN_WRAP)

    def line(cells: tuple[str, ...]) -> list[str]:
        head = "".join(cell.ljust(w + 2) for cell, w in zip(cells[:4], widths, strict=True))
        # a variant's "(2-4p)" stays on the line of its name (a non-space stands for the space while wrapping)
        last = [part.replace(_KEEP, " ") for part in textwrap.wrap(cells[4].replace(" (", _KEEP + "("), wrap)] or [""]
        return [(head + last[0]).rstrip()] + [" " * indent + more for more in last[1:]]

    lines = line(header)
    for row in rows:
        lines += line(row[:5])
        lines += textwrap.wrap(row[5], max(width, MIN_WRAP), initial_indent="    ", subsequent_indent="    ")
    return lines


def cmd_demo(args: argparse.Namespace) -> int:
    spec = ice_envs.get_spec(args.game)
    options = {**spec.demo_options, **dict(args.option or [])}
    if args.variant:
        if args.variant not in spec.variants:
            raise OptionError(f"{spec.name}: unknown variant {args.variant!r}; variants: {list(spec.variants)}")
        options = {**spec.variants[args.variant].options, **dict(args.option or [])}
    for flag in ("expansion",):
        if getattr(args, flag, False):
            options[flag] = True
    players = args.players if args.players is not None else spec.players[0]
    check_record_target(args.record)
    env = ice_envs.make(spec.name, num_players=players, render_mode="ansi", **options)
    env.reset(seed=args.seed)
    raw = env.unwrapped
    rng = np.random.default_rng(args.seed)
    recorder = None
    if args.record:
        recorder = GameRecorder(spec.name, players, options, args.seed, ["random"] * players)
    print(raw.render())
    decisions = 0
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        action = sample_legal(rng, obs["action_mask"])
        print(f"\n{agent}: {raw.describe_action(action)}")
        take(env, action, recorder)
        decisions += 1
        if not args.quiet and env.agents and not any(env.terminations.values()):
            print(raw.render())
    print("\n" + raw.render())
    scores = ", ".join(f"{a}={s:g}" for a, s in zip(raw.possible_agents, raw.scores(), strict=False))
    print(f"\nGame over after {decisions} decisions. Scores: {scores}")
    print("Total rewards: " + ", ".join(f"{a}={r:+g}" for a, r in totals.items()))
    if recorder is not None:
        recorder.finish(raw)
        print(f"Game record written to {recorder.save(args.record)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(prog="ice-envs", description="ice-envs: five ice- and dice-themed tabletop games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    p_list = sub.add_parser("list", help="list the games with player counts, variants and sizes")
    p_list.set_defaults(func=cmd_list)

    p_demo = sub.add_parser("demo", help="play one random game and print it as text")
    p_demo.add_argument("game", help="the game (see `ice-envs list`)")
    p_demo.add_argument(
        "--players", type=at_least(1), default=None, help="seats at the table (default: the fewest the game allows)"
    )
    p_demo.add_argument("--seed", type=at_least(0), default=0, help="the deal's and the random moves' seed")
    p_demo.add_argument("--variant", default=None, help="a registered variant name (see `ice-envs list`)")
    p_demo.add_argument("--option", type=parse_option, action="append", help="extra game option key=value")
    p_demo.add_argument("--expansion", action="store_true", help="CubeMelt: play with the expansion abilities")
    p_demo.add_argument("--quiet", action="store_true", help="print only the moves and the final table")
    p_demo.add_argument("--record", default=None, help="write the game record (JSON lines) to this file")
    p_demo.set_defaults(func=cmd_demo)

    evaluation_cli.add_subcommand(sub)
    probe_cli.add_subcommand(sub)
    play_cli.add_subcommand(sub)
    train_cli.add_subcommand(sub)
    move_learner.add_subcommand(sub)
    web_cli.add_subcommand(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``ice-envs ARGV``; returns the exit status (2: a user's mistake, reported as one line)."""
    parser = build_parser()

    def run() -> int:
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)

    return report_user_errors("ice-envs", run)


if __name__ == "__main__":
    raise SystemExit(main())
