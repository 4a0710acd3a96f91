"""Game records and replays: the format, deterministic replay to the identical state, clear mismatches."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

import ice_envs
from ice_envs.cli import main
from ice_envs.evaluation.record import GameRecorder, RecordError, load_record, parse_record, state_digest
from ice_envs.evaluation.replay import frame_steps, replay
from tests.play.helpers import random_game

GAMES = sorted(ice_envs.GAMES)


def test_record_lines_header_decisions_outcome(tmp_path):
    env, rec = random_game("cardiceo", 1, tmp_path / "g.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    header, steps, last = lines[0], lines[1:-1], lines[-1]
    assert header["record"] == "ice-envs game" and header["game"] == "cardiceo"
    assert header["num_players"] == 2 and header["seed"] == 1 and header["options"] == {"hand_size": 5}
    assert header["agents"] == ["random", "random"] and header["ice_envs_version"] == ice_envs.__version__
    assert [s["step"] for s in steps] == list(range(len(steps))) == list(range(env.num_steps))
    assert all(set(s) == {"step", "agent", "action", "description"} for s in steps)
    outcome = last["outcome"]
    assert outcome["finished"] and outcome["steps"] == env.num_steps
    assert sorted(outcome["rewards"].values()) == [-1.0, 1.0]
    assert outcome["scores"] == env.scores().tolist() and outcome["state_digest"] == state_digest(env)


@pytest.mark.parametrize("game", GAMES)
def test_replay_reaches_the_identical_final_state(game, tmp_path):
    env, _ = random_game(game, 11, tmp_path / "g.jsonl")
    result = replay(tmp_path / "g.jsonl", tmp_path / "frames", every=10_000)
    assert result.checked_outcome and result.steps == env.num_steps
    played, replayed = env.state_dict(), result.env.state_dict()
    for key in ("state", "rng", "num_steps", "cumulative_rewards", "terminations", "truncations"):
        assert replayed[key] == played[key], key
    assert [p.name for p in result.frames] == ["frame_00000.png", f"frame_{env.num_steps:05d}.png"]
    first = np.asarray(Image.open(result.frames[0]))
    assert first.ndim == 3 and first.shape[2] == 3
    gif = Image.open(result.gif)
    assert gif.n_frames == 2


def test_replay_cli_writes_frames_and_gif(tmp_path, capsys):
    env, _ = random_game("cubemelt", 3, tmp_path / "g.jsonl")
    assert main(["replay", str(tmp_path / "g.jsonl"), "--out", str(tmp_path / "out"), "--every", "4"]) == 0
    out = capsys.readouterr().out
    assert "outcome matches the record" in out
    frames = sorted((tmp_path / "out").glob("frame_*.png"))
    assert len(frames) == len(frame_steps(env.num_steps, 4, 0))
    assert (tmp_path / "out" / "replay.gif").is_file()


def _write(path, lines):
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def test_replay_fails_clearly_when_the_record_does_not_match(tmp_path, capsys):
    _, rec = random_game("cardiceo", 5)
    header, steps, outcome = rec.record.header, rec.record.steps, rec.record.outcome
    bad = tmp_path / "bad.jsonl"

    env = ice_envs.make("cardiceo", num_players=2, raw=True, **header["options"])
    env.reset(seed=header["seed"])
    for s in steps[:3]:
        env.step(s["action"])
    illegal = [dict(s) for s in steps]
    illegal[3]["action"] = min(set(range(10)) - set(env.legal_actions()))
    _write(bad, [header, *illegal, {"outcome": outcome}])
    with pytest.raises(RecordError, match="line 5: action .* is not legal here"):
        replay(bad)

    wrong_text = [dict(s) for s in steps]
    wrong_text[0]["description"] = "discard the ace of spades"
    _write(bad, [header, *wrong_text, {"outcome": outcome}])
    with pytest.raises(RecordError, match="line 2: action .* but the record says 'discard the ace of spades'"):
        replay(bad)

    wrong_agent = [dict(s) for s in steps]
    wrong_agent[0]["agent"] = "player_1"
    _write(bad, [header, *wrong_agent, {"outcome": outcome}])
    with pytest.raises(RecordError, match="line 2: the record has player_1 acting, but player_0 is to act"):
        replay(bad)

    _write(bad, [header, *steps, steps[-1], {"outcome": outcome}])
    with pytest.raises(RecordError, match="already over"):
        replay(bad)

    _write(bad, [{**header, "seed": 6}, *steps, {"outcome": outcome}])
    with pytest.raises(RecordError):
        replay(bad)

    _write(bad, [header, *steps, {"outcome": {**outcome, "scores": [0.0, 0.0]}}])
    with pytest.raises(RecordError, match="does not end as the record says: scores"):
        replay(bad)
    assert main(["replay", str(bad), "--out", str(tmp_path / "x"), "--no-gif", "--every", "1000"]) == 2
    assert "ice-envs: error:" in capsys.readouterr().err

    _write(bad, [{**header, "options": {"hand_size": 7}}, *steps])
    with pytest.raises(RecordError, match="does not build a game"):
        replay(bad)


def test_parse_errors_name_the_line(tmp_path):
    with pytest.raises(RecordError, match="line 1: not an ice-envs game record header"):
        parse_record(['{"game": "cardiceo"}'])
    header = json.dumps({"record": "ice-envs game", "format": 1, "game": "cardiceo", "num_players": 2})
    with pytest.raises(RecordError, match="line 2: not JSON"):
        parse_record([header, "{nope"])
    with pytest.raises(RecordError, match="line 2: decision line lacks"):
        parse_record([header, '{"step": 0}'])
    with pytest.raises(RecordError, match="line 3: nothing may follow the outcome line"):
        parse_record([header, '{"outcome": {}}', '{"agent": "player_0", "action": 1}'])
    with pytest.raises(RecordError, match="empty record"):
        parse_record([])
    with pytest.raises(FileNotFoundError):
        load_record(tmp_path / "missing.jsonl")
    with pytest.raises(RecordError, match="cannot be recorded as JSON"):
        GameRecorder("cardiceo", 2, {"x": object()})


def test_frame_selection():
    assert frame_steps(10, None, 100) == set(range(11))
    assert frame_steps(10, 3, 100) == {0, 3, 6, 9, 10}
    keep = frame_steps(1000, None, 50)
    assert len(keep) <= 51 and 0 in keep and 1000 in keep


def test_evaluate_keeps_sample_game_records(tmp_path):
    """``ice-envs evaluate --record K`` writes K records that replay."""
    out = tmp_path / "eval"
    args = ["evaluate", "cardiceo", "--players", "2", "--agents", "heuristic,random", "--games", "4"]
    assert main([*args, "--record", "3", "--out", str(out), "--no-progress"]) == 0
    records = sorted((out / "records").glob("*.jsonl"))
    assert [p.name for p in records] == ["game_00000.jsonl", "game_00001.jsonl", "game_00002.jsonl"]
    assert load_record(records[1]).header["agents"] == ["random", "heuristic"]  # game 1 rotates the seats
    assert all(replay(p).checked_outcome for p in records)


def test_outcome_is_taken_before_the_dead_steps_of_an_agent_loop(tmp_path):
    """A PettingZoo agent_iter loop steps None for every finished agent; the record still says truncated."""
    env = ice_envs.make("icebergs", num_players=2, max_turns=2)
    env.reset(seed=0)
    rec = GameRecorder("icebergs", 2, {"max_turns": 2}, 0, ["random", "random"])
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        rec.step(env, action)
        env.step(action)
        rec.observe_rewards(env)
    assert not env.agents  # every agent was removed by its dead step
    rec.finish(env)
    assert rec.record.outcome["finished"] and rec.record.outcome["truncated"]
    rec.save(tmp_path / "t.jsonl")
    assert replay(tmp_path / "t.jsonl").checked_outcome
