"""The training config's schema: pydantic models of every key, its type, default, range and meaning.

:class:`TrainConfig` is a run of the SB3 backend (MaskablePPO), :class:`RLlibTrainConfig` one of the RLlib
backend (``backend: rllib``); both extend :class:`RunConfig`, their common part (name, game, seed, threads,
output folder and the checks of the game). Types are strict: a key takes the YAML type it names (``true``,
not ``"yes"`` or ``1``, for a flag; ``5``, not ``"5"``, for a number), with two readings: a number with an
exponent that PyYAML's YAML 1.1 leaves a string (``3e-4``, ``1e5``) is the number YAML 1.2 reads, and an
integer key takes a whole number written as a float (``3e5``, ``300000.0``; integers are read exactly,
seeds go past a float's 53 bits). Every float is finite. An unknown key, a bad type or a value out of range fails validation; :mod:`train.config` turns the
first failure into a one-line :class:`~train.config.ConfigError` naming the dotted key.

A range is a ``Field`` constraint (``gt``/``ge``/``lt``/``le``); a rule that needs other keys (the game's
player counts, ``ppo.batch_size`` against ``n_steps * n_envs``, seed ranges) is a model validator, and its
text is recorded on the field (``json_schema_extra={"rule": ...}``) for the reference page
(:mod:`train.config_reference`).
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, NoReturn

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ice_envs.core.errors import OptionError
from ice_envs.core.registry import get_spec
from ice_envs.evaluation.suite import DEFAULT_VALIDATION_SEED, TRAINING_SEEDS, VALIDATION_SEEDS

OPPONENT_KINDS = ("random", "heuristic", "self_play")
EVAL_OPPONENTS = ("random", "heuristic")
TEACHERS = ("heuristic",)
#: Opponent kinds of the rllib backend's final evaluation.
RLLIB_EVAL_OPPONENTS = ("random", "heuristic", "greedy")
#: Training backends: ``sb3`` (:class:`TrainConfig`) and ``rllib`` (:class:`RLlibTrainConfig`).
BACKENDS = ("sb3", "rllib")
#: The error type of every failure raised by this module's checks (``ctx``: ``key`` below the failing
#: location, ``text`` the problem).
CONFIG_ERROR = "config"

_NO_VALUE = object()


def fail(key: str, problem: str, value: Any = _NO_VALUE) -> NoReturn:
    """Fail validation at ``key`` (dotted, below the validated model; ``""``: the model's own location)."""
    text = problem if value is _NO_VALUE else f"{problem}, got {value!r}"
    raise PydanticCustomError(CONFIG_ERROR, "{key}: {text}", {"key": key, "text": text})


def require(ok: bool, key: str, problem: str, value: Any = _NO_VALUE) -> None:
    """:func:`fail` unless ``ok``."""
    if not ok:
        fail(key, problem, value)


# ---------------------------------------------------------------------------- scalar types


#: A number with an exponent that YAML 1.2 reads as a number and PyYAML's YAML 1.1 as a string (it wants a
#: dot and a signed exponent): ``3e-4``, ``1e5``, ``1.0e5``.
_EXPONENT_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+")


def _yaml_number(value: Any, expected: str) -> int | float:
    """``value`` as YAML 1.2 reads it: a number, or a string that only YAML 1.1 leaves a string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        fail("", expected, value)
    if isinstance(value, str):
        if not _EXPONENT_NUMBER.fullmatch(value.strip()):
            fail("", expected, value)
        return float(value)
    return value


def _yaml_int(value: Any) -> Any:
    """An integer: exactly as written (seeds go past a float's 53 bits), or a whole number written as a float
    (``300000.0``, ``3e5``)."""
    number = _yaml_number(value, "expected an integer")
    if isinstance(number, float):
        if not number.is_integer():
            fail("", "expected an integer", value)
        return int(number)
    return number


def _yaml_float(value: Any) -> Any:
    """A number: an integer or a float (``3e-4`` too)."""
    number = _yaml_number(value, "expected a number")
    try:
        return float(number)
    except OverflowError:
        fail("", "must be a finite number", value)


#: An integer key (see the module docstring).
Int = Annotated[int, BeforeValidator(_yaml_int)]
#: A float key (see the module docstring); finite by the models' ``allow_inf_nan=False``.
Float = Annotated[float, BeforeValidator(_yaml_float)]


def _rule(text: str) -> dict[str, str]:
    """A cross-key rule's text for the reference page (the check itself is a model validator)."""
    return {"rule": text}


def _check_layers(key: str, sizes: list[int]) -> None:
    require(all(s >= 1 for s in sizes), key, "layer sizes must be >= 1", sizes)


def _net_arch(value: Any) -> Any:
    """``[64, 64]`` or ``{pi: [...], vf: [...]}``, every size an integer >= 1."""
    if isinstance(value, dict):
        require(set(value) == {"pi", "vf"}, "", "a mapping needs exactly the keys pi and vf", value)
        out = {}
        for part, sizes in value.items():
            require(isinstance(sizes, list), part, "expected a list", sizes)
            out[part] = [_yaml_int(s) for s in sizes]
            _check_layers(part, out[part])
        return out
    require(isinstance(value, list), "", "expected a list or a mapping with the keys pi and vf", value)
    sizes = [_yaml_int(s) for s in value]
    _check_layers("", sizes)
    return sizes


#: ``ppo.net_arch``: shared hidden layers, or separate ones for the policy and the value net.
NetArch = Annotated[list[int] | dict[str, list[int]], BeforeValidator(_net_arch)]


class Section(BaseModel):
    """A mapping of the config: unknown keys refused, strict types, finite floats; ``null`` means defaults."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _null_is_defaults(cls, data: Any) -> Any:
        return {} if data is None else data

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what a run's ``config.yaml`` holds)."""
        return self.model_dump()


# ---------------------------------------------------------------------------- sections


class GameConfig(Section):
    """Which game the learner plays."""

    name: str = Field("cardiceo", description="A registered game (`ice-envs list`).")
    players: Int = Field(
        2,
        description="Seats at the table, learner included.",
        json_schema_extra=_rule("a player count the game (and its variant) takes"),
    )
    variant: str = Field("default", description="A registered variant of the game (its options are applied first).")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Constructor options of the game: `reward_mode` (`outcome` / `score`), `max_cycles`, "
        "the game's rule options.",
        json_schema_extra=_rule("options the game takes; not num_players, render_mode, illegal_action"),
    )
    learner_seat: Int | None = Field(
        None,
        description="The learner's seat; `null` draws it uniformly for every game.",
        json_schema_extra=_rule("0..players-1; null with backend: rllib"),
    )

    @field_validator("options")
    @classmethod
    def _finite_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        for key, value in options.items():
            require(not isinstance(value, float) or math.isfinite(value), key, "must be a finite number", value)
        return options


class SelfPlayConfig(Section):
    """The pool of frozen snapshots of the learner and its promotion rule."""

    pool_size: Int = Field(5, ge=1, description="Snapshots kept; the oldest is dropped when a promotion overflows.")
    check_every: Int = Field(50_000, ge=1, description="Steps between promotion checks.")
    games: Int = Field(
        200, ge=1, description="Games of a promotion check: the learner against copies of the latest snapshot."
    )
    promote_lower_bound: Float | None = Field(
        None,
        ge=0,
        lt=1,
        description="Promote when the 95% Wilson lower bound of that win rate exceeds this (`null`: 1/N).",
    )
    latest_share: Float = Field(
        0.5, ge=0, le=1, description="Share of self-play opponents that are the latest snapshot (the rest: the pool)."
    )
    deterministic: bool = Field(False, description="Snapshots play their greedy action instead of sampling.")


class LeagueConfig(Section):
    """League self-play with PFSP (:mod:`train.league`): fixed agents and snapshots of the learner."""

    fixed: list[str] = Field(
        default_factory=lambda: ["random", "greedy", "heuristic"],
        description="Agent specs of the fixed members (`random`, `greedy`, `heuristic`, `mcts:...`, `ppo:PATH`), "
        "named by their labels.",
        json_schema_extra=_rule("agents of this game, each named once; a member or initial_snapshot"),
    )
    pfsp: Literal["hard", "variance", "uniform"] = Field(
        "hard",
        description="PFSP weighting `f(p)` of the learner's win rate `p`: `hard` `(1-p)**pfsp_power`, "
        "`variance` `p*(1-p)`, `uniform`.",
    )
    pfsp_power: Float = Field(2.0, gt=0, description="The exponent of `hard`.")
    floor: Float = Field(
        0.05, ge=0, lt=1, description="Each member's least draw probability (capped at 1/members): nobody starves."
    )
    prior_games: Float = Field(10.0, gt=0, description="Games of the prior of each win-rate estimate ...")
    prior_win_rate: Float | None = Field(None, ge=0, le=1, description="... at this win rate (`null`: 1/N).")
    window: Float = Field(
        500.0, ge=1, description="Effective window of the estimates in games (counts decay by 1 - 1/window a game)."
    )
    snapshot_every: Int = Field(0, ge=0, description="Steps between scheduled snapshots of the learner (0: none).")
    gate_win_rate: Float | None = Field(
        None, gt=0, le=1, description="The gate: a snapshot joins once the estimated win rate reaches this ..."
    )
    gate_against: Literal["latest", "mix"] = Field(
        "latest", description="... against the latest snapshot (`latest`) or the PFSP-weighted mix of members ..."
    )
    gate_min_games: Int = Field(
        100, ge=1, description="... after at least this many games (`null` gate_win_rate: no gate)."
    )
    max_snapshots: Int = Field(
        10, ge=1, description="Snapshots kept as members (the oldest leaves the league; its file stays in `pool/`)."
    )
    initial_snapshot: bool = Field(
        True, description="The untrained (or imitation warm-started) policy joins as the first snapshot at step 0."
    )
    per_seat: bool = Field(False, description="A member per opponent seat (`true`) or one for the whole table.")
    deterministic: bool = Field(False, description="Snapshots play their greedy action instead of sampling.")


class OpponentsConfig(Section):
    """Who sits in the other seats of each training game."""

    mix: dict[str, Float] = Field(
        default_factory=lambda: {"random": 1.0},
        description="Weights of the opponent kinds `random`, `heuristic`, `self_play` (normalised).",
        json_schema_extra=_rule("weights >= 0, not all 0"),
    )
    per_seat: bool = Field(
        True, description="Draw each opponent seat's kind independently (`true`) or one kind for the whole table."
    )
    self_play: SelfPlayConfig = Field(default_factory=SelfPlayConfig)
    league: LeagueConfig | None = Field(
        None,
        description="League self-play with PFSP; when set it replaces `mix` and `self_play` (`null`: not used).",
    )

    @field_validator("mix")
    @classmethod
    def _check_mix(cls, mix: dict[str, float]) -> dict[str, float]:
        require(bool(mix), "", "needs at least one opponent kind", mix)
        for kind, weight in mix.items():
            require(kind in OPPONENT_KINDS, kind, f"unknown kind; use {list(OPPONENT_KINDS)}", kind)
            require(weight >= 0, kind, "weight must be >= 0", weight)
        require(sum(mix.values()) > 0, "", "weights must not all be 0", mix)
        return mix


class PPOConfig(Section):
    """MaskablePPO hyper-parameters and network."""

    learning_rate: Float = Field(3e-4, gt=0, description="Adam step size.")
    lr_schedule: Literal["constant", "linear"] = Field(
        "constant", description="`constant`, or `linear` (decays to 0 at `total_timesteps`)."
    )
    n_steps: Int = Field(
        512,
        ge=1,
        description="Steps per env per rollout (the update uses `n_steps * n_envs` steps).",
        json_schema_extra=_rule("n_steps * n_envs > 1"),
    )
    batch_size: Int = Field(256, description="Minibatch size.", json_schema_extra=_rule("2..n_steps*n_envs"))
    n_epochs: Int = Field(4, ge=1, description="Passes over each rollout.")
    gamma: Float = Field(0.99, gt=0, le=1, description="Discount.")
    gae_lambda: Float = Field(0.95, ge=0, le=1, description="GAE lambda.")
    clip_range: Float = Field(0.2, gt=0, description="PPO clip.")
    ent_coef: Float = Field(0.01, ge=0, description="Entropy bonus.")
    vf_coef: Float = Field(0.5, ge=0, description="Value loss weight.")
    max_grad_norm: Float = Field(0.5, gt=0, description="Gradient clipping.")
    target_kl: Float | None = Field(None, gt=0, description="Stop an update's epochs early above this KL.")
    normalize_advantage: bool = Field(True, description="Normalise the advantages of each minibatch.")
    net_arch: NetArch = Field(
        default_factory=lambda: [64, 64],
        description="Hidden layers of policy and value nets: `[64, 64]`, or `{pi: [...], vf: [...]}` for "
        "separate sizes.",
        json_schema_extra=_rule("layer sizes >= 1"),
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="Activation of the hidden layers.")
    ortho_init: bool = Field(True, description="Orthogonal initialisation.")


class EvalConfig(Section):
    """The evaluation schedule (``ice_envs.evaluation.tournament`` tournaments with Wilson intervals)."""

    every: Int = Field(50_000, ge=0, description="Steps between evaluations (0: only the final one).")
    games: Int = Field(200, ge=1, description="Games per evaluation and opponent kind.")
    at_start: bool = Field(True, description="Also evaluate the untrained policy at step 0.")
    against: list[str] = Field(
        default_factory=lambda: ["random", "heuristic"],
        description="Opponent kinds: the learner against N-1 copies of each; a game without a heuristic "
        "is skipped with a note.",
        json_schema_extra=_rule(f"each one of {', '.join(EVAL_OPPONENTS)}, listed once"),
    )
    seed: Int = Field(
        DEFAULT_VALIDATION_SEED,
        description="First deal seed of the evaluations (the same deals at every evaluation), in the validation "
        "seeds (`ice_envs.evaluation.suite`): never the deals of training or the held-out suites.",
        json_schema_extra=_rule("seed..seed+max(games, final_games) in [2**63, 2**63 + 2**40)"),
    )
    workers: Int = Field(1, ge=1, description="Processes of the evaluations (results do not depend on it).")
    final_games: Int = Field(
        2000, ge=0, description="Games of the final evaluation per opponent kind (`evaluation.json`; 0: none)."
    )
    background: bool = Field(
        False,
        description="Run the in-training evaluations in one background process while training goes on "
        "(same results and logs). Off by default: on 2 busy cores it measured no faster.",
        json_schema_extra=_rule("needs workers: 1"),
    )

    @field_validator("against")
    @classmethod
    def _check_against(cls, against: list[str]) -> list[str]:
        return _checked_kinds(against, EVAL_OPPONENTS)

    @model_validator(mode="after")
    def _check(self) -> EvalConfig:
        require(
            not self.background or self.workers == 1,
            "background",
            "runs the evaluations in one background process: it needs eval.workers: 1",
            self.workers,
        )
        _check_validation_seed(
            self.seed, max(self.games, self.final_games), ", apart from the training seeds and the held-out suites"
        )
        return self


def _checked_kinds(kinds: list[str], known: tuple[str, ...]) -> list[str]:
    for i, kind in enumerate(kinds):
        require(kind in known, f"[{i}]", f"must be one of {list(known)}", kind)
    require(len(set(kinds)) == len(kinds), "", "lists an opponent twice", kinds)
    return kinds


def _check_validation_seed(seed: int, deals: int, note: str = "") -> None:
    require(
        seed in VALIDATION_SEEDS and seed + deals <= VALIDATION_SEEDS.stop,
        "seed",
        f"must lie in the validation seeds [2**63, 2**63 + 2**40) (default {DEFAULT_VALIDATION_SEED}){note}",
        seed,
    )


class ShapingConfig(Section):
    """Potential-based reward shaping of the learner's rewards (:mod:`train.shaping`)."""

    potential: str | None = Field(
        None,
        description="A shaping potential of this game (`train.shaping.POTENTIALS`); `null`: no shaping.",
        json_schema_extra=_rule("a potential of the game; with vec_env: batched, one with a batched version"),
    )
    scale: Float = Field(1.0, gt=0, description="Multiplier of `gamma * phi(s') - phi(s)`.")


class ImitationConfig(Section):
    """Behaviour cloning of a teacher before PPO (:mod:`train.imitation`)."""

    teacher: Literal["heuristic"] | None = Field(
        None, description="The agent imitated in the learner's seat; `null`: no warm start."
    )
    steps: Int = Field(20_000, ge=1, description="Teacher decisions collected (whole games, split over `workers`).")
    workers: Int | None = Field(
        None,
        ge=1,
        description="Processes the teacher's games are collected in, worker i seeded `seed + i` (`null`: "
        "`n_envs`; set it with `vec_env: batched`, whose `n_envs` is hundreds of games in one process).",
        json_schema_extra=_rule("set with vec_env: batched"),
    )
    epochs: Int = Field(10, ge=1, description="Passes over the decisions.")
    batch_size: Int = Field(256, ge=1, description="Minibatch size of the cloning.")
    learning_rate: Float = Field(1e-3, gt=0, description="Adam step size of the cloning.")
    value_coef: Float = Field(
        0.5, ge=0, description="Weight of fitting the value head to the teacher's discounted returns (0: policy only)."
    )
    holdout_steps: Int = Field(
        0,
        ge=0,
        description="Held-out teacher decisions (worker i seeded `eval.seed + i`) the clone is scored on after "
        "every epoch; never trained on, the weights do not depend on it (0: none).",
        json_schema_extra=_rule("eval.seed + workers in the validation seeds, seed + workers <= eval.seed"),
    )
    dagger_rounds: Int = Field(
        0,
        ge=0,
        description="DAgger rounds after the first fit (0: plain behaviour cloning): the policy plays "
        "`dagger_steps` decisions, the teacher labels the states it reached, and the policy is fitted again on "
        "every labelled decision so far for `dagger_epochs` epochs.",
        json_schema_extra=_rule("every round's seeds seed + round * workers + i below eval.seed"),
    )
    dagger_steps: Int | None = Field(
        None, ge=1, description="Decisions the policy plays per DAgger round (`null`: `steps`)."
    )
    dagger_epochs: Int | None = Field(None, ge=1, description="Epochs of each DAgger round's fit (`null`: `epochs`).")

    @model_validator(mode="after")
    def _resolve_dagger(self) -> ImitationConfig:
        if self.teacher is not None:
            if self.dagger_steps is None:
                self.dagger_steps = self.steps
            if self.dagger_epochs is None:
                self.dagger_epochs = self.epochs
        return self


# ---------------------------------------------------------------------------- the common part of both backends


class RunConfig(Section):
    """What both backends' runs have: a name, a game, a seed, threads and an output folder."""

    name: str | None = Field(
        None,
        description="Run name (default: the config file's stem); the run directory is `<out_dir>/<name>-seed<seed>`.",
        json_schema_extra=_rule("letters, digits, '-', '_' or '.'"),
    )
    game: GameConfig = Field(default_factory=GameConfig)
    seed: Int = Field(0, description="The run's seed.", json_schema_extra=_rule("in the training seeds [0, 2**63)"))
    torch_threads: Int = Field(
        1, ge=1, description="`torch.set_num_threads`; results are reproducible for a fixed seed and thread count."
    )
    out_dir: str = Field("runs/train", description="Parent folder of run directories.")

    @field_validator("name")
    @classmethod
    def _check_name(cls, name: str | None) -> str | None:
        if name is not None:
            ok = bool(name) and all(c.isalnum() or c in "-_." for c in name)
            require(ok, "", "must be letters, digits, '-', '_' or '.'", name)
        return name

    def resolved_options(self) -> dict[str, Any]:
        """The game's constructor options: the variant's, then ``game.options``."""
        variant = get_spec(self.game.name).variants[self.game.variant]
        return {**variant.options, **self.game.options}

    def eval_options(self) -> dict[str, Any]:
        """The game options of evaluations: the training ones without ``reward_mode``.

        Evaluations count wins from the outcome rewards, whatever reward the learner
        trains on (``reward_mode: score`` is a training signal, not a way of winning).
        """
        return {k: v for k, v in self.resolved_options().items() if k != "reward_mode"}

    @model_validator(mode="after")
    def _check_run(self) -> RunConfig:
        self._check_game()
        require(self.seed in TRAINING_SEEDS, "seed", "must lie in the training seeds [0, 2**63)", self.seed)
        self._check_backend()
        return self

    def _check_game(self) -> None:
        import ice_envs

        g = self.game
        try:
            spec = ice_envs.get_spec(g.name)
        except OptionError as exc:
            fail("game.name", str(exc))
        g.name = spec.name
        if g.variant not in spec.variants:
            fail("game.variant", f"{g.variant!r} is not a variant of {spec.name}; variants: {list(spec.variants)}")
        allowed = spec.variants[g.variant].players or spec.players
        require(
            g.players in allowed, "game.players", f"{spec.name} ({g.variant}) takes {list(allowed)} players", g.players
        )
        if g.learner_seat is not None:
            require(
                0 <= g.learner_seat < g.players, "game.learner_seat", f"must be in 0..{g.players - 1}", g.learner_seat
            )
        for reserved in ("num_players", "render_mode", "illegal_action"):
            require(
                reserved not in g.options, f"game.options.{reserved}", "is set by the trainer", g.options.get(reserved)
            )
        try:
            ice_envs.make(spec.name, raw=True, num_players=g.players, **self.resolved_options())
        except (OptionError, TypeError) as exc:
            fail("game.options", str(exc))

    def _check_backend(self) -> None:
        """The backend's own rules (after the game's)."""


def _load_agent(key: str, spec: str, game: str, **kwargs: Any) -> None:
    """Load the agent ``spec`` for ``game``; fail at ``key`` with the loader's reason if it cannot be."""
    from ice_envs.agents.spec import AgentSpecError, load_agent

    try:
        load_agent(spec, game, **kwargs)
    except AgentSpecError as exc:
        fail(key, str(exc))


# ---------------------------------------------------------------------------- the SB3 backend


class TrainConfig(RunConfig):
    """One training run of the SB3 backend (MaskablePPO)."""

    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    reward_shaping: ShapingConfig = Field(default_factory=ShapingConfig)
    imitation: ImitationConfig = Field(default_factory=ImitationConfig)
    n_envs: Int = Field(1, ge=1, description="Parallel training envs.")
    vec_env: Literal["auto", "subproc", "dummy", "batched"] = Field(
        "auto",
        description="`subproc` (one process per env), `dummy` (all in this process), `auto` (subproc if "
        "n_envs > 1), or `batched`: all `n_envs` games in one batched engine in this process, the game's "
        "compiled engine with the opponents (compiled `random`/`greedy`/`heuristic` players, `self_play` snapshots, a "
        "PFSP league) played inside the batch; without numba the numpy engine and random opponents.",
        json_schema_extra=_rule("batched: a game with a batched engine and opponents it plays"),
    )
    start_method: Literal["auto", "fork", "forkserver", "spawn"] = Field(
        "auto",
        description="How the env workers start: `auto` is `forkserver` (each worker holds only its own pipe, so "
        "it ends with the learner).",
    )
    env_processes: Int | None = Field(
        None,
        description="With `vec_env: subproc`: how many worker processes run the envs, each stepping "
        "`n_envs / env_processes` of them in turn (`train/grouped_vec_env.py`); `null`: one process per env. "
        "The same weights either way.",
        json_schema_extra=_rule("1..n_envs, with vec_env: subproc"),
    )
    total_timesteps: Int = Field(100_000, ge=1, description="Learner decisions to train for.")
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint_every: Int = Field(50_000, ge=0, description="Steps between resumable checkpoints (0: only the final).")
    verbose: Int = Field(0, ge=0, le=2, description="SB3 verbosity (0 quiet, 1 progress tables, 2 debug).")
    curves: bool = Field(
        True,
        description="Draw `curves.png` (matplotlib) in the run directory at the end of every session; `false` "
        "for sweeps of many short runs (`python -m ice_envs.train.plot_curves RUN` draws it later).",
    )
    device: Literal["cpu", "cuda", "auto"] = Field(
        "cpu",
        description="Torch device of the learner: `cpu` (the reference results), `cuda`, or `auto` (CUDA when "
        "present, else the CPU); the resolved device is recorded in `meta.json`.",
    )

    def _check_backend(self) -> None:
        if self.env_processes is not None:
            require(
                1 <= self.env_processes <= self.n_envs,
                "env_processes",
                f"must be in 1..n_envs ({self.n_envs})",
                self.env_processes,
            )
            require(self.vec_env == "subproc", "env_processes", "needs vec_env: subproc", self.vec_env)
        self._check_opponents()
        p = self.ppo
        buffer = p.n_steps * self.n_envs
        require(buffer > 1, "ppo.n_steps", "n_steps * n_envs must be > 1", p.n_steps)
        require(1 < p.batch_size <= buffer, "ppo.batch_size", f"must be in 2..n_steps*n_envs ({buffer})", p.batch_size)
        self._check_shaping()
        self._check_imitation()
        self._check_batched()

    def _check_opponents(self) -> None:
        if self.opponents.mix.get("heuristic", 0) > 0:
            _load_agent("opponents.mix.heuristic", "heuristic", self.game.name)
        if self.opponents.league is not None:
            self._check_league(self.opponents.league)

    def _check_league(self, lg: LeagueConfig) -> None:
        from ice_envs.agents.spec import AgentSpecError, parse_agent_spec

        key = "opponents.league.fixed"
        require(bool(lg.fixed) or lg.initial_snapshot, key, "needs a member (or initial_snapshot)", lg.fixed)
        labels = []
        for i, spec in enumerate(lg.fixed):
            try:
                label = parse_agent_spec(spec).label
            except AgentSpecError as exc:
                fail(f"{key}[{i}]", str(exc))
            _load_agent(f"{key}[{i}]", spec, self.game.name, num_players=self.game.players)
            require("|" not in label, f"{key}[{i}]", "an agent spec may not contain '|'", spec)
            require(label not in labels, f"{key}[{i}]", "names a member twice", spec)
            labels.append(label)

    def _check_shaping(self) -> None:
        potential = self.reward_shaping.potential
        if potential is not None:
            known = sorted(get_spec(self.game.name).potentials)
            require(
                potential in known,
                "reward_shaping.potential",
                f"must be one of {known} for {self.game.name}",
                potential,
            )

    def _check_imitation(self) -> None:
        im = self.imitation
        if im.teacher is None:
            return
        _load_agent("imitation.teacher", im.teacher, self.game.name)
        if self.vec_env == "batched":
            require(
                im.workers is not None,
                "imitation.workers",
                "must be set with vec_env: batched (the processes the teacher's games are collected in)",
                im.workers,
            )
        workers = collection_workers(self)
        if im.holdout_steps > 0:  # held-out worker i: eval.seed + i; training worker i: seed + i
            require(
                self.eval.seed + workers <= VALIDATION_SEEDS.stop and self.seed + workers <= self.eval.seed,
                "imitation.holdout_steps",
                "needs the held-out worker seeds eval.seed + i (i < workers) inside the validation seeds "
                "[2**63, 2**63 + 2**40) and apart from the training collection's seed + i",
                im.holdout_steps,
            )
        if im.dagger_rounds > 0:  # round r's collection worker i: seed + r * workers + i
            require(
                self.seed + (im.dagger_rounds + 1) * workers <= min(self.eval.seed, TRAINING_SEEDS.stop),
                "imitation.dagger_rounds",
                "needs every round's collection seeds seed + round * workers + i inside the training seeds "
                "and below eval.seed",
                im.dagger_rounds,
            )

    def _check_batched(self) -> None:
        """``vec_env: batched`` needs a game with a batched engine and opponents that engine can play: with
        numba, the compiled engine and its players (``random``, ``heuristic``, ``self_play``); without, the
        numpy engine and random opponents."""
        if self.vec_env != "batched":
            return
        from ice_envs.core.vector import compiled_available

        spec = get_spec(self.game.name)
        kinds = sorted(k for k, w in self.opponents.mix.items() if w > 0)
        compiled = compiled_available() and spec.compiled is not None
        if compiled:
            from ice_envs.core.compiled_players import compiled_player_names

            have = compiled_player_names(self.game.name)
            playable = [k for k in kinds if k == "self_play" or k in have]
            require(
                playable == kinds,
                "opponents.mix",
                f"with vec_env: batched the opponents are self_play or compiled players ({', '.join(have)})",
                kinds,
            )
        else:
            engine = spec.vector is not None or spec.compiled is not None
            require(engine, "vec_env", "batched needs a game with a batched engine", self.vec_env)
            require(spec.vector is not None, "vec_env", "batched needs numba for this game (pip install numba)", "")
            require(
                kinds == ["random"],
                "opponents.mix",
                "without numba the batched opponents are random only (pip install numba)",
                kinds,
            )
        league = self.opponents.league
        if league is not None:
            require(compiled, "opponents.league", "with vec_env: batched needs numba (pip install numba)", "a league")
            from ice_envs.core.compiled_players import compiled_player_names

            have = compiled_player_names(self.game.name)
            bad = [m for m in league.fixed if m.lower() not in have and not m.lower().startswith("ppo:")]
            require(
                not bad,
                "opponents.league.fixed",
                f"with vec_env: batched the fixed members are compiled players ({', '.join(have)}) or ppo:PATH",
                bad,
            )
        potential = self.reward_shaping.potential
        require(
            potential is None or (compiled and potential in spec.batched_potentials),
            "reward_shaping.potential",
            "has no batched version for vec_env: batched",
            potential,
        )


def collection_workers(cfg: TrainConfig) -> int:
    """The processes the imitation warm start collects the teacher's games in (``imitation.workers``,
    or ``n_envs``)."""
    return cfg.imitation.workers if cfg.imitation.workers is not None else cfg.n_envs


# ---------------------------------------------------------------------------- the rllib backend (backend: rllib)


class RayConfig(Section):
    """Where Ray runs and how many env runners sample."""

    address: str | None = Field(
        None, description="`null`: start a local Ray; `auto` or `ray://HOST:10001`: join a running cluster."
    )
    num_cpus: Int | None = Field(
        2, ge=1, description="CPUs of the local Ray (ignored with an address: the cluster has its own)."
    )
    num_env_runners: Int = Field(0, ge=0, description="Remote env runners (0: the driver samples itself).")
    num_envs_per_env_runner: Int = Field(1, ge=1, description="Games each env runner steps in turn.")
    num_learners: Int = Field(
        0,
        ge=0,
        description="Remote learners, one CPU each, data-parallel (0: the driver learns); "
        "`ppo.train_batch_size` is per learner.",
    )

    @field_validator("address")
    @classmethod
    def _check_address(cls, address: str | None) -> str | None:
        require(address is None or bool(address.strip()), "", "must be null, 'auto' or a Ray address", address)
        return address


class RLlibPPOConfig(Section):
    """RLlib PPO hyper-parameters (``PPOConfig.training``)."""

    learning_rate: Float = Field(3e-4, gt=0, description="Adam step size.")
    gamma: Float = Field(0.99, gt=0, le=1, description="Discount.")
    lambda_: Float = Field(0.95, ge=0, le=1, description="GAE lambda.")
    clip_param: Float = Field(0.2, gt=0, description="PPO clip.")
    entropy_coeff: Float = Field(0.01, ge=0, description="Entropy bonus.")
    vf_loss_coeff: Float = Field(0.5, ge=0, description="Value loss weight.")
    grad_clip: Float | None = Field(0.5, gt=0, description="Gradient clipping (`null`: none).")
    train_batch_size: Int = Field(
        2000, ge=2, description="Steps per training iteration and learner (over every learning seat)."
    )
    minibatch_size: Int = Field(250, description="Minibatch size.", json_schema_extra=_rule("1..train_batch_size"))
    num_epochs: Int = Field(4, ge=1, description="Passes over each training batch.")

    @model_validator(mode="after")
    def _check_minibatch(self) -> RLlibPPOConfig:
        require(
            1 <= self.minibatch_size <= self.train_batch_size,
            "minibatch_size",
            f"must be in 1..train_batch_size ({self.train_batch_size})",
            self.minibatch_size,
        )
        return self


class ModelConfig(Section):
    """The RLModule's networks (RLlib's ``DefaultModelConfig``)."""

    hidden: list[Int] = Field(
        default_factory=lambda: [64, 64],
        description="Hidden layers of the encoder (actor and critic each have one unless `vf_share_layers`).",
        json_schema_extra=_rule("at least one layer, sizes >= 1"),
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="Activation of the hidden layers.")
    vf_share_layers: bool = Field(False, description="Actor and critic share one encoder.")

    @field_validator("hidden")
    @classmethod
    def _check_hidden(cls, hidden: list[int]) -> list[int]:
        require(bool(hidden), "", "needs at least one layer", hidden)
        _check_layers("", hidden)
        return hidden


class RLlibEvalConfig(Section):
    """The final evaluation: the trained policy against N-1 copies of each opponent kind."""

    games: Int = Field(400, ge=0, description="Games per opponent kind (0: no final evaluation).")
    against: list[str] = Field(
        default_factory=lambda: ["random"],
        description="Opponent kinds.",
        json_schema_extra=_rule(f"each one of {', '.join(RLLIB_EVAL_OPPONENTS)}, listed once"),
    )
    seed: Int = Field(
        DEFAULT_VALIDATION_SEED,
        description="First deal seed, in the validation seeds (as `eval.seed` of the SB3 backend).",
        json_schema_extra=_rule("seed..seed+games in [2**63, 2**63 + 2**40)"),
    )
    workers: Int = Field(1, ge=1, description="Processes of the evaluation.")

    @field_validator("against")
    @classmethod
    def _check_against(cls, against: list[str]) -> list[str]:
        return _checked_kinds(against, RLLIB_EVAL_OPPONENTS)

    @model_validator(mode="after")
    def _check_seed(self) -> RLlibEvalConfig:
        _check_validation_seed(self.seed, self.games)
        return self


class RLlibTrainConfig(RunConfig):
    """One RLlib training run (``backend: rllib``)."""

    backend: Literal["rllib"] = Field("rllib", description="The training backend (`sb3`: the default, MaskablePPO).")
    opponents: list[str] = Field(
        default_factory=list,
        description="Agent specs of fixed, non-learning seats (the other seats learn).",
        json_schema_extra=_rule("agents of this game; at least one learning seat left"),
    )
    max_decisions: Int | None = Field(
        None, ge=1, description="Cap of each training game's length (`null`: the game's own cap)."
    )
    ray: RayConfig = Field(default_factory=RayConfig)
    ppo: RLlibPPOConfig = Field(default_factory=RLlibPPOConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    iterations: Int = Field(10, ge=1, description="Training iterations (`algo.train()` calls).")
    total_timesteps: Int | None = Field(
        None, ge=1, description="Also stop once this many env steps are sampled (`null`: iterations only)."
    )
    checkpoint_every: Int = Field(0, ge=0, description="Iterations between checkpoints (0: only the final one).")
    eval: RLlibEvalConfig = Field(default_factory=RLlibEvalConfig)

    def _check_backend(self) -> None:
        g = self.game
        require(g.learner_seat is None, "game.learner_seat", "is not used by the rllib backend", g.learner_seat)
        n = g.players
        require(len(self.opponents) < n, "opponents", f"must leave at least one learning seat of {n}", self.opponents)
        for i, spec in enumerate(self.opponents):
            _load_agent(f"opponents[{i}]", spec, g.name, num_players=n)

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
        """Plain data, ``backend`` first (what a run's ``config.yaml`` holds)."""
        data = self.model_dump()
        return {"backend": data.pop("backend"), **data}
