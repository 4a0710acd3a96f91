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
* with ``opponents.league``, at every rollout boundary: the league's events
  (:meth:`train.league.League.update`: a snapshot on the schedule or the gate, new PFSP
  weights, pushed to every env with ``set_league``); ``league/*`` scalars show the league
  (``league/size``, ``league/snapshots``, ``league/<member>/win_rate``, ``.../prob``, ``.../games``);
* every ``checkpoint_every`` steps: a resumable checkpoint.

After every rollout it logs the training games: ``games/win_rate`` and
``games/win_rate_vs_<table>`` (random, heuristic, self_play or mixed) and ``games/played``.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat

from ice_envs.agents.ppo_agent import PolicyNet
from ice_envs.core.files import read_text
from ice_envs.train.checkpoints import MAX_LOG_BYTES, restore_logger, save_checkpoint
from ice_envs.train.config import TrainConfig
from ice_envs.train.evaluation import BackgroundEvaluations, evaluate_checkpoint, self_play_check
from ice_envs.train.league import League
from ice_envs.train.opponents import SelfPlayPool


def policy_net(model: Any, cfg: TrainConfig) -> PolicyNet:
    """The current actor of ``model`` as a numpy :class:`PolicyNet` (with the run's meta data)."""
    return PolicyNet.from_state_dict(model.policy.state_dict(), cfg.ppo.activation, getattr(model, "ice_envs", {}))


def push_league(venv: Any, league: League) -> None:
    """Give every env of ``venv`` the league's members and weights (a fresh ``LeagueOpponents`` each).

    ``set_attr`` works alike for DummyVecEnv and SubprocVecEnv (the sampler is pickled to the
    workers: names, specs, paths and integer weights; agents are built there on first draw).
    """
    from ice_envs.wrappers.opponents import LeagueOpponents

    members, weights = league.table()
    lg = league.cfg
    game = venv_game(venv)
    for i in range(venv.num_envs):  # one sampler per env: a DummyVecEnv's envs must not share agents
        sampler = LeagueOpponents(game, league.num_players, members, weights, lg.per_seat, lg.deterministic)
        venv.set_attr("opponents", sampler, indices=[i])


def venv_game(venv: Any) -> str:
    """The game name of the envs of ``venv``."""
    return str(venv.get_attr("game", indices=[0])[0])


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
        league: the league of league self-play, or ``None``.
        on_checkpoint: called with the step after each scheduled checkpoint is written (the run
            records its session's progress there, so that a session stopped after it still counts).
    """

    def __init__(
        self,
        cfg: TrainConfig,
        run_dir: Path,
        pool: SelfPlayPool | None,
        notes: list[str],
        echo: bool = True,
        resume_info: dict[str, Any] | None = None,
        league: League | None = None,
        on_checkpoint: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__(verbose=0)
        self.cfg = cfg
        self.run_dir = run_dir
        self.pool = pool
        self.league = league
        self.on_checkpoint = on_checkpoint
        self._pushed: Any = None
        #: With ``eval.background`` (off by default: on 2 busy cores it measured no faster) the
        #: evaluations during training run in a worker process while training goes on, with
        #: ``eval.workers: 1`` (more workers already run in processes of their own, in the foreground).
        background = cfg.eval.background and cfg.eval.workers == 1
        self.background = BackgroundEvaluations() if background else None
        self._pending: list[dict[str, Any]] = []
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
            self._resubmit(self._resume_info.get("pending_evals") or [])

    def _on_rollout_start(self) -> None:
        self.run_events(self.num_timesteps)

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "opponents" in info:
                counts = self._games[info["opponents"]]
                counts[0] += 1
                counts[1] += int(bool(info["is_success"]))
                if self.league is not None:
                    self.league.record(info["opponents"], bool(info["is_success"]))
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
        self.collect_evaluations(block=False)
        previous = self._last_event
        if (previous < 0 and self.cfg.eval.at_start) or crossed(previous, step, self.cfg.eval.every):
            self.evaluate(step, self.cfg.eval.games)
        if self.pool is not None and crossed(previous, step, self.cfg.opponents.self_play.check_every):
            self.promotion_check(step)
        if self.league is not None:
            self.league_events(step, previous)
        if crossed(previous, step, self.cfg.checkpoint_every):
            save_checkpoint(
                self.model,
                self.run_dir,
                self.pool,
                league=self.league,
                pending_evals=self._pending,
                config=self.cfg.to_dict(),
            )
            if self.on_checkpoint is not None:
                self.on_checkpoint(step)
        self._last_event = step

    def evaluate(self, step: int, games: int, path: Path | None = None) -> dict[str, Any] | None:
        """Evaluate the current policy (or the checkpoint at ``path``) and log the results.

        With a background worker (``eval.workers: 1``) the evaluation of the current policy is
        handed to it and logged when it comes back (:meth:`collect_evaluations`, at the exact
        ``step``); ``None`` is returned then. Otherwise it runs here and its record is returned.
        """
        t0 = time.perf_counter()
        if path is None:
            path = self.run_dir / "policies" / f"step_{step:012d}.npz"
            path.parent.mkdir(parents=True, exist_ok=True)
            policy_net(self.model, self.cfg).save_npz(path)
        entry = {
            "step": step,
            "policy": str(path),
            "games": games,
            "pool_scalars": self._pool_scalars(),
            "pool_state": self.pool.state() if self.pool is not None else None,
        }
        if self.background is not None:
            self._pending.append(entry)
            self.background.submit(step, *self._eval_args(path, games))
            self.eval_seconds += time.perf_counter() - t0
            return None
        results, notes = evaluate_checkpoint(*self._eval_args(path, games))
        self.eval_seconds += time.perf_counter() - t0
        return self._log_evaluation(entry, results, notes)

    def collect_evaluations(self, block: bool = False) -> None:
        """Log the background evaluations that have come back (all of them, waiting, with ``block``)."""
        if self.background is None:
            return
        before = self.background.wait_seconds
        for _, (results, notes) in self.background.collect(block):
            self._log_evaluation(self._pending.pop(0), results, notes)
        self.eval_seconds += self.background.wait_seconds - before

    def close(self) -> None:
        """Stop the background evaluation worker."""
        if self.background is not None:
            self.background.close()

    def _eval_args(self, path: Path, games: int) -> tuple[Any, ...]:
        g = self.cfg.game
        return (
            path,
            g.name,
            g.players,
            self._eval_kinds(),
            games,
            self.cfg.eval.seed,
            self.options,
            self.cfg.eval.workers,
        )

    def _log_evaluation(self, entry: dict[str, Any], results: dict[str, Any], notes: list[str]) -> dict[str, Any]:
        t0 = time.perf_counter()
        step, g = entry["step"], self.cfg.game
        for note in notes:
            if note not in self.notes:
                self.notes.append(note)
                print(f"[train] note: {note}", flush=True)
        write_scalars(self.logger, {**result_scalars(results, g.players), **entry["pool_scalars"]}, step)
        record = {"step": step, "checkpoint": entry["policy"], "results": results}
        if entry["pool_state"] is not None:
            record["pool"] = entry["pool_state"]
        with open(self.run_dir / "evaluations.jsonl", "a") as fh:
            fh.write(json.dumps(record) + "\n")
        self.eval_seconds += time.perf_counter() - t0
        if self.echo:
            self._print(step, results)
        return record

    def _resubmit(self, pending: list[dict[str, Any]]) -> None:
        """Evaluations pending when the checkpoint was saved, not yet in ``evaluations.jsonl``: run them again."""
        logged = set()
        log = self.run_dir / "evaluations.jsonl"
        if log.exists():
            for line in read_text(log, what="evaluation log", max_bytes=MAX_LOG_BYTES).splitlines():
                if line.strip():
                    row = json.loads(line)
                    logged.add((row.get("step"), row.get("checkpoint")))
        for entry in pending:
            path = self.run_dir / "policies" / Path(entry["policy"]).name
            if (entry["step"], str(path)) in logged or not path.exists():
                continue
            entry = {**entry, "policy": str(path)}
            if self.background is not None:
                self._pending.append(entry)
                self.background.submit(entry["step"], *self._eval_args(path, entry["games"]))
            else:
                self._log_evaluation(entry, *evaluate_checkpoint(*self._eval_args(path, entry["games"])))

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

    def league_events(self, step: int, previous: int) -> None:
        """The league's snapshot and PFSP weights at ``step``, pushed to the envs, and its ``league/*`` scalars."""
        assert self.league is not None
        reason = self.league.update(step, previous, lambda: policy_net(self.model, self.cfg))
        table = self.league.table()
        if table != self._pushed:
            push_league(self.training_env, self.league)
            self._pushed = table
        write_scalars(self.logger, self.league.scalars(), step)
        if reason is not None and self.echo:
            latest = self.league.latest
            print(
                f"[train] {step:>10,} steps: snapshot {latest.name if latest else '?'} joins the league ({reason}); "
                f"{len(self.league.members)} members",
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
