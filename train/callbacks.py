"""The training callback: evaluations, self-play promotions, checkpoints and game statistics.

Scheduled events run at rollout boundaries (after a PPO update, before the next rollout),
so they see a consistent model and never change the training trajectory except through
the self-play pool, deterministically:

* every ``eval.every`` steps (and at step 0 with ``eval.at_start``): the current policy
  against N-1 ``random`` and N-1 ``heuristic`` agents (``ice_envs.evaluation.tournament``; the same
  deals every time). TensorBoard: ``eval/win_rate_vs_<kind>`` with ``_ci_low`` /
  ``_ci_high`` (95% Wilson), ``eval/mean_score_vs_<kind>``, ``eval/game_length_vs_<kind>``
  (decisions per game, all seats) and ``eval/random_baseline`` (1/N); also appended to
  ``evaluations.jsonl``;
* every ``opponents.self_play.check_every`` steps: the promotion check (see
  :class:`train.opponents.SelfPlayPool`); ``selfplay/*`` scalars show the pool;
* every ``checkpoint_every`` steps: a resumable checkpoint.

After every rollout it logs the training games: ``games/win_rate`` and
``games/win_rate_vs_<table>`` (random, heuristic, self_play or mixed) and ``games/played``.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat

from ice_envs.agents.ppo_agent import PolicyNet
from ice_envs.train.checkpoints import restore_logger, save_checkpoint
from ice_envs.train.config import TrainConfig
from ice_envs.train.evaluation import evaluate_checkpoint, self_play_check
from ice_envs.train.opponents import SelfPlayPool


def policy_net(model: Any, cfg: TrainConfig) -> PolicyNet:
    """The current actor of ``model`` as a numpy :class:`PolicyNet` (with the run's meta data)."""
    return PolicyNet.from_state_dict(model.policy.state_dict(), cfg.ppo.activation, getattr(model, "ice_envs", {}))


def crossed(previous: int, step: int, every: int) -> bool:
    """Whether a multiple of ``every`` lies in ``(previous, step]``."""
    return every > 0 and previous >= 0 and step // every > previous // every


def result_scalars(results: dict[str, dict[str, Any]], num_players: int) -> dict[str, float]:
    """One evaluation's TensorBoard scalars (see the module docstring)."""
    scalars = {"eval/random_baseline": 1.0 / num_players}
    for kind, r in results.items():
        scalars[f"eval/win_rate_vs_{kind}"] = r["win_rate"]
        scalars[f"eval/win_rate_vs_{kind}_ci_low"] = r["win_rate_ci95"][0]
        scalars[f"eval/win_rate_vs_{kind}_ci_high"] = r["win_rate_ci95"][1]
        scalars[f"eval/mean_score_vs_{kind}"] = r["mean_score"]
        scalars[f"eval/game_length_vs_{kind}"] = r["mean_decisions"]
    return scalars


def write_scalars(logger: Any, scalars: dict[str, float], step: int) -> None:
    """Write scalars straight to the TensorBoard events at ``step``.

    Evaluation scalars bypass SB3's logger buffer, so they land at the exact step they
    were measured without flushing (and moving) the pending ``train/*`` values.
    """
    for fmt in logger.output_formats:
        if isinstance(fmt, TensorBoardOutputFormat):
            for tag, value in scalars.items():
                fmt.writer.add_scalar(tag, float(value), step)
            fmt.writer.flush()


def custom_scalar_layout(against: list[str], self_play: bool) -> dict[str, Any]:
    """TensorBoard "Custom Scalars" charts: win rates with their intervals as bands."""
    charts = {
        f"win rate vs {k} (95% CI)": [
            "Margin",
            [f"eval/win_rate_vs_{k}", f"eval/win_rate_vs_{k}_ci_low", f"eval/win_rate_vs_{k}_ci_high"],
        ]
        for k in against
    }
    charts["win rates and 1/N"] = ["Multiline", [*[f"eval/win_rate_vs_{k}" for k in against], "eval/random_baseline"]]
    layout = {"evaluation": charts}
    if self_play:
        layout["self-play"] = {
            "win rate vs latest snapshot (95% CI)": [
                "Margin",
                [
                    "selfplay/win_rate_vs_latest",
                    "selfplay/win_rate_vs_latest_ci_low",
                    "selfplay/win_rate_vs_latest_ci_high",
                ],
            ],
            "pool": ["Multiline", ["selfplay/pool_size", "selfplay/promotions"]],
        }
    return layout


class TrainingCallback(BaseCallback):
    """Runs the scheduled events of a training run and logs the training games.

    Args:
        cfg: the run's config.
        run_dir: the run directory.
        pool: the self-play pool, or ``None`` without self-play.
        notes: notes of the run (skipped evaluations); shown once.
        echo: print a line per evaluation.
        resume_info: from :func:`train.checkpoints.restore_state` when resuming: the SB3 logger
            values not yet written and the last step whose events had run.
    """

    def __init__(
        self,
        cfg: TrainConfig,
        run_dir: Path,
        pool: SelfPlayPool | None,
        notes: list[str],
        echo: bool = True,
        resume_info: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(verbose=0)
        self.cfg = cfg
        self.run_dir = run_dir
        self.pool = pool
        self.notes = notes
        self.echo = echo
        self.options = cfg.eval_options()
        self.eval_seconds = 0.0
        self._last_event = -1
        self._games: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self._start = time.perf_counter()
        self._start_step = 0
        self._resume_info = resume_info

    # ------------------------------------------------------------------ SB3 hooks
    def _on_training_start(self) -> None:
        self._start = time.perf_counter()
        self._start_step = self.num_timesteps
        self._last_event = -1
        for fmt in self.logger.output_formats:
            if isinstance(fmt, TensorBoardOutputFormat):
                fmt.writer.add_custom_scalars(custom_scalar_layout(self._eval_kinds(), self.pool is not None))
        if self._resume_info is not None:
            self._last_event = int(self._resume_info["last_event"])
            if self._resume_info.get("logger"):
                restore_logger(self.logger, self._resume_info["logger"])

    def _on_rollout_start(self) -> None:
        self.run_events(self.num_timesteps)

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "opponents" in info:
                counts = self._games[info["opponents"]]
                counts[0] += 1
                counts[1] += int(bool(info["is_success"]))
        return True

    def _on_rollout_end(self) -> None:
        played = sum(c[0] for c in self._games.values())
        if played:
            self.logger.record("games/played", played)
            self.logger.record("games/win_rate", sum(c[1] for c in self._games.values()) / played)
            for label, (n, wins) in sorted(self._games.items()):
                self.logger.record(f"games/win_rate_vs_{label}", wins / n)
        self._games.clear()

    # ------------------------------------------------------------------ events
    def run_events(self, step: int) -> None:
        """The events due at ``step`` (each at most once per step)."""
        if step == self._last_event:
            return
        previous = self._last_event
        if (previous < 0 and self.cfg.eval.at_start) or crossed(previous, step, self.cfg.eval.every):
            self.evaluate(step, self.cfg.eval.games)
        if self.pool is not None and crossed(previous, step, self.cfg.opponents.self_play.check_every):
            self.promotion_check(step)
        if crossed(previous, step, self.cfg.checkpoint_every):
            save_checkpoint(self.model, self.run_dir, self.pool)
        self._last_event = step

    def evaluate(self, step: int, games: int, path: Path | None = None) -> dict[str, Any]:
        """Evaluate the current policy (or the checkpoint at ``path``) and log the results."""
        t0 = time.perf_counter()
        if path is None:
            path = self.run_dir / "policies" / f"step_{step:012d}.npz"
            path.parent.mkdir(parents=True, exist_ok=True)
            policy_net(self.model, self.cfg).save_npz(path)
        g = self.cfg.game
        results, notes = evaluate_checkpoint(
            path, g.name, g.players, self._eval_kinds(), games, self.cfg.eval.seed, self.options, self.cfg.eval.workers
        )
        for note in notes:
            if note not in self.notes:
                self.notes.append(note)
                print(f"[train] note: {note}", flush=True)
        write_scalars(self.logger, {**result_scalars(results, g.players), **self._pool_scalars()}, step)
        record = {"step": step, "checkpoint": str(path), "results": results}
        if self.pool is not None:
            record["pool"] = self.pool.state()
        with open(self.run_dir / "evaluations.jsonl", "a") as fh:
            fh.write(json.dumps(record) + "\n")
        self.eval_seconds += time.perf_counter() - t0
        if self.echo:
            self._print(step, results)
        return record

    def promotion_check(self, step: int) -> None:
        """Play the learner against the latest snapshot; promote it into the pool if it wins significantly."""
        assert self.pool is not None and self.pool.latest is not None
        t0 = time.perf_counter()
        sp = self.cfg.opponents.self_play
        candidate = self.pool.candidate_path()
        policy_net(self.model, self.cfg).save_npz(candidate)
        latest = self.pool.paths()[-1]
        g = self.cfg.game
        row = self_play_check(candidate, latest, g.name, g.players, sp.games, step, self.options)
        promoted = self.pool.should_promote(row["win_rate_ci95"][0])
        if promoted:
            self.pool.add(candidate, step)
            self.training_env.env_method("set_pool", self.pool.paths())
        self.pool.record_check(step, row, promoted)
        scalars = {
            "selfplay/win_rate_vs_latest": row["win_rate"],
            "selfplay/win_rate_vs_latest_ci_low": row["win_rate_ci95"][0],
            "selfplay/win_rate_vs_latest_ci_high": row["win_rate_ci95"][1],
            "selfplay/promoted": float(promoted),
        }
        write_scalars(self.logger, {**scalars, **self._pool_scalars()}, step)
        self.eval_seconds += time.perf_counter() - t0
        if self.echo:
            verdict = "promoted into the pool" if promoted else "not promoted"
            lo, hi = row["win_rate_ci95"]
            print(
                f"[train] {step:>10,} steps: vs latest snapshot {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
                f"(bound {self.pool.bound:.3f}) -> {verdict}; pool {len(self.pool.snapshots)}",
                flush=True,
            )

    # ------------------------------------------------------------------ helpers
    def steps_per_second(self) -> float:
        """Training steps per second of this session, evaluation time excluded."""
        elapsed = time.perf_counter() - self._start - self.eval_seconds
        return (self.num_timesteps - self._start_step) / elapsed if elapsed > 0 else 0.0

    def _eval_kinds(self) -> list[str]:
        return list(self.cfg.eval.against)

    def _pool_scalars(self) -> dict[str, float]:
        if self.pool is None:
            return {}
        return {f"selfplay/{key}": value for key, value in self.pool.state().items()}

    def _print(self, step: int, results: dict[str, dict[str, Any]]) -> None:
        parts = [
            f"vs {k} {r['win_rate']:.3f} [{r['win_rate_ci95'][0]:.3f}, {r['win_rate_ci95'][1]:.3f}]"
            for k, r in results.items()
        ]
        rate = self.steps_per_second() if step > self._start_step else 0.0
        print(
            f"[train] {step:>10,} steps: {' | '.join(parts) or 'no evaluation'} "
            f"(1/N = {1 / self.cfg.game.players:.3f}; {rate:,.0f} steps/s)",
            flush=True,
        )
