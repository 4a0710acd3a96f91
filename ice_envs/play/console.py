"""Terminal output for ``ice-envs play``: plain text, or rich panels on a terminal.

Plain text is the default whenever stdout is not a terminal (pipes, scripts, tests) or
rich is not installed; every line the plain console prints, the rich one prints too,
only framed and coloured.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

from ice_envs.play.menu import Entry


class Console:
    """Where the terminal game writes: tables, menus, messages and the prompt."""

    def __init__(self, out: TextIO | None = None, fancy: bool | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        if fancy is None:
            fancy = bool(getattr(self.out, "isatty", lambda: False)())
        self._rich: Any = None
        if fancy:
            try:
                from rich.console import Console as RichConsole

                self._rich = RichConsole(file=self.out, highlight=False)
            except ImportError:  # rich is optional
                self._rich = None

    @property
    def fancy(self) -> bool:
        return self._rich is not None

    def line(self, text: str = "", style: str | None = None) -> None:
        """One message line (``style`` is a rich style, ignored in plain text)."""
        if self._rich is not None:
            from rich.text import Text

            self._rich.print(Text(text, style=style or ""))
        else:
            print(text, file=self.out)

    def error(self, text: str) -> None:
        self.line(text, style="bold red")

    def table(self, title: str, text: str) -> None:
        """The table as the player's seat sees it."""
        if self._rich is not None:
            from rich.panel import Panel
            from rich.text import Text

            widest = max((len(line) for line in text.splitlines()), default=0)
            if widest + 4 <= self._rich.width:
                self._rich.print(Panel(Text(text), title=title, title_align="left", border_style="cyan", expand=False))
            else:  # too wide for a frame on this terminal: let the lines wrap as they are
                self._rich.rule(Text(title, style="bold cyan"), align="left", style="cyan")
                self._rich.print(Text(text), soft_wrap=True)
        else:
            print(f"\n=== {title} ===", file=self.out)
            print(text, file=self.out)

    def menu(self, title: str, entries: Sequence[Entry], footer: str) -> None:
        """The numbered moves of the current menu level."""
        width = len(str(len(entries)))
        lines = [f"{i + 1:>{width}}) {e.label}" for i, e in enumerate(entries)]
        if self._rich is not None:
            from rich.text import Text

            self._rich.print(Text(title + ":", style="bold"))
            for e, text in zip(entries, lines):
                self._rich.print(Text("  " + text, style="cyan" if e.is_group else ""))
            self._rich.print(Text(footer, style="dim"))
        else:
            print(f"{title}:", file=self.out)
            for text in lines:
                print("  " + text, file=self.out)
            print(footer, file=self.out)

    def prompt(self, text: str = "> ") -> None:
        """Print the prompt (no newline) and flush."""
        self.out.write(text)
        self.out.flush()
