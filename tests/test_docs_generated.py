"""The figures of the results and performance pages are generated from their JSON files, never copied by hand.

``docs/results.md`` is what the results-table tool renders from ``docs/results.json`` and its config;
the performance page's "Current figures" are made from ``docs/performance.json`` when the site is built
(``tools/docs_hooks.py``), so a page and its file cannot disagree.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks_under_test", ROOT / "tools" / "docs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_results_page_is_the_tools_rendering_of_the_results_file(monkeypatch):
    from ice_envs.benchmarks import baselines

    written: dict[str, str] = {}
    monkeypatch.setattr(baselines, "write_atomic", lambda path, text: written.__setitem__(str(path), text))
    monkeypatch.setattr(baselines, "evaluate", lambda *a, **k: pytest.fail("a row was played: results.json lacks it"))
    monkeypatch.chdir(ROOT)
    config = "benchmarks/configs/baselines.yaml"
    assert baselines.main([config, "--missing", "--out", "docs/results.md", "--json", "docs/results.json"]) == 0
    assert written["docs/results.md"] == (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert json.loads(written["docs/results.json"]) == json.loads((ROOT / "docs" / "results.json").read_text())


def test_the_performance_figures_are_made_from_the_performance_file():
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert "<!-- performance-figures -->" in page
    assert "x gin_rummy (paired median) |" not in page  # the targets table is generated, not written in the page
    report = json.loads((ROOT / "docs" / "performance.json").read_text(encoding="utf-8"))
    text = _hooks().performance_figures(report)
    for target in report["targets"]:
        assert f"| {target['game']} | {target['target']} | {target['required']:.2f} | {target['measured']:.2f}" in text
    floor = next(r for r in report["results"] if r["game"] == "floor" and r["api"] == "raw_env")
    assert "| 2 | " in text and format(floor["steps_per_s"], ",.0f") in text
    for game in ("Cardiceo", "CubeMelt", "Iceberg Rummy", "Tip of the Diceberg", "Icebergs"):
        assert f"| {game} | " in text
    assert report["command"] in text
