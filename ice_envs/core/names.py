"""Folder names made from what users type (agent specs, game names), portable to every file system.

A report folder is named after the command's game and agents (``runs/eval/cardiceo-2p-<agents>``),
and agent specs hold characters that Windows refuses in a file name (``ppo:runs/x/final.zip``,
``mcts:sims=50``). :func:`portable_name` is the one rule every command uses:

* a name made only of ASCII letters, digits, ``.``, ``_`` and ``-`` (not ending in ``.``, at most
  :data:`MAX_NAME` characters) is kept as it is;
* any other name has each run of other characters replaced by ``_``, is cut to fit, and ends in
  ``-`` and the first 8 hexadecimal digits of the SHA-256 of the original text, so that two
  different texts never share a folder (``ppo:a/b`` and ``ppo:a_b`` differ).

The result is deterministic (the same command always writes to the same folder) and valid on
Linux, macOS and Windows: no ``<>:"/\\|?*``, no control character, no trailing dot or space.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["MAX_NAME", "portable_name"]

#: The longest name :func:`portable_name` returns (well under the 255 of common file systems).
MAX_NAME = 120
_PLAIN = re.compile(r"^[A-Za-z0-9._-]+$")
_OTHER = re.compile(r"[^A-Za-z0-9._-]+")
_DIGEST = 8


def portable_name(text: str) -> str:
    """``text`` as a file or folder name valid on every common file system (see the module docstring)."""
    if _PLAIN.match(text) and not text.endswith(".") and len(text) <= MAX_NAME:
        return text
    slug = _OTHER.sub("_", text).strip("._")[: MAX_NAME - _DIGEST - 1] or "_"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST]
    return f"{slug}-{digest}"
