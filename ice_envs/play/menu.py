"""The numbered menu of legal moves, grouped when there are many.

Every legal action has a label (``describe_action``) and a group path (see
:func:`ice_envs.play.games.group_path`). A level of the menu lists its actions flat
when there are at most ``limit`` of them; otherwise actions that share the next group
name are folded into one numbered entry, which opens a sub-menu (``back`` returns).
A group holding a single action is shown as that action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

GroupPath = tuple[str, ...]
DEFAULT_LIMIT = 20


@dataclass(frozen=True)
class Entry:
    """One numbered line: an action, or a group of actions (``path`` set)."""

    label: str
    actions: tuple[int, ...]
    path: GroupPath | None = None

    @property
    def is_group(self) -> bool:
        return self.path is not None


class MoveMenu:
    """A menu over ``legal`` actions with ``label(a)`` texts and ``path(a)`` groups."""

    def __init__(
        self,
        legal: Sequence[int],
        label: Callable[[int], str],
        path: Callable[[int], GroupPath],
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        if not legal:
            raise ValueError("a move menu needs at least one legal action")
        self.legal = [int(a) for a in legal]
        self.labels = {a: label(a) for a in self.legal}
        self.paths = {a: tuple(path(a)) for a in self.legal}
        self.limit = limit
        self.prefix: GroupPath = ()

    def _actions_under(self, prefix: GroupPath) -> list[int]:
        n = len(prefix)
        return [a for a in self.legal if self.paths[a][:n] == prefix]

    def entries(self) -> list[Entry]:
        """The numbered entries of the current level (entry ``i`` is number ``i + 1``)."""
        actions = self._actions_under(self.prefix)
        depth = len(self.prefix)
        if len(actions) <= self.limit or all(len(self.paths[a]) <= depth for a in actions):
            return [Entry(self.labels[a], (a,)) for a in actions]
        order: list[str | int] = []
        groups: dict[str, list[int]] = {}
        for a in actions:
            path = self.paths[a]
            if len(path) <= depth:
                order.append(a)
                continue
            name = path[depth]
            if name not in groups:
                groups[name] = []
                order.append(name)
            groups[name].append(a)
        out = []
        for item in order:
            if isinstance(item, int):
                out.append(Entry(self.labels[item], (item,)))
            elif len(groups[item]) == 1:
                a = groups[item][0]
                out.append(Entry(self.labels[a], (a,)))
            else:
                members = tuple(groups[item])
                out.append(Entry(f"{item} ... ({len(members)} choices)", members, (*self.prefix, item)))
        return out

    @property
    def title(self) -> str:
        """Where the menu is: ``"Your moves"`` or the open groups."""
        return "Your moves" if not self.prefix else "Your moves > " + " > ".join(self.prefix)

    def choose(self, number: int) -> int | None:
        """Pick entry ``number`` (1-based): the action of a leaf, or ``None`` after opening a group.

        Raises ``IndexError`` for a number outside the menu.
        """
        entries = self.entries()
        if not 1 <= number <= len(entries):
            raise IndexError(number)
        entry = entries[number - 1]
        if entry.path is None:
            return entry.actions[0]
        self.prefix = entry.path
        return None

    def back(self) -> bool:
        """Close the innermost open group; ``False`` when already at the top."""
        if not self.prefix:
            return False
        self.prefix = self.prefix[:-1]
        return True
