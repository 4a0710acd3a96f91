"""Hostile game records: every field is checked, nothing is evaluated, unfinished games are reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ice_envs.evaluation import record as record_module
from ice_envs.evaluation.record import RecordError, load_record, parse_record
from ice_envs.evaluation.replay import replay
from tests.play.helpers import random_game


@pytest.fixture(scope="module")
def good() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    _, rec = random_game("cardiceo", 5)
    return dict(rec.record.header), [dict(s) for s in rec.record.steps], dict(rec.record.outcome)


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_the_good_record_replays_and_is_finished(good, tmp_path):
    header, steps, outcome = good
    result = replay(write(tmp_path / "g.jsonl", [header, *steps, {"outcome": outcome}]))
    assert result.checked_outcome and result.finished


def test_a_record_with_a_byte_order_mark_loads(good, tmp_path):
    header, steps, outcome = good
    path = write(tmp_path / "g.jsonl", [header, *steps, {"outcome": outcome}])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_record(path).steps == steps


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("game", 5),
        ("game", ["cardiceo"]),
        ("num_players", "2"),
        ("num_players", True),
        ("num_players", 2.0),
        ("num_players", 0),
        ("options", ["hand_size", 5]),
        ("options", "hand_size=5"),
        ("seed", "5"),
        ("seed", True),
        ("seed", 1.5),
        ("seed", -1),
        ("agents", "random,random"),
        ("agents", [1, 2]),
        ("format", "1"),
        ("format", 99),
        ("ice_envs_version", 1),
    ],
)
def test_header_fields_of_the_wrong_type(good, tmp_path, key, value):
    header, steps, outcome = good
    path = write(tmp_path / "h.jsonl", [{**header, key: value}, *steps, {"outcome": outcome}])
    with pytest.raises(RecordError, match=r"h\.jsonl, line 1:"):
        load_record(path)


def test_steps_out_of_order_or_with_gaps(good, tmp_path):
    header, steps, outcome = good
    gap = [dict(s) for s in steps]
    for s in gap[3:]:
        s["step"] += 1
    with pytest.raises(RecordError, match="line 5: decision 3 has 'step' 4; steps must be numbered 0, 1, 2"):
        load_record(write(tmp_path / "gap.jsonl", [header, *gap, {"outcome": outcome}]))
    swapped = [dict(s) for s in steps]
    swapped[2]["step"], swapped[3]["step"] = 3, 2
    with pytest.raises(RecordError, match="decision 2 has 'step' 3"):
        replay(write(tmp_path / "swap.jsonl", [header, *swapped, {"outcome": outcome}]))
    repeated = [dict(s) for s in steps]
    repeated[4]["step"] = 3
    with pytest.raises(RecordError, match="decision 4 has 'step' 3"):
        replay(write(tmp_path / "rep.jsonl", [header, *repeated, {"outcome": outcome}]))
    for bad in ("0", 1.0, None, True, -1):
        wrong = [dict(s) for s in steps]
        wrong[0]["step"] = bad
        with pytest.raises(RecordError, match="line 2"):
            replay(write(tmp_path / "t.jsonl", [header, *wrong, {"outcome": outcome}]))
    missing = [dict(s) for s in steps]
    del missing[1]["step"]
    with pytest.raises(RecordError, match=r"line 3: decision line lacks \['step'\]"):
        load_record(write(tmp_path / "m.jsonl", [header, *missing, {"outcome": outcome}]))


@pytest.mark.parametrize("action", ["3", 3.0, True, -1, None, [3], {"a": 3}])
def test_bad_action_types(good, tmp_path, action):
    header, steps, outcome = good
    wrong = [dict(s) for s in steps]
    wrong[2]["action"] = action
    with pytest.raises(RecordError, match="line 4: 'action' must be a non-negative integer"):
        replay(write(tmp_path / "a.jsonl", [header, *wrong, {"outcome": outcome}]))


def test_bad_agent_description_and_unknown_decision_fields(good, tmp_path):
    header, steps, outcome = good
    for key, value in (("agent", 0), ("description", 5), ("eval", "__import__('os')")):
        wrong = [dict(s) for s in steps]
        wrong[1][key] = value
        with pytest.raises(RecordError, match="line 3"):
            load_record(write(tmp_path / "d.jsonl", [header, *wrong, {"outcome": outcome}]))


@pytest.mark.parametrize(
    "change",
    [
        {"finished": "yes"},
        {"truncated": 0},
        {"steps": -1},
        {"steps": "12"},
        {"rewards": [1, -1]},
        {"rewards": {"player_0": "1"}},
        {"scores": "1,5"},
        {"scores": [1, "5"]},
        {"state_digest": "abc"},
        {"state_digest": 5},
        {"extra": 1},
    ],
)
def test_outcome_fields_of_the_wrong_type(good, tmp_path, change):
    header, steps, outcome = good
    path = write(tmp_path / "o.jsonl", [header, *steps, {"outcome": {**outcome, **change}}])
    with pytest.raises(RecordError, match=rf"o\.jsonl, line {len(steps) + 2}: (outcome|the outcome)"):
        load_record(path)


@pytest.mark.parametrize("field", sorted(record_module.OUTCOME_KEYS))
def test_outcome_fields_missing(good, tmp_path, field):
    header, steps, outcome = good
    partial = {k: v for k, v in outcome.items() if k != field}
    with pytest.raises(RecordError, match=f"the outcome lacks \\['{field}'\\]"):
        load_record(write(tmp_path / "o.jsonl", [header, *steps, {"outcome": partial}]))
    with pytest.raises(RecordError, match="'outcome' must be an object"):
        load_record(write(tmp_path / "o.jsonl", [header, *steps, {"outcome": [1, 2]}]))
    with pytest.raises(RecordError, match="an outcome line holds only 'outcome'"):
        load_record(write(tmp_path / "o.jsonl", [header, *steps, {"outcome": outcome, "more": 1}]))


def test_a_wrong_final_digest_is_refused(good, tmp_path):
    header, steps, outcome = good
    path = write(tmp_path / "o.jsonl", [header, *steps, {"outcome": {**outcome, "state_digest": "0" * 64}}])
    with pytest.raises(RecordError, match="does not end as the record says: state_digest"):
        replay(path)


@pytest.mark.parametrize("line", ["[1, 2]", "42", '"text"', "null", "{nope", "{'a': 1}", "NaN"])
def test_garbage_lines(good, tmp_path, line):
    header, steps, outcome = good
    with pytest.raises(RecordError, match="line 3"):
        load_record(write(tmp_path / "x.jsonl", [header, steps[0], line, *steps[1:], {"outcome": outcome}]))


def test_binary_and_non_utf8_records(tmp_path):
    for data in (b"\x00\x01\x02garbage", b'{"record": "ice-envs game"}\n\xff\xfe\n', b"\x89PNG\r\n\x1a\n"):
        path = tmp_path / "b.jsonl"
        path.write_bytes(data)
        with pytest.raises(RecordError, match=r"b\.jsonl"):
            load_record(path)


def test_nesting_too_deep_is_a_record_error(good, tmp_path):
    header, steps, outcome = good
    deep = "[" * 100_000 + "]" * 100_000
    text = json.dumps({**header, "options": {"hand_size": 5}})[:-1] + ', "deep": ' + deep + "}"
    with pytest.raises(RecordError, match="line 1: nested deeper than"):
        load_record(write(tmp_path / "deep.jsonl", [text, *steps]))
    nested: Any = 1
    for _ in range(40):
        nested = {"a": nested}
    with pytest.raises(RecordError, match="nested deeper than"):
        load_record(write(tmp_path / "deep.jsonl", [{**header, "options": nested}, *steps]))


def test_not_a_regular_file_or_too_large(good, tmp_path, monkeypatch):
    with pytest.raises(RecordError, match="not a regular file"):
        load_record(tmp_path)
    if Path("/dev/zero").exists():
        with pytest.raises(RecordError, match="/dev/zero: not a regular file"):
            load_record("/dev/zero")
    header, steps, outcome = good
    path = write(tmp_path / "big.jsonl", [header, *steps, {"outcome": outcome}])
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", 100)
    with pytest.raises(RecordError, match="larger than the limit of 100"):
        load_record(path)
    with pytest.raises(FileNotFoundError):
        load_record(tmp_path / "missing.jsonl")


def test_header_options_go_through_the_envs_own_checks(good, tmp_path):
    header, steps, outcome = good
    for options in ({"hand_size": "5"}, {"no_such_option": 1}, {"hand_size": 10**9}):
        path = write(tmp_path / "opt.jsonl", [{**header, "options": options}, *steps, {"outcome": outcome}])
        with pytest.raises(RecordError, match=r"opt\.jsonl: record header does not build a game"):
            replay(path)
    icebergs = {**header, "game": "icebergs", "num_players": 2, "options": {"map": "/dev/zero"}}
    with pytest.raises(RecordError, match=r"map\.jsonl: record header does not build a game: .*/dev/zero"):
        replay(write(tmp_path / "map.jsonl", [icebergs]))
    unknown = {**header, "game": "no-such-game"}
    with pytest.raises(RecordError, match="does not build a game"):
        replay(write(tmp_path / "unknown.jsonl", [unknown]))


def test_unfinished_records_are_reported(good, tmp_path):
    header, steps, outcome = good
    no_outcome = replay(write(tmp_path / "n.jsonl", [header, *steps]))
    assert not no_outcome.finished and not no_outcome.checked_outcome
    cut = replay(write(tmp_path / "c.jsonl", [header, *steps[:-3]]))
    assert not cut.finished and cut.steps == len(steps) - 3
    only_header = replay(write(tmp_path / "h.jsonl", [header]))
    assert not only_header.finished and only_header.steps == 0
    # an outcome line that says the game finished while decisions are missing does not match
    with pytest.raises(RecordError, match="does not end as the record says"):
        replay(write(tmp_path / "m.jsonl", [header, *steps[:-3], {"outcome": outcome}]))


def test_records_parsed_from_lines_name_their_source():
    header = json.dumps({"record": "ice-envs game", "format": 1, "game": "cardiceo", "num_players": "2"})
    with pytest.raises(RecordError, match="mine, line 1: header 'num_players' must be a positive integer"):
        parse_record([header], source="mine")
