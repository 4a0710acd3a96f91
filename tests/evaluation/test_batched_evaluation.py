"""Evaluation on the compiled engine plays the scalar evaluation's games, game by game.

For every game, a small table is played twice with splitmix chance (:class:`Match.chance`): once by the
scalar path (one AEC env per game, :func:`play_game`) and once by the batched one (one compiled engine
for the table, :mod:`ice_envs.evaluation.batched`); every per-game result (rewards, scores, ranks, wins,
decisions, truncation) must be equal. The tables mix seats played inside the engine (``random``, and the
compiled ``greedy``/``heuristic`` where the game has them) with agents called from Python (a heuristic
Agent object, which wants views; a PPO checkpoint where it can sit at the table). Leagues and the CLI
carry the option through; numpy chance stays what it was (the digests of ``test_bit_exact``).

The compiled loops are built once per process (tens of seconds per game on a loaded machine).
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ice_envs.agents.ppo_agent import PPOAgent
from ice_envs.agents.spec import load_agent
from ice_envs.core.compiled_players import compiled_player_names
from ice_envs.core.errors import AgentSpecError, OptionError
from ice_envs.evaluation import league
from ice_envs.evaluation.batched import batch_key, compiled_twin, play_games_batched
from ice_envs.evaluation.tournament import Match, agent_entries, batched_plays, evaluate, run_games

ROOT = Path(__file__).resolve().parents[2]

#: game -> (players, options, max_decisions): small tables whose games end (or are cut) quickly.
TABLES: dict[str, tuple[int, dict[str, Any], int | None]] = {
    "cardiceo": (3, {}, None),
    "cubemelt": (3, {}, None),
    "iceberg_rummy": (2, {"max_hands": 2}, 400),
    "tip_of_the_diceberg": (3, {"num_rounds": 1}, 300),
    "icebergs": (3, {"max_turns": 8}, None),
}
GAMES = 12


def ppo_spec(game: str, players: int, options: dict[str, Any]) -> str | None:
    """The game's shipped PPO checkpoint as a spec, if it can sit at this table (else ``None``)."""
    path = ROOT / "checkpoints" / f"{game}_ppo" / "final.npz"
    if not path.is_file():
        return None
    spec = f"ppo:{path}?players=any"
    try:
        load_agent(spec, game, num_players=players)
    except (AgentSpecError, OptionError):
        return None
    return spec


def both_ways(
    game: str,
    agents: list[Any],
    games: int = GAMES,
    seed: int = 5,
    more_options: dict[str, Any] | None = None,
    **kw: Any,
) -> list[dict[str, Any]]:
    """The per-game results of the scalar splitmix path; asserts the batched path's are equal."""
    players, options, max_decisions = TABLES[game]
    base = dict(
        game=game,
        num_players=players,
        options={**options, **(more_options or {})},
        agents=agent_entries(agents, players),
        seed=seed,
        max_decisions=max_decisions,
        chance="splitmix",
    )
    scalar = run_games(Match(**base), games, progress=False)
    batched = run_games(Match(**base, engine="batched"), games, progress=False, **kw)
    for s, b in zip(scalar, batched, strict=True):
        assert s == b, f"{game} {agents}: game {s['game_index']}: scalar {s} != batched {b}"
    return scalar


@pytest.mark.parametrize("game", sorted(TABLES))
def test_batched_plays_the_scalar_games_in_engine_and_from_python(game: str) -> None:
    players, options, _ = TABLES[game]
    # every seat inside the engine: random, and the compiled players the game has
    inside = (list(compiled_player_names(game)) + ["random"] * players)[:players]
    results = both_ways(game, inside)
    assert {r["deal_seed"] for r in results} == {5 + i // players for i in range(GAMES)}
    assert any(r["decisions"] > 0 for r in results)
    # seats played from Python: a heuristic object (wants views) and, where it fits, the shipped PPO agent
    heuristic = load_agent("heuristic", game, num_players=players)
    assert compiled_twin(heuristic, game) is None
    mixed: list[Any] = ["random", heuristic]
    ppo = ppo_spec(game, players, options)
    if ppo is not None and players > 2:
        mixed.append(ppo)
    mixed += ["random"] * (players - len(mixed))
    both_ways(game, mixed)


@pytest.mark.parametrize("game", sorted(TABLES))
def test_compiled_heuristic_and_greedy_seats(game: str) -> None:
    names = [n for n in compiled_player_names(game) if n != "random"]
    if not names:
        pytest.skip(f"{game} has no compiled greedy/heuristic player yet (compiled_player_names: random only)")
    players = TABLES[game][0]
    for name in names:
        assert compiled_twin(agent_entries([name] + ["random"] * (players - 1), players)[0], game) == name
        # the compiled player inside the engine, a heuristic object from Python beside it
        python_heuristic = load_agent("heuristic", game, num_players=players)
        both_ways(game, [name, python_heuristic] + ["random"] * (players - 2), games=2 * players)


@pytest.mark.parametrize("deterministic", [True, False])
def test_ppo_seats_decide_in_one_forward_pass_and_play_the_scalar_games(deterministic: bool) -> None:
    """Two seats of one checkpoint (greedy or sampling) decide together; the games are the scalar path's."""
    game = "cardiceo"
    players = TABLES[game][0]
    path = ROOT / "checkpoints" / f"{game}_ppo" / "final.npz"
    agents = [PPOAgent.load(path, game=game, num_players=players, check_meta=False, deterministic=deterministic)]
    agents.append(copy.deepcopy(agents[0]))
    assert batch_key(agents[0]) == batch_key(agents[1]) is not None
    calls: list[int] = []
    real = PPOAgent.act_batch

    def counted(batch: Any, observations: Any, masks: Any) -> list[int]:
        calls.append(len(batch))
        return real(batch, observations, masks)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PPOAgent, "act_batch", staticmethod(counted))
        results = both_ways(game, [*agents, "random"], games=2 * GAMES)
    assert max(calls) > 1  # several games' seats in one call
    assert any(r["decisions"] > 0 for r in results)


def test_score_rewards_are_the_scalar_totals() -> None:
    """Iceberg Rummy's scores are fractions: a score-reward table's totals must be the scalar path's sums."""
    players = 2
    match = Match("iceberg_rummy", players, {"reward_mode": "score"}, agent_entries("random,random", players), 0)
    assert not batched_plays(replace(match, chance="splitmix", engine="batched"))
    assert batched_plays(replace(match, options={}, chance="splitmix", engine="batched"))
    results = both_ways("iceberg_rummy", ["random", "heuristic"], games=4, more_options={"reward_mode": "score"})
    assert any(r["reward"] != [round(x) for x in r["reward"]] for r in results)  # fractional totals were compared


def test_batches_and_workers_do_not_change_results() -> None:
    game = "cardiceo"
    players, options, max_decisions = TABLES[game]
    match = Match(game, players, options, agent_entries("random,random,random", players), 2, chance="splitmix")
    whole = play_games_batched(match, list(range(9)))
    parts = play_games_batched(match, [4, 5, 6, 7, 8]), play_games_batched(match, [0, 1, 2, 3])
    assert whole == sorted(parts[0] + parts[1], key=lambda r: r["game_index"])
    both_ways(game, ["random", "random", "random"], games=9, seed=2, workers=2)


def test_splitmix_chance_deals_other_games_than_numpy() -> None:
    _, numpy_games = evaluate("cubemelt", 3, "random,random,random", 6, seed=1, progress=False)
    summary, split = evaluate("cubemelt", 3, "random,random,random", 6, seed=1, progress=False, engine="batched")
    assert summary["chance"] == "splitmix"
    assert [r["deal_seed"] for r in split] == [r["deal_seed"] for r in numpy_games]
    assert split != numpy_games
    numpy_summary, _ = evaluate("cubemelt", 3, "random,random,random", 6, seed=1, progress=False)
    assert "chance" not in numpy_summary


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"engine": "gpu"}, "--engine must be one of scalar, batched, auto"),
        ({"chance": "dice"}, "--chance must be one of numpy, splitmix"),
        ({"engine": "batched", "chance": "numpy"}, "--engine batched plays the compiled engine's chance"),
        ({"chance": "splitmix", "record": 2, "record_dir": Path("unused")}, "--record needs --chance numpy"),
    ],
)
def test_bad_engine_or_chance_is_one_clear_error(kwargs: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(OptionError, match=message):
        evaluate("cardiceo", 2, "random,random", 2, progress=False, **kwargs)


def test_league_on_the_batched_engine_has_the_scalar_splitmix_tables(tmp_path: Path) -> None:
    cfg = league.config_from_dict(
        {
            "game": "cardiceo",
            "players": 2,
            "agents": {"random": "random", "greedy": "greedy", "heuristic": "heuristic"},
            "games_per_table": 4,
            "seed": 3,
        }
    )
    league.play_league(cfg, tmp_path / "a", progress=False, echo=lambda *_: None)
    numpy_tables = {p.name: json.loads(p.read_text()) for p in (tmp_path / "a" / "tables").glob("*.json")}
    assert all("chance" not in t["key"] for t in numpy_tables.values())
    scalar = league.play_league(
        cfg, tmp_path / "a", progress=False, echo=lambda *_: None, engine="scalar", chance="splitmix"
    )
    assert len(scalar["tables_played"]) == 3 and not scalar["tables_reused"]  # a numpy table is not a splitmix one
    batched = league.play_league(cfg, tmp_path / "b", progress=False, echo=lambda *_: None, engine="batched")
    assert batched["tables_played"] == scalar["tables_played"]
    for name in scalar["tables_played"]:
        a = json.loads((tmp_path / "a" / "tables" / f"{name}.json").read_text())
        b = json.loads((tmp_path / "b" / "tables" / f"{name}.json").read_text())
        assert a["key"] == b["key"] and a["key"]["chance"] == "splitmix"
        assert a["results"] == b["results"]
        assert a["results"] != numpy_tables[f"{name}.json"]["results"]  # other deals
    again = league.play_league(
        cfg, tmp_path / "b", progress=False, echo=lambda *_: None, engine="scalar", chance="splitmix"
    )
    assert len(again["tables_reused"]) == 3  # the scalar engine reuses the batched engine's tables
