"""Training the move-scoring learner: imitation of a teacher's whole moves, then DAgger on the learner's own games.

    python -m ice_envs.train.move_learner train/configs/moves/tip_of_the_diceberg.yaml --seed 0
    ice-envs train-moves train/configs/moves/tip_of_the_diceberg.yaml --seed 0

The learner (:mod:`ice_envs.agents.move_scorer`) scores every whole move of a decision from the move's
features. It is fitted to a **teacher** (an agent spec: the game's heuristic, ``heuristic@v2``, a search):

1. **Round 0.** The teacher plays the learner's seat against ``opponents`` (the seat rotates from game to
   game). At each of the seat's decisions that starts a whole move with a choice, the candidates are
   listed from the seat's view, the teacher's whole move is found among them (the teacher played on a copy
   of the view until its move ends), and the pair ``(feature rows, index of the teacher's move)`` is kept.
2. **Fit.** The scorer is fitted by the cross-entropy of the teacher's move under the softmax of the
   scores over the decision's moves (the policy the agent plays, by argmax).
3. **DAgger rounds** (Ross, Gordon and Bagnell, AISTATS 2011). The fitted learner plays the seat; the teacher
   labels the decisions the learner reaches; the scorer is fitted again on every labelled decision so far, so
   it learns what to do in the positions its own mistakes lead to.

Deals are training seeds (``seed * 2**32 + ...``, below ``2**63``): never the validation or suite deals
(:mod:`ice_envs.evaluation.suite`). Round ``r`` of worker ``w`` plays deals from ``deal_seed(seed, r, w)``.
The same config, seed and thread count give the same model.

The run directory holds ``config.yaml`` (resolved), ``meta.json`` (seed, command, git commit, package
versions, machine and SIMD features, timings, each round's figures), ``model.npz`` (the learner), ``tb/``
(TensorBoard scalars: loss and accuracy per epoch, each round's agreement with the teacher and win rate).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ice_envs.agents.move_scorer import BLOCKS, MoveFeaturizer, MoveScorerNet, best_index
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.agents.whole_moves import follow
from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.core.errors import OptionError
from ice_envs.core.files import load_yaml
from ice_envs.core.machine import machine_info, package_versions
from ice_envs.core.registry import get_spec
from ice_envs.core.threads import one_blas_thread
from ice_envs.evaluation.cli import CommandLineParser, report_user_errors
from ice_envs.evaluation.matches import Match
from ice_envs.evaluation.tournament import play_game

__all__ = ["MoveLearnerConfig", "deal_seed", "train"]


class MoveLearnerConfig(BaseModel):
    """A move-scoring learner's training config (YAML; unknown keys are errors)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    game: str
    players: int
    options: dict[str, Any] = Field(default_factory=dict)
    #: Feature blocks (:data:`~ice_envs.agents.move_scorer.BLOCKS`).
    blocks: list[str] = Field(default_factory=lambda: ["generic", "game"])
    #: The agent whose whole moves are imitated.
    teacher: str = "heuristic@v2"
    #: The other seats' agents, one spec per seat (``players - 1`` of them).
    opponents: list[str]
    #: Games the teacher plays in round 0, and the learner in each DAgger round.
    games: int = Field(200, ge=1)
    dagger_rounds: int = Field(2, ge=0)
    dagger_games: int = Field(200, ge=1)
    #: Hidden layer widths of the scorer.
    hidden: list[int] = Field(default_factory=lambda: [64, 64])
    epochs: int = Field(20, ge=1)
    #: Epochs of each refit after a DAgger round.
    dagger_epochs: int = Field(10, ge=1)
    batch_decisions: int = Field(128, ge=1)
    lr: float = Field(1e-3, gt=0)
    weight_decay: float = Field(0.0, ge=0)
    seed: int = Field(0, ge=0, lt=2**30)
    workers: int = Field(2, ge=1)
    torch_threads: int = Field(1, ge=1)

    @field_validator("blocks")
    @classmethod
    def _blocks(cls, value: list[str]) -> list[str]:
        unknown = [b for b in value if b not in BLOCKS]
        if unknown or not value:
            raise ValueError(f"blocks must be names of {list(BLOCKS)}, got {value}")
        return value

    def check(self) -> None:
        """Checks that need the registry: the game, its player count, the agents' specs."""
        spec = get_spec(self.game)
        if self.players not in spec.players:
            raise ValueError(f"{self.game} is played by {list(spec.players)} players, not {self.players}")
        if len(self.opponents) != self.players - 1:
            raise ValueError(
                f"opponents: {self.players - 1} specs needed (one per other seat), got {len(self.opponents)}"
            )
        for text in (self.teacher, *self.opponents):
            parse_agent_spec(text)


def deal_seed(seed: int, round_index: int, worker: int) -> int:
    """The first deal of round ``round_index`` of worker ``worker`` (a training seed, below ``2**63``)."""
    return seed * 2**32 + (round_index * 64 + worker) * 2**20


class Labeller(SeededAgent):
    """The learner's seat while collecting: lists each decision's whole moves, finds the teacher's among them,
    keeps ``(rows, label)``, and plays the teacher's move (``student`` is ``None``) or the student's."""

    name = "labeller"
    needs_view = True
    needs_observation = False

    def __init__(self, featurizer: MoveFeaturizer, teacher: Any, student: MoveScorerNet | None) -> None:
        super().__init__(0)
        self.featurizer = featurizer
        self.teacher = teacher
        self.student = student
        self.rows: list[np.ndarray] = []
        self.labels: list[int] = []
        self.agreed = 0
        self.unlisted = 0
        self._plan: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.teacher.reset(seed)
        self._plan = []

    def _teacher_action(self, state: Any, legal: list[int]) -> int:
        return self.featurizer.sim.agent_action(self.teacher, state, legal)

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        assert view is not None
        legal = view.legal_actions
        if self._plan and self._plan[0] in legal:
            return self._plan.pop(0)
        self._plan = []
        if len(legal) == 1:
            return int(legal[0])
        sim = self.featurizer.sim
        pairs = self.featurizer.moves(view.state, view.seat)
        moves = [m for m, _ in pairs]
        rng = np.random.default_rng(0)
        taught = follow(sim, sim.copy(view.state), view.seat, self._teacher_action, rng, self.featurizer.ends_move)
        if taught not in moves:  # a move past the listing's cap: not labelled
            self.unlisted += 1
            chosen = taught
        else:
            rows = self.featurizer.rows(view.state, view.seat, pairs)
            label = moves.index(taught)
            self.rows.append(rows)
            self.labels.append(label)
            pick = label if self.student is None else best_index(self.student.scores(rows))
            self.agreed += pick == label
            chosen = moves[pick]
        self._plan = list(chosen[1:])
        return int(chosen[0])


def collect(
    cfg: MoveLearnerConfig, round_index: int, worker: int, games: int, student: MoveScorerNet | None
) -> dict[str, Any]:
    """Play ``games`` games of one worker and return its labelled decisions and the seat's results."""
    one_blas_thread()
    featurizer = MoveFeaturizer(cfg.game, cfg.players, tuple(cfg.blocks))
    teacher = load_agent(cfg.teacher, cfg.game, seed=0, num_players=cfg.players)
    labeller = Labeller(featurizer, teacher, student)
    opponents = [load_agent(s, cfg.game, seed=0, num_players=cfg.players) for s in cfg.opponents]
    agents = [labeller, *opponents]
    match = Match(cfg.game, cfg.players, dict(cfg.options), tuple(agents), deal_seed(cfg.seed, round_index, worker))
    shares = []
    for g in range(games):
        # every deal from every seat: game g is deal g // players with the seats rotated g % players
        result = play_game(match, g, agents)
        shares.append(result["win_share"][0])
    return {
        "rows": labeller.rows,
        "labels": labeller.labels,
        "agreed": labeller.agreed,
        "unlisted": labeller.unlisted,
        "win_share": float(np.mean(shares)) if shares else 0.0,
        "games": games,
    }


def collect_parallel(
    cfg: MoveLearnerConfig, round_index: int, games: int, student: MoveScorerNet | None
) -> dict[str, Any]:
    """:func:`collect` over ``cfg.workers`` processes (worker ``w`` plays ``games // workers`` games, the first
    ``games % workers`` one more), merged in worker order."""
    per = [games // cfg.workers + (w < games % cfg.workers) for w in range(cfg.workers)]
    jobs = [(cfg, round_index, w, per[w], student) for w in range(cfg.workers) if per[w]]
    if len(jobs) == 1:
        parts = [collect(*jobs[0])]
    else:
        with ProcessPoolExecutor(len(jobs)) as pool:
            parts = list(pool.map(_collect_job, jobs))
    decisions = sum(len(p["labels"]) for p in parts)
    return {
        "rows": [r for p in parts for r in p["rows"]],
        "labels": [x for p in parts for x in p["labels"]],
        "agreement": sum(p["agreed"] for p in parts) / max(1, decisions),
        "unlisted": sum(p["unlisted"] for p in parts),
        "win_share": sum(p["win_share"] * p["games"] for p in parts) / games,
        "games": games,
    }


def _collect_job(args: tuple[Any, ...]) -> dict[str, Any]:
    return collect(*args)


# ---------------------------------------------------------------------------- fitting
def normalisation(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and scale over every candidate row (a constant feature gets scale 1)."""
    x = np.concatenate(rows).astype(np.float64)
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    scale = np.where(std > 1e-6, std, 1.0)
    return mean.astype(np.float32), scale.astype(np.float32)


class _Scorer:
    """The torch twin of :class:`MoveScorerNet` while fitting."""

    def __init__(self, size: int, hidden: list[int], seed: int) -> None:
        import torch

        torch.manual_seed(seed)
        layers: list[Any] = []
        width = size
        for h in hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        layers.append(torch.nn.Linear(width, 1))
        self.net = torch.nn.Sequential(*layers)

    def to_numpy(self, mean: np.ndarray, scale: np.ndarray, meta: dict[str, Any]) -> MoveScorerNet:
        linear = [m for m in self.net if hasattr(m, "weight")]
        weights = tuple(m.weight.detach().numpy().astype(np.float32).copy() for m in linear)
        biases = tuple(m.bias.detach().numpy().astype(np.float32).copy() for m in linear)
        return MoveScorerNet(mean, scale, weights, biases, meta)


def fit(
    scorer: _Scorer,
    rows: list[np.ndarray],
    labels: list[int],
    mean: np.ndarray,
    scale: np.ndarray,
    cfg: MoveLearnerConfig,
    epochs: int,
    seed: int,
    log: Any = None,
    step0: int = 0,
) -> list[dict[str, float]]:
    """Fit ``scorer`` to the labelled decisions by the cross-entropy of the label's softmax over each
    decision's moves (padded per minibatch); returns each epoch's mean loss and accuracy."""
    import torch

    opt = torch.optim.Adam(scorer.net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    gen = torch.Generator().manual_seed(seed)
    normed = [torch.from_numpy((r - mean) / scale) for r in rows]
    target = torch.tensor(labels, dtype=torch.long)
    history = []
    for epoch in range(epochs):
        order = torch.randperm(len(rows), generator=gen).tolist()
        total, correct = 0.0, 0
        for start in range(0, len(order), cfg.batch_decisions):
            batch = order[start : start + cfg.batch_decisions]
            width = max(normed[i].shape[0] for i in batch)
            x = torch.zeros((len(batch), width, mean.size))
            valid = torch.zeros((len(batch), width), dtype=torch.bool)
            for j, i in enumerate(batch):
                k = normed[i].shape[0]
                x[j, :k] = normed[i]
                valid[j, :k] = True
            scores = scorer.net(x).squeeze(-1).masked_fill(~valid, float("-inf"))
            y = target[batch]
            loss = torch.nn.functional.cross_entropy(scores, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(batch)
            correct += int((scores.argmax(dim=1) == y).sum())
        row = {"loss": total / len(order), "accuracy": correct / len(order)}
        history.append(row)
        if log is not None:
            log.add_scalar("fit/loss", row["loss"], step0 + epoch)
            log.add_scalar("fit/accuracy", row["accuracy"], step0 + epoch)
    return history


# ---------------------------------------------------------------------------- the run
def train(cfg: MoveLearnerConfig, run_dir: Path, command: str | None = None, echo: bool = True) -> MoveScorerNet:
    """Train one learner into ``run_dir`` (see the module docstring); returns the model."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from ice_envs.train.run import git_info, set_torch_threads, torch_cpu_kernels

    cfg.check()
    set_torch_threads(cfg.torch_threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    featurizer = MoveFeaturizer(cfg.game, cfg.players, tuple(cfg.blocks))
    meta: dict[str, Any] = {
        "name": cfg.name,
        "seed": cfg.seed,
        "command": command or shlex.join(sys.argv),
        "git": git_info(),
        "versions": package_versions(),
        "machine": machine_info(),
        "torch_threads": cfg.torch_threads,
        "torch_cpu_kernels": torch_cpu_kernels(),
        "rounds": [],
    }
    log = SummaryWriter(str(run_dir / "tb"))
    started = time.perf_counter()

    def say(text: str) -> None:
        if echo:
            print(text, flush=True)

    model_meta = {
        "game": featurizer.game,
        "players": cfg.players,
        "options": cfg.options,
        "features": featurizer.describe(),
        "teacher": cfg.teacher,
        "opponents": cfg.opponents,
        "name": cfg.name,
        "seed": cfg.seed,
    }
    rows: list[np.ndarray] = []
    labels: list[int] = []
    net: MoveScorerNet | None = None
    scorer = _Scorer(featurizer.size, cfg.hidden, cfg.seed)
    mean = scale = None
    epoch0 = 0
    for r in range(cfg.dagger_rounds + 1):
        t0 = time.perf_counter()
        games = cfg.games if r == 0 else cfg.dagger_games
        got = collect_parallel(cfg, r, games, net)
        rows += got["rows"]
        labels += got["labels"]
        collected = time.perf_counter() - t0
        who = "teacher" if r == 0 else "learner"
        say(
            f"round {r}: the {who} played {games} games (win share {got['win_share']:.3f}), "
            f"{len(got['labels'])} decisions labelled, agreement with the teacher {got['agreement']:.3f}, "
            f"{collected:.0f} s"
        )
        if r == 0:
            mean, scale = normalisation(rows)
        epochs = cfg.epochs if r == 0 else cfg.dagger_epochs
        t1 = time.perf_counter()
        history = fit(scorer, rows, labels, mean, scale, cfg, epochs, cfg.seed + r, log, epoch0)
        epoch0 += epochs
        net = scorer.to_numpy(mean, scale, model_meta)
        say(
            f"  fitted {len(labels)} decisions, {epochs} epochs: loss {history[-1]['loss']:.4f}, accuracy {history[-1]['accuracy']:.3f}, {time.perf_counter() - t1:.0f} s"
        )
        log.add_scalar("round/win_share", got["win_share"], r)
        log.add_scalar("round/agreement", got["agreement"], r)
        meta["rounds"].append(
            {
                "round": r,
                "player": who,
                "games": games,
                "win_share": got["win_share"],
                "labelled": len(got["labels"]),
                "unlisted": got["unlisted"],
                "agreement": got["agreement"],
                "fit": history[-1],
                "collect_s": collected,
                "fit_s": time.perf_counter() - t1,
            }
        )
    assert net is not None
    log.close()
    meta["seconds"] = time.perf_counter() - started
    meta["torch_version"] = torch.__version__
    timings = ("collect_s", "fit_s")
    record = [{k: v for k, v in r.items() if k not in timings} for r in meta["rounds"]]
    net = MoveScorerNet(net.mean, net.scale, net.weights, net.biases, {**model_meta, "training": record})
    net.save(run_dir / "model.npz")
    (run_dir / "meta.json").write_text(json.dumps(meta, indent=2, default=str))
    say(f"model: {run_dir / 'model.npz'} ({meta['seconds']:.0f} s)")
    return net


def load_config(path: str | Path, seed: int | None = None) -> MoveLearnerConfig:
    """Read and check a config file (``yaml.safe_load``: nothing is evaluated); ``seed`` overrides its seed.

    A bad file raises :class:`~ice_envs.core.errors.OptionError` naming the file and the key."""
    data = load_yaml(path, what="move-learner config")
    if not isinstance(data, dict):
        raise OptionError(f"{path}: a config is a mapping of keys")
    if seed is not None:
        data["seed"] = seed
    try:
        cfg = MoveLearnerConfig.model_validate(data)
        cfg.check()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "config"
        raise OptionError(f"{path}: {where}: {first['msg']}") from None
    except ValueError as exc:
        raise OptionError(f"{path}: {str(exc).splitlines()[0]}") from None
    return cfg


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "config", help="a move-learner config (YAML), e.g. train/configs/moves/tip_of_the_diceberg.yaml"
    )
    parser.add_argument("--seed", type=int, default=None, help="override the config's seed")
    parser.add_argument("--run-dir", default=None, help="where to write the run (default runs/moves/NAME-seedS)")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")


def run_from_args(args: argparse.Namespace) -> int:
    cfg = load_config(args.config, args.seed)
    run_dir = Path(args.run_dir or f"runs/moves/{cfg.name}-seed{cfg.seed}")
    train(cfg, run_dir, echo=not args.quiet)
    return 0


def add_subcommand(sub: Any) -> None:
    """Register ``ice-envs train-moves``."""
    p = sub.add_parser("train-moves", help="train a move-scoring learner from a YAML config (docs/agents/moves.md)")
    add_arguments(p)
    p.set_defaults(func=run_from_args)


def main(argv: list[str] | None = None) -> int:
    """``python -m ice_envs.train.move_learner``."""
    prog = "python -m ice_envs.train.move_learner"
    parser = CommandLineParser(prog=prog, description="Train a move-scoring learner from a YAML config.")
    add_arguments(parser)
    return report_user_errors(prog, lambda: run_from_args(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
