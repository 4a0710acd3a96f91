"""Every file path that README.md, docs/ and checkpoints/ name in `backticks` exists in the repository.

A span counts as a path when it is one word with a ``/`` and ends in a file name with an extension
(``agents/greedy.py``, ``docs/results.md``); it may be written from the repository's root or from
the page's folder. Fenced code blocks are left out (the documented-command test checks those).
Spans with a placeholder (``<game>``, ``*``, a capitalised name such as ``OUT/...``) and files that
a run writes (:data:`WRITTEN_BY_RUNS`) are not files of the repository and are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), *sorted((REPO / "checkpoints").rglob("*.md"))]
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
PATH = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_./-]*/[A-Za-z0-9_.-]+\.[A-Za-z0-9]+$")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
#: A first folder in capitals is a placeholder (``OUT/finished_games.json``, ``RUN/meta.json``).
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*/")
#: Folders that exist only inside what a command writes, with what writes them.
WRITTEN_BY_RUNS = {
    "runs/": "every command's default output folder",
    "pool/": "a training run's self-play snapshots",
    "env_runner/": "an RLlib checkpoint",
    "learner_group/": "an RLlib checkpoint",
}


def backticked_paths(page: Path) -> list[tuple[int, str]]:
    """(line, path) of every backticked file path of ``page``, outside fenced code blocks."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text(encoding="utf-8"))
    found = []
    for match in SPAN.finditer(text):
        span = match.group(1).strip()
        if PATH.match(span) and not PLACEHOLDER.match(span) and not span.startswith(tuple(WRITTEN_BY_RUNS)):
            found.append((text.count("\n", 0, match.start()) + 1, span))
    return found


def test_the_pages_name_paths():
    assert sum(len(backticked_paths(page)) for page in PAGES) > 50


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_backticked_path_exists(page):
    missing = [
        f"{page.relative_to(REPO)}:{line}: `{path}`"
        for line, path in backticked_paths(page)
        if not (REPO / path).exists() and not (page.parent / path).exists()
    ]
    assert not missing, "paths that name no file of the repository:\n" + "\n".join(missing)
