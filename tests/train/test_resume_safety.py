"""``--resume`` never unpickles anything from the run directory, and still resumes exactly what was saved."""

from __future__ import annotations

import base64
import hashlib
import json
import pathlib
import pickle
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from ice_envs.train.checkpoints import state_path
from ice_envs.train.config import ConfigError, config_from_dict
from ice_envs.train.run import resume, train
from tests.train.conftest import tiny_config_dict

pytest.importorskip("sb3_contrib")

CHECKPOINT = Path("checkpoints") / "step_000000000128.zip"


class _Touch:
    """Unpickling this creates ``path``: what a crafted checkpoint would do on a loader that unpickles."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (pathlib.Path.touch, (pathlib.Path(self.path),))


def payload(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(_Touch(marker), protocol=4)).decode("ascii")


@pytest.fixture(scope="module")
def half_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run stopped at 128 steps (copy it before changing it)."""
    run_dir = tmp_path_factory.mktemp("resume-safety") / "half"
    train(config_from_dict(tiny_config_dict(total_timesteps=128)), run_dir, echo=False)
    return run_dir


@pytest.fixture
def run_copy(half_run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(half_run, tmp_path / "run"))


def craft(zip_path: Path, key: str, marker: Path, type_text: str | None = None) -> None:
    """Put a pickled payload that creates ``marker`` under ``key`` of the checkpoint's ``data``."""
    with zipfile.ZipFile(zip_path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    if type_text is None:
        old = data.get(key)
        type_text = old.get(":type:") if isinstance(old, dict) else str(type(old))
    data[key] = {":type:": type_text, ":serialized:": payload(marker)}
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(zip_path, "w") as archive:
        for name, blob in members.items():
            archive.writestr(name, blob)
    record_model(zip_path)


def record_model(zip_path: Path) -> None:
    """Make the checkpoint's state record the (changed) ``.zip``, as an attacker who edits both files would."""
    state_file = state_path(zip_path)
    state = json.loads(state_file.read_text())
    state["model_sha256"] = hashlib.sha256(zip_path.read_bytes()).hexdigest()
    state_file.write_text(json.dumps(state))


def test_the_payload_would_run_if_unpickled(tmp_path: Path):
    """Not vacuous: SB3's own deserializer runs the payload."""
    from stable_baselines3.common.save_util import json_to_data

    probe = tmp_path / "probe"
    json_to_data(json.dumps({"policy_class": {":type:": "x", ":serialized:": payload(probe)}}))
    assert probe.exists()


@pytest.mark.parametrize("key", ["policy_class", "_last_obs", "ep_info_buffer", "clip_range", "action_noise"])
def test_a_payload_under_a_known_key_is_never_unpickled(run_copy: Path, tmp_path: Path, key: str):
    marker = tmp_path / "marker"
    craft(run_copy / CHECKPOINT, key, marker)
    resume(run_copy, ["total_timesteps=192"], echo=False)  # the key's value comes from the config or the state
    assert not marker.exists()
    assert json.loads((run_copy / "evaluation.json").read_text())["timesteps"] == 192


@pytest.mark.parametrize(
    ("key", "type_text", "message"),
    [
        ("evil_extra", "<class 'builtins.object'>", "only as a pickled"),
        ("policy_class", "<class 'builtins.function'>", "records 'policy_class' as a"),
        ("ep_info_buffer", "<class 'builtins.list'>", "records 'ep_info_buffer' as a"),
    ],
)
def test_a_payload_with_no_safe_value_refuses_the_resume(
    run_copy: Path, tmp_path: Path, key: str, type_text: str, message: str
):
    marker = tmp_path / "marker"
    zip_path = run_copy / CHECKPOINT
    craft(zip_path, key, marker, type_text)
    with pytest.raises(ConfigError) as err:
        resume(run_copy, ["total_timesteps=192"], echo=False)
    assert str(zip_path) in str(err.value) and repr(key) in str(err.value) and message in str(err.value)
    assert not marker.exists()
    assert json.loads((run_copy / "evaluation.json").read_text())["timesteps"] == 128  # nothing was trained


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("_last_episode_starts", {"$array": "|b1", "shape": [3], "data": [True, False, True]}, "bool array of 2"),
        ("_last_obs", [1, 2], "observations of 2 envs"),
        ("ep_info_buffer", {"maxlen": 1, "items": [{"r": 1.0}, {"r": 2.0}]}, "at most 1 entries"),
        (
            "ep_success_buffer",
            {"maxlen": 100, "items": [{"$object": "os:system", "id": 0, "attrs": {}}]},
            "unknown tag",
        ),
    ],
)
def test_bad_runtime_values_in_the_state_refuse_the_resume(run_copy: Path, field: str, value: Any, message: str):
    state_file = run_copy / CHECKPOINT.with_name("step_000000000128.state.json")
    state = json.loads(state_file.read_text())
    state["model"][field] = value
    state_file.write_text(json.dumps(state))
    with pytest.raises(ConfigError, match=message) as err:
        resume(run_copy, ["total_timesteps=192"], echo=False)
    assert str(state_file) in str(err.value) and f"model.{field}" in str(err.value)


def test_a_state_without_the_model_values_refuses_the_resume(run_copy: Path):
    state_file = run_copy / CHECKPOINT.with_name("step_000000000128.state.json")
    state = json.loads(state_file.read_text())
    del state["model"]
    state_file.write_text(json.dumps(state))
    with pytest.raises(ConfigError, match="missing fields \\['model'\\]"):
        resume(run_copy, ["total_timesteps=192"], echo=False)


def test_a_normal_resume_unpickles_nothing_and_loads_weights_only(run_copy: Path, monkeypatch: pytest.MonkeyPatch):
    import cloudpickle
    import stable_baselines3.common.save_util as save_util
    import torch

    class NoUnpickling:
        dumps = staticmethod(cloudpickle.dumps)  # saving checkpoints still pickles, as SB3 does

        @staticmethod
        def loads(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("SB3 deserialized a value of the checkpoint")

    loads: list[Any] = []
    real_load = torch.load

    def load(*args: Any, **kwargs: Any) -> Any:
        loads.append(kwargs.get("weights_only"))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(save_util, "cloudpickle", NoUnpickling)
    monkeypatch.setattr(torch, "load", load)
    result = resume(run_copy, ["total_timesteps=192"], command="resume", echo=False)
    assert result.report["timesteps"] == 192 and result.final_model.is_file()
    assert loads and all(w is True for w in loads)
    meta = json.loads((run_copy / "meta.json").read_text())
    assert meta["sessions"][-1]["resumed_from"].endswith(CHECKPOINT.name)


def test_a_state_holds_no_object_and_names_no_class(run_copy: Path):
    """Declared state only: no tagged object, generator or class name anywhere in the state file."""
    from ice_envs.train.checkpoints import encode_state

    text = (run_copy / CHECKPOINT.with_name("step_000000000128.state.json")).read_text()
    for tag in ('"$object"', '"$generator"', '"$ref"', '"$policy"', "ice_envs.wrappers", '__dataclass__": "builtins'):
        assert tag not in text
    with pytest.raises(TypeError, match="cannot save a"):
        encode_state({"env": object()})


def test_a_state_of_an_older_format_is_one_clear_line(run_copy: Path):
    state_file = run_copy / CHECKPOINT.with_name("step_000000000128.state.json")
    state = json.loads(state_file.read_text())
    state["format"] = 3
    state_file.write_text(json.dumps(state))
    with pytest.raises(ConfigError, match="format 3 was written by an earlier ice-envs") as err:
        resume(run_copy / CHECKPOINT, ["total_timesteps=192"], echo=False)
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="no complete checkpoint"):  # a run directory is never started again then
        resume(run_copy, ["total_timesteps=192"], echo=False)
    assert (run_copy / "final.zip").is_file()
