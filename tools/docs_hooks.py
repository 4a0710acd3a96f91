"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks``).

``<!-- env-docstring: GAME -->`` on a page is replaced by the module docstring of
``ice_envs.GAME.env``: each environment's page is its docstring, PettingZoo's format, so the page
and ``help(ice_envs.GAME_v1)`` never disagree. A backticked ``docs/...md`` path of a docstring (what
``help()`` shows) becomes a link to that page of the site.

``<!-- performance-figures -->`` is replaced by the summary of ``docs/performance.json`` (the latest
benchmark report): the page's figures are those of the file.

``<!-- common-options -->`` is replaced by the table of the options every game takes, made from the
signature and the ``Args`` of :class:`ice_envs.core.aec.IceAECEnv` (the one place they are written).

The API reference reads the sources as installed: the top-level folders ``agents/``, ``train/`` and
``benchmarks/`` are the packages ``ice_envs.agents``, ``ice_envs.train`` and ``ice_envs.benchmarks``
(``setup.py``'s package-dir). :func:`link_api_sources` lays that package out under ``build/api_src`` (links
to the sources) for mkdocstrings to read (``paths`` in ``mkdocs.yml``).
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Where the installed layout of the package is linked for the API reference.
API_SOURCES = ROOT / "build" / "api_src"
#: Top-level folders installed inside ``ice_envs``.
MAPPED = ("agents", "train", "benchmarks")

_MARKER = re.compile(r"<!--\s*env-docstring:\s*([a-z_]+)\s*-->")
_COMMON_OPTIONS = re.compile(r"<!--\s*common-options\s*-->")
_DOCS_PATH = re.compile(r"``?docs/([\w/.-]+\.md)``?")


def _env_docstring(match: re.Match[str]) -> str:
    module = importlib.import_module(f"ice_envs.{match.group(1)}.env")
    text = (module.__doc__ or "").strip("\n")
    # the docstring's own title is the page's title
    text = re.sub(r"\A\s*# [^\n]*\n", "", text, count=1)
    # the game pages are docs/environments/<game>.md: a docs/ path is one folder up
    return _DOCS_PATH.sub(lambda m: f"[`docs/{m.group(1)}`](../{m.group(1)})", text)


def common_options() -> list[tuple[str, str, str]]:
    """(option, default, meaning) of every option that every game takes, from ``IceAECEnv``'s code."""
    import inspect

    from ice_envs.core.aec import IceAECEnv

    doc = inspect.getdoc(IceAECEnv) or ""
    args = doc.split("Args", 1)[1].split(":\n", 1)[1]
    meanings: dict[str, str] = {}
    name = ""
    for line in args.splitlines():
        if not line.strip():
            break
        entry = re.match(r"^    (\w+): (.*)$", line)
        if entry:
            name = entry.group(1)
            meanings[name] = entry.group(2)
        elif name:
            meanings[name] += " " + line.strip()
    rows = []
    for parameter in inspect.signature(IceAECEnv.__init__).parameters.values():
        if parameter.name in meanings:
            default = "" if parameter.default is inspect.Parameter.empty else f"`{parameter.default!r}`"
            rows.append((parameter.name, default, meanings[parameter.name]))
    return rows


def _common_options_table(_: re.Match[str]) -> str:
    lines = ["| option | default | meaning |", "|---|---|---|"]
    for name, default, meaning in common_options():
        text = re.sub(r":(?:class|attr|meth):`~?([^`]+)`", lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", meaning)
        text = text.replace("``", "`").replace("|", r"\|")
        shown = default or "the game's own"
        lines.append(f"| `{name}` | {shown} | {text} |")
    return "\n".join(lines)


_PERFORMANCE = re.compile(r"<!--\s*performance-figures\s*-->")
#: The benchmark report the performance page's figures come from (``python -m ice_envs.benchmarks.throughput``).
PERFORMANCE_JSON = ROOT / "docs" / "performance.json"
#: Rows of the page's summary besides the games: the API's floor and the C++ peer.
_REFERENCE_ROWS = {"floor": "floor env (API overhead only)", "gin_rummy": "OpenSpiel `gin_rummy` (C++, peer)"}


def _game_title(game: str) -> str:
    doc = importlib.import_module(f"ice_envs.{game}.env").__doc__ or ""
    heading = re.search(r"^# (.+)$", doc, flags=re.MULTILINE)
    return heading.group(1).split(":")[0].strip() if heading else game


def performance_figures(report: dict[str, Any]) -> str:
    """The performance page's summary of a throughput report: each game at its suite v1 table size (``env()``,
    ``raw_env()``), the floor env and OpenSpiel's gin_rummy, then the targets and the evaluation scaling."""
    from ice_envs.evaluation.suite import SUITE_V1

    sizes: dict[str, int] = {}
    for table in SUITE_V1.tables:
        sizes.setdefault(table.game, table.players)
    rows = {
        (r["game"], r["players"], r["api"]): r for r in report["results"] if r["variant"] in ("default", "openspiel")
    }
    m = report["machine"]
    lines = [
        f"Decision steps/s of a random-legal-action loop, one process, on {m['cpu']} ({m['cores']} cores; Python "
        f"{m['python']}, numpy {m['numpy']}, PettingZoo {m['pettingzoo']}), each game at its suite v1 table size:",
        "",
        "| game | players | `env()` | `raw_env()` | games/s (`raw_env()`) |",
        "|---|---:|---:|---:|---:|",
    ]

    def rate(row: dict[str, Any] | None, key: str = "steps_per_s", spec: str = ",.0f") -> str:
        return "" if row is None or row.get(key) is None else format(row[key], spec)

    for game, players in sizes.items():
        env, raw = rows.get((game, players, "env")), rows.get((game, players, "raw_env"))
        lines.append(
            f"| {_game_title(game)} | {players} | {rate(env)} | {rate(raw)} | {rate(raw, 'games_per_s', ',.1f')} |"
        )
    floor_env, floor_raw = rows.get(("floor", 2, "env")), rows.get(("floor", 2, "raw_env"))
    lines.append(
        f"| {_REFERENCE_ROWS['floor']} | 2 | {rate(floor_env)} | {rate(floor_raw)} | "
        f"{rate(floor_raw, 'games_per_s', ',.1f')} |"
    )
    gin = rows.get(("gin_rummy", 2, "openspiel"))
    if gin is not None:
        lines.append(f"| {_REFERENCE_ROWS['gin_rummy']} | 2 | | {rate(gin)} | {rate(gin, 'games_per_s', ',.1f')} |")
    lines += [
        "",
        "The targets, each at the game's slowest player count:",
        "",
        "| game | target | required | measured (slowest player count) | met | must get faster by |",
        "|---|---|---:|---:|---|---:|",
    ]
    for t in report["targets"]:
        short = "" if t["met"] else f"{t['shortfall']:.2f}x"
        met = "yes" if t["met"] else "**no**"
        lines.append(
            f"| {t['game']} | {t['target']} | {t['required']:.2f} | {t['measured']:.2f} ({t['worst_players']}p) "
            f"| {met} | {short} |"
        )
    s = report.get("eval_scaling")
    if s:
        lines += [
            "",
            f"Evaluation scaling ({s['games']} games of {s['game']}, {s['players']} random agents): "
            f"{s['games_per_s_1_worker']:.1f} games/s on 1 worker, {s['games_per_s_2_workers']:.1f} on 2 workers: "
            f"{s['scaling']:.2f}x.",
        ]
    lines += ["", f"Command: `{report['command']}`"]
    return "\n".join(lines)


def _performance_figures(_: re.Match[str]) -> str:
    return performance_figures(json.loads(PERFORMANCE_JSON.read_text(encoding="utf-8")))


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Expand the environment docstring, common-options and performance markers of a page."""
    markdown = _MARKER.sub(_env_docstring, markdown)
    markdown = _COMMON_OPTIONS.sub(_common_options_table, markdown)
    return _PERFORMANCE.sub(_performance_figures, markdown)


def link_api_sources() -> None:
    """Link the package as installed (``ice_envs`` with its mapped sub-packages) under :data:`API_SOURCES`.

    Called when MkDocs loads this module, before any plugin sees the config: mkdocstrings fixes its search
    paths then, and a path that does not exist yet would be dropped (a fresh clone's first build)."""
    package = API_SOURCES / "ice_envs"
    if API_SOURCES.exists():
        shutil.rmtree(API_SOURCES)
    package.mkdir(parents=True)
    for entry in (ROOT / "ice_envs").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name in MAPPED:
        (package / name).symlink_to(ROOT / name)


def on_config(config: Any, **_: Any) -> Any:
    """Link the API sources again (a ``mkdocs serve`` rebuild sees new modules)."""
    link_api_sources()
    return config


link_api_sources()
