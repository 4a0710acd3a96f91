"""The files the web app may open: game records, league and evaluation reports, by name.

Two sources, each a folder:

* ``runs``: the folder given to ``ice-envs serve --runs DIR`` (records of ``play --record``,
  evaluate's ``records/``, the web app's own games, ``league.json`` and ``evaluation.json``);
* ``shipped``: the repository's own ``docs/img/records/*.jsonl`` and ``docs/leagues/*.json``
  (present in a clone of the repository).

A file is named by its source and a relative path of plain parts (letters, digits, ``_.-``;
no ``..``, no absolute path, no hidden part). The name is resolved and must stay inside the
source's folder (a symbolic link out of it is refused), then read through the project's capped
loaders (:func:`ice_envs.evaluation.record.load_record`, :func:`ice_envs.core.files.load_json`).
Nothing else on the disk can be reached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.files import load_json

#: The repository checkout holding ``docs/`` and ``checkpoints/`` (absent from a wheel install).
REPO_ROOT = Path(ice_envs.__file__).resolve().parents[1]
SHIPPED_RECORDS = REPO_ROOT / "docs" / "img" / "records"
SHIPPED_LEAGUES = REPO_ROOT / "docs" / "leagues"
SHIPPED_CHECKPOINTS = REPO_ROOT / "checkpoints"
#: One part of a file's name.
_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.=+-]{0,127}$")
#: The deepest a listed file may sit below its source folder, and the most files one listing shows.
MAX_DEPTH = 6
MAX_LISTED = 2000
#: Size cap of a league or evaluation report.
MAX_REPORT_BYTES = 32 << 20
REPORT_NAMES = ("league.json", "evaluation.json")


class NotFound(OptionError):
    """A file name that names nothing the web app may open (answered with 404)."""


class BadName(OptionError):
    """A file name that is not a plain relative name inside its source (answered with 400)."""


@dataclass(frozen=True)
class Entry:
    """One file that can be opened: its source, its name in the source and what it is."""

    source: str
    name: str
    kind: str  # "record", "league" or "evaluation"


class Library:
    """The openable files of the ``runs`` folder (``None``: none) and the shipped ones."""

    def __init__(
        self, runs: Path | None, shipped_records: Path = SHIPPED_RECORDS, shipped_leagues: Path = SHIPPED_LEAGUES
    ):
        self.runs = Path(runs).resolve() if runs is not None else None
        self.shipped_records = shipped_records
        self.shipped_leagues = shipped_leagues

    # ------------------------------------------------------------------ naming
    def _root(self, source: str, kind: str) -> Path:
        if source == "runs":
            if self.runs is None:
                raise NotFound("no runs folder: start the server with --runs DIR to open its files")
            return self.runs
        if source == "shipped":
            return (self.shipped_records if kind == "record" else self.shipped_leagues).resolve()
        raise NotFound(f"unknown source {source!r}: 'runs' or 'shipped'")

    def path(self, source: str, name: str, kind: str) -> Path:
        """The file ``name`` of ``source`` holding a ``kind`` (``record``, ``league``, ``evaluation``)."""
        parts = check_name(name)
        root = self._root(source, kind)
        path = root.joinpath(*parts)
        try:
            resolved = path.resolve(strict=True)
        except (FileNotFoundError, RuntimeError, OSError):
            raise NotFound(f"no {kind} {name!r} in {source}") from None
        if not resolved.is_relative_to(root) or not resolved.is_file():
            raise NotFound(f"no {kind} {name!r} in {source}")
        if kind_of(source, parts[-1]) != kind:
            raise NotFound(f"{name!r} is not a {kind} file")
        return resolved

    def load_report(self, source: str, name: str, kind: str) -> dict[str, Any]:
        """A league or evaluation report read through the capped JSON loader."""
        path = self.path(source, name, kind)
        data = load_json(path, what=f"{kind} report", max_bytes=MAX_REPORT_BYTES, limit=64)
        if not isinstance(data, dict) or "game" not in data:
            raise OptionError(f"{kind} report {source}/{name}: not a {kind} report")
        return data

    # ------------------------------------------------------------------ listing
    def entries(self, kind: str | None = None) -> list[Entry]:
        """Every file that can be opened (of ``kind``), shipped first, names sorted."""
        found: list[Entry] = []
        for folder, source in ((self.shipped_records, "shipped"), (self.shipped_leagues, "shipped")):
            if folder.is_dir():
                for path in sorted(folder.iterdir()):
                    k = kind_of(source, path.name) if path.is_file() else None
                    if k is not None and (folder == self.shipped_records) == (k == "record"):
                        found.append(Entry(source, path.name, k))
        if self.runs is not None and self.runs.is_dir():
            found += self._walk(self.runs)
        return [e for e in found if kind is None or e.kind == kind]

    def _walk(self, root: Path) -> list[Entry]:
        out: list[Entry] = []
        stack = [(root, 0)]
        while stack and len(out) < MAX_LISTED:
            folder, depth = stack.pop()
            try:
                children = sorted(folder.iterdir(), reverse=True)
            except OSError:
                continue
            for child in children:
                if not _PART.match(child.name) or child.is_symlink():
                    continue
                if child.is_dir() and depth < MAX_DEPTH:
                    stack.append((child, depth + 1))
                elif child.is_file():
                    k = kind_of("runs", child.name)
                    if k is not None:
                        out.append(Entry("runs", child.relative_to(root).as_posix(), k))
        return sorted(out, key=lambda e: e.name)[:MAX_LISTED]

    def records_beside(self, source: str, name: str) -> list[Entry]:
        """The game records in the ``records/`` folder beside a report (evaluate's sample games)."""
        if source != "runs" or self.runs is None:
            return []
        folder = self.path(source, name, kind_of(source, name.rsplit("/", 1)[-1]) or "").parent / "records"
        if not folder.is_dir():
            return []
        names = sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix == ".jsonl" and _PART.match(p.name))
        base = folder.relative_to(self.runs).as_posix()
        return [Entry("runs", f"{base}/{n}", "record") for n in names[:MAX_LISTED]]


def kind_of(source: str, filename: str) -> str | None:
    """What a file of ``source`` named ``filename`` holds, or ``None`` if the web app does not open it."""
    if filename.endswith(".jsonl"):
        return "record"
    if filename == "league.json" or (source == "shipped" and filename.endswith(".json")):
        return "league"
    if filename == "evaluation.json":
        return "evaluation"
    return None


def check_name(name: str) -> list[str]:
    """The parts of a plain relative file name, or :class:`BadName`."""
    if not name or len(name) > 1024 or "\\" in name or "\x00" in name or name.startswith("/"):
        raise BadName(f"bad file name {name[:80]!r}: give a relative name such as eval/records/game_00000.jsonl")
    parts = name.split("/")
    for part in parts:
        if part in ("", ".", "..") or not _PART.match(part):
            raise BadName(f"bad file name {name[:80]!r}: {part[:40]!r} is not a plain file or folder name")
    return parts
