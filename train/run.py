"""One training run: run directory, reproducible set-up, MaskablePPO, final evaluation.

A run directory (``<out_dir>/<name>-seed<seed>``, suffixed ``-2``, ``-3`` ... if taken) holds:

    config.yaml         the resolved config (every default spelled out)
    meta.json           seed, command(s), git commit, package versions, torch threads, timings
    tb/ppo_1/           TensorBoard events (SB3 metrics, eval/*, games/*, selfplay/*)
    checkpoints/        step_<N>.zip + step_<N>.state.json (resumable)
    policies/           step_<N>.npz: the policy at each evaluation (a ``ppo:PATH`` agent)
    pool/               self-play snapshots (and league snapshots)
    evaluations.jsonl   one line per evaluation
    final.zip           the final model (a ``ppo:PATH`` agent)
    evaluation.json/md  the final evaluation, with the commands that reproduce it
    curves.png          learning curves

Reproducibility: the seed seeds python, numpy and torch (``MaskablePPO(seed=...)``) and
env ``i`` with ``seed + i``; torch runs with ``torch_threads`` threads on the CPU. The same
config, seed and thread count on the same machine give identical weights and metrics; on a CPU whose
torch kernels are of another instruction set (``torch_cpu_kernels`` in ``meta.json``) the weights differ.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.agents.ppo_agent import MAX_CHECKPOINT_BYTES, observation_pieces
from ice_envs.core.files import atomic_path, read_bytes, write_atomic
from ice_envs.core.machine import machine_info, package_versions
from ice_envs.core.registry import get_spec
from ice_envs.core.threads import one_blas_thread
from ice_envs.train.config import (
    ConfigError,
    RLlibTrainConfig,
    TrainConfig,
    apply_overrides,
    config_from_dict,
    dump_config,
    read_config_data,
)

#: Keys that ``--set`` may change when resuming (the rest would change what the checkpoint means).
RESUMABLE_KEYS = ("total_timesteps", "checkpoint_every", "eval", "verbose", "curves")


@dataclass
class RunResult:
    """What :func:`train` returns."""

    run_dir: Path
    final_model: Path
    report: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------- set-up helpers


def git_info(cwd: Path | None = None) -> dict[str, Any]:
    """The commit of the working tree and whether it has uncommitted changes (read-only git calls)."""
    cwd = cwd or Path(__file__).resolve().parent.parent

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(
                ["git", "--no-optional-locks", *args], cwd=cwd, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def new_run_dir(cfg: TrainConfig) -> Path:
    """``<out_dir>/<name>-seed<seed>``, or the first free ``-2``, ``-3``... variant."""
    base = Path(cfg.out_dir) / f"{cfg.name or 'run'}-seed{cfg.seed}"
    path, k = base, 1
    while path.exists() and any(path.iterdir()):
        k += 1
        path = base.with_name(f"{base.name}-{k}")
    return path


@contextmanager
def unchecked_distributions() -> Iterator[None]:
    """torch.distributions without their argument checks, for the length of a run.

    MaskablePPO builds a masked categorical distribution for every batch of actions it samples and
    every minibatch it trains on; torch checks each one's logits and every sampled action against the
    distribution's support, about a third of a policy forward pass (4 Cardiceo observations: 1.5 ms
    checked, 1.0 ms not). The checks compute nothing the run uses, so the values, the actions drawn
    and the weights are the same (docs/training.md, "Distribution checks"). A NaN in the logits still
    fails the run, at ``torch.multinomial``.
    """
    import torch

    checked = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        torch.distributions.Distribution.set_default_validate_args(checked)


def set_torch_threads(n: int) -> None:
    import torch

    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # may only be set once per process, before any parallel work
        pass


def torch_cpu_kernels() -> str:
    """The instruction set of torch's CPU kernels here (``AVX512``, ``AVX2``, ``DEFAULT``, ...).

    Torch picks its float kernels by the CPU (or ``ATEN_CPU_CAPABILITY``); kernels of another width add in
    another order, so the same config and seed train other weights on a CPU of another kind
    (docs/resume.md, "Reproducibility"). Recorded in each session of ``meta.json``.
    """
    import torch

    return str(torch.backends.cpu.get_cpu_capability())


def model_meta(cfg: TrainConfig | RLlibTrainConfig) -> dict[str, Any]:
    """What a checkpoint records about its game (read by ``PPOAgent.load``; the RLlib backend's too)."""
    env = ice_envs.make(cfg.game.name, raw=True, num_players=cfg.game.players, **cfg.resolved_options())
    return {
        "game": cfg.game.name,
        "players": cfg.game.players,
        "variant": cfg.game.variant,
        "options": cfg.resolved_options(),
        "seed": cfg.seed,
        "name": cfg.name,
        "observation_pieces": env_observation_pieces(env),
    }


def env_observation_pieces(env: Any) -> list[list[Any]]:
    """``[name, size]`` of each piece of ``env``'s observation: its ``obs_layout``'s, or one piece
    ``observation`` covering the whole vector when the game declares no layout."""
    layout = getattr(env, "obs_layout", None)
    if layout is not None:
        return observation_pieces(layout)
    box = env.observation_space(env.possible_agents[0])["observation"]
    return [["observation", int(np.prod(box.shape))]]


# ---------------------------------------------------------------------------- envs and model


@dataclass(frozen=True)
class EnvFactory:
    """Builds one training env (picklable, for ``SubprocVecEnv``)."""

    game: str
    players: int
    options: dict[str, Any]
    mix: dict[str, float]
    per_seat: bool
    pool: tuple[str, ...]
    latest_share: float
    snapshot_deterministic: bool
    learner_seat: int | None
    #: ``(potential, scale, gamma)`` of the reward shaping, or ``None``.
    shaping: tuple[str, float, float] | None = None
    #: League self-play: ``(members, weights, per_seat, deterministic)`` of the envs' first
    #: :class:`~ice_envs.wrappers.opponents.LeagueOpponents` (it replaces the mix), or ``None``.
    league: tuple[tuple[tuple[str, str, str], ...], tuple[int, ...], bool, bool] | None = None

    def __call__(self) -> Any:
        from ice_envs.train.training_env import TrainingEnv
        from ice_envs.wrappers.opponents import LeagueOpponents, OpponentMix

        # for the rest of a SubprocVecEnv worker (in the training process, _run restores the limit)
        one_blas_thread()

        opponents: Any
        if self.league is not None:
            members, weights, per_seat, deterministic = self.league
            opponents = LeagueOpponents(self.game, self.players, members, weights, per_seat, deterministic)
        else:
            opponents = OpponentMix(
                self.game, self.mix, self.per_seat, self.pool, self.latest_share, self.snapshot_deterministic
            )
        from ice_envs.train.shaping import Shaper

        shaping = Shaper(self.game, *self.shaping) if self.shaping else None
        return TrainingEnv(self.game, self.players, self.options, opponents, self.learner_seat, shaping=shaping)


def env_factory(cfg: TrainConfig, pool_paths: list[str]) -> EnvFactory:
    """The factory of one training env as the config says."""
    sp = cfg.opponents.self_play
    lg = cfg.opponents.league
    league = None
    if lg is not None:
        from ice_envs.train.league import initial_table

        members, weights = initial_table(list(lg.fixed))
        if not members:  # a league of snapshots only: a stand-in until the first snapshot is pushed
            members, weights = [("random", "agent", "random")], [1]
        league = (tuple(members), tuple(weights), lg.per_seat, lg.deterministic)
    return EnvFactory(
        cfg.game.name,
        cfg.game.players,
        cfg.resolved_options(),
        dict(cfg.opponents.mix),
        cfg.opponents.per_seat,
        tuple(pool_paths),
        sp.latest_share,
        sp.deterministic,
        cfg.game.learner_seat,
        shaping=(
            (cfg.reward_shaping.potential, cfg.reward_shaping.scale, cfg.ppo.gamma)
            if cfg.reward_shaping.potential
            else None
        ),
        league=league,
    )


def make_vec_env(cfg: TrainConfig, pool_paths: list[str]) -> Any:
    """``n_envs`` training envs in a DummyVecEnv, in worker processes (a
    :class:`~ice_envs.train.grouped_vec_env.GroupedSubprocVecEnv` of ``env_processes`` processes, one
    per env by default), or ``n_envs`` games of one batched engine.

    Workers start with ``forkserver`` unless the config names another start method: each then
    holds only its own pipe, so it ends as soon as the learner does, and a worker's error reaches
    the learner as a one-line error (:class:`~ice_envs.train.grouped_vec_env.EnvWorkerError`).
    """
    from stable_baselines3.common.vec_env import DummyVecEnv

    if cfg.vec_env == "batched":  # every game in one batched engine, in this process
        return make_batched_env(cfg, pool_paths)
    factory = env_factory(cfg, pool_paths)
    kind = cfg.vec_env if cfg.vec_env != "auto" else ("subproc" if cfg.n_envs > 1 else "dummy")
    fns = [factory] * cfg.n_envs
    if kind == "dummy":
        return DummyVecEnv(fns)
    from ice_envs.train.grouped_vec_env import GroupedSubprocVecEnv

    method = "forkserver" if cfg.start_method == "auto" else cfg.start_method
    return GroupedSubprocVecEnv(fns, cfg.env_processes or cfg.n_envs, start_method=method)


def make_batched_env(cfg: TrainConfig, pool_paths: list[str]) -> Any:
    """``vec_env: batched``: the game's compiled engine with its opponents played inside it
    (:class:`~ice_envs.train.compiled_vec_env.CompiledVecEnv`) where numba is installed, else the
    numpy engine with random opponents (:class:`~ice_envs.train.batched_vec_env.BatchedVecEnv`)."""
    from ice_envs.core.vector import compiled_available

    sp = cfg.opponents.self_play
    if compiled_available() and get_spec(cfg.game.name).compiled is not None:
        from ice_envs.train.compiled_vec_env import CompiledVecEnv

        factory = env_factory(cfg, pool_paths)  # the scalar path's league table and shaping, read once
        return CompiledVecEnv(
            cfg.game.name,
            cfg.n_envs,
            cfg.game.players,
            cfg.resolved_options(),
            dict(cfg.opponents.mix),
            cfg.game.learner_seat,
            cfg.seed,
            pool=pool_paths,
            latest_share=sp.latest_share,
            snapshot_deterministic=sp.deterministic,
            per_seat=cfg.opponents.per_seat,
            league=factory.league,
            shaping=factory.shaping,
        )
    from ice_envs.train.batched_vec_env import make_batched_vec_env

    return make_batched_vec_env(
        cfg.game.name,
        cfg.n_envs,
        cfg.game.players,
        cfg.resolved_options(),
        dict(cfg.opponents.mix),
        cfg.game.learner_seat,
        cfg.seed,
    )


def resolve_device(device: str, imitation: bool = False) -> str:
    """The torch device of ``device: cpu | cuda | auto`` (``auto``: CUDA when present, else the CPU).

    The imitation warm start (``imitation`` true) trains on the CPU only, so ``auto`` resolves
    to the CPU with it.

    Raises:
        ConfigError: ``cuda`` asked for on a machine without a CUDA device, or with imitation.
    """
    if device == "cpu":
        return "cpu"
    if imitation:
        if device == "cuda":
            raise ConfigError(
                "device: cuda does not work with imitation.teacher (it trains on the CPU); use cpu or auto"
            )
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        raise ConfigError("device: cuda asked for, but torch sees no CUDA device here; use cpu or auto")
    return "cpu"


@dataclass(frozen=True)
class LinearDecay:
    """A learning rate falling linearly from ``start`` to 0 over the run (picklable, for SB3)."""

    start: float

    def __call__(self, progress_remaining: float) -> float:
        return self.start * progress_remaining


def build_model(cfg: TrainConfig, venv: Any, run_dir: Path) -> Any:
    """A fresh MaskablePPO ``MlpPolicy`` model as the config says."""
    import torch
    from sb3_contrib import MaskablePPO

    p = cfg.ppo
    lr: Any = p.learning_rate if p.lr_schedule == "constant" else LinearDecay(p.learning_rate)
    net_arch = dict(p.net_arch) if isinstance(p.net_arch, dict) else list(p.net_arch)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=lr,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl,
        normalize_advantage=p.normalize_advantage,
        policy_kwargs={"net_arch": net_arch, "activation_fn": activation, "ortho_init": p.ortho_init},
        tensorboard_log=str(run_dir / "tb"),
        seed=cfg.seed,
        device=resolve_device(cfg.device, cfg.imitation.teacher is not None),
        verbose=cfg.verbose,
    )
    model.ice_envs = model_meta(cfg)
    return model


# ---------------------------------------------------------------------------- the run


def train(
    cfg: TrainConfig,
    run_dir: str | Path | None = None,
    command: str | None = None,
    echo: bool = True,
) -> RunResult:
    """Train a new run from ``cfg``; returns the run directory, final model and final report."""
    run_dir = Path(run_dir) if run_dir is not None else new_run_dir(cfg)
    if run_dir.exists():
        entries = list(run_dir.iterdir())
        if not all(_temporary(p) for p in entries):
            raise ConfigError(f"run directory {run_dir} is not empty; resume it with --resume {run_dir}")
        for leftover in entries:  # a write cut short before the run's first file was complete
            leftover.unlink()
    run_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(run_dir / "config.yaml", dump_config(cfg))
    return _run(cfg, run_dir, _new_meta(cfg), command, resume_from=None, echo=echo)


def _temporary(path: Path) -> bool:
    """Whether ``path`` is a temporary file of an atomic write cut short: ``.<name>.<random>.tmp`` (and
    ``.tmp.png`` / ``.tmp.npz``, named for matplotlib's and numpy's sake)."""
    name = path.name
    return (
        path.is_file()
        and not path.is_symlink()
        and name.startswith(".")
        and name.endswith((".tmp", ".tmp.png", ".tmp.npz"))
    )


def _remove_temporaries(run_dir: Path) -> None:
    """Remove the temporary files of atomic writes that a kill cut short (in the run directory and
    its ``checkpoints/``); nothing else."""
    for folder in (run_dir, run_dir / "checkpoints"):
        if folder.is_dir() and not folder.is_symlink():
            for path in folder.iterdir():
                if _temporary(path):
                    path.unlink()


def _new_meta(cfg: TrainConfig) -> dict[str, Any]:
    return {
        "name": cfg.name,
        "seed": cfg.seed,
        "torch_threads": cfg.torch_threads,
        "git": git_info(),
        "versions": package_versions(),
        "platform": platform.platform(),
        "machine": machine_info(),
        "sessions": [],
    }


#: What a run writes besides ``config.yaml`` and ``meta.json``: removed when a run that never reached
#: its first checkpoint starts again in place.
RUN_OUTPUTS = (
    "checkpoints",
    "tb",
    "policies",
    "pool",
    "evaluations.jsonl",
    "final.zip",
    "final.npz",
    "evaluation.json",
    "evaluation.md",
    "curves.png",
)


def resume(
    target: str | Path, overrides: list[str] | None = None, command: str | None = None, echo: bool = True
) -> RunResult:
    """Continue a run from its newest complete checkpoint (``target`` = run dir) or a given checkpoint ``.zip``.

    Newer checkpoints that are not complete (a kill while one was written) are skipped and named.
    ``evaluations.jsonl`` is cut back to the rows it had at the checkpoint (later rows are written
    again, identically). A run whose checkpoint is at ``total_timesteps`` but that never finished
    (killed during its final evaluation) is finished; a run killed before its first checkpoint
    starts again from step 0 in its own directory.
    """
    from ice_envs.train.checkpoints import EVALUATIONS, NoCheckpoint, read_state, resolve_checkpoint, truncate_log

    _check_overrides(overrides)
    _remove_temporaries(Path(target))
    try:
        run_dir, checkpoint = resolve_checkpoint(target, echo)
    except NoCheckpoint as exc:
        return _start_again(Path(target), str(exc), overrides, command, echo)
    state = read_state(checkpoint)
    cfg = config_from_dict(
        apply_overrides(_run_config(run_dir, state, echo), overrides or []), source=str(run_dir / "config.yaml")
    )
    meta = _read_meta(run_dir, cfg, echo)
    done = int(state["num_timesteps"])
    finished = bool(meta["sessions"]) and "finished" in meta["sessions"][-1]
    if done > cfg.total_timesteps or (done == cfg.total_timesteps and finished):
        raise ConfigError(
            f"{checkpoint} is at {done:,} steps, total_timesteps is {cfg.total_timesteps:,}; "
            "continue with --set total_timesteps=<more>"
        )
    dropped = truncate_log(run_dir / EVALUATIONS, state["evaluations"])
    if dropped and echo:
        print(f"[train] {EVALUATIONS}: {dropped} row(s) written after {checkpoint.name} dropped", flush=True)
    if done == cfg.total_timesteps and echo:
        print(f"[train] {run_dir} reached {done:,} steps but did not finish: finishing it", flush=True)
    write_atomic(run_dir / "config.yaml", dump_config(cfg))
    return _run(cfg, run_dir, meta, command, resume_from=checkpoint, echo=echo)


def _check_overrides(overrides: list[str] | None) -> None:
    for text in overrides or []:
        key = text.partition("=")[0].strip()
        if key.split(".")[0] not in RESUMABLE_KEYS:
            raise ConfigError(f"--set {key}: cannot be changed when resuming; only {', '.join(RESUMABLE_KEYS)}")


def _run_config(run_dir: Path, state: dict[str, Any], echo: bool) -> dict[str, Any]:
    """The run's config: its ``config.yaml``, or the checkpoint's copy when that file cannot be read."""
    from ice_envs.core.files import FileFormatError

    path = run_dir / "config.yaml"
    try:
        data = read_config_data(path)
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: the config must be a mapping of keys")
    except (ConfigError, FileFormatError) as exc:
        if state.get("config") is None:
            raise
        if echo:
            print(f"[train] {exc}; using the config saved in the checkpoint", flush=True)
        return dict(state["config"])
    return data


def _read_meta(run_dir: Path, cfg: TrainConfig, echo: bool) -> dict[str, Any]:
    """The run's ``meta.json``, or a new one (named on one line) when it is missing or cannot be read."""
    from ice_envs.core.files import FileFormatError, load_json

    path = run_dir / "meta.json"
    try:
        meta = load_json(path, what="run meta data")
        if isinstance(meta, dict) and isinstance(meta.get("sessions"), list):
            return meta
        problem = f"{path}: not a run's meta data"
    except FileFormatError as exc:
        problem = str(exc)
    if echo:
        print(f"[train] {problem}; its earlier sessions are not known, a new one is started", flush=True)
    return _new_meta(cfg)


def _start_again(run_dir: Path, why: str, overrides: list[str] | None, command: str | None, echo: bool) -> RunResult:
    """A run killed before its first checkpoint: start it again from step 0 in its own directory."""
    path = run_dir / "config.yaml"
    if not path.is_file():
        raise ConfigError(f"{why}, and no config.yaml to start it again from")
    data = read_config_data(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys")
    cfg = config_from_dict(apply_overrides(data, overrides or []), source=str(path))
    meta = _read_meta(run_dir, cfg, echo)
    if echo:
        print(f"[train] {why}: the run starts again from step 0 in {run_dir}", flush=True)
    for name in RUN_OUTPUTS:
        target = run_dir / name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    write_atomic(run_dir / "config.yaml", dump_config(cfg))
    return _run(cfg, run_dir, meta, command, resume_from=None, echo=echo)


def _run(
    cfg: TrainConfig, run_dir: Path, meta: dict[str, Any], command: str | None, resume_from: Path | None, echo: bool
) -> RunResult:
    """One session of a run (new or resumed), with one BLAS thread for the snapshot opponents' numpy
    products (ice_envs.core.threads) and without torch's distribution checks; both are restored after."""
    with one_blas_thread(), unchecked_distributions():
        return _run_session(cfg, run_dir, meta, command, resume_from, echo)


def _run_session(
    cfg: TrainConfig, run_dir: Path, meta: dict[str, Any], command: str | None, resume_from: Path | None, echo: bool
) -> RunResult:
    from ice_envs.train.callbacks import TrainingCallback, policy_net
    from ice_envs.train.checkpoints import save_checkpoint
    from ice_envs.train.evaluation import heuristic_note

    set_torch_threads(cfg.torch_threads)
    session = {
        "command": command or shlex.join(sys.argv),
        "started": _now(),
        "resumed_from": str(resume_from) if resume_from else None,
        "git": git_info(),
        # a resume loads the checkpoint on the CPU (train.checkpoints.load_model)
        "device": resolve_device(cfg.device, cfg.imitation.teacher is not None) if resume_from is None else "cpu",
        "torch_cpu_kernels": torch_cpu_kernels(),
    }
    meta["sessions"].append(session)
    _write_json(run_dir / "meta.json", meta)
    notes = [n for n in [heuristic_note(cfg.game.name)] if n and "heuristic" in cfg.eval.against]
    for note in notes:
        print(f"[train] note: {note}", flush=True)

    t_start = time.perf_counter()
    pool = _make_pool(cfg, run_dir)
    league = _make_league(cfg, run_dir)
    if resume_from is None:
        venv, model, resume_info = _start(cfg, run_dir, pool, meta, echo, league)
    else:
        venv, model, resume_info = _restart(cfg, run_dir, pool, resume_from, echo, league)

    def record_progress(step: int) -> None:
        # what this session has done up to its latest checkpoint: a session stopped later still counts to here
        session["last_checkpoint"] = _session_figures(step, time.perf_counter() - t_start, callback)
        _write_json(run_dir / "meta.json", meta)

    callback = TrainingCallback(
        cfg, run_dir, pool, notes, echo=echo, resume_info=resume_info, league=league, on_checkpoint=record_progress
    )
    try:
        model.learn(
            cfg.total_timesteps - model.num_timesteps,
            callback=callback,
            tb_log_name="ppo",
            reset_num_timesteps=resume_from is None,
        )
        callback.collect_evaluations(block=True)
        train_rate = callback.steps_per_second()
        last = save_checkpoint(model, run_dir, pool, events_done=False, league=league, config=cfg.to_dict())
        final = run_dir / "final.zip"
        write_atomic(final, read_bytes(last, what="checkpoint", max_bytes=MAX_CHECKPOINT_BYTES))
        with atomic_path(run_dir / "final.npz") as tmp:
            policy_net(model, cfg).save_npz(tmp)
        report = _final_report(
            cfg,
            run_dir,
            model,
            callback,
            final,
            notes,
            train_rate,
            t_start,
            meta.get("imitation"),
            meta["sessions"][:-1],
        )
    except KeyboardInterrupt:
        print(f"\n[train] interrupted; continue from the last checkpoint with --resume {run_dir}", flush=True)
        raise
    finally:
        callback.close()
        venv.close()
        if getattr(model, "_logger", None) is not None:
            model.logger.close()
    if cfg.curves:
        _plot(run_dir, echo)
    session.update(
        {
            "finished": _now(),
            **_session_figures(model.num_timesteps, time.perf_counter() - t_start, callback),
            "steps_per_second": report["steps_per_second"],
        }
    )
    _write_json(run_dir / "meta.json", meta)  # last: a run is finished from here on (--resume says so)
    if echo:
        print(f"[train] done: {run_dir} (final model {final}; report {run_dir / 'evaluation.json'})", flush=True)
    return RunResult(run_dir, final, report)


def _make_pool(cfg: TrainConfig, run_dir: Path) -> Any:
    """The self-play pool, or ``None`` when the mix has no self-play."""
    from ice_envs.train.opponents import SelfPlayPool

    if cfg.opponents.league is not None or cfg.opponents.mix.get("self_play", 0) <= 0:
        return None
    sp = cfg.opponents.self_play
    return SelfPlayPool(run_dir / "pool", sp.pool_size, cfg.game.players, sp.promote_lower_bound)


def _make_league(cfg: TrainConfig, run_dir: Path) -> Any:
    """The league of league self-play (:mod:`train.league`), or ``None`` without ``opponents.league``."""
    from ice_envs.train.league import League

    lg = cfg.opponents.league
    if lg is None:
        return None
    return League(run_dir / "pool", list(lg.fixed), cfg.game.players, lg)


def _start(
    cfg: TrainConfig, run_dir: Path, pool: Any, meta: dict[str, Any], echo: bool, league: Any = None
) -> tuple[Any, Any, None]:
    """Envs and a fresh model (imitating the teacher first if the config says so).

    The starting policy is the self-play pool's first snapshot (and the league's, with
    ``initial_snapshot``).
    """
    from ice_envs.train.callbacks import policy_net

    venv = make_vec_env(cfg, [])
    model = build_model(cfg, venv, run_dir)
    if cfg.imitation.teacher is not None:
        from ice_envs.train.imitation import warm_start

        meta["imitation"] = warm_start(model, cfg, env_factory(cfg, []), run_dir, echo)
        _write_json(run_dir / "meta.json", meta)
    if pool is not None:
        policy_net(model, cfg).save_npz(pool.candidate_path())
        pool.add(pool.candidate_path(), 0)
        venv.env_method("set_pool", pool.paths())
    if league is not None:
        if league.cfg.initial_snapshot:
            league.add_snapshot(policy_net(model, cfg), 0, "initial")
        from ice_envs.train.callbacks import push_league

        push_league(venv, league)
    return venv, model, None


def _restart(
    cfg: TrainConfig, run_dir: Path, pool: Any, checkpoint: Path, echo: bool, league: Any = None
) -> tuple[Any, Any, dict]:
    """Envs and the model of ``checkpoint``, with every env, generator and the pool as they were.

    Nothing from the run directory is unpickled: the model's pickled values come from a fresh
    model built from the config (as :func:`train` builds it) and from the checkpoint's
    ``.state.json`` (see :func:`train.checkpoints.load_model`).
    """
    from ice_envs.train.checkpoints import load_model, restore_state

    venv = make_vec_env(cfg, [])
    try:
        model = load_model(checkpoint, build_model(cfg, venv, run_dir), venv)
        model.tensorboard_log = str(run_dir / "tb")
        model.verbose = cfg.verbose
        resume_info = restore_state(model, checkpoint, pool, league)
    except BaseException:
        venv.close()
        raise
    if pool is not None:  # the same snapshots, at their paths in this run directory
        venv.env_method("set_pool", pool.paths())
    if echo:
        print(f"[train] resuming {run_dir} from {checkpoint.name} at {model.num_timesteps:,} steps", flush=True)
    return venv, model, resume_info


def _session_figures(step: int, wall_seconds: float, callback: Any) -> dict[str, Any]:
    """A session's progress for ``meta.json``: steps reached, wall and evaluation seconds, steps/s."""
    return {
        "timesteps": step,
        "wall_seconds": wall_seconds,
        "eval_seconds": callback.eval_seconds,
        "steps_per_second": callback.steps_per_second(),
    }


def earlier_sessions(sessions: list[dict[str, Any]]) -> dict[str, Any]:
    """The training time of a run's earlier sessions (``meta.json``'s ``sessions`` before this one).

    A finished session counts whole; one stopped before it finished counts to its last checkpoint
    (``last_checkpoint``: the work after it was lost and done again by the next session); one
    stopped before its first checkpoint recorded nothing and counts as unknown, as does an entry that
    is not such a record (``meta.json`` edited by hand: the end of a long run must not fail on it).
    """
    counted = unknown = 0
    wall = evals = 0.0
    for s in sessions:
        figures = (s if "finished" in s else s.get("last_checkpoint")) if isinstance(s, dict) else None
        seconds = figures.get("wall_seconds") if isinstance(figures, dict) else None
        spent = figures.get("eval_seconds", 0.0) if isinstance(figures, dict) else None
        if not _is_number(seconds) or not _is_number(spent):
            unknown += 1
            continue
        counted += 1
        wall += seconds
        evals += spent
    return {
        "sessions": len(sessions),
        "counted": counted,
        "unknown": unknown,
        "wall_seconds": wall,
        "eval_seconds": evals,
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _final_report(
    cfg: TrainConfig,
    run_dir: Path,
    model: Any,
    callback: Any,
    final: Path,
    notes: list[str],
    train_rate: float,
    t_start: float,
    imitation: dict[str, Any] | None = None,
    previous_sessions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    from ice_envs.train.callbacks import result_scalars, write_scalars
    from ice_envs.train.evaluation import evaluate_checkpoint, write_final_report

    results: dict[str, Any] = {}
    eval_notes = list(notes)
    if cfg.eval.final_games > 0:
        t0 = time.perf_counter()
        results, skipped = evaluate_checkpoint(
            final,
            cfg.game.name,
            cfg.game.players,
            list(cfg.eval.against),
            cfg.eval.final_games,
            cfg.eval.seed,
            cfg.eval_options(),
            cfg.eval.workers,
        )
        eval_notes += [n for n in skipped if n not in eval_notes]
        callback.eval_seconds += time.perf_counter() - t0
    wall = time.perf_counter() - t_start
    report = {
        "game": cfg.game.name,
        "players": cfg.game.players,
        "variant": cfg.game.variant,
        "options": cfg.resolved_options(),
        "checkpoint": str(final),
        "timesteps": model.num_timesteps,
        "seed": cfg.seed,
        "train_seconds": wall - callback.eval_seconds,
        "eval_seconds": callback.eval_seconds,
        "steps_per_second": train_rate,
        "earlier_sessions": earlier_sessions(previous_sessions) if previous_sessions else None,
        "imitation": imitation,
        "results": results,
        "self_play": callback.pool.state_dict() if callback.pool is not None else None,
        "league": callback.league.state_dict() if callback.league is not None else None,
        "notes": eval_notes,
    }
    write_final_report(run_dir, report)
    if results:
        scalars = result_scalars(results, cfg.game.players)
        scalars.update({f"final/win_rate_vs_{k}": r["win_rate"] for k, r in results.items()})
        write_scalars(model.logger, scalars, model.num_timesteps)
    return report


def _plot(run_dir: Path, echo: bool) -> None:
    try:
        from ice_envs.train.plot_curves import plot_run
    except ImportError:
        return
    try:
        with atomic_path(run_dir / "curves.png") as tmp:
            png = tmp.with_name(tmp.name + ".png")  # matplotlib picks the format by the suffix
            try:
                plot_run(run_dir, png)
                os.replace(png, tmp)
            finally:
                png.unlink(missing_ok=True)
    except ImportError as exc:  # matplotlib is in the eval extra
        if echo:
            print(f"[train] no curves.png ({exc})", flush=True)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(data, indent=2, default=str))
