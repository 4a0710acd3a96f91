"""The guides hold no dated experiment records: dates, issue numbers and commit hashes live in
``docs/experiments/YYYY-MM-DD-<topic>.md`` pages, which the guides link to.

Checked: every Markdown page of the repository but the records themselves and the changelog (whose
release headings carry dates by convention), and the env docstrings the game pages are made of.
A link to a record may show the record's date (``[The leagues replayed](experiments/2026-12-03-...md)
(2026-12-03)``) and a backticked path may name one; nothing else may.
"""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

import pytest

from ice_envs.core.registry import built_in_games

ROOT = Path(__file__).resolve().parent.parent
RECORDS = "docs/experiments/"
#: Pages that may carry dates: the records, and the changelog's release headings.
EXEMPT = {"CHANGELOG.md"}

#: A link to a record, with the record's date after it, or a backticked path of one: allowed.
_RECORD_REFERENCE = re.compile(
    r"\[[^\]]*\]\([^)]*experiments/[^)]*\)(\s*\(\d{4}-\d{2}-\d{2}\))?|`[^`]*experiments/[^`]*`"
)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
#: What a dated record leaves in a guide: a date, an issue or pull-request number, a commit.
FORBIDDEN = {
    "a date": re.compile(r"\b20\d\d-[01]\d(-[0-3]\d)?\b"),
    "an issue number": re.compile(r"\b(issue|pull request|PR)s? #?\d+|(?<![\w#&/])#\d+\b", re.IGNORECASE),
    "a commit hash": re.compile(r"\bcommits? [0-9a-f]{7,40}\b"),
}


def _pages() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [p for p in listed.stdout.split() if not p.startswith(RECORDS) and p not in EXEMPT]


def findings(text: str) -> list[tuple[int, str, str]]:
    """(line, what, text found) of every date, issue number or commit hash of ``text`` outside record references."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        plain = _LINK_TARGET.sub("]", _RECORD_REFERENCE.sub("", line))
        for what, pattern in FORBIDDEN.items():
            found += [(number, what, m.group(0)) for m in pattern.finditer(plain)]
    return found


def test_the_check_finds_what_records_leave_and_allows_links_to_them():
    assert [w for _, w, _ in findings("measured on 2026-12-03 (issue 42, see #17; commit 3b574e2)")] == [
        "a date",
        "an issue number",
        "an issue number",
        "a commit hash",
    ]
    allowed = (
        "- [DAgger rounds](../docs/experiments/2026-12-03-dagger.md) (2026-12-03)\n"
        "the rows before them: `docs/experiments/2026-12-03-sixteen-envs-shipped.md`\n"
        "| random 0.000, random#2 0.000 | seeds 2-5 | [Keep a Changelog](https://keepachangelog.com/en/1.1.0/)"
    )
    assert findings(allowed) == []


@pytest.mark.parametrize("page", _pages())
def test_a_guide_holds_no_dated_record(page):
    found = findings((ROOT / page).read_text(encoding="utf-8"))
    assert not found, f"{page}: move these to a record under {RECORDS} and link it: {found}"


@pytest.mark.parametrize("game", sorted(built_in_games()))
def test_a_game_page_docstring_holds_no_dated_record(game):
    module = importlib.import_module(f"ice_envs.{game}.env")
    assert not findings(module.__doc__ or "")


def test_every_record_is_linked_from_a_guide():
    """A record informs a guide: each ``docs/experiments/`` page is linked from a page outside the records."""
    guides = "\n".join((ROOT / page).read_text(encoding="utf-8") for page in [*_pages(), "CHANGELOG.md"])
    records = sorted((ROOT / RECORDS).glob("*.md"))
    assert records
    unlinked = [r.name for r in records if f"experiments/{r.name}" not in guides]
    assert not unlinked, f"link each from the guide section it informs: {unlinked}"
    for record in records:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md", record.name), record.name
