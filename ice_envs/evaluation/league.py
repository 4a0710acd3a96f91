"""Leagues: every agent of a list on one rating scale, from mixed tables on identical deals.

    ice-envs league CONFIG.yaml [--out DIR] [--workers K] [--no-progress] [--backend ray [--address ADDR]]
                                [--force] [--allow-python]

A league config (YAML; every key below, no others)::

    game: cubemelt
    players: 3
    options: {}                   # game options (optional)
    agents:                       # name -> agent spec (random, greedy, heuristic, mcts:..., ppo:PATH, python:...)
      random: random
      greedy: greedy
      heuristic: heuristic
      ppo: ppo:checkpoints/cubemelt_ppo/final.npz
    schedule: round_robin         # every set of `players` distinct agents is one table
    games_per_table: 300          # a multiple of `players`: every deal is played from every seat
    suite: v1                     # deals from the held-out suite's seeds (or `seed: S` for any first deal seed)
    chance: splitmix              # optional: numpy (the env's own generator) or splitmix (the compiled engine's
                                  # deals, played batched); --chance overrides it
    out: runs/league/cubemelt     # optional; --out overrides it

**Tables.** With ``A`` agents and ``N`` seats the round robin has ``C(A, N)`` tables (at two players,
every pairing). Table ``t`` plays games ``0 .. G-1``; game ``i`` is dealt from seed ``seed + i // N``
with the table's agents rotated by ``i % N`` seats (:mod:`ice_envs.evaluation.tournament`), so every
table meets the same deals and every agent sits in every seat of every deal.

**Incremental.** Each table's games are kept in ``OUT/tables/<agents>.json`` with a key: game, env
version, players, options, deals, games, and per agent its spec and fingerprint (a checkpoint's
SHA-256; a ``python:`` agent's module file's SHA-256). A table whose key is unchanged is read back, not
played: adding an agent plays only the new tables, and a changed checkpoint replays its own tables.
A stored table is checked against its key before any game is played (:func:`check_table`): one that
does not match is refused with one line naming the file. Tables and reports are written atomically;
the finished games of a table whose Ray tasks failed are kept (``<agents>.partial.json``) and only
the rest are played next time. ``python:`` agents of a config file need ``--allow-python``
(:func:`load_config`); ``OUT`` must be new, empty or this league's folder (:func:`check_league_out`).

**Results** (``league.json``, ``league.md``, ``league.png``):

* one openskill Plackett-Luce rating per agent over every game of every table (tables in name order,
  games in order; ranks by win share, then score), with ``mu``, ``sigma``, ``mu ± 1.96 sigma`` and the
  ordinal ``mu - 3 sigma``;
* a pairwise matrix: for agents ``a`` and ``b``, the share of the games they both played in which
  ``a`` finished ahead of ``b`` (a tie counts one half), with a 95% paired bootstrap interval and a
  two-sided paired bootstrap p-value against one half — the unit of resampling is the deal, so each
  pair is compared on identical deals;
* the wall time of each table that was played.

Results do not depend on ``--workers`` nor ``--backend`` (``ray``: each table's games as Ray tasks,
:mod:`ice_envs.evaluation.ray_backend`): each game's agents and deal are seeded from the game's number.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import ice_envs
from ice_envs.agents.ppo_agent import MAX_CHECKPOINT_BYTES
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.core.errors import OptionError
from ice_envs.core.files import FileFormatError, atomic_path, load_json, load_yaml, read_bytes, write_atomic
from ice_envs.core.machine import machine_info
from ice_envs.evaluation.matches import CHANCES
from ice_envs.evaluation.suite import get_suite
from ice_envs.evaluation.tournament import GamesFailedError, Match, check_engine, run_games

SCHEDULES = ("round_robin",)
CONFIG_KEYS = frozenset(
    {"game", "players", "options", "agents", "schedule", "games_per_table", "suite", "seed", "chance", "out"}
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Bootstrap resamples of the pairwise intervals and tests (seeded: the report is reproducible).
BOOTSTRAP = 4000
#: The z of a 95% interval.
Z95 = 1.959963984540054
#: Size cap of a ``python:`` agent's module file (read for its fingerprint).
MAX_MODULE_BYTES = 16 << 20
#: Size cap of a stored table.
MAX_TABLE_BYTES = 256 << 20
#: The format of a stored table; a table of another format is stale and played again.
TABLE_FORMAT = 1


@dataclass(frozen=True)
class LeagueConfig:
    """A parsed, checked league config (see the module docstring)."""

    game: str
    players: int
    agents: dict[str, str]
    games_per_table: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    schedule: str = "round_robin"
    suite: str | None = None
    out: str | None = None
    #: The tables' chance (``numpy`` or ``splitmix``); ``None``: the engine's default (``--chance`` overrides it).
    chance: str | None = None

    def tables(self) -> list[tuple[str, ...]]:
        """The round robin: every set of ``players`` distinct agents, in config order."""
        return list(itertools.combinations(self.agents, self.players))


def load_config(path: str | Path, allow_python: bool = False) -> LeagueConfig:
    """Read and check a league config; ``OptionError`` names the file and the problem.

    A ``python:module:factory`` agent imports and runs code, so one that comes from a config file is
    refused unless ``allow_python`` (``ice-envs league --allow-python``): nothing read from a file is
    evaluated unless you say so.
    """
    data = load_yaml(path, what="league config")
    return config_from_dict(data, str(path), allow_python=allow_python)


def config_from_dict(data: Any, source: str = "league config", allow_python: bool = True) -> LeagueConfig:
    """Check a league config given as a dict (``OptionError`` naming ``source`` and the key).

    ``allow_python=False`` refuses ``python:`` agents (see :func:`load_config`).
    """
    if not isinstance(data, dict):
        raise OptionError(f"{source}: a league config is a mapping of keys, got {type(data).__name__}")
    unknown = sorted(set(data) - CONFIG_KEYS)
    if unknown:
        raise OptionError(f"{source}: unknown key(s) {unknown}; known keys: {sorted(CONFIG_KEYS)}")
    for key in ("game", "players", "agents", "games_per_table"):
        if key not in data:
            raise OptionError(f"{source}: missing key {key!r}")
    spec = ice_envs.get_spec(_text(data["game"], "game", source))
    players = _integer(data["players"], "players", source, low=1)
    options = data.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise OptionError(f"{source}: 'options' must be a mapping of option names to values")
    agents = data["agents"]
    if not isinstance(agents, dict) or not agents:
        raise OptionError(f"{source}: 'agents' must be a non-empty mapping of names to agent specs")
    checked_agents: dict[str, str] = {}
    for name, text in agents.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise OptionError(f"{source}: agent name {name!r} must be letters, digits, '_', '-' or '.' (at most 64)")
        text = _text(text, f"agents.{name}", source)
        if text.endswith((".npz", ".zip")) and ":" not in text:
            text = f"ppo:{text}"  # a bare checkpoint path
        if parse_agent_spec(text).kind == "python" and not allow_python:  # AgentSpecError names a bad spec
            raise OptionError(
                f"{source}: agent {name!r} is {text!r}, which imports and runs code; a league config's python: "
                "agents are played only with --allow-python"
            )
        checked_agents[name] = text
    if len(checked_agents) < players:
        raise OptionError(f"{source}: {len(checked_agents)} agent(s) cannot fill a table of {players} players")
    schedule = data.get("schedule", "round_robin")
    if schedule not in SCHEDULES:
        raise OptionError(f"{source}: schedule {schedule!r} is unknown; use one of {list(SCHEDULES)}")
    games = _integer(data["games_per_table"], "games_per_table", source, low=players)
    if games % players:
        raise OptionError(f"{source}: games_per_table={games} must be a multiple of players={players}")
    if "suite" in data and "seed" in data:
        raise OptionError(f"{source}: give either 'suite' or 'seed', not both")
    suite = data.get("suite")
    if suite is not None:
        suite_obj = get_suite(_text(suite, "suite", source))
        tables = suite_obj.tables_of(spec.name)
        if not tables:
            raise OptionError(f"{source}: suite {suite!r} has no table of {spec.name}")
        seed = suite_obj.seed_of(tables[0])
    else:
        seed = _integer(data.get("seed", 0), "seed", source, low=0)
    out = data.get("out")
    if out is not None:
        out = _text(out, "out", source)
    chance = data.get("chance")
    if chance is not None and chance not in CHANCES:
        raise OptionError(f"{source}: 'chance' must be one of {list(CHANCES)}, got {chance!r}")
    # the game, players and options must build the env (one clear error now, not in a worker)
    ice_envs.make(spec.name, raw=True, num_players=players, **options)
    return LeagueConfig(spec.name, players, checked_agents, games, seed, dict(options), schedule, suite, out, chance)


def _text(value: Any, key: str, source: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise OptionError(f"{source}: {key!r} must be a non-empty string, got {value!r}")
    return value.strip()


def _integer(value: Any, key: str, source: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise OptionError(f"{source}: {key!r} must be an integer >= {low}, got {value!r}")
    return value


# ---------------------------------------------------------------------------- fingerprints and tables
def fingerprint(spec_text: str) -> str:
    """What identifies an agent's behaviour beyond its spec: a checkpoint's or a module file's SHA-256.

    Files are read through :func:`ice_envs.core.files.read_bytes` (a regular file within its size cap).
    """
    spec = parse_agent_spec(spec_text)
    if spec.kind == "ppo" and spec.path:
        return _digest(spec.path, "ppo checkpoint", MAX_CHECKPOINT_BYTES)
    if spec.kind == "rllib" and spec.path:
        from ice_envs.agents.rllib_agent import resolve_policy_file

        return _digest(resolve_policy_file(spec.path), "rllib policy", MAX_CHECKPOINT_BYTES)
    if spec.kind == "python" and spec.target:
        found = importlib.util.find_spec(spec.target.partition(":")[0])
        if found is not None and found.origin and Path(found.origin).is_file():
            return _digest(found.origin, "python agent module", MAX_MODULE_BYTES)
    return ""


def _digest(path: str | Path, what: str, max_bytes: int) -> str:
    return "sha256:" + hashlib.sha256(read_bytes(path, what=what, max_bytes=max_bytes)).hexdigest()


def table_name(agents: tuple[str, ...]) -> str:
    return "__".join(agents)


def table_key(
    cfg: LeagueConfig, agents: tuple[str, ...], prints: dict[str, str], chance: str = "numpy"
) -> dict[str, Any]:
    """Everything a table's games depend on; a stored table is reused only if its key is equal.

    ``chance``: the tables' chance mode (:class:`~ice_envs.evaluation.tournament.Match`); a key names it
    unless it is ``numpy``, so numpy-chance tables keep their keys."""
    spec = ice_envs.get_spec(cfg.game)
    return {
        **({"chance": chance} if chance != "numpy" else {}),
        "game": cfg.game,
        "env_version": spec.version,
        "players": cfg.players,
        "options": cfg.options,
        "seed": cfg.seed,
        "games": cfg.games_per_table,
        "agents": [[name, cfg.agents[name], prints[name]] for name in agents],
    }


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def play_league(
    cfg: LeagueConfig,
    out: Path,
    workers: int = 1,
    progress: bool = True,
    echo: Any = print,
    backend: str = "local",
    address: str | None = None,
    force: bool = False,
    engine: str = "auto",
    chance: str | None = None,
) -> dict[str, Any]:
    """Play the tables that are missing or stale in ``out/tables``, then rate every agent; the summary.

    ``engine`` and ``chance``: how the games are played and where their chance comes from
    (:func:`ice_envs.evaluation.tournament.evaluate`): the batched engine plays the tables of
    ``chance="splitmix"``, game by game the scalar engine's, and a table of either engine is reused by the other.
    ``chance=None`` takes the config's ``chance`` (and, without one, the engine's default).

    ``backend``/``address``: where the games run (:func:`ice_envs.evaluation.tournament.run_games`).
    ``out`` must be new, empty or a league folder of the same game and player count
    (:func:`check_league_out`) unless ``force``. A stored table whose key differs from the table's
    key now is stale and played again; one with the current key whose games do not match it
    (:func:`check_table`) is refused with a :class:`~ice_envs.core.files.FileFormatError` naming it.
    """
    chance = check_engine(engine, cfg.chance if chance is None else chance)
    check_league_out(out, cfg, force)
    tables_dir = out / "tables"
    remove_temporary_files(out)
    for text in cfg.agents.values():
        load_agent(text, cfg.game, num_players=cfg.players)  # a missing checkpoint fails before any game
    if chance == "splitmix":
        from ice_envs.evaluation.batched import compiled_engine

        # the game's compiled engine takes these options (or a clear error), before any game
        compiled_engine(Match(cfg.game, cfg.players, dict(cfg.options), (), cfg.seed), 1)
    prints = {name: fingerprint(text) for name, text in cfg.agents.items()}
    # every stored table is read and checked before any game is played
    todo: list[tuple[tuple[str, ...], dict[str, Any], list[dict[str, Any]]]] = []
    stored: dict[str, dict[str, Any]] = {}
    played, reused = [], []
    for agents in cfg.tables():
        name = table_name(agents)
        key = table_key(cfg, agents, prints, chance)
        old = read_table(tables_dir / f"{name}.json", key, cfg.players)
        if old is not None:
            stored[name] = old
            reused.append(name)
        else:
            todo.append((agents, key, read_partial(tables_dir / f"{name}{PARTIAL_SUFFIX}", key, cfg.players)))
    tables_dir.mkdir(parents=True, exist_ok=True)
    for agents, key, finished in todo:
        name = table_name(agents)
        match = Match(
            cfg.game,
            cfg.players,
            dict(cfg.options),
            tuple(parse_agent_spec(cfg.agents[a]) for a in agents),
            cfg.seed,
            chance=chance,
            engine=engine,
        )
        done = {r["game_index"] for r in finished}
        missing = [i for i in range(cfg.games_per_table) if i not in done]
        start = time.perf_counter()
        try:
            results = run_games(
                match, cfg.games_per_table, workers, progress, backend=backend, address=address, only=missing
            )
        except GamesFailedError as exc:
            kept = sorted(finished + exc.results, key=lambda r: r["game_index"])
            partial = tables_dir / f"{name}{PARTIAL_SUFFIX}"
            write_atomic(partial, json.dumps({"format": TABLE_FORMAT, "key": key, "results": kept}) + "\n")
            raise GamesFailedError(
                f"{exc}; table {name}: its {len(kept)} finished games are kept in {partial} (run the league again "
                "to play the rest)",
                exc.results,
                exc.failed,
            ) from None
        elapsed = time.perf_counter() - start
        results = sorted(finished + results, key=lambda r: r["game_index"])
        table = {
            "format": TABLE_FORMAT,
            "key": key,
            "agents": list(agents),
            "wall_seconds": round(elapsed, 2),
            "results": results,
        }
        write_atomic(tables_dir / f"{name}.json", json.dumps(table) + "\n")
        (tables_dir / f"{name}{PARTIAL_SUFFIX}").unlink(missing_ok=True)
        stored[name] = table
        played.append(name)
        echo(f"[league] {name}: {len(missing)} games in {elapsed:.1f} s")
    current = {table_name(a) for a in cfg.tables()}
    summary = summarise(cfg, [stored[n] for n in sorted(current)])
    summary["chance"] = chance
    summary["tables_played"] = played
    summary["tables_reused"] = reused
    return summary


#: What a league folder holds (anything else in it is refused unless ``force``).
LEAGUE_FILES = frozenset({"tables", "league.json", "league.md", "league.png"})
#: The suffix of a table whose games did not all finish (a failed Ray task): its finished games.
PARTIAL_SUFFIX = ".partial.json"


def check_league_out(out: Path, cfg: LeagueConfig, force: bool = False) -> None:
    """Refuse an ``out`` that is a file, or (unless ``force``) a folder that is not a league of this game.

    A league folder holds ``tables/``, ``league.json``, ``league.md`` and ``league.png`` (and the
    temporary files of an interrupted write); its ``league.json``, if any, must be of the same game
    and player count. This runs before any game is played.
    """
    if out.exists() and not out.is_dir():
        raise OptionError(f"--out {out}: is a file, not a folder for the league")
    if force or not out.is_dir():
        return
    other = sorted(p.name for p in out.iterdir() if p.name not in LEAGUE_FILES and not _is_temporary(p.name))
    if other:
        shown = ", ".join(other[:3]) + (", ..." if len(other) > 3 else "")
        raise OptionError(
            f"--out {out}: holds files that are not a league's ({shown}); give a new or empty folder, or --force"
        )
    report = out / "league.json"
    if report.exists():
        data = load_json(report, what="league report", max_bytes=MAX_TABLE_BYTES, limit=64)
        if not isinstance(data, dict) or (data.get("game"), data.get("players")) != (cfg.game, cfg.players):
            found = f"{data.get('game')}, {data.get('players')} players" if isinstance(data, dict) else "no league"
            raise OptionError(
                f"--out {out}: holds a league of {found}, not {cfg.game} with {cfg.players} players; "
                "give another folder, or --force"
            )


def _is_temporary(name: str) -> bool:
    """A temporary file of :func:`ice_envs.core.files.atomic_path` (left behind by a kill)."""
    return name.startswith(".") and name.endswith(".tmp")


def remove_temporary_files(out: Path) -> None:
    """Remove the temporary files that a killed league left in ``out`` and ``out/tables`` (one league per folder)."""
    for folder in (out, out / "tables"):
        if folder.is_dir():
            for path in folder.iterdir():
                if _is_temporary(path.name) and path.is_file():
                    path.unlink(missing_ok=True)


def read_table(path: Path, key: dict[str, Any], players: int) -> dict[str, Any] | None:
    """The stored table at ``path`` if it holds exactly the games of ``key``; ``None`` if there is none
    or it is stale (another key or format: it is played again).

    A table with the current key whose games do not match it (cut, emptied, duplicated, reordered,
    renamed agents, a rank that does not follow from the scores, a field of the wrong type) is refused
    with a :class:`~ice_envs.core.files.FileFormatError` naming the file: delete it to play it again.
    """
    if not path.exists():
        return None
    data = load_json(path, what="league table", max_bytes=MAX_TABLE_BYTES, limit=64)
    if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT or "key" not in data:
        if isinstance(data, dict) and "results" in data and "format" not in data:
            return None  # a table of an earlier version: played again
        raise FileFormatError(f"league table {path}: not a league table of format {TABLE_FORMAT}")
    if set(data) != TABLE_KEYS or not isinstance(data["key"], dict):
        raise FileFormatError(f"league table {path}: its fields are {sorted(data)}, expected {sorted(TABLE_KEYS)}")
    if _canonical(data["key"]) != _canonical(key):
        return None
    check_table(data, key, players, source=str(path))
    return data


def read_partial(path: Path, key: dict[str, Any], players: int) -> list[dict[str, Any]]:
    """The finished games of an unfinished table (kept when Ray tasks failed), if it has the current key."""
    if not path.exists():
        return []
    data = load_json(path, what="league table", max_bytes=MAX_TABLE_BYTES, limit=64)
    if (
        not isinstance(data, dict)
        or data.get("format") != TABLE_FORMAT
        or _canonical(data.get("key")) != _canonical(key)
    ):
        return []
    results = data.get("results")
    if not isinstance(results, list) or set(data) != {"format", "key", "results"}:
        raise FileFormatError(f"league table {path}: not a list of finished games")
    indices = [r.get("game_index") if isinstance(r, dict) else None for r in results]
    if any(type(i) is not int or not 0 <= i < key["games"] for i in indices) or indices != sorted(set(indices)):
        raise FileFormatError(f"league table {path}: game numbers out of range, repeated or out of order")
    for r in results:
        check_game(r, r["game_index"], key, players, source=str(path))
    return results


TABLE_KEYS = frozenset({"format", "key", "agents", "wall_seconds", "results"})
GAME_KEYS = frozenset(
    {
        "game_index",
        "deal_seed",
        "decisions",
        "truncated",
        "max_decisions",
        "seat",
        "reward",
        "score",
        "rank",
        "win",
        "win_share",
    }
)


def check_table(data: dict[str, Any], key: dict[str, Any], players: int, source: str) -> None:
    """Refuse (:class:`FileFormatError` naming ``source``) a table whose content does not match ``key``."""
    if set(data) != TABLE_KEYS:
        raise FileFormatError(f"league table {source}: its fields are {sorted(data)}, expected {sorted(TABLE_KEYS)}")
    names = [entry[0] for entry in key["agents"]]
    if data["agents"] != names:
        raise FileFormatError(f"league table {source}: agents {data['agents']!r} are not its key's {names}")
    wall = data["wall_seconds"]
    if wall is not None and (isinstance(wall, bool) or not isinstance(wall, (int, float)) or not wall >= 0):
        raise FileFormatError(f"league table {source}: wall_seconds must be a number >= 0, got {wall!r}")
    results = data["results"]
    if not isinstance(results, list) or len(results) != key["games"]:
        count = len(results) if isinstance(results, list) else type(results).__name__
        raise FileFormatError(f"league table {source}: {count} games where its key has {key['games']}")
    for i, r in enumerate(results):
        check_game(r, i, key, players, source)


def check_game(r: Any, index: int, key: dict[str, Any], players: int, source: str) -> None:
    """Refuse a stored game that is not game ``index`` of ``key``'s table, or whose fields disagree."""
    where = f"league table {source}: game {index}"
    if not isinstance(r, dict) or set(r) != GAME_KEYS:
        raise FileFormatError(f"{where}: not a game result with the fields {sorted(GAME_KEYS)}")
    for name in ("game_index", "deal_seed", "decisions", "max_decisions"):
        if type(r[name]) is not int or r[name] < 0:
            raise FileFormatError(f"{where}: {name} must be an integer >= 0, got {r[name]!r}")
    if r["game_index"] != index or r["deal_seed"] != key["seed"] + index // players:
        raise FileFormatError(f"{where}: it is numbered {r['game_index']} with deal {r['deal_seed']}, not its place")
    if not isinstance(r["truncated"], bool):
        raise FileFormatError(f"{where}: truncated must be true or false, got {r['truncated']!r}")
    for name, kind in (("seat", int), ("rank", int), ("win", bool), ("reward", float), ("score", float)):
        values = r[name]
        ok = isinstance(values, list) and len(values) == players
        if ok and kind is float:
            ok = all(not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) for v in values)
        elif ok:
            ok = all(type(v) is kind for v in values)
        if not ok:
            raise FileFormatError(f"{where}: {name} must be {players} {kind.__name__} values, got {values!r}")
    share = r["win_share"]
    if not (
        isinstance(share, list)
        and len(share) == players
        and all(not isinstance(v, bool) and isinstance(v, (int, float)) and 0 <= v <= 1 for v in share)
    ):
        raise FileFormatError(f"{where}: win_share must be {players} numbers in [0, 1], got {share!r}")
    if r["seat"] != [(k + index) % players for k in range(players)]:
        raise FileFormatError(f"{where}: seats {r['seat']} are not the rotation of game {index}")
    if r["win"] != [v > 0 for v in share] or not (sum(share) == 0 or math.isclose(sum(share), 1.0)):
        raise FileFormatError(f"{where}: win and win_share disagree")
    keys = list(zip(share, r["score"]))
    if r["rank"] != [1 + sum(other > mine for other in keys) for mine in keys]:
        raise FileFormatError(f"{where}: ranks {r['rank']} do not follow from win_share and score")


# ---------------------------------------------------------------------------- statistics
def summarise(cfg: LeagueConfig, tables: list[dict[str, Any]]) -> dict[str, Any]:
    """Ratings, the pairwise matrix and per-table facts of a league's stored tables."""
    names = list(cfg.agents)
    ratings = _ratings(names, tables)
    matrix = _pairwise(names, tables)
    games = {n: 0 for n in names}
    wins = {n: 0.0 for n in names}
    for table in tables:
        for r in table["results"]:
            for k, agent in enumerate(table["agents"]):
                games[agent] += 1
                wins[agent] += float(r["win_share"][k])
    rows = []
    for n in names:
        mu, sigma = ratings[n]
        rows.append(
            {
                "agent": n,
                "spec": cfg.agents[n],
                "games": games[n],
                "win_share": wins[n] / games[n] if games[n] else 0.0,
                "mu": mu,
                "sigma": sigma,
                "mu_ci95": [mu - Z95 * sigma, mu + Z95 * sigma],
                "ordinal": mu - 3 * sigma,
            }
        )
    rows.sort(key=lambda row: (-row["ordinal"], row["agent"]))
    return {
        "game": cfg.game,
        "env_version": ice_envs.get_spec(cfg.game).version,
        "players": cfg.players,
        "options": cfg.options,
        "suite": cfg.suite,
        "seed": cfg.seed,
        "games_per_table": cfg.games_per_table,
        "agents": dict(cfg.agents),
        "ratings": rows,
        "pairwise": matrix,
        "tables": [
            {
                "agents": t["agents"],
                "games": len(t["results"]),
                "wall_seconds": t.get("wall_seconds"),
                "truncated": sum(bool(r["truncated"]) for r in t["results"]),
            }
            for t in tables
        ],
    }


def _ratings(names: list[str], tables: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    players = {n: model.rating(name=n) for n in names}
    for table in tables:
        agents = table["agents"]
        for r in table["results"]:
            teams = [[players[a]] for a in agents]
            new = model.rate(teams, ranks=list(r["rank"]))
            for a, team in zip(agents, new):
                players[a] = team[0]
    return {n: (float(p.mu), float(p.sigma)) for n, p in players.items()}


def _pairwise(names: list[str], tables: list[dict[str, Any]]) -> dict[str, Any]:
    """Head-to-head shares with paired (by deal) bootstrap intervals and p-values."""
    rng = np.random.default_rng(0)
    # per ordered pair: deal seed -> list of outcomes (1 ahead, 0.5 tie, 0 behind)
    outcomes: dict[tuple[str, str], dict[int, list[float]]] = {}
    for table in tables:
        agents = table["agents"]
        for r in table["results"]:
            for i, a in enumerate(agents):
                for j, b in enumerate(agents):
                    if i == j:
                        continue
                    ra, rb = r["rank"][i], r["rank"][j]
                    value = 1.0 if ra < rb else 0.5 if ra == rb else 0.0
                    outcomes.setdefault((a, b), {}).setdefault(int(r["deal_seed"]), []).append(value)
    share = [[None] * len(names) for _ in names]
    low = [[None] * len(names) for _ in names]
    high = [[None] * len(names) for _ in names]
    p_value = [[None] * len(names) for _ in names]
    games = [[0] * len(names) for _ in names]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            per_deal = outcomes.get((a, b))
            if i == j or not per_deal:
                continue
            deals = sorted(per_deal)
            h = np.array([np.mean(per_deal[d]) for d in deals])
            games[i][j] = int(sum(len(per_deal[d]) for d in deals))
            mean = float(h.mean())
            picks = rng.integers(0, h.size, size=(BOOTSTRAP, h.size))
            boot = h[picks].mean(axis=1)
            lo, hi = np.quantile(boot, [0.025, 0.975])
            centred = boot - mean + 0.5  # the bootstrap distribution shifted to the null hypothesis (one half)
            p = float(np.mean(np.abs(centred - 0.5) >= abs(mean - 0.5)))
            share[i][j], low[i][j], high[i][j] = mean, float(lo), float(hi)
            p_value[i][j] = min(1.0, p)
    return {
        "agents": names,
        "ahead_share": share,
        "ci95_low": low,
        "ci95_high": high,
        "p_value": p_value,
        "games": games,
    }


# ---------------------------------------------------------------------------- reports
def to_markdown(summary: dict[str, Any], command: str) -> str:
    """The league as Markdown: ratings, the pairwise matrix, the tables and the command."""
    lines = [
        f"### {summary['game']} (v{summary['env_version']}), {summary['players']} players"
        + (f", suite {summary['suite']}" if summary["suite"] else f", deals from seed {summary['seed']}"),
        "",
        f"`{command}`",
        "",
        "| rank | agent | spec | games | win share | rating μ [95%] | σ | ordinal μ−3σ |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k, row in enumerate(summary["ratings"], 1):
        lo, hi = row["mu_ci95"]
        lines.append(
            f"| {k} | {row['agent']} | `{row['spec']}` | {row['games']} | {row['win_share']:.3f} | "
            f"{row['mu']:.2f} [{lo:.2f}, {hi:.2f}] | {row['sigma']:.2f} | {row['ordinal']:.2f} |"
        )
    pw = summary["pairwise"]
    names = pw["agents"]
    lines += [
        "",
        "Row agent finishes ahead of column agent (share of their common games, a tie counting ½), "
        "95% paired bootstrap interval over deals; * p < 0.05, ** p < 0.01 (paired bootstrap, against ½).",
        "",
        "| | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for i, a in enumerate(names):
        cells = []
        for j in range(len(names)):
            s = pw["ahead_share"][i][j]
            if s is None:
                cells.append("—")
                continue
            p = pw["p_value"][i][j]
            star = "**" if p < 0.01 else "*" if p < 0.05 else ""
            cells.append(f"{s:.3f}{star} [{pw['ci95_low'][i][j]:.3f}, {pw['ci95_high'][i][j]:.3f}]")
        lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    tables = summary["tables"]
    total = sum(t["wall_seconds"] or 0.0 for t in tables)
    per_table = ", ".join(f"{table_name(tuple(t['agents']))} {t['wall_seconds'] or 0.0:.0f} s" for t in tables)
    truncated = sum(t["truncated"] for t in tables)
    lines += [
        "",
        f"{len(tables)} tables of {summary['games_per_table']} games; wall time of their games {total:.0f} s in all "
        f"({per_table}); truncated games: {truncated}.",
    ]
    return "\n".join(lines) + "\n"


def plot(summary: dict[str, Any], path: Path) -> None:
    """``league.png``: the ratings with 95% intervals, and the pairwise matrix as a heat map."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["ratings"]
    pw = summary["pairwise"]
    names = pw["agents"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 0.6 * len(names) + 3))
    order = list(reversed(rows))
    ys = np.arange(len(order))
    mus = np.array([r["mu"] for r in order])
    err = np.array([Z95 * r["sigma"] for r in order])
    ax1.errorbar(mus, ys, xerr=err, fmt="o", capsize=4)
    ax1.set_yticks(ys, [r["agent"] for r in order])
    ax1.set_xlabel("openskill Plackett-Luce μ (95% interval)")
    ax1.set_title(f"{summary['game']} {summary['players']}p league ratings")
    grid = np.array([[np.nan if v is None else v for v in row] for row in pw["ahead_share"]], dtype=float)
    im = ax2.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax2.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax2.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not math.isnan(grid[i, j]):
                ax2.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax2.set_title("row finishes ahead of column")
    fig.colorbar(im, ax=ax2, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100, format="png")
    plt.close(fig)


def write_report(summary: dict[str, Any], out: Path, command: str) -> None:
    """``league.json``, ``league.md`` and ``league.png`` in ``out``, each written atomically."""
    out.mkdir(parents=True, exist_ok=True)
    report = {**summary, "command": command, "machine": machine_info()}
    write_atomic(out / "league.json", json.dumps(report, indent=1) + "\n")
    write_atomic(out / "league.md", to_markdown(summary, command))
    with atomic_path(out / "league.png") as tmp:
        plot(summary, tmp)
