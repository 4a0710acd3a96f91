"""Resumable checkpoints: the MaskablePPO model plus everything else a run needs to continue exactly.

A checkpoint is two files in ``<run>/checkpoints/``:

* ``step_<N>.zip`` — ``MaskablePPO.save``: weights, optimizer, step count, the last
  observations and the episode statistics (also a ``ppo:PATH`` agent for evaluation);
* ``step_<N>.state.pkl`` — the global random generators (torch, numpy, python), the full
  state of every training env (game, generators, opponents, pending reward), the
  self-play pool and the logger values not yet written.

Checkpoints are taken at rollout boundaries, after a PPO update, so a resumed run
continues with the very same updates as an uninterrupted one (same machine, same thread
count).
"""

from __future__ import annotations

import os
import pickle
import random
import re
from pathlib import Path
from typing import Any

import numpy as np

CHECKPOINTS = "checkpoints"
_NAME = re.compile(r"^step_(\d+)\.zip$")
STATE_FORMAT = 1


def checkpoint_path(run_dir: Path, step: int) -> Path:
    """``<run>/checkpoints/step_<step>.zip``."""
    return run_dir / CHECKPOINTS / f"step_{step:012d}.zip"


def state_path(zip_path: Path) -> Path:
    """The ``.state.pkl`` that goes with a checkpoint ``.zip``."""
    return zip_path.with_name(zip_path.name.removesuffix(".zip") + ".state.pkl")


def save_checkpoint(model: Any, run_dir: Path, pool: Any | None, events_done: bool = True) -> Path:
    """Write the model and the run state at ``model.num_timesteps``; returns the ``.zip`` path.

    ``events_done`` says whether the scheduled events of this step (evaluation, promotion
    check) have already run; a resumed run runs them if not.
    """
    import torch

    path = checkpoint_path(run_dir, model.num_timesteps)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    state = {
        "format": STATE_FORMAT,
        "num_timesteps": model.num_timesteps,
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()},
        "envs": model.get_env().env_method("get_state"),
        "pool": pool.state_dict() if pool is not None else None,
        "logger": _pending_logs(model),
        "last_event": model.num_timesteps if events_done else model.num_timesteps - 1,
    }
    tmp = state_path(path).with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(tmp, state_path(path))
    return path


def pending_logger_values(logger: Any) -> dict[str, Any]:
    """What SB3's logger holds but has not written yet (saved with a checkpoint)."""
    return {
        "values": dict(logger.name_to_value),
        "counts": dict(logger.name_to_count),
        "excluded": dict(logger.name_to_excluded),
    }


def restore_logger(logger: Any, pending: dict[str, Any]) -> None:
    """Put :func:`pending_logger_values` back into a fresh logger."""
    logger.name_to_value.update(pending["values"])
    logger.name_to_count.update(pending["counts"])
    logger.name_to_excluded.update(pending["excluded"])


def _pending_logs(model: Any) -> dict[str, Any] | None:
    logger = getattr(model, "_logger", None)
    return pending_logger_values(logger) if logger is not None else None


def list_checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """Complete checkpoints of a run (both files present), oldest first."""
    found = []
    for p in (run_dir / CHECKPOINTS).glob("step_*.zip"):
        m = _NAME.match(p.name)
        if m and state_path(p).is_file():
            found.append((int(m.group(1)), p))
    return sorted(found)


def checkpoint_step(zip_path: Path) -> int:
    """The training step a checkpoint was saved at."""
    return int(pickle.loads(state_path(zip_path).read_bytes())["num_timesteps"])


def resolve_checkpoint(target: str | Path) -> tuple[Path, Path]:
    """(run directory, checkpoint ``.zip``) for a run directory (its latest checkpoint) or a ``.zip``."""
    from ice_envs.train.config import ConfigError

    target = Path(target)
    if target.is_dir():
        found = list_checkpoints(target)
        if not found:
            raise ConfigError(f"--resume: no checkpoint in {target / CHECKPOINTS}")
        return target, found[-1][1]
    if target.suffix != ".zip" or not target.is_file():
        raise ConfigError(f"--resume: {target} is neither a run directory nor a checkpoint .zip")
    if not state_path(target).is_file():
        raise ConfigError(f"--resume: {state_path(target)} is missing; the checkpoint cannot be resumed")
    return target.parent.parent, target


def restore_state(model: Any, zip_path: Path, pool: Any | None) -> dict[str, Any] | None:
    """Put the envs, the pool and the random generators back as they were when ``zip_path`` was saved.

    Returns what the callback needs to continue: ``logger`` (SB3 logger values pending at
    that moment) and ``last_event`` (the last step whose scheduled events have run).
    """
    import torch

    state = pickle.loads(state_path(zip_path).read_bytes())
    if state.get("format") != STATE_FORMAT:
        raise ValueError(f"{state_path(zip_path)}: unknown checkpoint state format {state.get('format')!r}")
    venv = model.get_env()
    if len(state["envs"]) != venv.num_envs:
        raise ValueError(f"checkpoint has {len(state['envs'])} envs, the config asks for {venv.num_envs}")
    if pool is not None and state["pool"] is not None:
        pool.load_state_dict(state["pool"])
        venv.env_method("set_pool", pool.paths())
    venv.reset()  # the envs must have started before their state can be replaced
    for i, blob in enumerate(state["envs"]):
        venv.env_method("set_state", blob, indices=[i])
    torch.set_rng_state(state["rng"]["torch"])
    np.random.set_state(state["rng"]["numpy"])
    random.setstate(state["rng"]["python"])
    return {"logger": state.get("logger"), "last_event": state.get("last_event", state["num_timesteps"])}
