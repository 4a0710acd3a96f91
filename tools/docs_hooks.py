"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks``).

``<!-- env-docstring: GAME -->`` on a page is replaced by the module docstring of
``ice_envs.GAME.env``: each environment's page is its docstring, PettingZoo's format, so the page
and ``help(ice_envs.GAME_v1)`` never disagree. A backticked ``docs/...md`` path of a docstring (what
``help()`` shows) becomes a link to that page of the site.

``<!-- common-options -->`` is replaced by the table of the options every game takes, made from the
signature and the ``Args`` of :class:`ice_envs.core.aec.IceAECEnv` (the one place they are written).

The API reference reads the sources as installed: the top-level folders ``agents/``, ``train/`` and
``benchmarks/`` are the packages ``ice_envs.agents``, ``ice_envs.train`` and ``ice_envs.benchmarks``
(``setup.py``'s package-dir). :func:`link_api_sources` lays that package out under ``build/api_src`` (links
to the sources) for mkdocstrings to read (``paths`` in ``mkdocs.yml``).
"""

from __future__ import annotations

import importlib
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


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Expand the environment docstring and common-options markers of a page."""
    return _COMMON_OPTIONS.sub(_common_options_table, _MARKER.sub(_env_docstring, markdown))


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
