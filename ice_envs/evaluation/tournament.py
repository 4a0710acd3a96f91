"""Tournaments between agents, with confidence intervals and ratings.

    ice-envs evaluate GAME --players N --agents heuristic,random,random --games 2000 --seed 0 [--workers K]
    ice-envs evaluate ... --backend ray [--address ADDR]     (games as Ray tasks: ice_envs.evaluation.ray_backend)

Game ``i`` is dealt from seed ``seed + i // N`` and the agent list is rotated by
``i % N`` seats, so every agent plays every seat equally often and every rotation of a
deal is played: two agent lists evaluated with the same seed meet the same deals. Each
agent's own random generator is seeded from ``(seed, i, agent index)``, so the numbers do
not depend on the number of worker processes, nor on whether they run on Ray.

Per agent entry it reports the win rate with a 95% Wilson interval (a shared win counts
as a win for each winner; a game with no winner counts for nobody), the mean score and
mean rank with 95% bootstrap intervals, and an openskill Plackett-Luce rating over all
games; it writes ``evaluation.json``, ``evaluation.md`` and ``evaluation.png``.
``--record K`` also keeps games 0..K-1 as game records (JSON lines) in ``OUT/records/``,
for ``ice-envs replay``.

Every game ends by the env's own rules: the game's end or its maximum length
(``max_decisions``, default the game's declared cap, ``--max-decisions`` on the command
line). A game stopped at the cap is *truncated*: it has no winner (``win_shares()`` is all
zero), and the summary counts it (``truncated_games``, and ``truncated`` per agent entry).

Chance and engine (``--chance``, ``--engine``): with ``numpy`` chance (the default) each game is dealt
by the env's own generator as above. With ``splitmix`` chance a game is the compiled engine's deal for
its deal seed, its chance and the agents' own generators continue SplitMix64 streams, and each seat
re-deals its views from its own generator; ``--engine batched`` plays those games many at once on the
compiled engine (:mod:`ice_envs.evaluation.batched`) with the scalar engine's results, game by game.
``--engine auto`` plays batched wherever that gives the scalar path's results (splitmix chance, the pack's own
agents: :func:`engine_for`) and scalar otherwise, with a one-line note on stderr naming what kept a table scalar.
Splitmix games are other deals than numpy games of the same seeds; the summary says ``chance``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.agents.spec import AgentSpec, is_agent, load_agent, parse_agent_list, parse_agent_spec
from ice_envs.core.agent import Agent, make_view
from ice_envs.core.errors import AgentSpecError, OptionError
from ice_envs.core.progress import progress_bar
from ice_envs.core.threads import one_blas_thread
from ice_envs.evaluation.matches import (
    CHANCES,
    ENGINES,
    PACK_KINDS,
    Match,
    ViewGenerators,
    batched_blocker,
    env_options,
    game_result,
    reset_agent,
    seat_of,
)
from ice_envs.evaluation.record import GameRecorder, take
from ice_envs.evaluation.stats import bootstrap_interval, wilson_interval

__all__ = [
    "CHANCES",
    "ENGINES",
    "GamesFailedError",
    "Match",
    "agent_entries",
    "batched_plays",
    "check_engine",
    "checked_agents",
    "engine_for",
    "entry_label",
    "env_options",
    "evaluate",
    "fallback_note",
    "play_game",
    "run_games",
    "seat_of",
    "summarise",
]


def play_game(match: Match, game_index: int, agents: list[Any] | None = None) -> dict[str, Any]:
    """Play game ``game_index`` of ``match``; returns per-agent-entry results."""
    n = match.num_players
    if agents is None:
        agents = [load_agent(spec, match.game, num_players=n) for spec in match.agents]
    options = env_options(match)
    env = ice_envs.make(match.game, num_players=n, **options)
    deal_seed = match.seed + game_index // n
    seat_to_agent = {seat_of(k, game_index, n): k for k in range(n)}
    splitmix = match.chance == "splitmix"
    if splitmix:
        from ice_envs.evaluation.batched import start_dealt

        start_dealt(env, match, deal_seed)
    else:
        env.reset(seed=deal_seed)
    for k, agent in enumerate(agents):
        reset_agent(agent, match, game_index, k)
    view_rngs = ViewGenerators(match, game_index)
    recorder = None
    if game_index < match.record_games and match.record_dir is not None:
        labels = [entry_label(match.agents[seat_to_agent[s]]) for s in range(n)]
        recorder = GameRecorder(match.game, n, options, deal_seed, labels)
    totals = np.zeros(n)
    decisions = 0
    truncated = False
    raw = env.unwrapped
    cap = int(raw.max_game_length)
    for agent_name in env.agent_iter():
        _, reward, term, trunc, _ = env.last(observe=False)
        seat = raw.possible_agents.index(agent_name)
        totals[seat] += reward
        truncated = truncated or bool(trunc)
        if term or trunc:
            env.step(None)
            continue
        agent = agents[seat_to_agent[seat]]
        # agents that read only the mask are spared the cost of encoding the observation
        obs = (
            env.observe(agent_name) if getattr(agent, "needs_observation", True) else {"action_mask": raw.action_mask()}
        )
        view = make_view(env, seat, view_rngs.of(seat)) if agent.needs_view else None
        action = int(agent.act(obs, view))
        take(env, action, recorder)
        decisions += 1
        if decisions > cap:  # the env truncates at its cap; going past it is a bug of the env
            raise RuntimeError(f"{match.game}: game {game_index} did not end within its cap of {cap} decisions")
    if recorder is not None:
        recorder.finish(env)
        recorder.save(Path(match.record_dir) / f"game_{game_index:05d}.jsonl")
    return game_result(match, game_index, decisions, truncated, cap, totals, raw.scores(), raw.win_shares())


def _play_batch(args: tuple[Match, list[int]]) -> list[dict[str, Any]]:
    match, indices = args
    if batched_plays(match):
        from ice_envs.evaluation.batched import play_games_batched

        return play_games_batched(match, indices)
    with one_blas_thread():  # PPO agents' one-observation products (ice_envs.core.threads)
        agents = [load_agent(spec, match.game, num_players=match.num_players) for spec in match.agents]
        return [play_game(match, i, agents) for i in indices]


def engine_for(match: Match) -> tuple[str, str | None]:
    """The engine that plays ``match``'s games, ``scalar`` or ``batched``, and why ``batched``/``auto`` gave way
    to ``scalar`` (``None`` where it did not, or where the scalar engine was asked for).

    * ``engine="scalar"``, or ``numpy`` chance (``auto`` then plays the scalar path's own games): scalar.
    * Score rewards (``reward_mode="score"``): scalar. Their per-seat totals are float sums grouped by the
      seat's turns on the scalar path, a grouping the engine's in-engine turns do not keep.
    * ``engine="auto"`` with an agent entry outside :data:`~ice_envs.evaluation.matches.PACK_KINDS`
      (``python:``, ``rllib:``, an Agent object): scalar, naming it. Such an agent may carry state from one
      game to the next (the scalar path plays every game with one object), which the batched engine's
      copy per game would not keep. ``engine="batched"`` plays it anyway, as asked.
    * Otherwise batched: the same games, result for result.
    """
    if match.engine == "scalar" or match.chance != "splitmix":
        return "scalar", None
    if env_options(match).get("reward_mode", "outcome") == "score":
        return "scalar", "reward_mode=score (its reward totals are summed turn by turn)"
    if match.engine == "auto":
        blocker = batched_blocker(match.agents)
        if blocker is not None:
            return "scalar", f"agent {entry_label(blocker)!r} is not one of the pack's agents ({', '.join(PACK_KINDS)})"
    return "batched", None


def batched_plays(match: Match) -> bool:
    """Whether ``match``'s games are played on the compiled engine (:func:`engine_for`)."""
    return engine_for(match)[0] == "batched"


def fallback_note(match: Match) -> str | None:
    """The one line that says why ``match``'s games are played on the scalar path though ``batched`` or
    ``auto`` was asked with ``splitmix`` chance (:func:`engine_for`); ``None`` where nothing gave way."""
    why = engine_for(match)[1]
    if why is None:
        return None
    agents = ",".join(entry_label(a) for a in match.agents)
    return f"note: {match.game} {agents}: played on the scalar engine, not batched: {why}; the results are the same"


def check_engine(engine: str, chance: str | None) -> str:
    """The chance mode of ``engine`` and ``chance`` (``None``: the engine's default); an :class:`OptionError`
    names a bad pair: ``engine`` is ``scalar``, ``batched`` or ``auto``, ``chance`` ``numpy`` or ``splitmix``,
    and the batched engine plays splitmix chance only. ``auto``'s default chance is ``numpy`` (it then plays
    the scalar path); with ``splitmix`` it plays batched (:func:`engine_for`)."""
    if engine not in ENGINES:
        raise OptionError(f"--engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if chance is None:
        return "splitmix" if engine == "batched" else "numpy"
    if chance not in CHANCES:
        raise OptionError(f"--chance must be one of {', '.join(CHANCES)}, got {chance!r}")
    if engine == "batched" and chance != "splitmix":
        raise OptionError("--engine batched plays the compiled engine's chance: --chance splitmix (or leave it out)")
    return chance


def check_backend(backend: str, address: str | None) -> None:
    """An :class:`OptionError` naming the problem unless ``backend`` is ``local`` or ``ray`` and an
    ``address`` comes only with ``ray``."""
    if backend not in ("local", "ray"):
        raise OptionError(f"--backend must be local or ray, got {backend!r}")
    if address is not None and backend != "ray":
        raise OptionError("--address needs --backend ray")


class GamesFailedError(RuntimeError):
    """Games whose Ray tasks failed after their retries; :attr:`results` holds the games that finished.

    The message is one line naming the failed games (``games 12-23, 48-59``) and the cause.
    """

    def __init__(self, message: str, results: list[dict[str, Any]], failed: list[int]) -> None:
        super().__init__(message)
        self.results = results
        self.failed = failed


def game_ranges(indices: Sequence[int]) -> str:
    """Game numbers as ranges: ``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    parts: list[str] = []
    ordered = sorted(indices)
    start = prev = None
    for i in [*ordered, None]:
        if prev is not None and i == prev + 1:
            prev = i
            continue
        if start is not None:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = i
    return ", ".join(parts)


def run_games(
    match: Match,
    games: int,
    workers: int = 1,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    only: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """Play ``games`` games across ``workers`` processes (or Ray tasks); results in game order.

    ``backend="ray"`` runs batches of games as Ray tasks (:mod:`ice_envs.evaluation.ray_backend`) on
    the cluster at ``address``, or on a local Ray with ``workers`` CPUs; the results are the same.
    A Ray task that still fails after Ray's retries raises :class:`GamesFailedError` once every other
    task has ended, naming the failed games and holding the finished ones.
    ``only``: play just these game numbers (of ``0 .. games - 1``; a game depends only on its number).
    """
    check_backend(backend, address)
    numbers = list(range(games)) if only is None else sorted(set(only))
    if any(not 0 <= i < games for i in numbers):
        raise OptionError(f"game numbers must be in 0..{games - 1}")
    if not numbers:
        return []
    if backend == "ray":
        from ice_envs.evaluation.ray_backend import cluster_cpus, init_ray

        init_ray(address, workers if address is None else None)
        workers = cluster_cpus()
    note = fallback_note(match)
    if note is not None:
        print(note, file=sys.stderr)
    if batched_plays(match):  # a few large batches: every game of a batch advances in one compiled call
        batch = max(1, min(4096, -(-len(numbers) // (workers * 2))))
    else:
        batch = max(1, min(50, games // (workers * 8) or 1))
    if match.chance == "splitmix" and backend == "local" and workers > 1:
        from ice_envs.evaluation.batched import prepare

        prepare(match)  # the compiled engine's loops built once here; forked workers inherit the machine code
    chunks = [numbers[i : i + batch] for i in range(0, len(numbers), batch)]
    results: list[dict[str, Any]] = []
    bar = progress_bar(len(numbers), f"{match.game} {match.num_players}p", "game", enabled=progress)
    if backend == "ray":
        from ice_envs.evaluation.ray_backend import run_games_ray

        results, failures = run_games_ray(_play_batch, match, chunks, bar)
        if failures:
            bar.close()
            failed = sorted(i for chunk, _ in failures for i in chunk)
            cause = failures[0][1]
            raise GamesFailedError(
                f"games {game_ranges(failed)} of {match.game} failed after Ray's retries ({cause}); "
                f"{len(results)} game(s) finished",
                sorted(results, key=lambda r: r["game_index"]),
                failed,
            )
    elif workers <= 1:
        for chunk in chunks:
            results.extend(_play_batch((match, chunk)))
            bar.update(len(chunk))
    else:
        import multiprocessing as mp

        ctx = mp.get_context("spawn" if sys.platform == "darwin" else "fork")
        with ctx.Pool(workers) as pool:
            for out in pool.imap_unordered(_play_batch, [(match, c) for c in chunks]):
                results.extend(out)
                bar.update(len(out))
    bar.close()
    results.sort(key=lambda r: r["game_index"])
    return results


def summarise(match: Match, results: list[dict[str, Any]], seed: int = 0) -> dict[str, Any]:
    """Per-agent win rates, scores, ranks (with intervals) and openskill ratings."""
    n = match.num_players
    rng = np.random.default_rng(seed)
    labels = _entry_labels(match.agents)
    rows = []
    win_share = np.array([r["win_share"] for r in results])
    wins = np.array([r["win"] for r in results])
    scores = np.array([r["score"] for r in results])
    ranks = np.array([r["rank"] for r in results])
    ratings = _openskill(labels, results)
    truncated = np.array([bool(r["truncated"]) for r in results], dtype=bool)
    for k, label in enumerate(labels):
        games = len(results)
        lo, hi = wilson_interval(float(wins[:, k].sum()), games)
        rows.append(
            {
                "agent": label,
                "spec": entry_label(match.agents[k]),
                "games": games,
                "wins": int(wins[:, k].sum()),
                # every entry plays every game, so each counts the tournament's truncated games
                "truncated": int(truncated.sum()),
                "win_rate": float(wins[:, k].mean()) if games else 0.0,
                "win_rate_ci95": [lo, hi],
                "win_share": float(win_share[:, k].mean()) if games else 0.0,
                "mean_score": float(scores[:, k].mean()) if games else 0.0,
                "mean_score_ci95": list(bootstrap_interval(scores[:, k], rng)),
                "mean_rank": float(ranks[:, k].mean()) if games else 0.0,
                "mean_rank_ci95": list(bootstrap_interval(ranks[:, k], rng)),
                "rating": ratings[label],
            }
        )
    seat_wins = np.zeros(n)
    for r in results:
        for k in range(n):
            seat_wins[r["seat"][k]] += r["win"][k]
    games = max(1, len(results))
    by_seat = [
        {
            "seat": s,
            "win_rate": float(seat_wins[s] / games),
            "win_rate_ci95": list(wilson_interval(seat_wins[s], games)),
        }
        for s in range(n)
    ]
    return {
        "game": match.game,
        "num_players": n,
        "win_rate_by_seat": by_seat,
        "options": match.options,
        "agents": [entry_label(a) for a in match.agents],
        "seed": match.seed,
        "games": len(results),
        "random_baseline": 1.0 / n,
        "mean_decisions": float(np.mean([r["decisions"] for r in results])) if results else 0.0,
        "truncated_games": int(truncated.sum()),
        "max_decisions": max((int(r.get("max_decisions", 0)) for r in results), default=match.max_decisions),
        "no_winner_games": int(sum(not any(r["win"]) for r in results)),
        "per_agent": rows,
        # other deals than numpy chance's: said where it applies (numpy chance's reports stay as they were)
        **({"chance": match.chance} if match.chance != "numpy" else {}),
    }


def entry_label(entry: AgentSpec | Agent) -> str:
    """The label of an agent entry: its spec's label, or an Agent object's ``name``."""
    return entry.label if isinstance(entry, AgentSpec) else str(getattr(entry, "name", type(entry).__name__))


def _entry_labels(agents: tuple[AgentSpec | Agent, ...]) -> list[str]:
    seen: dict[str, int] = {}
    labels = []
    for entry in agents:
        label = entry_label(entry)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return labels


def agent_entries(agents: str | Sequence[str | AgentSpec | Agent], num_players: int) -> tuple[AgentSpec | Agent, ...]:
    """One entry per seat from a comma-separated spec list or a sequence of specs and Agent objects.

    An Agent object plays as it is (reset with each game's seed); one object cannot take two seats.
    """
    if isinstance(agents, str):
        return tuple(parse_agent_list(agents, num_players))
    entries: list[AgentSpec | Agent] = []
    for item in agents:
        if isinstance(item, str):
            entries.append(parse_agent_spec(item))
        elif isinstance(item, AgentSpec) or is_agent(item):
            entries.append(item)
        else:
            raise AgentSpecError(f"{item!r} is neither an agent spec nor an Agent (see ice_envs.core.agent.Agent)")
    if len(entries) != num_players:
        raise AgentSpecError(f"{len(entries)} agents given for {num_players} players; give one per seat")
    objects = [id(e) for e in entries if not isinstance(e, AgentSpec)]
    if len(objects) != len(set(objects)):
        raise AgentSpecError("the same Agent object is given for two seats; give each seat its own object")
    return tuple(entries)


def _openskill(labels: list[str], results: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    players = {label: model.rating(name=label) for label in labels}
    if len(labels) < 2:  # a solo game has nobody to rate against
        return {label: {"mu": p.mu, "sigma": p.sigma, "ordinal": p.ordinal()} for label, p in players.items()}
    for r in results:
        teams = [[players[label]] for label in labels]
        new = model.rate(teams, ranks=list(r["rank"]))
        for label, team in zip(labels, new):
            players[label] = team[0]
    return {label: {"mu": p.mu, "sigma": p.sigma, "ordinal": p.ordinal()} for label, p in players.items()}


def checked_agents(
    game: str, agents: str | Sequence[str | AgentSpec | Agent], num_players: int
) -> tuple[AgentSpec | Agent, ...]:
    """:func:`agent_entries`, each loaded once for ``game`` (its registry name) so that a misspelt spec, a
    missing heuristic or a bad checkpoint is an error before any game."""
    entries = agent_entries(agents, num_players)
    for entry in entries:
        load_agent(entry, game, num_players=num_players)
    return entries


def evaluate(
    game: str,
    num_players: int,
    agents: str | Sequence[str | AgentSpec | Agent],
    games: int,
    seed: int = 0,
    workers: int = 1,
    options: dict[str, Any] | None = None,
    max_decisions: int | None = None,
    progress: bool = True,
    record: int = 0,
    record_dir: Path | None = None,
    backend: str = "local",
    address: str | None = None,
    before_games: Callable[[], None] | None = None,
    engine: str = "auto",
    chance: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run a tournament; returns (summary, per-game results).

    ``agents``: one per seat, as a comma-separated spec list (``"greedy,heuristic"``) or a sequence
    of specs and :class:`~ice_envs.core.agent.Agent` objects (an object plays as it is; with
    ``workers > 1`` each worker process gets a pickled copy of it).
    ``record``: keep games ``0 .. record - 1`` as game records in ``record_dir``.
    ``max_decisions``: the env's cap on each game (``None``: the game's own; see the module docstring).
    ``backend``: ``local`` (processes) or ``ray`` (Ray tasks on the cluster at ``address``, or on a local
    Ray with ``workers`` CPUs); the results do not depend on it.
    ``before_games``: called once every argument is checked, just before the first game (a failed
    check has then changed nothing).
    ``engine``: ``scalar`` (one env per game), ``batched`` (the compiled engine, many games at once,
    :mod:`ice_envs.evaluation.batched`) or ``auto`` (batched where it plays the scalar path's games,
    :func:`engine_for`). ``chance``: ``numpy`` (default with the scalar engine) or
    ``splitmix`` (the compiled engines' deals and streams; the batched engine's only chance). The batched
    engine's results equal the scalar engine's with ``chance="splitmix"``, game by game; splitmix games
    are other deals than numpy ones.
    """
    spec = ice_envs.get_spec(game)
    options = dict(options or {})
    if max_decisions is not None:
        if isinstance(max_decisions, bool) or not isinstance(max_decisions, (int, np.integer)) or max_decisions < 1:
            raise OptionError(f"--max-decisions must be an integer >= 1, got {max_decisions!r}")
        given = options.get("max_decisions")
        if given is not None and given != max_decisions:
            raise OptionError(f"--max-decisions {max_decisions} contradicts --option max_decisions={given}")
        options.pop("max_decisions", None)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OptionError(f"--seed must be an integer >= 0, got {seed!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise OptionError(f"--workers must be at least 1, got {workers!r}")
    check_backend(backend, address)
    chance = check_engine(engine, chance)
    if chance == "splitmix" and record:
        raise OptionError("--record needs --chance numpy: a game record is replayed from its deal seed")
    module = spec.load()
    # clear errors for bad players/options, before any work
    module.raw_env(
        num_players=num_players, **options, **({} if max_decisions is None else {"max_decisions": max_decisions})
    )
    agent_specs = checked_agents(spec.name, agents, num_players)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise OptionError(f"--games must be at least 1, got {games}")
    if record < 0 or (record and record_dir is None):
        raise OptionError(f"--record must be a number of games >= 0 (with a folder for the records), got {record}")
    match = Match(
        spec.name,
        num_players,
        options,
        agent_specs,
        seed,
        None if max_decisions is None else int(max_decisions),
        record_games=min(record, games),
        record_dir=str(record_dir) if record else None,
        chance=chance,
        engine=engine,
    )
    if chance == "splitmix":
        from ice_envs.evaluation.batched import compiled_engine

        compiled_engine(match, 1)  # the game's compiled engine takes these options (or a clear error)
    if before_games is not None:
        before_games()
    if record:
        Path(record_dir).mkdir(parents=True, exist_ok=True)
    results = run_games(match, games, workers, progress, backend=backend, address=address)
    return summarise(match, results, seed), results
