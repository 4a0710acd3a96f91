"""The import graph points one way: core <- games <- agents <- {evaluation, wrappers} <- {play, train} <- web <- cli.

Read statically from the source with :mod:`ast` (function-local imports included), so the
layering cannot drift back unnoticed. ``benchmarks`` are scripts on top of everything but the
CLI; ``ice_envs.testing`` (the contract kit) checks every layer, training included, from the top. ``ice_envs.wrappers`` (the single-agent Gymnasium env, RLlib's adapters) sits beside
evaluation: it builds agents, and the training code builds on it, never the other way round.
Its one module that ``import ice_envs`` runs, ``ice_envs.wrappers.registration``, belongs to the
core layer (it registers the Gymnasium ids by name and imports only the core). A game may import only
the core and its own folder; nothing imports the repository's
top-level folder names (``agents``, ``train``, ``benchmarks``) except as ``ice_envs.<name>``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: import name -> folder (as setup.py installs them)
PACKAGE_DIRS = {
    "ice_envs": "ice_envs",
    "ice_envs.agents": "agents",
    "ice_envs.train": "train",
    "ice_envs.benchmarks": "benchmarks",
}
#: layer -> rank; a module may import its own layer or a layer of lower rank, never a sibling of equal rank
RANKS = {
    "core": 0,
    "games": 1,
    "agents": 2,
    "evaluation": 3,
    "wrappers": 3,
    "play": 4,
    "train": 4,
    "web": 4.5,
    "cli": 5,
    "benchmarks": 5,
    "testing": 5,
}
PRODUCT_LAYERS = ("core", "agents", "evaluation", "wrappers", "play", "train", "web", "benchmarks")
#: modules of a product folder that belong to a lower layer: what ``import ice_envs`` itself runs
CORE_MODULES = {"ice_envs.wrappers.registration"}


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for name, folder in PACKAGE_DIRS.items():
        base = ROOT / folder
        for path in base.rglob("*.py"):
            rel = path.relative_to(base).with_suffix("")
            if "__pycache__" in rel.parts:  # numba's cache: the generated loop modules are not the project's
                continue
            parts = [p for p in rel.parts if p != "__init__"]
            full = ".".join([name, *parts])
            if (
                full.startswith("ice_envs.")
                and full.split(".")[1] in ("agents", "train", "benchmarks")
                and folder == "ice_envs"
            ):
                continue
            out[full] = path
    return out


MODULES = _modules()


def _imports(module: str, path: Path) -> set[str]:
    """Internal modules that ``module`` imports (anywhere in its body)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


@functools.cache
def imports_of(module: str) -> frozenset[str]:
    """:func:`_imports` of ``module``, read once (each test reads the modules it needs, not at collection)."""
    return frozenset(_imports(module, MODULES[module]))


def layer(module: str) -> tuple[str, str | None]:
    """(layer, game) of an internal module; ``game`` is set for the games layer."""
    parts = module.split(".")
    if module == "ice_envs" or parts[1] == "core" or module in CORE_MODULES:
        return "core", None
    if parts[1] == "cli":
        return "cli", None
    if parts[1] in RANKS:
        return parts[1], None
    return "games", parts[1]


def test_the_graph_is_read():
    assert "ice_envs.core.aec" in MODULES and "ice_envs.agents.spec" in MODULES and "ice_envs.train.run" in MODULES
    assert "ice_envs.core.aec" in imports_of("ice_envs.cardiceo.env")
    assert "ice_envs.evaluation.tournament" in imports_of("ice_envs.evaluation.cli")
    assert "ice_envs.wrappers.single_agent" in imports_of("ice_envs.train.training_env")
    assert "ice_envs.wrappers.registration" in imports_of("ice_envs")


def test_the_wrappers_never_import_the_training_code():
    wrappers = [m for m in MODULES if m.startswith("ice_envs.wrappers")]
    assert "ice_envs.wrappers.single_agent" in wrappers and "ice_envs.wrappers.opponents" in wrappers
    bad = {
        m: sorted(t for t in imports_of(m) if layer(t)[0] in ("train", "play", "cli", "benchmarks")) for m in wrappers
    }
    assert not any(bad.values()), bad


def test_what_import_ice_envs_runs_imports_only_the_core():
    """``import ice_envs`` registers the Gymnasium ids without loading the agents or the wrappers' env."""
    for module in sorted(CORE_MODULES):
        assert {layer(t)[0] for t in imports_of(module)} <= {"core"}, (module, sorted(imports_of(module)))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_one_way(module: str):
    mine, my_game = layer(module)
    bad = []
    for target in sorted(imports_of(module)):
        theirs, their_game = layer(target)
        if mine == "games" and theirs == "games" and their_game != my_game:
            bad.append(f"{target} (another game)")
        elif theirs != mine and RANKS[theirs] >= RANKS[mine]:
            bad.append(f"{target} ({theirs} layer)")
    assert not bad, f"{module} ({mine} layer) imports upward or sideways: {bad}"


def test_no_import_cycles():
    """Tarjan's strongly connected components: every component is a single module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in imports_of(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(MODULES):
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_nothing_imports_the_top_level_folder_names():
    offenders = []
    for path in [
        *ROOT.glob("ice_envs/**/*.py"),
        *ROOT.glob("agents/**/*.py"),
        *ROOT.glob("train/**/*.py"),
        *ROOT.glob("benchmarks/**/*.py"),
        *ROOT.glob("tests/**/*.py"),
    ]:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in ("agents", "train", "benchmarks")
            ]
    assert not offenders, offenders
