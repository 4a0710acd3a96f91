"""Game options written as text (``--option key=value`` on the command line)."""

from __future__ import annotations

import argparse
from typing import Any


def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as int, float, bool or str."""
    key, sep, raw = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"option {text!r} is not key=value")
    value: Any = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    else:
        for cast in (int, float):
            try:
                value = cast(raw)
                break
            except ValueError:
                continue
    return key, value
