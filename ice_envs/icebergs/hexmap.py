"""The Icebergs map: hex geometry and the readable text format of a map file.

Map rules: ``docs/rules/icebergs.md`` R1.2, R1.3 and I28 (the section "Maps" documents
the default map and this format).

Geometry: flat-topped hexes in ``rows`` x ``cols`` offset coordinates ("odd-q"): odd
columns sit half a space lower than even ones. Row 0 is the north edge, column 0 the
west edge (toward Alaska) and column ``cols - 1`` the east edge (toward Newfoundland).
A space is numbered ``row * cols + col``. The six directions are

====  =====  ==========================================
id    name   neighbour of (r, c), c even / c odd
====  =====  ==========================================
0     N      (r-1, c) / (r-1, c)
1     NE     (r-1, c+1) / (r, c+1)
2     SE     (r, c+1) / (r+1, c+1)
3     S      (r+1, c) / (r+1, c)
4     SW     (r, c-1) / (r+1, c-1)
5     NW     (r-1, c-1) / (r, c-1)
====  =====  ==========================================

Map file format (``maps/default.txt`` is an example)::

    # comment lines (before the grid) start with '#'
    name: Newfoundland to Alaska
    spare_floes: 16
    grid:
    .  .  F  #  ...      one line per row, one token per column, separated by spaces

Tokens: ``.`` sea, ``#`` ice island, and on sea spaces the starting pieces as letters:
``B`` one iceberg, ``F`` one ice floe (``BF``, ``FF``... for several). Every row must
have the same number of tokens; the grid runs to the end of the file (no
comments inside it). A bad file raises :class:`MapError` naming the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path

DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
NUM_DIRECTIONS = 6
#: (drow, dcol) per direction for even and for odd columns.
_OFFSETS_EVEN = ((-1, 0), (-1, 1), (0, 1), (1, 0), (0, -1), (-1, -1))
_OFFSETS_ODD = ((-1, 0), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))
#: Neighbour code for a direction that leads off the grid.
OFF_GRID = -1

SEA = 0
ISLAND = 1


class MapError(ValueError):
    """A map file or map text that cannot be read; the message names the line."""


def neighbour(row: int, col: int, direction: int) -> tuple[int, int]:
    """(row, col) of the neighbour of (row, col) in ``direction`` (may be off the grid)."""
    dr, dc = (_OFFSETS_ODD if col & 1 else _OFFSETS_EVEN)[direction]
    return row + dr, col + dc


@dataclass(frozen=True)
class HexMap:
    """A playing map: terrain, starting pieces and the derived neighbour tables.

    Args:
        rows, cols: size of the grid.
        terrain: ``SEA`` or ``ISLAND`` per space (``row * cols + col``).
        iceberg_starts: the space of each iceberg at the start (one entry per iceberg).
        floe_starts: the space of each starting ice floe (one entry per floe).
        spare_floes: ice floes set aside at the start (used when a player rolls a one).
        name: a readable name.
    """

    rows: int
    cols: int
    terrain: tuple[int, ...]
    iceberg_starts: tuple[int, ...]
    floe_starts: tuple[int, ...]
    spare_floes: int = 16
    name: str = "map"
    #: ``neighbours[s][d]``: the space next to ``s`` in direction ``d``, or ``OFF_GRID``.
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    #: Spaces on the grid's border (a direction leads off the grid).
    border: tuple[bool, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 2:
            raise MapError(f"map {self.name!r}: needs at least 1 row and 2 columns, got {self.rows}x{self.cols}")
        if len(self.terrain) != self.rows * self.cols:
            raise MapError(
                f"map {self.name!r}: terrain has {len(self.terrain)} spaces, expected {self.rows * self.cols}"
            )
        nbrs = []
        for s in range(self.rows * self.cols):
            r, c = divmod(s, self.cols)
            row = []
            for d in range(NUM_DIRECTIONS):
                nr, nc = neighbour(r, c, d)
                row.append(nr * self.cols + nc if 0 <= nr < self.rows and 0 <= nc < self.cols else OFF_GRID)
            nbrs.append(tuple(row))
        object.__setattr__(self, "neighbours", tuple(nbrs))
        object.__setattr__(self, "border", tuple(OFF_GRID in n for n in nbrs))

    @property
    def num_spaces(self) -> int:
        return self.rows * self.cols

    def space(self, row: int, col: int) -> int:
        """Space index of (row, col)."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"({row}, {col}) is not on the {self.rows}x{self.cols} map")
        return row * self.cols + col

    def coords(self, space: int) -> tuple[int, int]:
        """(row, col) of a space index."""
        return divmod(space, self.cols)

    def label(self, space: int) -> str:
        """A short readable name of a space: ``r<row>c<col>``."""
        if 0 <= space < len(self._labels):
            return self._labels[space]
        r, c = divmod(space, self.cols)
        return f"r{r}c{c}"

    @cached_property
    def _labels(self) -> tuple[str, ...]:
        """:meth:`label` of every space, built once (not a dataclass field)."""
        return tuple(f"r{r}c{c}" for r in range(self.rows) for c in range(self.cols))

    def west_edge(self) -> list[int]:
        """Sea spaces of column 0 (the edge toward Alaska), north to south."""
        return [r * self.cols for r in range(self.rows) if self.terrain[r * self.cols] == SEA]

    def east_edge(self) -> list[int]:
        """Sea spaces of the last column (the edge toward Newfoundland), north to south."""
        last = self.cols - 1
        return [r * self.cols + last for r in range(self.rows) if self.terrain[r * self.cols + last] == SEA]

    def to_text(self) -> str:
        """The map in the file format (round-trips through :func:`parse_map`)."""
        tokens = []
        for s in range(self.num_spaces):
            if self.terrain[s] == ISLAND:
                tokens.append("#")
            else:
                tok = "B" * self.iceberg_starts.count(s) + "F" * self.floe_starts.count(s)
                tokens.append(tok or ".")
        width = max(len(t) for t in tokens) + 1
        lines = [f"name: {self.name}", f"spare_floes: {self.spare_floes}", "grid:"]
        for r in range(self.rows):
            lines.append(" ".join(t.ljust(width - 1) for t in tokens[r * self.cols : (r + 1) * self.cols]).rstrip())
        return "\n".join(lines) + "\n"


def parse_map(text: str, source: str = "<map text>") -> HexMap:
    """Read a map in the text format; :class:`MapError` names ``source`` and the line."""
    name = Path(source).stem if source != "<map text>" else "custom"
    spare = 16
    grid: list[tuple[int, list[str]]] = []
    in_grid = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if in_grid:
            # the grid runs to the end of the file; blank lines are skipped ('#' is an island here)
            if stripped:
                grid.append((lineno, stripped.split()))
            continue
        if stripped.startswith("#"):
            continue
        if not stripped:
            continue
        key, sep, value = stripped.partition(":")
        key, value = key.strip().lower(), value.strip()
        if not sep:
            raise MapError(f"{source}, line {lineno}: expected 'key: value' or 'grid:', got {raw.strip()!r}")
        if key == "grid":
            in_grid = True
        elif key == "name":
            name = value or name
        elif key == "spare_floes":
            try:
                spare = int(value)
            except ValueError:
                raise MapError(f"{source}, line {lineno}: spare_floes must be a whole number, got {value!r}") from None
            if spare < 0:
                raise MapError(f"{source}, line {lineno}: spare_floes must not be negative, got {spare}")
        else:
            raise MapError(f"{source}, line {lineno}: unknown key {key!r} (known: name, spare_floes, grid)")
    if not grid:
        raise MapError(f"{source}: no 'grid:' section with rows of spaces")
    cols = len(grid[0][1])
    terrain: list[int] = []
    bergs: list[int] = []
    floes: list[int] = []
    for r, (lineno, tokens) in enumerate(grid):
        if len(tokens) != cols:
            raise MapError(
                f"{source}, line {lineno}: row {r} has {len(tokens)} spaces, the first row has {cols}; "
                "every row needs the same number of tokens"
            )
        for c, tok in enumerate(tokens):
            s = r * cols + c
            if tok == "#":
                terrain.append(ISLAND)
                continue
            if tok == ".":
                terrain.append(SEA)
                continue
            if set(tok) - {"B", "F"}:
                raise MapError(
                    f"{source}, line {lineno}: token {tok!r} in column {c} is not '.', '#' or pieces 'B'/'F' "
                    "(iceberg / ice floe)"
                )
            terrain.append(SEA)
            bergs.extend([s] * tok.count("B"))
            floes.extend([s] * tok.count("F"))
    hexmap = HexMap(
        rows=len(grid),
        cols=cols,
        terrain=tuple(terrain),
        iceberg_starts=tuple(bergs),
        floe_starts=tuple(floes),
        spare_floes=spare,
        name=name,
    )
    _check_playable(hexmap, source, grid[0][0])
    return hexmap


def _check_playable(hexmap: HexMap, source: str, first_line: int) -> None:
    """Both edges have sea, and a sea route joins them."""
    if hexmap.cols < 2:
        raise MapError(f"{source}, line {first_line}: the grid needs at least 2 columns")
    west, east = hexmap.west_edge(), hexmap.east_edge()
    if not west:
        raise MapError(f"{source}, line {first_line}: the west edge (column 0) has no sea space")
    if not east:
        raise MapError(f"{source}, line {first_line}: the east edge (last column) has no sea space")
    seen = set(east)
    todo = list(east)
    while todo:
        s = todo.pop()
        for t in hexmap.neighbours[s]:
            if t != OFF_GRID and t not in seen and hexmap.terrain[t] == SEA:
                seen.add(t)
                todo.append(t)
    if not seen.intersection(west):
        raise MapError(f"{source}, line {first_line}: no sea route joins the east edge to the west edge")


def load_map(path: str | Path | None = None) -> HexMap:
    """The map at ``path``, or the default map shipped in the package (``None``)."""
    if path is None:
        return default_map()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise MapError(f"cannot read map file {str(p)!r}: {exc.strerror or exc}") from None
    return parse_map(text, source=str(p))


_DEFAULT: HexMap | None = None


def default_map() -> HexMap:
    """The default map (``ice_envs/icebergs/maps/default.txt``), read once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = packaged_map("default")
    return _DEFAULT


def packaged_map(name: str) -> HexMap:
    """A map shipped in ``ice_envs/icebergs/maps/<name>.txt``."""
    res = resources.files("ice_envs.icebergs").joinpath("maps").joinpath(f"{name}.txt")
    if not res.is_file():
        raise MapError(f"no packaged Icebergs map named {name!r}")
    return parse_map(res.read_text(encoding="utf-8"), source=f"maps/{name}.txt")
