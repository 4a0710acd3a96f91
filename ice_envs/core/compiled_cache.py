"""A game's compiled loops as a generated module that numba caches on disk, and the disk cache of every
compiled function, refreshed when any file its machine code comes from changes.

The batch loops (:mod:`ice_envs.core.compiled_loops`) call a game's kernels and players. Closed over
them, numba would compile the loops anew in every process (tens of seconds per game); reached through
module globals, they are cached like any ``cache=True`` function. :func:`game_loops` therefore writes,
per game, the loops' source followed by imports of that game's kernels and compiled players (and a
``dispatch`` calling player ``kind``), and imports it: the first process compiles, every later one
loads the machine code.

Freshness: numba keys a cached function on the content of its own source file only, not on the
functions it calls, whose machine code it holds. Every function decorated with this module's
:func:`njit` (``ice_envs.core.compiled.njit``: every kernel and player) is therefore cached as fresh only
while **every file its machine code depends on** is unchanged (:func:`reached_files`: its own, those of
the numba functions it calls, transitively, and those defining the constants they read, followed
through ``from X import NAME``). The generated module's name also carries a digest of its text and of
those files: editing a kernel, a player, a helper they call in another file or a constant they read
in ``rules.py`` compiles what depends on it afresh, and nothing else (editing, say, ``vector.py``
recompiles nothing).

Where: under ``$NUMBA_CACHE_DIR/ice_envs_loops`` when numba's cache folder is set, else in the
``__pycache__`` folder beside the game's engine module (as numba caches there), else (a read-only
install) in numba's per-user cache folder, else in a temporary folder (cached for this process only).
Two processes generating the same module at once write the same text, atomically.

``python -m ice_envs.core.compiled_warmup`` (:mod:`ice_envs.core.compiled_warmup`) compiles (or loads) every game's loops and kernels once,
so that later processes, e.g. parallel test workers, load them instead of each compiling them.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import re
import sys
import tempfile
import types
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import types as numba_types
from numba.core.caching import FunctionCache, IndexDataCacheFile, _CacheLocator
from numba.core.dispatcher import Dispatcher

from ice_envs.core.files import write_atomic

__all__ = ["always_decided", "cache_folder", "game_loops", "njit", "reached_files", "source_digest"]

#: The loops' source (the generated modules' text up to their bindings).
TEMPLATE = Path(__file__).with_name("compiled_loops.py")
#: The folder under a cache root that holds the generated modules.
FOLDER = "ice_envs_loops"
#: The kernel slots of :class:`~ice_envs.core.compiled.GameKernels` and the names the loops call them by.
KERNEL_NAMES = (
    ("new_game", "new_game"),
    ("legal", "legal"),
    ("apply", "apply_action"),
    ("deciding", "deciding"),
    ("is_over", "is_over"),
    ("scores", "scores"),
    ("outcome", "outcome"),
    ("encode", "encode"),
    ("undecided", "undecided"),
    ("opening_scores", "opening_scores"),
)

_modules: dict[str, types.ModuleType] = {}


# ------------------------------------------------------------------ where
def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _user_cache_root() -> Path:
    """numba's per-user cache folder (where it caches functions whose own folder is read-only)."""
    from numba.misc.appdirs import AppDirs

    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)


def cache_folder(anchor: str | Path) -> Path:
    """The folder the generated modules of a game whose engine is defined in file ``anchor`` go to
    (the module docstring's order: ``$NUMBA_CACHE_DIR``, beside ``anchor``, per user, temporary)."""
    roots = []
    if numba.config.CACHE_DIR:
        roots.append(Path(numba.config.CACHE_DIR))
    roots.append(Path(anchor).resolve().parent / "__pycache__")
    roots.append(_user_cache_root())
    for root in roots:
        if _writable(root / FOLDER):
            return root / FOLDER
    return Path(tempfile.mkdtemp(prefix="ice_envs_loops_"))


# ------------------------------------------------------------------ what a numba function reads
#: Packages whose files never count (numba keys its cache on its own version; numpy's values are fixed).
_OUTSIDE = frozenset({"numba", "numpy", "builtins", "typing", "llvmlite"})


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _python_function(fn: Any) -> Any:
    return getattr(fn, "py_func", fn)


def _is_numba(value: Any) -> bool:
    return isinstance(value, Dispatcher)


def _source_file(module_name: str) -> Path | None:
    """The ``.py`` file of an imported module that counts (not numba's, numpy's or the standard library's)."""
    if module_name.partition(".")[0] in _OUTSIDE:
        return None
    file = getattr(sys.modules.get(module_name), "__file__", None)
    return Path(file).resolve() if file and file.endswith(".py") else None


@functools.cache
def _imported_names(path: Path, package: str) -> dict[str, tuple[str, str]]:
    """``name -> (module, its name there)`` of the top-level ``from X import name`` statements of ``path``."""
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(path.read_bytes()).body:
        if isinstance(node, ast.ImportFrom):
            source = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            for alias in node.names:
                found[alias.asname or alias.name] = (source, alias.name)
    return found


def _defining_files(module_name: str, name: str) -> set[Path]:
    """The file of module ``module_name`` and, when it imports ``name`` from another module (``from X import
    name``, re-exports followed), the file that defines it."""
    files: set[Path] = set()
    while len(files) < 16:
        path = _source_file(module_name)
        if path is None or path in files:
            break
        files.add(path)
        module = sys.modules[module_name]
        package = module.__package__ or module_name.rpartition(".")[0]
        if name not in _imported_names(path, package):
            break
        module_name, name = _imported_names(path, package)[name]
    return files


def reached_files(functions: Iterable[Any]) -> set[Path]:
    """The source files a numba function's machine code depends on: those of ``functions`` (numba functions or
    plain ones), of every numba function they call (directly or as a module attribute, transitively), and of
    every module that defines a global value they read (a constant imported from ``rules.py``, say)."""
    seen: set[int] = set()
    files: set[Path] = set()
    todo = [f for f in functions if f is not None]
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        py = _python_function(fn)
        code = getattr(py, "__code__", None)
        if code is None:
            continue
        own = _source_file(py.__module__)
        if own is not None:
            files.add(own)
        names = _code_names(code)
        scope = getattr(py, "__globals__", {})
        for name in names & scope.keys():
            value = scope[name]
            if isinstance(value, types.ModuleType):
                for attr in names:
                    inner = getattr(value, attr, None)
                    if _is_numba(inner):
                        todo.append(inner)
                    elif inner is not None and not callable(inner):
                        files |= _defining_files(value.__name__, attr)
            elif _is_numba(value):
                todo.append(value)
            elif not callable(value):
                files |= _defining_files(py.__module__, name)
    return files


def source_digest(functions: Iterable[Any], text: str = "") -> str:
    """A digest of ``text`` and of the files :func:`reached_files` finds."""
    digest = hashlib.sha256(text.encode("utf-8"))
    for path in sorted(reached_files(functions)):
        digest.update(f"\0{path}\0".encode())
        digest.update(_file_digest(path))
    return digest.hexdigest()


@functools.cache
def _file_digest(path: Path) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


# ------------------------------------------------------------------ numba functions whose cache knows its callees
class _LazyStampIndex(IndexDataCacheFile):
    """numba's cache index, whose freshness stamp is computed when the cache is first read or written."""

    def __init__(self, cache_path: str, filename_base: str, stamp: Any) -> None:
        super().__init__(cache_path, filename_base, None)
        self._stamp = stamp
        self._value: Any = None

    @property
    def _source_stamp(self) -> Any:
        if self._value is None:
            self._value = self._stamp()
        return self._value

    @_source_stamp.setter
    def _source_stamp(self, value: Any) -> None:  # numba's __init__ sets it; the lazy one stands
        pass


class _CalleeAwareCache(FunctionCache):
    """numba's per-function disk cache, fresh only while the function's file **and** every file of
    :func:`reached_files` are unchanged (numba's own stamp covers the first only)."""

    def __init__(self, py_func: Any) -> None:
        super().__init__(py_func)
        own = self._cache_file._source_stamp
        dispatcher = py_func

        def stamp() -> tuple[Any, str]:
            return own, source_digest([dispatcher])

        self._cache_file = _LazyStampIndex(self._cache_path, self._impl.filename_base, stamp)


def njit(function: Any = None, **options: Any) -> Any:
    """``numba.njit(cache=True, nogil=True, error_model="numpy", **options)``, with a disk cache that is
    refreshed when a function it calls or a constant it reads changes, in whatever file (the module
    docstring's freshness rule), and compiled once per plain argument types when called from compiled
    code (:func:`_call_template_of_plain_types`): usable bare (``@njit``) or with options
    (``@njit(inline="always")``)."""
    if function is None:
        return lambda fn: njit(fn, **options)
    settings = {"nogil": True, "error_model": "numpy", **options}
    dispatcher = numba.njit(**settings)(function)
    if isinstance(dispatcher, Dispatcher):
        dispatcher._cache = _CalleeAwareCache(dispatcher.py_func)
        dispatcher.get_call_template = functools.partial(_call_template_of_plain_types, dispatcher)
    return dispatcher


def _call_template_of_plain_types(dispatcher: Dispatcher, args: Sequence[Any], kws: dict[str, Any]) -> Any:
    """``dispatcher.get_call_template`` for a call from compiled code, with every literal argument type made
    plain (``Literal[int](0)`` is ``int64``, ``Literal[bool](True)`` is ``bool``): one machine code per
    argument types instead of one per constant a caller passes, and none for the literal a loop variable
    has before numba's type inference widens it; the code is the same for every value."""
    plain = tuple(numba_types.unliteral(arg) for arg in args)
    return Dispatcher.get_call_template(dispatcher, plain, {key: numba_types.unliteral(v) for key, v in kws.items()})


@njit
def always_decided(s: np.ndarray, cfg: np.ndarray) -> bool:
    """The default ``undecided`` kernel of a game's loops: every end of a game is decided."""
    return False


# ------------------------------------------------------------------ the generated module
def _reference(fn: Any, role: str) -> tuple[str, str]:
    """``(module, name)`` a module-level function ``fn`` is imported by."""
    py = _python_function(fn)
    module, name = getattr(py, "__module__", None), getattr(py, "__qualname__", "")
    found = None
    if module and "." not in name:
        found = getattr(importlib.import_module(module), name, None)
    if found is not fn:
        raise TypeError(
            f"compiled loops: {role} ({module}.{name}) must be a numba function defined at a module's top level"
        )
    return module, name


def _bindings(game: str, kernels: Any, players: Sequence[Any]) -> str:
    lines = ["", "", f"# {'-' * 111}", f"# The bindings of {game!r} (generated by ice_envs.core.compiled_cache)."]
    defaults = {"undecided": always_decided, "opening_scores": kernels.scores}
    for slot, name in KERNEL_NAMES:
        fn = getattr(kernels, slot)
        fn = defaults[slot] if fn is None else fn
        module, attr = _reference(fn, f"{game}: kernel {slot}")
        lines.append(f"from {module} import {attr} as {name}  # noqa: E402")
    for k, player in enumerate(players):
        module, attr = _reference(player.act, f"{game}: compiled player {player.name}")
        lines.append(f"from {module} import {attr} as act_{k}  # noqa: E402")
    lines.append(f"PLAYERS = {tuple(p.name for p in players)!r}")
    # inlined into its two callers (advance, seat_playout): compiled on its own, its machine code would be one more
    # copy of every player (numba links a callee's code into each caller's), which no one calls from Python
    lines += ["", "", '@njit(inline="always")', "def dispatch(kind, s, cfg, mask, prng, memory):  # noqa: F811"]
    for k in range(len(players)):
        lines += [f"    if kind == {k}:", f"        return act_{k}(s, cfg, mask, prng, memory)"]
    lines += ["    return -1", ""]
    return "\n".join(lines)


def _forget_older(path: Path, prefix: str) -> None:
    """Remove the modules generated for the same game from older sources beside ``path`` and their caches
    (Python's and numba's), so that edits do not pile machine code up."""
    stale = re.compile(rf"^{re.escape(prefix)}_[0-9a-f]{{20}}\.")
    folders = [path.parent, path.parent / "__pycache__"]
    if numba.config.CACHE_DIR:
        folders.append(Path(numba.config.CACHE_DIR) / _CacheLocator.get_suitable_cache_subpath(str(path)))
    for folder in folders:
        if not folder.is_dir():
            continue
        for old in folder.iterdir():
            if stale.match(old.name) and old.name != path.name and old.is_file():
                with contextlib.suppress(OSError):
                    old.unlink()


def game_loops(game: str, kernels: Any, players: Sequence[Any], anchor: str | Path) -> types.ModuleType:
    """The module of ``game``'s loops over ``kernels`` (a :class:`~ice_envs.core.compiled.GameKernels`) and
    ``players`` (:class:`~ice_envs.core.compiled_players.CompiledPlayer`, numbered in this order by
    ``dispatch``), generated where :func:`cache_folder` says for ``anchor`` (the engine's source file) and
    imported once per process."""
    text = TEMPLATE.read_text(encoding="utf-8") + _bindings(game, kernels, players)
    functions = [getattr(kernels, slot) for slot, _ in KERNEL_NAMES] + [p.act for p in players]
    digest = source_digest(functions, text)[:20]
    name = f"_ice_envs_loops_{re.sub(r'[^0-9A-Za-z_]', '_', game)}_{digest}"
    if name in _modules:
        return _modules[name]
    path = cache_folder(anchor) / f"{name}.py"
    header = f"# {game}: compiled batch loops, generated from ice_envs/core/compiled_loops.py (do not edit).\n"
    text = header + text
    if not path.is_file() and not numba.config.DISABLE_JIT:  # (plain Python functions digest differently)
        _forget_older(path, name.rpartition("_")[0])
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_atomic(path, text)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py path always has a loader
        raise ImportError(f"compiled loops: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _modules[name] = module
    return module
