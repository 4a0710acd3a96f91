"""Throughput of every game under random legal play, side by side with the floor env and the peers.

    python -m ice_envs.benchmarks.throughput [--games cardiceo cubemelt] [--seconds 2] [--out DIR]
                                    [--no-peers] [--no-memory] [--eval-scaling-games 400]
                                    [--paired-rounds 6]

One run measures, under identical random-legal-action loops (:mod:`benchmarks.random_play`:
``env.last()``, pick uniformly from the ``action_mask``, ``env.step``):

* every ice-envs game at every player count (default variant; ``--all-variants`` for all),
  through ``env()`` (PettingZoo wrappers) and ``raw_env()``;
* the floor env (2 agents, one action, 100 decisions, the same base class and wrappers):
  the pure API overhead;
* the peers (:mod:`benchmarks.peers`, ``pip install "ice-envs[bench]"``): PettingZoo classic
  ``connect_four_v3`` and ``texas_holdem_v4`` through the same loop, and OpenSpiel's C++
  ``gin_rummy`` with its observation tensor and legal-action mask built at every decision.

With ``--batched``, the games with a batched engine (:mod:`ice_envs.core.vector`: Cardiceo and
CubeMelt) are also measured through it at batch sizes 1, 64, 1024 and 8192 (random legal actions
chosen vectorised, :func:`ice_envs.core.vector.random_actions`, inside the timed loop), next to
the ``raw_env()`` loop of the same configuration measured in the same run, with the bytes of
state arrays per game and the target: at batch 1024, decisions/s at least 10x ``raw_env()``.

Because one gin_rummy figure, taken minutes away from a game's, moves with the machine (10-28%
between idle runs here), each game's ``raw_env()`` is also measured against gin_rummy in
``--paired-rounds`` pairs of back-to-back slices (default 6; which side goes first alternates,
every round plays fresh deals), and the gin_rummy target is judged by the median of those ratios.

It reports decision steps/s, games/s, decisions per game, reset cost, memory per live
instance and Python-heap peak (:mod:`benchmarks.memory`), the ratios to the floor env and to
gin_rummy, the performance targets (met or missed, and by how much), and the games/s of
``ice-envs evaluate`` with 1 and 2 workers. Everything runs in one process, so every figure
is per core. Results are printed and written as JSON and Markdown. It is a benchmark, not a
test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.benchmarks import memory, peers
from ice_envs.benchmarks.random_play import play_aec, timed_games
from ice_envs.core import floor

DEFAULT_OUT = Path("benchmarks/results")
#: Games whose raw_env target is three times gin_rummy's rate.
DICE_GAMES = ("cardiceo", "cubemelt")
#: Through env(), every game at least this share of the floor env's rate.
ENV_FLOOR_SHARE = 0.5
#: Evaluation games/s on 2 workers at least this multiple of 1 worker.
EVAL_SCALING_TARGET = 1.8
#: Batch sizes of the batched-engine measurement.
BATCH_SIZES = (1, 64, 1024, 8192)
#: At this batch size the batched engine's decisions/s must be at least BATCHED_TARGET x raw_env()'s.
BATCHED_TARGET_BATCH = 1024
BATCHED_TARGET = 10.0
#: Seed offset between the rounds of the paired measurement (each round plays fresh deals).
PAIRED_SEED_STRIDE = 100_003


@dataclass
class Measurement:
    """One env configuration measured through one API layer."""

    game: str
    variant: str
    players: int
    api: str  # "env" (wrapped), "raw_env", or "openspiel" for the C++ peer
    steps_per_s: float
    games_per_s: float
    decisions_per_game: float
    reset_ms: float
    games: int
    seconds: float
    kib_per_instance: float = float("nan")
    heap_peak_kib: float = float("nan")
    ratio_to_floor: float = float("nan")
    ratio_to_gin_rummy: float = float("nan")
    peer: bool = False


def measure(make: Callable[[], Any], seconds: float, seed: int = 0, min_games: int = 1) -> dict[str, float]:
    """Play random legal games of a fresh ``make()`` for about ``seconds``; return rates and counts."""
    env = make()
    rng = np.random.default_rng(seed)

    def new_game(i: int) -> Any:
        env.reset(seed=seed + i)
        return env

    return timed_games(new_game, lambda e: play_aec(e, rng), seconds, min_games)


@dataclass
class PairedRatio:
    """``raw_env()`` of one configuration against gin_rummy, measured in alternating slices of one run.

    A single gin_rummy figure per run, taken minutes away from the game's, moves with the machine
    (10-28% between idle runs of this 2-core machine); measured back to back, slice by slice, both
    sides see the same machine, and the median of the per-round ratios is the figure the target uses.
    """

    game: str
    variant: str
    players: int
    seconds_per_slice: float
    #: per round: the game's decisions/s, gin_rummy's decisions/s
    rates: list[tuple[float, float]]

    @property
    def ratios(self) -> list[float]:
        return [mine / gin for mine, gin in self.rates]

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)


def paired_ratio(
    make: Callable[[], Any], player: Any, seconds: float, rounds: int, seed: int = 0
) -> list[tuple[float, float]]:
    """``rounds`` pairs of back-to-back slices of ``seconds`` each: the ``raw_env`` loop of ``make()`` and
    OpenSpiel's gin_rummy (``player``). Returns (game's decisions/s, gin_rummy's) per round (see
    :func:`alternate`)."""
    return alternate(
        lambda s: measure(make, seconds, s)["steps_per_s"],
        lambda s: peers.measure_openspiel(player, seconds, s)["steps_per_s"],
        rounds,
        seed,
    )


def alternate(
    mine: Callable[[int], float], peer: Callable[[int], float], rounds: int, seed: int = 0
) -> list[tuple[float, float]]:
    """``(mine(s), peer(s))`` for ``rounds`` rounds, round ``r`` on deals from ``s = seed + r *
    PAIRED_SEED_STRIDE``; ``mine`` goes first in even rounds, ``peer`` in odd ones, so that neither side
    always runs on the warmer or the cooler machine."""
    out = []
    for r in range(rounds):
        round_seed = seed + r * PAIRED_SEED_STRIDE
        if r % 2:
            theirs = peer(round_seed)
            ours = mine(round_seed)
        else:
            ours = mine(round_seed)
            theirs = peer(round_seed)
        out.append((ours, theirs))
    return out


def paired_rows(
    games: list[str], player: Any, seconds: float, rounds: int, all_variants: bool = False, seed: int = 0
) -> list[PairedRatio]:
    """:func:`paired_ratio` of every requested game's ``raw_env()`` at every player count."""
    rows = []
    for name, vname, n, module, options in measured_cases(games, all_variants):
        make = lambda f=module.raw_env, k=n, o=options: f(num_players=k, **o)  # noqa: E731
        rows.append(PairedRatio(name, vname, n, seconds, paired_ratio(make, player, seconds, rounds, seed)))
    return rows


def measured_cases(games: list[str], all_variants: bool = False) -> Iterator[tuple[str, str, int, Any, dict]]:
    """(game, variant, players, env module, options) of every configuration measured: each game's
    registered cases, the default variant only unless ``all_variants``."""
    for name in games:
        spec = ice_envs.get_spec(name)
        module = spec.load()
        for vname, n, options in spec.cases():
            if vname == "default" or all_variants:
                yield name, vname, n, module, options


def paired_markdown(rows: list[PairedRatio]) -> str:
    """The paired table: per configuration, the median ratio and the range over the rounds."""
    lines = [
        "| env | variant | players | rounds x seconds | raw_env decisions/s (median) | gin_rummy decisions/s (median) "
        "| x gin_rummy: median | min | max |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratios = r.ratios
        mine = statistics.median(m for m, _ in r.rates)
        gin = statistics.median(g for _, g in r.rates)
        lines.append(
            f"| {r.game} | {r.variant} | {r.players} | {len(r.rates)} x {r.seconds_per_slice:.3g} | {mine:,.0f} | "
            f"{gin:,.0f} | {r.median:.2f} | {min(ratios):.2f} | {max(ratios):.2f} |"
        )
    return "\n".join(lines) + "\n"


@dataclass
class BatchedMeasurement:
    """One batched engine configuration at one batch size, next to raw_env() of the same configuration."""

    game: str
    variant: str
    players: int
    batch: int
    steps_per_s: float  # decisions per second over all games of the batch
    games_per_s: float
    ms_per_step: float
    bytes_per_game: float
    steps: int
    seconds: float
    raw_env_steps_per_s: float = float("nan")

    @property
    def ratio_to_raw_env(self) -> float:
        return self.steps_per_s / self.raw_env_steps_per_s


def measure_batched(
    game: str, players: int, options: dict[str, Any], batch: int, seconds: float, seed: int = 0, min_steps: int = 5
) -> dict[str, float]:
    """Random legal play of ``batch`` games through the game's batched engine for about ``seconds``.

    One call of the loop: pick a random legal action per game from the mask (vectorised) and
    ``step``; finished games restart inside ``step``. Decisions/s count every game's decision.
    """
    from ice_envs.core.vector import make as make_batched
    from ice_envs.core.vector import random_actions

    engine = make_batched(game, batch, players, seed=seed, copy=False, **options)
    rng = np.random.default_rng(seed)
    _, mask, _ = engine.reset()
    for _ in range(2):  # warm-up
        _, mask, _, _, _, _, _ = engine.step(random_actions(mask, rng))
    steps = games = 0
    t0 = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds or steps < min_steps:
        _, mask, _, _, _, _, info = engine.step(random_actions(mask, rng))
        steps += 1
        games += int(info["final_index"].size)
        elapsed = time.perf_counter() - t0
    return {
        "steps_per_s": steps * batch / elapsed,
        "games_per_s": games / elapsed,
        "ms_per_step": 1e3 * elapsed / steps,
        "bytes_per_game": engine.bytes_per_game,
        "steps": steps,
        "seconds": elapsed,
    }


def batched_rows(
    games: list[str],
    seconds: float,
    seed: int = 0,
    batch_sizes: tuple[int, ...] = BATCH_SIZES,
    all_players: bool = True,
) -> list[BatchedMeasurement]:
    """The batched engine of every game in ``games`` that has one, at each batch size, with raw_env() of the
    same configuration measured in the same run (default variant; every player count, or the smallest)."""
    rows = []
    for name in games:
        spec = ice_envs.get_spec(name)
        if not spec.vector:
            continue
        module = spec.load()
        options = dict(spec.variants["default"].options)
        for n in spec.players if all_players else spec.players[:1]:
            factory = lambda f=module.raw_env, k=n, o=options: f(num_players=k, **o)  # noqa: E731
            raw = measure(factory, seconds, seed)["steps_per_s"]
            for batch in batch_sizes:
                rates = measure_batched(name, n, options, batch, seconds, seed)
                rows.append(BatchedMeasurement(name, "default", n, batch, **rates, raw_env_steps_per_s=raw))
    return rows


def batched_targets(rows: list[BatchedMeasurement]) -> list[Target]:
    """Per game, at batch BATCHED_TARGET_BATCH: decisions/s >= BATCHED_TARGET x raw_env(), at the worst player count."""
    out = []
    for name in dict.fromkeys(r.game for r in rows):
        mine = [r for r in rows if r.game == name and r.batch == BATCHED_TARGET_BATCH]
        if mine:
            label = f"batched @ {BATCHED_TARGET_BATCH} >= {BATCHED_TARGET:g}x raw_env"
            out.append(Target.at_worst(name, label, BATCHED_TARGET, mine, lambda r: r.ratio_to_raw_env))
    return out


def batched_markdown(rows: list[BatchedMeasurement], goals: list[Target]) -> str:
    """The batched-engine table (and its targets) as Markdown."""
    lines = [
        "| game | players | batch | decisions/s | games/s | ms per step | state bytes per game "
        "| raw_env decisions/s (same run) | x raw_env |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.game} | {r.players} | {r.batch} | {r.steps_per_s:,.0f} | {r.games_per_s:,.1f} | {r.ms_per_step:.3f} | "
            f"{r.bytes_per_game:,.0f} | {r.raw_env_steps_per_s:,.0f} | {r.ratio_to_raw_env:.1f} |"
        )
    if goals:
        lines += ["", "| game | target | required | measured (worst player count) | met |", "|---|---|---:|---:|---|"]
        for t in goals:
            lines.append(
                f"| {t.game} | {t.target} | {t.required:.1f} | {t.measured:.1f} ({t.worst_players}p) | "
                f"{'yes' if t.met else '**no**'} |"
            )
    return "\n".join(lines) + "\n"


def aec_instance(make: Callable[[], Any]) -> memory.InstanceFactory:
    """An instance factory for :mod:`benchmarks.memory`: an AEC env reset and played ``decisions``."""

    def build(rng: np.random.Generator, decisions: int) -> Any:
        env = make()
        env.reset(seed=int(rng.integers(2**31)))
        play_aec(env, rng, max_decisions=decisions)
        return env

    return build


def memory_figures(build: memory.InstanceFactory, python_heap: bool = True) -> dict[str, float]:
    figures = {"kib_per_instance": memory.memory_per_instance(build)}
    if python_heap:
        figures["heap_peak_kib"] = memory.python_heap_peak(build)
    return figures


def machine_info() -> dict[str, str]:
    """Where the numbers were measured."""
    import os

    import gymnasium
    import pettingzoo

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "gymnasium": gymnasium.__version__,
        "ice_envs": ice_envs.__version__,
    }


def _aec_rows(
    name: str, variant: str, n: int, factories: dict[str, Callable[[], Any]], seconds: float, seed: int, mem: bool
) -> list[Measurement]:
    rows = []
    for api, make in factories.items():
        rates = measure(make, seconds, seed)
        figures = memory_figures(aec_instance(make)) if mem else {}
        rows.append(Measurement(name, variant, n, api, **rates, **figures))
    return rows


def run(
    games: list[str],
    seconds: float,
    all_variants: bool = False,
    seed: int = 0,
    with_peers: bool = True,
    with_memory: bool = True,
    openspiel: tuple[peers.OpenSpielRandomPlay | None, str] | None = None,
) -> tuple[list[Measurement], list[str]]:
    """Measure the floor env, every requested game and the peers; returns (rows, skipped peers).

    ``openspiel``: what :func:`peers.openspiel_peer` returned, if the caller built it already
    (the paired measurement plays the same player); built here otherwise."""
    rows = _aec_rows("floor", "default", 2, {"env": floor.env, "raw_env": floor.raw_env}, seconds, seed, with_memory)
    for name, vname, n, module, options in measured_cases(games, all_variants):
        factories = {
            api: (lambda f=factory, o=options, k=n: f(num_players=k, **o))
            for api, factory in (("env", module.env), ("raw_env", module.raw_env))
        }
        rows += _aec_rows(name, vname, n, factories, seconds, seed, with_memory)
    skipped: list[str] = []
    if with_peers:
        for label in peers.PETTINGZOO_PEERS:
            module, why = peers.pettingzoo_peer(label)
            if module is None:
                skipped.append(why)
                continue
            peer_rows = _aec_rows(
                label, "pettingzoo", 2, {"env": module.env, "raw_env": module.raw_env}, seconds, seed, with_memory
            )
            rows += [_as_peer(r) for r in peer_rows]
        player, why = peers.openspiel_peer() if openspiel is None else openspiel
        if player is None:
            skipped.append(why)
        else:
            rates = peers.measure_openspiel(player, seconds, seed)
            figures = (
                {"kib_per_instance": memory.memory_per_instance(peers.openspiel_instance(player))}
                if with_memory
                else {}
            )
            rows.append(_as_peer(Measurement(peers.OPENSPIEL_GAME, "openspiel", 2, "openspiel", **rates, **figures)))
    add_ratios(rows)
    return rows, skipped


def _as_peer(row: Measurement) -> Measurement:
    row.peer = True
    return row


def gin_rummy_rate(rows: list[Measurement]) -> float | None:
    return next((r.steps_per_s for r in rows if r.api == "openspiel"), None)


def add_ratios(rows: list[Measurement]) -> None:
    """Fill each row's ratio to the floor env (same API layer) and to OpenSpiel's gin_rummy."""
    floor_rates = {r.api: r.steps_per_s for r in rows if r.game == "floor"}
    gin = gin_rummy_rate(rows)
    for r in rows:
        if r.api in floor_rates:
            r.ratio_to_floor = r.steps_per_s / floor_rates[r.api]
        if gin:
            r.ratio_to_gin_rummy = r.steps_per_s / gin


@dataclass
class Target:
    """One performance target of one game, at its slowest player count."""

    game: str
    target: str
    required: float
    measured: float
    worst_players: int

    @property
    def met(self) -> bool:
        return self.measured >= self.required

    @property
    def shortfall(self) -> float:
        """How many times faster the game must get to meet the target (1.0 when met)."""
        return max(1.0, self.required / self.measured) if self.measured > 0 else math.inf

    @classmethod
    def at_worst(
        cls, game: str, target: str, required: float, rows: list[Any], ratio: Callable[[Any], float]
    ) -> Target:
        """The target measured at the row (player count) where ``ratio`` is lowest."""
        worst = min(rows, key=ratio)
        return cls(game, target, required, ratio(worst), worst.players)


def targets(rows: list[Measurement], games: list[str], paired: list[PairedRatio] | None = None) -> list[Target]:
    """The raw_env-vs-gin_rummy and env-vs-floor targets of every measured game; with ``paired`` rows of a
    game, its gin_rummy target is their median ratio (at the player count where it is lowest)."""
    out = []
    gin = gin_rummy_rate(rows)
    floor_env = next((r.steps_per_s for r in rows if r.game == "floor" and r.api == "env"), None)
    for name in games:
        mine = [r for r in rows if r.game == name and not r.peer]
        raw = [r for r in mine if r.api == "raw_env"]
        env = [r for r in mine if r.api == "env"]
        pairs = [p for p in paired or () if p.game == name]
        factor = 3.0 if name in DICE_GAMES else 1.0
        if pairs:
            label = f"raw_env >= {factor:g}x gin_rummy (paired median)"
            out.append(Target.at_worst(name, label, factor, pairs, lambda p: p.median))
        elif gin and raw:
            label = f"raw_env >= {factor:g}x gin_rummy"
            out.append(Target.at_worst(name, label, factor, raw, lambda r: r.ratio_to_gin_rummy))
        if floor_env and env:
            label = f"env >= {ENV_FLOOR_SHARE:g}x floor env"
            out.append(Target.at_worst(name, label, ENV_FLOOR_SHARE, env, lambda r: r.ratio_to_floor))
    return out


def eval_scaling(games: int, game: str = "cardiceo", players: int = 4, seed: int = 0) -> dict[str, float]:
    """Games/s of the evaluation tournament (random agents) with 1 and with 2 worker processes."""
    from ice_envs.evaluation.tournament import evaluate

    rates = {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        evaluate(game, players, ",".join(["random"] * players), games, seed, workers=workers, progress=False)
        rates[workers] = games / (time.perf_counter() - t0)
    return {
        "game": game,
        "players": players,
        "games": games,
        "games_per_s_1_worker": rates[1],
        "games_per_s_2_workers": rates[2],
        "scaling": rates[2] / rates[1],
    }


def _fmt(value: float, spec: str) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def to_markdown(
    rows: list[Measurement],
    info: dict[str, str],
    command: str,
    goals: list[Target] | None = None,
    scaling: dict[str, float] | None = None,
    skipped: list[str] | None = None,
) -> str:
    """The Markdown report: machine, throughput table, targets and evaluation scaling."""
    lines = [
        f"Command: `{command}`",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in info.items()),
        "",
        "| env | variant | players | API | decision steps/s | games/s | decisions/game | reset ms "
        "| KiB per live instance | Python heap peak KiB | x floor | x gin_rummy |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        name = f"{r.game} (peer)" if r.peer else r.game
        lines.append(
            f"| {name} | {r.variant} | {r.players} | {r.api} | {r.steps_per_s:,.0f} | {r.games_per_s:,.1f} | "
            f"{r.decisions_per_game:,.1f} | {r.reset_ms:.3f} | {_fmt(r.kib_per_instance, ',.1f')} | "
            f"{_fmt(r.heap_peak_kib, ',.0f')} | {_fmt(r.ratio_to_floor, '.2f')} | {_fmt(r.ratio_to_gin_rummy, '.2f')} |"
        )
    if skipped:
        lines += ["", "Peers not measured: " + "; ".join(skipped)]
    if goals:
        lines += [
            "",
            "| game | target | required | measured (slowest player count) | met | must get faster by |",
            "|---|---|---:|---:|---|---:|",
        ]
        for t in goals:
            lines.append(
                f"| {t.game} | {t.target} | {t.required:.2f} | {t.measured:.2f} ({t.worst_players}p) | "
                f"{'yes' if t.met else '**no**'} | {'' if t.met else f'{t.shortfall:.2f}x'} |"
            )
    if scaling:
        met = "yes" if scaling["scaling"] >= EVAL_SCALING_TARGET else "**no**"
        lines += [
            "",
            f"Evaluation scaling ({scaling['games']} games of {scaling['game']}, {scaling['players']} random agents): "
            f"{scaling['games_per_s_1_worker']:.1f} games/s on 1 worker, {scaling['games_per_s_2_workers']:.1f} "
            f"on 2 workers: {scaling['scaling']:.2f}x (target {EVAL_SCALING_TARGET}x: {met}).",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ice_envs.benchmarks.throughput", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--games", nargs="*", default=None, help="games to measure (default: all registered)")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per configuration and API (default 2)")
    parser.add_argument("--all-variants", action="store_true", help="measure every variant, not only the default")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-peers", action="store_true", help="skip PettingZoo classic and OpenSpiel")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory figures")
    parser.add_argument(
        "--eval-scaling-games",
        type=int,
        default=0,
        help="also time `ice-envs evaluate` (Cardiceo, 4 random agents) on 1 and 2 workers with this many games",
    )
    parser.add_argument(
        "--batched",
        action="store_true",
        help="also measure the batched engines (Cardiceo, CubeMelt) at batch sizes 1, 64, 1024, 8192 next to raw_env",
    )
    parser.add_argument(
        "--batched-only", action="store_true", help="measure only the batched engines and their raw_env loops"
    )
    parser.add_argument(
        "--paired-rounds",
        type=int,
        default=6,
        help="also measure each game's raw_env against gin_rummy in this many pairs of alternating slices "
        "(seconds / rounds each side) and judge the gin_rummy target by their median ratio; 0: off (default 6)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for throughput.json / .md")
    args = parser.parse_args(argv)
    if args.paired_rounds < 0:  # refused before anything is measured
        parser.error(f"--paired-rounds must be 0 or more, got {args.paired_rounds}")
    games = args.games or list(ice_envs.GAMES)
    for g in games:
        ice_envs.get_spec(g)  # clear error for an unknown game before measuring anything
    info = machine_info()
    command = "python -m ice_envs.benchmarks.throughput " + " ".join(argv if argv is not None else sys.argv[1:])
    batched: list[BatchedMeasurement] = []
    if args.batched or args.batched_only:
        batched = batched_rows(games, args.seconds, args.seed)
    if args.batched_only:
        return _write_batched(args.out, info, command.strip(), batched)
    openspiel = None if args.no_peers else peers.openspiel_peer()
    rows, skipped = run(
        games, args.seconds, args.all_variants, args.seed, not args.no_peers, not args.no_memory, openspiel
    )
    paired: list[PairedRatio] = []
    player = openspiel[0] if args.paired_rounds and openspiel is not None else None
    if player is not None:
        paired = paired_rows(
            games, player, args.seconds / args.paired_rounds, args.paired_rounds, args.all_variants, args.seed
        )
    goals = targets(rows, games, paired)
    scaling = eval_scaling(args.eval_scaling_games, seed=args.seed) if args.eval_scaling_games > 0 else None
    markdown = to_markdown(rows, info, command.strip(), goals, scaling, skipped)
    if paired:
        markdown += (
            f"\nraw_env against gin_rummy in {args.paired_rounds} pairs of alternating slices (each side "
            f"{paired[0].seconds_per_slice:.3g} s a slice, fresh deals each round; the targets above use the "
            "median):\n\n" + paired_markdown(paired)
        )
    if batched:
        markdown += "\nBatched engines (`ice_envs.vector`):\n\n" + batched_markdown(batched, batched_targets(batched))
    print(markdown)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {
        "machine": info,
        "command": command.strip(),
        "results": [asdict(r) for r in rows],
        "targets": [{**asdict(t), "met": t.met, "shortfall": t.shortfall} for t in goals],
        "eval_scaling": scaling,
        "paired": [{**asdict(p), "ratios": p.ratios, "median": p.median} for p in paired],
        "skipped_peers": skipped,
        "batched": _batched_json(batched),
    }
    (args.out / "throughput.json").write_text(json.dumps(report, indent=2))
    (args.out / "throughput.md").write_text(markdown)
    print(f"wrote {args.out / 'throughput.json'} and {args.out / 'throughput.md'}")
    return 0


def _batched_json(rows: list[BatchedMeasurement]) -> dict[str, Any]:
    goals = batched_targets(rows)
    return {
        "results": [{**asdict(r), "ratio_to_raw_env": r.ratio_to_raw_env} for r in rows],
        "targets": [{**asdict(t), "met": t.met} for t in goals],
    }


def _write_batched(out: Path, info: dict[str, str], command: str, rows: list[BatchedMeasurement]) -> int:
    markdown = (
        f"Command: `{command}`\n\nMachine: "
        + ", ".join(f"{k} {v}" for k, v in info.items())
        + "\n\n"
        + batched_markdown(rows, batched_targets(rows))
    )
    print(markdown)
    out.mkdir(parents=True, exist_ok=True)
    report = {"machine": info, "command": command, "batched": _batched_json(rows)}
    (out / "throughput_batched.json").write_text(json.dumps(report, indent=2))
    (out / "throughput_batched.md").write_text(markdown)
    print(f"wrote {out / 'throughput_batched.json'} and {out / 'throughput_batched.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
