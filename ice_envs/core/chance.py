"""Enumerating an engine call's chance draws: every sequence of ``integers`` draws, one path at a time.

An engine draws its chance from a generator. Played with a :class:`ScriptedDraws` instead, a call takes
the draws its script prescribes and records how many outcomes each draw had; :func:`next_script` then
turns the script, like an odometer, to the next sequence of draws. So the same call, replayed until
:func:`next_script` says done, visits every outcome once, each with probability ``1 / paths``::

    script = []
    while True:
        rng = ScriptedDraws(script, limit=36)
        after = state.copy()
        apply(after, action, rng)          # raises ChanceLimit past 36 outcomes
        ...                                # after: one outcome, of probability 1 / rng.paths
        if not next_script(script, rng.widths):
            break

Used by the search agents' simulator (``ice_envs.agents.search``) and by a game's own greedy hook
(``ice_envs.icebergs.greedy``); it lives in ``core`` so that both can use it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ChanceLimit", "ScriptedDraws", "next_script"]


class ChanceLimit(Exception):
    """Raised inside an engine call when its draws cannot be enumerated: more outcomes than the limit, an
    empty range, or a draw other than ``integers(low, high)`` (shuffles, permutations, sized draws)."""


class ScriptedDraws:
    """A generator that answers ``integers(low, high)`` from a script of choices, recording the branching.

    ``script[i]`` is the offset from ``low`` of the ``i``-th draw (a draw past the script's end takes 0 and
    extends it); ``widths[i]`` is that draw's number of outcomes and ``paths`` their product, the inverse
    of the probability of this path. Any other method raises :class:`ChanceLimit`, and so does a path of
    more than ``limit`` outcomes.
    """

    __slots__ = ("script", "widths", "pos", "limit", "paths")

    def __init__(self, script: list[int], limit: int) -> None:
        self.script = script
        self.widths: list[int] = []
        self.pos = 0
        self.limit = limit
        self.paths = 1

    def integers(self, low: int, high: int | None = None, size: Any = None, dtype: Any = None, endpoint: bool = False):
        if size is not None:
            raise ChanceLimit("a sized draw")
        if high is None:
            low, high = 0, low
        width = int(high) - int(low) + (1 if endpoint else 0)
        if width <= 0:
            raise ChanceLimit("an empty range")
        self.paths *= width
        if self.paths > self.limit:
            raise ChanceLimit("too many outcomes")
        if self.pos == len(self.script):
            self.script.append(0)
        value = int(low) + self.script[self.pos]
        self.widths.append(width)
        self.pos += 1
        return value

    def __getattr__(self, name: str) -> Any:
        raise ChanceLimit(f"draws through {name}()")


def next_script(script: list[int], widths: list[int]) -> bool:
    """Advance ``script`` (an odometer over the recorded ``widths``, the last draw first) to the next
    path; ``False`` when every path has been visited."""
    del script[len(widths) :]
    for i in range(len(widths) - 1, -1, -1):
        if script[i] + 1 < widths[i]:
            script[i] += 1
            del script[i + 1 :]
            return True
    return False
