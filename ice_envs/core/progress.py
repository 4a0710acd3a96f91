"""Progress on stderr for commands that may run longer than a few seconds.

:func:`progress_bar` is the one helper every command uses: a ``tqdm`` bar when tqdm is installed
(the ``eval`` extra), otherwise a plain counter (``replay: 40/146 decisions``) rewritten in place
about twice a second, so that a long command never sits silent. Both have ``update(n)`` and
``close()``; a disabled one does nothing. A ``transient`` display erases itself when closed, so that
what the command prints next (its result, or its one-line error) stands alone.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol, TextIO

__all__ = ["Progress", "progress_bar"]


class Progress(Protocol):
    """What a command calls on its progress display."""

    def update(self, n: int = 1) -> Any:
        """``n`` more units are done."""

    def close(self) -> Any:
        """The work is over (the display ends its line)."""


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class _Counter:
    """``desc: done/total unit`` on ``file``, rewritten at most every ``interval`` seconds, and at the end."""

    def __init__(self, total: int, desc: str, unit: str, file: TextIO, transient: bool, interval: float = 0.5) -> None:
        self.total, self.desc, self.unit, self.file, self.interval = total, desc, unit, file, interval
        self.transient = transient
        self.done = 0
        self._shown = -1.0

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._shown >= self.interval:
            self._show()
            self._shown = now

    def close(self) -> None:
        if self.transient:
            self.file.write("\r" + " " * len(self._text()) + "\r")
        else:
            self._show()
            self.file.write("\n")
        self.file.flush()

    def _text(self) -> str:
        return f"{self.desc}: {self.done}/{self.total} {self.unit}"

    def _show(self) -> None:
        self.file.write("\r" + self._text())
        self.file.flush()


def progress_bar(
    total: int,
    desc: str,
    unit: str,
    *,
    enabled: bool = True,
    terminal_only: bool = False,
    transient: bool = False,
    file: TextIO | None = None,
) -> Progress:
    """A progress display of ``total`` units on ``file`` (default: ``sys.stderr``).

    ``enabled=False``, or ``terminal_only`` with ``file`` not a terminal, gives one that shows nothing;
    ``transient``: the display is erased when closed.
    """
    file = file if file is not None else sys.stderr
    if not enabled or (terminal_only and not file.isatty()):
        return _Silent()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Counter(total, desc, unit, file, transient)
    return tqdm(total=total, desc=desc, unit=unit, file=file, leave=not transient)
