"""``ice-envs play`` and ``ice-envs replay`` (registered by :func:`add_subcommand`).

ice-envs play GAME [--players N] [--seat K] [--opponents heuristic,random,ppo:PATH]
               [--seed S] [--variant V] [--option key=value ...] [--record FILE] [--plain]
ice-envs replay RECORD --out DIR [--viewer K] [--every N] [--max-frames M] [--fps F] [--no-gif]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.errors import OptionError


def _game_options(spec: Any, variant: str | None, options: list[tuple[str, Any]] | None) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    if variant:
        if variant not in spec.variants:
            raise OptionError(f"{spec.name}: unknown variant {variant!r}; variants: {list(spec.variants)}")
        merged.update(spec.variants[variant].options)
    merged.update(dict(options or []))
    return merged


def _default_opponent(game: str) -> str:
    """``heuristic`` where the game has one, else ``random``."""
    from agents.heuristics import heuristic_for
    from agents.spec import AgentSpecError

    try:
        heuristic_for(game, 0)
    except AgentSpecError:
        return "random"
    return "heuristic"


def cmd_play(args: argparse.Namespace) -> int:
    from ice_envs.play.terminal import PlaySetup, opponent_specs, play

    spec = ice_envs.get_spec(args.game)
    options = _game_options(spec, args.variant, args.option)
    variant_players = spec.variants[args.variant].players if args.variant else None
    players = args.players if args.players is not None else min(variant_players or spec.players)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**31))
    default = _default_opponent(spec.name) if args.opponents is None else ""
    setup = PlaySetup(
        game=spec.name,
        num_players=players,
        seat=args.seat,
        opponents=opponent_specs(args.opponents, players, default),
        seed=seed,
        options=options,
        record=args.record,
    )
    return play(setup, fancy=False if args.plain else None)


def cmd_replay(args: argparse.Namespace) -> int:
    from ice_envs.play.record import RecordError
    from ice_envs.play.replay import replay

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
    print(f"Replayed {result.steps} decisions of {result.env.metadata['name'].removesuffix('_v0')}: {checked}.")
    print(f"{len(result.frames)} PNG frames in {args.out}/" + (f", animation {result.gif}" if result.gif else ""))
    return 0


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs play`` and ``ice-envs replay``."""
    from ice_envs.cli import _parse_option

    p = sub.add_parser("play", help="play a game in the terminal against agents")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=None, help="seats at the table (default: the fewest the game allows)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0: you start)")
    p.add_argument(
        "--opponents",
        default=None,
        help="agent specs for the other seats in seat order, or one for all: random, heuristic, ppo:PATH "
        "(default: heuristic where the game has one, else random)",
    )
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: a fresh one, printed)")
    p.add_argument("--variant", default=None, help="a registered variant name (see `ice-envs list`)")
    p.add_argument("--option", type=_parse_option, action="append", help="extra game option key=value (repeatable)")
    p.add_argument("--record", type=Path, default=None, help="write the game record (JSON lines) to this file")
    p.add_argument("--plain", action="store_true", help="plain text even on a terminal (no rich panels)")
    p.set_defaults(func=cmd_play)

    r = sub.add_parser("replay", help="replay a game record to PNG frames and an animated GIF")
    r.add_argument("record", type=Path, help="a game record (JSON lines) from play, demo or evaluate --record")
    r.add_argument("--out", type=Path, required=True, help="folder for the frames and replay.gif")
    r.add_argument("--viewer", type=int, default=None, help="draw the table as this seat sees it (default: all open)")
    r.add_argument("--every", type=int, default=None, help="keep every N-th frame (default: at most --max-frames)")
    r.add_argument("--max-frames", type=int, default=150, help="most frames to keep when --every is not given")
    r.add_argument("--fps", type=float, default=2.0, help="frames per second of the GIF")
    r.add_argument("--no-gif", action="store_true", help="write the PNG frames only")
    r.set_defaults(func=cmd_replay)
