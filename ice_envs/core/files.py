"""Reading the files users give ice-envs (maps, catalogs, configs, records, checkpoints), safely.

Every loader goes through :func:`read_bytes` / :func:`read_text`: regular files only (no
directories, devices such as ``/dev/zero``, FIFOs or sockets), a size cap checked before and
while reading, UTF-8 with or without a byte-order mark, and one :class:`FileFormatError`
naming the file (and the line, where there is one) for every failure. :func:`load_json` and
:func:`load_yaml` bound the nesting depth. :func:`parse_yaml` is the one YAML loader of ice-envs
(configs, league configs, a run's ``config.yaml``, ``--set`` values): plain data only, and the
document is composed and measured before any object is built, so an alias bomb (a few hundred bytes
that expand to billions of values), a recursive alias, deep nesting or too many values are refused
at once. Nothing read is ever unpickled or evaluated.

Every file ice-envs writes for a run, a league or an evaluation goes through :func:`write_atomic`
(or :func:`atomic_path` for a writer that needs a path of its own): the new content is written to a
temporary file beside the target, flushed and fsynced, then moved over the target with
:func:`os.replace`, so that a reader (or a resume after a kill) sees the old file or the new one,
never a torn one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ice_envs.core.errors import OptionError

#: Default size cap of a text file (maps, catalogs, configs): 1 MiB.
MAX_TEXT_BYTES = 1 << 20
#: Default nesting bound of JSON and YAML documents.
MAX_DEPTH = 32
#: Most values (scalars, lists and mappings, keys included) a YAML document may hold once its aliases are
#: expanded (PyYAML composes about 40,000 values a second: the cap keeps a refusal well under a second).
MAX_YAML_NODES = 20_000
#: Size cap of a YAML file (configs are a few kilobytes).
MAX_YAML_BYTES = 256 << 10


class FileFormatError(OptionError):
    """A file that cannot be used: missing, not a regular file, too large, not UTF-8, malformed.

    The message names the file and, where there is one, the line.
    """


def regular_file(path: str | os.PathLike[str], *, what: str) -> os.stat_result:
    """The ``stat`` of ``path`` if it is a regular file (not a directory, device, FIFO or socket), else
    :class:`FileFormatError` naming it (also when it does not exist or cannot be read)."""
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        raise FileFormatError(f"{what} {p}: no such file") from None
    except OSError as exc:
        raise FileFormatError(f"{what} {p}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise FileFormatError(f"{what} {p}: not a regular file")
    return info


def read_bytes(path: str | os.PathLike[str], *, what: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``max_bytes``), or :class:`FileFormatError`."""
    p = Path(path)
    info = regular_file(p, what=what)
    if info.st_size > max_bytes:
        raise FileFormatError(f"{what} {p}: {info.st_size} bytes is larger than the limit of {max_bytes}")
    try:
        with open(p, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise FileFormatError(f"{what} {p}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise FileFormatError(f"{what} {p}: larger than the limit of {max_bytes} bytes")
    return data


def decode_text(data: bytes, *, what: str, source: str) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped); binary data is refused."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FileFormatError(f"{what} {source}, line {line}: not UTF-8 text") from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise FileFormatError(f"{what} {source}, line {line}: binary data (a NUL byte) in a text file")
    return text


def read_text(path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``, or :class:`FileFormatError` naming it."""
    return decode_text(read_bytes(path, what=what, max_bytes=max_bytes), what=what, source=str(path))


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Levels of nested lists and dicts in ``value`` (a scalar is 0, ``[1]`` is 1); stops counting past ``limit``."""
    depth, frontier = 0, [value]
    while depth <= limit:
        containers = [v for v in frontier if isinstance(v, (dict, list, tuple))]
        if not containers:
            return depth
        depth += 1
        frontier = [c for v in containers for c in (v.values() if isinstance(v, dict) else v)]
    return depth


def check_depth(value: Any, *, what: str, source: str, limit: int = MAX_DEPTH) -> Any:
    """``value`` unless it nests deeper than ``limit``."""
    if nesting_depth(value, limit) > limit:
        raise FileFormatError(f"{what} {source}: nested deeper than {limit} levels")
    return value


def parse_json(text: str, *, what: str, source: str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads(text)`` with errors naming the source and line, and the nesting bounded."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{what} {source}, line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise FileFormatError(f"{what} {source}: nested deeper than {limit} levels") from None
    return check_depth(value, what=what, source=source, limit=limit)


def load_json(
    path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_TEXT_BYTES, limit: int = MAX_DEPTH
) -> Any:
    """The JSON document in the regular file ``path`` (see :func:`read_text`, :func:`parse_json`)."""
    return parse_json(read_text(path, what=what, max_bytes=max_bytes), what=what, source=str(path), limit=limit)


class YamlSyntaxError(FileFormatError):
    """Text that is not valid YAML (as opposed to valid YAML refused for its size or shape)."""


def yaml_node_count(
    root: Any, *, what: str, source: str, limit: int = MAX_DEPTH, max_nodes: int = MAX_YAML_NODES
) -> int:
    """The nodes of the composed YAML graph ``root`` once every alias is expanded, checked before construction.

    Each node is measured once (aliases share nodes, so this is linear in the document's size even for
    an alias bomb); a document that would expand to more than ``max_nodes`` nodes, nest deeper than
    ``limit`` levels or refer to itself (a recursive alias) is refused with :class:`FileFormatError`.
    """
    import yaml

    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            size[key], depth[key] = 1, 0
            continue
        children = (
            [part for pair in node.value for part in pair] if isinstance(node, yaml.MappingNode) else list(node.value)
        )
        if children_done:
            open_nodes.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            if size[key] > max_nodes:
                raise FileFormatError(
                    f"{what} {source}: more than {max_nodes} values once its aliases are expanded (an alias bomb?)"
                )
            if depth[key] > limit:
                raise FileFormatError(f"{what} {source}: nested deeper than {limit} levels")
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise FileFormatError(f"{what} {source}: a recursive alias (a value that contains itself)")
        if len(open_nodes) > limit:
            raise FileFormatError(f"{what} {source}: nested deeper than {limit} levels")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)
    return size[id(root)]


class _TooDeep(Exception):
    """Raised by the YAML composer as soon as a document nests deeper than its limit."""


class _TooMany(Exception):
    """Raised by the YAML composer as soon as a document has more values than its limit."""


@functools.cache
def _bounded_loader() -> type:
    """``yaml.SafeLoader`` whose composer stops at ``depth_limit`` levels of nesting.

    Stopping while composing (not after) matters: PyYAML's scanner is quadratic in the depth of
    nested flow collections, so a megabyte of ``[`` would otherwise take seconds to refuse.
    """
    import yaml

    class BoundedSafeLoader(yaml.SafeLoader):
        depth_limit = MAX_DEPTH
        node_limit = MAX_YAML_NODES
        _depth = 0
        _nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self._depth += 1
            self._nodes += 1
            try:
                if self._depth > self.depth_limit + 1:  # a scalar inside ``depth_limit`` collections is allowed
                    raise _TooDeep
                if self._nodes > self.node_limit:
                    raise _TooMany
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    return BoundedSafeLoader


def parse_yaml(text: str, *, what: str, source: str, limit: int = MAX_DEPTH, max_nodes: int = MAX_YAML_NODES) -> Any:
    """The one YAML loader of ice-envs: plain data only (``yaml.SafeLoader``: no tags that build objects).

    The document is composed into its node graph first and measured (:func:`yaml_node_count`): an
    alias bomb, a recursive alias or deep nesting is refused before any Python object is built.
    Errors are one :class:`FileFormatError` naming ``source`` (and the line, for a syntax error:
    :class:`YamlSyntaxError`).
    """
    import yaml

    try:  # the reader checks the characters as the loader is made
        loader = _bounded_loader()(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else "?"
        raise YamlSyntaxError(f"{what} {source}, line {line}: not valid YAML ({exc.problem})") from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"{what} {source}: not valid YAML ({one_line_text(str(exc))})") from None
    loader.depth_limit, loader.node_limit = limit, max_nodes
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        yaml_node_count(node, what=what, source=source, limit=limit, max_nodes=max_nodes)
        value = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else "?"
        raise YamlSyntaxError(f"{what} {source}, line {line}: not valid YAML ({exc.problem})") from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"{what} {source}: not valid YAML ({one_line_text(str(exc))})") from None
    except (RecursionError, _TooDeep):
        raise FileFormatError(f"{what} {source}: nested deeper than {limit} levels") from None
    except _TooMany:
        raise FileFormatError(f"{what} {source}: more than {max_nodes} values") from None
    finally:
        loader.dispose()
    return check_depth(value, what=what, source=source, limit=limit)


def one_line_text(text: str) -> str:
    """``text`` on one line (its non-empty lines joined by ``; ``)."""
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def load_yaml(
    path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_YAML_BYTES, limit: int = MAX_DEPTH
) -> Any:
    """The YAML document in the regular file ``path`` (see :func:`read_text`, :func:`parse_yaml`)."""
    return parse_yaml(read_text(path, what=what, max_bytes=max_bytes), what=what, source=str(path), limit=limit)


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where directories cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; on a clean exit it is fsynced and moved over ``path``.

    On an exception the temporary file is removed and ``path`` is left as it was::

        with atomic_path(run_dir / "model.zip") as tmp:
            model.save(tmp)
    """
    target = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would outlive the rename: the permissions of open()
    try:
        yield tmp
        with open(tmp, "rb+") as handle:
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(target.parent)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically: the old file or the new one, never a torn one."""
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        handle.write(payload)
