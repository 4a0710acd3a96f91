"""Seed ranges and the versioned held-out evaluation suites.

Deals are numbered by the seed that ``env.reset(seed=...)`` is given. Three disjoint ranges
keep what an agent is trained on, what training is steered by, and what it is finally judged
on apart:

* :data:`TRAINING_SEEDS` — ``[0, 2**63)``: run seeds, the seeds of the training envs and every
  deal seed a training env draws (``train/single_agent.py`` draws them below ``2**63``).
* :data:`VALIDATION_SEEDS` — ``[2**63, 2**63 + 2**40)``: the deals of in-training evaluations
  (``eval.seed`` of a training config; checked when the config is loaded).
* :data:`SUITE_SEEDS` — ``[2**63 + 2**40, 2**64)``: held-out suites. A suite's deals start at its own
  ``base`` inside this range; training never sees them.

A :class:`Suite` fixes, per game, the table size, the opponents, the options and the number of
games (a multiple of the table size: every deal is played from every seat). Its numbers for one
agent come from::

    ice-envs evaluate --suite v1 AGENT [--workers K]          # every game of the suite the agent plays
    ice-envs evaluate --suite v1 cubemelt AGENT               # one game

(``AGENT`` is a spec: ``greedy``, ``mcts:sims=100``, ``ppo:checkpoints/cubemelt_ppo/final.npz``;
a checkpoint plays only the game it was trained for.) A suite, once published, never changes:
a different table is a new version.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

import ice_envs
from ice_envs.agents.ppo_agent import load_policy_net
from ice_envs.agents.spec import parse_agent_spec
from ice_envs.core.errors import OptionError
from ice_envs.evaluation.tournament import check_engine, evaluate

#: Half-open range of training seeds (run seeds, env seeds, the deals training draws).
TRAINING_SEEDS = range(0, 2**63)
#: Half-open range of the deals of in-training evaluations.
VALIDATION_SEEDS = range(2**63, 2**63 + 2**40)
#: Half-open range the held-out suites draw their deals from.
SUITE_SEEDS = range(2**63 + 2**40, 2**64)
#: The first validation deal: the default ``eval.seed`` of a training config.
DEFAULT_VALIDATION_SEED = VALIDATION_SEEDS.start


@dataclass(frozen=True)
class SuiteTable:
    """One table of a suite: the agent under test takes one seat, the opponents the others."""

    game: str
    players: int
    #: Agent specs of the other seats (``players - 1`` of them).
    opponents: tuple[str, ...]
    games: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        kinds = sorted(set(self.opponents))
        return f"{self.game}-{self.players}p-vs-{'-'.join(kinds)}"


@dataclass(frozen=True)
class Suite:
    """A versioned held-out evaluation suite: its tables and the first seed of its deals."""

    version: str
    base: int
    tables: tuple[SuiteTable, ...]
    #: Whether registered games outside :attr:`tables` join with the tables of their spec (``GameSpec.held_out``).
    plugin_tables: bool = False

    def seed_of(self, table: SuiteTable) -> int:
        """The first deal seed of ``table``: every table of a game meets the same deals.

        A plug-in game's tables (:meth:`all_tables`) start after the suite's own games, at a slot fixed
        by the game's name, so adding or removing a plug-in never moves another game's deals."""
        games = sorted({t.game for t in self.tables})
        if table.game in games:
            return self.base + games.index(table.game) * 2**32
        return self.base + (len(games) + _plugin_slot(table.game)) * 2**32

    def all_tables(self) -> tuple[SuiteTable, ...]:
        """The suite's own tables, then (with :attr:`plugin_tables`) the held-out tables (``GameSpec.held_out``)
        of every registered game the suite has none of: how a plug-in game joins a published suite."""
        if not self.plugin_tables:
            return self.tables
        own = {t.game for t in self.tables}
        extra = [
            SuiteTable(spec.name, t.players, (t.opponent,) * (t.players - 1), t.games, dict(t.options))
            for spec in ice_envs.GAMES.values()
            if spec.name not in own
            for t in spec.held_out
        ]
        return (*self.tables, *extra)

    def tables_of(self, game: str | None) -> tuple[SuiteTable, ...]:
        return tuple(t for t in self.all_tables() if game is None or t.game == game)


def _plugin_slot(game: str) -> int:
    """A slot of 2**32 deals for a plug-in game, from its name (below 2**28: inside :data:`SUITE_SEEDS`)."""
    return int.from_bytes(hashlib.sha256(game.encode()).digest()[:4], "big") % 2**28


def _vs(game: str, players: int, opponent: str, games: int, **options: Any) -> SuiteTable:
    return SuiteTable(game, players, (opponent,) * (players - 1), games, dict(options))


#: Suite v1: per game the player count of its shipped checkpoint, against random and heuristic seats; a
#: plug-in game's tables come from its spec.
SUITE_V1 = Suite(
    version="v1",
    base=SUITE_SEEDS.start,
    tables=(
        _vs("cardiceo", 4, "random", 1000),
        _vs("cardiceo", 4, "heuristic", 1000),
        _vs("cubemelt", 3, "random", 999),
        _vs("cubemelt", 3, "heuristic", 999),
        _vs("iceberg_rummy", 4, "random", 400, single_hand=True),
        _vs("iceberg_rummy", 4, "heuristic", 400, single_hand=True),
        _vs("tip_of_the_diceberg", 4, "random", 200),
        _vs("tip_of_the_diceberg", 4, "heuristic", 200),
        _vs("icebergs", 4, "random", 200, max_turns_end="decide"),
        _vs("icebergs", 4, "heuristic", 200, max_turns_end="decide"),
    ),
    plugin_tables=True,
)

SUITES: dict[str, Suite] = {"v1": SUITE_V1}


def get_suite(version: str) -> Suite:
    """The suite called ``version`` (``OptionError`` naming the known ones otherwise)."""
    try:
        return SUITES[version]
    except KeyError:
        raise OptionError(f"unknown suite {version!r}; known suites: {sorted(SUITES)}") from None


def suite_tables_for(suite: Suite, agent: str, game: str | None) -> tuple[SuiteTable, ...]:
    """The tables of ``suite`` that ``agent`` plays: ``game``'s, or a checkpoint's own game, or all."""
    spec = parse_agent_spec(agent)
    if game is None and spec.kind == "ppo" and spec.path:
        game = load_policy_net(spec.path).meta.get("game")
    if game is not None:
        game = ice_envs.get_spec(game).name
    tables = suite.tables_of(game)
    if not tables:
        raise OptionError(f"suite {suite.version} has no table of {game}")
    return tables


def run_suite(
    suite: Suite,
    agent: str,
    game: str | None = None,
    workers: int = 1,
    progress: bool = True,
    engine: str = "auto",
    chance: str | None = None,
) -> dict[str, Any]:
    """Play ``agent`` (one spec) in the first seat entry of each of its suite tables; the report.

    ``engine`` and ``chance``: as in :func:`~ice_envs.evaluation.tournament.evaluate`. The suite's published
    numbers are numpy chance's (the default); ``chance="splitmix"`` plays other deals from the same seeds,
    and the report says so (``chance``), whichever engine plays them.
    """
    chance = check_engine(engine, chance)
    rows = []
    for table in suite_tables_for(suite, agent, game):
        seed = suite.seed_of(table)
        start = time.perf_counter()
        summary, _ = evaluate(
            table.game,
            table.players,
            ",".join((agent, *table.opponents)),
            table.games,
            seed,
            workers,
            dict(table.options),
            progress=progress,
            engine=engine,
            chance=chance,
        )
        me = summary["per_agent"][0]
        rows.append(
            {
                "table": table.name,
                "game": table.game,
                "players": table.players,
                "opponents": list(table.opponents),
                "options": dict(table.options),
                "games": table.games,
                "first_deal_seed": seed,
                "wins": me["wins"],
                "win_rate": me["win_rate"],
                "win_rate_ci95": me["win_rate_ci95"],
                "mean_score": me["mean_score"],
                "mean_rank": me["mean_rank"],
                "truncated": summary["truncated_games"],
                "random_baseline": 1.0 / table.players,
                "wall_seconds": round(time.perf_counter() - start, 2),
            }
        )
    chance_key = {"chance": chance} if chance != "numpy" else {}  # numpy chance's reports stay as they were
    return {"suite": suite.version, "agent": agent, **chance_key, "tables": rows}


def suite_markdown(report: dict[str, Any], command: str) -> str:
    """One agent's suite numbers as a Markdown table."""
    chance = report.get("chance", "numpy")
    other_deals = f" ({chance} chance: other deals than the suite's published numbers)" if chance != "numpy" else ""
    lines = [
        f"Suite {report['suite']}, agent `{report['agent']}`: `{command}`{other_deals}",
        "",
        "| table | games | wins | win rate [95%] | 1/N | mean score | mean rank | truncated | wall s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["tables"]:
        lo, hi = r["win_rate_ci95"]
        lines.append(
            f"| {r['table']} | {r['games']} | {r['wins']} | {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | "
            f"{r['random_baseline']:.3f} | {r['mean_score']:.2f} | {r['mean_rank']:.2f} | {r['truncated']} | "
            f"{r['wall_seconds']:.0f} |"
        )
    return "\n".join(lines) + "\n"
