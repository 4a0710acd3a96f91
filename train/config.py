"""Training configs: YAML files validated into dataclasses.

A config is a YAML mapping whose keys are the fields of :class:`TrainConfig` (see
``docs/training.md`` for the reference); with ``backend: rllib`` they are those of
:class:`RLlibTrainConfig` instead (``train.rllib_backend`` runs it; docs/rllib.md). Loading
checks every key and value and raises :class:`ConfigError` naming the dotted key
(``ppo.learning_rate``) on an unknown key (with a suggestion), a value of the wrong type or
out of range, an unknown game, a player count the game does not take or a game option the
game rejects.

``--set key=value`` overrides (:func:`apply_overrides`) address the same dotted keys;
the value is read as YAML (``--set ppo.net_arch=[128,128]``).
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from ice_envs.core.errors import OptionError
from ice_envs.core.registry import get_spec
from ice_envs.evaluation.suite import DEFAULT_VALIDATION_SEED, TRAINING_SEEDS, VALIDATION_SEEDS

OPPONENT_KINDS = ("random", "heuristic", "self_play")
EVAL_OPPONENTS = ("random", "heuristic")
TEACHERS = ("heuristic",)
#: Opponent kinds of the rllib backend's final evaluation.
RLLIB_EVAL_OPPONENTS = ("random", "heuristic", "greedy")
#: Training backends: ``sb3`` (this module's :class:`TrainConfig`) and ``rllib`` (``train.rllib_backend``).
BACKENDS = ("sb3", "rllib")


class ConfigError(OptionError):
    """A bad training config: the message names the offending key."""


@dataclass
class GameConfig:
    """Which game the learner plays."""

    #: A registered game (``ice-envs list``).
    name: str = "cardiceo"
    #: Seats at the table, learner included.
    players: int = 2
    #: A registered variant of the game (its options are applied first).
    variant: str = "default"
    #: Constructor options of the game (``reward_mode``, ``max_cycles``, game rules options).
    options: dict[str, Any] = field(default_factory=dict)
    #: The learner's seat; ``None`` draws it uniformly for every game.
    learner_seat: int | None = None


@dataclass
class SelfPlayConfig:
    """The pool of frozen snapshots of the learner and its promotion rule."""

    #: Snapshots kept; the oldest is dropped when a promotion overflows the pool.
    pool_size: int = 5
    #: Steps between promotion checks.
    check_every: int = 50_000
    #: Games of the promotion check: the learner against copies of the latest snapshot.
    games: int = 200
    #: Promote when the 95% Wilson lower bound of that win rate exceeds this (``None``: 1/N).
    promote_lower_bound: float | None = None
    #: Share of self-play opponents drawn as the latest snapshot (the rest uniformly from the pool).
    latest_share: float = 0.5
    #: Snapshots play their greedy action instead of sampling their policy.
    deterministic: bool = False


@dataclass
class LeagueConfig:
    """League self-play with PFSP (:mod:`train.league`): fixed agents and snapshots of the learner."""

    #: Agent specs of the fixed members (``random``, ``greedy``, ``heuristic``, ``mcts:...``, ``ppo:PATH``).
    fixed: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    #: PFSP weighting ``f(p)`` of the learner's win rate ``p``: ``hard`` ``(1-p)**pfsp_power``,
    #: ``variance`` ``p*(1-p)``, ``uniform``.
    pfsp: Literal["hard", "variance", "uniform"] = "hard"
    pfsp_power: float = 2.0
    #: Each member's least draw probability (capped at 1/members), so that nobody starves.
    floor: float = 0.05
    #: Games of the prior of each win-rate estimate ...
    prior_games: float = 10.0
    #: ... at this win rate (``null``: 1/N).
    prior_win_rate: float | None = None
    #: Effective window of the estimates in games (counts decay by ``1 - 1/window`` per game).
    window: float = 500.0
    #: Steps between scheduled snapshots of the learner (0: none on a schedule).
    snapshot_every: int = 0
    #: The gate: a snapshot joins once the estimated win rate reaches this (``null``: no gate) ...
    gate_win_rate: float | None = None
    #: ... against the latest snapshot (``latest``) or the PFSP-weighted mix of all members (``mix``) ...
    gate_against: Literal["latest", "mix"] = "latest"
    #: ... after at least this many games (against the latest snapshot, or any member since the last snapshot).
    gate_min_games: int = 100
    #: Snapshots kept as members (the oldest leaves the league; its file stays).
    max_snapshots: int = 10
    #: The untrained (or imitation warm-started) policy joins as the first snapshot at step 0.
    initial_snapshot: bool = True
    #: Draw a member per opponent seat (``True``) or one member for the whole table (``False``).
    per_seat: bool = False
    #: Snapshots play their greedy action instead of sampling their policy.
    deterministic: bool = False


@dataclass
class OpponentsConfig:
    """Who sits in the other seats of each training game."""

    #: Weights of the opponent kinds: ``random``, ``heuristic``, ``self_play`` (normalised).
    mix: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    #: Draw each opponent seat independently (``True``) or one kind for the whole table (``False``).
    per_seat: bool = True
    self_play: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    #: League self-play with PFSP; when set it replaces ``mix`` and ``self_play`` (``null``: not used).
    league: LeagueConfig | None = None


@dataclass
class PPOConfig:
    """MaskablePPO hyper-parameters and network."""

    learning_rate: float = 3e-4
    #: ``constant`` or ``linear`` (decays to 0 at ``total_timesteps``).
    lr_schedule: Literal["constant", "linear"] = "constant"
    #: Steps per env per rollout (the buffer holds ``n_steps * n_envs`` steps).
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    normalize_advantage: bool = True
    #: Hidden layers shared by shape: ``[64, 64]``, or ``{pi: [...], vf: [...]}`` for separate sizes.
    net_arch: list[int] | dict[str, list[int]] = field(default_factory=lambda: [64, 64])
    activation: Literal["tanh", "relu"] = "tanh"
    ortho_init: bool = True


@dataclass
class EvalConfig:
    """The evaluation schedule (``ice_envs.evaluation.tournament`` tournaments with Wilson intervals)."""

    #: Steps between evaluations (0: only the final one).
    every: int = 50_000
    #: Games per evaluation and opponent kind.
    games: int = 200
    #: Also evaluate the untrained policy at step 0.
    at_start: bool = True
    #: Opponent kinds: the learner against N-1 copies of each.
    against: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    #: First deal seed of the evaluations (the same deals at every evaluation), in the validation
    #: range (:data:`ice_envs.evaluation.suite.VALIDATION_SEEDS`): never the deals of the held-out suites.
    seed: int = DEFAULT_VALIDATION_SEED
    #: Processes of the evaluations (results do not depend on it).
    workers: int = 1
    #: Games of the final evaluation per opponent kind (written to ``evaluation.json``).
    final_games: int = 2000
    #: Run the in-training evaluations in one background process while training goes on (with
    #: ``workers: 1``; the results and logs are the same). Off by default: on 2 busy cores it measured
    #: no faster (docs/training.md, "Where the training loop's time goes").
    background: bool = False


@dataclass
class ShapingConfig:
    """Potential-based reward shaping of the learner's rewards (:mod:`train.shaping`)."""

    #: A potential of :data:`train.shaping.POTENTIALS` for this game; ``None``: no shaping.
    potential: str | None = None
    #: Multiplier of ``gamma * phi(s') - phi(s)``.
    scale: float = 1.0


@dataclass
class ImitationConfig:
    """Behaviour cloning of a teacher before PPO (:mod:`train.imitation`)."""

    #: The agent imitated in the learner's seat (``heuristic``); ``None``: no warm start.
    teacher: str | None = None
    #: Teacher decisions collected (whole games, split over ``workers`` processes).
    steps: int = 20_000
    #: Processes the teacher's games are collected in, worker ``i`` seeded ``seed + i`` (``null``:
    #: ``n_envs``; set it with ``vec_env: batched``, whose ``n_envs`` is hundreds of games in one process).
    workers: int | None = None
    #: Passes over the decisions.
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1e-3
    #: Weight of fitting the value head to the teacher's discounted returns (0: policy only).
    value_coef: float = 0.5
    #: Held-out teacher decisions (whole games, worker ``i`` seeded ``eval.seed + i``) the clone is
    #: scored on after every epoch; never trained on, and the weights do not depend on it (0: none).
    holdout_steps: int = 0
    #: DAgger rounds after the first fit (0: plain behaviour cloning): in each, the policy plays
    #: ``dagger_steps`` decisions, the teacher labels the states it reached, and the policy is fitted
    #: again on every labelled decision so far for ``dagger_epochs`` epochs.
    dagger_rounds: int = 0
    #: Decisions the policy plays per DAgger round (``null``: ``steps``).
    dagger_steps: int | None = None
    #: Epochs of each DAgger round's fit (``null``: ``epochs``).
    dagger_epochs: int | None = None


@dataclass
class TrainConfig:
    """One training run."""

    #: Run name (default: the config file's stem); the run directory is ``<out_dir>/<name>-seed<seed>``.
    name: str | None = None
    game: GameConfig = field(default_factory=GameConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    reward_shaping: ShapingConfig = field(default_factory=ShapingConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    #: Parallel training envs.
    n_envs: int = 1
    #: ``subproc`` (one process per env), ``dummy`` (all in this process), ``auto`` (subproc if n_envs > 1),
    #: or ``batched``: all ``n_envs`` games in one batched engine in this process: the game's compiled
    #: engine with the opponents (compiled ``random``/``heuristic`` players, ``self_play`` snapshots, a PFSP league)
    #: played inside the batch; without numba the numpy engine and random opponents (docs/training.md).
    vec_env: Literal["auto", "subproc", "dummy", "batched"] = "auto"
    #: How the env workers start: ``auto`` is ``forkserver`` (each worker holds only its own pipe,
    #: so it ends with the learner; ``ice_envs.train.grouped_vec_env``).
    start_method: Literal["auto", "fork", "forkserver", "spawn"] = "auto"
    #: With ``vec_env: subproc``: how many worker processes run the envs, each stepping
    #: ``n_envs / env_processes`` of them in turn (:mod:`ice_envs.train.grouped_vec_env`); ``null``:
    #: one process per env. The same weights either way.
    env_processes: int | None = None
    total_timesteps: int = 100_000
    eval: EvalConfig = field(default_factory=EvalConfig)
    #: Steps between resumable checkpoints (0: only the final one).
    checkpoint_every: int = 50_000
    seed: int = 0
    #: ``torch.set_num_threads``; results are reproducible for a fixed seed and thread count.
    torch_threads: int = 1
    #: Parent folder of run directories.
    out_dir: str = "runs/train"
    #: SB3 verbosity (0 quiet, 1 progress tables).
    verbose: int = 0
    #: Torch device of the learner: ``cpu`` (the reference results), ``cuda``, or ``auto`` (CUDA when
    #: present, else the CPU); the resolved device is recorded in ``meta.json``.
    device: Literal["cpu", "cuda", "auto"] = "cpu"

    def resolved_options(self) -> dict[str, Any]:
        """The game's constructor options: the variant's, then ``game.options``."""
        import ice_envs

        variant = ice_envs.get_spec(self.game.name).variants[self.game.variant]
        return {**variant.options, **self.game.options}

    def eval_options(self) -> dict[str, Any]:
        """The game options of evaluations: the training ones without ``reward_mode``.

        Evaluations count wins from the outcome rewards, whatever reward the learner
        trains on (``reward_mode: score`` is a training signal, not a way of winning).
        """
        return {k: v for k, v in self.resolved_options().items() if k != "reward_mode"}

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``config.yaml`` of a run holds)."""
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------- the rllib backend (backend: rllib)


@dataclass
class RayConfig:
    """Where Ray runs and how many env runners sample."""

    #: ``null``: start a local Ray; ``auto`` or ``ray://HOST:10001``: join a running cluster.
    address: str | None = None
    #: CPUs of the local Ray (ignored with an address: the cluster has its own).
    num_cpus: int | None = 2
    #: Remote env runners (0: the driver samples itself).
    num_env_runners: int = 0
    #: Games each env runner steps in turn.
    num_envs_per_env_runner: int = 1
    #: Remote learners, one CPU each, data-parallel (0: the driver learns); ``ppo.train_batch_size`` is per learner.
    num_learners: int = 0


@dataclass
class RLlibPPOConfig:
    """RLlib PPO hyper-parameters (``PPOConfig.training``)."""

    learning_rate: float = 3e-4
    gamma: float = 0.99
    lambda_: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.01
    vf_loss_coeff: float = 0.5
    grad_clip: float | None = 0.5
    #: Steps per training iteration and learner (over every learning seat).
    train_batch_size: int = 2000
    minibatch_size: int = 250
    num_epochs: int = 4


@dataclass
class ModelConfig:
    """The RLModule's networks (RLlib's ``DefaultModelConfig``)."""

    #: Hidden layers of the encoder (actor and critic each have one unless ``vf_share_layers``).
    hidden: list[int] = field(default_factory=lambda: [64, 64])
    activation: Literal["tanh", "relu"] = "tanh"
    vf_share_layers: bool = False


@dataclass
class RLlibEvalConfig:
    """The final evaluation: the trained policy against N-1 copies of each opponent kind."""

    #: Games per opponent kind (0: no final evaluation).
    games: int = 400
    against: list[str] = field(default_factory=lambda: ["random"])
    #: First deal seed, in the validation range (as ``eval.seed`` of the SB3 backend).
    seed: int = DEFAULT_VALIDATION_SEED
    workers: int = 1


@dataclass
class RLlibTrainConfig:
    """One RLlib training run (``backend: rllib``)."""

    backend: Literal["rllib"] = "rllib"
    name: str | None = None
    game: GameConfig = field(default_factory=GameConfig)
    #: Agent specs of fixed, non-learning seats (the other seats learn).
    opponents: list[str] = field(default_factory=list)
    #: Cap of each training game's length (``null``: the game's own cap).
    max_decisions: int | None = None
    ray: RayConfig = field(default_factory=RayConfig)
    ppo: RLlibPPOConfig = field(default_factory=RLlibPPOConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    #: Training iterations (``algo.train()`` calls).
    iterations: int = 10
    #: Also stop once this many env steps are sampled (``null``: iterations only).
    total_timesteps: int | None = None
    #: Iterations between checkpoints (0: only the final one).
    checkpoint_every: int = 0
    eval: RLlibEvalConfig = field(default_factory=RLlibEvalConfig)
    seed: int = 0
    torch_threads: int = 1
    out_dir: str = "runs/train"

    def resolved_options(self) -> dict[str, Any]:
        """The game's constructor options: the variant's, then ``game.options``."""
        import ice_envs

        variant = ice_envs.get_spec(self.game.name).variants[self.game.variant]
        return {**variant.options, **self.game.options}

    def eval_options(self) -> dict[str, Any]:
        """The evaluation's game options: the training ones without ``reward_mode``."""
        return {k: v for k, v in self.resolved_options().items() if k != "reward_mode"}

    def env_config(self) -> dict[str, Any]:
        """The ``env_config`` of :class:`ice_envs.wrappers.rllib.IceMultiAgentEnv`."""
        return {
            "game": self.game.name,
            "num_players": self.game.players,
            "options": self.resolved_options(),
            "opponents": list(self.opponents),
            "max_decisions": self.max_decisions,
        }

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------- loading


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig | RLlibTrainConfig:
    """Read, override and validate the YAML config at ``path``.

    The file is read through :func:`ice_envs.core.files.load_yaml`: a regular file within
    the size cap, UTF-8 with or without a byte-order mark, plain YAML data only, nesting
    bounded. Every failure is a :class:`ConfigError` naming the file (and the line).
    """
    path = Path(path)
    data = read_config_data(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys, got {type(data).__name__}")
    data = apply_overrides(data, overrides or [])
    data.setdefault("name", path.stem)
    if backend_of(data, str(path)) == "rllib":
        return rllib_config_from_dict(data, source=str(path))  # type: ignore[return-value]
    data.pop("backend", None)
    return config_from_dict(data, source=str(path))


def backend_of(data: dict[str, Any], source: str = "config") -> str:
    """The ``backend`` key of a config: ``sb3`` (MaskablePPO, the default) or ``rllib`` (:mod:`train.rllib_backend`)."""
    backend = data.get("backend", "sb3")
    if backend not in BACKENDS:
        raise ConfigError(f"{source}: backend: {backend!r} is not one of {list(BACKENDS)}")
    return str(backend)


def read_config_data(path: str | Path) -> Any:
    """The YAML document of the config file ``path``, read safely; :class:`ConfigError` naming it if not."""
    from ice_envs.core.files import FileFormatError, load_yaml

    path = Path(path)
    if not path.exists():
        raise ConfigError(f"config file not found: {path}")
    try:
        return load_yaml(path, what="config file")
    except FileFormatError as exc:
        raise ConfigError(str(exc)) from None


def config_from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """Validate plain data into a :class:`TrainConfig`."""
    try:
        cfg = _build(TrainConfig, data, "")
        _validate(cfg)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return cfg


def parse_override(text: str) -> tuple[list[str], Any]:
    """``a.b=value`` -> (``["a", "b"]``, value read as YAML)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"override {text!r} is not key=value (as in --set ppo.learning_rate=1e-4)")
    from ice_envs.core.files import FileFormatError, YamlSyntaxError, parse_yaml

    try:
        value = parse_yaml(raw, what="override", source=repr(key)) if raw.strip() else None
    except YamlSyntaxError:
        value = raw
    except FileFormatError as exc:
        raise ConfigError(str(exc)) from None
    return key.split("."), value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """A copy of ``data`` with each ``key=value`` override set (unknown keys fail later, by name)."""
    data = copy.deepcopy(data)
    for text in overrides:
        keys, value = parse_override(text)
        node = data
        for i, k in enumerate(keys[:-1]):
            child = node.get(k)
            if child is None:
                child = node[k] = {}
            if not isinstance(child, dict):
                raise ConfigError(f"override {text!r}: {'.'.join(keys[: i + 1])} is not a mapping")
            node = child
        node[keys[-1]] = value
    return data


def dump_config(cfg: TrainConfig) -> str:
    """The resolved config as YAML."""
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)


# ---------------------------------------------------------------------------- typed building


def _build(cls: type, data: Any, path: str) -> Any:
    where = path or "the config"
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{path}.{key}" if path else str(key)
        if key not in names:
            close = difflib.get_close_matches(str(key), names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; known keys: {', '.join(names)}"
            raise ConfigError(f"unknown key {dotted!r}{hint}")
        kwargs[key] = _convert(hints[key], value, dotted)
    return cls(**kwargs)


def _convert(tp: Any, value: Any, key: str) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        return _build(tp, value if value is not None else {}, key)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _convert(arg, value, key)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(errors[0] if len(errors) == 1 else f"{key}: {value!r} does not fit {_describe(tp)}")
    if origin is Literal:
        if value not in args:
            raise ConfigError(f"{key}: {value!r} is not one of {list(args)}")
        return value
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ConfigError(f"{key}: expected an integer, got {value!r}")
        if isinstance(value, int):
            return value  # exactly: seeds go up to 2**64, beyond a float's 53 bits
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            return int(value)
        try:
            as_float = float(value)  # 3e5, 300000.0
        except ValueError:
            raise ConfigError(f"{key}: expected an integer, got {value!r}") from None
        if not as_float.is_integer():
            raise ConfigError(f"{key}: expected an integer, got {value!r}")
        return int(as_float)
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        try:
            return float(value)  # YAML reads 3e-4 (no dot) as a string
        except ValueError:
            raise ConfigError(f"{key}: expected a number, got {value!r}") from None
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: expected a string, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {value!r}")
        return [_convert(args[0], v, f"{key}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping, got {value!r}")
        return {str(k): _convert(args[1], v, f"{key}.{k}") for k, v in value.items()}
    raise TypeError(f"config field {key} has an unsupported type {tp!r}")  # a bug in this module, not in the config


def _describe(tp: Any) -> str:
    return str(tp).replace("typing.", "")


# ---------------------------------------------------------------------------- value checks


def _require(ok: bool, key: str, message: str, value: Any) -> None:
    if not ok:
        raise ConfigError(f"{key}: {message}, got {value!r}")


def _require_finite(node: Any, prefix: str = "") -> None:
    """Every float of the config is a finite number (``.inf`` and ``.nan`` read as YAML floats)."""
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        key = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            _require_finite(value, f"{key}.")
        elif isinstance(value, float):
            _require(math.isfinite(value), key, "must be a finite number", value)
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, float):
                    _require(math.isfinite(v), f"{key}.{k}", "must be a finite number", v)


def _validate(cfg: TrainConfig) -> None:
    _require_finite(cfg)
    _validate_game(cfg)
    _require(
        not cfg.eval.background or cfg.eval.workers == 1,
        "eval.background",
        "runs the evaluations in one background process: it needs eval.workers: 1",
        cfg.eval.workers,
    )
    _require(cfg.n_envs >= 1, "n_envs", "must be >= 1", cfg.n_envs)
    if cfg.env_processes is not None:
        _require(
            1 <= cfg.env_processes <= cfg.n_envs,
            "env_processes",
            f"must be in 1..n_envs ({cfg.n_envs})",
            cfg.env_processes,
        )
        _require(cfg.vec_env == "subproc", "env_processes", "needs vec_env: subproc", cfg.vec_env)
    _validate_opponents(cfg)
    _validate_ppo(cfg)
    e = cfg.eval
    _require(e.every >= 0, "eval.every", "must be >= 0", e.every)
    _require(e.games >= 1, "eval.games", "must be >= 1", e.games)
    _require(e.final_games >= 0, "eval.final_games", "must be >= 0", e.final_games)
    _require(e.workers >= 1, "eval.workers", "must be >= 1", e.workers)
    deals = max(e.games, e.final_games)
    _require(
        e.seed in VALIDATION_SEEDS and e.seed + deals <= VALIDATION_SEEDS.stop,
        "eval.seed",
        f"must lie in the validation seeds [2**63, 2**63 + 2**40) (default {DEFAULT_VALIDATION_SEED}), "
        "apart from the training seeds and the held-out suites",
        e.seed,
    )
    for i, kind in enumerate(e.against):
        _require(kind in EVAL_OPPONENTS, f"eval.against[{i}]", f"must be one of {list(EVAL_OPPONENTS)}", kind)
    _require(len(set(e.against)) == len(e.against), "eval.against", "lists an opponent twice", e.against)
    _require(cfg.total_timesteps >= 1, "total_timesteps", "must be >= 1", cfg.total_timesteps)
    _require(cfg.checkpoint_every >= 0, "checkpoint_every", "must be >= 0", cfg.checkpoint_every)
    _require(cfg.seed in TRAINING_SEEDS, "seed", "must lie in the training seeds [0, 2**63)", cfg.seed)
    _require(cfg.torch_threads >= 1, "torch_threads", "must be >= 1", cfg.torch_threads)
    _require(cfg.verbose in (0, 1, 2), "verbose", "must be 0, 1 or 2", cfg.verbose)
    _validate_shaping(cfg)
    _validate_imitation(cfg)
    _validate_batched(cfg)
    if cfg.name is not None:
        ok = bool(cfg.name) and all(c.isalnum() or c in "-_." for c in cfg.name)
        _require(ok, "name", "must be letters, digits, '-', '_' or '.'", cfg.name)


def _validate_batched(cfg: TrainConfig) -> None:
    """``vec_env: batched`` needs a game with a batched engine and opponents that engine can play: with
    numba, the compiled engine and its players (``random``, ``heuristic``, ``self_play``); without, the
    numpy engine and random opponents."""
    if cfg.vec_env != "batched":
        return
    from ice_envs.core.vector import compiled_available

    spec = get_spec(cfg.game.name)
    kinds = sorted(k for k, w in cfg.opponents.mix.items() if w > 0)
    if compiled_available() and spec.compiled is not None:
        from ice_envs.core.compiled_players import compiled_player_names

        have = compiled_player_names(cfg.game.name)
        playable = [k for k in kinds if k == "self_play" or k in have]
        _require(
            playable == kinds,
            "opponents.mix",
            f"with vec_env: batched the opponents are self_play or compiled players ({', '.join(have)})",
            kinds,
        )
    else:
        _require(
            spec.vector is not None or spec.compiled is not None,
            "vec_env",
            "batched needs a game with a batched engine",
            cfg.vec_env,
        )
        _require(spec.vector is not None, "vec_env", "batched needs numba for this game (pip install numba)", "")
        _require(
            kinds == ["random"],
            "opponents.mix",
            "without numba the batched opponents are random only (pip install numba)",
            kinds,
        )
    if cfg.opponents.league is not None:
        compiled = compiled_available() and spec.compiled is not None
        _require(compiled, "opponents.league", "with vec_env: batched needs numba (pip install numba)", "a league")
        from ice_envs.core.compiled_players import compiled_player_names

        have = compiled_player_names(cfg.game.name)
        bad = [m for m in cfg.opponents.league.fixed if m.lower() not in have and not m.lower().startswith("ppo:")]
        _require(
            not bad,
            "opponents.league.fixed",
            f"with vec_env: batched the fixed members are compiled players ({', '.join(have)}) or ppo:PATH",
            bad,
        )
    potential = cfg.reward_shaping.potential
    _require(
        potential is None or (spec.compiled is not None and potential in spec.batched_potentials),
        "reward_shaping.potential",
        "has no batched version for vec_env: batched",
        potential,
    )


def _validate_shaping(cfg: TrainConfig) -> None:
    s = cfg.reward_shaping
    if s.potential is None:
        return
    known = sorted(get_spec(cfg.game.name).potentials)
    _require(
        s.potential in known, "reward_shaping.potential", f"must be one of {known} for {cfg.game.name}", s.potential
    )
    _require(s.scale > 0, "reward_shaping.scale", "must be > 0", s.scale)


def collection_workers(cfg: TrainConfig) -> int:
    """The processes the imitation warm start collects the teacher's games in (``imitation.workers``,
    or ``n_envs``)."""
    return cfg.imitation.workers if cfg.imitation.workers is not None else cfg.n_envs


def _validate_imitation(cfg: TrainConfig) -> None:
    im = cfg.imitation
    if im.teacher is None:
        return
    _require(im.teacher in TEACHERS, "imitation.teacher", f"must be one of {list(TEACHERS)} or null", im.teacher)
    from ice_envs.agents.spec import AgentSpecError, load_agent

    try:
        load_agent(im.teacher, cfg.game.name)
    except AgentSpecError as exc:
        raise ConfigError(f"imitation.teacher: {exc}") from None
    _require(im.steps >= 1, "imitation.steps", "must be >= 1", im.steps)
    _require(im.epochs >= 1, "imitation.epochs", "must be >= 1", im.epochs)
    _require(im.batch_size >= 1, "imitation.batch_size", "must be >= 1", im.batch_size)
    _require(im.learning_rate > 0, "imitation.learning_rate", "must be > 0", im.learning_rate)
    _require(im.value_coef >= 0, "imitation.value_coef", "must be >= 0", im.value_coef)
    _require(im.holdout_steps >= 0, "imitation.holdout_steps", "must be >= 0", im.holdout_steps)
    _require(im.dagger_rounds >= 0, "imitation.dagger_rounds", "must be >= 0", im.dagger_rounds)
    if im.dagger_steps is None:
        im.dagger_steps = im.steps
    if im.dagger_epochs is None:
        im.dagger_epochs = im.epochs
    _require(im.dagger_steps >= 1, "imitation.dagger_steps", "must be >= 1", im.dagger_steps)
    _require(im.dagger_epochs >= 1, "imitation.dagger_epochs", "must be >= 1", im.dagger_epochs)
    if cfg.vec_env == "batched":
        _require(
            im.workers is not None,
            "imitation.workers",
            "must be set with vec_env: batched (the processes the teacher's games are collected in)",
            im.workers,
        )
    _require(im.workers is None or im.workers >= 1, "imitation.workers", "must be >= 1 or null", im.workers)
    workers = collection_workers(cfg)
    if im.holdout_steps > 0:  # held-out worker i: eval.seed + i; training worker i: seed + i
        _require(
            cfg.eval.seed + workers <= VALIDATION_SEEDS.stop and cfg.seed + workers <= cfg.eval.seed,
            "imitation.holdout_steps",
            "needs the held-out worker seeds eval.seed + i (i < workers) inside the validation seeds "
            "[2**63, 2**63 + 2**40) and apart from the training collection's seed + i",
            im.holdout_steps,
        )
    if im.dagger_rounds > 0:  # round r's collection worker i: seed + r * workers + i
        _require(
            cfg.seed + (im.dagger_rounds + 1) * workers <= min(cfg.eval.seed, TRAINING_SEEDS.stop),
            "imitation.dagger_rounds",
            "needs every round's collection seeds seed + round * workers + i inside the training seeds "
            "and below eval.seed",
            im.dagger_rounds,
        )


def _validate_game(cfg: TrainConfig) -> None:
    import ice_envs

    g = cfg.game
    try:
        spec = ice_envs.get_spec(g.name)
    except OptionError as exc:
        raise ConfigError(f"game.name: {exc}") from None
    g.name = spec.name
    if g.variant not in spec.variants:
        raise ConfigError(
            f"game.variant: {g.variant!r} is not a variant of {spec.name}; variants: {list(spec.variants)}"
        )
    allowed = spec.variants[g.variant].players or spec.players
    _require(
        g.players in allowed, "game.players", f"{spec.name} ({g.variant}) takes {list(allowed)} players", g.players
    )
    if g.learner_seat is not None:
        _require(0 <= g.learner_seat < g.players, "game.learner_seat", f"must be in 0..{g.players - 1}", g.learner_seat)
    for reserved in ("num_players", "render_mode", "illegal_action"):
        _require(
            reserved not in g.options, f"game.options.{reserved}", "is set by the trainer", g.options.get(reserved)
        )
    try:
        ice_envs.make(spec.name, raw=True, num_players=g.players, **cfg.resolved_options())
    except (OptionError, TypeError) as exc:
        raise ConfigError(f"game.options: {exc}") from None


def _validate_opponents(cfg: TrainConfig) -> None:
    o = cfg.opponents
    _require(bool(o.mix), "opponents.mix", "needs at least one opponent kind", o.mix)
    for kind, weight in o.mix.items():
        _require(kind in OPPONENT_KINDS, f"opponents.mix.{kind}", f"unknown kind; use {list(OPPONENT_KINDS)}", kind)
        _require(weight >= 0, f"opponents.mix.{kind}", "weight must be >= 0", weight)
    _require(sum(o.mix.values()) > 0, "opponents.mix", "weights must not all be 0", o.mix)
    if o.mix.get("heuristic", 0) > 0:
        from ice_envs.agents.spec import AgentSpecError, load_agent

        try:
            load_agent("heuristic", cfg.game.name)
        except AgentSpecError as exc:
            raise ConfigError(f"opponents.mix.heuristic: {exc}") from None
    s = o.self_play
    _require(s.pool_size >= 1, "opponents.self_play.pool_size", "must be >= 1", s.pool_size)
    _require(s.check_every >= 1, "opponents.self_play.check_every", "must be >= 1", s.check_every)
    _require(s.games >= 1, "opponents.self_play.games", "must be >= 1", s.games)
    _require(0 <= s.latest_share <= 1, "opponents.self_play.latest_share", "must be in [0, 1]", s.latest_share)
    if s.promote_lower_bound is not None:
        lb = s.promote_lower_bound
        _require(0 <= lb < 1, "opponents.self_play.promote_lower_bound", "must be in [0, 1)", lb)
    if o.league is not None:
        _validate_league(cfg)


def _validate_league(cfg: TrainConfig) -> None:
    from ice_envs.agents.spec import AgentSpecError, load_agent, parse_agent_spec

    lg = cfg.opponents.league
    assert lg is not None
    key = "opponents.league"
    _require(bool(lg.fixed) or lg.initial_snapshot, f"{key}.fixed", "needs a member (or initial_snapshot)", lg.fixed)
    labels = []
    for i, spec in enumerate(lg.fixed):
        try:
            label = parse_agent_spec(spec).label
            load_agent(spec, cfg.game.name, num_players=cfg.game.players)
        except AgentSpecError as exc:
            raise ConfigError(f"{key}.fixed[{i}]: {exc}") from None
        _require("|" not in label, f"{key}.fixed[{i}]", "an agent spec may not contain '|'", spec)
        _require(label not in labels, f"{key}.fixed[{i}]", "names a member twice", spec)
        labels.append(label)
    _require(lg.pfsp_power > 0, f"{key}.pfsp_power", "must be > 0", lg.pfsp_power)
    _require(0 <= lg.floor < 1, f"{key}.floor", "must be in [0, 1)", lg.floor)
    _require(lg.prior_games > 0, f"{key}.prior_games", "must be > 0", lg.prior_games)
    if lg.prior_win_rate is not None:
        _require(0 <= lg.prior_win_rate <= 1, f"{key}.prior_win_rate", "must be in [0, 1] or null", lg.prior_win_rate)
    _require(lg.window >= 1, f"{key}.window", "must be >= 1 (games)", lg.window)
    _require(lg.snapshot_every >= 0, f"{key}.snapshot_every", "must be >= 0", lg.snapshot_every)
    if lg.gate_win_rate is not None:
        _require(0 < lg.gate_win_rate <= 1, f"{key}.gate_win_rate", "must be in (0, 1] or null", lg.gate_win_rate)
    _require(lg.gate_min_games >= 1, f"{key}.gate_min_games", "must be >= 1", lg.gate_min_games)
    _require(lg.max_snapshots >= 1, f"{key}.max_snapshots", "must be >= 1", lg.max_snapshots)


def _validate_ppo(cfg: TrainConfig) -> None:
    p = cfg.ppo
    _require(p.learning_rate > 0, "ppo.learning_rate", "must be > 0", p.learning_rate)
    _require(p.n_steps >= 1, "ppo.n_steps", "must be >= 1", p.n_steps)
    buffer = p.n_steps * cfg.n_envs
    _require(buffer > 1, "ppo.n_steps", "n_steps * n_envs must be > 1", p.n_steps)
    _require(1 < p.batch_size <= buffer, "ppo.batch_size", f"must be in 2..n_steps*n_envs ({buffer})", p.batch_size)
    _require(p.n_epochs >= 1, "ppo.n_epochs", "must be >= 1", p.n_epochs)
    _require(0 < p.gamma <= 1, "ppo.gamma", "must be in (0, 1]", p.gamma)
    _require(0 <= p.gae_lambda <= 1, "ppo.gae_lambda", "must be in [0, 1]", p.gae_lambda)
    _require(p.clip_range > 0, "ppo.clip_range", "must be > 0", p.clip_range)
    _require(p.ent_coef >= 0, "ppo.ent_coef", "must be >= 0", p.ent_coef)
    _require(p.vf_coef >= 0, "ppo.vf_coef", "must be >= 0", p.vf_coef)
    _require(p.max_grad_norm > 0, "ppo.max_grad_norm", "must be > 0", p.max_grad_norm)
    if p.target_kl is not None:
        _require(p.target_kl > 0, "ppo.target_kl", "must be > 0 or null", p.target_kl)
    layers = p.net_arch if isinstance(p.net_arch, dict) else {"": p.net_arch}
    if isinstance(p.net_arch, dict):
        _require(
            set(p.net_arch) == {"pi", "vf"}, "ppo.net_arch", "a mapping needs exactly the keys pi and vf", p.net_arch
        )
    for part, sizes in layers.items():
        key = f"ppo.net_arch.{part}" if part else "ppo.net_arch"
        _require(all(s >= 1 for s in sizes), key, "layer sizes must be >= 1", sizes)


# ---------------------------------------------------------------------------- rllib value checks


def rllib_config_from_dict(data: dict[str, Any], source: str = "config") -> RLlibTrainConfig:
    """Validate plain data (with ``backend: rllib``) into an :class:`RLlibTrainConfig`."""
    try:
        cfg = _build(RLlibTrainConfig, data, "")
        _validate_rllib(cfg)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return cfg


def _validate_rllib(cfg: RLlibTrainConfig) -> None:
    from ice_envs.agents.spec import AgentSpecError, load_agent

    _validate_game(cfg)  # type: ignore[arg-type]  # reads cfg.game and cfg.resolved_options() only
    _require(
        cfg.game.learner_seat is None, "game.learner_seat", "is not used by the rllib backend", cfg.game.learner_seat
    )
    n = cfg.game.players
    _require(len(cfg.opponents) < n, "opponents", f"must leave at least one learning seat of {n}", cfg.opponents)
    for i, spec in enumerate(cfg.opponents):
        try:
            load_agent(spec, cfg.game.name, num_players=n)
        except AgentSpecError as exc:
            raise ConfigError(f"opponents[{i}]: {exc}") from None
    if cfg.max_decisions is not None:
        _require(cfg.max_decisions >= 1, "max_decisions", "must be >= 1 or null", cfg.max_decisions)
    r = cfg.ray
    if r.address is not None:
        _require(bool(r.address.strip()), "ray.address", "must be null, 'auto' or a Ray address", r.address)
    if r.num_cpus is not None:
        _require(r.num_cpus >= 1, "ray.num_cpus", "must be >= 1 or null", r.num_cpus)
    _require(r.num_env_runners >= 0, "ray.num_env_runners", "must be >= 0", r.num_env_runners)
    _require(r.num_envs_per_env_runner >= 1, "ray.num_envs_per_env_runner", "must be >= 1", r.num_envs_per_env_runner)
    _require(r.num_learners >= 0, "ray.num_learners", "must be >= 0", r.num_learners)
    p = cfg.ppo
    _require(p.learning_rate > 0, "ppo.learning_rate", "must be > 0", p.learning_rate)
    _require(0 < p.gamma <= 1, "ppo.gamma", "must be in (0, 1]", p.gamma)
    _require(0 <= p.lambda_ <= 1, "ppo.lambda_", "must be in [0, 1]", p.lambda_)
    _require(p.clip_param > 0, "ppo.clip_param", "must be > 0", p.clip_param)
    _require(p.entropy_coeff >= 0, "ppo.entropy_coeff", "must be >= 0", p.entropy_coeff)
    _require(p.vf_loss_coeff >= 0, "ppo.vf_loss_coeff", "must be >= 0", p.vf_loss_coeff)
    if p.grad_clip is not None:
        _require(p.grad_clip > 0, "ppo.grad_clip", "must be > 0 or null", p.grad_clip)
    _require(p.train_batch_size >= 2, "ppo.train_batch_size", "must be >= 2", p.train_batch_size)
    _require(
        1 <= p.minibatch_size <= p.train_batch_size,
        "ppo.minibatch_size",
        f"must be in 1..train_batch_size ({p.train_batch_size})",
        p.minibatch_size,
    )
    _require(p.num_epochs >= 1, "ppo.num_epochs", "must be >= 1", p.num_epochs)
    _require(bool(cfg.model.hidden), "model.hidden", "needs at least one layer", cfg.model.hidden)
    _require(all(s >= 1 for s in cfg.model.hidden), "model.hidden", "layer sizes must be >= 1", cfg.model.hidden)
    _require(cfg.iterations >= 1, "iterations", "must be >= 1", cfg.iterations)
    if cfg.total_timesteps is not None:
        _require(cfg.total_timesteps >= 1, "total_timesteps", "must be >= 1 or null", cfg.total_timesteps)
    _require(cfg.checkpoint_every >= 0, "checkpoint_every", "must be >= 0", cfg.checkpoint_every)
    e = cfg.eval
    _require(e.games >= 0, "eval.games", "must be >= 0", e.games)
    _require(e.workers >= 1, "eval.workers", "must be >= 1", e.workers)
    _require(
        e.seed in VALIDATION_SEEDS and e.seed + e.games <= VALIDATION_SEEDS.stop,
        "eval.seed",
        f"must lie in the validation seeds [2**63, 2**63 + 2**40) (default {DEFAULT_VALIDATION_SEED})",
        e.seed,
    )
    for i, kind in enumerate(e.against):
        _require(
            kind in RLLIB_EVAL_OPPONENTS, f"eval.against[{i}]", f"must be one of {list(RLLIB_EVAL_OPPONENTS)}", kind
        )
    _require(len(set(e.against)) == len(e.against), "eval.against", "lists an opponent twice", e.against)
    _require(cfg.seed in TRAINING_SEEDS, "seed", "must lie in the training seeds [0, 2**63)", cfg.seed)
    _require(cfg.torch_threads >= 1, "torch_threads", "must be >= 1", cfg.torch_threads)
    if cfg.name is not None:
        ok = bool(cfg.name) and all(c.isalnum() or c in "-_." for c in cfg.name)
        _require(ok, "name", "must be letters, digits, '-', '_' or '.'", cfg.name)
