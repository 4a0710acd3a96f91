"""Evaluation of a training checkpoint with ``ice_envs.evaluation.tournament`` (Wilson intervals, fixed deals).

The learner's checkpoint takes one seat and N-1 copies of an opponent kind (``random``,
``heuristic``) the others; ``ice_envs.evaluation.tournament`` rotates the seats and deals game ``i``
from ``seed + i // N``, so every evaluation of a run meets the same deals and each result
carries the ``ice-envs evaluate`` command that reproduces it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ice_envs.agents.spec import AgentSpecError, load_agent
from ice_envs.core.files import write_atomic


def heuristic_note(game: str) -> str | None:
    """``None`` if ``game`` has a heuristic agent, else a note saying why it is skipped."""
    try:
        load_agent("heuristic", game)
    except AgentSpecError as exc:
        return f"evaluation against heuristic skipped: {exc}"
    return None


def agents_csv(learner: str, opponent: str, num_players: int) -> str:
    """``ppo:PATH,random,random`` — the learner first, then N-1 copies of ``opponent``."""
    return ",".join([learner] + [opponent] * (num_players - 1))


def evaluate_command(
    game: str, num_players: int, agents: str, games: int, seed: int, workers: int, options: dict[str, Any]
) -> str:
    """The ``ice-envs evaluate`` command line of one evaluation."""
    parts = [f"ice-envs evaluate {game} --players {num_players} --agents {agents}"]
    parts.append(f"--games {games} --seed {seed} --workers {workers}")
    parts += [f"--option {k}={_option_text(v)}" for k, v in options.items()]
    return " ".join(parts)


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def evaluate_against(
    checkpoint: str | Path,
    game: str,
    num_players: int,
    opponent: str,
    games: int,
    seed: int,
    options: dict[str, Any],
    workers: int = 1,
    kind: str = "ppo",
) -> dict[str, Any]:
    """The learner's row of a ``ice_envs.evaluation.tournament`` tournament against N-1 ``opponent`` agents.

    ``kind``: the agent spec kind that loads ``checkpoint`` (``ppo``, or ``rllib`` for a run of the RLlib backend).
    """
    from ice_envs.evaluation.tournament import evaluate

    agents = agents_csv(f"{kind}:{checkpoint}", opponent, num_players)
    summary, _ = evaluate(game, num_players, agents, games, seed, workers, options, progress=False)
    row = summary["per_agent"][0]
    return {
        "opponent": opponent,
        "games": row["games"],
        "wins": row["wins"],
        "win_rate": row["win_rate"],
        "win_rate_ci95": list(row["win_rate_ci95"]),
        "random_baseline": summary["random_baseline"],
        "beats_baseline": row["win_rate_ci95"][0] > summary["random_baseline"],
        "mean_score": row["mean_score"],
        "mean_score_ci95": list(row["mean_score_ci95"]),
        "mean_rank": row["mean_rank"],
        "mean_decisions": summary["mean_decisions"],
        "truncated_games": summary["truncated_games"],
        "seed": seed,
        "command": evaluate_command(game, num_players, agents, games, seed, workers, options),
    }


def self_play_check(
    candidate: str | Path,
    latest: str | Path,
    game: str,
    num_players: int,
    games: int,
    seed: int,
    options: dict[str, Any],
) -> dict[str, Any]:
    """The learner (``candidate``) against N-1 copies of the ``latest`` snapshot, both sampling their policy.

    The same seat rotation, deals and intervals as ``ice_envs.evaluation.tournament``; policies sample
    (as snapshots do in training) so that two greedy policies cannot loop forever, and a
    game is cut after 4x the game's documented bound on random-play decisions.
    """
    import ice_envs
    from ice_envs.agents.ppo_agent import PPOAgent, load_policy_net
    from ice_envs.agents.spec import AgentSpec
    from ice_envs.evaluation.tournament import Match, play_game, summarise

    paths = [str(candidate)] + [str(latest)] * (num_players - 1)
    agents = [PPOAgent(load_policy_net(p), deterministic=False) for p in paths]
    max_decisions = 4 * ice_envs.get_spec(game).max_random_decisions
    match = Match(game, num_players, dict(options), tuple(AgentSpec("ppo", p) for p in paths), seed, max_decisions)
    results = [play_game(match, i, agents) for i in range(games)]
    summary = summarise(match, results, seed)
    row = summary["per_agent"][0]
    return {
        "games": row["games"],
        "win_rate": row["win_rate"],
        "win_rate_ci95": list(row["win_rate_ci95"]),
        "truncated_games": summary["truncated_games"],
    }


def evaluate_checkpoint(
    checkpoint: str | Path,
    game: str,
    num_players: int,
    against: list[str],
    games: int,
    seed: int,
    options: dict[str, Any],
    workers: int = 1,
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Results per opponent kind, and notes on the kinds that were skipped (no heuristic yet)."""
    results: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for opponent in against:
        if opponent == "heuristic":
            note = heuristic_note(game)
            if note:
                notes.append(note)
                continue
        results[opponent] = evaluate_against(checkpoint, game, num_players, opponent, games, seed, options, workers)
    return results, notes


class BackgroundEvaluations:
    """:func:`evaluate_checkpoint` calls run in one worker process while training goes on.

    An evaluation reads nothing but a policy file and fixed deal seeds, so its results are the
    same in a worker as in the training process; only the moment they come back differs.
    :meth:`submit` hands one over (with whatever the caller wants back: ``tag``); :meth:`collect`
    returns the finished ones in submission order (with ``block``, waits for all). The worker
    starts with the first submission, with ``forkserver`` (as the training envs' workers): it holds
    no pipe of the training process but its own, so it ends when the training process does.
    """

    def __init__(self) -> None:
        self._executor: Any = None
        self._pending: list[tuple[Any, Any]] = []
        #: Seconds :meth:`collect` spent waiting for the worker (the training process stood still).
        self.wait_seconds = 0.0

    def __len__(self) -> int:
        return len(self._pending)

    def submit(self, tag: Any, *args: Any) -> None:
        """Start ``evaluate_checkpoint(*args)`` in the worker; :meth:`collect` gives ``(tag, (results, notes))``."""
        if self._executor is None:
            from concurrent.futures import ProcessPoolExecutor

            from ice_envs.train.worker_start import worker_context

            self._executor = ProcessPoolExecutor(1, mp_context=worker_context())
        self._pending.append((tag, self._executor.submit(evaluate_checkpoint, *args)))

    def collect(self, block: bool = False) -> list[tuple[Any, tuple[dict[str, dict[str, Any]], list[str]]]]:
        """The evaluations finished so far, oldest first (all of them with ``block``); a failure is raised here."""
        import time

        done = []
        while self._pending and (block or self._pending[0][1].done()):
            tag, future = self._pending.pop(0)
            t0 = time.perf_counter()
            result = future.result()
            self.wait_seconds += time.perf_counter() - t0
            done.append((tag, result))
        return done

    def close(self) -> None:
        """Stop the worker (pending evaluations are dropped)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        self._pending.clear()


def _imitation_lines(imitation: dict[str, Any] | None) -> list[str]:
    if not imitation:
        return []
    last = imitation["epochs"][-1]
    rounds = imitation.get("dagger", [])
    seconds = imitation["collect_seconds"] + imitation["fit_seconds"]
    seconds += sum(r["collect_seconds"] + r["fit_seconds"] for r in rounds)
    line = (
        f"Imitation warm start ({seconds:.0f} s of the training time): {imitation['decisions']:,} "
        f"{imitation['teacher']} decisions from {imitation['games']} games, {len(imitation['epochs'])} epochs, "
        f"accuracy {last['accuracy']:.3f}."
    )
    if rounds:
        agreement = ", ".join(f"{r['on_policy_accuracy']:.3f}" for r in rounds)
        line += (
            f" Then {len(rounds)} DAgger rounds ({sum(r['decisions'] for r in rounds):,} states the policy reached, "
            f"labelled by the {imitation['teacher']}; its agreement with it there before each refit: {agreement})."
        )
    return ["", line]


def _session_lines(earlier: dict[str, Any] | None, train_seconds: float) -> list[str]:
    """For a resumed run: the training time of every session, not only the last one's."""
    if not earlier:
        return []
    total = train_seconds + earlier["wall_seconds"] - earlier["eval_seconds"]
    line = (
        f"A resumed run: the figures above are of its last session; with the {earlier['sessions']} before it, "
        f"{total:.0f} s of training in all"
    )
    if earlier["unknown"]:
        line += f" ({earlier['unknown']} earlier session(s) stopped before their first checkpoint recorded no time)"
    return ["", line + "."]


def write_final_report(run_dir: Path, report: dict[str, Any]) -> None:
    """``evaluation.json`` and a short ``evaluation.md`` in the run directory."""
    write_atomic(run_dir / "evaluation.json", json.dumps(report, indent=2))
    lines = [
        f"# {report['game']}, {report['players']} players — {report['checkpoint']}",
        "",
        f"{report['timesteps']:,} training steps, {report['train_seconds']:.0f} s of training "
        f"({report['steps_per_second']:.0f} steps/s), seed {report['seed']}.",
        *_session_lines(report.get("earlier_sessions"), report["train_seconds"]),
        *_imitation_lines(report.get("imitation")),
        "",
        "| opponents | games | win rate | 95% CI | 1/N | mean score | mean decisions/game |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for kind, r in report["results"].items():
        lines.append(
            f"| {kind} | {r['games']} | {r['win_rate']:.3f} | [{r['win_rate_ci95'][0]:.3f}, "
            f"{r['win_rate_ci95'][1]:.3f}] | {r['random_baseline']:.3f} | {r['mean_score']:.2f} | "
            f"{r['mean_decisions']:.1f} |"
        )
    lines.append("")
    for kind, r in report["results"].items():
        lines.append(f"- vs {kind}: `{r['command']}`")
    for note in report.get("notes", []):
        lines.append(f"- note: {note}")
    write_atomic(run_dir / "evaluation.md", "\n".join(lines) + "\n")
