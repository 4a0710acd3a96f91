"""``--resume`` after what a kill or a failure leaves behind: an incomplete checkpoint, torn run files,
rows logged after the checkpoint, a run stopped before its first checkpoint or in its final
evaluation, a failing env worker. Each case ends with the uninterrupted run's weights and logs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from ice_envs.train.cli import main as train_main
from ice_envs.train.config import config_from_dict
from ice_envs.train.run import resume, train
from tests.train.conftest import tiny_config_dict
from tests.train.test_training import assert_same_params, evaluations, final_results

pytest.importorskip("sb3_contrib")

CHECKPOINTS = Path("checkpoints")
FIRST = CHECKPOINTS / "step_000000000128.zip"
LAST = CHECKPOINTS / "step_000000000256.zip"


@pytest.fixture
def run_copy(tiny_run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(tiny_run, tmp_path / "run"))


def unfinish(run: Path) -> None:
    """Leave ``run`` as a kill before its end leaves it: no final model, its last session not finished."""
    (run / "final.zip").unlink()
    meta = json.loads((run / "meta.json").read_text())
    del meta["sessions"][-1]["finished"]
    (run / "meta.json").write_text(json.dumps(meta))


def assert_same_run(reference: Path, run: Path) -> None:
    assert_same_params(reference / "final.zip", run / "final.zip")
    assert evaluations(reference) == evaluations(run)
    assert final_results(reference) == final_results(run)


def test_an_incomplete_newest_checkpoint_is_skipped_and_named(tiny_run: Path, run_copy: Path, capsys):
    zip_path = run_copy / LAST
    zip_path.write_bytes(zip_path.read_bytes()[:1000])  # torn by a kill
    unfinish(run_copy)
    resume(run_copy, echo=True)
    out = capsys.readouterr().out
    assert "skipping the incomplete checkpoint at 256 steps" in out and "SHA-256" in out
    assert "from step_000000000128.zip" in out
    assert_same_run(tiny_run, run_copy)


@pytest.mark.parametrize("hostile", ["state is a FIFO", "zip is /dev/zero", "zip is a FIFO"])
def test_a_checkpoint_file_that_is_not_a_regular_file_is_named_and_skipped(
    tiny_run: Path, run_copy: Path, capsys, hostile
):
    """A device or FIFO in place of a checkpoint file is refused by name at once (never read, never waited on)."""
    import os

    zip_path = run_copy / LAST
    target = zip_path.with_name(zip_path.name.replace(".zip", ".state.json")) if "state" in hostile else zip_path
    target.unlink()
    if "FIFO" in hostile:
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    unfinish(run_copy)
    resume(run_copy, echo=True)
    out = capsys.readouterr().out
    assert f"skipping the incomplete checkpoint at 256 steps: checkpoint{' state' if 'state' in hostile else ''}" in out
    assert f"{target}: not a regular file" in out and "from step_000000000128.zip" in out
    assert_same_run(tiny_run, run_copy)


def test_rows_logged_after_the_checkpoint_and_a_torn_line_are_dropped(tiny_run: Path, run_copy: Path, capsys):
    log = run_copy / "evaluations.jsonl"
    rows = log.read_text().splitlines(keepends=True)
    log.write_text("".join(rows) + rows[-1] + '{"step": 25')  # a row logged again and a torn one
    resume(run_copy / FIRST, echo=True)
    assert "row(s) written after step_000000000128.zip dropped" in capsys.readouterr().out
    assert_same_run(tiny_run, run_copy)
    assert log.read_text().count("\n") == len(rows)


def test_torn_config_and_meta_files_do_not_stop_a_resume(tiny_run: Path, run_copy: Path, capsys):
    (run_copy / "config.yaml").write_text("")
    (run_copy / "meta.json").write_text('{"sessions": [')
    resume(run_copy / FIRST, echo=True)
    out = capsys.readouterr().out
    assert "using the config saved in the checkpoint" in out and "meta.json" in out
    assert_same_run(tiny_run, run_copy)
    assert config_from_dict(yaml.safe_load((run_copy / "config.yaml").read_text())) == config_from_dict(
        tiny_config_dict(curves=True)
    )


def test_a_run_killed_in_its_final_evaluation_is_finished(tiny_run: Path, run_copy: Path, capsys):
    meta = json.loads((run_copy / "meta.json").read_text())
    del meta["sessions"][-1]["finished"]
    (run_copy / "meta.json").write_text(json.dumps(meta))
    (run_copy / "evaluation.json").unlink()
    result = resume(run_copy, echo=True)
    assert "reached 256 steps but did not finish: finishing it" in capsys.readouterr().out
    assert result.report["timesteps"] == 256
    assert_same_run(tiny_run, run_copy)
    with pytest.raises(Exception, match="is at 256 steps, total_timesteps is 256"):  # finished now
        resume(run_copy, echo=False)


def test_a_run_killed_before_its_first_checkpoint_starts_again_in_place(tiny_run: Path, run_copy: Path, capsys):
    shutil.rmtree(run_copy / "checkpoints")
    (run_copy / "checkpoints").mkdir()
    (run_copy / "checkpoints" / ".step_000000000128.zip.abcd.tmp").write_bytes(b"PK")  # a write cut short
    resume(run_copy, echo=True)
    assert "the run starts again from step 0" in capsys.readouterr().out
    assert_same_run(tiny_run, run_copy)
    assert len(json.loads((run_copy / "meta.json").read_text())["sessions"]) == 2


def test_a_failing_env_worker_is_one_line_and_exit_2(tmp_path: Path, capsys):
    run = tmp_path / "sub"
    cfg = config_from_dict(tiny_config_dict(vec_env="subproc", total_timesteps=128, opponents__mix={"self_play": 1.0}))
    train(cfg, run, echo=False)
    shutil.rmtree(run / "pool")  # the snapshots the workers' opponents are built from
    status = train_main(["--resume", str(run), "--set", "total_timesteps=192", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "env worker" in err and "snap_000000000000.npz" in err
