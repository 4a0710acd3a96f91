"""Reading the files users give ice-envs (maps, catalogs, configs, records, checkpoints), safely.

Every loader goes through :func:`read_bytes` / :func:`read_text`: regular files only (no
directories, devices such as ``/dev/zero``, FIFOs or sockets), a size cap checked before and
while reading, UTF-8 with or without a byte-order mark, and one :class:`FileFormatError`
naming the file (and the line, where there is one) for every failure. :func:`load_json` and
:func:`load_yaml` bound the nesting depth. Nothing read is ever unpickled or evaluated.

Every file ice-envs writes for a run, a league or an evaluation goes through :func:`write_atomic`
(or :func:`atomic_path` for a writer that needs a path of its own): the new content is written to a
temporary file beside the target, flushed and fsynced, then moved over the target with
:func:`os.replace`, so that a reader (or a resume after a kill) sees the old file or the new one,
never a torn one.
"""

from __future__ import annotations

import contextlib
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


def parse_yaml(text: str, *, what: str, source: str, limit: int = MAX_DEPTH) -> Any:
    """``yaml.safe_load(text)`` (plain data only: no tags that build objects) with errors naming the line."""
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else "?"
        raise FileFormatError(f"{what} {source}, line {line}: not valid YAML ({exc.problem})") from None
    except yaml.YAMLError as exc:
        raise FileFormatError(f"{what} {source}: not valid YAML ({exc})") from None
    except RecursionError:
        raise FileFormatError(f"{what} {source}: nested deeper than {limit} levels") from None
    return check_depth(value, what=what, source=source, limit=limit)


def load_yaml(
    path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_TEXT_BYTES, limit: int = MAX_DEPTH
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
