"""``ice-envs play`` (registered by :func:`add_subcommand`).

ice-envs play GAME [--players N] [--seat K] [--opponents heuristic,random,ppo:PATH]
               [--seed S] [--variant V] [--option key=value ...] [--record FILE] [--plain]
               [--max-decisions N]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.options import parse_option
from ice_envs.evaluation.cli import at_least, check_record_target


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
    return "heuristic" if ice_envs.get_spec(game).heuristic else "random"


def cmd_play(args: argparse.Namespace) -> int:
    from ice_envs.play.terminal import PlaySetup, opponent_specs, play

    spec = ice_envs.get_spec(args.game)
    options = _game_options(spec, args.variant, args.option)
    if args.max_decisions is not None:
        given = options.get("max_decisions")
        if given is not None and given != args.max_decisions:
            raise OptionError(f"--max-decisions {args.max_decisions} contradicts --option max_decisions={given}")
        options["max_decisions"] = args.max_decisions
    variant_players = spec.variants[args.variant].players if args.variant else None
    players = args.players if args.players is not None else min(variant_players or spec.players)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**31))
    check_record_target(args.record)
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


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs play``."""
    p = sub.add_parser("play", help="play a game in the terminal against agents")
    p.add_argument("game", help="the game (see `ice-envs list`)")
    p.add_argument(
        "--players", type=at_least(1), default=None, help="seats at the table (default: the fewest the game allows)"
    )
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0: you start)")
    p.add_argument(
        "--opponents",
        default=None,
        help="agent specs for the other seats in seat order, or one for all: random, heuristic, ppo:PATH "
        "(default: heuristic where the game has one, else random)",
    )
    p.add_argument("--seed", type=at_least(0), default=None, help="deal seed (default: a fresh one, printed)")
    p.add_argument("--variant", default=None, help="a registered variant name (see `ice-envs list`)")
    p.add_argument("--option", type=parse_option, action="append", help="extra game option key=value (repeatable)")
    p.add_argument("--record", type=Path, default=None, help="write the game record (JSON lines) to this file")
    p.add_argument(
        "--max-decisions",
        type=at_least(1),
        default=None,
        metavar="N",
        help="stop the game (truncated, no result) after N decisions (default: the game's own cap)",
    )
    p.add_argument("--plain", action="store_true", help="plain text even on a terminal (no rich panels)")
    p.set_defaults(func=cmd_play)
