"""Config loading: defaults, overrides, and clear errors that name the bad key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ice_envs.train.config import ConfigError, apply_overrides, config_from_dict, dump_config, load_config
from tests.train.conftest import tiny_config_dict

CONFIGS = Path(__file__).resolve().parents[2] / "train" / "configs"


def write(tmp_path: Path, data: dict, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_defaults_and_name_from_file(tmp_path: Path):
    cfg = load_config(write(tmp_path, {"game": {"name": "cardiceo", "players": 3}}, "my_run.yaml"))
    assert cfg.name == "my_run"
    assert cfg.game.players == 3 and cfg.game.learner_seat is None
    assert cfg.ppo.activation == "tanh" and cfg.torch_threads == 1
    assert cfg.opponents.mix == {"random": 1.0}


def test_overrides_are_read_as_yaml(tmp_path: Path):
    path = write(tmp_path, tiny_config_dict())
    cfg = load_config(
        path,
        [
            "ppo.learning_rate=1e-4",  # PyYAML reads this as a string: still a number for a float key
            "ppo.net_arch=[8, 8, 8]",
            "game.options.hand_size=10",
            "opponents.mix={random: 1}",
            "seed=11",
        ],
    )
    assert cfg.ppo.learning_rate == pytest.approx(1e-4)
    assert cfg.ppo.net_arch == [8, 8, 8]
    assert cfg.game.options == {"hand_size": 10}
    assert cfg.opponents.mix == {"random": 1.0}
    assert cfg.seed == 11


def test_variant_options_and_evaluation_options():
    cfg = config_from_dict(tiny_config_dict(game__variant="short", game__options={"reward_mode": "score"}))
    assert cfg.resolved_options() == {"hand_size": 5, "reward_mode": "score"}
    assert cfg.eval_options() == {"hand_size": 5}  # evaluations count wins from the outcome


def test_resolved_config_round_trips(tmp_path: Path):
    cfg = config_from_dict(tiny_config_dict())
    again = config_from_dict(yaml.safe_load(dump_config(cfg)))
    assert again == cfg


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ppo__learnin_rate": 0.1}, r"ppo.learnin_rate: unknown key \(did you mean 'learning_rate'\?\)"),
        ({"colour": "blue"}, r"colour: unknown key; known keys: name, game"),
        ({"opponents__self_play__pool": 3}, r"opponents.self_play.pool: unknown key \(did you mean 'pool_size'\?\)"),
        ({"ppo__learning_rate": -1.0}, r"ppo.learning_rate: must be > 0, got -1.0"),
        ({"ppo__learning_rate": "fast"}, r"ppo.learning_rate: expected a number, got 'fast'"),
        ({"ppo__n_epochs": 2.5}, r"ppo.n_epochs: expected an integer, got 2.5"),
        ({"ppo__batch_size": 1000}, r"ppo.batch_size: must be in 2..n_steps\*n_envs \(64\)"),
        ({"ppo__activation": "sigmoid"}, r"ppo.activation: 'sigmoid' is not one of \['tanh', 'relu'\]"),
        ({"ppo__net_arch": {"pi": [8]}}, r"ppo.net_arch: a mapping needs exactly the keys pi and vf"),
        ({"ppo__net_arch": [8, 0]}, r"ppo.net_arch: layer sizes must be >= 1"),
        ({"ppo__gamma": 1.5}, r"ppo.gamma: must be in \(0, 1\]"),
        ({"game__name": "chess"}, r"game.name: unknown game 'chess'; known games"),
        ({"game__players": 9}, r"game.players: cardiceo \(default\) takes \[2, 3, 4, 5, 6\] players, got 9"),
        ({"game__variant": "long"}, r"game.variant: 'long' is not a variant of cardiceo"),
        ({"game__options": {"hand_size": 7}}, r"game.options: .*hand_size"),
        ({"game__options": {"colour": 1}}, r"game.options: "),
        ({"game__options": {"num_players": 3}}, r"game.options.num_players: is set by the trainer"),
        ({"game__learner_seat": 2}, r"game.learner_seat: must be in 0..1, got 2"),
        ({"opponents__mix": {"random": 1, "expert": 1}}, r"opponents.mix.expert: unknown kind"),
        ({"opponents__mix": {"random": 0}}, r"opponents.mix: weights must not all be 0"),
        ({"opponents__mix": {"random": -1}}, r"opponents.mix.random: weight must be >= 0"),
        ({"opponents__self_play__latest_share": 2}, r"opponents.self_play.latest_share: must be in \[0, 1\]"),
        ({"eval__against": ["random", "expert"]}, r"eval.against\[1\]: must be one of \['random', 'heuristic'\]"),
        ({"eval__games": 0}, r"eval.games: must be >= 1, got 0"),
        ({"n_envs": 0}, r"n_envs: must be >= 1, got 0"),
        ({"vec_env": "threads"}, r"vec_env: 'threads' is not one of \['auto', 'subproc', 'dummy', 'batched'\]"),
        ({"torch_threads": 0}, r"torch_threads: must be >= 1"),
        ({"seed": True}, r"seed: expected an integer, got True"),
        ({"eval__at_start": "yes"}, r"eval.at_start: expected true or false, got 'yes'"),
        ({"name": "a b"}, r"name: must be letters, digits"),
        ({"ppo": [1, 2]}, r"ppo: expected a mapping"),
        (
            {"reward_shaping__potential": "icebergs_voyage"},
            r"reward_shaping.potential: must be one of \[\] for cardiceo, got 'icebergs_voyage'",
        ),
        ({"reward_shaping__potential": "closer"}, r"reward_shaping.potential: must be one of \[\] for cardiceo"),
    ],
)
def test_bad_configs_name_the_key(changes: dict, message: str):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(tiny_config_dict(**changes))


def test_heuristic_opponent_needs_a_heuristic(monkeypatch: pytest.MonkeyPatch):
    import dataclasses

    import ice_envs

    spec = ice_envs.GAMES["cardiceo"]
    monkeypatch.setitem(ice_envs.GAMES, "cardiceo", dataclasses.replace(spec, heuristic=None))
    with pytest.raises(ConfigError, match=r"opponents.mix.heuristic: game 'cardiceo' has no heuristic agent"):
        config_from_dict(tiny_config_dict(opponents__mix={"heuristic": 1.0}))


def test_file_errors(tmp_path: Path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(bad)
    good = write(tmp_path, tiny_config_dict())
    with pytest.raises(ConfigError, match="is not key=value"):
        load_config(good, ["seed"])
    with pytest.raises(ConfigError, match=r"ppo.lr: unknown key"):
        load_config(good, ["ppo.lr=0.1"])
    with pytest.raises(ConfigError, match=r"override 'seed.x=1': seed is not a mapping"):
        apply_overrides({"seed": 1}, ["seed.x=1"])


def test_error_names_the_file(tmp_path: Path):
    path = write(tmp_path, tiny_config_dict(ppo__n_epochs=0))
    with pytest.raises(ConfigError, match=rf"{path.name}: ppo.n_epochs: must be >= 1"):
        load_config(path)


def test_shipped_configs_are_valid():
    import ice_envs

    paths = sorted(CONFIGS.glob("*.yaml"))
    assert paths, "no configs shipped"
    for path in paths:
        game = yaml.safe_load(path.read_text())["game"]["name"]
        if game not in ice_envs.GAMES:
            continue
        cfg = load_config(path)
        assert cfg.game.name == game
        assert path.stem.startswith(f"{game}_") and path.stem.endswith("_ppo"), path.name


def test_integers_are_read_exactly_beyond_a_floats_53_bits():
    seed = 2**63 + 1  # the validation seeds start at 2**63; as a float this would be 2**63
    cfg = config_from_dict(tiny_config_dict(eval__seed=seed))
    assert cfg.eval.seed == seed
    with pytest.raises(ConfigError, match=r"eval.seed: expected an integer, got '9223372036854775809'"):
        config_from_dict(tiny_config_dict(eval__seed=str(seed)))  # a quoted number is a string
    assert config_from_dict(tiny_config_dict(total_timesteps="3e3")).total_timesteps == 3000
    assert config_from_dict(tiny_config_dict(total_timesteps=3000.0)).total_timesteps == 3000


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("ppo.learning_rate=.inf", "ppo.learning_rate: must be a finite number, got inf"),
        ("ppo.gamma=.nan", "ppo.gamma: must be a finite number, got nan"),
        (
            "opponents.self_play.latest_share=1e400",
            "opponents.self_play.latest_share: must be a finite number, got inf",
        ),
        ("game.options.illegal_reward=-.inf", "game.options.illegal_reward: must be a finite number, got -inf"),
        ("ppo.learnig_rate=1e-4", "ppo.learnig_rate: unknown key (did you mean 'learning_rate'?)"),
        (
            "eval.workers=2",
            "eval.background: runs the evaluations in one background process: it needs eval.workers: 1, got 2",
        ),
        ("n_envs='4'", "n_envs: expected an integer, got '4'"),
        ("ppo.learning_rate='0.5'", "ppo.learning_rate: expected a number, got '0.5'"),
        ("eval.at_start=1", "eval.at_start: expected true or false, got 1"),
        ("game.name=3", "game.name: expected a string, got 3"),
        ("eval.against=[random, random]", "eval.against: lists an opponent twice, got ['random', 'random']"),
        ("ppo.net_arch={pi: [8], vf: [8, 0]}", "ppo.net_arch.vf: layer sizes must be >= 1, got [8, 0]"),
        ("verbose=3", "verbose: must be in 0..2, got 3"),
        ("imitation.workers=0", "imitation.workers: must be >= 1 or null, got 0"),
        ("opponents.mix={1: 1.0}", "opponents.mix: keys must be strings, got 1"),
    ],
)
def test_bad_values_are_one_line_naming_the_key(tmp_path: Path, override: str, message: str):
    path = write(tmp_path, {**tiny_config_dict(), "eval": {**tiny_config_dict()["eval"], "background": True}})
    with pytest.raises(ConfigError) as err:
        load_config(path, [override])
    assert str(err.value) == f"{path}: {message}"


def test_the_cli_prints_one_line_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    from ice_envs.cli import main

    path = write(tmp_path, tiny_config_dict())
    assert main(["train", str(path), "--set", "ppo.learning_rate=.inf", "--print-config"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{path}: ppo.learning_rate: must be a finite number, got inf") and "\n" not in err
    assert main(["train", str(path), "--set", "ppo.learning_rate=2e-4", "--print-config"]) == 0
    assert "learning_rate: 0.0002" in capsys.readouterr().out


def test_sections_are_shared_and_null_means_defaults():
    from ice_envs.train.config import RLlibTrainConfig, RunConfig, TrainConfig

    assert issubclass(TrainConfig, RunConfig) and issubclass(RLlibTrainConfig, RunConfig)
    common = set(RunConfig.model_fields)
    assert {"name", "game", "seed", "torch_threads", "out_dir"} <= common
    assert common <= set(TrainConfig.model_fields) & set(RLlibTrainConfig.model_fields)
    cfg = config_from_dict(tiny_config_dict(reward_shaping=None, imitation=None))
    assert cfg.reward_shaping.scale == 1.0 and cfg.imitation.teacher is None


def test_an_unknown_key_is_named_before_other_problems():
    with pytest.raises(ConfigError, match=r"ppo.learning_rat: unknown key \(did you mean 'learning_rate'\?\)"):
        config_from_dict(tiny_config_dict(ppo__learning_rate=0, ppo__learning_rat=0.1, n_envs=0))
