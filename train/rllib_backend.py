"""The RLlib training backend: multi-agent PPO with action masking on any game, on a local Ray or a cluster.

    ice-envs train train/configs/cardiceo_rllib_ppo.yaml          (``backend: rllib`` in the YAML)
    ice-envs train train/configs/cardiceo_rllib_smoke_ppo.yaml --set ray.num_env_runners=2

Every seat RLlib sees plays the one shared learning policy ``shared`` (true self-play through
:class:`ice_envs.wrappers.rllib.IceMultiAgentEnv`, RLlib's multi-agent API and a
``policy_mapping_fn`` that maps each seat's agent id to it); ``opponents`` lists agent specs
(``random``, ``heuristic``, ``greedy``, ``ppo:PATH``, ``rllib:PATH`` ...) that hold fixed seats and do
not learn (they play inside the env, where the views heuristic agents read exist; the seats they take
are drawn anew every episode). The policy is RLlib's ``ActionMaskingTorchRLModule`` (illegal actions
get a logit of ``FLOAT_MIN``). RLlib's env check is off: it steps unmasked random actions, which an
ice-envs env rejects (see :mod:`ice_envs.wrappers.rllib`).

A run directory (``<out_dir>/<name>-seed<seed>``, made unique as for the SB3 backend) holds:

    config.yaml             the resolved config (every default spelled out)
    meta.json               seed, command, git commit, package versions (ray included), machine, timings
    tb/rllib_1/             TensorBoard events: rollout/*, learner/*, time/*, final/*
    checkpoints/iter_<N>/   RLlib's own checkpoints (``Algorithm.save_to_path``; pickles, for RLlib only)
    policies/iter_<N>.npz   the shared policy's actor at each checkpoint (an ``rllib:PATH`` agent)
    progress.jsonl          one line of metrics per training iteration
    final.npz               the final policy (``rllib:RUN_DIR`` plays it)
    evaluation.json/md      the final evaluation (``ice-envs evaluate`` tournaments), with their commands

Config keys (the reference is docs/rllib.md): ``backend: rllib``, ``name``, ``game`` (as for SB3, no
``learner_seat``), ``opponents`` (a list of specs), ``max_decisions``, ``ray.address`` (``null``: a
local Ray with ``ray.num_cpus`` CPUs; ``auto`` or ``ray://host:10001`` for a cluster),
``ray.num_env_runners`` (0: sample in the driver), ``ray.num_envs_per_env_runner``, ``ppo.*``,
``model.*``, ``iterations`` and/or ``total_timesteps`` (stop at whichever comes first),
``checkpoint_every`` (iterations), ``eval.*``, ``seed`` (``debugging(seed=...)``), ``torch_threads``,
``out_dir``. The schema is :class:`ice_envs.train.config.RLlibTrainConfig` (``load_config`` reads either
backend's configs); an unknown key or a bad value is a :class:`~ice_envs.train.config.ConfigError` naming it.

Reproducibility: RLlib seeds its env runners and modules from ``seed``; with ``num_env_runners: 0``
and ``torch_threads`` fixed a run repeats on one machine. With remote env runners the sampling order
depends on timing and runs are not bit-repeatable.
"""

from __future__ import annotations

import json
import platform
import shlex
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.core.files import write_atomic
from ice_envs.core.machine import machine_info, package_versions
from ice_envs.evaluation.ray_backend import init_ray
from ice_envs.train.config import ConfigError, RLlibTrainConfig

#: The id of the shared learning policy.
POLICY_ID = "shared"

# ---------------------------------------------------------------------------- Ray and the algorithm


def build_algorithm(cfg: RLlibTrainConfig) -> Any:
    """RLlib's PPO (new API stack) for ``cfg``: one shared masked policy for every learning seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from ice_envs.wrappers.rllib import rllib_env_name

    p, m, r = cfg.ppo, cfg.model, cfg.ray
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={
            "fcnet_hiddens": list(m.hidden),
            "fcnet_activation": m.activation,
            "head_fcnet_hiddens": [],
            "vf_share_layers": m.vf_share_layers,
        },
    )
    config = (
        PPOConfig()
        # the env check steps unmasked random actions, which ice-envs rejects (ice_envs.wrappers.rllib)
        .environment(rllib_env_name(), env_config=cfg.env_config(), disable_env_checking=True)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=shared_policy, policies_to_train=[POLICY_ID])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module}))
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=r.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
            # wait for every sample (RLlib's default gives up after 60 s and the iteration learns nothing,
            # which a busy machine or a long game can reach)
            sample_timeout_s=None,
        )
        .learners(num_learners=r.num_learners, num_cpus_per_learner=1)
        .training(
            lr=p.learning_rate,
            gamma=p.gamma,
            lambda_=p.lambda_,
            clip_param=p.clip_param,
            entropy_coeff=p.entropy_coeff,
            vf_loss_coeff=p.vf_loss_coeff,
            grad_clip=p.grad_clip,
            train_batch_size_per_learner=p.train_batch_size,
            minibatch_size=p.minibatch_size,
            num_epochs=p.num_epochs,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping: every learning seat plays the shared policy."""
    return POLICY_ID


def export_policy(algo: Any, cfg: RLlibTrainConfig, path: Path, iteration: int, timesteps: int) -> Path:
    """Write the shared policy's actor as a checked ``.npz`` (:class:`~ice_envs.agents.ppo_agent.PolicyNet`)."""
    from ice_envs.agents.ppo_agent import PolicyNet

    state = algo.learner_group.get_weights([POLICY_ID])[POLICY_ID]
    net = PolicyNet.checked(*actor_layers(state), cfg.model.activation, policy_meta(cfg, iteration, timesteps))
    path.parent.mkdir(parents=True, exist_ok=True)
    net.save_npz(path)
    return path


def actor_layers(state: dict[str, Any]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Weights and biases of the actor in a ``DefaultPPOTorchRLModule`` state dict: encoder layers, then ``pi``."""
    prefix = "encoder.actor_encoder.net.mlp." if any(k.startswith("encoder.actor_encoder.") for k in state) else None
    prefix = prefix or "encoder.encoder.net.mlp."
    weights, biases = [], []
    for part in (prefix, "pi.net.mlp."):
        layers = sorted({int(k[len(part) :].split(".")[0]) for k in state if k.startswith(part)})
        if not layers:
            raise ConfigError(f"the RLModule has no {part}* layers; only RLlib's default MLP module can be exported")
        for i in layers:
            weights.append(np.asarray(state[f"{part}{i}.weight"], dtype=np.float32))
            biases.append(np.asarray(state[f"{part}{i}.bias"], dtype=np.float32))
    return weights, biases


def policy_meta(cfg: RLlibTrainConfig, iteration: int, timesteps: int) -> dict[str, Any]:
    """What a policy file records (read by ``RLlibAgent.load``): the SB3 backend's model meta, plus the backend
    and the RLlib iteration and timesteps it was exported at."""
    from ice_envs.train.run import model_meta

    return {"backend": "rllib", **model_meta(cfg), "iteration": iteration, "timesteps": timesteps}


# ---------------------------------------------------------------------------- the run


def train(
    cfg: RLlibTrainConfig, run_dir: str | Path | None = None, command: str | None = None, echo: bool = True
) -> dict[str, Any]:
    """Train ``cfg`` with RLlib; returns the final report (also written to ``evaluation.json``)."""
    import torch

    from ice_envs.train.config import dump_config
    from ice_envs.train.run import git_info, new_run_dir, torch_cpu_kernels

    run_dir = Path(run_dir) if run_dir is not None else new_run_dir(cfg)  # type: ignore[arg-type]
    if run_dir.exists() and any(run_dir.iterdir()):
        raise ConfigError(f"run directory {run_dir} is not empty (RLlib runs are not resumed by ice-envs train)")
    run_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(run_dir / "config.yaml", dump_config(cfg))  # type: ignore[arg-type]
    torch.set_num_threads(cfg.torch_threads)
    session = {
        "command": command or shlex.join(sys.argv),
        "started": _now(),
        "git": git_info(),
        "torch_cpu_kernels": torch_cpu_kernels(),
    }
    meta = {
        "backend": "rllib",
        "name": cfg.name,
        "seed": cfg.seed,
        "torch_threads": cfg.torch_threads,
        "git": git_info(),
        "versions": {**package_versions(), "ray": _version("ray")},
        "platform": platform.platform(),
        "machine": machine_info(),
        "sessions": [session],
    }
    _write_json(run_dir / "meta.json", meta)
    init_ray(cfg.ray.address, cfg.ray.num_cpus)  # once per process; a running Ray is used as it is
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb" / "rllib_1"))
    t_start = time.perf_counter()
    algo = build_algorithm(cfg)
    steps = 0
    iteration = 0
    sample_seconds = 0.0
    try:
        with (run_dir / "progress.jsonl").open("w") as progress:
            while iteration < cfg.iterations and (cfg.total_timesteps is None or steps < cfg.total_timesteps):
                t0 = time.perf_counter()
                result = algo.train()
                iteration += 1
                row = iteration_row(result, iteration, time.perf_counter() - t0)
                steps = row["timesteps"]
                sample_seconds += row["iteration_seconds"]
                progress.write(json.dumps(row) + "\n")
                progress.flush()
                for key, value in row["scalars"].items():
                    writer.add_scalar(key, value, steps)
                if echo:
                    print(
                        f"[train] iteration {iteration}: {steps:,} steps, {row['scalars']['time/steps_per_second']:.0f} "
                        f"steps/s, mean episode length {row['scalars'].get('rollout/ep_len_mean', float('nan')):.1f}",
                        flush=True,
                    )
                if cfg.checkpoint_every and iteration % cfg.checkpoint_every == 0:
                    _checkpoint(algo, cfg, run_dir, iteration, steps)
        _checkpoint(algo, cfg, run_dir, iteration, steps)
        final = export_policy(algo, cfg, run_dir / "final.npz", iteration, steps)
    finally:
        algo.stop()
    train_seconds = time.perf_counter() - t_start
    report = _final_report(cfg, run_dir, final, iteration, steps, train_seconds, sample_seconds)
    for kind, r in report["results"].items():
        writer.add_scalar(f"final/win_rate_vs_{kind}", r["win_rate"], steps)
    writer.close()
    session.update(
        {
            "finished": _now(),
            "iterations": iteration,
            "timesteps": steps,
            "wall_seconds": time.perf_counter() - t_start,
            "steps_per_second": report["steps_per_second"],
        }
    )
    _write_json(run_dir / "meta.json", meta)
    if echo:
        print(
            f"[train] done: {run_dir} (policy {final}, an rllib:{run_dir} agent; report {run_dir / 'evaluation.json'})"
        )
    return report


def iteration_row(result: dict[str, Any], iteration: int, seconds: float) -> dict[str, Any]:
    """The JSON line and TensorBoard scalars of one ``algo.train()`` result."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    timers = result.get("timers", {})
    steps = int(result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0)))
    sampled = float(runners.get("num_env_steps_sampled", 0))
    scalars = {
        "rollout/ep_len_mean": runners.get("episode_len_mean"),
        "rollout/episodes": runners.get("num_episodes"),
        "rollout/shared_return_mean": (runners.get("module_episode_returns_mean") or {}).get(POLICY_ID),
        "learner/policy_loss": learner.get("policy_loss"),
        "learner/vf_loss": learner.get("vf_loss"),
        "learner/entropy": learner.get("entropy"),
        "learner/mean_kl": learner.get("mean_kl_loss"),
        "time/iteration_seconds": seconds,
        "time/steps_per_second": sampled / seconds if seconds > 0 else 0.0,
        # RLlib's timers (smoothed over iterations): sampling by the env runners, the learner's PPO update
        "time/sample_seconds": timers.get("env_runner_sampling_timer"),
        "time/learn_seconds": timers.get("learner_update_timer"),
    }
    # an iteration without finished episodes reports no episode metrics (NaN): those are left out
    scalars = {k: float(v) for k, v in scalars.items() if isinstance(v, (int, float, np.number)) and np.isfinite(v)}
    return {"iteration": iteration, "timesteps": steps, "iteration_seconds": seconds, "scalars": scalars}


def _checkpoint(algo: Any, cfg: RLlibTrainConfig, run_dir: Path, iteration: int, steps: int) -> None:
    algo.save_to_path(str((run_dir / "checkpoints" / f"iter_{iteration}").resolve()))
    export_policy(algo, cfg, run_dir / "policies" / f"iter_{iteration}.npz", iteration, steps)


def _final_report(
    cfg: RLlibTrainConfig,
    run_dir: Path,
    final: Path,
    iterations: int,
    steps: int,
    train_seconds: float,
    sample_seconds: float,
) -> dict[str, Any]:
    from ice_envs.train.evaluation import evaluate_against, heuristic_note, write_final_report

    results: dict[str, Any] = {}
    notes: list[str] = []
    t0 = time.perf_counter()
    n = cfg.game.players
    if cfg.eval.games > 0:
        for opponent in cfg.eval.against:
            note = heuristic_note(cfg.game.name) if opponent == "heuristic" else None
            if note:
                notes.append(note)
                continue
            e = cfg.eval
            results[opponent] = evaluate_against(
                run_dir, cfg.game.name, n, opponent, e.games, e.seed, cfg.eval_options(), e.workers, kind="rllib"
            )
    report = {
        "backend": "rllib",
        "game": cfg.game.name,
        "players": n,
        "variant": cfg.game.variant,
        "options": cfg.resolved_options(),
        "opponents": list(cfg.opponents),
        "checkpoint": str(final),
        "iterations": iterations,
        "timesteps": steps,
        "seed": cfg.seed,
        "train_seconds": train_seconds,
        "eval_seconds": time.perf_counter() - t0,
        "steps_per_second": steps / sample_seconds if sample_seconds > 0 else 0.0,
        "num_env_runners": cfg.ray.num_env_runners,
        "results": results,
        "notes": notes,
    }
    write_final_report(run_dir, report)
    return report


def _version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(data, indent=2, default=str))
