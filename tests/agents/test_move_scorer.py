"""The move-scoring learner: whole moves, feature rows, the model file, the agent and its training."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ice_envs.agents.move_scorer import BLOCKS, MoveFeaturizer, MoveScorerAgent, MoveScorerNet, load_move_scorer
from ice_envs.agents.search import same_state, simulator_for
from ice_envs.agents.spec import load_agent, parse_agent_spec
from ice_envs.agents.whole_moves import WHOLE_MOVE_LENGTH, WHOLE_MOVES_MAX, RecordingDraws, whole_moves
from ice_envs.cardiceo import move_features as cardiceo_features
from ice_envs.cardiceo import rules as cardiceo_rules
from ice_envs.core.agent import make_view
from ice_envs.core.errors import AgentSpecError, OptionError
from ice_envs.evaluation.tournament import evaluate
from ice_envs.tip_of_the_diceberg import move_features as tip_features
from ice_envs.tip_of_the_diceberg import rules as tip_rules
from ice_envs.train.move_learner import MoveLearnerConfig, deal_seed, load_config, train
from tests import leaky_game
from tests.positions import decisions

TIP = "tip_of_the_diceberg"


def _positions(game: str, players: int, seed: int, count: int, **options):
    """``count`` (another re-deal of the view, seat, view) positions of heuristic self-play with a choice to make."""
    heuristic = load_agent("heuristic", game, seed=0, num_players=players)
    found = []
    for env, seat, view in decisions(game, players, seed, [heuristic] * players, **options):
        if len(found) == count:
            break
        if len(view.legal_actions) > 1:
            found.append((make_view(env, seat, np.random.default_rng(len(found) + 999)), seat, view))
    return found


@pytest.mark.parametrize("game,players,options", [(TIP, 4, {}), ("cubemelt", 3, {}), ("cardiceo", 4, {})])
def test_whole_moves_are_legal_sequences_that_end_where_the_seat_stops_deciding(game, players, options):
    sim = simulator_for(game, players)
    ends = MoveFeaturizer(game, players, ("generic",)).ends_move
    for _, seat, view in _positions(game, players, 3, 12, **options):
        before = sim.copy(view.state)
        moves = whole_moves(sim, view.state, seat, ends=ends)
        assert same_state(before, view.state), "listing the moves changed the state"
        assert len(moves) < WHOLE_MOVES_MAX
        assert len({m for m, _ in moves}) == len(moves)
        assert {m[0] for m, _ in moves} == set(view.legal_actions)
        for i, (seq, _) in enumerate(moves):
            state = sim.copy(view.state)
            for k, action in enumerate(seq):
                assert sim.deciding_seat(state) == seat and action in sim.legal_actions(state)
                draws = RecordingDraws(np.random.default_rng(i))
                sim.apply(state, action, draws)
                ended = bool(draws.drawn) or sim.is_over(state) or sim.deciding_seat(state) != seat
                ended = ended or (ends is not None and ends(action, state))
                assert ended == (k == len(seq) - 1) or len(seq) == WHOLE_MOVE_LENGTH


def test_tip_draft_picks_are_moves_of_their_own():
    sim = simulator_for(TIP, 4)
    drafts = [(s, v) for _, s, v in _positions(TIP, 4, 5, 40) if v.state.phase == tip_rules.PHASE_DRAFT]
    assert drafts
    featurizer = MoveFeaturizer(TIP, 4, ("game",))
    for seat, view in drafts:
        moves = featurizer.moves(view.state, seat)
        assert all(len(m) == 1 for m, _ in moves)
        assert len(moves) == len(view.legal_actions)
    assert sim is featurizer.sim


@pytest.mark.parametrize("game,players,count", [(TIP, 4, 60), ("cardiceo", 4, 30)])
def test_game_features_read_only_what_the_seat_sees(game, players, count):
    """Two re-deals of one seat's view give the same game features for every move."""
    featurizer = MoveFeaturizer(game, players, ("game",))
    checked = 0
    for other, seat, view in _positions(game, players, 11, count):
        a = featurizer.candidates(view.state, seat)
        b = featurizer.candidates(other.state, seat)
        assert a[0] == b[0]
        np.testing.assert_array_equal(a[1], b[1])
        checked += 1
    assert checked == count


def test_cardiceo_features_describe_the_move():
    featurizer = MoveFeaturizer("cardiceo", 4, ("game",))
    col = {name: i for i, name in enumerate(cardiceo_features.NAMES)}
    kinds = set()
    for _, seat, view in _positions("cardiceo", 4, 4, 40):
        moves, rows = featurizer.candidates(view.state, seat)
        assert rows[:, col["turns_gap"]].min() == 0
        for move, row in zip(moves, rows):
            shed = sum(len(cardiceo_rules.SUBSETS[a]) > 0 for a in move if a < cardiceo_rules.NUM_SUBSETS)
            assert row[col["cards_shed"]] == shed
            assert row[col["is_reroll"]] == (cardiceo_rules.REROLL_ALL in move)
            if row[col["cards_shed"]] == row[col["cards_now"]]:
                assert row[col["turns_after"]] == 0  # went out
            kinds.add("reroll" if row[col["is_reroll"]] else "play")
    assert kinds == {"reroll", "play"}


def test_tip_features_describe_the_move():
    featurizer = MoveFeaturizer(TIP, 4, ("game",))
    col = {name: i for i, name in enumerate(tip_features.NAMES)}
    seen_play = seen_pass = 0
    for _, seat, view in _positions(TIP, 4, 2, 80):
        moves, rows = featurizer.candidates(view.state, seat)
        assert rows.shape == (len(moves), len(tip_features.NAMES))
        assert np.isfinite(rows).all()
        assert rows[:, col["total_gap"]].min() == 0
        for move, row in zip(moves, rows):
            if move[0] == tip_rules.PASS:
                seen_pass += 1
                assert row[col["is_pass"]] == 1 and row[col["turn_cost"]] == 1
                assert row[col["cost_after"]] == pytest.approx(row[col["cost_now"]], abs=1e-5)
            if any(tip_rules.COMMIT <= a < tip_rules.PASS for a in move):
                seen_play += 1
                assert row[col["is_play"]] == 1 and row[col["meld_items"]] >= 1
                assert row[col["power_none"] : col["power_clear"] + 1].sum() == 1
                if row[col["goes_out"]]:
                    assert row[col["cost_after"]] == 0
    assert seen_play and seen_pass


def _random_net(featurizer: MoveFeaturizer, seed: int = 0, **meta) -> MoveScorerNet:
    rng = np.random.default_rng(seed)
    size = featurizer.size
    weights = (rng.normal(size=(8, size)).astype(np.float32), rng.normal(size=(1, 8)).astype(np.float32))
    biases = (np.zeros(8, np.float32), np.zeros(1, np.float32))
    meta = {"game": featurizer.game, "players": featurizer.num_players, "features": featurizer.describe(), **meta}
    return MoveScorerNet(np.zeros(size, np.float32), np.ones(size, np.float32), weights, biases, meta)


def test_model_file_round_trip_and_agent_plays_whole_games(tmp_path: Path):
    featurizer = MoveFeaturizer(TIP, 3, ("generic", "game"))
    net = _random_net(featurizer)
    # a playable scorer: the heuristic's cost model (least turn cost plus hand cost), so that games end soon
    col = featurizer.size - len(tip_features.NAMES) + tip_features.NAMES.index("total")
    net.weights[0][:] = 0
    net.weights[0][:, col] = -1
    net.weights[1][:] = 1
    net.biases[0][:] = 0
    path = tmp_path / "model.npz"
    net.save(path)
    loaded = load_move_scorer(path)
    for a, b in zip(
        (loaded.mean, loaded.scale, *loaded.weights, *loaded.biases), (net.mean, net.scale, *net.weights, *net.biases)
    ):
        np.testing.assert_array_equal(a, b)
    assert {k: v for k, v in loaded.meta.items() if k not in ("format", "layers")} == net.meta
    rows = featurizer.candidates(_positions(TIP, 3, 1, 1, num_rounds=1)[0][2].state, 0)[1]
    np.testing.assert_array_equal(loaded.scores(rows), net.scores(rows))
    spec = f"moves:{path}"
    assert parse_agent_spec(spec).label == "moves:model.npz"
    table = [spec, "heuristic", "heuristic"]
    report, results = evaluate(TIP, 3, table, games=3, seed=0, options={"num_rounds": 1}, progress=False)
    _, again = evaluate(TIP, 3, table, games=3, seed=0, options={"num_rounds": 1}, progress=False)
    assert report["games"] == 3 and report["truncated_games"] == 0
    assert results == again


def test_bad_model_files_and_specs_name_the_problem(tmp_path: Path):
    with pytest.raises(AgentSpecError, match="needs its model file"):
        parse_agent_spec("moves")
    with pytest.raises(AgentSpecError, match="not found"):
        load_agent(f"moves:{tmp_path / 'none.npz'}", TIP, num_players=4)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(AgentSpecError, match="not a readable"):
        load_move_scorer(junk)
    plain = tmp_path / "plain.npz"
    np.savez(plain, mean=np.zeros(3), meta=np.array(json.dumps({"format": "other"})))
    with pytest.raises(AgentSpecError, match="not a ice-envs-move-scorer"):
        load_move_scorer(plain)
    featurizer = MoveFeaturizer(TIP, 4, ("generic", "game"))
    path = tmp_path / "tip4.npz"
    _random_net(featurizer).save(path)
    with pytest.raises(AgentSpecError, match="trained for 4 players"):
        load_agent(f"moves:{path}", TIP, num_players=3)
    with pytest.raises(AgentSpecError, match="trained for tip_of_the_diceberg, not cardiceo"):
        load_agent(f"moves:{path}", "cardiceo", num_players=4)
    other = MoveFeaturizer(TIP, 4, ("game",))
    with pytest.raises(AgentSpecError, match="features a move"):
        MoveScorerAgent(_random_net(other, features={"blocks": ["generic", "game"]}), TIP, 4)
    with pytest.raises(AgentSpecError, match="blocks"):
        MoveFeaturizer(TIP, 4, ("everything",))
    with leaky_game.registered(), pytest.raises(AgentSpecError, match="no game features"):
        MoveFeaturizer(leaky_game.SPEC.name, 2, ("game",))


@pytest.mark.parametrize("game,players", [("cardiceo", 4), ("cubemelt", 3)])
def test_observation_blocks_work_without_game_features(game, players):
    featurizer = MoveFeaturizer(game, players, ("observation", "change", "generic"))
    assert featurizer.size == 2 * featurizer.obs_size + 2
    agent = MoveScorerAgent(_random_net(featurizer), game, players, seed=0)
    report, _ = evaluate(
        game, players, [agent, "heuristic", *["random"] * (players - 2)], games=players, progress=False
    )
    assert report["games"] == players


def _tiny_config(**changes) -> MoveLearnerConfig:
    data = {
        "name": "tiny",
        "game": TIP,
        "players": 3,
        "options": {"num_rounds": 1},
        "opponents": ["heuristic", "heuristic"],
        "games": 2,
        "dagger_rounds": 1,
        "dagger_games": 1,
        "hidden": [8],
        "epochs": 2,
        "dagger_epochs": 1,
        "workers": 1,
        **changes,
    }
    return MoveLearnerConfig.model_validate(data)


def test_training_is_reproducible_and_records_the_run(tmp_path: Path):
    cfg = _tiny_config()
    net = train(cfg, tmp_path / "a", command="test", echo=False)
    train(cfg, tmp_path / "b", command="test", echo=False)
    a, b = load_move_scorer(tmp_path / "a" / "model.npz"), load_move_scorer(tmp_path / "b" / "model.npz")
    for x, y in zip((*a.weights, *a.biases, a.mean, a.scale), (*b.weights, *b.biases, b.mean, b.scale)):
        np.testing.assert_array_equal(x, y)
    assert a.meta == b.meta
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert meta["seed"] == 0 and meta["git"] and meta["versions"] and meta["machine"]
    assert [r["player"] for r in meta["rounds"]] == ["teacher", "learner"]
    assert meta["rounds"][0]["agreement"] == 1.0 and meta["rounds"][0]["labelled"] > 0
    assert (tmp_path / "a" / "config.yaml").exists() and any((tmp_path / "a" / "tb").iterdir())
    assert net.meta["game"] == TIP and net.meta["features"]["blocks"] == ["generic", "game"]
    agent = load_agent(f"moves:{tmp_path / 'a' / 'model.npz'}", TIP, seed=0, num_players=3)
    assert isinstance(agent, MoveScorerAgent)


def test_training_deals_are_training_seeds():
    assert deal_seed(2**30 - 1, 63, 63) < 2**63
    assert deal_seed(0, 1, 0) != deal_seed(0, 0, 1)


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"opponents": ["heuristic"]}, "2 specs needed"),
        ({"players": 7}, "not 7"),
        ({"teacher": "wizard"}, "unknown agent"),
    ],
)
def test_bad_configs_name_the_problem(changes, message):
    with pytest.raises((ValueError, AgentSpecError), match=message):
        _tiny_config(**changes).check()


def test_config_files_name_the_key(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ngame: tip_of_the_diceberg\nplayers: 4\nopponents: [a, b, c]\nepochs: 0\n")
    with pytest.raises(OptionError, match="epochs"):
        load_config(bad)
    shipped = Path(__file__).resolve().parents[2] / "train" / "configs" / "moves"
    for path in sorted(shipped.glob("*.yaml")):
        assert load_config(path).game in path.name


def test_unknown_keys_and_blocks_are_refused():
    with pytest.raises(ValueError, match="blocks"):
        _tiny_config(blocks=["vibes"])
    with pytest.raises(ValueError, match="extra"):
        _tiny_config(colour="blue")


def test_cli_bad_config_is_one_line_and_exit_2(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ngame: tip_of_the_diceberg\nplayers: 4\nopponents: [heuristic]\n")
    out = subprocess.run(
        [sys.executable, "-m", "ice_envs.train.move_learner", str(bad)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "3 specs needed" in out.stderr, out.stderr


def test_blocks_are_the_documented_ones():
    assert BLOCKS == ("observation", "change", "generic", "game")


SHIPPED = sorted((Path(__file__).resolve().parents[2] / "checkpoints").glob("*/model.npz"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.parent.name)
def test_shipped_move_scorers_play_their_table(path: Path):
    """Every shipped move scorer loads for the game, players and options of its config and plays a whole game."""
    import yaml

    config = yaml.safe_load(path.with_name("config.yaml").read_text())
    net = load_move_scorer(path)
    assert (net.meta["game"], net.meta["players"]) == (config["game"], config["players"])
    n = config["players"]
    table = [f"moves:{path}", *["random"] * (n - 1)]
    _, (result,) = evaluate(config["game"], n, table, games=1, seed=0, options=config["options"], progress=False)
    assert result["decisions"] > 0 and not result["truncated"]
