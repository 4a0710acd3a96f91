"""The config reference page is generated from the schema and says what the schema says."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from ice_envs.train.config_constraints import unwrap
from ice_envs.train.config_reference import PAGE, main, render
from ice_envs.train.config_schema import RLlibTrainConfig, TrainConfig

ROOT = Path(__file__).resolve().parents[2]


def _leaf_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, info in model.model_fields.items():
        tp = unwrap(info.annotation)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            keys += _leaf_keys(tp, f"{prefix}{name}.")
        else:
            keys.append(f"{prefix}{name}")
    return keys


def test_the_committed_page_matches_the_schema():
    committed = (ROOT / PAGE).read_text(encoding="utf-8")
    assert committed == render(), "run: python -m ice_envs.train.config_reference"


@pytest.mark.parametrize("model", [TrainConfig, RLlibTrainConfig])
def test_every_key_has_a_row_with_a_description(model: type[BaseModel]):
    page = render()
    for key in _leaf_keys(model):
        row = next((line for line in page.splitlines() if line.startswith(f"| `{key}` |")), None)
        assert row is not None, key
        assert row.rstrip(" |").split(" | ")[-1].strip(), f"{key} has no description"


def test_rows_show_type_default_and_constraint():
    page = render()
    assert "| `ppo.gamma` | float | `0.99` | in (0, 1] |" in page
    assert "| `ppo.target_kl` | float or null | `null` | > 0 or null |" in page
    assert "| `vec_env` | one of `auto`, `subproc`, `dummy`, `batched` | `auto` |" in page
    assert "| `ppo.batch_size` | int | `256` | 2..n_steps\\*n_envs |" in page  # a rule over several keys


def test_check_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "config.md"
    assert main(["--check", "--out", str(out)]) == 1
    assert main(["--out", str(out)]) == 0 and main(["--check", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render()
