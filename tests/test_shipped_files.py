"""The files the repository ships still work with the code: game records, checkpoints, documented commands.

* every ``docs/img/records/*.jsonl`` replays, every action checked and its outcome line matched;
* every ``checkpoints/*/final.npz`` loads as a ``ppo:`` agent for the game and player count of the
  ``config.yaml`` beside it and plays one whole game against random agents (with the config's options);
* every command that ``README.md`` and ``docs/results.md`` print — in fenced code blocks and in
  `backtick` spans — is checked (see :func:`doc_commands` for what counts as a command):
  ``ice-envs ...`` parses with the CLI's own parser, ``python -m ice_envs.X ...`` names a module that
  imports (and that ``python -m`` can run), and every path they name inside a shipped folder exists.

Commands with placeholders are skipped (:data:`PLACEHOLDER`): a word in capitals (``GAME``, ``PATH``,
``CONFIG``, ``N``, as in ``ice-envs play GAME --players N``), ``<game>``-style names, ``[optional]``
parts or ``...``.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

import ice_envs
from ice_envs.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
RECORDS = sorted((REPO / "docs" / "img" / "records").glob("*.jsonl"))
CHECKPOINTS = sorted((REPO / "checkpoints").glob("*/final.npz"))
DOCS = ("README.md", "docs/results.md", "docs/integrations.md")
PREFIXES = ("ice-envs ", "python -m ice_envs.")
#: A command with any of these is a pattern, not a command to run: skipped.
PLACEHOLDER = re.compile(r"(?<![\w.-])[A-Z][A-Z0-9_]*(?![\w.-])|[<>\[\]]|\.\.\.")
#: Top-level folders whose contents are outputs of the commands, never shipped.
OUTPUT_FOLDERS = {"runs", "build", "dist"}
#: Options whose value is a file or folder the command writes.
OUTPUT_OPTIONS = {"--out", "--record", "--logdir"}


# ---------------------------------------------------------------------------------- records
def test_there_are_shipped_records_and_checkpoints():
    assert RECORDS, "no docs/img/records/*.jsonl"
    assert CHECKPOINTS, "no checkpoints/*/final.npz"


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_shipped_record_replays_with_its_outcome(path):
    from ice_envs.evaluation.replay import replay

    result = replay(path)
    assert result.checked_outcome, f"{path} has no outcome line to check"
    assert result.outcome["finished"], f"{path} does not record a finished game"
    assert result.steps > 0


# ---------------------------------------------------------------------------------- checkpoints
def _checkpoint_game(path: Path) -> tuple[str, int, dict[str, Any]]:
    """(game, players, options) the checkpoint was trained with, from the ``config.yaml`` beside it."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load(path.with_name("config.yaml").read_text())
    game = config["game"]
    spec = ice_envs.get_spec(game["name"])
    variant = game.get("variant") or "default"
    options = {**spec.variants[variant].options, **(game.get("options") or {})}
    return spec.name, int(game["players"]), options


@pytest.mark.parametrize("path", CHECKPOINTS, ids=lambda p: p.parent.name)
def test_shipped_checkpoint_plays_a_whole_game(path):
    pytest.importorskip("openskill")  # evaluate() rates the agents
    from ice_envs.agents import load_agent
    from ice_envs.evaluation.tournament import evaluate

    game, n, options = _checkpoint_game(path)
    agent = load_agent(f"ppo:{path}", game, num_players=n)
    meta = getattr(getattr(agent, "net", None), "meta", None) or {}
    if "game" in meta:  # what the trainer recorded in the weights file agrees with the config
        assert (meta["game"], meta.get("players", n)) == (game, n), meta
    agents = ",".join([f"ppo:{path}"] + ["random"] * (n - 1))
    summary, results = evaluate(game, n, agents, games=1, seed=0, options=options, progress=False)
    (result,) = results
    assert result["decisions"] > 0
    assert not result["truncated"], f"{game}: the game did not end ({result['decisions']} decisions)"
    assert sum(result["win_share"]) == pytest.approx(1.0), result


# ---------------------------------------------------------------------------------- documented commands
def _segments(text: str) -> list[str]:
    """The shell commands of one line: the comment dropped, split at ``&&``, ``||``, ``;`` and ``|``."""
    text = re.split(r"(?:^|\s)#", text, maxsplit=1)[0]
    return [part.strip() for part in re.split(r"&&|\|\||;|\|", text) if part.strip()]


def doc_commands(doc: str) -> list[tuple[int, str]]:
    """(line number, command) of every ``ice-envs ...`` / ``python -m ice_envs....`` command in ``doc``.

    Every line of a fenced code block is read as shell (``$`` prompts and ``#`` comments dropped,
    split at ``&&``, ``;`` and pipes), then every `backtick` span outside the code blocks; a piece
    that starts with ``ice-envs `` or ``python -m ice_envs.`` is a command.
    """
    lines = (REPO / doc).read_text().splitlines()
    found: list[tuple[int, str]] = []
    in_block = False
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            pieces = _segments(line.strip().removeprefix("$ "))
        else:
            pieces = [p for span in re.findall(r"`([^`]+)`", line) for p in _segments(span)]
        found += [(number, piece) for piece in pieces if piece.startswith(PREFIXES)]
    return found


def _cases() -> list[Any]:
    cases = []
    for doc in DOCS:
        for number, command in doc_commands(doc):
            marks = [pytest.mark.skip(reason=f"placeholder: {command}")] if PLACEHOLDER.search(command) else []
            cases.append(pytest.param(command, id=f"{doc}:{number}", marks=marks))
    return cases


def _shipped_roots() -> set[str]:
    return {
        p.name
        for p in REPO.iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and not p.name.endswith(".egg-info")
    } - OUTPUT_FOLDERS


def _named_paths(words: list[str]) -> list[str]:
    """The words (and comma-separated parts, ``ppo:PATH`` paths, ``key=PATH`` values) that look like paths."""
    out = []
    skip_next = False
    for word in words:
        if skip_next or word in OUTPUT_OPTIONS:
            skip_next = word in OUTPUT_OPTIONS
            continue
        for part in word.split(","):
            part = part.split("=", 1)[-1]
            if ":" in part:
                part = part.split(":", 1)[1]
            if "/" in part:
                out.append(part)
    return out


def _check_paths(words: list[str]) -> None:
    roots = _shipped_roots()
    for name in _named_paths(words):
        if Path(name).parts[0] in roots:
            assert (REPO / name).exists(), f"{name} is named by the command but not in the repository"


def test_the_docs_print_commands():
    counts = {doc: len(doc_commands(doc)) for doc in DOCS}
    assert counts["README.md"] >= 10 and counts["docs/results.md"] >= 20, counts


@pytest.mark.parametrize("command", _cases())
def test_documented_command(command):
    words = shlex.split(command)
    if words[0] == "ice-envs":
        parser = build_parser()
        if len(words) == 2:  # prose naming a subcommand ("`ice-envs replay` rebuilds ..."): it exists
            subcommands = next(a for a in parser._actions if a.dest == "command").choices
            assert words[1] in subcommands, f"no subcommand {words[1]!r}"
        else:
            try:
                parser.parse_args(words[1:])
            except SystemExit as exc:
                pytest.fail(f"`{command}` does not parse (exit {exc.code})")
    else:
        assert words[:2] == ["python", "-m"], command
        module = words[2]
        importlib.import_module(module)
        spec = importlib.util.find_spec(module)
        if spec.submodule_search_locations is not None:  # a package: `python -m` runs its __main__
            assert importlib.util.find_spec(f"{module}.__main__") is not None, f"{module} has no __main__"
    _check_paths(words[1:])


def test_nothing_cites_files_outside_the_repository():
    """The repository stands alone: no page, docstring or test sends the reader to the design notes or rulebooks
    kept outside it (the rules pages in docs/rules/ state the rules)."""
    outside = ("shared/rules", "shared/DESIGN", "DESIGN.md", "../shared")
    offenders = []
    for path in sorted(REPO.rglob("*")):
        if path.suffix not in (".py", ".md", ".yaml", ".toml", ".txt", ".json") or not path.is_file():
            continue
        rel = path.relative_to(REPO)
        if rel.parts[0].startswith(".") or rel.parts[0] in ("runs", "build") or "egg-info" in rel.parts[0]:
            continue
        if rel == Path(__file__).relative_to(REPO):
            continue
        text = path.read_text(errors="replace")
        offenders += [f"{rel}: {needle}" for needle in outside if needle in text]
    assert not offenders, offenders
