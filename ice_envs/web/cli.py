"""``ice-envs serve`` (registered by :func:`add_subcommand`).

ice-envs serve [--port P] [--host H] [--runs DIR] [--allow-python-agents]

Serves the web app (:mod:`ice_envs.web.app`) on ``http://127.0.0.1:8000`` by default: nothing
listens beyond this machine unless ``--host`` says so. The web extra's libraries are imported
only when the command runs, after :func:`~ice_envs.core.errors.require_extra`: a missing extra is one
line naming the install command.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ice_envs.core.errors import OptionError, require_extra


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, got {text!r}")
    return int(text)


def cmd_serve(args: argparse.Namespace) -> int:
    require_extra("web", "ice-envs serve", "starlette", "uvicorn", "jinja2")
    import uvicorn

    from ice_envs.web.app import create_app

    runs = args.runs
    if runs is not None and runs.exists() and not runs.is_dir():
        raise OptionError(f"--runs {runs}: not a folder")
    if runs is not None:
        runs.mkdir(parents=True, exist_ok=True)  # a fresh clone has no runs/ yet: games played are saved there
    from ice_envs.web.guard import LOCAL_NAMES

    # a server for the network (0.0.0.0, ::) answers any name; else this machine's names and the one given
    hosts = None if args.host in ("0.0.0.0", "::") else (*LOCAL_NAMES, args.host)
    app = create_app(runs, allow_python_agents=args.allow_python_agents, hosts=hosts)
    print(f"ice-envs: serving on http://{args.host}:{args.port}/ (Ctrl-C stops)")
    if args.allow_python_agents:
        print("ice-envs: --allow-python-agents: python: agents and any checkpoint path can be loaded (they run code)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs serve``."""
    p = sub.add_parser("serve", help="a local web app: play against the agents, replay games, read leagues")
    p.add_argument("--port", type=_port, default=8000, help="the port (default 8000)")
    p.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)"
    )
    p.add_argument(
        "--runs",
        type=Path,
        default=None,
        help="a folder whose game records, league.json and evaluation.json files can be opened "
        "(the web app's own games are recorded in DIR/web/)",
    )
    p.add_argument(
        "--allow-python-agents",
        action="store_true",
        help="let python:module:factory agents (and checkpoints outside checkpoints/ and --runs) be loaded: they run code",
    )
    p.set_defaults(func=cmd_serve)
