"""The ``train`` command line: ``python -m ice_envs.train CONFIG`` and ``ice-envs train CONFIG``.

    python -m ice_envs.train train/configs/cardiceo_ppo.yaml [--set ppo.learning_rate=1e-4 ...]
    python -m ice_envs.train --resume runs/train/cardiceo_ppo-seed0 [--set total_timesteps=2000000]
    python -m ice_envs.train ice_envs/cardiceo/smoke.yaml --print-config
    python -m ice_envs.train train/configs/cardiceo_rllib_ppo.yaml      (``backend: rllib``: RLlib PPO)

This module imports neither torch nor stable-baselines3 until a command runs, so
``ice-envs`` works without the ``train`` extra. A user's mistake (a bad config, override,
run directory or checkpoint) is one line on stderr and exit status 2, as in ``ice-envs``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from ice_envs.core.errors import require_extra
from ice_envs.evaluation.cli import CommandLineParser, report_user_errors


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="a YAML training config (train/configs/<game>_ppo.yaml)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config key, value read as YAML (repeatable): --set ppo.learning_rate=1e-4",
    )
    parser.add_argument(
        "--resume", metavar="RUN_OR_CHECKPOINT", help="continue a run dir (latest checkpoint) or a checkpoint .zip"
    )
    parser.add_argument("--run-dir", help="the run directory (default <out_dir>/<name>-seed<seed>, made unique)")
    parser.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def run_from_args(args: argparse.Namespace, prog: str = "ice-envs") -> int:
    """Run the command that ``args`` describe (errors are ``train.config.ConfigError``)."""
    require_extra("train", "ice-envs train", "yaml", "pydantic")
    from ice_envs.train.config import ConfigError, RLlibTrainConfig, dump_config, load_config

    needs = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib", "openskill")

    argv = getattr(args, "argv", None)
    command = f"{prog} {shlex.join(sys.argv[1:] if argv is None else argv)}"
    if args.resume:
        if args.config:
            raise ConfigError("give either a config or --resume, not both (a resumed run uses its own config.yaml)")
        _refuse_rllib_resume(args.resume)
        require_extra("train", "ice-envs train", *needs)
        from ice_envs.train.run import resume

        resume(args.resume, args.overrides, command=command, echo=not args.quiet)
        return 0
    if not args.config:
        raise ConfigError("a config file is required (or --resume RUN_DIR); see train/configs/")
    cfg = load_config(args.config, args.overrides)
    if args.print_config:
        print(dump_config(cfg), end="")
        return 0
    if isinstance(cfg, RLlibTrainConfig):
        require_extra("rllib", "ice-envs train with backend: rllib", "ray", "torch", "tensorboard", "openskill")
        from ice_envs.train.rllib_backend import train as train_rllib

        train_rllib(cfg, args.run_dir, command=command, echo=not args.quiet)
        return 0
    require_extra("train", "ice-envs train", *needs)
    from ice_envs.train.run import train

    train(cfg, args.run_dir, command=command, echo=not args.quiet)
    return 0


def _refuse_rllib_resume(target: str) -> None:
    """``--resume`` continues SB3 runs only; an RLlib run directory is named as such."""
    from pathlib import Path

    from ice_envs.train.config import ConfigError, read_config_data

    config = Path(target) / "config.yaml"
    try:
        data = read_config_data(config) if config.is_file() else None
    except ConfigError:  # unreadable: resume names it and takes the config its checkpoint records
        return
    if isinstance(data, dict) and data.get("backend") == "rllib":
        raise ConfigError(
            f"{target} is an RLlib run: --resume continues SB3 runs; start a new run (its RLlib checkpoints in "
            "checkpoints/iter_<N>/ restore with RLlib's Algorithm.from_checkpoint)"
        )


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs train``."""
    p = sub.add_parser(
        "train",
        help="train a MaskablePPO agent from a YAML config (docs/training.md); backend: rllib: RLlib PPO (docs/rllib.md)",
    )
    add_arguments(p)
    p.set_defaults(func=run_from_args)


def main(argv: list[str] | None = None) -> int:
    """``python -m ice_envs.train``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = "python -m ice_envs.train"
    parser = CommandLineParser(prog=prog, description="Train a MaskablePPO agent from a YAML config.")
    add_arguments(parser)

    def run() -> int:
        args = parser.parse_args(argv)
        args.argv = argv
        return run_from_args(args, prog)

    return report_user_errors(prog, run)
