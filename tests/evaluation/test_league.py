"""Leagues: one rating scale from mixed tables on identical deals, played incrementally."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import ice_envs
from ice_envs.agents.ppo_agent import PolicyNet, observation_pieces
from ice_envs.core.errors import AgentSpecError, OptionError
from ice_envs.evaluation import league

BASE = {
    "game": "cardiceo",
    "players": 2,
    "options": {"hand_size": 5},
    "agents": {"rand_a": "random", "rand_b": "random", "heur": "heuristic"},
    "games_per_table": 6,
    "seed": 11,
}


def _cfg(**changes) -> league.LeagueConfig:
    return league.config_from_dict({**BASE, **changes})


def _quiet(*_args) -> None:
    pass


def test_a_config_names_its_chance_and_the_command_line_overrides_it(tmp_path) -> None:
    """``chance: splitmix`` plays the league on the compiled engine's deals (batched under ``auto``), as
    ``--chance splitmix`` does; ``--chance numpy`` given on the command line wins over the config."""
    cfg = _cfg(players=2, agents={"a": "random", "b": "greedy"}, games_per_table=4, chance="splitmix")
    assert cfg.chance == "splitmix" and _cfg().chance is None
    summary = league.play_league(cfg, tmp_path / "a", workers=1, progress=False, echo=_quiet)
    flagged = league.play_league(
        replace(cfg, chance=None), tmp_path / "b", workers=1, progress=False, echo=_quiet, chance="splitmix"
    )
    assert summary["chance"] == flagged["chance"] == "splitmix"
    assert summary["ratings"] == flagged["ratings"]
    overridden = league.play_league(cfg, tmp_path / "c", workers=1, progress=False, echo=_quiet, chance="numpy")
    assert overridden["chance"] == "numpy"
    with pytest.raises(OptionError, match="--chance splitmix"):
        league.play_league(replace(cfg, chance="numpy"), tmp_path / "d", progress=False, echo=_quiet, engine="batched")


def test_the_round_robin_has_every_set_of_distinct_agents() -> None:
    assert _cfg().tables() == [("rand_a", "rand_b"), ("rand_a", "heur"), ("rand_b", "heur")]
    four = _cfg(players=3, agents={k: "random" for k in "abcd"}, games_per_table=3)
    assert len(four.tables()) == 4 and all(len(set(t)) == 3 for t in four.tables())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": 1}, "unknown key"),
        ({"games_per_table": 5}, "multiple of players"),
        ({"agents": {"only": "random"}}, "cannot fill a table"),
        ({"agents": {"bad name!": "random"}}, "agent name"),
        ({"schedule": "swiss"}, "schedule"),
        ({"suite": "v1"}, "either 'suite' or 'seed'"),
        ({"players": 0}, "'players'"),
        ({"chance": "dice"}, "'chance' must be one of"),
        ({"options": {"hand_size": 99}}, "hand_size"),
    ],
)
def test_a_bad_config_is_one_clear_error(change: dict, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        _cfg(**change)


def test_a_bad_agent_spec_is_named() -> None:
    with pytest.raises(AgentSpecError, match="wizard"):
        _cfg(agents={"a": "random", "b": "wizard"})


def test_a_suite_league_deals_from_the_suite_seeds() -> None:
    from ice_envs.evaluation.suite import SUITE_SEEDS

    data = {k: v for k, v in BASE.items() if k != "seed"}
    cfg = league.config_from_dict(
        {
            **data,
            "players": 4,
            "options": {},
            "games_per_table": 4,
            "suite": "v1",
            "agents": {k: "random" for k in "abcd"},
        }
    )
    assert cfg.seed in SUITE_SEEDS and cfg.suite == "v1"


SHIPPED_CONFIGS = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "configs").glob("league_*.yaml"))


def test_every_suite_game_has_a_shipped_league_config() -> None:
    from ice_envs.evaluation.suite import SUITE_V1

    assert [p.stem.removeprefix("league_") for p in SHIPPED_CONFIGS] == sorted({t.game for t in SUITE_V1.tables})


@pytest.mark.parametrize("path", SHIPPED_CONFIGS, ids=lambda p: p.stem)
def test_a_shipped_league_config_plays_its_games_suite_table(path: Path) -> None:
    """Each shipped league loads (agents, checkpoints, env) and sits at its game's suite v1 table:
    the same player count, options and first deal, so its games are the suite's deals."""
    from ice_envs.evaluation.suite import SUITE_V1

    cfg = league.load_config(path)
    table = SUITE_V1.tables_of(cfg.game)[0]
    assert cfg.suite == "v1" and cfg.seed == SUITE_V1.seed_of(table)
    assert (cfg.players, cfg.options) == (table.players, dict(table.options))
    assert {"random", "greedy", "heuristic", "ppo"} <= set(cfg.agents)
    assert any(spec.startswith(("mcts", "flat")) for spec in cfg.agents.values())
    assert cfg.games_per_table >= 300 and cfg.games_per_table % cfg.players == 0


def test_the_shipped_league_results_are_those_of_their_configs() -> None:
    """docs/results.md renders each league from its shipped league.json (baselines.yaml's ``leagues``):
    each must have been played from its config as it is now (agents, table, deals, games)."""
    import yaml

    root = Path(__file__).resolve().parents[2]
    entries = yaml.safe_load((root / "benchmarks" / "configs" / "baselines.yaml").read_text())["leagues"]
    assert sorted(Path(e["config"]).name for e in entries) == [p.name for p in SHIPPED_CONFIGS]
    for entry in entries:
        cfg = league.load_config(root / entry["config"])
        shipped = json.loads((root / entry["results"]).read_text())
        assert (root / entry["image"]).is_file()
        played = {k: shipped[k] for k in ("game", "players", "options", "suite", "seed", "games_per_table", "agents")}
        assert played == {
            "game": cfg.game,
            "players": cfg.players,
            "options": cfg.options,
            "suite": cfg.suite,
            "seed": cfg.seed,
            "games_per_table": cfg.games_per_table,
            "agents": cfg.agents,
        }, entry["config"]
        assert shipped.get("chance", "numpy") == (cfg.chance or "numpy"), entry["config"]
        assert [t["agents"] for t in shipped["tables"]] == sorted(map(list, cfg.tables()), key=league.table_name)
        assert shipped["command"].startswith(f"ice-envs league {entry['config']} ")


def test_league_rates_every_agent_and_reuses_what_it_played(tmp_path) -> None:
    cfg = _cfg()
    first = league.play_league(cfg, tmp_path, progress=False, echo=_quiet)
    assert sorted(first["tables_played"]) == sorted(league.table_name(t) for t in cfg.tables())
    # identical deals across tables: game i of every table is dealt from the same seed
    tables = [json.loads((tmp_path / "tables" / f"{league.table_name(t)}.json").read_text()) for t in cfg.tables()]
    deals = {tuple(r["deal_seed"] for r in t["results"]) for t in tables}
    assert deals == {tuple(11 + i // 2 for i in range(6))}
    ratings = {row["agent"]: row for row in first["ratings"]}
    assert set(ratings) == set(cfg.agents) and all(row["games"] == 12 for row in ratings.values())
    pw = first["pairwise"]
    n = len(pw["agents"])
    for i in range(n):
        assert pw["ahead_share"][i][i] is None
        for j in range(n):
            if i != j:
                assert pw["ahead_share"][i][j] + pw["ahead_share"][j][i] == pytest.approx(1.0)
                assert pw["ci95_low"][i][j] <= pw["ahead_share"][i][j] <= pw["ci95_high"][i][j]
                assert 0.0 <= pw["p_value"][i][j] <= 1.0 and pw["games"][i][j] == 6
    again = league.play_league(cfg, tmp_path, progress=False, echo=_quiet)
    assert again["tables_played"] == [] and len(again["tables_reused"]) == 3
    assert again["ratings"] == first["ratings"] and again["pairwise"] == first["pairwise"]
    # a new agent plays only its own tables
    bigger = _cfg(agents={**BASE["agents"], "rand_c": "random"})
    third = league.play_league(bigger, tmp_path, progress=False, echo=_quiet)
    assert sorted(third["tables_played"]) == ["heur__rand_c", "rand_a__rand_c", "rand_b__rand_c"]
    assert len(third["tables_reused"]) == 3


def test_results_do_not_depend_on_the_number_of_workers(tmp_path) -> None:
    cfg = _cfg()
    one = league.play_league(cfg, tmp_path / "one", workers=1, progress=False, echo=_quiet)
    two = league.play_league(cfg, tmp_path / "two", workers=2, progress=False, echo=_quiet)
    assert one["ratings"] == two["ratings"] and one["pairwise"] == two["pairwise"]


def _checkpoint(path, seed: int) -> None:
    env = ice_envs.make("cardiceo", num_players=2, raw=True, hand_size=5)
    pieces = observation_pieces(env.obs_layout)
    rng = np.random.default_rng(seed)
    size, actions = env.obs_layout.size, env.action_space("player_0").n
    net = PolicyNet.checked(
        (rng.normal(size=(8, size)), rng.normal(size=(actions, 8))),
        (np.zeros(8), np.zeros(actions)),
        "tanh",
        {"game": "cardiceo", "players": 2, "options": {"hand_size": 5}, "observation_pieces": pieces},
    )
    net.save_npz(path)


def test_a_changed_checkpoint_replays_its_tables(tmp_path) -> None:
    ckpt = tmp_path / "agent.npz"
    _checkpoint(ckpt, seed=1)
    cfg = _cfg(agents={**BASE["agents"], "net": str(ckpt)})  # a bare checkpoint path is a ppo agent
    assert cfg.agents["net"] == f"ppo:{ckpt}"
    league.play_league(cfg, tmp_path / "out", progress=False, echo=_quiet)
    _checkpoint(ckpt, seed=2)
    again = league.play_league(cfg, tmp_path / "out", progress=False, echo=_quiet)
    assert sorted(again["tables_played"]) == ["heur__net", "rand_a__net", "rand_b__net"]


def test_the_report_is_written_as_json_markdown_and_png(tmp_path) -> None:
    summary = league.play_league(_cfg(), tmp_path, progress=False, echo=_quiet)
    league.write_report(summary, tmp_path, "ice-envs league x.yaml")
    data = json.loads((tmp_path / "league.json").read_text())
    assert data["command"] == "ice-envs league x.yaml" and len(data["ratings"]) == 3
    text = (tmp_path / "league.md").read_text()
    assert "rating μ" in text and "**heur**" in text
    assert (tmp_path / "league.png").read_bytes()[:4] == b"\x89PNG"


def test_the_league_command_line(tmp_path) -> None:
    from ice_envs.cli import main

    config = tmp_path / "league.yaml"
    config.write_text(json.dumps({**BASE, "out": str(tmp_path / "run")}))
    assert main(["league", str(config), "--no-progress"]) == 0
    assert (tmp_path / "run" / "league.md").is_file()
    config.write_text(json.dumps({**BASE, "games_per_table": 3}))
    assert main(["league", str(config), "--no-progress"]) == 2
