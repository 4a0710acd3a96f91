"""Leagues: every agent of a list on one rating scale, from mixed tables on identical deals.

    ice-envs league CONFIG.yaml [--out DIR] [--workers K] [--no-progress] [--backend ray [--address ADDR]]

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
    out: runs/league/cubemelt     # optional; --out overrides it

**Tables.** With ``A`` agents and ``N`` seats the round robin has ``C(A, N)`` tables (at two players,
every pairing). Table ``t`` plays games ``0 .. G-1``; game ``i`` is dealt from seed ``seed + i // N``
with the table's agents rotated by ``i % N`` seats (:mod:`ice_envs.evaluation.tournament`), so every
table meets the same deals and every agent sits in every seat of every deal.

**Incremental.** Each table's games are kept in ``OUT/tables/<agents>.json`` with a key: game, env
version, players, options, deals, games, and per agent its spec and fingerprint (a checkpoint's
SHA-256; a ``python:`` agent's module file's SHA-256). A table whose key is unchanged is read back, not
played: adding an agent plays only the new tables, and a changed checkpoint replays its own tables.

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
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.core.errors import OptionError
from ice_envs.core.files import load_yaml
from ice_envs.core.machine import machine_info
from ice_envs.evaluation.suite import get_suite
from ice_envs.evaluation.tournament import Match, run_games

SCHEDULES = ("round_robin",)
CONFIG_KEYS = frozenset({"game", "players", "options", "agents", "schedule", "games_per_table", "suite", "seed", "out"})
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Bootstrap resamples of the pairwise intervals and tests (seeded: the report is reproducible).
BOOTSTRAP = 4000
#: The z of a 95% interval.
Z95 = 1.959963984540054


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

    def tables(self) -> list[tuple[str, ...]]:
        """The round robin: every set of ``players`` distinct agents, in config order."""
        return list(itertools.combinations(self.agents, self.players))


def load_config(path: str | Path) -> LeagueConfig:
    """Read and check a league config; ``OptionError`` names the file and the problem."""
    data = load_yaml(path, what="league config")
    return config_from_dict(data, str(path))


def config_from_dict(data: Any, source: str = "league config") -> LeagueConfig:
    """Check a league config given as a dict (``OptionError`` naming ``source`` and the key)."""
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
        parse_agent_spec(text)  # AgentSpecError names a bad spec
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
    # the game, players and options must build the env (one clear error now, not in a worker)
    ice_envs.make(spec.name, raw=True, num_players=players, **options)
    return LeagueConfig(spec.name, players, checked_agents, games, seed, dict(options), schedule, suite, out)


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
    """What identifies an agent's behaviour beyond its spec: a checkpoint's or a module file's SHA-256."""
    spec = parse_agent_spec(spec_text)
    if spec.kind == "ppo" and spec.path:
        return "sha256:" + hashlib.sha256(Path(spec.path).read_bytes()).hexdigest()
    if spec.kind == "rllib" and spec.path:
        from ice_envs.agents.rllib_agent import resolve_policy_file

        return "sha256:" + hashlib.sha256(resolve_policy_file(spec.path).read_bytes()).hexdigest()
    if spec.kind == "python" and spec.target:
        found = importlib.util.find_spec(spec.target.partition(":")[0])
        if found is not None and found.origin and Path(found.origin).is_file():
            return "sha256:" + hashlib.sha256(Path(found.origin).read_bytes()).hexdigest()
    return ""


def table_name(agents: tuple[str, ...]) -> str:
    return "__".join(agents)


def table_key(cfg: LeagueConfig, agents: tuple[str, ...], prints: dict[str, str]) -> dict[str, Any]:
    """Everything a table's games depend on; a stored table is reused only if its key is equal."""
    spec = ice_envs.get_spec(cfg.game)
    return {
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
) -> dict[str, Any]:
    """Play the tables that are missing or stale in ``out/tables``, then rate every agent; the summary.

    ``backend``/``address``: where the games run (:func:`ice_envs.evaluation.tournament.run_games`).
    """
    tables_dir = out / "tables"
    tables_dir.mkdir(parents=True, exist_ok=True)
    prints = {name: fingerprint(text) for name, text in cfg.agents.items()}
    for text in cfg.agents.values():
        load_agent(text, cfg.game, num_players=cfg.players)  # a missing checkpoint fails before any game
    stored: dict[str, dict[str, Any]] = {}
    played, reused = [], []
    for agents in cfg.tables():
        name = table_name(agents)
        key = table_key(cfg, agents, prints)
        path = tables_dir / f"{name}.json"
        old = _read_table(path)
        if old is not None and _canonical(old.get("key")) == _canonical(key):
            stored[name] = old
            reused.append(name)
            continue
        match = Match(
            cfg.game, cfg.players, dict(cfg.options), tuple(parse_agent_spec(cfg.agents[a]) for a in agents), cfg.seed
        )
        start = time.perf_counter()
        results = run_games(match, cfg.games_per_table, workers, progress, backend=backend, address=address)
        elapsed = time.perf_counter() - start
        table = {"key": key, "agents": list(agents), "wall_seconds": round(elapsed, 2), "results": results}
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(table) + "\n")
        tmp.replace(path)
        stored[name] = table
        played.append(name)
        echo(f"[league] {name}: {cfg.games_per_table} games in {elapsed:.1f} s")
    current = {table_name(a) for a in cfg.tables()}
    summary = summarise(cfg, [stored[n] for n in sorted(current)])
    summary["tables_played"] = played
    summary["tables_reused"] = reused
    return summary


def _read_table(path: Path) -> dict[str, Any] | None:
    """A stored table, or ``None`` if there is none or it cannot be read (it is then replayed)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("results"), list) else None


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
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_report(summary: dict[str, Any], out: Path, command: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    report = {**summary, "command": command, "machine": machine_info()}
    (out / "league.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "league.md").write_text(to_markdown(summary, command))
    plot(summary, out / "league.png")
