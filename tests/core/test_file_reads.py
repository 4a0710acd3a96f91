"""Every file ice-envs reads from a user's path goes through ``ice_envs.core.files`` (regular files only,
capped sizes, one error naming the file; one YAML loader safe against alias bombs).

The source tree is searched (by its syntax tree, so docstrings and comments do not count) for raw reads:
``open()`` for reading, ``Path.read_text``/``read_bytes``, ``np.load``, ``torch.load``, ``json.load``,
``pickle.load``, a ``zipfile.ZipFile`` of a path and any ``yaml`` loader. Reads of bytes already in memory
(``io.BytesIO``) pass; the few others are listed below with the reason they are safe.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The folders installed as the package (setup.py's PACKAGE_DIRS).
PACKAGE_DIRS = ("ice_envs", "agents", "train", "benchmarks")
#: The one module that opens user files.
READER = "ice_envs/core/files.py"

#: (file, the call's source as ast.unparse writes it) -> why this read is not a user's path.
ALLOWED = {
    ("ice_envs/core/machine.py", "open('/proc/cpuinfo', encoding='utf-8')"): "the machine's own CPU description",
    ("benchmarks/memory.py", "open('/proc/self/statm')"): "this process's memory",
    ("benchmarks/throughput.py", "open('/proc/cpuinfo')"): "the machine's own CPU description",
    ("benchmarks/mcts_budget.py", "Path(inspect.getsourcefile(cls)).read_bytes()"): "the package's own source",
    (
        "ice_envs/icebergs/hexmap.py",
        "res.read_text(encoding='utf-8')",
    ): "a map shipped inside the package (importlib.resources)",
    (
        "ice_envs/tip_of_the_diceberg/catalog.py",
        "resources.files('ice_envs.tip_of_the_diceberg').joinpath('data').joinpath(name).read_text(encoding='utf-8')",
    ): "a catalog shipped inside the package (importlib.resources)",
    ("benchmarks/league_kills.py", "(entry / 'stat').read_text()"): "the process table (/proc/PID/stat)",
    ("ice_envs/core/compiled_cache.py", "path.read_bytes()"): "the package's own source files, to digest them",
    ("ice_envs/core/compiled_cache.py", "TEMPLATE.read_text(encoding='utf-8')"): "the package's own loop template",
    (
        "ice_envs/core/compiled_cache.py",
        "path.read_text(encoding='utf-8')",
    ): "the loop module this package generated, compared before it is rewritten",
    ("agents/ppo_agent.py", "archive.open(info)"): "a member of a zip already read into memory, its size checked",
    (
        "train/checkpoints.py",
        "MaskablePPO.load(archive, env=venv, device='cpu', custom_objects=custom, force_reset=False)",
    ): ("an archive rebuilt in memory from checked parts"),
}

READ_METHODS = {"read_text", "read_bytes"}
#: module.function loaders of a file or file object
LOADERS = {
    ("np", "load"),
    ("numpy", "load"),
    ("torch", "load"),
    ("json", "load"),
    ("pickle", "load"),
    ("yaml", "load"),
    ("yaml", "safe_load"),
    ("yaml", "full_load"),
    ("yaml", "unsafe_load"),
    ("yaml", "load_all"),
    ("yaml", "safe_load_all"),
    ("yaml", "compose"),
    ("zipfile", "ZipFile"),
    ("tarfile", "open"),
    ("np", "fromfile"),
    ("np", "loadtxt"),
}


def _is_in_memory(node: ast.AST) -> bool:
    """``io.BytesIO(...)`` / ``BytesIO(...)`` / ``io.StringIO(...)``."""
    if not isinstance(node, ast.Call):
        return False
    name = ast.unparse(node.func)
    return name in ("io.BytesIO", "BytesIO", "io.StringIO", "StringIO")


def _writes(call: ast.Call) -> bool:
    """``open(path, "w"...)``, ``path.open("a")``, ``ZipFile(path, "w")``: a write, not a read."""
    is_method = isinstance(call.func, ast.Attribute) and ast.unparse(call.func) != "zipfile.ZipFile"
    mode_index = 0 if is_method else 1
    mode = None
    if len(call.args) > mode_index and isinstance(call.args[mode_index], ast.Constant):
        mode = call.args[mode_index].value
    for kw in call.keywords:
        if kw.arg == "mode" and isinstance(kw.value, ast.Constant):
            mode = kw.value.value
    return isinstance(mode, str) and any(c in mode for c in "wax")


def raw_reads(path: Path) -> list[tuple[int, str]]:
    """The raw file reads in one source file: (line, the call's source)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        suspicious = False
        if isinstance(func, ast.Name) and func.id == "open":
            suspicious = not _writes(node)
        elif isinstance(func, ast.Attribute):
            owner = ast.unparse(func.value)
            if func.attr in READ_METHODS:
                suspicious = True
            elif func.attr == "open" and owner not in ("os", "Image", "tarfile"):
                suspicious = not _writes(node)
            elif (owner, func.attr) in LOADERS or (owner.endswith("PPO") and func.attr == "load"):
                suspicious = not (node.args and _is_in_memory(node.args[0])) and not _writes(node)
        if suspicious:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_raw_reads_of_user_paths_outside_the_capped_reader() -> None:
    offenders, used = [], set()
    for folder in PACKAGE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == READER:
                continue
            for line, call in raw_reads(path):
                if (rel, call) in ALLOWED:
                    used.add((rel, call))
                else:
                    offenders.append(f"{rel}:{line}: {call}")
    assert not offenders, "raw reads of files outside ice_envs.core.files:\n" + "\n".join(offenders)
    assert used == set(ALLOWED), f"allow-list entries that no longer match anything: {set(ALLOWED) - used}"


def test_the_search_finds_the_reads_it_is_meant_to_find(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import json, yaml, numpy as np, io\n"
        "from pathlib import Path\n"
        "a = open(p)\n"
        "b = Path(p).read_text()\n"
        "c = np.load(p)\n"
        "d = yaml.safe_load(text)\n"
        "e = json.load(handle)\n"
        "f = p.open()\n"
        "ok1 = np.load(io.BytesIO(data))\n"
        "ok2 = open(p, 'w')\n"
        "ok3 = p.open('a')\n"
        '"""open(p) in a docstring"""\n'
    )
    assert [line for line, _ in raw_reads(sample)] == [3, 4, 5, 6, 7, 8]
