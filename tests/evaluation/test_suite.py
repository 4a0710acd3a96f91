"""Seed ranges and the held-out suite: training, validation and suite deals never meet."""

from __future__ import annotations

import json

import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.registry import built_in_games
from ice_envs.evaluation import suite as suites
from ice_envs.evaluation.suite import SUITE_SEEDS, SUITE_V1, TRAINING_SEEDS, VALIDATION_SEEDS, Suite, SuiteTable


def test_the_three_seed_ranges_are_disjoint_and_ordered() -> None:
    assert TRAINING_SEEDS.stop <= VALIDATION_SEEDS.start and VALIDATION_SEEDS.stop <= SUITE_SEEDS.start
    assert 0 in TRAINING_SEEDS and 2**63 in VALIDATION_SEEDS and 2**63 + 2**40 in SUITE_SEEDS
    assert all(2**64 not in span for span in (TRAINING_SEEDS, VALIDATION_SEEDS, SUITE_SEEDS))


def test_suite_v1_is_fixed_and_held_out() -> None:
    games = {t.game for t in SUITE_V1.tables}
    assert games == set(built_in_games())  # plug-ins bring their own tables (GameSpec.held_out)
    for table in SUITE_V1.tables:
        assert table.games % table.players == 0 and len(table.opponents) == table.players - 1
        first = SUITE_V1.seed_of(table)
        assert first in SUITE_SEEDS and first + table.games in SUITE_SEEDS
        ice_envs.make(table.game, num_players=table.players, raw=True, **table.options)
    # every game's tables meet the same deals; different games never share deals
    seeds = {t.game: SUITE_V1.seed_of(t) for t in SUITE_V1.tables}
    assert len(set(seeds.values())) == len(seeds)


def test_training_configs_refuse_seeds_outside_their_ranges() -> None:
    from ice_envs.train.config import config_from_dict

    base = {"game": {"name": "cardiceo", "players": 2}, "total_timesteps": 100}
    assert config_from_dict(base).eval.seed == suites.DEFAULT_VALIDATION_SEED
    for bad in (0, SUITE_V1.base):
        with pytest.raises(OptionError, match="eval.seed"):
            config_from_dict({**base, "eval": {"seed": bad}})
    with pytest.raises(OptionError, match="training seeds"):
        config_from_dict({**base, "seed": SUITE_V1.base})


def test_an_unknown_suite_is_named() -> None:
    with pytest.raises(OptionError, match="v9"):
        suites.get_suite("v9")


def test_run_suite_plays_the_agent_in_the_first_seat_entry() -> None:
    tiny = Suite("t", SUITE_SEEDS.start, (SuiteTable("cardiceo", 2, ("random",), 4, {"hand_size": 5}),))
    report = suites.run_suite(tiny, "heuristic", progress=False)
    (row,) = report["tables"]
    assert row["games"] == 4 and row["first_deal_seed"] == SUITE_SEEDS.start and 0 <= row["wins"] <= 4
    assert suites.run_suite(tiny, "heuristic", progress=False)["tables"][0]["wins"] == row["wins"]
    with pytest.raises(OptionError, match="no table of cubemelt"):
        suites.run_suite(tiny, "random", "cubemelt", progress=False)


def test_a_checkpoint_plays_only_its_own_game_of_the_suite() -> None:
    tables = suites.suite_tables_for(SUITE_V1, "ppo:checkpoints/cubemelt_ppo/final.npz", None)
    assert {t.game for t in tables} == {"cubemelt"}


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--suite", "v1", "cardiceo", "random", "--players", "2"],
        ["evaluate", "--suite", "v1", "a", "b", "c"],
        ["evaluate", "cardiceo", "--agents", "random,random"],
        ["evaluate", "--suite", "v9", "random"],
    ],
)
def test_suite_command_line_mistakes_are_one_line(argv, capsys) -> None:
    from ice_envs.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ice-envs")


def test_the_suite_command_line_writes_its_report(tmp_path, monkeypatch) -> None:
    from ice_envs.cli import main

    tiny = Suite("v1", SUITE_SEEDS.start, (SuiteTable("cardiceo", 2, ("random",), 2, {"hand_size": 5}),))
    monkeypatch.setitem(suites.SUITES, "v1", tiny)
    assert main(["evaluate", "--suite", "v1", "random", "--no-progress", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "suite.json").read_text())
    assert data["command"] == "ice-envs evaluate --suite v1 random --workers 1" and len(data["tables"]) == 1


def test_a_plugin_brings_its_own_held_out_tables(monkeypatch) -> None:
    """A game outside the suite's own tables joins it through ``GameSpec.held_out``; the built-in deals stay put."""
    from dataclasses import replace

    from ice_envs.core.registry import GAMES, HeldOutTable

    seeds_before = [SUITE_V1.seed_of(t) for t in SUITE_V1.tables]
    plugin = replace(GAMES["cubemelt"], name="dice_fake", held_out=(HeldOutTable(3, "random", 30, {"goal": 10}),))
    monkeypatch.setitem(GAMES, "dice_fake", plugin)
    (table,) = SUITE_V1.tables_of("dice_fake")
    assert table == SuiteTable("dice_fake", 3, ("random", "random"), 30, {"goal": 10})
    assert table in SUITE_V1.tables_of(None) and table not in SUITE_V1.tables
    assert [SUITE_V1.seed_of(t) for t in SUITE_V1.tables] == seeds_before
    first = SUITE_V1.seed_of(table)
    assert first in SUITE_SEEDS and first + table.games in SUITE_SEEDS and first > max(seeds_before)
